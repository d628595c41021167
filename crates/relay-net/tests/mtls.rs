//! Mutual TLS: the guarded HTTPS client presenting a client identity to a
//! real receiver (`relay-receiver`) that requires certificates of its own
//! client CA, on 127.0.0.1 opened through the allow list, over TLS 1.3
//! (where the server refuses after the client's handshake, on the first
//! read) and TLS 1.2 (where it refuses in the handshake).

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use bytes::Bytes;
use relay_net::{
    ClientIdentity, Guard, GuardError, HeaderName, HeaderValue, HttpsClient, Limits,
    OutboundConfig, Response, StaticResolver,
};
use relay_receiver::{Receiver, ReceiverConfig, TestCa};

struct Setup {
    receiver: Receiver,
    clients: Arc<TestCa>,
    client: HttpsClient,
}

async fn setup(tls12_only: bool) -> Setup {
    let clients = Arc::new(TestCa::generate_named("Relay test client CA"));
    let receiver = Receiver::start(ReceiverConfig {
        client_ca: Some(Arc::clone(&clients)),
        tls12_only,
        ..Default::default()
    })
    .await
    .expect("receiver");
    let config = OutboundConfig {
        allow_ports: vec![receiver.port()],
        allow_cidrs: vec!["127.0.0.0/8".into()],
        block_cidrs: Vec::new(),
        extra_ca_certs: vec![receiver.ca_pem_path().to_path_buf()],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new().with("localhost", [IpAddr::V4(Ipv4Addr::LOCALHOST)]);
    let guard = Guard::with_resolver(&config, Arc::new(resolver)).expect("guard");
    Setup {
        receiver,
        clients,
        client: HttpsClient::new(guard),
    }
}

fn identity(ca: &TestCa, name: &str) -> (ClientIdentity, String) {
    let cert = ca.client_cert(name);
    let identity = ClientIdentity::from_pem(cert.chain_pem().as_bytes(), cert.key_pem().as_bytes())
        .expect("identity");
    (identity, cert.sha256_hex())
}

async fn post(client: &HttpsClient, s: &Setup) -> Result<Response, GuardError> {
    client
        .post_url(
            &s.receiver.url_for_host("localhost", "/hooks"),
            vec![(
                HeaderName::from_static("webhook-id"),
                HeaderValue::from_static("msg_1"),
            )],
            Bytes::from_static(b"{}"),
            Limits::default(),
        )
        .await
}

async fn the_right_certificate_is_presented(tls12_only: bool) {
    let s = setup(tls12_only).await;
    let (id, leaf) = identity(&s.clients, "relay-a");
    let client = s.client.with_identity(&id);
    let response = post(&client, &s).await.expect("delivered");
    assert_eq!(response.status, 200);
    let seen = s.receiver.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].client_cert_sha256.as_deref(), Some(leaf.as_str()));
    let again = post(&client, &s).await.expect("delivered again");
    assert!(again.reused_connection, "pooled under the identity");
}

#[tokio::test]
async fn the_right_certificate_is_presented_tls13() {
    the_right_certificate_is_presented(false).await;
}

#[tokio::test]
async fn the_right_certificate_is_presented_tls12() {
    the_right_certificate_is_presented(true).await;
}

async fn missing_or_wrong_certificate_is_a_tls_error(tls12_only: bool) {
    let s = setup(tls12_only).await;
    let error = post(&s.client, &s).await.expect_err("no certificate");
    assert_eq!(error.kind().as_str(), "tls", "{error}");
    assert!(matches!(error, GuardError::Tls { .. }), "{error:?}");
    assert_eq!(error.remote_addr(), Some(s.receiver.addr()));

    let other = TestCa::generate_named("Another client CA");
    let (wrong, _) = identity(&other, "relay-a");
    let error = post(&s.client.with_identity(&wrong), &s)
        .await
        .expect_err("a certificate of another CA");
    assert_eq!(error.kind().as_str(), "tls", "{error}");
    assert_eq!(s.receiver.tls_failures(), 2);
    assert_eq!(s.receiver.count(), 0, "nothing was delivered");
}

#[tokio::test]
async fn missing_or_wrong_certificate_is_a_tls_error_tls13() {
    missing_or_wrong_certificate_is_a_tls_error(false).await;
}

#[tokio::test]
async fn missing_or_wrong_certificate_is_a_tls_error_tls12() {
    missing_or_wrong_certificate_is_a_tls_error(true).await;
}

/// Connections (and TLS sessions) of one identity never serve another, or a
/// client without one: each is pooled and resumed under its own identity.
#[tokio::test]
async fn identities_never_share_connections_or_sessions() {
    let s = setup(false).await;
    let (a, leaf_a) = identity(&s.clients, "relay-a");
    let (b, leaf_b) = identity(&s.clients, "relay-b");
    let client_a = s.client.with_identity(&a);
    let client_b = s.client.with_identity(&b);
    assert_ne!(a.fingerprint(), b.fingerprint());

    post(&client_a, &s).await.expect("a");
    // The plain client shares the pool, but not A's pooled connection nor
    // a resumption of A's session.
    let error = post(&s.client, &s).await.expect_err("no certificate");
    assert_eq!(error.kind().as_str(), "tls", "{error}");
    post(&client_b, &s).await.expect("b");
    let again = post(&client_a, &s).await.expect("a again");
    assert!(again.reused_connection);

    let seen: Vec<_> = s
        .receiver
        .requests()
        .into_iter()
        .map(|r| (r.client_cert_sha256.unwrap_or_default(), r.connection_id))
        .collect();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].0, leaf_a);
    assert_eq!(seen[1].0, leaf_b);
    assert_eq!(seen[2].0, leaf_a);
    assert_eq!(seen[2].1, seen[0].1, "A's connection, reused");
    assert_ne!(seen[1].1, seen[0].1, "B has its own connection");
}

/// A new client from the same identity (an endpoint's client built again)
/// still authenticates, on a session cache of its own.
#[tokio::test]
async fn an_identity_built_again_authenticates() {
    let s = setup(false).await;
    let cert = s.clients.client_cert("relay-a");
    for _ in 0..2 {
        let id = ClientIdentity::from_pem(cert.chain_pem().as_bytes(), cert.key_pem().as_bytes())
            .expect("identity");
        post(&s.client.with_identity(&id), &s)
            .await
            .expect("delivered");
    }
    assert!(
        s.receiver
            .requests()
            .iter()
            .all(|r| r.client_cert_sha256.as_deref() == Some(cert.sha256_hex().as_str()))
    );
}

/// `Debug` of an identity and of a client with one names the fingerprint,
/// never a line of the key.
#[test]
fn an_identity_shows_no_key() {
    let ca = TestCa::generate();
    let cert = ca.client_cert("relay-a");
    let id = ClientIdentity::from_pem(cert.chain_pem().as_bytes(), cert.key_pem().as_bytes())
        .expect("identity");
    let guard = Guard::with_resolver(&OutboundConfig::default(), Arc::new(StaticResolver::new()))
        .expect("guard");
    let client = HttpsClient::new(guard).with_identity(&id);
    let debug = format!("{id:?} {client:?}");
    assert!(debug.contains(&id.fingerprint_hex()), "{debug}");
    for line in cert.key_pem().lines().filter(|l| !l.starts_with("-----")) {
        assert!(!debug.contains(line), "{debug}");
    }
}
