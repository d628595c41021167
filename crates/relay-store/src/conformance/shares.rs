//! Cluster shares (`crate::shares`): the nodes that want an endpoint split
//! its limit between them, never holding more than the limit at any commit;
//! a node keeps what it has in flight; expired rows are reclaimed; a node
//! that wants nothing gives its share back.

use std::collections::BTreeMap;

use crate::exec::Exec as _;
use crate::rows::RowExt as _;
use crate::shares::{self, Grant, Want};
use crate::{Commit, ExecutorExt as _, Store};

fn want(key: &str, slots: u32, rate: u32, in_flight: u32, wants: bool) -> Want {
    Want {
        key: key.to_string(),
        slots,
        rate,
        in_flight,
        wants,
    }
}

async fn renew_ttl(s: &dyn Store, node: &str, wants: Vec<Want>, ttl_millis: i64) -> Vec<Grant> {
    let node = node.to_string();
    s.write(Commit::Lease, move |mut x| {
        Box::pin(async move { shares::renew(&mut x, &node, &wants, ttl_millis, |_| {}).await })
    })
    .await
    .unwrap()
}

async fn renew(s: &dyn Store, node: &str, w: Want) -> Grant {
    renew_ttl(s, node, vec![w], 60_000).await.remove(0)
}

/// Node → (slots, rate) of the unexpired shares of `key`.
async fn held(s: &dyn Store, key: &str) -> BTreeMap<String, (u32, u32)> {
    let key = key.to_string();
    s.read(move |mut x| Box::pin(async move { shares::list(&mut x, &key).await }))
        .await
        .unwrap()
        .into_iter()
        .map(|sh| (sh.node, (sh.slots, sh.rate)))
        .collect()
}

async fn sums(s: &dyn Store, key: &str) -> (u32, u32) {
    held(s, key)
        .await
        .values()
        .fold((0, 0), |(a, b), (x, y)| (a + x, b + y))
}

pub async fn cluster_shares_split_a_limit_and_never_sum_over_it(s: &dyn Store) {
    let ep = "ep_shared";
    // Alone, a node holds the whole limit.
    let a = renew(s, "node-a", want(ep, 4, 10, 0, true)).await;
    assert_eq!((a.slots, a.rate, a.released), (4, 10, false));
    // A second node takes only what the first gave back.
    let b = renew(s, "node-b", want(ep, 4, 10, 0, true)).await;
    assert_eq!((b.slots, b.rate), (0, 0), "node-a holds it all");
    assert_eq!(sums(s, ep).await, (4, 10));
    let a = renew(s, "node-a", want(ep, 4, 10, 0, true)).await;
    assert_eq!((a.slots, a.rate), (2, 5), "down to its half");
    let b = renew(s, "node-b", want(ep, 4, 10, 0, true)).await;
    assert_eq!((b.slots, b.rate), (2, 5));
    // A third joins: every commit stays within the limit, and the nodes
    // converge to the even split, the remainder where the key's hash puts it.
    let nodes = ["node-a", "node-b", "node-c"];
    for _ in 0..3 {
        for n in ["node-c", "node-a", "node-b"] {
            renew(s, n, want(ep, 4, 10, 0, true)).await;
            let (slots, rate) = sums(s, ep).await;
            assert!(slots <= 4 && rate <= 10, "{:?}", held(s, ep).await);
        }
    }
    let now = held(s, ep).await;
    for n in nodes {
        let expect = (
            relay_core::share::target(4, &nodes, n, ep),
            relay_core::share::target(10, &nodes, n, ep),
        );
        assert_eq!(now[n], expect, "{now:?}");
    }
    let mut slots: Vec<u32> = now.values().map(|v| v.0).collect();
    slots.sort_unstable();
    assert_eq!(slots, vec![1, 1, 2], "2/1/1");
}

