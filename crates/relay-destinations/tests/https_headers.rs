//! An HTTPS endpoint's custom headers: refused at registration through the
//! kind's check, listed as secret references, and built into a client whose
//! `Debug` never shows a value (the A2A push profile's headers too).

use std::sync::Arc;

use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::Config;
use relay_destinations::Kind as _;
use relay_destinations::https::Https;
use relay_destinations::https::{HttpsDestination, HttpsHeader};
use relay_destinations::{Shared, build, validate};
use relay_net::{Guard, HttpsClient, OutboundConfig, StaticResolver};

const TOKEN: &str = "Bearer s3cr3t-t0k3n";

fn guard() -> Guard {
    let config = OutboundConfig {
        allow_ports: vec![],
        allow_cidrs: vec![],
        block_cidrs: vec![],
        extra_ca_certs: vec![],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new().with("hooks.example", ["8.8.8.8".parse().unwrap()]);
    Guard::with_resolver(&config, Arc::new(resolver)).unwrap()
}

fn token_ref() -> SecretRef {
    SecretRef::Secret("hook-token".into())
}

fn config(headers: Vec<HttpsHeader>) -> HttpsDestination {
    HttpsDestination {
        a2a_push: None,
        url: "https://hooks.example/in".into(),
        auth: None,
        headers,
    }
}

fn headers() -> Vec<HttpsHeader> {
    vec![
        HttpsHeader {
            name: "X-Tenant".into(),
            value: Some("acme".into()),
            secret: None,
        },
        HttpsHeader {
            name: "Authorization".into(),
            value: None,
            secret: Some(token_ref()),
        },
    ]
}

fn shared() -> Shared {
    Shared {
        https: HttpsClient::new(guard()),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    }
}

#[tokio::test]
async fn registration_checks_the_headers_before_the_url() {
    let ok = Config::Https(config(headers()));
    assert_eq!(validate(&ok, &guard()).await, Ok(()));
    let mut reserved = headers();
    reserved[0].name = "Webhook-Signature".into();
    let e = validate(&Config::Https(config(reserved)), &guard())
        .await
        .unwrap_err();
    assert_eq!(
        (e.code, e.pointer),
        ("reserved_header", "/destination/headers")
    );
}

#[test]
fn the_secret_references_are_listed_for_the_engine() {
    let d = Config::Https(config(headers()));
    assert_eq!(
        d.secret_refs(),
        vec![("/destination/headers", &token_ref())]
    );
}

#[test]
fn the_stored_form_has_the_reference_never_a_value() {
    let d = Config::Https(config(headers()));
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(
        json["headers"],
        serde_json::json!([
            {"name": "X-Tenant", "value": "acme"},
            {"name": "Authorization", "secret": "secret:hook-token"}
        ])
    );
    // No headers: the stored form is what it was before headers existed.
    let bare = serde_json::to_value(Config::Https(config(vec![]))).unwrap();
    assert_eq!(
        bare,
        serde_json::json!({"kind": "https", "url": "https://hooks.example/in", "auth": null})
    );
    assert_eq!(
        serde_json::from_value::<Config>(bare).unwrap(),
        Config::Https(config(vec![]))
    );
}

#[test]
fn a_client_is_built_only_from_a_resolved_valid_value() {
    let d = Config::Https(config(headers()));
    assert!(build(&d, &shared(), &Secrets::new()).is_err(), "unresolved");
    for bad in ["Bearer x\r\nHost: evil", " lead", "é"] {
        let mut s = Secrets::new();
        s.insert(token_ref(), SecretValue::from(bad));
        let e = build(&d, &shared(), &s).err().expect("refused");
        assert!(
            !e.to_string().contains(bad),
            "the error names the reference only"
        );
    }
    let mut s = Secrets::new();
    s.insert(token_ref(), SecretValue::from(TOKEN));
    assert!(build(&d, &shared(), &s).is_ok());
}

#[test]
fn the_client_debug_names_headers_never_values() {
    let mut s = Secrets::new();
    s.insert(token_ref(), SecretValue::from(TOKEN));
    let client = Https::build(&config(headers()), &shared(), &s).unwrap();
    let debug = format!("{client:?}");
    assert!(debug.contains("authorization"), "{debug}");
    assert!(!debug.contains("s3cr3t"), "{debug}");
    assert!(!debug.contains("acme"), "{debug}");
}

#[test]
fn an_a2a_push_clients_debug_names_its_headers_never_their_values() {
    let d: HttpsDestination = serde_json::from_value(serde_json::json!({
        "url": "https://hooks.example/in",
        "a2a_push": {"task_id": "task-1", "token": "secret:a2a-token",
            "authentication": {"scheme": "Bearer", "credentials": "secret:a2a-cred"}}
    }))
    .unwrap();
    let mut s = Secrets::new();
    s.insert(
        SecretRef::Secret("a2a-token".into()),
        SecretValue::from("n0tif-t0ken"),
    );
    s.insert(
        SecretRef::Secret("a2a-cred".into()),
        SecretValue::from("cr3d-valu3"),
    );
    let client = Https::build(&d, &shared(), &s).unwrap();
    let debug = format!("{client:?} {d:?}");
    assert!(debug.contains("x-a2a-notification-token"), "{debug}");
    assert!(debug.contains("authorization"), "{debug}");
    assert!(!debug.contains("n0tif-t0ken"), "{debug}");
    assert!(!debug.contains("cr3d-valu3"), "{debug}");
    // The configuration's Debug shows the references, which are no secret.
    assert!(debug.contains("a2a-cred"), "{debug}");
}
