//! Pub/Sub's `topics.publish` over its REST API, pure: the request's JSON
//! (one message: `data` in base64, `attributes`, `orderingKey`), the
//! attributes a message carries by the CloudEvents Pub/Sub protocol
//! binding, and the answer's reading (the `messageIds`, or the
//! `google.rpc.Status` of an error). It opens nothing.

use base64::Engine as _;
use relay_core::model::ContentMode;
use sha2::{Digest, Sha256};

use crate::Prepared;
use crate::pubsub::limits::{
    MAX_ATTRIBUTE_NAME, MAX_ATTRIBUTE_VALUE, MAX_ATTRIBUTES, MAX_ORDERING_KEY,
};

/// The attribute the binding names for the content type.
pub const CONTENT_TYPE_ATTRIBUTE: &str = "Content-Type";

/// The attributes of `m`, in the order sent:
///
/// - always `webhook-id`, `webhook-timestamp`, `webhook-signature` (the
///   Standard Webhooks values) and `Content-Type` (structured:
///   `application/cloudevents+json`; binary: the `datacontenttype`, as
///   the binding's §3.1.1 and §3.2.1 say);
/// - structured: `relay-event-type`, `relay-attempt`, and `traceparent`
///   when the delivery has one;
/// - binary: `ce-<name>` for every context attribute (`ce-id`,
///   `ce-specversion`, `ce-datacontenttype`, … and the extensions, as the
///   binding's §3.1.3 says), in the envelope's order.
///
/// An empty value is left out (nothing to carry).
pub fn attributes(m: &Prepared) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![
        ("webhook-id".into(), m.webhook_id.clone()),
        ("webhook-timestamp".into(), m.webhook_timestamp.clone()),
        ("webhook-signature".into(), m.webhook_signature.clone()),
        (CONTENT_TYPE_ATTRIBUTE.into(), m.content_type.to_string()),
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
            for (name, value) in &m.attributes {
                out.push((format!("ce-{name}"), value.clone()));
            }
        }
    }
    out.retain(|(_, v)| !v.is_empty());
    out
}

/// Why the attributes cannot be sent (Pub/Sub's limits), if they cannot.
pub fn unsendable(attributes: &[(String, String)]) -> Option<&'static str> {
    if attributes.len() > MAX_ATTRIBUTES {
        return Some("more than 100 attributes");
    }
    if attributes.iter().any(|(n, _)| n.len() > MAX_ATTRIBUTE_NAME) {
        return Some("an attribute name longer than 256 bytes");
    }
    if attributes
        .iter()
        .any(|(_, v)| v.len() > MAX_ATTRIBUTE_VALUE)
    {
        return Some("an attribute value longer than 1024 bytes");
    }
    None
}

/// The `orderingKey` of `m`: its ordering key (the one it was published
/// with, else its subject), or when that is longer than Pub/Sub takes,
/// `sha256-<hex>` of it (the same key always the same value, so one key
/// stays one order).
pub fn ordering_key(m: &Prepared) -> Option<String> {
    let k = m.ordering_key.as_deref().filter(|k| !k.is_empty())?;
    Some(if k.len() <= MAX_ORDERING_KEY {
        k.to_string()
    } else {
        format!("sha256-{}", hex::encode(Sha256::digest(k.as_bytes())))
    })
}

/// The bytes a message counts against the request limit, as sent: the
/// data in base64, every attribute's name and value, the ordering key.
pub fn message_bytes(body_len: usize, attributes: &[(String, String)], key: Option<&str>) -> u64 {
    let data = body_len.div_ceil(3) * 4;
    let attrs: usize = attributes.iter().map(|(n, v)| n.len() + v.len()).sum();
    (data + attrs + key.map_or(0, str::len)) as u64
}

/// The publish request's JSON: one message.
pub fn request(body: &[u8], attributes: &[(String, String)], key: Option<&str>) -> Vec<u8> {
    let attrs: serde_json::Map<String, serde_json::Value> = attributes
        .iter()
        .map(|(n, v)| (n.clone(), serde_json::Value::from(v.as_str())))
        .collect();
    let mut message = serde_json::json!({
        "data": base64::engine::general_purpose::STANDARD.encode(body),
        "attributes": attrs,
    });
    if let Some(k) = key {
        message["orderingKey"] = k.into();
    }
    serde_json::json!({ "messages": [message] })
        .to_string()
        .into_bytes()
}

/// What Pub/Sub answered, read from its JSON.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    /// `messageIds`, when the answer has that list (of strings).
    pub message_ids: Option<Vec<String>>,
    /// An error's `google.rpc.Status` name (`error.status`:
    /// `PERMISSION_DENIED`, `NOT_FOUND`, …).
    pub status: Option<String>,
    /// An error's `error.message` (at most 512 bytes).
    pub message: Option<String>,
}

/// The longest error message kept.
pub const MAX_MESSAGE: usize = 512;

