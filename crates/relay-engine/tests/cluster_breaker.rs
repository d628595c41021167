//! One circuit breaker per endpoint for the whole cluster: three engines
//! (three nodes, each with its own store connection and owner) on one
//! PostgreSQL schema, delivering to one real receiver. Skipped without
//! PostgreSQL (SQLite is one process: the breaker is the process's own).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

use common::{Env, Setup, WAIT, guard_for};
use relay_core::circuit::{BreakerConfig, Circuit};
use relay_core::sealed::MasterKey;
use relay_core::time::Timestamp;
use relay_engine::{Dispatcher, EngineConfig};
use relay_net::HttpsClient;
use relay_receiver::{Behavior, Gate};
use relay_store::{ExecutorExt, Store};
use tokio::sync::{Notify, watch};

const BREAKER: BreakerConfig = BreakerConfig {
    failure_threshold: 3,
    cool_down_millis: 1500,
    half_open_probes: 2,
};

fn tune(c: &mut EngineConfig) {
    c.breaker = BREAKER;
    c.circuit_sync_interval = Duration::from_millis(100);
    c.poll_interval = Duration::from_millis(100);
}

struct Node {
    dispatcher: Arc<Dispatcher>,
    stop: watch::Sender<bool>,
    handle: tokio::task::JoinHandle<()>,
}

async fn start(dispatcher: Arc<Dispatcher>) -> Node {
    let (stop, stop_rx) = watch::channel(false);
    let handle = dispatcher
        .clone()
        .start(Arc::new(Notify::new()), stop_rx)
        .await;
    Node {
        dispatcher,
        stop,
        handle,
    }
}

/// Another node: its own store connection, owner and client, the same
/// (frozen) clock, so only the database's clock ends a cool-down.
async fn another_node(e: &Env, name: &str) -> Arc<Dispatcher> {
    let store =
        e.db.another_node("cluster breaker")
            .await
            .expect("PostgreSQL");
    let mut config = e.config.clone();
    config.owner = format!("{}-{name}", e.config.owner);
    let guard = guard_for(&e.receiver, "receiver.test", "127.0.0.1", true);
    Dispatcher::new(
        store,
        e.clock.clone(),
        HttpsClient::new(guard),
        MasterKey::from_bytes(common::MASTER),
        config,
    )
}

/// The cluster's circuit of the endpoint, with the database's now.
async fn cluster_circuit(store: &dyn Store, endpoint_id: &str) -> (Circuit, Timestamp) {
    let id = endpoint_id.to_string();
    store
        .read(move |mut x| Box::pin(async move { relay_store::circuits::get(&mut x, &id).await }))
        .await
        .unwrap()
}

/// Waits for `cond` to hold, failing with `what` after [`WAIT`].
async fn until<F: std::future::Future<Output = bool>>(what: &str, mut cond: impl FnMut() -> F) {
    let deadline = Instant::now() + WAIT;
    while !cond().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn millis_of(r: &relay_receiver::Recorded) -> i64 {
    r.received_at_system
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn failures_one_node_saw_hold_the_endpoint_on_every_node_until_a_probe_succeeds() {
    let Some(e) = Env::start(Setup {
        behavior: Behavior::status(503),
        postgres: true,
        tune,
        ..Setup::default()
    })
    .await
    else {
        return;
    };
    let ep = e.endpoint.id.clone();
    let publish = |n: std::ops::Range<u32>| {
        let e = &e;
        async move {
            for i in n {
                e.publish(&format!("evt_{i}"), r#"{"n":1}"#).await;
            }
        }
    };

    // Node A alone sees three failures: the cluster's circuit opens.
    let a = start(e.dispatcher.clone()).await;
    publish(0..3).await;
    e.receiver.wait_for(3, WAIT).await.unwrap();
    until("the cluster's circuit to open", || async {
        matches!(
            cluster_circuit(e.store(), &ep).await.0,
            Circuit::Open { .. }
        )
    })
    .await;
    let (Circuit::Open { until: open_until }, _) = cluster_circuit(e.store(), &ep).await else {
        panic!("open");
    };

    // Nodes B and C start now, having seen no failure: they hold the
    // endpoint from their first claim, and show the cluster's circuit.
    let b = start(another_node(&e, "b").await).await;
    let c = start(another_node(&e, "c").await).await;
    for node in [&a, &b, &c] {
        assert!(
            matches!(node.dispatcher.node_circuit(&ep), Circuit::Open { .. }),
            "{}: {:?}",
            node.dispatcher.config().owner,
            node.dispatcher.node_circuit(&ep)
        );
    }
    // Probes hang at the gate, then succeed.
    let gate = Gate::new();
    e.receiver
        .set_behavior(Behavior::gated(&gate, Behavior::ok()));
    publish(3..9).await;

    // Past the cool-down (the database's clock), probes go, at most two
    // across the three nodes; nothing else starts before one succeeds.
    e.receiver.wait_for(5, WAIT).await.unwrap();
    until(
        "both permits out and the last probe a second old",
        || async {
            let (circuit, now) = cluster_circuit(e.store(), &ep).await;
            let last = e.receiver.requests().iter().map(millis_of).max().unwrap();
            circuit
                == Circuit::HalfOpen {
                    probes_in_flight: 2,
                }
                && now.millis() >= last + 1000
        },
    )
    .await;
    assert_eq!(
        e.receiver.count(),
        5,
        "three failures, then two probes at most across the nodes"
    );
    let requests = e.receiver.requests();
    for r in &requests[3..] {
        assert!(
            millis_of(r) >= open_until.millis(),
            "an attempt while the circuit was open: {} < {}",
            millis_of(r),
            open_until.millis()
        );
    }

    // A probe succeeds: the circuit closes everywhere and the rest goes.
    gate.open();
    e.receiver.wait_for(9, WAIT).await.unwrap();
    until("every node's circuit to close", || async {
        [&a, &b, &c]
            .iter()
            .all(|n| n.dispatcher.node_circuit(&ep) == Circuit::default())
    })
    .await;
    assert_eq!(cluster_circuit(e.store(), &ep).await.0, Circuit::default());
    assert_eq!(e.receiver.count(), 9, "each new message attempted once");

    for node in [a, b, c] {
        node.stop.send(true).unwrap();
        node.handle.await.unwrap();
    }
    e.db.cleanup().await;
}
