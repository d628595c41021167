use super::*;
use serde_json::{Map, Value};

const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn raw(s: &str) -> Box<RawValue> {
    match RawValue::from_string(s.to_string()) {
        Ok(r) => r,
        Err(e) => panic!("{s}: {e}"),
    }
}

fn full(data: &RawValue) -> Envelope<'_> {
    Envelope {
        id: "evt_01JC8ZQ4Z8Y3V6X7W5T2R1P0NM",
        source: "https://shop.example/merchants/42",
        event_type: "order.shipped",
        time: Some(Timestamp::from_millis(1_764_478_376_123)),
        subject: Some("order_123"),
        dataschema: Some("https://relay.example/v1/event-types/order.shipped/versions/3"),
        data: Some(data),
        seq: Some(42),
        traceparent: Some(TP),
        environment: Some(Environment::Live),
        endpoint_version: None,
    }
}

fn minimal() -> Envelope<'static> {
    Envelope {
        id: "evt_1",
        source: "/merchants/42",
        event_type: "order.shipped",
        time: None,
        subject: None,
        dataschema: None,
        data: None,
        seq: None,
        traceparent: None,
        environment: None,
        endpoint_version: None,
    }
}

fn json(e: &Envelope<'_>) -> String {
    match e.to_json().map(String::from_utf8) {
        Ok(Ok(s)) => s,
        other => panic!("{other:?}"),
    }
}

fn object(s: &str) -> Map<String, Value> {
    match serde_json::from_str::<Value>(s) {
        Ok(Value::Object(m)) => m,
        other => panic!("not a JSON object: {other:?}"),
    }
}

