//! Relay's own event types, built into every tenant's catalog (they cannot
//! be redefined): the reference's event families, named `noun.verb_past`.
//!
//! - **Webhook operations** (`webhook.attempt_exhausted`,
//!   `webhook_endpoint.*`): events Relay itself publishes to a tenant about
//!   its endpoints, inside the transaction that changed them.
//! - **The other families** ([`system`]: delivery projection, skip and
//!   failure, engagement, email feedback, consent and compliance,
//!   subscriber/device/preference, quota and limits, waitpoints and agents):
//!   published for a tenant by a system publisher holding the operator
//!   credential (`POST /v1/tenants/{id}/system-events`).
//!
//! All of them go through the same engine to the endpoints of the tenant's
//! own consumer (`ConsumerKind::Tenant`) that subscribe to them by name,
//! never to a customer's; a `*` subscription does not include them. Each has
//! a schema, thin fields (the related ids: notification, delivery,
//! recipient external id, workflow key, sub-tenant, `rule_id`; never
//! personal data), personal-data fields and a sample, so they are shaped
//! like any catalog type. Cascades are bounded: a message of a built-in
//! event that exhausts its attempts produces no `webhook.attempt_exhausted`,
//! and the endpoint events are produced once per state change.

pub mod system;

use serde_json::{Value, json};

pub const ATTEMPT_EXHAUSTED: &str = "webhook.attempt_exhausted";
pub const ENDPOINT_DISABLED: &str = "webhook_endpoint.disabled";
pub const ENDPOINT_RECOVERED: &str = "webhook_endpoint.recovered";
/// The hour-72 warning of the automatic-disable clock.
pub const ENDPOINT_FAILURE_WARNED: &str = "webhook_endpoint.failure_warned";

/// The webhook operations family, which Relay publishes itself.
pub const WEBHOOK_OPERATIONS: [&str; 4] = [
    ATTEMPT_EXHAUSTED,
    ENDPOINT_DISABLED,
    ENDPOINT_RECOVERED,
    ENDPOINT_FAILURE_WARNED,
];

/// Every built-in type: the webhook operations, then [`system::ALL`].
pub fn all() -> impl Iterator<Item = &'static str> {
    WEBHOOK_OPERATIONS
        .into_iter()
        .chain(system::ALL.iter().map(|t| t.name))
}

/// Whether `event_type` is one of Relay's built-in types (reserved:
/// never defined, published or received by a customer).
pub fn is_operational(event_type: &str) -> bool {
    WEBHOOK_OPERATIONS.contains(&event_type) || system::get(event_type).is_some()
}

/// A built-in type's catalog entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    pub description: &'static str,
    pub schema: Value,
    pub sample: Value,
    pub thin_fields: Vec<String>,
    pub personal_data_fields: Vec<String>,
}

/// The definition of a built-in type.
pub fn definition(event_type: &str) -> Option<Definition> {
    if let Some(t) = system::get(event_type) {
        return Some(t.definition());
    }
    let (description, schema, sample) = webhook_operation(event_type)?;
    // Every field of a webhook operation is an id or a code about the
    // tenant's own endpoint: all are thin.
    let thin_fields = schema["properties"]
        .as_object()
        .map(|p| p.keys().map(|k| format!("/{k}")).collect())
        .unwrap_or_default();
    Some(Definition {
        description,
        schema,
        sample,
        thin_fields,
        personal_data_fields: Vec::new(),
    })
}

/// A built-in type's fields as a catalog version (version 1, created at the
/// epoch), for shaping its payloads (`crate::shape`).
pub fn type_fields(event_type: &str) -> Option<crate::shape::TypeFields> {
    let d = definition(event_type)?;
    Some(crate::shape::TypeFields {
        version: 1,
        created_at: crate::time::Timestamp(0),
        thin_fields: d.thin_fields,
        personal_data_fields: d.personal_data_fields,
    })
}

fn webhook_operation(event_type: &str) -> Option<(&'static str, Value, Value)> {
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
        use crate::shape::{FieldPath, check_in_schema, parse_list, thin_personal_overlaps};
        let mut seen = std::collections::HashSet::new();
        for name in all() {
            assert!(seen.insert(name), "{name} twice");
            assert!(crate::validate::event_type_name(name).is_ok(), "{name}");
            let d = definition(name).unwrap_or_else(|| panic!("{name}"));
            assert!(is_operational(name));
            let thin = parse_list(&d.thin_fields).unwrap();
            let personal = parse_list(&d.personal_data_fields).unwrap();
            assert!(!thin.is_empty(), "{name}: thin fields");
            for f in thin.iter().chain(&personal) {
                check_in_schema(&d.schema, f).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            assert!(
                thin_personal_overlaps(&thin, &personal).is_empty(),
                "{name}"
            );
            // The sample is valid against the schema's required members and
            // the thin payload of it is small.
            for r in d.schema["required"].as_array().into_iter().flatten() {
                assert!(d.sample.get(r.as_str().unwrap()).is_some(), "{name}: {r}");
            }
            let refs: Vec<&FieldPath> = thin.iter().collect();
            let thin_sample = crate::shape::project(&d.sample.to_string(), &refs).unwrap();
            assert!(
                thin_sample.len() < crate::shape::THIN_TARGET_BYTES,
                "{name}"
            );
            assert_eq!(type_fields(name).unwrap().thin_fields, d.thin_fields);
        }
        assert!(seen.len() >= 18, "{}", seen.len());
        assert!(!is_operational("order.shipped"));
    }
}
