//! Conformance cases for object storage batches (`crate::object_batches`):
//! recorded durably only while every member's lease holds, one batch per
//! message, the same bytes read back, leased again as a whole, purged with
//! their messages.

use super::delivery::{completion, delivered};
use super::*;
use crate::ExecutorExt as _;
use crate::object_batches::{self, LeasedBatch, ObjectBatch};

fn batch_of(live: &Scope, endpoint_id: &str, id: &str, members: &[&crate::Claimed]) -> ObjectBatch {
    let mut object = Vec::new();
    for c in members {
        object.extend_from_slice(format!("{{\"id\":\"{}\"}}\n", c.event.id).as_bytes());
    }
    // Not UTF-8, as a gzip object is not: stored byte for byte.
    object.extend_from_slice(&[0x1f, 0x8b, 0x00, 0xff]);
    ObjectBatch {
        id: id.into(),
        tenant_id: live.tenant_id.clone(),
        environment: live.environment,
        endpoint_id: endpoint_id.into(),
        object_key: format!("relay/2027/01/15/08/{id}.jsonl"),
        content_type: "application/x-ndjson".into(),
        object,
        webhook_timestamp: "1800000000".into(),
        webhook_signature: "v1,c2lnbmF0dXJl".into(),
        created_at: T0,
        members: members.iter().map(|c| c.message.id.clone()).collect(),
    }
}

pub async fn object_batches_are_recorded_while_their_leases_hold_and_leased_again_whole(
    s: &dyn Store,
) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    for i in 0..4 {
        s.publish(&live, new_event(&format!("evt_{i}"), "order.shipped", None))
            .await
            .unwrap();
    }
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(60), 10, &[(e.id.clone(), 10)])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 4);
    // The batch's order is its own, not the claim's.
    let members = [&claimed[2], &claimed[0], &claimed[1]];
    let b = batch_of(&live, &e.id, "bat_one", &members);
    let leases: Vec<i64> = members.iter().map(|c| c.lease_version).collect();

    // A lease that no longer holds (another version): nothing is written.
    let mut stale = leases.clone();
    stale[1] += 1;
    assert!(!record_batch(s, "w1", &b, &stale).await.unwrap());
    assert!(
        !record_batch(s, "w2", &b, &leases).await.unwrap(),
        "another owner's"
    );
    assert_eq!(object_batch(s, "bat_one").await.unwrap(), None);

    assert!(record_batch(s, "w1", &b, &leases).await.unwrap());
    assert_eq!(object_batch(s, "bat_one").await.unwrap().as_ref(), Some(&b));
    let mut of = batches_of(
        s,
        &claimed
            .iter()
            .map(|c| c.message.id.clone())
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    of.sort();
    let mut expected: Vec<(String, String)> = members
        .iter()
        .map(|c| (c.message.id.clone(), "bat_one".to_string()))
        .collect();
    expected.sort();
    assert_eq!(of, expected, "the fourth message is in no batch");

    // A message is in one batch at most: the second batch is not written at all.
    let again = batch_of(&live, &e.id, "bat_two", &[&claimed[3], &claimed[0]]);
    let err = record_batch(
        s,
        "w1",
        &again,
        &[claimed[3].lease_version, claimed[0].lease_version],
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, StoreError::Conflict("message_in_batch")),
        "{err:?}"
    );
    assert_eq!(object_batch(s, "bat_two").await.unwrap(), None);
    assert!(
        batches_of(s, std::slice::from_ref(&claimed[3].message.id))
            .await
            .unwrap()
            .is_empty()
    );

    // The write failed: every member is scheduled again, a minute later.
    let retry = |c: &crate::Claimed| {
        let progress = Progress {
            state: MessageState::Scheduled,
            attempts_used: 1,
            next_attempt_at: Some(T0.plus_seconds(60)),
            last_error_code: Some("unavailable".into()),
            ..c.progress()
        };
        completion(c, "w1", progress)
    };
    let done: Vec<Completion> = members.iter().map(|c| retry(c)).collect();
    complete(s, &done).await.unwrap();

    // Leased again as a whole before it is due, in the batch's order, by
    // whoever writes it again; a second lease finds them all taken.
    let again = lease_batch(s, "bat_one", "w2", T0.plus_seconds(2), T0.plus_seconds(62))
        .await
        .unwrap()
        .expect("the batch");
    assert_eq!(again.batch, b);
    let ids: Vec<&str> = again.leased.iter().map(|c| c.message.id.as_str()).collect();
    assert_eq!(
        ids,
        b.members.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert!(
        again
            .leased
            .iter()
            .all(|c| c.message.state == MessageState::InFlight)
    );
    assert_eq!(again.leased[0].event.id, members[0].event.id);
    let none = lease_batch(s, "bat_one", "w3", T0.plus_seconds(3), T0.plus_seconds(63))
        .await
        .unwrap()
        .expect("the batch");
    assert!(none.leased.is_empty());
    assert!(
        lease_batch(s, "bat_none", "w3", T0, T0.plus_seconds(60))
            .await
            .unwrap()
            .is_none()
    );

    // Delivered, the retention purge takes the batch with its messages.
    let done: Vec<Completion> = again
        .leased
        .iter()
        .map(|c| completion(c, "w2", delivered(c)))
        .collect();
    complete(s, &done).await.unwrap();
    complete(s, &[completion(&claimed[3], "w1", delivered(&claimed[3]))])
        .await
        .unwrap();
    assert_eq!(purge_before(s, T0.plus_seconds(1), 10).await.unwrap(), 4);
    assert_eq!(object_batch(s, "bat_one").await.unwrap(), None);
}

