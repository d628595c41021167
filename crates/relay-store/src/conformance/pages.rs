//! Conformance cases for the lists that used to be read whole (issue 39,
//! section 3): event types, a message's attempts, a tenant's API keys and an
//! endpoint's versions come a bounded page at a time, in a stable order,
//! each item once, the continuation naming where the next page starts.

use super::*;
use crate::ExecutorExt as _;

/// Pages through a list with pages of `limit`, returning each page's items.
async fn pages<T, F, Fut>(limit: u32, mut read: F) -> Vec<Vec<T>>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: std::future::Future<Output = relay_core::model::Page<T>>,
{
    let mut out = Vec::new();
    let mut request = PageRequest::first(limit);
    for _ in 0..100 {
        let page = read(request.clone()).await;
        assert!(
            page.data.len() <= limit as usize,
            "a page holds at most its limit"
        );
        let next = page.next_after.clone();
        out.push(page.data);
        match next {
            Some(after) => request.after = Some(after),
            None => return out,
        }
    }
    panic!("more than 100 pages");
}

fn put(name: &str, schema: serde_json::Value) -> PutEventType {
    PutEventType {
        name: name.into(),
        description: String::new(),
        schema,
        sample: None,
        thin_fields: vec![],
        personal_data_fields: vec![],
        audience: Default::default(),
        now: T0,
    }
}

pub async fn lists_come_a_bounded_page_at_a_time(s: &dyn Store) {
    // Event types by name, each with all of its versions.
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    for name in ["e.e", "a.a", "c.c", "b.b", "d.d"] {
        put_event_type(s, &live, &put(name, json!({"type": "object"})))
            .await
            .unwrap();
    }
    put_event_type(s, &live, &put("b.b", json!({"type": "array"})))
        .await
        .unwrap();
    let got = pages(2, |p| {
        let live = live.clone();
        async move { list_event_types(s, &live, &p).await.unwrap() }
    })
    .await;
    let names: Vec<Vec<&str>> = got
        .iter()
        .map(|p| p.iter().map(|t| t.name.as_str()).collect())
        .collect();
    assert_eq!(
        names,
        vec![vec!["a.a", "b.b"], vec!["c.c", "d.d"], vec!["e.e"]]
    );
    let versions: Vec<usize> = got.iter().flatten().map(|t| t.versions.len()).collect();
    assert_eq!(
        versions,
        vec![1, 2, 1, 1, 1],
        "each type with its own versions"
    );
    let test = scope(&t, Environment::Test);
    assert!(
        list_event_types(s, &test, &page(2))
            .await
            .unwrap()
            .data
            .is_empty()
    );

    // A message's attempts by number, then id; five attempts recorded by
    // completions (a foreign owner's completion is recorded, not applied).
    let (live, _) = delivery_fixture(s, 1).await;
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let c = &claimed[0];
    for (i, number) in [3, 1, 2, 1, 0].into_iter().enumerate() {
        let mut done = completion(c, "another-worker", delivered(c));
        let attempt = done.attempt.as_mut().unwrap();
        attempt.number = number;
        attempt.id = new_id(IdKind::Attempt, T0.plus_millis(i as i64));
        complete(s, &[done]).await.unwrap();
    }
    let got = pages(2, |p| {
        let (live, id) = (live.clone(), c.message.id.clone());
        async move { list_attempts(s, &live, &id, &p).await.unwrap() }
    })
    .await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 2, 1]);
    let order: Vec<(i64, String)> = got
        .iter()
        .flatten()
        .map(|a| (a.number, a.id.clone()))
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(order, sorted, "by number then id, each once");
    assert_eq!(order.len(), 5);

    // A tenant's API keys by id.
    for i in 0..3 {
        create_api_key(
            s,
            &NewApiKey {
                id: new_id(IdKind::ApiKey, T0.plus_millis(i)),
                tenant_id: t.id.clone(),
                environment: Environment::Live,
                name: None,
                prefix: "rk_live_abcd".into(),
                key_hash: format!("hash{i}"),
                created_at: T0,
            },
        )
        .await
        .unwrap();
    }
    let got = pages(2, |p| {
        let id = t.id.clone();
        async move { list_api_keys(s, &id, &p).await.unwrap() }
    })
    .await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 1]);
    let ids: Vec<&str> = got.iter().flatten().map(|k| k.id.as_str()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");

    // An endpoint's versions by number.
    let con = consumer(s, &live, "pages").await;
    let mut e = endpoint(s, &live, &con.id, &["order.shipped"]).await;
    for v in 2..=5 {
        let at = T0.plus_millis(1000 * v);
        e.snapshot_fields = vec![format!("/f{v}")];
        e.version = v;
        e.version_started_at = at;
        e.updated_at = at;
        update_endpoint(s, &live, &e, &[]).await.unwrap();
        e.revision += 1;
    }
    let got = pages(2, |p| {
        let (live, id) = (live.clone(), e.id.clone());
        async move { endpoint_versions(s, &live, &id, &p).await.unwrap().unwrap() }
    })
    .await;
    let numbers: Vec<Vec<i64>> = got
        .iter()
        .map(|p| p.iter().map(|v| v.version).collect())
        .collect();
    assert_eq!(numbers, vec![vec![1, 2], vec![3, 4], vec![5]]);
}

