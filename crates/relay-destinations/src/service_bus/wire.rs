//! Service Bus's REST send (`POST /{entity}/messages`), pure: the
//! `BrokerProperties` header's JSON (`MessageId`, `SessionId`, `Label`),
//! the user properties a message carries as headers of their own (the
//! CloudEvents AMQP binding's `cloudEvents_<name>` in binary mode), their
//! header values, the bytes Service Bus counts, and the reading of an
//! error's answer. It opens nothing.

use relay_core::model::ContentMode;
use sha2::{Digest, Sha256};

use crate::Prepared;

/// The longest `MessageId` and `SessionId` Service Bus takes.
pub const MAX_ID: usize = 128;

/// The binding's prefix of a context attribute's application property
/// (the CloudEvents AMQP binding, §3.1.3.1: `cloudEvents_`, which it
/// prefers to `cloudEvents:` for JMS selectors; a `:` cannot be in an
/// HTTP header's name either).
pub const CE_PREFIX: &str = "cloudEvents_";

/// The user properties of `m`, in the order sent, each an HTTP header of
/// the request (which Service Bus makes an application property):
///
/// - always `webhook-id`, `webhook-timestamp`, `webhook-signature` (the
///   Standard Webhooks values);
/// - structured: `relay-event-type`, `relay-attempt`, and `traceparent`
///   when the delivery has one;
/// - binary: `cloudEvents_<name>` for every context attribute but
///   `datacontenttype` (which is the message's `Content-Type`, as the
///   binding's §3.1.1 says), in the envelope's order.
///
/// An empty value is left out.
pub fn properties(m: &Prepared) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![
        ("webhook-id".into(), m.webhook_id.clone()),
        ("webhook-timestamp".into(), m.webhook_timestamp.clone()),
        ("webhook-signature".into(), m.webhook_signature.clone()),
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
                if *name != "datacontenttype" {
                    out.push((format!("{CE_PREFIX}{name}"), value.clone()));
                }
            }
        }
    }
    out.retain(|(_, v)| !v.is_empty());
    out
}

/// A user property's header value: the string as a JSON string (quoted,
/// so Service Bus keeps it a string rather than reading a number or a
/// date out of it, as it answers them on receive), every character
/// outside printable ASCII escaped (`\uXXXX`), so the value is a valid
/// header value whatever the attribute holds.
pub fn header_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// The `SessionId` of `m`: its ordering key (the one it was published
/// with, else its subject), or when that is longer than Service Bus
/// takes, `sha256-<hex>` of it (one key, one session); `None` without one.
pub fn session_id(m: &Prepared) -> Option<String> {
    let k = m.ordering_key.as_deref().filter(|k| !k.is_empty())?;
    Some(if k.len() <= MAX_ID {
        k.to_string()
    } else {
        format!("sha256-{}", hex::encode(Sha256::digest(k.as_bytes())))
    })
}

/// The `BrokerProperties` header: `MessageId` the event id (Service Bus's
/// duplicate detection, when the entity has it on, drops a resend of the
/// same event), `Label` the event type (what subscriptions' correlation
/// filters match), and `SessionId` when given. The JSON is printable
/// ASCII (every other character escaped), so it is a header value.
pub fn broker_properties(m: &Prepared, session: Option<&str>) -> String {
    let mut p = serde_json::json!({
        "MessageId": m.webhook_id,
        "Label": m.event_type,
    });
    if let Some(s) = session {
        p["SessionId"] = s.into();
    }
    ascii_json(&p.to_string())
}

/// `json` (a JSON text) with every character outside printable ASCII
/// escaped as `\uXXXX`: the same value (such characters are only ever
/// inside its strings; serde_json escapes the control characters).
pub fn ascii_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// The bytes Service Bus counts against the entity's largest message, as
/// sent: the body, the broker properties and every user property's name
/// and value.
pub fn message_bytes(body_len: usize, broker: &str, properties: &[(String, String)]) -> u64 {
    let props: usize = properties
        .iter()
        .map(|(n, v)| n.len() + header_value(v).len())
        .sum();
    (body_len + broker.len() + props) as u64
}

/// The longest error text kept.
pub const MAX_DETAIL: usize = 512;

/// What an error answer says: Service Bus answers
/// `<Error><Code>…</Code><Detail>…</Detail></Error>`; the detail's text
/// (at most [`MAX_DETAIL`] bytes, printable characters only), else none.
pub fn detail(body: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?;
    let start = text.find("<Detail>")? + "<Detail>".len();
    let end = start + text[start..].find("</Detail>")?;
    let mut d: String = text[start..end]
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    if d.len() > MAX_DETAIL {
        let mut cut = MAX_DETAIL;
        while !d.is_char_boundary(cut) {
            cut -= 1;
        }
        d.truncate(cut);
    }
    (!d.is_empty()).then_some(d)
}