/// A member that is held (its endpoint paused) is not leased with its batch.
pub async fn held_members_are_not_leased_with_their_batch(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    s.publish(&live, new_event("evt_h", "order.shipped", None))
        .await
        .unwrap();
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(60), 10, &[])
        .await
        .unwrap();
    let b = batch_of(&live, &e.id, "bat_held", &[&claimed[0]]);
    assert!(
        record_batch(s, "w1", &b, &[claimed[0].lease_version])
            .await
            .unwrap()
    );
    super::recovery::act(s, &live, &e.id, EndpointAction::Pause, T0)
        .await
        .unwrap();
    let progress = Progress {
        state: MessageState::Scheduled,
        attempts_used: 1,
        next_attempt_at: Some(T0.plus_seconds(60)),
        ..claimed[0].progress()
    };
    complete(s, &[completion(&claimed[0], "w1", progress)])
        .await
        .unwrap();
    let m = get_message(s, &live, &claimed[0].message.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(m.state, MessageState::Held);
    let leased = lease_batch(
        s,
        "bat_held",
        "w2",
        T0.plus_seconds(61),
        T0.plus_seconds(120),
    )
    .await
    .unwrap()
    .expect("the batch");
    assert!(leased.leased.is_empty());
}

// The cases' calls through the executor, one operation each.

async fn record_batch(
    s: &dyn Store,
    owner: &str,
    batch: &ObjectBatch,
    leases: &[i64],
) -> crate::Result<bool> {
    let (owner, batch, leases) = (owner.to_string(), batch.clone(), leases.to_vec());
    s.write(crate::Commit::Durable, move |mut x| {
        Box::pin(async move { object_batches::record(&mut x, &owner, &batch, &leases).await })
    })
    .await
}

async fn batches_of(s: &dyn Store, message_ids: &[String]) -> crate::Result<Vec<(String, String)>> {
    let ids = message_ids.to_vec();
    s.read(move |mut x| Box::pin(async move { object_batches::batches_of(&mut x, &ids).await }))
        .await
}

async fn object_batch(s: &dyn Store, batch_id: &str) -> crate::Result<Option<ObjectBatch>> {
    let id = batch_id.to_string();
    s.read(move |mut x| Box::pin(async move { object_batches::get(&mut x, &id).await }))
        .await
}

async fn lease_batch(
    s: &dyn Store,
    batch_id: &str,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
) -> crate::Result<Option<LeasedBatch>> {
    let (id, owner) = (batch_id.to_string(), owner.to_string());
    s.write(crate::Commit::Lease, move |mut x| {
        Box::pin(async move { object_batches::lease(&mut x, &id, &owner, now, lease_until).await })
    })
    .await
}