/// A filtered message list reads at most [`crate::messages::MAX_SCANNED`]
/// messages a page (issue 47: a state or an error code that matches 3 of
/// 25,000 read every message of the tenant in one request): a page that
/// is not full by then ends at the last message read, with fewer matches
/// or none, and the pages together hold every match exactly once, in
/// order. A list without such a filter pages as before; a filter with the
/// endpoint scans that endpoint's messages only.
pub async fn a_filtered_message_list_reads_a_bounded_span_per_page(s: &dyn Store) {
    let t = tenant(s, "acme").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let busy = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let quiet = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let n = u64::from(crate::messages::MAX_SCANNED) * 5 / 2;
    for (endpoint_id, prefix, state, count) in [
        (&busy.id, "evt_s_", MessageState::Delivered, n),
        (&busy.id, "evt_t_", MessageState::Exhausted, 3),
        (&quiet.id, "evt_u_", MessageState::Exhausted, 2),
    ] {
        super::chunks::seed_messages(s, &live, endpoint_id, prefix, state, count).await;
    }
    let live = &live;
    let list = |filter: MessageFilter| {
        move |request: PageRequest| {
            let filter = filter.clone();
            async move { list_messages(s, live, &filter, &request).await.unwrap() }
        }
    };
    let exhausted = MessageFilter {
        state: Some(MessageState::Exhausted),
        ..Default::default()
    };
    let got = pages(50, list(exhausted)).await;
    let sizes: Vec<usize> = got.iter().map(Vec::len).collect();
    // `msg_evt_s_…` sort before `msg_evt_t_…` and `msg_evt_u_…`: two spans
    // of the busy endpoint's deliveries without a match, then the rest.
    assert_eq!(sizes, [0, 0, 5], "{sizes:?}");
    let ids: Vec<&str> = got.iter().flatten().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "msg_evt_t_1",
            "msg_evt_t_2",
            "msg_evt_t_3",
            "msg_evt_u_1",
            "msg_evt_u_2"
        ]
    );
    // Of the quiet endpoint: its own messages only, one page.
    let quiet_only = MessageFilter {
        endpoint_id: Some(quiet.id.clone()),
        state: Some(MessageState::Exhausted),
        ..Default::default()
    };
    let got = pages(50, list(quiet_only)).await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [2]);
    // Without such a filter: full pages, as before, past the span.
    let mut request = PageRequest::first(250);
    request.after = Some("msg_evt_s_9".into());
    let page = list(MessageFilter::default())(request).await;
    assert_eq!(page.data.len(), 250);
    assert_eq!(page.next_after.as_deref(), Some(page.data[249].id.as_str()));
    let by_endpoint = MessageFilter {
        endpoint_id: Some(busy.id.clone()),
        ..Default::default()
    };
    let page = list(by_endpoint)(PageRequest::first(250)).await;
    assert_eq!(page.data.len(), 250);
}

