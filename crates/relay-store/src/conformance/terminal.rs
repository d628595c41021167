//! Conformance cases for the terminal states reached without an attempt:
//! `expired` (the event's time-to-live passed while the message waited).

use relay_core::model::{EndpointState, Environment, Message, MessageState};
use relay_core::time::Timestamp;

use super::{
    LIMITS, T0, claim_due, consumer, create_endpoint, endpoint, endpoint_value, expire_due,
    lease_for_manual_attempt, list_messages, new_event, page, scope, tenant,
};
use crate::{MessageFilter, Scope, Store};

async fn message_of(s: &dyn Store, sc: &Scope, endpoint_id: &str, event_id: &str) -> Message {
    let filter = MessageFilter {
        endpoint_id: Some(endpoint_id.into()),
        event_id: Some(event_id.into()),
        ..Default::default()
    };
    let mut found = list_messages(s, sc, &filter, &page(10)).await.unwrap().data;
    assert_eq!(found.len(), 1, "{endpoint_id} / {event_id}: {found:?}");
    found.remove(0)
}

/// Waiting messages (scheduled, or held by a paused endpoint) whose event's
/// time-to-live passes are ended `expired` by the sweep, in bounded
/// batches; messages in flight or under a manual lease, and messages of
/// events without a TTL or with a later one, are left alone.
pub async fn waiting_messages_expire_when_their_ttl_passes(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let waiting = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let mut paused = endpoint_value(&live, &c.id, &["order.shipped"]);
    paused.state = EndpointState::Paused;
    create_endpoint(s, &live, &paused, &[], LIMITS, None)
        .await
        .unwrap();
    let busy = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let ttl = T0.plus_seconds(60);
    let later = T0.plus_seconds(120);
    for (id, expires_at) in [
        ("evt_ttl", Some(ttl)),
        ("evt_later", Some(later)),
        ("evt_none", None),
    ] {
        let mut e = new_event(id, "order.shipped", None);
        e.expires_at = expires_at;
        s.publish(&live, e).await.unwrap();
    }
    // The third endpoint's messages are in flight; the first's wait.
    let room = vec![(waiting.id.clone(), 0)];
    let claimed = claim_due(s, "node-a", T0, T0.plus_seconds(600), 100, &room)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 3);
    assert!(claimed.iter().all(|c| c.endpoint.id == busy.id));
    assert_eq!(
        message_of(s, &live, &paused.id, "evt_ttl").await.state,
        MessageState::Held
    );

    assert_eq!(
        expire_due(s, ttl.plus_millis(-1), 100).await.unwrap(),
        0,
        "nothing before the TTL passes"
    );
    // Two waiting messages of `evt_ttl`; a batch of one takes one.
    assert_eq!(expire_due(s, ttl, 1).await.unwrap(), 1);
    assert_eq!(expire_due(s, ttl, 100).await.unwrap(), 1);
    assert_eq!(
        expire_due(s, ttl, 100).await.unwrap(),
        0,
        "each expires once"
    );
    for endpoint_id in [&waiting.id, &paused.id] {
        let m = message_of(s, &live, endpoint_id, "evt_ttl").await;
        assert_eq!(m.state, MessageState::Expired, "{m:?}");
        assert_eq!(m.terminal_reason.as_deref(), Some("ttl_expired"));
        assert_eq!(m.next_attempt_at, None);
        assert_eq!(m.attempts_used, 0, "no attempt");
    }
    assert_eq!(
        message_of(s, &live, &busy.id, "evt_ttl").await.state,
        MessageState::InFlight,
        "the worker holding the lease decides (it checks the TTL before attempting)"
    );
    for endpoint_id in [&waiting.id, &paused.id, &busy.id] {
        assert_ne!(
            message_of(s, &live, endpoint_id, "evt_none").await.state,
            MessageState::Expired
        );
    }

    // A manual attempt's lease (taken just before the TTL: at it, a resend
    // has nothing to attempt) is left to finish; the held one expires.
    let manual = message_of(s, &live, &waiting.id, "evt_later").await;
    assert!(
        lease_for_manual_attempt(
            s,
            &live,
            &manual.id,
            "node-b",
            later.plus_millis(-1),
            later.plus_seconds(60)
        )
        .await
        .unwrap()
        .is_some()
    );
    assert_eq!(expire_due(s, later, 100).await.unwrap(), 1);
    assert_eq!(
        message_of(s, &live, &paused.id, "evt_later").await.state,
        MessageState::Expired
    );
    assert_eq!(
        message_of(s, &live, &waiting.id, "evt_later").await.state,
        MessageState::Scheduled
    );
    // Once that lease has lapsed, it expires too.
    assert_eq!(expire_due(s, later.plus_seconds(61), 100).await.unwrap(), 1);
    assert_eq!(
        message_of(s, &live, &waiting.id, "evt_later").await.state,
        MessageState::Expired
    );

    // A replayed message carries its event's TTL.
    let fresh = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let audit = crate::AuditEntry {
        id: crate::new_id(relay_core::id::IdKind::Audit, later),
        actor: "key_test".into(),
        action: "endpoint.replayed".into(),
        target: fresh.id.clone(),
        parameters: serde_json::json!({}),
        at: later,
    };
    let since = Timestamp(T0.millis() - 1);
    assert_eq!(
        crate::recovery::replay(s, &live, &fresh.id, since, later, None, &audit)
            .await
            .unwrap(),
        3
    );
    assert_eq!(
        expire_due(s, later.plus_seconds(61), 100).await.unwrap(),
        2,
        "the replayed messages of both expired events"
    );
    assert_eq!(
        message_of(s, &live, &fresh.id, "evt_none").await.state,
        MessageState::Scheduled
    );
}
