//! The kind's parts that need no peer: secrets out of `Debug` and records
//! (`aws/testing.rs`, shared with `sqs` and `sns`), what is never sent, the
//! size, the configuration's JSON.

use relay_core::model::ContentMode;

use super::*;
use crate::aws::testing;
use crate::test_message::prepared;

fn destination() -> EventBridgeDestination {
    EventBridgeDestination {
        event_bus: "arn:aws:events:us-east-1:123456789012:event-bus/orders".into(),
        region: "us-east-1".into(),
        endpoint_url: Some("https://127.0.0.1:9".into()),
        source: "com.acme.orders".into(),
        detail_type: None,
        credentials: testing::credentials(),
    }
}

#[tokio::test]
async fn credentials_never_show() {
    testing::credentials_never_show::<EventBridge>(&destination(), "event-bus/orders").await;
}

#[test]
fn a_key_id_that_cannot_be_sent_is_unresolved() {
    testing::a_key_id_that_cannot_be_sent_is_unresolved::<EventBridge>(&destination());
}

/// A body that is no JSON object is never sent: dead-lettered, recorded.
#[tokio::test]
async fn an_unsendable_message_is_rejected_unsent() {
    let client =
        EventBridge::build(&destination(), &testing::shared(), &testing::secrets()).unwrap();
    let mut m = prepared(ContentMode::Structured);
    m.body = bytes::Bytes::from_static(b"[1,2]");
    let put = EventBridge::deliver(&client, &m, Limits::default()).await;
    assert!(matches!(put.result, Err(Failure::Unsendable(_))));
    assert!(matches!(
        EventBridge::classify(&put, Timestamp::from_millis(0)),
        Verdict::Rejected { .. }
    ));
    assert_eq!(
        EventBridge::record(&put).detail["error"]["code"],
        "unsendable"
    );
}

/// Nothing listens on the endpoint: a connection failure, retried, its
/// record naming the bus.
#[tokio::test]
async fn no_answer_is_retried() {
    let client =
        EventBridge::build(&destination(), &testing::shared(), &testing::secrets()).unwrap();
    let put = EventBridge::deliver(
        &client,
        &prepared(ContentMode::Structured),
        Limits::default(),
    )
    .await;
    assert!(matches!(
        EventBridge::classify(&put, Timestamp::from_millis(0)),
        Verdict::Retry { .. }
    ));
    let record = EventBridge::record(&put);
    assert_eq!(
        record.detail["event_bus"],
        "arn:aws:events:us-east-1:123456789012:event-bus/orders"
    );
    assert!(record.error.is_some());
}

/// The size counted is EventBridge's: `Time`, `Source`, `DetailType` and
/// `Detail`; the capacity is EventBridge's largest entry.
#[test]
fn message_bytes_are_the_entry_size() {
    let m = prepared(ContentMode::Structured);
    let d = destination();
    assert_eq!(
        EventBridge::message_bytes(&d, &m),
        14 + "com.acme.orders".len() as u64 + "order.shipped".len() as u64 + m.body.len() as u64
    );
    let named = EventBridgeDestination {
        detail_type: Some("Order Shipped!".into()),
        ..destination()
    };
    assert_eq!(
        EventBridge::message_bytes(&named, &m),
        EventBridge::message_bytes(&d, &m) + 1
    );
    assert_eq!(
        EventBridge::capacity(&d).max_message_bytes,
        Some(limits::MAX_ENTRY_BYTES)
    );
}

/// Structured only: EventBridge carries no attributes for a binary binding.
#[test]
fn binary_mode_is_refused() {
    let mut d = destination();
    assert!(!EventBridge::set_content_mode(&mut d, ContentMode::Binary));
    assert!(EventBridge::set_content_mode(
        &mut d,
        ContentMode::Structured
    ));
}

/// The configuration reads from and writes to the API's JSON, the
/// credentials among the bus's own fields.
#[test]
fn the_configuration_is_one_object() {
    let v = serde_json::json!({
        "event_bus": "orders", "region": "eu-west-1", "source": "com.acme",
        "role_arn": "arn:aws:iam::123456789012:role/relay",
    });
    let d: EventBridgeDestination = serde_json::from_value(v).unwrap();
    assert_eq!(
        d.credentials.role_arn.as_deref(),
        Some("arn:aws:iam::123456789012:role/relay")
    );
    assert_eq!(
        (d.endpoint_url.as_deref(), d.detail_type.as_deref()),
        (None, None)
    );
    let back = serde_json::to_value(&d).unwrap();
    assert_eq!(back["role_arn"], "arn:aws:iam::123456789012:role/relay");
    assert!(back.get("credentials").is_none(), "{back}");
    let unknown = serde_json::json!({
        "event_bus": "orders", "region": "eu-west-1", "source": "com.acme",
        "access_key_id": "secret:k", "secret_access_key": "secret:s", "content_mode": "binary",
    });
    assert!(serde_json::from_value::<EventBridgeDestination>(unknown).is_err());
}
