use relay_core::model::ContentMode;

use super::*;
use crate::test_message::prepared;

#[test]
fn an_entry_is_the_cloudevent_with_its_type_time_and_trace() {
    let m = prepared(ContentMode::Structured);
    let e = entry(&m, "orders", "com.acme", None).unwrap();
    assert_eq!(
        e.detail.as_bytes(),
        &m.body[..],
        "the CloudEvent, as signed"
    );
    assert_eq!(e.detail_type, "order.shipped");
    assert_eq!(e.time, Some(1_800_000_000));
    assert_eq!(
        e.trace_header.as_deref(),
        Some("Root=1-4bf92f35-77b34da6a3ce929d0e0e4736;Parent=00f067aa0ba902b7;Sampled=1")
    );
    let e = entry(&m, "orders", "com.acme", Some("Order Shipped")).unwrap();
    assert_eq!(e.detail_type, "Order Shipped");
    let body: serde_json::Value = serde_json::from_slice(&request(&[e])).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"Entries": [{
            "EventBusName": "orders", "Source": "com.acme", "DetailType": "Order Shipped",
            "Detail": std::str::from_utf8(&m.body).unwrap(), "Time": 1_800_000_000i64,
            "TraceHeader": "Root=1-4bf92f35-77b34da6a3ce929d0e0e4736;Parent=00f067aa0ba902b7;Sampled=1",
        }]})
    );
}

#[test]
fn a_detail_is_a_json_object() {
    assert_eq!(valid_detail(b" {\"a\":1}"), Some(" {\"a\":1}"));
    for bad in [&b"[1]"[..], b"\"s\"", b"42", b"{", b"", b"\xff{}", b"{} x"] {
        assert_eq!(valid_detail(bad), None, "{bad:?}");
    }
    let mut m = prepared(ContentMode::Structured);
    m.body = bytes::Bytes::from_static(b"[1,2]");
    assert_eq!(entry(&m, "b", "s", None), None);
}

#[test]
fn times_and_trace_headers() {
    assert_eq!(
        event_time(r#"{"time":"2027-01-15T08:00:00.999Z"}"#),
        Some(1_800_000_000)
    );
    assert_eq!(event_time(r#"{"id":"x"}"#), None);
    assert_eq!(event_time(r#"{"time":"yesterday"}"#), None);
    for (tp, header) in [
        (
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-00",
            Some("Root=1-4bf92f35-77b34da6a3ce929d0e0e4736;Parent=00f067aa0ba902b7;Sampled=0"),
        ),
        (
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            None,
        ),
        (
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            None,
        ),
        (
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            None,
        ),
        (
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            None,
        ),
        ("not a traceparent", None),
    ] {
        assert_eq!(trace_header(tp).as_deref(), header, "{tp}");
    }
}

#[test]
fn answers_are_read() {
    let ok =
        br#"{"FailedEntryCount":0,"Entries":[{"EventId":"11710aed-b79e-4468-a20b-bb3c0c3b4860"}]}"#;
    assert_eq!(
        answer(ok),
        Answer {
            failed_entry_count: Some(0),
            entries: vec![EntryResult {
                event_id: Some("11710aed-b79e-4468-a20b-bb3c0c3b4860".into()),
                ..EntryResult::default()
            }],
            ..Answer::default()
        }
    );
    let failed = br#"{"FailedEntryCount":1,"Entries":[{"ErrorCode":"MalformedDetail","ErrorMessage":"Detail is malformed."}]}"#;
    let a = answer(failed);
    assert_eq!(a.failed_entry_count, Some(1));
    assert_eq!(a.entries[0].error_code.as_deref(), Some("MalformedDetail"));
    assert_eq!(a.entries[0].event_id, None);
    let error = br#"{"__type":"com.amazonaws.eventbridge#ResourceNotFoundException","message":"Event bus nope does not exist."}"#;
    let a = answer(error);
    assert_eq!(a.error_code.as_deref(), Some("ResourceNotFoundException"));
    assert!(a.error_message.unwrap().contains("does not exist"));
    assert!(a.entries.is_empty());
    let xml = br#"<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code><Message>no</Message></Error></ErrorResponse>"#;
    assert_eq!(
        answer(xml).error_code.as_deref(),
        Some("SignatureDoesNotMatch")
    );
    assert_eq!(answer(b"not json"), Answer::default());
}
