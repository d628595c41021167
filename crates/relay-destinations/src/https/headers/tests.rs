use crate::https::HttpsHeader;
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
        (vec![value("x-note", "a b=c;d")], None),
        (vec![secret("x-api-key")], None),
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

/// Headers that carry credentials are accepted only as secret references:
/// a literal value would be stored in clear and shown in endpoint reads.
#[test]
fn a_credential_header_is_a_secret_reference_never_a_literal() {
    let credentials = [
        "Authorization",
        "authorization",
        "AUTHORIZATION",
        "Cookie",
        "Set-Cookie",
        "X-Api-Key",
        "Api-Key",
        "X-Auth-Token",
        "X-Amz-Security-Token",
        "Private-Token",
        "X-Webhook-Token",
        "X-Client-Secret",
        "X-Password",
        "X-Custom-Auth",
        "X-Auth-Key",
        "Ocp-Apim-Subscription-Key",
        "X-Forwarded-Authorization",
    ];
    for name in credentials {
        assert!(carries_credentials(name), "{name}");
        assert_eq!(
            code(&[value(name, "Bearer hunter2")]),
            Some("credential_header_literal"),
            "{name}"
        );
        assert_eq!(code(&[secret(name)]), None, "{name}");
        let e = check(&[value(name, "Bearer hunter2")]).unwrap_err();
        assert!(!e.message.contains("hunter2"), "{}", e.message);
        assert!(e.message.contains(name), "{}", e.message);
    }
    for name in [
        "X-Tenant",
        "X-Request-Id",
        "Accept",
        "User-Agent",
        "X-Author",
        "X-Oauth-Scope",
    ] {
        assert!(!carries_credentials(name), "{name}");
        assert_eq!(code(&[value(name, "x")]), None, "{name}");
    }
    // Proxy-Authorization is refused before that, as a reserved name.
    assert_eq!(
        code(&[value("Proxy-Authorization", "x")]),
        Some("reserved_header")
    );
}

/// A literal credential stored before the rule is never shown by a read;
/// other headers and references are shown as they are.
#[test]
fn reads_redact_stored_literal_credentials() {
    let mut headers = vec![
        value("Authorization", "Bearer hunter2"),
        value("X-Tenant", "acme"),
        secret("X-Api-Key"),
    ];
    redact_literal_credentials(&mut headers);
    assert_eq!(headers[0].value.as_deref(), Some(REDACTED));
    assert_eq!(headers[1].value.as_deref(), Some("acme"));
    assert_eq!(headers[2].value, None);
    assert!(headers[2].secret.is_some());
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
