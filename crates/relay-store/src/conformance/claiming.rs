//! Conformance cases for how claims share the room (full and capped lanes), health
//! facts, the latency histogram, the next due time, live before recovery.

use super::*;

pub async fn claims_skip_full_lanes_and_released_claims_are_due_again(s: &dyn Store) {
    let (_live, endpoints) = delivery_fixture(s, 3).await;
    let full = vec![(endpoints[0].id.clone(), 0), (endpoints[1].id.clone(), 0)];
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &full)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].endpoint.id, endpoints[2].id);
    let more = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(more.len(), 2);
    let ids: Vec<String> = more.iter().map(|c| c.message.id.clone()).collect();
    assert_eq!(
        release_claims(s, "someone-else", &ids, T0).await.unwrap(),
        0
    );
    assert_eq!(release_claims(s, "w", &ids, T0).await.unwrap(), 2);
    let again = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(again.len(), 2);
    assert!(
        again
            .iter()
            .all(|c| c.message.attempts_used == 0 && c.message.next_attempt_at == Some(T0))
    );
}

pub async fn claims_take_at_most_each_endpoints_room(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let roomy = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let mut narrow = endpoint_value(&live, &c.id, &["order.shipped"]);
    narrow.max_concurrency = 3;
    create_endpoint(s, &live, &narrow, &[], LIMITS, None)
        .await
        .unwrap();
    for i in 0..6 {
        let mut ev = new_event(&format!("evt_room_{i}"), "order.shipped", None);
        ev.now = T0.plus_millis(i);
        s.publish(&live, ev).await.unwrap();
    }
    let count = |claimed: &[crate::Claimed], e: &Endpoint| {
        claimed.iter().filter(|c| c.endpoint.id == e.id).count()
    };
    // The lane of `roomy` has 2 free slots; `narrow` is unknown to the lanes,
    // so its max_concurrency (3) caps it.
    let first = claim_due(
        s,
        "w",
        T0.plus_seconds(1),
        T0.plus_seconds(30),
        100,
        &[(roomy.id.clone(), 2)],
    )
    .await
    .unwrap();
    assert_eq!((count(&first, &roomy), count(&first, &narrow)), (2, 3));
    // The oldest due of each endpoint go first.
    let oldest: Vec<&str> = first
        .iter()
        .filter(|c| c.endpoint.id == roomy.id)
        .map(|c| c.event.id.as_str())
        .collect();
    assert_eq!(oldest, ["evt_room_0", "evt_room_1"]);
    // Room 0 skips an endpoint; the limit still applies across endpoints.
    let second = claim_due(
        s,
        "w",
        T0.plus_seconds(1),
        T0.plus_seconds(30),
        2,
        &[(narrow.id.clone(), 0)],
    )
    .await
    .unwrap();
    assert_eq!((count(&second, &roomy), count(&second, &narrow)), (2, 0));
    let rest = claim_due(s, "w", T0.plus_seconds(1), T0.plus_seconds(30), 100, &[])
        .await
        .unwrap();
    assert_eq!((count(&rest, &roomy), count(&rest, &narrow)), (2, 3));
}

