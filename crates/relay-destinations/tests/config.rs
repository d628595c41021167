//! A destination's two forms: relay-core's generic [`Destination`] (the
//! JSON object the API returns and the store keeps) and its kind's
//! configuration ([`Config`]). Read one from the other and back, the text
//! is what serde wrote when the configuration was an internally tagged
//! enum (`kind` first, then the fields in their type's order), and a
//! request's destination is refused with serde's messages for such an
//! enum, which the API's `422` carries.

use relay_core::model::Destination;
use relay_destinations::Config;
use serde_json::json;

fn read(value: serde_json::Value) -> Result<Config, String> {
    serde_json::from_value::<Config>(value).map_err(|e| e.to_string())
}

#[test]
fn the_canonical_text_is_kind_then_the_fields_in_order() {
    let cases = [
        (
            json!({"url": "https://hooks.example/in", "kind": "https"}),
            r#"{"kind":"https","url":"https://hooks.example/in","auth":null}"#,
        ),
        (
            json!({"kind": "redis_stream", "stream": "s", "host": "redis.example"}),
            r#"{"kind":"redis_stream","host":"redis.example","port":6379,"tls":false,"database":null,"stream":"s","max_len":null,"username":null,"password":null,"content_mode":"structured","wait_aof":null}"#,
        ),
    ];
    for (request, canonical) in cases {
        let config = read(request).unwrap();
        let destination = Destination::from(&config);
        assert_eq!(destination.json(), canonical);
        assert_eq!(destination.kind(), config.kind());
        // The stored text reads back as the same configuration, and the
        // generic form serializes as that text, unchanged.
        let stored: Destination = serde_json::from_str(canonical).unwrap();
        assert_eq!(stored, destination);
        assert_eq!(Config::try_from(&stored).unwrap(), config);
        assert_eq!(serde_json::to_string(&stored).unwrap(), canonical);
        assert_eq!(serde_json::to_string(&config).unwrap(), canonical);
    }
}

#[test]
fn equal_destinations_are_equal_whatever_the_order_of_their_members() {
    let a: Destination =
        serde_json::from_str(r#"{"kind":"https","url":"https://a.example","auth":null}"#).unwrap();
    let b: Destination =
        serde_json::from_str(r#"{"auth": null, "kind": "https", "url": "https://a.example"}"#)
            .unwrap();
    let c: Destination =
        serde_json::from_str(r#"{"kind":"https","url":"https://b.example","auth":null}"#).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn a_destination_is_refused_with_serdes_messages_for_a_tagged_enum() {
    let expected_kinds = Config::KINDS
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(expected_kinds.starts_with(
        "`https`, `redis_stream`, `nats_jetstream`, `rabbitmq`, `mqtt`, `kafka`, `s3`"
    ));
    let cases = [
        (
            json!({"kind": "ftp", "url": "ftp://x"}),
            format!("unknown variant `ftp`, expected one of {expected_kinds}"),
        ),
        (
            json!({"url": "https://x"}),
            "missing field `kind`".to_string(),
        ),
        (
            json!("https://x"),
            "invalid type: string \"https://x\", expected internally tagged enum Destination"
                .to_string(),
        ),
        (
            json!({"kind": "https", "url": "https://x", "colour": 1}),
            "unknown field `colour`, expected one of `url`, `auth`, `headers`, `a2a_push`"
                .to_string(),
        ),
        (json!({"kind": "https"}), "missing field `url`".to_string()),
        (
            json!({"kind": "redis_stream", "host": "h", "stream": "s", "port": 70000}),
            "invalid value: integer `70000`, expected u16".to_string(),
        ),
    ];
    for (value, message) in cases {
        assert_eq!(read(value.clone()), Err(message), "{value}");
    }
}

#[test]
fn a_stored_destination_of_no_known_kind_does_not_read() {
    let stored: Destination =
        serde_json::from_str(r#"{"kind":"carrier_pigeon","loft":"north"}"#).unwrap();
    assert_eq!(stored.kind(), "carrier_pigeon");
    let e = Config::try_from(&stored).unwrap_err().to_string();
    assert!(e.starts_with("unknown variant `carrier_pigeon`"), "{e}");
    // Not an object with a kind: not a destination at all.
    for bad in [r#""https""#, r#"{"url":"https://x"}"#, r#"{"kind":5}"#] {
        assert!(serde_json::from_str::<Destination>(bad).is_err(), "{bad}");
    }
}

#[test]
fn content_modes_are_the_kinds() {
    let https = read(json!({"kind": "https", "url": "https://x"})).unwrap();
    assert_eq!(
        https.content_mode(),
        relay_core::model::ContentMode::Structured
    );
    assert!(
        https
            .clone()
            .with_content_mode(relay_core::model::ContentMode::Binary)
            .is_none()
    );
    let redis = read(json!({"kind": "redis_stream", "host": "h", "stream": "s"})).unwrap();
    let binary = redis
        .with_content_mode(relay_core::model::ContentMode::Binary)
        .unwrap();
    assert_eq!(
        binary.content_mode(),
        relay_core::model::ContentMode::Binary
    );
    assert!(
        Destination::from(&binary)
            .json()
            .contains(r#""content_mode":"binary""#)
    );
}
