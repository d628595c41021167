//! Three engines (three nodes, each its own store connection and owner) on
//! one private PostgreSQL schema and one real receiver: an endpoint's
//! `max_concurrency` and `rate_limit_per_second` hold for the whole
//! cluster (`relay_engine::shares`), not per node. PostgreSQL only
//! (`SKIPPED` without it).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use relay_core::time::Clock;
use relay_engine::{Dispatcher, EngineConfig};
use relay_net::HttpsClient;
use relay_receiver::Behavior;
use relay_store::{ExecutorExt as _, Store};
use tokio::sync::{Notify, watch};

const DATA: &str = r#"{"order":1042}"#;

/// A running node: its dispatcher, stop signal and engine task.
struct Node {
    dispatcher: Arc<Dispatcher>,
    stop: watch::Sender<bool>,
    handle: tokio::task::JoinHandle<()>,
}

/// `e`'s dispatcher and two more on other connections to its schema, all
/// started. The nodes poll every 50 ms (a rate-limited endpoint whose
/// bucket is empty is claimed again at the next poll), so the pace is
/// smooth enough to measure.
async fn three_nodes(e: &Env, tune: fn(&mut EngineConfig)) -> Vec<Node> {
    let mut dispatchers = vec![e.dispatcher.clone()];
    for n in 2..=3 {
        let store: Arc<dyn Store> = e.db.another_node("cluster").await.expect("PostgreSQL");
        let mut config = EngineConfig::new(&format!("node-{n}"));
        tune(&mut config);
        let guard = guard_for(&e.receiver, "receiver.test", "127.0.0.1", true);
        dispatchers.push(Dispatcher::new(
            store,
            Arc::new(WallClock) as Arc<dyn Clock>,
            HttpsClient::new(guard),
            relay_core::sealed::MasterKey::from_bytes(MASTER),
            config,
        ));
    }
    let mut nodes = Vec::new();
    for dispatcher in dispatchers {
        let (stop, stop_rx) = watch::channel(false);
        let handle = dispatcher
            .clone()
            .start(Arc::new(Notify::new()), stop_rx)
            .await;
        nodes.push(Node {
            dispatcher,
            stop,
            handle,
        });
    }
    nodes
}

async fn stop_all(nodes: Vec<Node>) {
    for n in &nodes {
        let _ = n.stop.send(true);
    }
    for n in nodes {
        n.handle.await.unwrap();
    }
}

fn tune(c: &mut EngineConfig) {
    c.poll_interval = Duration::from_millis(50);
}

/// The shares of `key` written in the database now: (node, slots, rate).
async fn shares_of(s: &dyn Store, key: &str) -> Vec<(String, u32, u32)> {
    let key = key.to_string();
    s.read(move |mut x| Box::pin(async move { relay_store::shares::list(&mut x, &key).await }))
        .await
        .unwrap()
        .into_iter()
        .map(|sh| (sh.node, sh.slots, sh.rate))
        .collect()
}

/// How many deliveries each node counted, once they add up to `total`
/// (a delivery is counted when its completion is handled).
async fn delivered_per_node(nodes: &[Node], total: u64) -> Vec<u64> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let per_node: Vec<u64> = nodes
            .iter()
            .map(|n| n.dispatcher.metrics().outcome_count("delivered"))
            .collect();
        if per_node.iter().sum::<u64>() >= total || Instant::now() > deadline {
            assert_eq!(per_node.iter().sum::<u64>(), total, "{per_node:?}");
            return per_node;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_hold_one_max_concurrency_between_them() {
    let Some(e) = Env::start(Setup {
        postgres: true,
        wall_clock: true,
        verify: false,
        behavior: Behavior::delay(Duration::from_millis(100), Behavior::ok()),
        tune,
        endpoint: |ep| ep.max_concurrency = 4,
        ..Default::default()
    })
    .await
    else {
        return;
    };
    let nodes = three_nodes(&e, tune).await;
    // Scheduled, not leased at publish by the first node: every node claims.
    e.store().set_intake(None);
    let total = 60;
    for i in 0..total {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    e.receiver
        .wait_for_count(total, Duration::from_secs(30))
        .await
        .expect("every message delivered");
    let most = e.receiver.max_concurrent_total();
    assert!(most <= 4, "the receiver saw {most} requests at once");
    // Several nodes delivered: the limit was shared, not held by one.
    let per_node = delivered_per_node(&nodes, total).await;
    assert!(
        per_node.iter().filter(|n| **n > 0).count() >= 2,
        "{per_node:?}"
    );
    // Never more than the limit written between them.
    let written: u32 = shares_of(e.store(), &e.endpoint.id)
        .await
        .iter()
        .map(|s| s.1)
        .sum();
    assert!(written <= 4, "{written}");
    stop_all(nodes).await;
    // Stopped nodes give their shares back.
    assert_eq!(shares_of(e.store(), &e.endpoint.id).await, vec![]);
    e.db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_hold_one_rate_limit_between_them() {
    let Some(e) = Env::start(Setup {
        postgres: true,
        wall_clock: true,
        verify: false,
        tune,
        endpoint: |ep| {
            ep.max_concurrency = 100;
            ep.rate_limit_per_second = Some(50);
        },
        ..Default::default()
    })
    .await
    else {
        return;
    };
    // The backlog is there before the nodes start: six seconds' worth.
    e.store().set_intake(None);
    let total = 300usize;
    for i in 0..total {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    let nodes = three_nodes(&e, tune).await;
    let started = Instant::now();
    e.receiver
        .wait_for_count(total as u64, Duration::from_secs(20))
        .await
        .expect("every message delivered");
    let mut arrivals: Vec<Instant> = e
        .receiver
        .requests()
        .iter()
        .map(|r| r.received_at)
        .collect();
    arrivals.sort();
    // The pace from the 50th arrival to the 250th (the nodes' first shares
    // start empty, so there is no burst to leave out; the ends are left out
    // so neither the start nor the tail decides).
    let (lo, hi) = (50, 250);
    let rate = (hi - lo) as f64 / (arrivals[hi] - arrivals[lo]).as_secs_f64();
    assert!(
        (45.0..=55.0).contains(&rate),
        "{rate:.1}/s for a limit of 50/s (all {total} in {:?})",
        started.elapsed()
    );
    let per_node = delivered_per_node(&nodes, total as u64).await;
    assert!(
        per_node.iter().filter(|n| **n > 0).count() >= 2,
        "{per_node:?}"
    );
    stop_all(nodes).await;
    e.db.cleanup().await;
}
