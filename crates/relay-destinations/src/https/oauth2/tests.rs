use crate::https::{ClientAuthMethod, HttpsHeader, OAuth2ClientCredentials};
use relay_core::outcome::{OAuthError, TokenFailure};
use relay_core::secret::SecretRef;
use relay_core::time::Timestamp;

use super::*;

fn config() -> OAuth2ClientCredentials {
    OAuth2ClientCredentials {
        token_url: "https://auth.example/oauth/token".into(),
        client_id: "relay client".into(),
        client_secret: SecretRef::Secret("oauth".into()),
        scopes: vec!["events:write".into(), "hooks".into()],
        audience: Some("https://api.example".into()),
        method: ClientAuthMethod::ClientSecretBasic,
    }
}

fn header(name: &str) -> HttpsHeader {
    HttpsHeader {
        name: name.into(),
        value: Some("x".into()),
        secret: None,
    }
}

#[test]
fn the_configuration_check_table() {
    type Change = fn(&mut OAuth2ClientCredentials);
    type Expected = Option<(&'static str, &'static str)>;
    let cases: &[(&str, Change, Expected)] = &[
        ("as is", |_| {}, None),
        (
            "no scopes, no audience",
            |c| {
                c.scopes.clear();
                c.audience = None;
            },
            None,
        ),
        (
            "empty client id",
            |c| c.client_id.clear(),
            Some(("invalid_client_id", "/destination/auth/oauth2/client_id")),
        ),
        (
            "client id with a control character",
            |c| c.client_id = "a\nb".into(),
            Some(("invalid_client_id", "/destination/auth/oauth2/client_id")),
        ),
        (
            "client id not ASCII",
            |c| c.client_id = "clé".into(),
            Some(("invalid_client_id", "/destination/auth/oauth2/client_id")),
        ),
        (
            "client id too long",
            |c| c.client_id = "a".repeat(MAX_CLIENT_ID + 1),
            Some(("invalid_client_id", "/destination/auth/oauth2/client_id")),
        ),
        (
            "client id at the limit",
            |c| c.client_id = "a".repeat(MAX_CLIENT_ID),
            None,
        ),
        (
            "scope with a space",
            |c| c.scopes = vec!["a b".into()],
            Some(("invalid_scope", "/destination/auth/oauth2/scopes")),
        ),
        (
            "scope with a quote",
            |c| c.scopes = vec!["a\"b".into()],
            Some(("invalid_scope", "/destination/auth/oauth2/scopes")),
        ),
        (
            "scope with a backslash",
            |c| c.scopes = vec!["a\\b".into()],
            Some(("invalid_scope", "/destination/auth/oauth2/scopes")),
        ),
        (
            "empty scope",
            |c| c.scopes = vec![String::new()],
            Some(("invalid_scope", "/destination/auth/oauth2/scopes")),
        ),
        (
            "scope too long",
            |c| c.scopes = vec!["s".repeat(MAX_SCOPE + 1)],
            Some(("invalid_scope", "/destination/auth/oauth2/scopes")),
        ),
        (
            "scope twice",
            |c| c.scopes = vec!["a".into(), "a".into()],
            Some(("invalid_scope", "/destination/auth/oauth2/scopes")),
        ),
        (
            "too many scopes",
            |c| c.scopes = (0..=MAX_SCOPES).map(|i| format!("s{i}")).collect(),
            Some(("invalid_scope", "/destination/auth/oauth2/scopes")),
        ),
        (
            "the most scopes",
            |c| c.scopes = (0..MAX_SCOPES).map(|i| format!("s{i}")).collect(),
            None,
        ),
        (
            "empty audience",
            |c| c.audience = Some(String::new()),
            Some(("invalid_audience", "/destination/auth/oauth2/audience")),
        ),
        (
            "audience with a trailing space",
            |c| c.audience = Some("a ".into()),
            Some(("invalid_audience", "/destination/auth/oauth2/audience")),
        ),
        (
            "audience with a tab",
            |c| c.audience = Some("a\tb".into()),
            Some(("invalid_audience", "/destination/auth/oauth2/audience")),
        ),
        (
            "audience too long",
            |c| c.audience = Some("a".repeat(MAX_AUDIENCE + 1)),
            Some(("invalid_audience", "/destination/auth/oauth2/audience")),
        ),
        (
            "token URL too long",
            |c| c.token_url = format!("https://a.example/{}", "p".repeat(MAX_TOKEN_URL)),
            Some(("invalid_token_url", "/destination/auth/oauth2/token_url")),
        ),
    ];
    for (name, change, expected) in cases {
        let mut c = config();
        change(&mut c);
        let got = check(&c, &[]).err().map(|e| (e.code, e.pointer));
        assert_eq!(got, *expected, "{name}");
    }
}

