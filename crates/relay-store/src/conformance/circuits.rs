//! Endpoints' circuit breakers for the whole cluster (`crate::circuits`):
//! several nodes' signals move one circuit.

use relay_core::circuit::{BreakerConfig, Circuit, Signal};

use crate::circuits::{self, Push, Synced};
use crate::exec::Commit;
use crate::{ExecutorExt, Store};

const CONFIG: BreakerConfig = BreakerConfig {
    failure_threshold: 3,
    cool_down_millis: 60_000,
    half_open_probes: 3,
};

/// One node's sync of `pushes`, with permits good for `permit_millis`.
async fn sync(
    s: &dyn Store,
    pushes: Vec<Push>,
    config: BreakerConfig,
    permit_millis: i64,
) -> Synced {
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { circuits::sync(&mut x, pushes, config, permit_millis).await })
    })
    .await
    .expect("sync")
}

fn push(endpoint_id: &str, signals: &[Signal]) -> Push {
    Push {
        endpoint_id: endpoint_id.into(),
        signals: signals.to_vec(),
        ..Default::default()
    }
}

fn wants(endpoint_id: &str, wanted: u32, returned: u32) -> Push {
    Push {
        endpoint_id: endpoint_id.into(),
        wanted,
        returned,
        ..Default::default()
    }
}

async fn circuit(s: &dyn Store, endpoint_id: &str) -> Circuit {
    let id = endpoint_id.to_string();
    s.read(move |mut x| Box::pin(async move { circuits::get(&mut x, &id).await }))
        .await
        .expect("read the circuit")
        .0
}

fn shown(synced: &Synced, endpoint_id: &str) -> Option<Circuit> {
    synced
        .not_closed
        .iter()
        .find(|(id, _)| id == endpoint_id)
        .map(|(_, c)| *c)
}

/// Consecutive failures count across nodes; a success from any node resets
/// them; the threshold opens the circuit for the cool-down on the
/// database's clock; failures while open do not extend it.
pub async fn circuit_signals_from_several_nodes_fold_into_one_count(s: &dyn Store) {
    use Signal::*;
    // Node A saw two failures, node B one: three in a row open it.
    let a = sync(s, vec![push("ep_a", &[Failure, Failure])], CONFIG, 60_000).await;
    assert_eq!(shown(&a, "ep_a"), None, "closed: not read back");
    assert_eq!(
        circuit(s, "ep_a").await,
        Circuit::Closed {
            consecutive_failures: 2
        }
    );
    let b = sync(
        s,
        vec![push("ep_a", &[Neutral, Rejected, Failure])],
        CONFIG,
        60_000,
    )
    .await;
    let Some(Circuit::Open { until }) = shown(&b, "ep_a") else {
        panic!("three failures across two nodes open it: {b:?}");
    };
    assert!(
        until >= b.now.plus_millis(59_000) && until <= b.now.plus_millis(60_000),
        "open for the cool-down from the database's now: {until:?} vs {:?}",
        b.now
    );
    // Failures of attempts that started before it opened change nothing.
    let c = sync(s, vec![push("ep_a", &[Failure, Failure])], CONFIG, 60_000).await;
    assert_eq!(shown(&c, "ep_a"), Some(Circuit::Open { until }));
    // Every node reads every circuit that is not closed.
    let d = sync(s, vec![], CONFIG, 60_000).await;
    assert_eq!(
        d.not_closed,
        vec![("ep_a".to_string(), Circuit::Open { until })]
    );
    assert!(d.now >= b.now, "the database's clock");

    // A success in between (another node's) resets the count.
    sync(s, vec![push("ep_b", &[Failure, Failure])], CONFIG, 60_000).await;
    sync(s, vec![push("ep_b", &[Success])], CONFIG, 60_000).await;
    assert_eq!(
        circuit(s, "ep_b").await,
        Circuit::default(),
        "reset (row gone)"
    );
    let e = sync(s, vec![push("ep_b", &[Failure, Failure])], CONFIG, 60_000).await;
    assert_eq!(shown(&e, "ep_b"), None);
    assert_eq!(
        circuit(s, "ep_b").await,
        Circuit::Closed {
            consecutive_failures: 2
        }
    );
    // One node's pushes for several endpoints at once, in any order.
    let f = sync(
        s,
        vec![
            push("ep_c", &[Failure, Failure, Failure]),
            push("ep_b", &[Failure]),
            push("ep_d", &[Success]),
        ],
        CONFIG,
        60_000,
    )
    .await;
    let open: Vec<&str> = f.not_closed.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(open, vec!["ep_a", "ep_b", "ep_c"]);
    assert_eq!(
        circuit(s, "ep_d").await,
        Circuit::default(),
        "a success makes no row"
    );
}

