//! SQS's `SendMessage` over its JSON protocol (`AmazonSQS.SendMessage`,
//! `application/x-amz-json-1.0`), pure: the request's JSON, the message
//! attributes a message carries (at most [`MAX_ATTRIBUTES`]), the FIFO
//! ids, the MD5 digests SQS answers (body and attributes, by SQS's
//! documented algorithm), and the answer's reading. It opens nothing.

use md5::{Digest as _, Md5};
use relay_core::model::ContentMode;
use sha2::Sha256;

use crate::Prepared;

/// SQS's most message attributes on one message.
pub const MAX_ATTRIBUTES: usize = 10;

/// The longest `MessageGroupId` and `MessageDeduplicationId`.
pub const MAX_ID: usize = 128;

/// The attribute that carries, as one JSON object, the binary mode's
/// context attributes that have no attribute of their own.
pub const OVERFLOW: &str = "ce-attributes";

/// The request's `X-Amz-Target`.
pub const TARGET: &str = "AmazonSQS.SendMessage";
/// The request's `Content-Type`.
pub const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

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
/// empty (SQS refuses an empty one; an empty attribute is left out).
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

/// How many bytes the attributes count toward SQS's size limit: each
/// one's name, data type (`String`) and value.
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

/// Whether SQS takes `body` as a message body: UTF-8 of the characters
/// `#x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF`, at least one.
pub fn valid_body(body: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(body).ok()?;
    let ok = |c: char| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{D7FF}').contains(&c)
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    };
    (!text.is_empty() && text.chars().all(ok)).then_some(text)
}

/// The `SendMessage` request's JSON.
pub fn request(
    queue_url: &str,
    body: &str,
    attributes: &[(String, String)],
    fifo: Option<&(String, String)>,
) -> Vec<u8> {
    let attrs: serde_json::Map<String, serde_json::Value> = attributes
        .iter()
        .map(|(n, v)| {
            (
                n.clone(),
                serde_json::json!({"DataType": "String", "StringValue": v}),
            )
        })
        .collect();
    let mut req = serde_json::json!({
        "QueueUrl": queue_url,
        "MessageBody": body,
    });
    if !attrs.is_empty() {
        req["MessageAttributes"] = serde_json::Value::Object(attrs);
    }
    if let Some((group, dedup)) = fifo {
        req["MessageGroupId"] = group.as_str().into();
        req["MessageDeduplicationId"] = dedup.as_str().into();
    }
    req.to_string().into_bytes()
}

/// The hex MD5 of the body, as SQS answers it (`MD5OfMessageBody`).
pub fn md5_of_body(body: &str) -> String {
    hex::encode(Md5::digest(body.as_bytes()))
}

/// The hex MD5 of string attributes by SQS's algorithm
/// (`MD5OfMessageAttributes`): sorted by name, each as its name, its data
/// type, the byte `1` (a string) and its value, every part but the byte
/// preceded by its length as 4 bytes big-endian.
pub fn md5_of_attributes(attributes: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = attributes.iter().collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut md5 = Md5::new();
    let part = |md5: &mut Md5, bytes: &[u8]| {
        md5.update(u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_be_bytes());
        md5.update(bytes);
    };
    for (name, value) in sorted {
        part(&mut md5, name.as_bytes());
        part(&mut md5, b"String");
        md5.update([1u8]);
        part(&mut md5, value.as_bytes());
    }
    hex::encode(md5.finalize())
}

/// What SQS answered, read from its JSON.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    pub message_id: Option<String>,
    pub md5_of_body: Option<String>,
    pub md5_of_attributes: Option<String>,
    pub sequence_number: Option<String>,
    /// An error's code: the `x-amzn-query-error` header's (SQS's documented
    /// codes, `AWS.SimpleQueueService.NonExistentQueue`), else the JSON
    /// `__type`'s name after `#` (`QueueDoesNotExist`).
    pub error_code: Option<String>,
    pub error_message: Option<String>,
}

/// Reads an answer's body and its `x-amzn-query-error` header. The body is
/// JSON; an error refused before the action is reached (authentication,
/// authorization) may come in the query protocol's XML
/// (`<Error><Code>…</Code><Message>…</Message>`), whose code and message
/// are read too.
pub fn answer(body: &[u8], query_error: Option<&str>) -> Answer {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let xml = if v.is_object() {
        ""
    } else {
        std::str::from_utf8(body).unwrap_or("")
    };
    let element = |name| crate::s3::classify::element(xml, name).map(str::to_string);
    let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let from_header = query_error
        .and_then(|h| h.split(';').next())
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    let from_type = text("__type").map(|t| match t.rsplit_once('#') {
        Some((_, name)) => name.to_string(),
        None => t,
    });
    Answer {
        message_id: text("MessageId"),
        md5_of_body: text("MD5OfMessageBody"),
        md5_of_attributes: text("MD5OfMessageAttributes"),
        sequence_number: text("SequenceNumber"),
        error_code: from_header.or(from_type).or_else(|| element("Code")),
        error_message: text("message")
            .or_else(|| text("Message"))
            .or_else(|| element("Message")),
    }
}

#[cfg(test)]
mod tests;
