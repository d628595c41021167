use relay_core::model::{Environment, SignatureScheme};
use relay_core::signature::{SignatureHeaders, verify};
use serde_json::value::RawValue;

use super::*;

const DATA: &str = r#"{"order": "o_1", "total": 12.50}"#;

fn event(subject: Option<&str>, ordering_key: Option<&str>) -> Event {
    Event {
        id: "evt_1".into(),
        event_type: "order.shipped".into(),
        type_version: 2,
        environment: Environment::Live,
        subject: subject.map(str::to_owned),
        data: RawValue::from_string(DATA.into()).unwrap(),
        consumer_id: None,
        ordering_key: ordering_key.map(str::to_owned),
        seq: Some(7),
        traceparent: String::new(),
        expires_at: None,
        time: Timestamp::from_millis(1_764_478_376_123),
        created_at: Timestamp::from_millis(1_764_478_376_123),
    }
}

fn run(event: &Event, mode: ContentMode, max: usize) -> Result<Prepared, DeadLetterReason> {
    run_shaped(event, mode, max, None)
}

fn run_shaped(
    event: &Event,
    mode: ContentMode,
    max: usize,
    shaped: Option<Shaped<'_>>,
) -> Result<Prepared, DeadLetterReason> {
    let key = SigningKey::generate(SignatureScheme::V1a, [3; 32]);
    prepare(&Input {
        event,
        source: "/merchants/42",
        keys: std::slice::from_ref(&key),
        attempt_number: 1,
        max_payload_bytes: max,
        content_mode: mode,
        now: Timestamp::from_millis(1_764_478_400_000),
        shaped,
    })
}

fn verifies(p: &Prepared) -> bool {
    let key = SigningKey::generate(SignatureScheme::V1a, [3; 32]).verification_key();
    let headers = SignatureHeaders {
        webhook_id: p.webhook_id.clone(),
        webhook_timestamp: p.webhook_timestamp.clone(),
        webhook_signature: p.webhook_signature.clone(),
    };
    verify(
        &[key],
        &headers,
        &p.body,
        Timestamp::from_millis(1_764_478_400_000),
        300,
    )
    .is_ok()
}

#[test]
fn structured_mode_sends_and_signs_the_whole_event() {
    let p = run(
        &event(Some("order_1"), None),
        ContentMode::Structured,
        1 << 20,
    )
    .unwrap();
    assert_eq!(p.content_type, "application/cloudevents+json");
    assert!(p.attributes.is_empty());
    let body: serde_json::Value = serde_json::from_slice(&p.body).unwrap();
    assert_eq!(body["id"], "evt_1");
    assert_eq!(body["data"]["order"], "o_1");
    assert!(verifies(&p));
}

#[test]
fn a_shaped_payload_replaces_data_and_names_a_schema_only_when_whole() {
    let thin = RawValue::from_string(r#"{"order":"o_1"}"#.into()).unwrap();
    let shaped = Shaped {
        data: &thin,
        endpoint_version: 3,
    };
    let e = event(Some("order_1"), None);
    let p = run_shaped(&e, ContentMode::Structured, 1 << 20, Some(shaped)).unwrap();
    let body: serde_json::Value = serde_json::from_slice(&p.body).unwrap();
    assert_eq!(body["data"], serde_json::json!({"order": "o_1"}));
    assert_eq!(body["endpointversion"], 3);
    assert!(
        body.get("dataschema").is_none(),
        "a projection satisfies no schema of the catalog: {body}"
    );
    assert!(verifies(&p));
    let p = run_shaped(&e, ContentMode::Binary, 1 << 20, Some(shaped)).unwrap();
    assert_eq!(&p.body[..], br#"{"order":"o_1"}"#);
    assert!(p.attributes.contains(&("endpointversion", "3".to_string())));
    assert!(!p.attributes.iter().any(|(k, _)| *k == "dataschema"));
    assert!(verifies(&p));
    // The data whole: the event's own type version names the schema.
    let p = run_shaped(
        &e,
        ContentMode::Structured,
        1 << 20,
        Some(Shaped {
            data: &e.data,
            ..shaped
        }),
    )
    .unwrap();
    let body: serde_json::Value = serde_json::from_slice(&p.body).unwrap();
    assert_eq!(body["dataschema"], "urn:relay:event-type:order.shipped:v2");
}

#[test]
fn binary_mode_sends_and_signs_the_data_exactly() {
    let p = run(&event(Some("order_1"), None), ContentMode::Binary, 1 << 20).unwrap();
    assert_eq!(
        &p.body[..],
        DATA.as_bytes(),
        "the published bytes, verbatim"
    );
    assert_eq!(p.content_type, "application/json");
    let attr = |n: &str| {
        p.attributes
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(attr("id"), Some("evt_1"));
    assert_eq!(attr("type"), Some("order.shipped"));
    assert_eq!(attr("source"), Some("/merchants/42"));
    assert_eq!(attr("subject"), Some("order_1"));
    assert_eq!(attr("seq"), Some("7"));
    assert_eq!(attr("datacontenttype"), Some("application/json"));
    assert_eq!(
        attr("dataschema"),
        Some("urn:relay:event-type:order.shipped:v2")
    );
    assert_eq!(attr("traceparent"), None, "an empty traceparent is omitted");
    assert!(verifies(&p));
}

#[test]
fn the_size_limit_applies_to_the_body_sent() {
    let structured = run(&event(None, None), ContentMode::Structured, 1 << 20)
        .unwrap()
        .body
        .len();
    // Binary fits where the larger structured body does not.
    let max = structured - 1;
    assert!(matches!(
        run(&event(None, None), ContentMode::Structured, max),
        Err(DeadLetterReason::PayloadTooLarge)
    ));
    assert!(run(&event(None, None), ContentMode::Binary, max).is_ok());
    assert!(matches!(
        run(&event(None, None), ContentMode::Binary, DATA.len() - 1),
        Err(DeadLetterReason::PayloadTooLarge)
    ));
}

#[test]
fn the_ordering_key_defaults_to_the_subject() {
    let cases = [
        (None, None, None),
        (Some("order_1"), None, Some("order_1")),
        (Some("order_1"), Some("merchant_42"), Some("merchant_42")),
        (None, Some("merchant_42"), Some("merchant_42")),
    ];
    for (subject, key, want) in cases {
        let p = run(&event(subject, key), ContentMode::Structured, 1 << 20).unwrap();
        assert_eq!(p.ordering_key.as_deref(), want, "{subject:?} {key:?}");
    }
}
