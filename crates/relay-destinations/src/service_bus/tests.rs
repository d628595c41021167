//! The kind's parts that need no peer: connection strings refused
//! wherever they are, secrets out of `Debug` and records, what is
//! counted. (Against the judge that recomputes the SAS signature:
//! relay-compliance's `tests/service_bus.rs`.)

use relay_core::model::ContentMode;
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig};

use super::*;
use crate::test_message::prepared;

const KEY: &str = "c2VjcmV0LWtleS1mb3ItdGVzdHM9PQ==";
const CONNECTION_STRING: &str = "Endpoint=sb://acme-prod.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=c2VjcmV0LWtleS1mb3ItdGVzdHM9PQ==";

fn destination() -> ServiceBusDestination {
    ServiceBusDestination {
        namespace: None,
        endpoint: Some("https://127.0.0.1:9".into()),
        entity: "orders".into(),
        auth: ServiceBusAuth::Sas(SasKey {
            key_name: "RootManageSharedAccessKey".into(),
            key: SecretRef::Secret("sb".into()),
        }),
        sessions: true,
        content_mode: ContentMode::Structured,
        max_message_bytes: 256 * 1024,
        refused: None,
    }
}

fn shared() -> Shared {
    Shared {
        https: HttpsClient::new(
            Guard::from_config(&OutboundConfig {
                allow_ports: vec![9],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![],
                allow_plaintext_credentials_to_loopback: false,
            })
            .unwrap(),
        ),
        clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
    }
}

fn secrets(value: &str) -> Secrets {
    let mut s = Secrets::new();
    s.insert(SecretRef::Secret("sb".into()), SecretValue::from(value));
    s
}

fn parse(v: serde_json::Value) -> Result<crate::Config, serde_json::Error> {
    let serde_json::Value::Object(members) = v else {
        unreachable!()
    };
    crate::Config::parse(ServiceBus::NAME, members)
}

/// A connection string or a SAS token anywhere in the destination (a
/// field, the credentials' place, an unknown member) reads as a
/// configuration registration refuses with `connection_string_refused`;
/// neither the reading nor the refusal echoes the key.
#[tokio::test]
async fn connection_strings_are_refused_without_echo() {
    let guard = shared().https.guard().clone();
    let token = "SharedAccessSignature sr=https%3A%2F%2Fa&sig=c2lnbmF0dXJl&se=1&skn=Root";
    for (v, pointer) in [
        (
            serde_json::json!({"namespace": CONNECTION_STRING, "entity": "q", "auth": {"sas": {"key_name": "Root", "key": "secret:k"}}}),
            "/destination/namespace",
        ),
        (
            serde_json::json!({"namespace": "acme-prod.servicebus.windows.net", "entity": "q", "auth": CONNECTION_STRING}),
            "/destination/auth",
        ),
        (
            serde_json::json!({"namespace": "acme-prod.servicebus.windows.net", "entity": "q", "auth": {"sas": {"key_name": "Root", "key": CONNECTION_STRING}}}),
            "/destination/auth",
        ),
        (
            serde_json::json!({"connection_string": CONNECTION_STRING}),
            "/destination",
        ),
        (
            serde_json::json!({"namespace": "acme-prod.servicebus.windows.net", "entity": "q", "auth": {"sas": {"key_name": "Root", "key": token}}}),
            "/destination/auth",
        ),
    ] {
        let config = parse(v.clone()).expect("read, to be refused with its code");
        let e = crate::validate(&config, &guard).await.unwrap_err();
        assert_eq!(
            (e.code, e.pointer),
            ("connection_string_refused", pointer),
            "{v}"
        );
        let shown = format!("{e:?} {config:?} {:?}", config.to_destination());
        assert!(!shown.contains(KEY), "{shown}");
        assert!(!shown.contains("c2lnbmF0dXJl"), "{shown}");
        assert!(config.secret_refs().is_empty());
    }
    // A key given as a value, not a reference: serde's error names no part of it.
    let e = parse(serde_json::json!({"namespace": "acme-prod.servicebus.windows.net", "entity": "q", "auth": {"sas": {"key_name": "Root", "key": KEY}}})).unwrap_err();
    assert!(!e.to_string().contains(KEY), "{e}");
    // The reference resolving to a connection string is refused too.
    let d = destination();
    let e = ServiceBus::check_values(&d, &secrets(CONNECTION_STRING)).unwrap_err();
    assert_eq!(
        (e.code, e.pointer),
        ("connection_string_refused", "/destination/auth/sas/key")
    );
    assert!(!e.message.contains(KEY));
    assert!(ServiceBus::build(&d, &shared(), &secrets(CONNECTION_STRING)).is_err());
    assert_eq!(ServiceBus::check_values(&d, &secrets(KEY)), Ok(()));
}

