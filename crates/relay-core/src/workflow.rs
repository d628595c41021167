//! The workflow step's rules (docs/delivery.md, "The workflow step"): a
//! workflow engine asks Relay to deliver one event to one registered
//! endpoint, idempotent by its step key, and learns only the delivery's
//! outcome, never the receiver's answer.
//!
//! - [`request_digest`]: what makes two requests of one step key "the same
//!   request" (the same one is answered with the existing step, another is
//!   refused);
//! - [`withheld_detail`]: what an attempt of a step's message keeps of the
//!   receiver's answer: its status code, nothing else.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// A step's request as the digest sees it: the fields as the client sent
/// them (an omitted `time` stays omitted; it is not the time Relay filled
/// in), `data` as a JSON value (key order and white space do not count).
#[derive(Debug, Clone, Copy)]
pub struct StepRequest<'a> {
    pub endpoint_id: &'a str,
    pub event_type: &'a str,
    pub data: &'a Value,
    pub subject: Option<&'a str>,
    pub time: Option<&'a str>,
    pub ttl_seconds: Option<u64>,
}

/// The hex SHA-256 of `request`'s canonical JSON form (object keys sorted at
/// every level), stored with the step: a request with the same step key
/// and the same digest is the same request.
pub fn request_digest(request: &StepRequest<'_>) -> String {
    let mut canonical = String::new();
    let fields = serde_json::json!({
        "endpoint_id": request.endpoint_id,
        "type": request.event_type,
        "data": request.data,
        "subject": request.subject,
        "time": request.time,
        "ttl_seconds": request.ttl_seconds,
    });
    write_canonical(&fields, &mut canonical);
    Sha256::digest(canonical.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `value` as JSON with every object's keys in sorted order (whatever
/// order the map keeps them in).
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The `detail` an attempt of a step's message records in place of its
/// destination kind's: the answer's `status_code` when it had one (an
/// integer), and `answer_withheld: true`. The rest of what the kind kept
/// (an HTTPS response's first 8 kB, a broker's acknowledgement, a token
/// endpoint's answer) is dropped before anything is stored or shown.
pub fn withheld_detail(detail: &Value) -> Value {
    let mut kept = serde_json::Map::new();
    if let Some(status) = detail.get("status_code").and_then(Value::as_i64) {
        kept.insert("status_code".into(), status.into());
    }
    kept.insert("answer_withheld".into(), true.into());
    Value::Object(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn digest(endpoint: &str, data: &Value, time: Option<&str>) -> String {
        request_digest(&StepRequest {
            endpoint_id: endpoint,
            event_type: "order.paid",
            data,
            subject: None,
            time,
            ttl_seconds: None,
        })
    }

    #[test]
    fn the_same_request_is_the_same_whatever_its_key_order() {
        let a: Value = serde_json::from_str(r#"{"b": 1, "a": {"y": [1, 2], "x": null}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":{"x":null,"y":[1,2]},"b":1}"#).unwrap();
        assert_eq!(digest("ep_1", &a, None), digest("ep_1", &b, None));
        assert_eq!(digest("ep_1", &a, None).len(), 64);
    }

    #[test]
    fn every_field_of_the_request_counts() {
        let data = json!({"order": 1});
        let base = StepRequest {
            endpoint_id: "ep_1",
            event_type: "order.paid",
            data: &data,
            subject: None,
            time: None,
            ttl_seconds: None,
        };
        let other_data = json!({"order": 2});
        let variants = [
            StepRequest {
                endpoint_id: "ep_2",
                ..base
            },
            StepRequest {
                event_type: "order.refunded",
                ..base
            },
            StepRequest {
                data: &other_data,
                ..base
            },
            StepRequest {
                subject: Some("order/1"),
                ..base
            },
            StepRequest {
                time: Some("2027-01-15T08:00:00Z"),
                ..base
            },
            StepRequest {
                ttl_seconds: Some(60),
                ..base
            },
        ];
        let mut seen = vec![request_digest(&base)];
        for v in &variants {
            let d = request_digest(v);
            assert!(!seen.contains(&d), "{v:?} digests like another request");
            seen.push(d);
        }
        // An array's order counts; a number's spelling as a value does not.
        assert_ne!(
            digest("ep_1", &json!([1, 2]), None),
            digest("ep_1", &json!([2, 1]), None)
        );
        let spelled: Value = serde_json::from_str("{\"n\": 10}").unwrap();
        assert_eq!(
            digest("ep_1", &spelled, None),
            digest("ep_1", &json!({"n": 10}), None)
        );
    }

    #[test]
    fn a_withheld_answer_keeps_its_status_code_only() {
        let cases = [
            (
                json!({"status_code": 302, "response_body": "MARK", "oauth2": {"error": "MARK"}}),
                json!({"status_code": 302, "answer_withheld": true}),
            ),
            (
                json!({"status_code": 200, "response_body": "TUFSSw==", "response_body_encoding": "base64"}),
                json!({"status_code": 200, "answer_withheld": true}),
            ),
            // A broker's acknowledgement, a failure without an answer, a
            // status that is not a number: nothing but the mark.
            (
                json!({"stream_id": "1-0", "server": "MARK"}),
                json!({"answer_withheld": true}),
            ),
            (json!({}), json!({"answer_withheld": true})),
            (
                json!({"status_code": "MARK"}),
                json!({"answer_withheld": true}),
            ),
            (Value::Null, json!({"answer_withheld": true})),
        ];
        for (detail, kept) in cases {
            assert_eq!(withheld_detail(&detail), kept, "{detail}");
        }
    }
}
