//! The "webhook operations" event family: events Relay itself publishes to a
//! tenant about its endpoints, delivered through the same engine to the
//! endpoints of the tenant's own consumer (`ConsumerKind::Tenant`) that
//! subscribe to them by name, never to a customer's.
//!
//! They are built into every tenant's catalog (they cannot be redefined).
//! Cascades are bounded: a message of an operational event that exhausts its
//! attempts produces no `webhook.attempt_exhausted`, and the endpoint events
//! are produced once per state change. A `*` subscription does not include
//! them; an endpoint must name them.

use serde_json::{Value, json};

pub const ATTEMPT_EXHAUSTED: &str = "webhook.attempt_exhausted";
pub const ENDPOINT_DISABLED: &str = "webhook_endpoint.disabled";
pub const ENDPOINT_RECOVERED: &str = "webhook_endpoint.recovered";
/// The hour-72 warning of the automatic-disable clock.
pub const ENDPOINT_FAILURE_WARNED: &str = "webhook_endpoint.failure_warned";

pub const ALL: [&str; 4] = [
    ATTEMPT_EXHAUSTED,
    ENDPOINT_DISABLED,
    ENDPOINT_RECOVERED,
    ENDPOINT_FAILURE_WARNED,
];

pub fn is_operational(event_type: &str) -> bool {
    ALL.contains(&event_type)
}

/// The description, JSON Schema and sample payload of a built-in type.
pub fn definition(event_type: &str) -> Option<(&'static str, Value, Value)> {
    let endpoint = json!({"type": "string"});
    Some(match event_type {
        ATTEMPT_EXHAUSTED => (
            "A message used up every attempt of its schedule",
            json!({"type": "object", "required": ["endpoint_id", "message_id", "event_id", "event_type"],
                   "properties": {"endpoint_id": endpoint, "message_id": {"type": "string"},
                                  "event_id": {"type": "string"}, "event_type": {"type": "string"},
                                  "last_error_code": {"type": ["string", "null"]}}}),
            json!({"endpoint_id": "ep_…", "message_id": "msg_…", "event_id": "evt_…",
                   "event_type": "order.shipped", "last_error_code": "http_503"}),
        ),
        ENDPOINT_DISABLED => (
            "An endpoint was disabled (by the tenant, by a 410, or after 5 days of failure)",
            json!({"type": "object", "required": ["endpoint_id", "reason"],
                   "properties": {"endpoint_id": endpoint, "reason": {"type": "string"}}}),
            json!({"endpoint_id": "ep_…", "reason": "failing_for_5_days"}),
        ),
        ENDPOINT_RECOVERED => (
            "A disabled endpoint was enabled again",
            json!({"type": "object", "required": ["endpoint_id"], "properties": {"endpoint_id": endpoint}}),
            json!({"endpoint_id": "ep_…"}),
        ),
        ENDPOINT_FAILURE_WARNED => (
            "An endpoint has failed for 72 hours; it is disabled at 5 days unless it recovers",
            json!({"type": "object", "required": ["endpoint_id"], "properties": {"endpoint_id": endpoint}}),
            json!({"endpoint_id": "ep_…"}),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_type_is_well_named_and_defined() {
        for name in ALL {
            assert!(crate::validate::event_type_name(name).is_ok(), "{name}");
            assert!(definition(name).is_some(), "{name}");
            assert!(is_operational(name));
        }
        assert!(!is_operational("order.shipped"));
    }
}
