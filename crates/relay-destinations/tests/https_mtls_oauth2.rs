//! Both members of `destination.auth` on one endpoint: the client
//! certificate is presented to the endpoint and to the token endpoint
//! (which may bind the token to it, RFC 8705), and the endpoint gets the
//! bearer token. A token endpoint and a receiver on loopback, both
//! requiring client certificates, reached through the guard (the
//! operator's allow list, never a bypass).

mod common;

use std::sync::Arc;

use common::message;
use relay_core::outcome::{FailureCode, TokenFailure, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_core::time::{ManualClock, Timestamp};
use relay_destinations::Config;
use relay_destinations::https::{
    ClientAuthMethod, ClientCertificate, HttpsAuth, HttpsDestination, OAuth2ClientCredentials,
};
use relay_destinations::{Shared, build};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig, StaticResolver};
use relay_receiver::{LeafCert, OAuthIssuer, Receiver, ReceiverConfig, TestCa};

const CLIENT_ID: &str = "relay";
const CLIENT_SECRET: &str = "both-methods-s3cret";
const T0: Timestamp = Timestamp::from_millis(1_800_000_000_000);

struct Env {
    tokens: Receiver,
    hooks: Receiver,
    issuer: Arc<OAuthIssuer>,
    guard: Guard,
    _ca_dir: tempfile::TempDir,
}

/// Servers with certificates of `ca` that accept only client certificates
/// issued by `ca`.
async fn env(ca: Arc<TestCa>) -> Env {
    let start = |name: &str| {
        Receiver::start(ReceiverConfig {
            ca: Some(ca.clone()),
            client_ca: Some(ca.clone()),
            extra_names: vec![name.into()],
            ..Default::default()
        })
    };
    let tokens = start("auth.test").await.unwrap();
    let hooks = start("hooks.test").await.unwrap();
    let issuer = OAuthIssuer::new(CLIENT_ID, CLIENT_SECRET, Some(3600));
    tokens.serve_token_endpoint("/oauth/token", issuer.clone());
    hooks.require_bearer(issuer.clone());
    let ca_dir = tempfile::tempdir().unwrap();
    let config = OutboundConfig {
        allow_ports: vec![tokens.port(), hooks.port()],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![ca.write_ca_pem(ca_dir.path()).unwrap()],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new()
        .with("auth.test", ["127.0.0.1".parse().unwrap()])
        .with("hooks.test", ["127.0.0.1".parse().unwrap()]);
    Env {
        guard: Guard::with_resolver(&config, Arc::new(resolver)).unwrap(),
        tokens,
        hooks,
        issuer,
        _ca_dir: ca_dir,
    }
}

fn refs() -> [SecretRef; 3] {
    [
        SecretRef::Secret("hooks-chain".into()),
        SecretRef::Secret("hooks-key".into()),
        SecretRef::Secret("oauth-client".into()),
    ]
}

impl Env {
    fn destination(&self) -> Config {
        let [chain, key, client_secret] = refs();
        Config::Https(HttpsDestination {
            a2a_push: None,
            url: self.hooks.url_for_host("hooks.test", "/hooks"),
            auth: Some(HttpsAuth {
                client_certificate: Some(ClientCertificate { chain, key }),
                oauth2: Some(OAuth2ClientCredentials {
                    token_url: self.tokens.url_for_host("auth.test", "/oauth/token"),
                    client_id: CLIENT_ID.into(),
                    client_secret,
                    scopes: vec!["hooks:write".into()],
                    audience: None,
                    method: ClientAuthMethod::ClientSecretBasic,
                }),
            }),
            headers: vec![],
        })
    }

    /// What one delivery with `cert` as the client certificate comes to.
    async fn deliver(&self, cert: &LeafCert) -> Verdict {
        let [chain, key, client_secret] = refs();
        let mut secrets = Secrets::new();
        secrets.insert(chain, SecretValue::from(cert.chain_pem()));
        secrets.insert(key, SecretValue::from(cert.key_pem()));
        secrets.insert(client_secret, SecretValue::from(CLIENT_SECRET));
        let shared = Shared {
            https: HttpsClient::new(self.guard.clone()),
            clock: Arc::new(ManualClock::new(T0)),
        };
        let client = build(&self.destination(), &shared, &secrets).expect("built");
        let d = client.deliver(&message(), Limits::default()).await;
        let record = format!("{:?}", d.record());
        for secret in [CLIENT_SECRET, cert.key_pem()] {
            for line in secret.lines().filter(|l| !l.starts_with("-----")) {
                assert!(!record.contains(line), "{record}");
            }
        }
        for token in self.issuer.issued_tokens() {
            assert!(!record.contains(&token), "{record}");
        }
        d.classify(T0)
    }
}

#[tokio::test]
async fn the_certificate_goes_to_the_token_endpoint_and_the_endpoint_with_the_bearer() {
    let ca = Arc::new(TestCa::generate());
    let e = env(ca.clone()).await;
    let cert = ca.client_cert("relay");
    assert_eq!(e.deliver(&cert).await, Verdict::Delivered);

    let presented = Some(cert.sha256_hex());
    let token_requests = e.tokens.requests();
    assert_eq!(token_requests.len(), 1);
    assert_eq!(token_requests[0].client_cert_sha256, presented);
    assert_eq!(e.issuer.token_requests(), 1);
    let hooks = e.hooks.requests();
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0].client_cert_sha256, presented);
    let bearer = format!("Bearer {}", e.issuer.issued_tokens()[0]);
    assert_eq!(hooks[0].header("authorization"), Some(bearer.as_str()));
}

#[tokio::test]
async fn another_cas_certificate_gets_no_token_and_sends_nothing() {
    let ca = Arc::new(TestCa::generate());
    let e = env(ca).await;
    let stranger = TestCa::generate_named("Another CA").client_cert("relay");
    // The token endpoint refuses the handshake: the token fetch fails as
    // unreachable (retried), and the endpoint is never called.
    assert_eq!(
        e.deliver(&stranger).await,
        Verdict::Retry {
            code: FailureCode::Token(TokenFailure::Unreachable),
            not_before: None,
        }
    );
    assert!(e.tokens.tls_failures() >= 1);
    assert_eq!(e.issuer.issued(), 0);
    assert!(e.tokens.requests().is_empty());
    assert!(e.hooks.requests().is_empty());
    assert_eq!(e.hooks.tls_failures(), 0);
}