#[test]
fn a_custom_authorization_header_conflicts_with_oauth2() {
    let e = check(&config(), &[header("X-Tenant"), header("authorization")]).unwrap_err();
    assert_eq!(
        (e.code, e.pointer),
        ("authorization_header_conflict", "/destination/headers")
    );
    assert!(check(&config(), &[header("X-Tenant")]).is_ok());
}

fn form(body: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(body).into_owned().collect()
}

fn header_value<'a>(
    headers: &'a [(HeaderName, HeaderValue)],
    name: &str,
) -> Option<&'a HeaderValue> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

#[test]
fn client_secret_basic_form_urlencodes_the_id_and_secret_before_base64() {
    use base64::Engine as _;
    let secret = b"s3cr:t&+ %";
    let (headers, body) = token_request(&config(), secret);
    assert_eq!(
        form(&body),
        vec![
            ("grant_type".into(), "client_credentials".into()),
            ("scope".into(), "events:write hooks".into()),
            ("audience".into(), "https://api.example".into()),
        ]
    );
    let auth = header_value(&headers, "authorization").expect("basic authorization");
    assert!(auth.is_sensitive());
    let encoded = auth.to_str().unwrap().strip_prefix("Basic ").unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    // RFC 6749 §2.3.1 and appendix B: each part form-urlencoded.
    assert_eq!(
        String::from_utf8(decoded).unwrap(),
        "relay+client:s3cr%3At%26%2B+%25"
    );
    assert_eq!(
        header_value(&headers, "content-type").unwrap(),
        "application/x-www-form-urlencoded"
    );
    assert!(!String::from_utf8_lossy(&body).contains("s3cr"));
}

#[test]
fn client_secret_post_puts_both_in_the_form() {
    let mut c = config();
    c.method = ClientAuthMethod::ClientSecretPost;
    c.scopes.clear();
    c.audience = None;
    let (headers, body) = token_request(&c, b"s3cr:t&+ %");
    assert!(header_value(&headers, "authorization").is_none());
    assert_eq!(
        form(&body),
        vec![
            ("grant_type".into(), "client_credentials".into()),
            ("client_id".into(), "relay client".into()),
            ("client_secret".into(), "s3cr:t&+ %".into()),
        ]
    );
}

const SECRET: &[u8] = b"top-secret-value";