/// A list from a time on (`since`) starts at that time's messages, however
/// many older ones the tenant has (issue 47: a day's window in the middle
/// of 10 million messages read 10,000 older ones per page, and a client
/// paged through hundreds of empty pages to reach it): message ids are
/// never earlier than their creation time, so the window's first id bounds
/// the read. The history is seeded with the ids live traffic would have
/// had (`seed::time_id`, checked here against the seed's own SQL), and a
/// message published through the store's publish comes after them.
pub async fn a_time_window_list_starts_at_the_window(s: &dyn Store) {
    let t = tenant(s, "window").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let n = u64::from(crate::messages::MAX_SCANNED) * 3;
    let (sc, endpoint_id) = (live.clone(), e.id.clone());
    s.write(crate::Commit::Durable, move |mut x| {
        Box::pin(async move {
            let seed = crate::seed::Messages {
                scope: &sc,
                endpoint_id: &endpoint_id,
                prefix: "evt_w_",
                event_type: "order.shipped",
                state: MessageState::Delivered,
                due: None,
                attempts_used: 1,
                now: T0,
            };
            let shape = crate::seed::Shape {
                spacing_ms: 1000,
                padded: true,
                time_ids: Some(7),
                ..Default::default()
            };
            crate::seed::messages_shaped(&mut x, &seed, &shape, 1, n).await
        })
    })
    .await
    .expect("seed a history");
    // Second 25,001 to 25,003 of the history (row i is created at T0 + i s).
    let first = n - u64::from(crate::messages::MAX_SCANNED / 2);
    let window = |endpoint_id: Option<String>| MessageFilter {
        endpoint_id,
        since: Some(T0.plus_seconds(first as i64)),
        until: Some(T0.plus_seconds(first as i64 + 3)),
        ..Default::default()
    };
    let want: Vec<String> = (first..first + 3)
        .map(|i| crate::seed::time_id(7, T0.plus_seconds(i as i64), i))
        .collect();
    for filter in [window(None), window(Some(e.id.clone()))] {
        let page = list_messages(s, &live, &filter, &PageRequest::first(50))
            .await
            .unwrap();
        let ids: Vec<&str> = page.data.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(
            ids, want,
            "the window's messages on the first page: {filter:?}"
        );
    }

    // Live traffic after the history: a window from its time finds it on
    // the first page too, and one from a millisecond later does not.
    let at = T0.plus_seconds(n as i64 + 60);
    s.publish(
        &live,
        NewEvent {
            now: at,
            time: at,
            ..new_event("evt_live", "order.shipped", None)
        },
    )
    .await
    .expect("publish");
    for (since, found) in [(at, 1), (at.plus_millis(1), 0)] {
        let filter = MessageFilter {
            endpoint_id: Some(e.id.clone()),
            since: Some(since),
            ..Default::default()
        };
        let page = list_messages(s, &live, &filter, &PageRequest::first(50))
            .await
            .unwrap();
        assert_eq!(page.data.len(), found, "since {since:?}");
        assert!(page.data.iter().all(|m| m.event_id == "evt_live"));
    }

    // Another tenant naming this endpoint: an empty page, nothing to page on.
    let other = scope(&tenant(s, "other").await, Environment::Live);
    for filter in [
        window(Some(e.id.clone())),
        MessageFilter {
            endpoint_id: Some(e.id.clone()),
            ..Default::default()
        },
    ] {
        let page = list_messages(s, &other, &filter, &PageRequest::first(50))
            .await
            .unwrap();
        assert!(
            page.data.is_empty() && page.next_after.is_none(),
            "{page:?}"
        );
    }
}
