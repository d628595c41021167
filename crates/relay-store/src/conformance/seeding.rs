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