#[test]
fn a_token_answer_is_read() {
    let ok = |body: &str| read_answer(200, body.as_bytes(), false, SECRET);
    let t =
        ok(r#"{"access_token":"abc.def-ghi","token_type":"Bearer","expires_in":3600}"#).unwrap();
    assert_eq!(t.authorization, "Bearer abc.def-ghi");
    assert!(t.authorization.is_sensitive());
    assert_eq!(t.expires_in, Some(3600));
    assert!(!format!("{t:?}").contains("abc.def"));
    let t = ok(r#"{"access_token":"x","token_type":"bearer","expires_in":"60"}"#).unwrap();
    assert_eq!(t.expires_in, Some(60));
    let t = ok(r#"{"access_token":"x"}"#).unwrap();
    assert_eq!(t.expires_in, None);
    let invalid = [
        r#"{"access_token":"x","token_type":"mac"}"#,
        r#"{"access_token":"","token_type":"Bearer"}"#,
        r#"{"access_token":"a b","token_type":"Bearer"}"#,
        r#"{"access_token":42}"#,
        r#"{"token_type":"Bearer"}"#,
        r#"{"access_token":"x","expires_in":-5}"#,
        r#"{"access_token":"x","expires_in":"soon"}"#,
        r#"["access_token"]"#,
        "not json",
    ];
    for body in invalid {
        let e = ok(body).unwrap_err();
        assert_eq!(e.failure, TokenFailure::InvalidResponse, "{body}");
        assert_eq!(e.status, Some(200));
    }
    let truncated = read_answer(200, br#"{"access_token":"x"}"#, true, SECRET).unwrap_err();
    assert_eq!(truncated.failure, TokenFailure::InvalidResponse);
}

#[test]
fn an_error_answer_keeps_its_code_and_a_bounded_clean_description() {
    let e = read_answer(
        401,
        br#"{"error":"invalid_client","error_description":"bad secret top-secret-value for client"}"#,
        false,
        SECRET,
    )
    .unwrap_err();
    assert_eq!(e.failure, TokenFailure::OAuth(OAuthError::InvalidClient));
    assert_eq!(e.status, Some(401));
    assert_eq!(e.error.as_deref(), Some("invalid_client"));
    assert_eq!(
        e.description.as_deref(),
        Some("bad secret [redacted] for client")
    );
    let e = read_answer(400, br#"{"error":"invalid_scope"}"#, false, SECRET).unwrap_err();
    assert_eq!(e.failure, TokenFailure::OAuth(OAuthError::InvalidScope));
    assert_eq!(e.description, None);
    // An extension code is kept as sent; a description outside RFC 6749's
    // characters is dropped; a long one is cut.
    let e = read_answer(
        400,
        "{\"error\":\"slow_down\",\"error_description\":\"caf\u{e9}\"}".as_bytes(),
        false,
        SECRET,
    )
    .unwrap_err();
    assert_eq!(e.failure, TokenFailure::OAuth(OAuthError::Other));
    assert_eq!(e.error.as_deref(), Some("slow_down"));
    assert_eq!(e.description, None);
    let long = format!(
        r#"{{"error":"invalid_request","error_description":"{}"}}"#,
        "d".repeat(1000)
    );
    let e = read_answer(400, long.as_bytes(), false, SECRET).unwrap_err();
    assert_eq!(e.description.map(|d| d.len()), Some(MAX_DESCRIPTION));
    // No usable code: the status.
    for (status, body) in [
        (503, "busy"),
        (500, r#"{"error":42}"#),
        (404, r#"{"error":"not a code"}"#),
        (302, ""),
    ] {
        let e = read_answer(status, body.as_bytes(), false, SECRET).unwrap_err();
        assert_eq!(
            e.failure,
            TokenFailure::HttpStatus(status),
            "{status} {body}"
        );
        assert_eq!(e.error, None);
    }
    let detail = read_answer(401, br#"{"error":"invalid_client"}"#, false, SECRET)
        .unwrap_err()
        .detail(true);
    assert_eq!(detail["failure"], "token_invalid_client");
    assert_eq!(detail["status_code"], 401);
    assert_eq!(detail["after_endpoint_401"], true);
}

#[test]
fn tokens_are_fetched_again_shortly_before_they_expire() {
    let t0 = Timestamp::from_millis(1_000_000);
    let at = |expires_in| refresh_at(t0, expires_in).millis() - t0.millis();
    // The earlier of 60 s and a tenth of the lifetime before it ends.
    assert_eq!(at(Some(3600)), 3_540_000);
    assert_eq!(at(Some(600)), 540_000);
    assert_eq!(at(Some(300)), 270_000);
    assert_eq!(at(Some(10)), 9_000);
    assert_eq!(at(Some(1)), 900);
    assert_eq!(at(Some(0)), 0);
    // No lifetime: the default; a very long one: a day at most.
    assert_eq!(at(None), 270_000);
    assert_eq!(at(Some(u64::MAX)), 86_340_000);
}