pub async fn claims_look_past_full_and_capped_endpoints_backlogs(s: &dyn Store) {
    // Due first: a hanging endpoint's backlog (its lane is full), then the
    // backlog of an endpoint whose lane has room for 2, then one capped by
    // its max_concurrency (2; the lanes do not know it), then a healthy
    // endpoint's few messages. Each backlog is longer than a claim's window,
    // so a claim that only looks at the next due messages finds nothing it
    // may take beyond the capped endpoints' room.
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let hanging = endpoint(s, &live, &c.id, &["hang.queued"]).await;
    let roomy = endpoint(s, &live, &c.id, &["room.queued"]).await;
    let mut narrow = endpoint_value(&live, &c.id, &["narrow.queued"]);
    narrow.max_concurrency = 2;
    create_endpoint(s, &live, &narrow, &[], LIMITS, None)
        .await
        .unwrap();
    let healthy = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    for (kind, event_type, first_due, n) in [
        ("hang", "hang.queued", 0, 40),
        ("room", "room.queued", 100, 40),
        ("narrow", "narrow.queued", 200, 40),
        ("ok", "order.shipped", 300, 5),
    ] {
        for i in 0..n {
            let mut ev = new_event(&format!("evt_{kind}_{i:02}"), event_type, None);
            ev.now = T0.plus_millis(first_due + i);
            s.publish(&live, ev).await.unwrap();
        }
    }
    let now = T0.plus_seconds(10);
    let claim = async |limit: u32, room: &[(String, u32)]| {
        claim_due(s, "w", now, now.plus_seconds(30), limit, room)
            .await
            .unwrap()
    };
    let events = |claimed: &[crate::Claimed]| -> Vec<String> {
        claimed.iter().map(|c| c.event.id.clone()).collect()
    };
    let release = async |claimed: &[crate::Claimed]| {
        let ids: Vec<String> = claimed.iter().map(|c| c.message.id.clone()).collect();
        assert_eq!(
            release_claims(s, "w", &ids, now).await.unwrap(),
            ids.len() as u64
        );
    };
    // The lanes: `hanging` full, `roomy` with 2 free slots.
    let lanes = vec![(hanging.id.clone(), 0), (roomy.id.clone(), 2)];
    let first = [
        "evt_room_00",
        "evt_room_01",
        "evt_narrow_00",
        "evt_narrow_01",
        "evt_ok_00",
        "evt_ok_01",
    ];
    // Of 9 messages the rooms allow, the 6 due first, in due order.
    let claimed = claim(6, &lanes).await;
    assert_eq!(events(&claimed), first);
    release(&claimed).await;
    // The same with more endpoints in flight than a claim spells out (a
    // longer window): lanes nobody has messages for, with more room.
    let mut many = lanes.clone();
    many.extend((0..70).map(|i| (format!("ep_elsewhere_{i:02}"), 5)));
    let claimed = claim(6, &many).await;
    assert_eq!(events(&claimed), first);
    release(&claimed).await;
    // `roomy` full too: the capped endpoint still gets its 2, the healthy
    // one all of its messages, the full ones nothing.
    let lanes = vec![(hanging.id.clone(), 0), (roomy.id.clone(), 0)];
    let claimed = claim(10, &lanes).await;
    assert_eq!(
        events(&claimed),
        [
            "evt_narrow_00",
            "evt_narrow_01",
            "evt_ok_00",
            "evt_ok_01",
            "evt_ok_02",
            "evt_ok_03",
            "evt_ok_04",
        ]
    );
    assert!(
        claimed
            .iter()
            .all(|c| c.endpoint.id == narrow.id || c.endpoint.id == healthy.id)
    );
    // With every lane free again, the oldest due go first.
    release(&claimed).await;
    let claimed = claim(3, &[]).await;
    assert_eq!(
        events(&claimed),
        ["evt_hang_00", "evt_hang_01", "evt_hang_02"]
    );
}

