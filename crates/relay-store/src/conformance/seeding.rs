//! Conformance cases for the bench's seed operations (`crate::seed`): the
//! rows they write read back like published ones, in their scope only.

use super::*;
use crate::ExecutorExt as _;
use crate::seed;

/// Seeds `first..=last` of `prefix` for `endpoint_id` in one transaction.
async fn seed_range(
    s: &dyn Store,
    sc: &Scope,
    endpoint_id: &str,
    prefix: &'static str,
    state: MessageState,
    due: Option<Timestamp>,
    range: (u64, u64),
) -> u64 {
    let (sc, endpoint_id) = (sc.clone(), endpoint_id.to_string());
    s.write(crate::Commit::Durable, move |mut x| {
        Box::pin(async move {
            let seed = seed::Messages {
                scope: &sc,
                endpoint_id: &endpoint_id,
                prefix,
                event_type: "bench.seeded",
                state,
                due,
                attempts_used: if due.is_some() { 0 } else { 10 },
                now: T0,
            };
            seed::messages(&mut x, &seed, range.0, range.1).await
        })
    })
    .await
    .expect("seed messages")
}

pub async fn seeded_messages_read_like_published_ones(s: &dyn Store) {
    let t = tenant(s, "seed").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["bench.seeded"]).await;
    let due = T0.plus_seconds(86_400);
    // Two batches, as the bench writes them.
    let scheduled = MessageState::Scheduled;
    assert_eq!(
        seed_range(s, &live, &e.id, "bk-", scheduled, Some(due), (0, 149)).await,
        150
    );
    assert_eq!(
        seed_range(s, &live, &e.id, "bk-", scheduled, Some(due), (150, 299)).await,
        150
    );
    let exhausted = MessageState::Exhausted;
    assert_eq!(
        seed_range(s, &live, &e.id, "ex-", exhausted, None, (0, 9)).await,
        10
    );

    let m = get_message(s, &live, "msg_bk-299")
        .await
        .unwrap()
        .expect("the last seeded message");
    assert_eq!(
        (
            m.event_id.as_str(),
            m.endpoint_id.as_str(),
            m.event_type.as_str()
        ),
        ("bk-299", e.id.as_str(), "bench.seeded")
    );
    assert_eq!(
        (m.state, m.attempts_used, m.next_attempt_at),
        (scheduled, 0, Some(due))
    );
    assert_eq!((m.created_at, m.environment), (T0, Environment::Live));
    let ev = get_event(s, &live, "bk-0")
        .await
        .unwrap()
        .expect("a seeded event");
    assert_eq!(ev.event_type, "bench.seeded");
    let failed = get_message(s, &live, "msg_ex-3")
        .await
        .unwrap()
        .expect("a failed one");
    assert_eq!(
        (failed.state, failed.attempts_used, failed.next_attempt_at),
        (exhausted, 10, None)
    );

    let by_state = |state| MessageFilter {
        endpoint_id: Some(e.id.clone()),
        state: Some(state),
        ..Default::default()
    };
    let page = PageRequest {
        after: None,
        limit: 250,
    };
    let listed = list_messages(s, &live, &by_state(exhausted), &page)
        .await
        .unwrap();
    assert_eq!(listed.data.len(), 10);
    let listed = list_messages(s, &live, &by_state(scheduled), &page)
        .await
        .unwrap();
    assert_eq!(listed.data.len(), 250, "a full page of the 300 scheduled");

    // Not due before their time; due after it.
    let room = [(e.id.clone(), 10)];
    let early = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &room)
        .await
        .unwrap();
    assert!(early.is_empty(), "nothing is due before {due:?}");
    let later = due.plus_seconds(1);
    let claimed = claim_due(s, "w", later, later.plus_seconds(30), 10, &room)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 10);

    // Another environment sees none of them.
    let test = scope(&t, Environment::Test);
    assert!(get_message(s, &test, "msg_bk-0").await.unwrap().is_none());
}