/// Reads an answer's body: `{"messageIds": [...]}` or
/// `{"error": {"code", "message", "status"}}`; anything else reads as
/// neither.
pub fn answer(body: &[u8]) -> Answer {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let message_ids = v.get("messageIds").and_then(|ids| {
        ids.as_array()?
            .iter()
            .map(|id| id.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
    });
    let error = v.get("error");
    let text = |k: &str| {
        error
            .and_then(|e| e.get(k))
            .and_then(|x| x.as_str())
            .map(str::to_string)
    };
    let message = text("message").map(|mut m| {
        if m.len() > MAX_MESSAGE {
            let mut end = MAX_MESSAGE;
            while !m.is_char_boundary(end) {
                end -= 1;
            }
            m.truncate(end);
        }
        m
    });
    Answer {
        message_ids,
        status: text("status")
            .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_message::prepared;

    #[test]
    fn structured_attributes() {
        let m = prepared(ContentMode::Structured);
        let a = attributes(&m);
        let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "webhook-id",
                "webhook-timestamp",
                "webhook-signature",
                "Content-Type",
                "relay-event-type",
                "relay-attempt",
                "traceparent"
            ]
        );
        assert_eq!(a[3].1, "application/cloudevents+json");
        assert_eq!(a[0].1, "evt_1");
        assert_eq!(unsendable(&a), None);
    }

    /// The binding: every context attribute as `ce-<name>`, and
    /// `Content-Type` the `datacontenttype`.
    #[test]
    fn binary_attributes_are_the_binding() {
        let m = prepared(ContentMode::Binary);
        let a = attributes(&m);
        let get = |n: &str| a.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        for (name, value) in &m.attributes {
            assert_eq!(get(&format!("ce-{name}")), Some(value.as_str()), "{name}");
        }
        assert_eq!(get("ce-id"), Some("evt_1"));
        assert_eq!(get("ce-specversion"), Some("1.0"));
        assert_eq!(get("Content-Type"), get("ce-datacontenttype"));
        assert_eq!(get("relay-attempt"), None);
    }

    #[test]
    fn limits_of_attributes() {
        let ok = vec![("a".to_string(), "v".repeat(1024))];
        assert_eq!(unsendable(&ok), None);
        let long_value = vec![("a".to_string(), "v".repeat(1025))];
        assert!(unsendable(&long_value).is_some());
        let long_name = vec![("n".repeat(257), "v".to_string())];
        assert!(unsendable(&long_name).is_some());
        let many: Vec<(String, String)> = (0..101).map(|i| (format!("a{i}"), "v".into())).collect();
        assert!(unsendable(&many).is_some());
        assert_eq!(unsendable(&many[..100]), None);
    }

    #[test]
    fn ordering_keys() {
        let mut m = prepared(ContentMode::Structured);
        assert_eq!(ordering_key(&m).as_deref(), Some("order/1042"));
        m.ordering_key = Some("k".repeat(1024));
        assert_eq!(ordering_key(&m).unwrap().len(), 1024);
        m.ordering_key = Some("k".repeat(1025));
        let hashed = ordering_key(&m).unwrap();
        assert!(hashed.starts_with("sha256-") && hashed.len() == 7 + 64);
        assert_eq!(ordering_key(&m), Some(hashed));
        m.ordering_key = None;
        assert_eq!(ordering_key(&m), None);
    }

    #[test]
    fn the_request() {
        let a = vec![("webhook-id".to_string(), "evt_1".to_string())];
        let r: serde_json::Value = serde_json::from_slice(&request(b"hi", &a, Some("k"))).unwrap();
        assert_eq!(
            r,
            serde_json::json!({"messages": [{"data": "aGk=", "attributes": {"webhook-id": "evt_1"}, "orderingKey": "k"}]})
        );
        let r: serde_json::Value = serde_json::from_slice(&request(b"hi", &a, None)).unwrap();
        assert!(r["messages"][0].get("orderingKey").is_none());
        assert_eq!(message_bytes(2, &a, Some("k")), 4 + 15 + 1);
        assert_eq!(message_bytes(3, &[], None), 4);
        assert_eq!(message_bytes(4, &[], None), 8);
    }

    #[test]
    fn answers() {
        assert_eq!(
            answer(br#"{"messageIds": ["17"]}"#).message_ids,
            Some(vec!["17".to_string()])
        );
        assert_eq!(answer(br#"{"messageIds": [17]}"#).message_ids, None);
        let e = answer(
            br#"{"error":{"code":403,"message":"User not authorized to perform this action.","status":"PERMISSION_DENIED"}}"#,
        );
        assert_eq!(e.status.as_deref(), Some("PERMISSION_DENIED"));
        assert_eq!(
            e.message.as_deref(),
            Some("User not authorized to perform this action.")
        );
        assert_eq!(answer(b"<html>").status, None);
        assert_eq!(
            answer(br#"{"error":{"status":"not a status"}}"#).status,
            None
        );
        let long = format!(r#"{{"error":{{"message":"{}"}}}}"#, "é".repeat(600));
        assert!(answer(long.as_bytes()).message.unwrap().len() <= MAX_MESSAGE);
    }
}
