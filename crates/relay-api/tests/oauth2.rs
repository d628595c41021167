//! End to end: an HTTPS endpoint authenticated by OAuth 2.0 client
//! credentials whose client secret is a tenant secret, registered through
//! the API, delivered by the dispatcher to a receiver that checks bearer
//! tokens, with a real token endpoint beside it (`relay-receiver`, both on
//! loopback, reached through the operator's allow list). The authorization
//! server rotates the secret: the next attempt is refused
//! (`token_invalid_client`, retried, a health warning); once the tenant
//! replaces the secret through the API, the very next attempt fetches a
//! token with it and delivers. Neither secret nor any token reaches an API
//! answer, the audit log, an attempt record or the log. On SQLite and
//! PostgreSQL.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use common::Harness;
use relay_net::{Guard, OutboundConfig, StaticResolver};
use relay_receiver::{OAuthIssuer, Receiver, ReceiverConfig};
use relay_store::conformance::TestDb;
use serde_json::{Value, json};

const HOOKS: &str = "hooks.oauth.test";
const AUTH: &str = "auth.oauth.test";

/// What the log subscriber wrote.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

async fn messages(h: &Harness, key: &str) -> Vec<Value> {
    h.get("/v1/messages", key).await.expect(StatusCode::OK)["data"]
        .as_array()
        .unwrap()
        .clone()
}