pub async fn cluster_shares_keep_what_is_in_flight_and_reclaim_expired_rows(s: &dyn Store) {
    let ep = "ep_floor";
    // node-a holds 4 and has 3 in flight when node-b comes.
    renew(s, "node-a", want(ep, 4, 0, 3, true)).await;
    renew(s, "node-b", want(ep, 4, 0, 0, true)).await;
    let a = renew(s, "node-a", want(ep, 4, 0, 3, true)).await;
    assert_eq!(a.slots, 3, "never below what it has in flight");
    assert_eq!(a.allowed, 2, "but starts nothing until under its part");
    let b = renew(s, "node-b", want(ep, 4, 0, 0, true)).await;
    assert_eq!(b.slots, 1, "what node-a leaves");
    // Its attempts finish: it gives back down to its target.
    let a = renew(s, "node-a", want(ep, 4, 0, 0, true)).await;
    assert_eq!((a.slots, a.allowed), (2, 2));
    let b = renew(s, "node-b", want(ep, 4, 0, 0, true)).await;
    assert_eq!(b.slots, 2);
    assert_eq!(sums(s, ep).await.0, 4);
    // A node that does not want the key, with nothing in flight, gives its
    // share back; with something in flight it keeps that much.
    let b = renew(s, "node-b", want(ep, 4, 0, 1, false)).await;
    assert_eq!((b.slots, b.allowed, b.released), (1, 0, false));
    let b = renew(s, "node-b", want(ep, 4, 0, 0, false)).await;
    assert!(b.released);
    assert_eq!(held(s, ep).await.len(), 1);
    assert_eq!(renew(s, "node-a", want(ep, 4, 0, 0, true)).await.slots, 4);
    // A node whose row expired (cut off from the database) holds nothing:
    // the next renewal of another node reclaims its slots.
    renew_ttl(s, "node-c", vec![want(ep, 4, 0, 0, true)], -1).await;
    assert!(!held(s, ep).await.contains_key("node-c"), "expired at once");
    let a = renew(s, "node-a", want(ep, 4, 0, 0, true)).await;
    assert_eq!(a.slots, 4, "node-c's expired row is not counted");
    // A settled grant (raised to what is in flight at the last moment) is
    // what is written.
    let node = "node-d".to_string();
    let w = vec![want("ep_settled", 4, 0, 0, true)];
    let g = s
        .write(Commit::Lease, move |mut x| {
            Box::pin(async move {
                shares::renew(&mut x, &node, &w, 60_000, |g| {
                    assert_eq!(g[0].slots, 4, "alone");
                    g[0].slots = 3;
                })
                .await
            })
        })
        .await
        .unwrap();
    assert_eq!(g[0].slots, 3);
    assert_eq!(held(s, "ep_settled").await["node-d"], (3, 0));
}

/// Rows in the table, expired or not.
async fn rows(s: &dyn Store) -> i64 {
    s.read(move |mut x| {
        Box::pin(async move {
            let found = x
                .fetch(&crate::sql::SqlBuilder::new(
                    "SELECT COUNT(*) AS n FROM endpoint_shares",
                ))
                .await?;
            found[0].int("n")
        })
    })
    .await
    .unwrap()
}

pub async fn expired_share_rows_of_a_crashed_node_are_purged(s: &dyn Store) {
    // A node that crashed holding two endpoints no node renews any more,
    // and a live node's share of a third.
    renew_ttl(
        s,
        "node-dead",
        vec![
            want("ep_orphan_1", 4, 0, 0, true),
            want("ep_orphan_2", 4, 10, 0, true),
        ],
        -1,
    )
    .await;
    renew_ttl(s, "node-live", vec![want("ep_live", 4, 0, 0, true)], 60_000).await;
    let before = rows(s).await;
    let purged = s
        .write(Commit::Durable, |mut x| {
            Box::pin(async move { shares::purge_expired(&mut x).await })
        })
        .await
        .unwrap();
    assert_eq!(purged, 2, "the crashed node's rows");
    assert_eq!(rows(s).await, before - 2);
    assert_eq!(
        held(s, "ep_live").await["node-live"],
        (4, 0),
        "a live share stays"
    );
}

pub async fn concurrent_renewals_of_many_keys_commit_without_deadlock(s: &dyn Store) {
    let keys: Vec<String> = (0..40).map(|i| format!("ep_{i:02}")).collect();
    let forward: Vec<Want> = keys.iter().map(|k| want(k, 3, 0, 0, true)).collect();
    let backward: Vec<Want> = forward.iter().rev().cloned().collect();
    for _ in 0..5 {
        let (a, b) = tokio::join!(
            renew_ttl(s, "node-a", forward.clone(), 60_000),
            renew_ttl(s, "node-b", backward.clone(), 60_000),
        );
        assert_eq!((a.len(), b.len()), (40, 40));
        for k in &keys {
            assert!(sums(s, k).await.0 <= 3);
        }
    }
    // Grants come back in key order.
    let got: Vec<String> = renew_ttl(s, "node-a", backward, 60_000)
        .await
        .into_iter()
        .map(|g| g.key)
        .collect();
    assert_eq!(got, keys);
}
