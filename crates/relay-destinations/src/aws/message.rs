//! A message's attributes and FIFO ids as the AWS message services take
//! them, pure: one rule for SQS's `SendMessage` and SNS's `Publish` (both
//! allow at most [`MAX_ATTRIBUTES`] message attributes, and the same
//! `MessageGroupId` and `MessageDeduplicationId` shapes). Table-tested in
//! `sqs/wire/tests.rs`.

use relay_core::model::ContentMode;
use sha2::{Digest as _, Sha256};

use crate::Prepared;

/// The most message attributes on one message (SQS's and SNS's limit).
pub const MAX_ATTRIBUTES: usize = 10;

/// The longest `MessageGroupId` and `MessageDeduplicationId`.
pub const MAX_ID: usize = 128;

/// The attribute that carries, as one JSON object, the binary mode's
/// context attributes that have no attribute of their own.
pub const OVERFLOW: &str = "ce-attributes";

/// The message attributes of `m`, every one of data type `String`, in the
/// order sent (SQS sorts them for its digest):
///
/// - always `webhook-id`, `webhook-timestamp`, `webhook-signature` (the
///   Standard Webhooks values) and `content-type` (structured:
///   `application/cloudevents+json`; binary: the `datacontenttype`);
/// - structured: `relay-event-type`, `relay-attempt`, and `traceparent`
///   when the delivery has one (at most 7);
/// - binary: `ce-<name>` for each context attribute but `id` (it is
///   `webhook-id`) and `datacontenttype` (it is `content-type`), in the
///   envelope's order (`specversion`, `source`, `type`, `subject`, `time`,
///   `dataschema`, then the extensions); when they are more than the six
///   places left, the first five have their own and the rest travel
///   together in [`OVERFLOW`], a JSON object of name and string value.
///
/// So a message never has more than [`MAX_ATTRIBUTES`], and no value is
/// empty (SQS and SNS refuse an empty one; an empty attribute is left out).
pub fn attributes(m: &Prepared) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![
        ("webhook-id".into(), m.webhook_id.clone()),
        ("webhook-timestamp".into(), m.webhook_timestamp.clone()),
        ("webhook-signature".into(), m.webhook_signature.clone()),
        ("content-type".into(), m.content_type.to_string()),
    ];
    match m.content_mode {
        ContentMode::Structured => {
            out.push(("relay-event-type".into(), m.event_type.clone()));
            out.push(("relay-attempt".into(), m.attempt_number.to_string()));
            if let Some(tp) = &m.traceparent {
                out.push(("traceparent".into(), tp.clone()));
            }
        }
        ContentMode::Binary => {
            let context: Vec<(&str, &str)> = m
                .attributes
                .iter()
                .filter(|(name, _)| !matches!(*name, "id" | "datacontenttype"))
                .map(|(name, value)| (*name, value.as_str()))
                .collect();
            let room = MAX_ATTRIBUTES - out.len();
            let own = if context.len() > room {
                room - 1
            } else {
                context.len()
            };
            for (name, value) in &context[..own] {
                out.push((format!("ce-{name}"), (*value).to_string()));
            }
            if own < context.len() {
                let rest: serde_json::Map<String, serde_json::Value> = context[own..]
                    .iter()
                    .map(|(n, v)| ((*n).to_string(), serde_json::Value::from(*v)))
                    .collect();
                out.push((OVERFLOW.into(), serde_json::Value::Object(rest).to_string()));
            }
        }
    }
    out.retain(|(_, v)| !v.is_empty());
    out
}

/// How many bytes the attributes count toward the size limit (SQS and SNS
/// count alike): each one's name, data type (`String`) and value.
pub fn attributes_bytes(attributes: &[(String, String)]) -> u64 {
    attributes
        .iter()
        .map(|(n, v)| (n.len() + "String".len() + v.len()) as u64)
        .sum()
}

/// Whether `s` is a valid `MessageGroupId` or `MessageDeduplicationId`:
/// 1 to 128 of ASCII letters, digits and punctuation.
pub fn valid_id(s: &str) -> bool {
    (1..=MAX_ID).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_graphic())
}

/// `s` as such an id: itself when valid, else `sha256-<hex>` of it (the
/// same string always the same id, so one key stays one group).
pub fn as_id(s: &str) -> String {
    if valid_id(s) {
        s.to_string()
    } else {
        format!("sha256-{}", hex::encode(Sha256::digest(s.as_bytes())))
    }
}

/// A FIFO queue's ids for `m`: the `MessageGroupId` is the ordering key
/// (the one the event was published with, else its subject), else the
/// event id (an event without either is ordered with nothing else); the
/// `MessageDeduplicationId` is the event id, the same at every attempt.
pub fn fifo_ids(m: &Prepared) -> (String, String) {
    let group = m.ordering_key.as_deref().unwrap_or(&m.webhook_id);
    (as_id(group), as_id(&m.webhook_id))
}
