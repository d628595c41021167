use relay_core::model::ContentMode;

use super::*;
use crate::test_message::prepared;

fn names(a: &[(String, String)]) -> Vec<&str> {
    a.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn structured_attributes() {
    let m = prepared(ContentMode::Structured);
    let a = attributes(&m);
    assert_eq!(
        names(&a),
        [
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
            "content-type",
            "relay-event-type",
            "relay-attempt",
            "traceparent"
        ]
    );
    assert_eq!(a[0].1, "evt_1");
    assert_eq!(a[3].1, "application/cloudevents+json");
    assert_eq!(a[5].1, "2");
}

/// The binary mode's layout: the four fixed ones, then `ce-*` in the
/// envelope's order; past ten, the rest in one JSON object.
#[test]
fn binary_attributes_fit_in_ten() {
    let mut m = prepared(ContentMode::Binary);
    let a = attributes(&m);
    assert!(a.len() <= MAX_ATTRIBUTES, "{a:?}");
    assert_eq!(a[3], ("content-type".into(), "application/json".into()));
    assert!(!names(&a).contains(&"ce-id"), "the id is webhook-id");
    // The test event has more than six context attributes besides id and
    // datacontenttype: five have their own, the rest go together.
    assert_eq!(
        names(&a),
        [
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
            "content-type",
            "ce-specversion",
            "ce-source",
            "ce-type",
            "ce-subject",
            "ce-time",
            OVERFLOW
        ]
    );
    let rest: serde_json::Value = serde_json::from_str(&a[9].1).unwrap();
    let mut carried: Vec<&str> = rest
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    carried.sort_unstable();
    let mut expected: Vec<&str> = m.attributes[..]
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| {
            !matches!(
                *n,
                "id" | "datacontenttype" | "specversion" | "source" | "type" | "subject" | "time"
            )
        })
        .collect();
    expected.sort_unstable();
    assert_eq!(carried, expected, "every other attribute, once");

    // As many as fit: each has its own.
    m.attributes.retain(|(n, _)| {
        matches!(
            *n,
            "specversion" | "id" | "source" | "type" | "time" | "datacontenttype" | "dataschema"
        )
    });
    let a = attributes(&m);
    assert_eq!(a.len(), 9);
    assert!(!names(&a).contains(&OVERFLOW));
    assert_eq!(a[8].0, "ce-dataschema");
    // Exactly six: no overflow either.
    m.attributes.push(("subject", "s".into()));
    let a = attributes(&m);
    assert_eq!(a.len(), 10);
    assert!(!names(&a).contains(&OVERFLOW));
    // Seven: five of their own, two together.
    m.attributes.push(("seq", "7".into()));
    let a = attributes(&m);
    assert_eq!(a.len(), 10);
    assert_eq!(a[9].0, OVERFLOW);
}

#[test]
fn empty_values_are_left_out() {
    let mut m = prepared(ContentMode::Structured);
    m.traceparent = Some(String::new());
    assert!(!names(&attributes(&m)).contains(&"traceparent"));
}

#[test]
fn attribute_bytes_count_name_type_and_value() {
    let a = vec![("ab".to_string(), "xyz".to_string())];
    assert_eq!(attributes_bytes(&a), 2 + 6 + 3);
}

#[test]
fn ids() {
    for (s, ok) in [
        ("evt_1", true),
        ("order/1042", true),
        ("a!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", true),
        ("", false),
        ("with space", false),
        ("ключ", false),
        (&"x".repeat(128), true),
        (&"x".repeat(129), false),
    ] {
        assert_eq!(valid_id(s), ok, "{s}");
    }
    assert_eq!(as_id("order/1042"), "order/1042");
    let hashed = as_id("a key with spaces");
    assert!(
        hashed.starts_with("sha256-") && valid_id(&hashed),
        "{hashed}"
    );
    assert_eq!(hashed, as_id("a key with spaces"), "stable");
    assert_ne!(hashed, as_id("another key"));
}

