//! The A2A push profile's registration checks and headers, table-tested.

use relay_core::secret::{SecretRef, SecretValue, Secrets};
use serde_json::{Value, json};

use super::*;

fn config(v: Value) -> HttpsDestination {
    serde_json::from_value(v).expect("an HTTPS destination")
}

fn a2a(extra: Value) -> Value {
    let mut d = json!({"url": "https://client.example/push",
        "a2a_push": {"task_id": "task-1", "token": "secret:tok",
                     "authentication": {"scheme": "Bearer", "credentials": "secret:cred"}}});
    if let (Value::Object(d), Value::Object(e)) = (&mut d, extra) {
        d.extend(e);
    }
    d
}

fn r(s: &str) -> SecretRef {
    SecretRef::parse(s).unwrap()
}

/// A refusal's code and pointer; `None`: accepted.
type Refusal = Option<(&'static str, &'static str)>;

#[test]
fn registration_refuses_what_every_delivery_could_not_carry() {
    let long = "t".repeat(256);
    let cases: Vec<(&str, Value, Refusal)> = vec![
        ("the profile", a2a(json!({})), None),
        (
            "no credentials at all",
            json!({"url": "https://c.example/", "a2a_push": {"task_id": "t"}}),
            None,
        ),
        ("no profile", json!({"url": "https://c.example/"}), None),
        (
            "empty task",
            a2a(json!({"a2a_push": {"task_id": ""}})),
            Some(("validation_failed", "/destination/a2a_push/task_id")),
        ),
        (
            "long task",
            a2a(json!({"a2a_push": {"task_id": long}})),
            Some(("validation_failed", "/destination/a2a_push/task_id")),
        ),
        (
            "control in task",
            a2a(json!({"a2a_push": {"task_id": "a\nb"}})),
            Some(("validation_failed", "/destination/a2a_push/task_id")),
        ),
        (
            "scheme with a space",
            a2a(
                json!({"a2a_push": {"task_id": "t", "authentication": {"scheme": "Bear er", "credentials": "secret:c"}}}),
            ),
            Some((
                "validation_failed",
                "/destination/a2a_push/authentication/scheme",
            )),
        ),
        (
            "empty scheme",
            a2a(
                json!({"a2a_push": {"task_id": "t", "authentication": {"scheme": "", "credentials": "secret:c"}}}),
            ),
            Some((
                "validation_failed",
                "/destination/a2a_push/authentication/scheme",
            )),
        ),
        (
            "a custom token header",
            a2a(json!({"headers": [{"name": "X-A2A-Notification-Token", "value": "x"}]})),
            Some(("reserved_header", "/destination/headers")),
        ),
        (
            "a custom Authorization",
            a2a(json!({"headers": [{"name": "authorization", "secret": "secret:other"}]})),
            Some(("reserved_header", "/destination/headers")),
        ),
        (
            "Authorization without A2A authentication",
            json!({"url": "https://c.example/",
            "headers": [{"name": "authorization", "secret": "secret:other"}], "a2a_push": {"task_id": "t"}}),
            None,
        ),
        (
            "OAuth 2.0 too",
            a2a(
                json!({"auth": {"oauth2": {"token_url": "https://idp.example/token",
            "client_id": "c", "client_secret": "secret:s"}}}),
            ),
            Some((
                "conflicting_authorization",
                "/destination/a2a_push/authentication",
            )),
        ),
    ];
    for (name, v, want) in cases {
        let got = check(&config(v)).err().map(|e| (e.code, e.pointer));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn unknown_members_are_not_a_configuration() {
    for v in [
        a2a(json!({"a2a_push": {"task_id": "t", "url": "https://x.example/"}})),
        a2a(json!({"a2a_push": {"taskId": "t"}})),
        a2a(
            json!({"a2a_push": {"task_id": "t", "authentication": {"schemes": ["Bearer"], "credentials": "secret:c"}}}),
        ),
        a2a(json!({"a2a_push": {"task_id": "t", "token": "literal-token"}})),
        a2a(json!({"a2a_push": {"task_id": "t", "authentication": {"scheme": "Bearer"}}})),
    ] {
        assert!(
            serde_json::from_value::<HttpsDestination>(v.clone()).is_err(),
            "accepted {v}"
        );
    }
}

#[test]
fn secret_references_are_the_token_and_the_credentials() {
    let c = config(a2a(json!({})));
    let refs: Vec<(&str, String)> = secret_refs(&c)
        .into_iter()
        .map(|(p, r)| (p, r.to_string()))
        .collect();
    assert_eq!(
        refs,
        vec![
            ("/destination/a2a_push/token", "secret:tok".to_string()),
            (
                "/destination/a2a_push/authentication/credentials",
                "secret:cred".to_string()
            ),
        ]
    );
}

fn secrets(token: &str, credentials: &str) -> Secrets {
    let mut s = Secrets::new();
    s.insert(r("secret:tok"), SecretValue::from(token));
    s.insert(r("secret:cred"), SecretValue::from(credentials));
    s
}

#[test]
fn resolved_values_must_be_header_values() {
    let c = config(a2a(json!({})));
    let long = "c".repeat(1020);
    let cases: Vec<(&str, Secrets, Option<&str>)> = vec![
        ("fine", secrets("tok-1", "abc.def"), None),
        (
            "token with a newline",
            secrets("a\nb", "abc"),
            Some("/destination/a2a_push/token"),
        ),
        (
            "empty token",
            secrets("", "abc"),
            Some("/destination/a2a_push/token"),
        ),
        (
            "credentials with a trailing space",
            secrets("t", "abc "),
            Some("/destination/a2a_push/authentication/credentials"),
        ),
        (
            "credentials too long with the scheme",
            secrets("t", &long),
            Some("/destination/a2a_push/authentication/credentials"),
        ),
        (
            "non-ASCII credentials",
            secrets("t", "ünï"),
            Some("/destination/a2a_push/authentication/credentials"),
        ),
    ];
    for (name, s, want) in cases {
        let got = check_values(&c, &s).err();
        assert_eq!(got.as_ref().map(|e| e.pointer), want, "{name}");
        if let Some(e) = got {
            assert_eq!(e.code, "invalid_secret_value", "{name}");
            assert!(!e.message.contains("abc"), "{name}: a value in {e:?}");
        }
    }
}

#[test]
fn headers_are_the_authorization_and_the_token_marked_sensitive() {
    let c = config(a2a(json!({})));
    let h = request_headers(&c, &secrets("tok-1", "abc.def")).unwrap();
    let pairs: Vec<(&str, &[u8], bool)> = h
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_bytes(), v.is_sensitive()))
        .collect();
    assert_eq!(
        pairs,
        vec![
            ("authorization", b"Bearer abc.def".as_slice(), true),
            ("x-a2a-notification-token", b"tok-1".as_slice(), true),
        ]
    );
    // A value that stopped being a header value builds no client.
    assert!(request_headers(&c, &secrets("a\nb", "abc")).is_err());
    assert!(request_headers(&c, &Secrets::new()).is_err());
    let none = config(json!({"url": "https://c.example/", "a2a_push": {"task_id": "t"}}));
    assert!(request_headers(&none, &Secrets::new()).unwrap().is_empty());
}
