//! Proof of endpoint ownership through the API, played by a hostile tenant
//! (docs/security.md, "Proof of endpoint ownership"): with the
//! installation's policy `required`, an endpoint pointed at a receiver that
//! never agreed is `unverified`, its health view says why, a test send is
//! refused and resume cannot make it active; once its receiver answers the
//! challenge it is active. Then the tenant moves the proven endpoint to
//! another host: it is held again until that host's receiver proves it.
//! Every request either receiver got is a challenge, never a payload.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::{Harness, endpoint_body};
use relay_net::{Guard, OutboundConfig, StaticResolver};
use relay_receiver::{Receiver, ReceiverConfig};
use relay_store::conformance::TestDb;
use serde_json::{Value, json};

const HOOKS: &str = "hooks.own.test";
const VICTIM: &str = "victim.own.test";

async fn receiver(name: &str, ca: Option<Arc<relay_receiver::TestCa>>) -> Receiver {
    let r = Receiver::start(ReceiverConfig {
        extra_names: vec![name.into()],
        ca,
        ..Default::default()
    })
    .await
    .unwrap();
    // Until a test says otherwise, neither receiver agrees to anything.
    r.answer_challenges(false);
    r
}

#[tokio::test]
async fn an_endpoint_is_held_until_its_receiver_proves_it_wants_the_traffic() {
    let hooks = receiver(HOOKS, None).await;
    let victim = receiver(VICTIM, Some(hooks.ca().clone())).await;
    let outbound = OutboundConfig {
        allow_ports: vec![hooks.port(), victim.port()],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![hooks.ca_pem_path().to_path_buf()],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new()
        .with(HOOKS, ["127.0.0.1".parse().unwrap()])
        .with(VICTIM, ["127.0.0.1".parse().unwrap()]);
    let guard = Arc::new(Guard::with_resolver(&outbound, Arc::new(resolver)).expect("guard"));
    let settings = relay_api::ApiSettings {
        ownership_proof: relay_api::OwnershipProof::Required,
        ..Default::default()
    };
    let engine = relay_engine::EngineConfig::new("api-ownership");
    let h = Harness::build(TestDb::sqlite().await, settings, guard, engine).await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    h.open_event_type(&key, "order.shipped").await;

    let mut body = endpoint_body(&c, &["order.shipped"]);
    body["destination"]["url"] = json!(hooks.url_for_host(HOOKS, "/hooks"));
    let created = h
        .post("/v1/endpoints", &key, body)
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(created["state"], "unverified", "{created}");
    assert_eq!(
        created["verify_ownership"], true,
        "the installation requires it"
    );
    let origin = format!("{HOOKS}:{}", hooks.port());
    assert_eq!(created["ownership_origin"], json!(origin));
    let id = created["id"].as_str().unwrap().to_string();
    let path = |p: &str| format!("/v1/endpoints/{id}{p}");

    // A receiver that answers everything with 200 has not proven anything.
    let answer = h
        .post(&path("/verify-ownership"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(answer["proven"], false, "{answer}");
    assert_eq!(answer["failure"]["code"], "no_echo");
    assert_eq!(answer["state"], "unverified");
    let health = h.get(&path("/health"), &key).await.expect(StatusCode::OK);
    assert_eq!(health["state"], "unverified");
    assert_eq!(
        health["ownership"]["failure"]["code"], "no_echo",
        "{health}"
    );
    assert_eq!(health["ownership"]["origin"], json!(origin));
    // Nothing goes to it by hand; resume cannot make it active.
    h.post(&path("/test"), &key, json!({"event_type": "order.shipped"}))
        .await
        .problem(StatusCode::CONFLICT, "endpoint_unverified");
    h.post(&path("/resume"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "invalid_endpoint_state");
    h.post(&path("/pause"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    let resumed = h
        .post(&path("/resume"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(resumed["state"], "unverified", "{resumed}");

    // The receiver answers the challenge: proven, active.
    hooks.answer_challenges(true);
    let answer = h
        .post(&path("/verify-ownership"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(answer["proven"], true, "{answer}");
    assert_eq!(answer["state"], "active");
    assert_eq!(answer["failure"], Value::Null);

    // The tenant moves it to a host whose receiver never agreed: held.
    h.clock.advance_millis(1_000);
    let moved = h
        .patch(
            &path(""),
            &key,
            json!({"destination": {"kind": "https", "url": victim.url_for_host(VICTIM, "/inbox")}}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(moved["state"], "unverified", "{moved}");
    h.post(&path("/test"), &key, json!({"event_type": "order.shipped"}))
        .await
        .problem(StatusCode::CONFLICT, "endpoint_unverified");
    let answer = h
        .post(&path("/verify-ownership"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(answer["proven"], false, "{answer}");
    assert_eq!(answer["failure"]["code"], "no_echo");
    // Back to the proven host: active again, no challenge needed.
    h.clock.advance_millis(1_000);
    let back = h
        .patch(
            &path(""),
            &key,
            json!({"destination": {"kind": "https", "url": hooks.url_for_host(HOOKS, "/hooks")}}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(back["state"], "active", "{back}");

    for r in hooks.requests().iter().chain(victim.requests().iter()) {
        assert_eq!(
            r.method, "OPTIONS",
            "only challenges: {} {}",
            r.method, r.path
        );
        assert!(r.body.is_empty());
    }
    assert_eq!(hooks.count(), 2);
    assert_eq!(victim.count(), 1);
}

#[tokio::test]
async fn the_proof_is_asked_of_https_endpoints_only_and_only_where_it_is_owed() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    // Not owed by default (`opt_in`): active, and asking for a challenge is a 409.
    let plain = h
        .post("/v1/endpoints", &key, endpoint_body(&c, &[]))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(plain["state"], "active");
    assert_eq!(plain["verify_ownership"], false);
    assert_eq!(plain["ownership_origin"], Value::Null);
    let id = plain["id"].as_str().unwrap();
    h.post(
        &format!("/v1/endpoints/{id}/verify-ownership"),
        &key,
        json!({}),
    )
    .await
    .problem(StatusCode::CONFLICT, "ownership_not_required");
    let health = h
        .get(&format!("/v1/endpoints/{id}/health"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(health["ownership"], Value::Null);
    // Opted in: unverified.
    let mut body = endpoint_body(&c, &[]);
    body["verify_ownership"] = json!(true);
    let owed = h
        .post("/v1/endpoints", &key, body)
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(owed["state"], "unverified");
    // A broker cannot prove ownership.
    let body = json!({
        "consumer_id": c,
        "destination": {"kind": "redis_stream", "host": "receiver.test", "port": 8443, "stream": "s"},
        "event_types": [],
        "verify_ownership": true,
    });
    let r = h.post("/v1/endpoints", &key, body).await;
    r.problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "ownership_proof_https_only",
    );
    // Another tenant cannot challenge (nor read) this one's endpoint.
    let (_, other) = h.tenant_with_key("globex", "live").await;
    let id = owed["id"].as_str().unwrap();
    h.post(
        &format!("/v1/endpoints/{id}/verify-ownership"),
        &other,
        json!({}),
    )
    .await
    .problem(StatusCode::NOT_FOUND, "not_found");
}