pub async fn health_facts_summarise_attempts_and_backlog(s: &dyn Store) {
    let (_live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let empty = health_facts(s, &e.id, T0).await.unwrap();
    assert_eq!((empty.last_hour, empty.backlog), ((0, 0), 1));
    assert_eq!(empty.oldest_pending_at, Some(T0));
    for i in 0..4 {
        let claimed = claim_due(
            s,
            "w",
            T0.plus_seconds(i * 10),
            T0.plus_seconds(i * 10 + 30),
            1,
            &[],
        )
        .await
        .unwrap();
        let c = &claimed[0];
        let delivered_now = i == 3;
        let mut comp = completion(
            c,
            "w",
            if delivered_now {
                delivered(c)
            } else {
                Progress {
                    state: MessageState::Scheduled,
                    attempts_used: c.progress().attempts_used + 1,
                    next_attempt_at: Some(T0.plus_seconds(i * 10 + 10)),
                    ..c.progress()
                }
            },
        );
        if let Some(a) = comp.attempt.as_mut() {
            a.id = new_id(IdKind::Attempt, T0);
            a.started_at = T0.plus_seconds(i * 10);
            a.duration_ms = 100 * (i + 1);
            a.outcome = if delivered_now {
                AttemptOutcome::Delivered
            } else {
                AttemptOutcome::Retry
            };
            let status = if delivered_now { 200 } else { 503 };
            a.status_code = Some(status);
            a.detail = serde_json::json!({"status_code": status, "response_body": "ok"});
        }
        complete(s, &[comp]).await.unwrap();
    }
    let f = health_facts(s, &e.id, T0.plus_seconds(60)).await.unwrap();
    assert_eq!(f.last_hour, (4, 1));
    assert_eq!(f.last_day, (4, 1));
    // 100, 200, 300 and 400 ms: buckets (75, 100], (150, 200], (200, 300], (300, 500].
    assert_eq!(f.latency.total(), 4);
    assert_eq!(f.latency.max_ms, 400);
    assert_eq!(f.latency.percentile(25), Some(100));
    assert_eq!(f.latency.percentile(50), Some(200));
    assert_eq!(f.latency.percentile(75), Some(300));
    assert_eq!(
        f.latency.percentile(99),
        Some(400),
        "bounded by the largest seen"
    );
    assert_eq!(f.last_success_at, Some(T0.plus_seconds(30)));
    assert_eq!((f.backlog, f.oldest_pending_at), (0, None));
    assert_eq!(f.recent_errors.len(), 3);
    assert!(
        f.recent_errors[0].started_at >= f.recent_errors[2].started_at,
        "newest first"
    );
    let later = health_facts(s, &e.id, T0.plus_seconds(2 * 3600))
        .await
        .unwrap();
    assert_eq!(later.last_hour, (0, 0));
    assert_eq!(later.last_day, (4, 1));
    assert_eq!(later.latency.total(), 4, "the histogram keeps 24 hours");
    let next_day = health_facts(s, &e.id, T0.plus_seconds(26 * 3600))
        .await
        .unwrap();
    assert_eq!(next_day.latency.total(), 0, "hours older than 24 drop out");
    // Purging removes the hours before the cutoff, and only those.
    assert_eq!(purge_latency_before(s, T0).await.unwrap(), 0);
    assert!(
        purge_latency_before(s, T0.plus_seconds(3600))
            .await
            .unwrap()
            > 0
    );
    let purged = health_facts(s, &e.id, T0.plus_seconds(60)).await.unwrap();
    assert_eq!(purged.latency.total(), 0);
}

pub async fn latency_histogram_rows_merge_within_and_across_batches(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 2).await;
    s.publish(&live, new_event("evt_d2", "order.shipped", None))
        .await
        .unwrap();
    // Two batches of one attempt per endpoint: the first writes two rows in
    // one statement, the second adds to them (110 and 140 ms share a bucket).
    for (round, ms) in [(0, 110), (1, 140)] {
        let now = T0.plus_seconds(round * 10);
        let claimed = claim_due(s, "w", now, now.plus_seconds(30), 2, &[])
            .await
            .unwrap();
        let mut seen: Vec<&str> = claimed.iter().map(|c| c.endpoint.id.as_str()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 2, "one message of each endpoint");
        let batch: Vec<Completion> = claimed
            .iter()
            .map(|c| {
                let mut comp = completion(c, "w", delivered(c));
                if let Some(a) = comp.attempt.as_mut() {
                    a.id = new_id(IdKind::Attempt, now);
                    a.started_at = now;
                    a.duration_ms = ms;
                }
                comp
            })
            .collect();
        complete(s, &batch).await.unwrap();
    }
    for e in &endpoints {
        let f = health_facts(s, &e.id, T0.plus_seconds(60)).await.unwrap();
        assert_eq!(f.latency.total(), 2, "both attempts counted");
        assert_eq!(f.latency.max_ms, 140, "the larger maximum kept");
        assert_eq!(
            f.latency.percentile(50),
            f.latency.percentile(99),
            "one bucket"
        );
    }
}