#[test]
fn fifo_ids_are_the_ordering_key_and_the_event_id() {
    let mut m = prepared(ContentMode::Structured);
    m.ordering_key = Some("customer/7".into());
    assert_eq!(fifo_ids(&m), ("customer/7".into(), "evt_1".into()));
    m.ordering_key = None;
    assert_eq!(fifo_ids(&m), ("evt_1".into(), "evt_1".into()));
}

#[test]
fn bodies() {
    assert_eq!(valid_body(b"{\"a\":1}\n"), Some("{\"a\":1}\n"));
    assert_eq!(valid_body("é\t☃𝄞".as_bytes()), Some("é\t☃𝄞"));
    assert_eq!(valid_body(b""), None);
    assert_eq!(valid_body(b"\x00"), None);
    assert_eq!(valid_body(b"\x1f"), None);
    assert_eq!(valid_body(b"\xff"), None);
    assert_eq!(valid_body("\u{FFFE}".as_bytes()), None);
}

/// SQS's digests, against values computed by an independent implementation
/// of the documented algorithm (Python's `hashlib` and `struct`).
#[test]
fn digests() {
    assert_eq!(
        md5_of_body("{\"a\":\"é\"}"),
        "110df10b56b83299182f70164879d203"
    );
    let a = vec![
        ("webhook-id".to_string(), "evt_1".to_string()),
        (
            "content-type".to_string(),
            "application/cloudevents+json".to_string(),
        ),
    ];
    assert_eq!(md5_of_attributes(&a), "2ff0fef7d339e3f229e5d2007238529f");
}

#[test]
fn the_request() {
    let a = vec![("webhook-id".to_string(), "evt_1".to_string())];
    let r: serde_json::Value = serde_json::from_slice(&request(
        "https://sqs.eu-west-1.amazonaws.com/123456789012/q.fifo",
        "{}",
        &a,
        Some(&("g".into(), "d".into())),
    ))
    .unwrap();
    assert_eq!(
        r,
        serde_json::json!({
            "QueueUrl": "https://sqs.eu-west-1.amazonaws.com/123456789012/q.fifo",
            "MessageBody": "{}",
            "MessageAttributes": {"webhook-id": {"DataType": "String", "StringValue": "evt_1"}},
            "MessageGroupId": "g",
            "MessageDeduplicationId": "d",
        })
    );
    let r: serde_json::Value =
        serde_json::from_slice(&request("https://q/1/q", "x", &[], None)).unwrap();
    assert_eq!(
        r,
        serde_json::json!({"QueueUrl": "https://q/1/q", "MessageBody": "x"})
    );
}

#[test]
fn answers() {
    let ok = answer(
        br#"{"MessageId":"m-1","MD5OfMessageBody":"b","MD5OfMessageAttributes":"a","SequenceNumber":"1"}"#,
        None,
    );
    assert_eq!(ok.message_id.as_deref(), Some("m-1"));
    assert_eq!(ok.md5_of_body.as_deref(), Some("b"));
    assert_eq!(ok.md5_of_attributes.as_deref(), Some("a"));
    assert_eq!(ok.sequence_number.as_deref(), Some("1"));
    assert_eq!(ok.error_code, None);
    let err = answer(
        br#"{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"gone"}"#,
        Some("AWS.SimpleQueueService.NonExistentQueue;Sender"),
    );
    assert_eq!(
        err.error_code.as_deref(),
        Some("AWS.SimpleQueueService.NonExistentQueue")
    );
    assert_eq!(err.error_message.as_deref(), Some("gone"));
    let err = answer(
        br#"{"__type":"com.amazonaws.sqs#QueueDoesNotExist","Message":"m"}"#,
        None,
    );
    assert_eq!(err.error_code.as_deref(), Some("QueueDoesNotExist"));
    assert_eq!(err.error_message.as_deref(), Some("m"));
    assert_eq!(answer(b"<html>", None), Answer::default());
    let xml = answer(
        b"<?xml version=\"1.0\"?><ErrorResponse><Errors><Error><Code>AccessDenied</Code><Message>no</Message><Type>Sender</Type></Error></Errors></ErrorResponse>",
        None,
    );
    assert_eq!(xml.error_code.as_deref(), Some("AccessDenied"));
    assert_eq!(xml.error_message.as_deref(), Some("no"));
}