#[test]
fn full_envelope_bytes() {
    let data = raw(r#"{"order_id":"ord_1","total":{"amount":1999,"currency":"EUR"}}"#);
    assert_eq!(
        json(&full(&data)),
        concat!(
            r#"{"specversion":"1.0","id":"evt_01JC8ZQ4Z8Y3V6X7W5T2R1P0NM","#,
            r#""source":"https://shop.example/merchants/42","type":"order.shipped","#,
            r#""subject":"order_123","time":"2025-11-30T04:52:56.123Z","#,
            r#""datacontenttype":"application/json","#,
            r#""dataschema":"https://relay.example/v1/event-types/order.shipped/versions/3","#,
            r#""seq":42,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","#,
            r#""environment":"live","#,
            r#""data":{"order_id":"ord_1","total":{"amount":1999,"currency":"EUR"}}}"#
        )
    );
}

#[test]
fn attributes_without_a_value_are_omitted_never_null() {
    let s = json(&minimal());
    assert_eq!(
        s,
        r#"{"specversion":"1.0","id":"evt_1","source":"/merchants/42","type":"order.shipped"}"#
    );
    assert!(!s.contains("null"));
    let m = object(&s);
    for absent in [
        "subject",
        "time",
        "datacontenttype",
        "dataschema",
        "data",
        "seq",
        "traceparent",
        "environment",
    ] {
        assert!(!m.contains_key(absent), "{absent}");
    }
    // A payload that is JSON null is data, and is kept.
    let null = raw("null");
    let e = Envelope {
        data: Some(&null),
        ..minimal()
    };
    assert!(json(&e).ends_with(r#""datacontenttype":"application/json","data":null}"#));
}

#[test]
fn data_bytes_are_preserved_exactly() {
    let payloads = [
        r#"{"b":1,"a":2}"#,
        "{ \"spaced\" :\t[ 1 , 2 ]\n}",
        r#"{"big":123456789012345678901234567890,"float":1.50,"exp":1e400}"#,
        r#"{"escaped":"\u00e9\n\"q\"","raw":"é","emoji":"\ud83d\ude00"}"#,
        r#"{"dup":1,"dup":2}"#,
        r#"[1,"two",{"three":3}]"#,
        r#""just a string""#,
        "0",
        "true",
    ];
    for p in payloads {
        let data = raw(p);
        let out = json(&full(&data));
        assert!(out.ends_with(&format!(",\"data\":{p}}}")), "{out}");
        #[derive(serde::Deserialize)]
        struct Data<'a> {
            #[serde(borrow)]
            data: &'a RawValue,
        }
        let parsed: Result<Data<'_>, _> = serde_json::from_str(&out);
        assert_eq!(
            parsed.map(|d| d.data.get().to_string()).ok().as_deref(),
            Some(p)
        );
    }
}

#[test]
fn strings_are_escaped() {
    let e = Envelope {
        id: "evt_\"quoted\"\\",
        event_type: "tést.ünïcode",
        subject: Some("a/b\u{2028}c"),
        ..minimal()
    };
    let m = object(&json(&e));
    assert_eq!(
        m.get("id").and_then(Value::as_str),
        Some("evt_\"quoted\"\\")
    );
    assert_eq!(m.get("type").and_then(Value::as_str), Some("tést.ünïcode"));
    assert_eq!(
        m.get("subject").and_then(Value::as_str),
        Some("a/b\u{2028}c")
    );
}

#[test]
fn seq_is_an_integer_within_the_cloudevents_range_and_a_string_beyond() {
    for (seq, expected) in [
        (0i64, Value::from(0)),
        (i64::from(i32::MAX), Value::from(i32::MAX)),
        (i64::from(i32::MAX) + 1, Value::from("2147483648")),
        (i64::MAX, Value::from(i64::MAX.to_string())),
        (-1, Value::from(-1)),
    ] {
        let e = Envelope {
            seq: Some(seq),
            ..minimal()
        };
        assert_eq!(object(&json(&e)).get("seq"), Some(&expected), "{seq}");
    }
}

/// The checks of `cloudevents-v1.0.2.schema.json` and of the spec that can
/// be made without a JSON Schema library.
fn assert_valid_cloudevent(body: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/cloudevents-v1.0.2.schema.json");
    let schema: Value = match std::fs::read_to_string(&path).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(v)) => v,
        other => panic!(
            "cannot load the CloudEvents schema at {}: {other:?}",
            path.display()
        ),
    };
    let event = object(body);
    let required = schema.get("required").and_then(Value::as_array);
    let Some(required) = required else {
        panic!("schema without `required`")
    };
    for name in required.iter().filter_map(Value::as_str) {
        let value = event.get(name).and_then(Value::as_str);
        assert!(
            value.is_some_and(|v| !v.is_empty()),
            "required `{name}` missing in {body}"
        );
    }
    assert_eq!(
        event.get("specversion").and_then(Value::as_str),
        Some("1.0")
    );
    let properties = schema.get("properties").and_then(Value::as_object);
    let Some(properties) = properties else {
        panic!("schema without `properties`")
    };
    for (name, value) in &event {
        assert!(!value.is_null(), "`{name}` is null in {body}");
        if name == "data" {
            continue;
        }
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
            "attribute name `{name}`"
        );
        assert!(
            name.len() <= 20,
            "attribute name `{name}` over 20 characters"
        );
        match value {
            Value::String(s) => {
                assert!(!s.is_empty(), "`{name}` is empty");
                assert!(
                    !s.chars().any(|c| c.is_control()),
                    "`{name}` has a control character"
                );
            }
            Value::Number(n) => {
                let fits = n.as_i64().is_some_and(|i| i32::try_from(i).is_ok());
                assert!(fits, "`{name}` is not a 32-bit integer");
            }
            other => {
                panic!("`{name}` has a value of a type CloudEvents does not have: {other}")
            }
        }
        if properties.contains_key(name) {
            // Every context attribute the schema knows is a string.
            assert!(value.is_string(), "`{name}` must be a string");
        }
    }
    if let Some(t) = event.get("time").and_then(Value::as_str) {
        assert!(Timestamp::parse_rfc3339(t).is_some(), "time {t}");
    }
    if let Some(s) = event.get("dataschema").and_then(Value::as_str) {
        assert!(crate::uri::is_absolute_uri(s), "dataschema {s}");
    }
    assert!(!(event.contains_key("data") && event.contains_key("data_base64")));
}

