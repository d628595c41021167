//! Conformance cases for work over many messages at once: replay, the
//! retention purge in batches, bulk retry jobs.

use super::*;

pub async fn replay_delivers_retained_events_to_an_endpoint_once(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let other_c = consumer(s, &live, "other").await;
    for (i, (ty, at)) in [
        ("order.shipped", 0),
        ("order.created", 1),
        ("order.shipped", 2),
        ("order.shipped", 100),
    ]
    .into_iter()
    .enumerate()
    {
        let ev = NewEvent {
            now: T0.plus_seconds(at),
            ..new_event(&format!("evt_{i}"), ty, None)
        };
        s.publish(&live, ev).await.unwrap();
    }
    // An event meant for another consumer is never replayed to this one.
    let mut theirs = new_event("evt_theirs", "order.shipped", None);
    theirs.consumer_id = Some(other_c.id.clone());
    s.publish(&live, theirs).await.unwrap();
    // A new endpoint, added later.
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let n = crate::recovery::replay(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(50),
        None,
        &audit("endpoint.replayed", &e.id, T0.plus_seconds(200)),
    )
    .await
    .unwrap();
    assert_eq!(n, 2, "order.shipped within the range: evt_0 and evt_2");
    let mut ids: Vec<String> = list_messages(
        s,
        &live,
        &MessageFilter {
            endpoint_id: Some(e.id.clone()),
            ..Default::default()
        },
        &page(10),
    )
    .await
    .unwrap()
    .data
    .into_iter()
    .map(|m| m.event_id)
    .collect();
    ids.sort();
    assert_eq!(ids, vec!["evt_0", "evt_2"], "each event keeps its id");
    // Replaying again creates nothing: (endpoint_id, event_id) is unique.
    let again = crate::recovery::replay(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(500),
        None,
        &audit("endpoint.replayed", &e.id, T0.plus_seconds(201)),
    )
    .await
    .unwrap();
    assert_eq!(again, 1, "only evt_3 was still missing");
    let types = ["order.created".to_string()];
    let none = crate::recovery::replay(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(500),
        Some(&types),
        &audit("endpoint.replayed", &e.id, T0.plus_seconds(202)),
    )
    .await
    .unwrap();
    assert_eq!(
        none, 0,
        "types the endpoint does not subscribe to are not replayed"
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        crate::recovery::replay(
            s,
            &scope(&other, Environment::Live),
            &e.id,
            T0,
            T0.plus_seconds(500),
            None,
            &audit("x", &e.id, T0)
        )
        .await,
        Err(StoreError::NotFound)
    ));
}