pub async fn a_claim_reports_when_the_next_message_is_due(s: &dyn Store) {
    let (live, _endpoints) = delivery_fixture(s, 1).await;
    let mut later = new_event("evt_later", "order.shipped", None);
    later.now = T0.plus_seconds(50);
    s.publish(&live, later).await.unwrap();
    let now = T0.plus_seconds(1);
    let batch = claim(
        s,
        &crate::ClaimRequest {
            owner: "w",
            now,
            lease_until: now.plus_seconds(30),
            limit: 10,
            recovery_limit: 10,
            room: &[],
            recovery_after: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(batch.claimed.len(), 1, "only the message due now");
    assert_eq!(
        batch.next_due,
        Some(T0.plus_seconds(50)),
        "the later message, not the one just leased"
    );
    assert_eq!(next_due_at(s,).await.unwrap(), batch.next_due);
}

pub async fn live_messages_are_claimed_before_recovery_traffic(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    // The first message fails for good, then is recovered: due at T0 + 10.
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 1, &[])
        .await
        .unwrap();
    let mut failed = completion(
        &claimed[0],
        "w",
        Progress {
            state: MessageState::FailedPermanent,
            attempts_used: 1,
            next_attempt_at: None,
            terminal_reason: Some("rejected_by_endpoint".into()),
            ..claimed[0].progress()
        },
    );
    failed.attempt = None;
    complete(s, &[failed]).await.unwrap();
    crate::recovery::recover(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(1),
        &audit("endpoint.recovered", &e.id, T0.plus_seconds(10)),
    )
    .await
    .unwrap();
    // A live message published later, due later.
    let later = NewEvent {
        now: T0.plus_seconds(20),
        ..new_event("evt_live", "order.shipped", None)
    };
    s.publish(&live, later).await.unwrap();
    let first = claim_due(s, "w", T0.plus_seconds(30), T0.plus_seconds(60), 1, &[])
        .await
        .unwrap();
    assert_eq!(first[0].event.id, "evt_live", "live traffic goes first");
    let second = claim_due(s, "w", T0.plus_seconds(30), T0.plus_seconds(60), 1, &[])
        .await
        .unwrap();
    assert_eq!(second[0].event.id, "evt_d", "recovery traffic follows");
}

/// The backlog `/metrics` shows: messages waiting for delivery (scheduled
/// or being attempted, not held), and when the oldest of them was made.
pub async fn the_backlog_counts_waiting_messages_and_their_oldest(s: &dyn Store) {
    assert_eq!(backlog_summary(s,).await.unwrap(), (0, None));
    let (live, _endpoints) = delivery_fixture(s, 1).await;
    let mut later = new_event("evt_later", "order.shipped", None);
    later.now = T0.plus_seconds(100);
    s.publish(&live, later).await.unwrap();
    assert_eq!(backlog_summary(s,).await.unwrap(), (2, Some(T0)));
    let claimed = claim_due(s, "w", T0.plus_seconds(200), T0.plus_seconds(230), 1, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(
        backlog_summary(s,).await.unwrap(),
        (2, Some(T0)),
        "a message being attempted still waits"
    );
    let c = &claimed[0];
    complete(s, &[completion(c, "w", delivered(c))])
        .await
        .unwrap();
    assert_eq!(
        backlog_summary(s,).await.unwrap(),
        (1, Some(T0.plus_seconds(100)))
    );
}