/// The canonical form reads back as itself.
#[test]
fn a_destination_reads_back_as_itself() {
    let v = serde_json::json!({
        "namespace": "acme-prod.servicebus.windows.net", "entity": "orders",
        "auth": {"entra": {"tenant_id": "contoso.onmicrosoft.com", "client_id": "app", "client_secret": "secret:sb"}},
        "sessions": true,
    });
    let config = parse(v).unwrap();
    let again = crate::Config::try_from(&config.to_destination()).unwrap();
    assert_eq!(config, again);
    let e = parse(serde_json::json!({"namespace": "a", "entity": "q", "auth": {"sas": {"key_name": "R", "key": "secret:k"}}, "colour": 1})).unwrap_err();
    assert!(e.to_string().contains("colour"), "{e}");
}

/// Neither the client's `Debug` nor an attempt's record shows the key or
/// the token it signed (the endpoint is unreachable here).
#[tokio::test]
async fn the_key_and_the_token_never_show() {
    let d = destination();
    let client = ServiceBus::build(&d, &shared(), &secrets(KEY)).unwrap();
    let m = prepared(ContentMode::Structured);
    let sent = ServiceBus::deliver(&client, &m, Limits::default()).await;
    assert!(matches!(sent.result, Err(Failure::Guard(_))), "{sent:?}");
    let record = ServiceBus::record(&sent);
    assert_eq!(record.detail["auth"], "sas");
    assert_eq!(record.detail["sas_token_signed"], true);
    assert_eq!(record.detail["message_id"], "evt_1");
    assert_eq!(record.detail["session_id"], "order/1042");
    let shown = format!("{client:?} {sent:?} {record:?}");
    assert!(!shown.contains(KEY), "{shown}");
    assert!(!shown.contains("sig="), "{shown}");
    assert!(shown.contains("RootManageSharedAccessKey"));
    assert!(matches!(
        ServiceBus::classify(&sent, Timestamp::from_millis(0)),
        Verdict::Retry { .. }
    ));
}

/// The size counted is the message's as Service Bus counts it.
#[test]
fn message_bytes_count_the_properties() {
    let m = prepared(ContentMode::Structured);
    let d = destination();
    let n = ServiceBus::message_bytes(&d, &m);
    assert_eq!(
        n,
        wire::message_bytes(
            m.body.len(),
            &wire::broker_properties(&m, Some("order/1042")),
            &wire::properties(&m)
        )
    );
    assert!(n > m.body.len() as u64 + 100);
    let unordered = ServiceBusDestination {
        sessions: false,
        ..destination()
    };
    assert!(ServiceBus::message_bytes(&unordered, &m) < n);
    assert_eq!(ServiceBus::capacity(&d).max_message_bytes, Some(256 * 1024));
}

/// The hosts its credentials go to: the service's, and Entra's token
/// endpoint's.
#[test]
fn credential_hosts_are_the_service_and_the_token_url() {
    let g = shared().https.guard().clone();
    assert_eq!(
        ServiceBus::credential_hosts(&destination(), &g),
        ["127.0.0.1:9".to_string()].into()
    );
    let entra = ServiceBusDestination {
        namespace: Some("acme-prod.servicebus.windows.net".into()),
        endpoint: None,
        auth: ServiceBusAuth::Entra(EntraCredentials {
            tenant_id: "contoso.onmicrosoft.com".into(),
            client_id: "app".into(),
            client_secret: SecretRef::Secret("sb".into()),
            token_url: None,
        }),
        ..destination()
    };
    assert_eq!(
        ServiceBus::credential_hosts(&entra, &g),
        [
            "acme-prod.servicebus.windows.net:443".to_string(),
            "login.microsoftonline.com:443".to_string()
        ]
        .into()
    );
    assert_eq!(
        ServiceBus::describe(&entra),
        "orders at acme-prod.servicebus.windows.net"
    );
}
