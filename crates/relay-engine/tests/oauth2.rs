//! OAuth 2.0 client credentials through the attempt pipeline: a real token
//! endpoint and a receiver that checks bearer tokens on loopback (reached
//! through the operator's allow list), the injected clock walking token
//! lifetimes and the schedule.

mod common;

use std::sync::Arc;

use common::{Env, MASTER, Setup, WAIT};
use relay_core::model::MessageState;
use relay_core::sealed::MasterKey;
use relay_core::secret::{SecretGrant, SecretPolicy, SecretRef};
use relay_core::time::Clock;
use relay_destinations::Config;
use relay_destinations::https::{
    ClientAuthMethod, HttpsAuth, HttpsDestination, OAuth2ClientCredentials,
};
use relay_engine::Dispatcher;
use relay_net::{Guard, HttpsClient, OutboundConfig, StaticResolver};
use relay_receiver::{OAuthIssuer, Receiver, ReceiverConfig};

const DATA: &str = r#"{"order_id":"1042"}"#;
const CLIENT_SECRET: &str = "engine-oauth-s3cret";

struct OAuthEnv {
    e: Env,
    tokens: Receiver,
    issuer: Arc<OAuthIssuer>,
    dispatcher: Arc<Dispatcher>,
    _secret_dir: tempfile::TempDir,
}

/// The common environment, its endpoint switched to OAuth 2.0 against a
/// token endpoint of its own, and a dispatcher whose guard allows both.
async fn start(expires_in: Option<u64>) -> OAuthEnv {
    let e = Env::start(Setup::default()).await.expect("sqlite env");
    let tokens = Receiver::start(ReceiverConfig {
        ca: Some(e.receiver.ca().clone()),
        extra_names: vec!["auth.test".into()],
        ..Default::default()
    })
    .await
    .unwrap();
    let issuer = OAuthIssuer::new("relay", CLIENT_SECRET, expires_in);
    tokens.serve_token_endpoint("/token", issuer.clone());
    e.receiver.require_bearer(issuer.clone());
    let secret_dir = tempfile::tempdir().unwrap();
    let secret_file = secret_dir.path().join("client-secret");
    std::fs::write(&secret_file, CLIENT_SECRET).unwrap();
    let mut endpoint = e.endpoint.clone();
    endpoint.destination = Config::Https(HttpsDestination {
        a2a_push: None,
        url: e.receiver.url_for_host("receiver.test", "/hooks"),
        auth: Some(HttpsAuth {
            client_certificate: None,
            oauth2: Some(OAuth2ClientCredentials {
                token_url: tokens.url_for_host("auth.test", "/token"),
                client_id: "relay".into(),
                client_secret: SecretRef::File(secret_file.to_string_lossy().into_owned()),
                scopes: vec![],
                audience: None,
                method: ClientAuthMethod::ClientSecretBasic,
            }),
        }),
        headers: vec![],
    })
    .into();
    endpoint.updated_at = e.clock.now();
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    let guard = Guard::with_resolver(
        &OutboundConfig {
            allow_ports: vec![e.receiver.port(), tokens.port()],
            allow_cidrs: vec!["127.0.0.1/32".into()],
            block_cidrs: vec![],
            extra_ca_certs: vec![e.receiver.ca_pem_path().to_path_buf()],
            allow_plaintext_credentials_to_loopback: false,
        },
        Arc::new(
            StaticResolver::new()
                .with("receiver.test", ["127.0.0.1".parse().unwrap()])
                .with("auth.test", ["127.0.0.1".parse().unwrap()]),
        ),
    )
    .unwrap();
    let mut config = e.config.clone();
    config.secrets = SecretPolicy::default().grant(
        e.scope.tenant_id.clone(),
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![secret_dir.path().to_string_lossy().into_owned()],
        },
    );
    let dispatcher = Dispatcher::new(
        e.db.store.clone(),
        e.clock.clone(),
        HttpsClient::new(guard),
        MasterKey::from_bytes(MASTER),
        config,
    );
    OAuthEnv {
        e,
        tokens,
        issuer,
        dispatcher,
        _secret_dir: secret_dir,
    }
}

