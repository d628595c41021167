//! The key's reading and the assertion, against a key made for these
//! tests (`pubsub/testdata/unit-test-key.json`: an RSA 2048 key generated
//! with `openssl genpkey` in Google's JSON key layout; it belongs to no
//! account). The compliance test (`relay-compliance/tests/pubsub.rs`) has
//! the assertion judged by `google-auth` with a key made at test time.

use base64::Engine as _;
use ring::signature::{KeyPair as _, RSA_PKCS1_2048_8192_SHA256, UnparsedPublicKey};

use super::*;

const KEY: &str = include_str!("../testdata/unit-test-key.json");

fn b64(s: &str) -> Vec<u8> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s)
        .unwrap()
}

#[test]
fn a_key_file_reads() {
    let a = ServiceAccount::parse(KEY.as_bytes()).unwrap();
    assert_eq!(
        a.client_email,
        "relay-unit@relay-test.iam.gserviceaccount.com"
    );
    assert_eq!(
        a.private_key_id.as_deref(),
        Some("0123456789abcdef0123456789abcdef01234567")
    );
    assert_eq!(
        a.token_uri.as_deref(),
        Some("https://oauth2.googleapis.com/token")
    );
    let shown = format!("{a:?}");
    assert!(shown.contains("relay-unit@") && !shown.contains("PRIVATE KEY"));
}

/// The assertion is an RS256 JWT over Google's claims, and its signature
/// verifies with the key's public half.
#[test]
fn the_assertion_is_a_signed_jwt() {
    let a = ServiceAccount::parse(KEY.as_bytes()).unwrap();
    let now = Timestamp::from_millis(1_800_000_000_999);
    let jwt = a
        .assertion("https://oauth2.googleapis.com/token", now)
        .unwrap();
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3);
    let header: serde_json::Value = serde_json::from_slice(&b64(parts[0])).unwrap();
    assert_eq!(
        header,
        serde_json::json!({"alg": "RS256", "typ": "JWT", "kid": "0123456789abcdef0123456789abcdef01234567"})
    );
    let claims: serde_json::Value = serde_json::from_slice(&b64(parts[1])).unwrap();
    assert_eq!(
        claims,
        serde_json::json!({
            "iss": "relay-unit@relay-test.iam.gserviceaccount.com",
            "scope": SCOPE,
            "aud": "https://oauth2.googleapis.com/token",
            "iat": 1_800_000_000i64,
            "exp": 1_800_003_600i64,
        })
    );
    let public = UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, a.key.public_key().as_ref());
    let signed = format!("{}.{}", parts[0], parts[1]);
    public
        .verify(signed.as_bytes(), &b64(parts[2]))
        .expect("the signature verifies");
    assert!(
        public
            .verify(format!("{signed}x").as_bytes(), &b64(parts[2]))
            .is_err()
    );
}

/// The token request is the JWT bearer grant's form; the assertion is
/// what an answer's text is cleaned of.
#[test]
fn the_token_request() {
    let grant = JwtBearer {
        account: Arc::new(ServiceAccount::parse(KEY.as_bytes()).unwrap()),
        token_url: "https://oauth2.googleapis.com/token".into(),
    };
    let r = grant.request(Timestamp::from_millis(0)).unwrap();
    let form: Vec<(String, String)> = form_urlencoded::parse(&r.body).into_owned().collect();
    assert_eq!(form[0], ("grant_type".into(), GRANT_TYPE.into()));
    assert_eq!(form[1].0, "assertion");
    assert_eq!(form[1].1.as_bytes(), r.secret.expose());
    assert_eq!(
        r.headers[0].1,
        HeaderValue::from_static("application/x-www-form-urlencoded")
    );
    let shown = format!("{grant:?}");
    assert!(!shown.contains("PRIVATE") && !shown.contains(&form[1].1));
}

/// A key that cannot be used is refused with a fixed text that shows
/// nothing of it.
#[test]
fn unusable_keys_are_refused_without_their_content() {
    let v: serde_json::Value = serde_json::from_str(KEY).unwrap();
    let with = |k: &str, x: serde_json::Value| {
        let mut v = v.clone();
        v[k] = x;
        v.to_string()
    };
    let pem = v["private_key"].as_str().unwrap();
    let broken_pem = pem.replace("MII", "XXX");
    let ec = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n";
    for bad in [
        "not json".to_string(),
        with("type", "authorized_user".into()),
        with("client_email", serde_json::Value::Null),
        with("private_key", serde_json::Value::Null),
        with("private_key", broken_pem.clone().into()),
        with("private_key", ec.into()),
        with("private_key", "-----BEGIN RSA PRIVATE KEY-----".into()),
    ] {
        let e = ServiceAccount::parse(bad.as_bytes()).unwrap_err();
        assert!(!e.contains("MII") && !e.contains("XXX"), "{e}");
    }
}