/// Whether an error's detail says the message is too large (Service Bus's
/// `403` covers both a full entity, worth a retry, and this, which is not).
pub fn says_too_large(detail: Option<&str>) -> bool {
    detail.is_some_and(|d| {
        let d = d.to_ascii_lowercase();
        d.contains("message") && (d.contains("exceeds the limit") || d.contains("too large"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_message::prepared;

    #[test]
    fn structured_properties() {
        let m = prepared(ContentMode::Structured);
        let p = properties(&m);
        let names: Vec<&str> = p.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "webhook-id",
                "webhook-timestamp",
                "webhook-signature",
                "relay-event-type",
                "relay-attempt",
                "traceparent"
            ]
        );
        assert_eq!(p[0].1, "evt_1");
        assert_eq!(p[4].1, "2");
    }

    /// The AMQP binding: every context attribute but `datacontenttype` as
    /// `cloudEvents_<name>`.
    #[test]
    fn binary_properties_are_the_binding() {
        let m = prepared(ContentMode::Binary);
        let p = properties(&m);
        let get = |n: &str| p.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        for (name, value) in &m.attributes {
            let want = (*name != "datacontenttype").then_some(value.as_str());
            assert_eq!(get(&format!("cloudEvents_{name}")), want, "{name}");
        }
        assert_eq!(get("cloudEvents_id"), Some("evt_1"));
        assert_eq!(get("cloudEvents_specversion"), Some("1.0"));
        assert_eq!(get("relay-attempt"), None);
    }

    #[test]
    fn header_values_are_json_strings_in_ascii() {
        for s in ["evt_1", "a \"b\" \\ c", "é☃\n\t𝄞", ""] {
            let v = header_value(s);
            assert!(v.bytes().all(|b| (0x20..=0x7e).contains(&b)), "{v}");
            assert_eq!(serde_json::from_str::<String>(&v).unwrap(), s);
        }
        assert_eq!(header_value("1700000000"), "\"1700000000\"");
    }

    #[test]
    fn session_ids() {
        let mut m = prepared(ContentMode::Structured);
        assert_eq!(session_id(&m).as_deref(), Some("order/1042"));
        m.ordering_key = Some("k".repeat(128));
        assert_eq!(session_id(&m).unwrap().len(), 128);
        m.ordering_key = Some("k".repeat(129));
        let hashed = session_id(&m).unwrap();
        assert!(hashed.starts_with("sha256-") && hashed.len() == 71);
        m.ordering_key = None;
        assert_eq!(session_id(&m), None);
    }

    #[test]
    fn the_broker_properties() {
        let m = prepared(ContentMode::Structured);
        let v: serde_json::Value =
            serde_json::from_str(&broker_properties(&m, Some("s/1"))).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"MessageId": "evt_1", "Label": "order.shipped", "SessionId": "s/1"})
        );
        let v: serde_json::Value = serde_json::from_str(&broker_properties(&m, None)).unwrap();
        assert!(v.get("SessionId").is_none());
        let unicode = broker_properties(&m, Some("kunde/é☃𝄞"));
        assert!(
            unicode.bytes().all(|b| (0x20..=0x7e).contains(&b)),
            "{unicode}"
        );
        let v: serde_json::Value = serde_json::from_str(&unicode).unwrap();
        assert_eq!(v["SessionId"], "kunde/é☃𝄞");
        let p = vec![("a".to_string(), "b".to_string())];
        assert_eq!(message_bytes(10, "{}", &p), 10 + 2 + 1 + 3);
    }

    #[test]
    fn error_answers() {
        let body = b"<Error><Code>404</Code><Detail>The messaging entity 'sb://x/q' could not be found. TrackingId:1</Detail></Error>";
        assert_eq!(
            detail(body).as_deref(),
            Some("The messaging entity 'sb://x/q' could not be found. TrackingId:1")
        );
        assert_eq!(detail(b"<html>"), None);
        assert_eq!(detail(b"\xff<Detail>x</Detail>"), None);
        let long = format!("<Detail>{}</Detail>", "é".repeat(600));
        assert!(detail(long.as_bytes()).unwrap().len() <= MAX_DETAIL);
        assert!(says_too_large(Some(
            "The received message (delivery-id:0, size:300000 bytes) exceeds the limit (262144 bytes)"
        )));
        assert!(!says_too_large(Some(
            "The maximum entity size has been reached or exceeded for Queue: 'q'. Size of entity in bytes:1073741824"
        )));
        assert!(!says_too_large(None));
    }
}