async fn a_tenant_secret_authenticates_to_the_token_endpoint(postgres: bool) {
    let db = if postgres {
        match TestDb::postgres("api_oauth2").await {
            Some(db) => db,
            None => return,
        }
    } else {
        TestDb::sqlite().await
    };
    let old = format!("oauth-old-{}:&+", std::process::id());
    let new = format!("oauth-new-{}:&+", std::process::id());
    let issuer = OAuthIssuer::new("relay-acme", &old, Some(3600));
    let hooks = Receiver::start(ReceiverConfig {
        extra_names: vec![HOOKS.into()],
        ..Default::default()
    })
    .await
    .unwrap();
    let tokens = Receiver::start(ReceiverConfig {
        ca: Some(hooks.ca().clone()),
        extra_names: vec![AUTH.into()],
        ..Default::default()
    })
    .await
    .unwrap();
    tokens.serve_token_endpoint("/oauth/token", issuer.clone());
    hooks.require_bearer(issuer.clone());
    let outbound = OutboundConfig {
        allow_ports: vec![hooks.port(), tokens.port()],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![hooks.ca_pem_path().to_path_buf()],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new()
        .with(HOOKS, ["127.0.0.1".parse().unwrap()])
        .with(AUTH, ["127.0.0.1".parse().unwrap()]);
    let guard = Arc::new(Guard::with_resolver(&outbound, Arc::new(resolver)).expect("guard"));
    let mut engine = relay_engine::EngineConfig::new("api-oauth2");
    engine.secret_refresh = Duration::from_secs(3600);
    let h = Harness::build(db, Default::default(), guard, engine).await;

    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let (_, key) = h.tenant_with_key("acme", "live").await;
    let mut answers = String::new();
    let r = h
        .put("/v1/secrets/oauth-client", &key, json!({ "value": old }))
        .await;
    answers.push_str(&r.text());
    r.expect(StatusCode::CREATED);
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "c").await;
    let oauth2 = json!({
        "token_url": tokens.url_for_host(AUTH, "/oauth/token"),
        "client_id": "relay-acme",
        "client_secret": "secret:oauth-client",
        "scopes": ["webhooks:write"],
        "audience": "https://hooks.oauth.test",
    });
    let r = h
        .post(
            "/v1/endpoints",
            &key,
            json!({
                "consumer_id": consumer,
                "destination": {
                    "kind": "https",
                    "url": hooks.url_for_host(HOOKS, "/hooks"),
                    "auth": { "oauth2": oauth2 },
                },
                "event_types": ["order.created"],
            }),
        )
        .await;
    answers.push_str(&r.text());
    let created = r.expect(StatusCode::CREATED);
    let endpoint_id = created["id"].as_str().unwrap().to_string();
    let mut stored = oauth2.clone();
    stored["method"] = json!("client_secret_basic");
    assert_eq!(created["destination"]["auth"]["oauth2"], stored);

    let publish = |n: u32| {
        let h = &h;
        let key = key.clone();
        async move {
            h.publish(
                &key,
                json!({ "type": "order.created", "data": { "order": n } }),
            )
            .await
            .expect(StatusCode::ACCEPTED);
        }
    };
    publish(1).await;
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(hooks.requests().len(), 1, "delivered with a bearer token");
    assert_eq!(issuer.token_requests(), 1);
    let r = &issuer.requests()[0];
    assert!(r.authenticated, "{r:?}");
    assert_eq!(r.scope.as_deref(), Some("webhooks:write"));
    assert_eq!(r.audience.as_deref(), Some("https://hooks.oauth.test"));

    // The authorization server rotates the client secret and forgets its
    // tokens: the endpoint answers 401, the new token request is refused.
    issuer.set_client_secret(&new);
    issuer.revoke_all();
    publish(2).await;
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    let waiting: Vec<Value> = messages(&h, &key)
        .await
        .into_iter()
        .filter(|m| m["state"] != "delivered")
        .collect();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let waiting_id = waiting[0]["id"].as_str().unwrap().to_string();
    let attempts = h
        .get(&format!("/v1/messages/{waiting_id}/attempts"), &key)
        .await
        .expect(StatusCode::OK);
    let a = &attempts["data"][0];
    assert_eq!(a["outcome"], "retry", "{attempts}");
    assert_eq!(a["error_code"], "token_invalid_client", "{attempts}");
    assert_eq!(a["detail"]["oauth2"]["after_endpoint_401"], true, "{a}");
    assert_eq!(a["detail"]["oauth2"]["error"], "invalid_client", "{a}");
    let health = h
        .get(&format!("/v1/endpoints/{endpoint_id}/health"), &key)
        .await
        .expect(StatusCode::OK);
    assert!(
        health.to_string().contains("oauth_token_refused"),
        "{health}"
    );

    // The tenant replaces the secret: the next attempt uses it at once.
    let r = h
        .put("/v1/secrets/oauth-client", &key, json!({ "value": new }))
        .await;
    answers.push_str(&r.text());
    r.expect(StatusCode::OK);
    h.clock.advance_millis(10_000);
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    let all = messages(&h, &key).await;
    assert!(all.iter().all(|m| m["state"] == "delivered"), "{all:?}");
    assert_eq!(issuer.token_requests(), 3);
    assert!(issuer.requests()[2].authenticated);

    // No secret and no token anywhere.
    let mut records = String::new();
    for m in &all {
        let id = m["id"].as_str().unwrap();
        records.push_str(
            &h.get(&format!("/v1/messages/{id}/attempts"), &key)
                .await
                .text(),
        );
        records.push_str(&h.get(&format!("/v1/messages/{id}"), &key).await.text());
    }
    records.push_str(&h.get("/v1/endpoints", &key).await.text());
    records.push_str(
        &h.get(&format!("/v1/endpoints/{endpoint_id}/health"), &key)
            .await
            .text(),
    );
    records.push_str(&h.get("/v1/secrets", &key).await.text());
    let audit = h.get("/v1/audit-log", &key).await.text();
    let logs = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
    assert!(
        logs.contains("token_invalid_client"),
        "the log was captured: {logs}"
    );
    let tokens_issued = issuer.issued_tokens();
    assert_eq!(tokens_issued.len(), 2);
    let secrets = [old.clone(), new.clone()];
    for value in secrets.iter().chain(&tokens_issued) {
        for (what, text) in [
            ("an answer", &answers),
            ("a record", &records),
            ("the audit log", &audit),
            ("the log", &logs),
        ] {
            assert!(!text.contains(value.as_str()), "{value} in {what}: {text}");
        }
    }
    h.db.cleanup().await;
}

#[tokio::test]
async fn a_tenant_secret_authenticates_to_the_token_endpoint_sqlite() {
    a_tenant_secret_authenticates_to_the_token_endpoint(false).await;
}

#[tokio::test]
async fn a_tenant_secret_authenticates_to_the_token_endpoint_postgres() {
    a_tenant_secret_authenticates_to_the_token_endpoint(true).await;
}