#[tokio::test]
async fn tokens_are_reused_until_shortly_before_they_expire_by_the_engine_clock() {
    let o = start(Some(600)).await;
    let e = &o.e;
    e.publish("evt_1", DATA).await;
    assert_eq!(o.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(o.issuer.token_requests(), 1);
    // 600 s less the earlier of 60 s and 10 %: still fresh at 539 s.
    e.clock.advance_millis(539_000);
    e.publish("evt_2", DATA).await;
    assert_eq!(o.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(o.issuer.token_requests(), 1);
    e.clock.advance_millis(1_000);
    e.publish("evt_3", DATA).await;
    assert_eq!(o.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(o.issuer.token_requests(), 2);
    let got = e.receiver.wait_for(3, WAIT).await.unwrap();
    let auth: Vec<_> = got.iter().map(|r| r.header("authorization")).collect();
    assert_eq!(auth[0], auth[1]);
    assert_ne!(auth[1], auth[2]);
    for m in e.messages().await {
        assert_eq!(m.state, MessageState::Delivered, "{m:?}");
    }
    assert_eq!(o.tokens.requests().len(), 2);
}

#[tokio::test]
async fn a_refused_client_is_a_retried_attempt_with_a_health_warning() {
    let o = start(Some(3600)).await;
    let e = &o.e;
    o.issuer.refuse(Some((401, "invalid_client")));
    e.publish("evt_refused", DATA).await;
    assert_eq!(o.dispatcher.run_once().await.unwrap(), 1);
    let m = e.only_message().await;
    assert_eq!(m.state, MessageState::Scheduled);
    assert_eq!(m.last_error_code.as_deref(), Some("token_invalid_client"));
    let attempts = e.attempts(&m.id).await;
    assert_eq!(attempts.len(), 1);
    let a = &attempts[0];
    assert_eq!(a.status_code, None, "the endpoint was not tried");
    assert_eq!(a.detail["oauth2"]["error"], "invalid_client");
    assert_eq!(a.detail["oauth2"]["status_code"], 401);
    assert!(e.receiver.requests().is_empty());
    let warnings = relay_store::conformance::endpoint_warnings(e.store(), &e.endpoint.id, 20)
        .await
        .unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0].kind,
        relay_core::model::WarningKind::OauthTokenRefused
    );
    assert!(warnings[0].detail.contains("token_invalid_client"));
    // Fixed: the next attempt fetches a token and delivers.
    o.issuer.refuse(None);
    e.clock.set(m.next_attempt_at.unwrap());
    assert_eq!(o.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(e.only_message().await.state, MessageState::Delivered);
    let records = format!("{:?}", e.attempts(&m.id).await);
    assert!(!records.contains(CLIENT_SECRET));
    for t in o.issuer.issued_tokens() {
        assert!(!records.contains(&t), "a token in {records}");
    }
}

#[tokio::test]
async fn a_401_to_the_token_is_one_attempt_with_one_new_token() {
    let o = start(Some(3600)).await;
    let e = &o.e;
    e.publish("evt_1", DATA).await;
    assert_eq!(o.dispatcher.run_once().await.unwrap(), 1);
    o.issuer.revoke_all();
    e.publish("evt_2", DATA).await;
    assert_eq!(o.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(o.issuer.token_requests(), 2);
    let m = e
        .messages()
        .await
        .into_iter()
        .find(|m| m.event_id == "evt_2")
        .unwrap();
    assert_eq!(m.state, MessageState::Delivered);
    let attempts = e.attempts(&m.id).await;
    assert_eq!(attempts.len(), 1, "one attempt record");
    assert_eq!(attempts[0].status_code, Some(200));
    assert_eq!(attempts[0].detail["oauth2"]["retried_with_new_token"], true);
    // The endpoint saw the stale token (401) and the new one.
    assert_eq!(e.receiver.requests().len(), 3);
}

/// Attempts of one endpoint that start together, before any client of it
/// was built, share one client: one token request for all of them.
#[tokio::test]
async fn concurrent_first_attempts_make_one_token_request() {
    let o = start(Some(3600)).await;
    let e = &o.e;
    for n in 0..8 {
        e.publish(&format!("evt_{n}"), DATA).await;
    }
    assert_eq!(o.dispatcher.run_once().await.unwrap(), 8);
    assert_eq!(o.issuer.token_requests(), 1);
    assert_eq!(e.receiver.wait_for(8, WAIT).await.unwrap().len(), 8);
    for m in e.messages().await {
        assert_eq!(m.state, MessageState::Delivered, "{m:?}");
    }
}
