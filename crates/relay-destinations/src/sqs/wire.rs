//! SQS's `SendMessage` over its JSON protocol (`AmazonSQS.SendMessage`,
//! `application/x-amz-json-1.0`), pure: the request's JSON with the message
//! attributes and FIFO ids of [`crate::aws::message`] (at most
//! [`MAX_ATTRIBUTES`]; SNS's rule too, re-exported here), the MD5 digests SQS answers (body and attributes, by SQS's
//! documented algorithm), and the answer's reading. It opens nothing.

use md5::{Digest as _, Md5};

pub use crate::aws::message::{
    MAX_ATTRIBUTES, MAX_ID, OVERFLOW, as_id, attributes, attributes_bytes, fifo_ids, valid_id,
};

/// The request's `X-Amz-Target`.
pub const TARGET: &str = "AmazonSQS.SendMessage";
/// The request's `Content-Type`.
pub const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

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