#[test]
fn output_satisfies_the_cloudevents_schema() {
    let data = raw(r#"{"x":[1,2,3]}"#);
    assert_valid_cloudevent(&json(&full(&data)));
    assert_valid_cloudevent(&json(&minimal()));
    let big = Envelope {
        seq: Some(i64::MAX),
        environment: Some(Environment::Test),
        ..full(&data)
    };
    assert_valid_cloudevent(&json(&big));
}

#[test]
fn invalid_attributes_are_rejected() {
    let cases: Vec<(Envelope<'static>, &str)> = vec![
        (
            Envelope {
                id: "",
                ..minimal()
            },
            "envelope_empty_attribute",
        ),
        (
            Envelope {
                source: "",
                ..minimal()
            },
            "envelope_empty_attribute",
        ),
        (
            Envelope {
                event_type: "",
                ..minimal()
            },
            "envelope_empty_attribute",
        ),
        (
            Envelope {
                subject: Some(""),
                ..minimal()
            },
            "envelope_empty_attribute",
        ),
        (
            Envelope {
                subject: Some("a\nb"),
                ..minimal()
            },
            "envelope_control_character",
        ),
        (
            Envelope {
                id: "evt\u{85}",
                ..minimal()
            },
            "envelope_control_character",
        ),
        (
            Envelope {
                event_type: "a\u{0}",
                ..minimal()
            },
            "envelope_control_character",
        ),
        (
            Envelope {
                source: "has space",
                ..minimal()
            },
            "envelope_not_uri_reference",
        ),
        (
            Envelope {
                source: "bad%zz",
                ..minimal()
            },
            "envelope_not_uri_reference",
        ),
        (
            Envelope {
                source: "tenant/ü",
                ..minimal()
            },
            "envelope_not_uri_reference",
        ),
        (
            Envelope {
                dataschema: Some("/relative/schema"),
                ..minimal()
            },
            "envelope_not_absolute_uri",
        ),
        (
            Envelope {
                dataschema: Some("1http://x"),
                ..minimal()
            },
            "envelope_not_absolute_uri",
        ),
        (
            Envelope {
                dataschema: Some("https://x/a b"),
                ..minimal()
            },
            "envelope_not_absolute_uri",
        ),
        (
            Envelope {
                time: Some(Timestamp::from_millis(i64::MAX)),
                ..minimal()
            },
            "envelope_time_out_of_range",
        ),
        (
            Envelope {
                traceparent: Some("00-abc"),
                ..minimal()
            },
            "envelope_invalid_traceparent",
        ),
        (
            Envelope {
                traceparent: Some(""),
                ..minimal()
            },
            "envelope_invalid_traceparent",
        ),
    ];
    for (e, code) in cases {
        assert_eq!(e.to_json().map_err(|e| e.code()), Err(code), "{e:?}");
    }
    let ok = [
        Envelope {
            source: "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66",
            ..minimal()
        },
        Envelope {
            source: "mailto:ops@example.com",
            ..minimal()
        },
        Envelope {
            source: "1-555-123-4567",
            ..minimal()
        },
        Envelope {
            source: "/a%20b?x=1#f",
            ..minimal()
        },
        Envelope {
            dataschema: Some("urn:relay:schema:order.shipped:3"),
            ..minimal()
        },
        Envelope {
            time: Some(Timestamp::from_millis(MAX_RFC3339_MILLIS)),
            ..minimal()
        },
    ];
    for e in ok {
        assert!(e.to_json().is_ok(), "{e:?}");
    }
}

#[test]
fn from_event_maps_the_stored_event() {
    let event = Event {
        id: "evt_9".into(),
        event_type: "invoice.paid".into(),
        type_version: 2,
        environment: Environment::Test,
        subject: Some("inv_1".into()),
        data: raw(r#"{"id":"inv_1"}"#),
        consumer_id: Some("con_internal".into()),
        ordering_key: None,
        seq: Some(7),
        traceparent: TP.into(),
        expires_at: None,
        time: Timestamp::from_millis(1_700_000_000_000),
        created_at: Timestamp::from_millis(1_800_000_000_000),
    };
    let e = Envelope::from_event(&event, "https://api.example.com/tenants/acme", None);
    let m = object(&json(&e));
    assert_eq!(m.get("id"), Some(&Value::from("evt_9")));
    assert_eq!(m.get("type"), Some(&Value::from("invoice.paid")));
    assert_eq!(m.get("subject"), Some(&Value::from("inv_1")));
    assert_eq!(m.get("seq"), Some(&Value::from(7)));
    assert_eq!(m.get("environment"), Some(&Value::from("test")));
    assert_eq!(m.get("time"), Some(&Value::from("2023-11-14T22:13:20Z")));
    assert_eq!(m.get("traceparent"), Some(&Value::from(TP)));
    assert!(!m.contains_key("dataschema"));
    let body = json(&e);
    assert!(!body.contains("con_internal"), "internal ids never appear");
    assert_valid_cloudevent(&body);
    // An event stored without a traceparent omits it.
    let bare = Event {
        traceparent: String::new(),
        ..event.clone()
    };
    let m = object(&json(&Envelope::from_event(&bare, "/s", None)));
    assert!(!m.contains_key("traceparent"));
}

proptest::proptest! {
    #[test]
    fn any_attribute_gives_an_error_or_a_valid_event(
        id in "\\PC{0,30}",
        source in "[ -~]{0,30}",
        subject in proptest::option::of("\\PC{0,30}"),
        seq in proptest::option::of(proptest::num::i64::ANY),
        time in proptest::option::of(proptest::num::i64::ANY),
    ) {
        let data = raw(r#"{"k":[1,2]}"#);
        let e = Envelope {
            id: &id,
            source: &source,
            subject: subject.as_deref(),
            seq,
            time: time.map(Timestamp::from_millis),
            data: Some(&data),
            ..minimal()
        };
        if let Ok(bytes) = e.to_json() {
            let text = String::from_utf8(bytes);
            proptest::prop_assert!(text.is_ok());
            let text = text.unwrap_or_default();
            let m = object(&text);
            proptest::prop_assert_eq!(m.get("id").and_then(Value::as_str), Some(id.as_str()));
            let tail = r#","data":{"k":[1,2]}}"#;
            proptest::prop_assert!(text.ends_with(tail), "{}", text);
            assert_valid_cloudevent(&text);
        }
    }
}

/// Binary mode carries the same attributes as the structured body, with the
/// same values (as strings), and no `data`.
#[test]
fn binary_attributes_match_the_structured_body() {
    let data = raw(r#"{"order":"o_1"}"#);
    for (e, minimal_case) in [(full(&data), false), (minimal(), true)] {
        let attrs = e.attributes().unwrap();
        let body = object(&json(&e));
        let names: Vec<&str> = attrs.iter().map(|(n, _)| *n).collect();
        let expected: Vec<&str> = body
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "data")
            .collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        let mut expected_sorted = expected.clone();
        expected_sorted.sort_unstable();
        assert_eq!(sorted, expected_sorted, "minimal: {minimal_case}");
        for (name, value) in &attrs {
            let want = match &body[*name] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(value, &want, "{name}");
        }
    }
    // The order is the structured body's.
    let names: Vec<&str> = full(&data)
        .attributes()
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        names,
        [
            "specversion",
            "id",
            "source",
            "type",
            "subject",
            "time",
            "datacontenttype",
            "dataschema",
            "seq",
            "traceparent",
            "environment"
        ]
    );
}

#[test]
fn binary_attributes_are_checked_like_the_body() {
    let mut e = minimal();
    e.event_type = "";
    assert_eq!(
        e.attributes(),
        Err(EnvelopeError::Empty { attribute: "type" })
    );
}
