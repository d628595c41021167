//! What the HTTPS kind tests share.

use bytes::Bytes;
use relay_core::model::{ContentMode, Environment};
use relay_destinations::Prepared;

/// The `traceparent` of [`message`].
pub const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// One prepared structured CloudEvent, as the engine hands it to a kind.
pub fn message() -> Prepared {
    Prepared {
        body: Bytes::from_static(br#"{"specversion":"1.0","id":"evt_1"}"#),
        content_type: "application/cloudevents+json",
        content_mode: ContentMode::Structured,
        attributes: vec![],
        body_sha256: "00".into(),
        webhook_id: "evt_1".into(),
        webhook_timestamp: "1800000000".into(),
        webhook_signature: "v1a,AAAA".into(),
        event_type: "order.shipped".into(),
        environment: Environment::Live,
        ordering_key: None,
        attempt_number: 1,
        traceparent: Some(TRACEPARENT.into()),
    }
}