/// A history of deliveries (`seed::messages_shaped`, as `relay bench scale`
/// writes it): each delivered message has its one attempt, the ids sort as
/// they are numbered, the events carry the data and are spread in time;
/// and `crate::stats` measures the tables, their indexes and columns.
pub async fn a_seeded_history_has_its_attempts_and_its_sizes(s: &dyn Store) {
    let t = tenant(s, "history").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["bench.seeded"]).await;
    let data = r#"{"order":"1234","padding":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#;
    let (sc, endpoint_id) = (live.clone(), e.id.clone());
    let written = s
        .write(crate::Commit::Durable, move |mut x| {
            Box::pin(async move {
                let seed = seed::Messages {
                    scope: &sc,
                    endpoint_id: &endpoint_id,
                    prefix: "h-",
                    event_type: "bench.seeded",
                    state: MessageState::Delivered,
                    due: None,
                    attempts_used: 1,
                    now: T0,
                };
                let shape = seed::Shape {
                    data,
                    spacing_ms: 1000,
                    padded: true,
                    time_ids: None,
                };
                let n = seed::messages_shaped(&mut x, &seed, &shape, 1, 9).await?;
                Ok(n + seed::messages_shaped(&mut x, &seed, &shape, 10, 12).await?)
            })
        })
        .await
        .expect("seed a history");
    assert_eq!(written, 12);

    // Ids sort as numbered: page order is 1..=12 (unpadded, 10 would come
    // before 2).
    let all = list_messages(
        s,
        &live,
        &MessageFilter {
            endpoint_id: Some(e.id.clone()),
            ..Default::default()
        },
        &PageRequest {
            after: None,
            limit: 250,
        },
    )
    .await
    .unwrap();
    let ids: Vec<&str> = all.data.iter().map(|m| m.id.as_str()).collect();
    let want: Vec<String> = (1..=12).map(|i| format!("msg_h-{i:010}")).collect();
    assert_eq!(ids, want);
    let m = &all.data[9];
    assert_eq!(
        (m.state, m.attempts_used, m.next_attempt_at),
        (MessageState::Delivered, 1, None)
    );
    assert_eq!(m.created_at, T0.plus_seconds(10), "row i at i seconds");
    let ev = get_event(s, &live, "h-0000000010").await.unwrap().unwrap();
    assert_eq!(ev.data.get(), data);
    assert_eq!(ev.created_at, T0.plus_seconds(10));

    // One attempt per delivered message, delivered, with the record an
    // HTTPS delivery answered 200 writes.
    let page = PageRequest {
        after: None,
        limit: 10,
    };
    let attempts = list_attempts(s, &live, "msg_h-0000000010", &page)
        .await
        .unwrap();
    assert_eq!(attempts.data.len(), 1);
    let a = &attempts.data[0];
    assert_eq!(a.id, "atm_h-0000000010");
    assert_eq!((a.number, a.trigger), (1, AttemptTrigger::Scheduled));
    assert_eq!(a.outcome, AttemptOutcome::Delivered);
    assert_eq!((a.status_code, a.error_code.is_none()), (Some(200), true));
    assert_eq!(a.started_at, T0.plus_seconds(10).plus_millis(5));
    assert_eq!(a.body_sha256.len(), 64);
    // Other states get no attempt row.
    let (sc, endpoint_id) = (live.clone(), e.id.clone());
    s.write(crate::Commit::Durable, move |mut x| {
        Box::pin(async move {
            let seed = seed::Messages {
                scope: &sc,
                endpoint_id: &endpoint_id,
                prefix: "x-",
                event_type: "bench.seeded",
                state: MessageState::Exhausted,
                due: None,
                attempts_used: 10,
                now: T0,
            };
            seed::messages(&mut x, &seed, 1, 3).await
        })
    })
    .await
    .unwrap();
    let none = list_attempts(s, &live, "msg_x-2", &page).await.unwrap();
    assert!(none.data.is_empty());

    // Sizes: every history table with its indexes, bytes counted; the
    // events' data is their largest column.
    let (sizes, columns, unknown) = s
        .read(|mut x| {
            Box::pin(async move {
                let sizes = crate::stats::sizes(&mut x).await?;
                let columns = crate::stats::column_bytes(&mut x, "events").await?;
                let unknown = crate::stats::column_bytes(&mut x, "tenants").await.is_err();
                Ok((sizes, columns, unknown))
            })
        })
        .await
        .unwrap();
    assert!(sizes.database_bytes > 0);
    if !sizes.by_object.is_empty() {
        for table in crate::stats::HISTORY_TABLES {
            assert!(
                sizes
                    .by_object
                    .iter()
                    .any(|o| o.table == table && !o.index && o.bytes > 0),
                "{table}: {sizes:?}"
            );
            assert!(
                sizes.by_object.iter().any(|o| o.table == table && o.index),
                "{table}'s indexes: {sizes:?}"
            );
        }
        let total: i64 = sizes.by_object.iter().map(|o| o.bytes).sum();
        assert!(total <= sizes.database_bytes, "{sizes:?}");
    } else {
        assert_eq!(s.backend(), "sqlite", "PostgreSQL always has the sizes");
    }
    let (largest, bytes) = &columns[0];
    assert_eq!(largest, "data", "{columns:?}");
    // 15 events (12 + 3): 12 with the data, 3 with `{}`; PostgreSQL adds a
    // byte or four of header per value.
    let want = 12 * data.len() as i64 + 3 * 2;
    assert!(
        (want..want + 15 * 4 + 1).contains(bytes),
        "{bytes} vs {want}"
    );
    assert!(unknown, "only the history tables are measured");
}
