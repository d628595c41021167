use relay_core::model::HttpsHeader;
use relay_core::secret::SecretRef;

use super::*;

fn value(name: &str, value: &str) -> HttpsHeader {
    HttpsHeader {
        name: name.into(),
        value: Some(value.into()),
        secret: None,
    }
}

fn secret(name: &str) -> HttpsHeader {
    HttpsHeader {
        name: name.into(),
        value: None,
        secret: Some(SecretRef::Secret("api-token".into())),
    }
}

fn code(headers: &[HttpsHeader]) -> Option<&'static str> {
    check(headers).err().map(|e| {
        assert_eq!(e.pointer, "/destination/headers");
        e.code
    })
}

#[test]
fn the_table() {
    let long_value = "v".repeat(MAX_VALUE);
    let too_long_value = "v".repeat(MAX_VALUE + 1);
    let long_name = "n".repeat(MAX_NAME);
    let too_long_name = "n".repeat(MAX_NAME + 1);
    let cases: Vec<(Vec<HttpsHeader>, Option<&str>)> = vec![
        (vec![], None),
        (vec![value("X-Tenant", "acme")], None),
        (vec![value("x-api-key", "a b=c;d")], None),
        (vec![secret("Authorization")], None),
        (vec![value("X-Empty", "")], None),
        (vec![value(&long_name, &long_value)], None),
        (vec![value("!#$%&'*+-.^_`|~09aZ", "x")], None),
        // Names.
        (vec![value("", "x")], Some("invalid_header_name")),
        (vec![value("X Tenant", "x")], Some("invalid_header_name")),
        (vec![value("X-Tenant:", "x")], Some("invalid_header_name")),
        (vec![value("X-Ténant", "x")], Some("invalid_header_name")),
        (vec![value("X-(a)", "x")], Some("invalid_header_name")),
        (
            vec![value(&too_long_name, "x")],
            Some("invalid_header_name"),
        ),
        // Reserved, any case.
        (vec![value("Host", "x")], Some("reserved_header")),
        (vec![value("content-type", "x")], Some("reserved_header")),
        (vec![value("Content-Length", "1")], Some("reserved_header")),
        (
            vec![value("Content-Encoding", "gzip")],
            Some("reserved_header"),
        ),
        (
            vec![value("Transfer-Encoding", "chunked")],
            Some("reserved_header"),
        ),
        (vec![value("Connection", "close")], Some("reserved_header")),
        (vec![value("TE", "trailers")], Some("reserved_header")),
        (vec![value("Upgrade", "h2c")], Some("reserved_header")),
        (
            vec![value("Proxy-Authorization", "x")],
            Some("reserved_header"),
        ),
        (vec![value("webhook-id", "x")], Some("reserved_header")),
        (
            vec![value("Webhook-Timestamp", "1")],
            Some("reserved_header"),
        ),
        (vec![secret("WEBHOOK-SIGNATURE")], Some("reserved_header")),
        (
            vec![value("webhook-anything", "x")],
            Some("reserved_header"),
        ),
        (
            vec![value("relay-event-type", "x")],
            Some("reserved_header"),
        ),
        (vec![value("Relay-Attempt", "9")], Some("reserved_header")),
        // Values.
        (
            vec![value("X-A", &too_long_value)],
            Some("invalid_header_value"),
        ),
        (
            vec![value("X-A", "a\r\nX-B: b")],
            Some("invalid_header_value"),
        ),
        (vec![value("X-A", "a\0")], Some("invalid_header_value")),
        (
            vec![value("X-A", "tab\there")],
            Some("invalid_header_value"),
        ),
        (vec![value("X-A", "é")], Some("invalid_header_value")),
        (vec![value("X-A", " lead")], Some("invalid_header_value")),
        (vec![value("X-A", "trail ")], Some("invalid_header_value")),
        (
            vec![HttpsHeader {
                name: "X-A".into(),
                value: None,
                secret: None,
            }],
            Some("invalid_header_value"),
        ),
        (
            vec![HttpsHeader {
                name: "X-A".into(),
                value: Some("x".into()),
                secret: Some(SecretRef::Env("RELAY_X".into())),
            }],
            Some("invalid_header_value"),
        ),
        // Duplicates, ignoring case.
        (
            vec![value("X-A", "1"), secret("x-a")],
            Some("duplicate_header"),
        ),
        // Count.
        (
            (0..MAX_HEADERS)
                .map(|i| value(&format!("X-{i}"), "x"))
                .collect(),
            None,
        ),
        (
            (0..=MAX_HEADERS)
                .map(|i| value(&format!("X-{i}"), "x"))
                .collect(),
            Some("too_many_headers"),
        ),
    ];
    for (headers, want) in cases {
        assert_eq!(code(&headers), want, "{headers:?}");
    }
}

#[test]
fn messages_never_repeat_a_value() {
    let e = check(&[value("X-A", "hunter2\n")]).unwrap_err();
    assert!(!e.message.contains("hunter2"), "{}", e.message);
}

#[test]
fn a_resolved_value_follows_the_same_rule() {
    assert!(valid_value(b"Bearer abc.def"));
    assert!(!valid_value(b"Bearer abc\n"));
    assert!(!valid_value(&[b'a'; MAX_VALUE + 1]));
    assert!(!valid_value(&[0xff]));
}
