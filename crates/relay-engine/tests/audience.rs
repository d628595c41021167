//! The dispatcher applies the audience rule (`relay_core::audience`) at
//! every attempt, scheduled or manual: a message whose event is not meant
//! for its endpoint's consumer (one created before the rule, or whose event
//! type's audience was narrowed since) is dead-lettered unsent
//! (`not_addressed`), never delivered. This is what keeps recover, bulk
//! retry and resend of such a message from reaching the customer.

mod common;

use common::{Env, Setup};
use relay_core::audience::Audience;
use relay_core::model::MessageState;
use relay_core::time::Clock;
use relay_store::{NewEvent, PutEventType};
use serde_json::value::RawValue;

async fn put_type(e: &Env, audience: Audience) {
    relay_store::conformance::put_event_type(
        e.store(),
        &e.scope,
        &PutEventType {
            name: "order.shipped".into(),
            description: String::new(),
            schema: serde_json::json!({"type": "object"}),
            sample: None,
            thin_fields: Vec::new(),
            personal_data_fields: Vec::new(),
            audience,
            now: e.clock.now(),
        },
    )
    .await
    .unwrap();
}

/// An event of `order.shipped` for no consumer.
async fn publish_for_no_one(e: &Env, id: &str) -> u64 {
    e.store()
        .publish(
            &e.scope,
            NewEvent {
                id: id.into(),
                event_type: "order.shipped".into(),
                type_version: 1,
                subject: None,
                data: RawValue::from_string(r#"{"order_id":"1"}"#.into()).unwrap(),
                consumer_id: None,
                ordering_key: None,
                traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
                expires_at: None,
                time: e.clock.now(),
                now: e.clock.now(),
            },
        )
        .await
        .unwrap()
        .messages_created
}

async fn a_message_no_longer_meant_for_its_consumer_is_never_sent(postgres: bool) {
    let Some(e) = Env::start(Setup {
        verify: false,
        postgres,
        ..Default::default()
    })
    .await
    else {
        return;
    };
    // Meant for every consumer when published: the customer's endpoint
    // gets a message.
    put_type(&e, Audience::AllConsumers).await;
    assert_eq!(publish_for_no_one(&e, "evt_1").await, 1);
    assert_eq!(publish_for_no_one(&e, "evt_2").await, 1);
    // The tenant narrows the type before either is attempted.
    put_type(&e, Audience::Addressed).await;
    assert_eq!(publish_for_no_one(&e, "evt_3").await, 0);
    let first = e
        .messages()
        .await
        .into_iter()
        .find(|m| m.event_id == "evt_1")
        .unwrap();
    // A manual resend and a scheduled attempt: neither sends.
    let resent = e.dispatcher.resend(&e.scope, &first.id, "key_test").await;
    assert!(resent.is_ok(), "{resent:?}");
    while e.dispatcher.run_once().await.unwrap() > 0 {}
    for m in e.messages().await {
        assert_eq!(m.state, MessageState::DeadLettered, "{m:?}");
        assert_eq!(m.terminal_reason.as_deref(), Some("not_addressed"), "{m:?}");
        assert_eq!(m.attempts_used, 0, "{m:?}");
    }
    assert!(
        e.receiver.requests().is_empty(),
        "nothing reached the customer: {:?}",
        e.receiver.requests().len()
    );
    e.db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_no_longer_meant_for_its_consumer_is_never_sent_sqlite() {
    a_message_no_longer_meant_for_its_consumer_is_never_sent(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_no_longer_meant_for_its_consumer_is_never_sent_postgres() {
    a_message_no_longer_meant_for_its_consumer_is_never_sent(true).await;
}
