//! The message the kinds' unit tests prepare: one `order.shipped` event,
//! signed with a v1 key, at its second attempt.

use relay_core::model::{ContentMode, Environment, Event, SignatureScheme};
use relay_core::signature::SigningKey;
use relay_core::time::Timestamp;
use serde_json::value::RawValue;

use crate::{Input, Prepared};

pub fn prepared(mode: ContentMode) -> Prepared {
    let now = Timestamp::from_millis(1_800_000_000_000);
    let event = Event {
        id: "evt_1".into(),
        event_type: "order.shipped".into(),
        type_version: 1,
        environment: Environment::Live,
        subject: Some("order/1042".into()),
        data: RawValue::from_string(r#"{"order_id":"1042"}"#.into()).unwrap(),
        consumer_id: None,
        ordering_key: None,
        seq: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: now,
        created_at: now,
    };
    crate::prepare(&Input {
        event: &event,
        source: "https://acme.example",
        keys: &[SigningKey::generate(SignatureScheme::V1, [3; 32])],
        attempt_number: 2,
        max_payload_bytes: 1 << 20,
        content_mode: mode,
        now,
        shaped: None,
    })
    .unwrap()
}