pub async fn purge_removes_old_events_with_their_messages_in_batches(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    complete(
        s,
        &claimed
            .iter()
            .map(|c| completion(c, "w", delivered(c)))
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    for i in 0..3 {
        let ev = NewEvent {
            now: T0.plus_seconds(10 + i),
            ..new_event(&format!("evt_old{i}"), "order.shipped", None)
        };
        s.publish(&live, ev).await.unwrap();
        // Ended: the purge keeps an event while a message of it is live.
        let messages = list_messages(
            s,
            &live,
            &MessageFilter {
                event_id: Some(format!("evt_old{i}")),
                ..Default::default()
            },
            &page(10),
        )
        .await
        .unwrap();
        for m in messages.data {
            cancel_message(s, &live, &m.id, T0, None).await.unwrap();
        }
    }
    let fresh = NewEvent {
        now: T0.plus_seconds(1000),
        ..new_event("evt_fresh", "order.shipped", None)
    };
    s.publish(&live, fresh).await.unwrap();
    let cutoff = T0.plus_seconds(500);
    assert_eq!(purge_before(s, cutoff, 2).await.unwrap(), 2);
    assert_eq!(purge_before(s, cutoff, 2).await.unwrap(), 2);
    assert_eq!(purge_before(s, cutoff, 2).await.unwrap(), 0);
    assert!(get_event(s, &live, "evt_d").await.unwrap().is_none());
    assert!(get_event(s, &live, "evt_fresh").await.unwrap().is_some());
    let left = list_messages(s, &live, &MessageFilter::default(), &page(50))
        .await
        .unwrap();
    assert!(
        left.data.iter().all(|m| m.event_id == "evt_fresh"),
        "{:?}",
        left.data
    );
    assert!(
        list_attempts(s, &live, &claimed[0].message.id, &PageRequest::first(250))
            .await
            .unwrap()
            .data
            .is_empty()
    );
}

pub async fn bulk_retry_jobs_advance_by_cursor_and_resume_after_a_lost_worker(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 3).await;
    for i in 0..4 {
        s.publish(
            &live,
            new_event(&format!("evt_more{i}"), "order.shipped", None),
        )
        .await
        .unwrap();
    }
    // Exhaust everything, then delete one endpoint: its messages must not come back.
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 100, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 15);
    let failed: Vec<Completion> = claimed
        .iter()
        .map(|c| {
            let mut done = completion(
                c,
                "w",
                Progress {
                    state: MessageState::Exhausted,
                    attempts_used: 10,
                    next_attempt_at: None,
                    last_error_code: Some("http_503".into()),
                    terminal_reason: Some("attempts_exhausted".into()),
                    ..c.progress()
                },
            );
            done.attempt = None;
            done
        })
        .collect();
    complete(s, &failed).await.unwrap();
    delete_endpoint(s, &live, &endpoints[2].id, T0, None)
        .await
        .unwrap();
    let job = crate::Job {
        id: new_id(IdKind::Job, T0),
        kind: relay_core::model::JobKind::BulkRetry,
        parameters: json!({"error_code": "http_503"}),
        state: relay_core::model::JobState::Queued,
        processed: 0,
        affected: 0,
        created_at: T0,
        updated_at: T0,
        finished_at: None,
    };
    create_job(s, &live, &job, &audit("messages.bulk_retry", &job.id, T0))
        .await
        .unwrap();
    let filter = MessageFilter {
        error_code: Some("http_503".into()),
        ..Default::default()
    };
    let leased = lease_job(s, "w1", T0, T0.plus_seconds(30))
        .await
        .unwrap()
        .expect("queued job");
    assert!(
        lease_job(s, "w2", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none(),
        "one worker at a time"
    );
    let after_one = advance_bulk_retry(s, &leased, &filter, "w1", 4, T0, T0.plus_seconds(30))
        .await
        .unwrap();
    assert_eq!(
        (after_one.state.as_str(), after_one.processed),
        ("running", 4)
    );
    // The worker dies; after its lease another one resumes from the cursor.
    let resumed = lease_job(s, "w2", T0.plus_seconds(31), T0.plus_seconds(60))
        .await
        .unwrap()
        .expect("abandoned job");
    assert!(matches!(
        advance_bulk_retry(s, &leased, &filter, "w1", 4, T0, T0.plus_seconds(30)).await,
        Err(StoreError::Conflict(_))
    ));
    let mut last = after_one;
    while last.state != relay_core::model::JobState::Done {
        last = advance_bulk_retry(
            s,
            &resumed,
            &filter,
            "w2",
            4,
            T0.plus_seconds(32),
            T0.plus_seconds(60),
        )
        .await
        .unwrap();
    }
    assert_eq!(last.processed, 15, "every matching message examined once");
    assert_eq!(
        last.affected, 10,
        "the removed endpoint's 5 stay dead-lettered"
    );
    assert!(last.finished_at.is_some());
    let scheduled = list_messages(
        s,
        &live,
        &MessageFilter {
            state: Some(MessageState::Scheduled),
            ..Default::default()
        },
        &page(50),
    )
    .await
    .unwrap();
    assert_eq!(scheduled.data.len(), 10);
    assert!(scheduled.data.iter().all(|m| m.attempts_used == 0));
    assert_eq!(get_job(s, &live, &job.id).await.unwrap().unwrap(), last);
    let other = tenant(s, "b").await;
    assert!(
        get_job(s, &scope(&other, Environment::Live), &job.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        lease_job(s, "w3", T0.plus_seconds(100), T0.plus_seconds(130))
            .await
            .unwrap()
            .is_none()
    );
}
