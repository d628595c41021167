//! Relay's operational events reach the tenant's own systems only: an
//! endpoint that fails continuously, walked hour by hour with the injected
//! clock; at hour 72 the tenant's own endpoint receives
//! `webhook_endpoint.failure_warned`, and no customer's endpoint does (one
//! subscribed to `*`, one that names the type, as could be done before
//! consumers had a kind).

mod common;

use common::{Env, Setup};
use relay_core::id::IdKind;
use relay_core::model::{Consumer, ConsumerKind, Endpoint, SignatureScheme, fixture};
use relay_core::operational::ENDPOINT_FAILURE_WARNED;
use relay_core::time::Clock;
use relay_receiver::Behavior;
use relay_store::{EndpointLimits, new_id};

const HOUR_MS: i64 = 3_600_000;

async fn add_endpoint(e: &Env, consumer_id: &str, path: &str, types: &[&str]) -> Endpoint {
    let now = e.clock.now();
    let id = new_id(IdKind::Endpoint, now);
    let endpoint = fixture::endpoint(id.clone(), consumer_id, now)
        .environment(e.endpoint.environment)
        .https(e.receiver.url_for_host("receiver.test", path))
        .event_types(types)
        .signature_scheme(e.endpoint.signature_scheme)
        .build();
    let (record, _) = relay_store::keys::generate(
        &relay_core::sealed::MasterKey::from_bytes(common::MASTER),
        &id,
        SignatureScheme::V1a,
        now,
    );
    relay_store::conformance::create_endpoint(
        e.store(),
        &e.scope,
        &endpoint,
        &[record],
        EndpointLimits {
            per_tenant: 100,
            per_consumer: 100,
        },
        None,
    )
    .await
    .unwrap();
    endpoint
}

async fn the_72_hour_warning_goes_to_the_tenant_only(postgres: bool) {
    let Some(e) = Env::start(Setup {
        verify: false,
        postgres,
        ..Default::default()
    })
    .await
    else {
        return;
    };
    // The customer's endpoint (`/hooks`) fails every attempt.
    e.receiver
        .set_path_behavior("/hooks", Behavior::status(500));
    let now = e.clock.now();
    let own = Consumer {
        id: new_id(IdKind::Consumer, now),
        external_id: "ourselves".into(),
        kind: ConsumerKind::Tenant,
        name: None,
        source: "https://acme.example/ops".into(),
        environment: e.scope.environment,
        created_at: now,
        updated_at: now,
    };
    relay_store::conformance::create_consumer(e.store(), &e.scope, &own)
        .await
        .unwrap();
    add_endpoint(&e, &own.id, "/ops", &[ENDPOINT_FAILURE_WARNED]).await;
    add_endpoint(&e, &e.consumer.id, "/all", &["*"]).await;
    add_endpoint(&e, &e.consumer.id, "/named", &[ENDPOINT_FAILURE_WARNED]).await;

    let warned = |path: &str| {
        e.receiver
            .requests_to(path)
            .iter()
            .filter(|r| {
                r.body_str()
                    .is_some_and(|b| b.contains(ENDPOINT_FAILURE_WARNED))
            })
            .count()
    };
    let mut warned_at = None;
    for hour in 0..=74 {
        e.publish(&format!("evt_h{hour:02}"), r#"{"order_id":"1"}"#)
            .await;
        // Everything due now, and what the completions produce.
        while e.dispatcher.run_once().await.unwrap() > 0 {}
        if warned_at.is_none() && warned("/ops") > 0 {
            warned_at = Some(hour);
        }
        e.clock.advance_millis(HOUR_MS);
    }
    assert_eq!(warned_at, Some(72), "the warning comes at hour 72");
    assert_eq!(warned("/ops"), 1, "once");
    let body = e.receiver.requests_to("/ops")[0]
        .body_str()
        .unwrap()
        .to_string();
    assert!(body.contains(&e.endpoint.id), "{body}");
    assert_eq!(warned("/all"), 0, "`*` does not include operational events");
    assert!(
        !e.receiver.requests_to("/all").is_empty(),
        "the `*` endpoint got the ordinary events"
    );
    assert!(
        e.receiver.requests_to("/named").is_empty(),
        "a customer's endpoint never receives them"
    );
    assert!(
        e.receiver.requests_to("/hooks").len() > 20,
        "the failing endpoint was attempted all along"
    );
    e.db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_72_hour_warning_goes_to_the_tenant_only_sqlite() {
    the_72_hour_warning_goes_to_the_tenant_only(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_72_hour_warning_goes_to_the_tenant_only_postgres() {
    the_72_hour_warning_goes_to_the_tenant_only(true).await;
}
