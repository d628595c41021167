//! Bulk operations and manual attempts under a hostile tenant (issue #39,
//! section 3): a large recover works in bounded chunks, so another tenant's
//! publishes do not wait behind SQLite's single writer; manual test sends go
//! through the endpoint's lane (its concurrency), with a cap on the manual
//! attempts waiting for it, above which the API answers `429` with
//! `Retry-After`.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::*;
use relay_core::model::{Environment, MessageState};
use relay_net::{Guard, OutboundConfig, StaticResolver};
use relay_receiver::{Behavior, Receiver, ReceiverConfig};
use relay_store::conformance::TestDb;
use relay_store::{ExecutorExt as _, MessageFilter, PageRequest, Scope};
use serde_json::json;

/// The failed messages the large recover restarts.
const RECOVERED: u64 = 50_000;

/// The tests of this file one at a time: the recover's is a measurement,
/// which 2,000 concurrent test sends beside it would disturb.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The 99th percentile of `samples`.
fn p99(samples: &[Duration]) -> Duration {
    let mut s = samples.to_vec();
    s.sort();
    s[((s.len() as f64 * 0.99).ceil() as usize).clamp(1, s.len()) - 1]
}

/// One publish of tenant B's, timed.
async fn timed_publish(h: &Harness, key: &str, n: usize) -> Duration {
    let started = Instant::now();
    h.publish(
        key,
        json!({"id": format!("evt_b_{n}"), "type": "order.created", "data": {"n": n}}),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_recover_leaves_another_tenants_publishes_their_own_pace() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let h = Arc::new(Harness::new().await);
    // Tenant A: one endpoint with 50,000 failed messages.
    let (a, a_key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&a_key, "order.shipped").await;
    let c = h.consumer(&a_key, "acme").await;
    let ep = id_of(&h.endpoint(&a_key, &c, &["order.shipped"]).await);
    let scope = Scope {
        tenant_id: a,
        environment: Environment::Live,
    };
    let created = T0.plus_seconds(-3600);
    {
        let (scope, ep) = (scope.clone(), ep.clone());
        h.db.store
            .write(relay_store::Commit::Durable, move |mut x| {
                Box::pin(async move {
                    let seed = relay_store::seed::Messages {
                        scope: &scope,
                        endpoint_id: &ep,
                        prefix: "evt_a_",
                        event_type: "order.shipped",
                        state: MessageState::Exhausted,
                        due: None,
                        attempts_used: 10,
                        now: created,
                    };
                    relay_store::seed::messages(&mut x, &seed, 1, RECOVERED).await
                })
            })
            .await
            .expect("seed the failed messages");
    }
    // Tenant B publishes, one request after the other.
    let (_, b_key) = h.tenant_with_key("globex", "live").await;
    h.open_event_type(&b_key, "order.created").await;
    let bc = h.consumer(&b_key, "globex").await;
    h.endpoint(&b_key, &bc, &["order.created"]).await;
    let mut n = 0;
    let baseline = async |n: &mut usize| {
        let mut samples = Vec::new();
        for _ in 0..300 {
            *n += 1;
            samples.push(timed_publish(&h, &b_key, *n).await);
        }
        samples
    };
    let before = baseline(&mut n).await;

    let done = Arc::new(AtomicBool::new(false));
    let recover = {
        let (h, a_key, ep, done) = (h.clone(), a_key.clone(), ep.clone(), done.clone());
        tokio::spawn(async move {
            let started = Instant::now();
            let r = h
                .post(
                    &format!("/v1/endpoints/{ep}/recover"),
                    &a_key,
                    json!({"since": T0.plus_seconds(-7200).to_rfc3339()}),
                )
                .await;
            done.store(true, Ordering::SeqCst);
            (r, started.elapsed())
        })
    };
    // Every publish that started before the recover answered: one that
    // waited behind it ends after it.
    let mut during = Vec::new();
    while !done.load(Ordering::SeqCst) {
        n += 1;
        during.push(timed_publish(&h, &b_key, n).await);
    }
    let (recovered, took) = recover.await.unwrap();
    let after = baseline(&mut n).await;

    let recovered = recovered.expect(StatusCode::OK);
    // The baseline is B alone, before and after the recover: the larger of
    // the two, so that a neighbour's load on the machine during one of them
    // does not decide.
    let base = p99(&before).max(p99(&after));
    eprintln!(
        "recover of {RECOVERED}: {took:?}; B's publish p99 alone {:?} / {:?}, during the recover {:?} ({} publishes)",
        p99(&before),
        p99(&after),
        p99(&during),
        during.len()
    );
    assert!(
        p99(&during) <= base * 2,
        "tenant B's publishes waited behind A's recover: p99 {:?} during it, {base:?} alone",
        p99(&during)
    );
    // Complete and exact: every failed message restarted, each once.
    assert_eq!(recovered["requeued"], RECOVERED, "{recovered}");
    let left = relay_store::conformance::list_messages(
        &*h.db.store,
        &scope,
        &MessageFilter {
            endpoint_id: Some(ep.clone()),
            states: Some(vec![MessageState::Exhausted]),
            ..Default::default()
        },
        &PageRequest {
            after: None,
            limit: 1,
        },
    )
    .await
    .unwrap();
    assert!(left.data.is_empty(), "a failed message was not recovered");
}

/// The endpoint's lane in the test below.
const LANE: u64 = 2;
const SENDS: usize = 2_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_test_sends_go_through_the_endpoints_lane() {
    let _alone = ONE_AT_A_TIME.lock().await;
    const HOST: &str = "hooks.lane.test";
    let receiver = Receiver::start(ReceiverConfig {
        extra_names: vec![HOST.into()],
        ..Default::default()
    })
    .await
    .unwrap();
    // Each attempt takes a while, so the test sends overlap.
    receiver.set_behavior(Behavior::delay(Duration::from_millis(50), Behavior::ok()));
    let outbound = OutboundConfig {
        allow_ports: vec![receiver.port()],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![receiver.ca_pem_path().to_path_buf()],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]);
    let guard = Arc::new(Guard::with_resolver(&outbound, Arc::new(resolver)).expect("guard"));
    let h = Arc::new(
        Harness::build(
            TestDb::sqlite().await,
            Default::default(),
            guard,
            relay_engine::EngineConfig::new("api-lanes"),
        )
        .await,
    );
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.put(
        "/v1/event-types/order.created",
        &key,
        json!({"schema": {"type": "object"}, "sample": {"order_id": "1"}}),
    )
    .await
    .expect(StatusCode::CREATED);
    let c = h.consumer(&key, "acme").await;
    let mut body = endpoint_body(&c, &["order.created"]);
    body["destination"]["url"] = json!(receiver.url_for_host(HOST, "/hooks"));
    body["max_concurrency"] = json!(LANE);
    let ep = id_of(
        &h.post("/v1/endpoints", &key, body)
            .await
            .expect(StatusCode::CREATED),
    );

    let sends: Vec<_> = (0..SENDS)
        .map(|_| {
            let (h, key, ep) = (h.clone(), key.clone(), ep.clone());
            tokio::spawn(async move {
                h.post(&format!("/v1/endpoints/{ep}/test"), &key, json!({}))
                    .await
            })
        })
        .collect();
    let (mut sent, mut limited) = (0u64, 0u64);
    for send in sends {
        let r = send.await.unwrap();
        match r.status {
            StatusCode::OK => {
                assert_eq!(r.json()["attempt"]["status_code"], 200, "{}", r.text());
                sent += 1;
            }
            StatusCode::TOO_MANY_REQUESTS => {
                r.problem(StatusCode::TOO_MANY_REQUESTS, "manual_attempts_limited");
                let after = r
                    .headers
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok());
                assert!(after.is_some_and(|s| s >= 1), "429 without Retry-After");
                limited += 1;
            }
            other => panic!("a test send answered {other}: {}", r.text()),
        }
    }
    eprintln!(
        "{SENDS} concurrent test sends: {sent} sent, {limited} refused; at most {} in flight, {} connections open at the receiver",
        receiver.max_concurrent_total(),
        receiver.max_open_connections()
    );
    assert!(
        receiver.max_open_connections() <= LANE,
        "{} connections open at once to an endpoint whose lane is {LANE}",
        receiver.max_open_connections()
    );
    assert!(
        receiver.max_concurrent_total() as u64 <= LANE,
        "{} attempts at once to an endpoint whose lane is {LANE}",
        receiver.max_concurrent_total()
    );
    assert!(sent >= LANE, "the lane's worth of test sends went out");
    assert!(limited > 0, "the excess was refused");
    assert_eq!(sent + limited, SENDS as u64);
    assert_eq!(
        receiver.count(),
        sent,
        "each test send that went out arrived once"
    );
}
