//! An AWS destination naming a role (`role_arn`) instead of keys: the
//! tenant reads its `ExternalId` (`GET /v1/aws/external-id`), and
//! registration assumes the role once through the guarded client. On an
//! installation without `[aws]` both answer `aws_roles_unavailable`. No
//! answer names the installation's keys or its `ExternalId` secret. The
//! assumption itself against moto's STS is in relay-compliance's `sqs.rs`.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::Harness;
use relay_core::secret::SecretValue;
use relay_destinations::aws::Keys;
use relay_destinations::aws::identity::{Identity, Installation};
use relay_net::{Guard, OutboundConfig};
use relay_store::conformance::TestDb;
use serde_json::{Value, json};

const EXTERNAL_ID_SECRET: &str = "the-installation-external-id-secret-0123456789";
const KEY_ID: &str = "AKIAINSTALLATION0001";
const SECRET_KEY: &str = "installation-secret-access-key-abcdefgh";

/// A harness whose installation has static keys and an STS at `sts_port`
/// on loopback (allowed by the operator's list), where nothing listens.
async fn with_aws(sts_port: u16) -> Harness {
    let outbound = OutboundConfig {
        allow_ports: vec![sts_port],
        allow_cidrs: vec!["127.0.0.0/8".into()],
        ..Default::default()
    };
    let guard = Arc::new(Guard::from_config(&outbound).expect("guard"));
    let mut engine = relay_engine::EngineConfig::new("api-aws");
    let clock: Arc<dyn relay_core::time::Clock> =
        Arc::new(relay_core::time::ManualClock::new(common::T0));
    engine.aws = Some(Arc::new(Installation::new(
        SecretValue::from(EXTERNAL_ID_SECRET),
        Identity::Keys(Keys {
            access_key_id: SecretValue::from(KEY_ID),
            secret_access_key: SecretValue::from(SECRET_KEY),
            session_token: None,
        }),
        Some(format!("https://127.0.0.1:{sts_port}/")),
        "us-east-1".into(),
        clock,
    )));
    Harness::build(TestDb::sqlite().await, Default::default(), guard, engine).await
}

fn sqs_endpoint(consumer: &str, destination: Value) -> Value {
    json!({
        "consumer_id": consumer,
        "destination": destination,
        "event_types": ["order.created"],
    })
}

/// A queue on loopback at `port` (the port the test's guard allows).
fn role_destination(port: u16) -> Value {
    json!({
        "kind": "sqs",
        "queue_url": format!("https://127.0.0.1:{port}/123456789012/orders"),
        "region": "eu-west-1",
        "role_arn": "arn:aws:iam::123456789012:role/relay-sender",
    })
}

fn assert_no_secret(text: &str) {
    for s in [EXTERNAL_ID_SECRET, KEY_ID, SECRET_KEY] {
        assert!(!text.contains(s), "{text}");
    }
}

#[tokio::test]
async fn without_an_installation_identity_roles_are_refused_and_no_external_id_is_given() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    // The harness's guard allows 8443 on loopback.
    let r = h.get("/v1/aws/external-id", &key).await;
    let p = r.expect(StatusCode::CONFLICT);
    assert_eq!(p["code"], "aws_roles_unavailable", "{p}");
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "c").await;
    let p = h
        .post(
            "/v1/endpoints",
            &key,
            sqs_endpoint(&consumer, role_destination(8443)),
        )
        .await
        .expect(StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(p["code"], "aws_roles_unavailable", "{p}");
    assert_eq!(p["errors"][0]["field"], "/destination/role_arn", "{p}");
}

#[tokio::test]
async fn each_tenant_has_its_own_stable_external_id() {
    let h = with_aws(9).await;
    let (_, acme) = h.tenant_with_key("acme", "live").await;
    let (_, globex) = h.tenant_with_key("globex", "live").await;
    let a = h.get("/v1/aws/external-id", &acme).await;
    assert_no_secret(&a.text());
    let a = a.expect(StatusCode::OK);
    let again = h
        .get("/v1/aws/external-id", &acme)
        .await
        .expect(StatusCode::OK);
    let g = h
        .get("/v1/aws/external-id", &globex)
        .await
        .expect(StatusCode::OK);
    let id = a["external_id"].as_str().unwrap();
    assert!(id.starts_with("relay-") && id.len() == 46, "{a}");
    assert_eq!(a, again);
    assert_ne!(a["external_id"], g["external_id"]);
    // Static keys: Relay cannot name its own principal.
    assert_eq!(a["principal"], Value::Null);
}

#[tokio::test]
async fn registration_assumes_the_role_and_refuses_what_sts_does_not_grant() {
    // Nothing listens on the STS port: the role cannot be assumed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let h = with_aws(port).await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "c").await;
    let r = h
        .post(
            "/v1/endpoints",
            &key,
            sqs_endpoint(&consumer, role_destination(port)),
        )
        .await;
    assert_no_secret(&r.text());
    let p = r.expect(StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(p["code"], "invalid_role", "{p}");
    assert!(
        p["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("STS could not be reached"),
        "{p}"
    );

    // Keys and a role at once, or neither: refused before any call.
    let mut both = role_destination(port);
    both["access_key_id"] = json!("secret:id");
    both["secret_access_key"] = json!("secret:key");
    let p = h
        .post("/v1/endpoints", &key, sqs_endpoint(&consumer, both))
        .await
        .expect(StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(p["code"], "invalid_credentials", "{p}");
    let mut neither = role_destination(port);
    neither.as_object_mut().unwrap().remove("role_arn");
    let p = h
        .post("/v1/endpoints", &key, sqs_endpoint(&consumer, neither))
        .await
        .expect(StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(p["code"], "invalid_credentials", "{p}");
    let mut user = role_destination(port);
    user["role_arn"] = json!("arn:aws:iam::123456789012:user/relay");
    let p = h
        .post("/v1/endpoints", &key, sqs_endpoint(&consumer, user))
        .await
        .expect(StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(p["code"], "invalid_role_arn", "{p}");
}

#[tokio::test]
async fn a_change_that_keeps_the_destination_assumes_no_role() {
    // Nothing listens on the STS port: no role could be assumed now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let h = with_aws(port).await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "c").await;
    // Registered earlier, while STS answered (written as registration writes it).
    let scope = relay_store::Scope {
        tenant_id: tenant,
        environment: relay_core::model::Environment::Live,
    };
    let now = relay_core::time::Clock::now(&*h.clock);
    let destination =
        relay_core::model::Destination::from_json(role_destination(port).to_string()).unwrap();
    let endpoint = relay_core::model::fixture::endpoint(
        relay_store::new_id(relay_core::id::IdKind::Endpoint, now),
        consumer,
        now,
    )
    .destination(destination)
    .event_types(&["order.created"])
    .build();
    let limits = relay_store::EndpointLimits {
        per_tenant: 10,
        per_consumer: 10,
    };
    relay_store::conformance::create_endpoint(&*h.db.store, &scope, &endpoint, &[], limits, None)
        .await
        .unwrap();
    let path = format!("/v1/endpoints/{}", endpoint.id);

    // A new description calls no service: STS being down does not refuse it.
    h.clock.advance_millis(1);
    let changed = h
        .patch(&path, &key, json!({"description": "the orders queue"}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(changed["description"], "the orders queue");
    // A new destination is checked again: refused while the role cannot be assumed.
    let mut other = role_destination(port);
    other["queue_url"] = json!(format!("https://127.0.0.1:{port}/123456789012/other"));
    h.clock.advance_millis(1);
    h.patch(&path, &key, json!({ "destination": other }))
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_role");
}