/// Half-open, probes go only with a permit from the row: at most
/// `half_open_probes` out across nodes; a permit comes back unused or with
/// a probe that said nothing; a success closes it for every node, a
/// failure opens it for another cool-down.
pub async fn half_open_probes_are_granted_at_most_the_configured_number_across_nodes(
    s: &dyn Store,
) {
    use Signal::*;
    let now_over = BreakerConfig {
        cool_down_millis: 0,
        ..CONFIG
    };
    let open = sync(
        s,
        vec![push("ep_p", &[Failure, Failure, Failure])],
        now_over,
        60_000,
    )
    .await;
    assert_eq!(
        shown(&open, "ep_p"),
        Some(Circuit::HalfOpen {
            probes_in_flight: 0
        }),
        "a cool-down of nothing is over at once"
    );
    let a = sync(s, vec![wants("ep_p", 2, 0)], now_over, 60_000).await;
    assert_eq!(a.granted, vec![("ep_p".to_string(), 2)]);
    let b = sync(s, vec![wants("ep_p", 2, 0)], now_over, 60_000).await;
    assert_eq!(
        b.granted,
        vec![("ep_p".to_string(), 1)],
        "three at most across nodes"
    );
    assert_eq!(
        shown(&b, "ep_p"),
        Some(Circuit::HalfOpen {
            probes_in_flight: 3
        })
    );
    let c = sync(s, vec![wants("ep_p", 1, 0)], now_over, 60_000).await;
    assert!(c.granted.is_empty(), "none left: {c:?}");
    // Node A gives one back unused; node C gets it.
    sync(s, vec![wants("ep_p", 0, 1)], now_over, 60_000).await;
    let c = sync(s, vec![wants("ep_p", 1, 0)], now_over, 60_000).await;
    assert_eq!(c.granted, vec![("ep_p".to_string(), 1)]);
    // A probe that said nothing of the endpoint's health frees its place.
    let a = sync(s, vec![push("ep_p", &[Rejected])], now_over, 60_000).await;
    assert_eq!(
        shown(&a, "ep_p"),
        Some(Circuit::HalfOpen {
            probes_in_flight: 2
        })
    );
    // A probe's failure opens it again for another cool-down.
    let b = sync(s, vec![push("ep_p", &[Failure])], CONFIG, 60_000).await;
    assert!(
        matches!(shown(&b, "ep_p"), Some(Circuit::Open { until }) if until >= b.now.plus_millis(59_000)),
        "{b:?}"
    );
    let none = sync(s, vec![wants("ep_p", 1, 0)], CONFIG, 60_000).await;
    assert!(none.granted.is_empty(), "no permit while open");

    // Another endpoint: a probe's success closes it, for every node.
    sync(
        s,
        vec![push("ep_q", &[Failure, Failure, Failure])],
        now_over,
        60_000,
    )
    .await;
    let a = sync(s, vec![wants("ep_q", 1, 0)], now_over, 60_000).await;
    assert_eq!(a.granted, vec![("ep_q".to_string(), 1)]);
    let a = sync(s, vec![push("ep_q", &[Success])], now_over, 60_000).await;
    assert_eq!(shown(&a, "ep_q"), None);
    assert_eq!(circuit(s, "ep_q").await, Circuit::default());
    let b = sync(s, vec![wants("ep_q", 1, 0)], now_over, 60_000).await;
    assert!(b.granted.is_empty(), "closed: no permits needed");
}

/// Permits out past their lifetime (a node died holding them) count no
/// more: the next node's sync is granted them again.
pub async fn expired_probe_permits_come_back(s: &dyn Store) {
    use Signal::*;
    let now_over = BreakerConfig {
        cool_down_millis: 0,
        ..CONFIG
    };
    sync(
        s,
        vec![push("ep_x", &[Failure, Failure, Failure])],
        now_over,
        0,
    )
    .await;
    sync(
        s,
        vec![push("ep_y", &[Failure, Failure, Failure])],
        now_over,
        0,
    )
    .await;
    // A node takes every permit of both, and dies. ep_x's expire at once
    // (a lifetime of nothing), ep_y's in a minute.
    let dead = sync(s, vec![wants("ep_x", 3, 0)], now_over, 0).await;
    assert_eq!(dead.granted, vec![("ep_x".to_string(), 3)]);
    let dead = sync(s, vec![wants("ep_y", 3, 0)], now_over, 60_000).await;
    assert_eq!(dead.granted, vec![("ep_y".to_string(), 3)]);
    let other = sync(
        s,
        vec![wants("ep_x", 3, 0), wants("ep_y", 3, 0)],
        now_over,
        60_000,
    )
    .await;
    assert_eq!(
        other.granted,
        vec![("ep_x".to_string(), 3)],
        "the expired permits came back; the others are still out"
    );
    assert_eq!(
        shown(&other, "ep_y"),
        Some(Circuit::HalfOpen {
            probes_in_flight: 3
        })
    );
}
