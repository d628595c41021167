use std::time::Duration;

use relay_core::circuit::Signal;
use relay_core::time::Timestamp;
use relay_store::shares::Grant;
use tokio::time::Instant;

use super::*;
use crate::lanes::{Lanes, Refusal};

const T: Timestamp = Timestamp(1_000_000);

fn cluster() -> Lanes {
    let lanes = Lanes::default().with_shares(Shares::cluster(Duration::from_secs(2), (4, 0)));
    lanes.shares.renewed(Instant::now());
    lanes
}

fn grant(key: &str, slots: u32, rate: u32) -> Grant {
    Grant {
        key: key.to_string(),
        slots,
        allowed: slots,
        rate,
        released: false,
    }
}

#[test]
fn an_endpoint_met_first_is_refused_and_has_no_room_until_its_share_comes() {
    let lanes = cluster();
    assert!(lanes.room(T).is_empty(), "never seen: claimable");
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Err(Refusal::Full));
    assert_eq!(
        lanes.room(T),
        vec![("ep_a".to_string(), 0)],
        "known: room 0"
    );
    assert!(lanes.shares.ungranted());
    let wants = lanes.shares.wants(|_| 0, false, IDLE_TICKS);
    assert!(
        wants
            .iter()
            .any(|w| w.key == "ep_a" && w.wants && w.slots == 4)
    );
    lanes.granted(&[grant("ep_a", 2, 0)], T);
    assert_eq!(lanes.room(T), vec![("ep_a".to_string(), 2)]);
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Ok(()));
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Ok(()));
    assert_eq!(
        lanes.try_admit("ep_a", 4, None, T),
        Err(Refusal::Full),
        "its share, not the endpoint's 4"
    );
}

#[test]
fn a_lower_share_applies_before_the_commit_and_the_row_covers_what_is_in_flight() {
    let lanes = cluster();
    let _ = lanes.try_admit("ep_a", 4, None, T);
    lanes.granted(&[grant("ep_a", 3, 0)], T);
    for _ in 0..3 {
        assert_eq!(lanes.try_admit("ep_a", 4, None, T), Ok(()));
    }
    // The renewal would lower it to 1 with 3 in flight.
    let mut grants = vec![Grant {
        slots: 1,
        allowed: 1,
        ..grant("ep_a", 1, 0)
    }];
    settle(&lanes, |k| lanes.in_flight(k), &mut grants, T);
    assert_eq!(grants[0].slots, 3, "the row keeps what is in flight");
    lanes.done("ep_a", Signal::Success, T);
    assert_eq!(
        lanes.try_admit("ep_a", 4, None, T),
        Err(Refusal::Full),
        "lowered before the commit: 2 in flight, 1 allowed"
    );
    lanes.done("ep_a", Signal::Success, T);
    lanes.done("ep_a", Signal::Success, T);
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Ok(()));
    // A higher grant is not applied by the settling, only after the commit.
    let mut grants = vec![grant("ep_a", 4, 0)];
    settle(&lanes, |k| lanes.in_flight(k), &mut grants, T);
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Err(Refusal::Full));
    lanes.granted(&grants, T);
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Ok(()));
}

#[test]
fn a_share_of_a_rate_grows_empty_and_shrinks_clamped() {
    let lanes = cluster();
    let _ = lanes.try_admit("ep_r", 100, Some(10), T);
    // Half of the rate: it starts empty.
    lanes.granted(&[grant("ep_r", 100, 5)], T);
    assert!(matches!(
        lanes.try_admit("ep_r", 100, Some(10), T),
        Err(Refusal::RateLimited { .. })
    ));
    let later = Timestamp(T.0 + 1000);
    for _ in 0..5 {
        assert_eq!(lanes.try_admit("ep_r", 100, Some(10), later), Ok(()));
    }
    assert!(
        lanes.try_admit("ep_r", 100, Some(10), later).is_err(),
        "5 a second"
    );
    // A second later it holds 5 again; shrunk to 2, it holds 2.
    let after = Timestamp(T.0 + 2000);
    lanes.set_share("ep_r", (100, 2), after);
    assert_eq!(lanes.try_admit("ep_r", 100, Some(10), after), Ok(()));
    assert_eq!(lanes.try_admit("ep_r", 100, Some(10), after), Ok(()));
    assert!(lanes.try_admit("ep_r", 100, Some(10), after).is_err());
    // The window rule sees the endpoint's rate, not the share.
    assert_eq!(lanes.rate_limited(after)[0].1, 10);
    // The whole rate (no other node wants it) starts full.
    let _ = lanes.try_admit("ep_w", 100, Some(3), T);
    lanes.granted(&[grant("ep_w", 100, 3)], T);
    for _ in 0..3 {
        assert_eq!(lanes.try_admit("ep_w", 100, Some(3), T), Ok(()));
    }
}

#[test]
fn a_node_that_cannot_renew_within_the_ttl_holds_nothing() {
    let lanes = cluster();
    let _ = lanes.try_admit("ep_a", 4, None, T);
    lanes.granted(&[grant("ep_a", 4, 0)], T);
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Ok(()));
    let long_ago = Instant::now()
        .checked_sub(Duration::from_secs(3))
        .expect("a monotonic clock 3 s after boot");
    let fenced = Lanes::default().with_shares(Shares::cluster(Duration::from_secs(2), (4, 0)));
    fenced.shares.renewed(long_ago);
    let _ = fenced.try_admit("ep_a", 4, None, T);
    fenced.granted(&[grant("ep_a", 4, 0)], T);
    assert!(fenced.shares.fenced());
    assert_eq!(fenced.try_admit("ep_a", 4, None, T), Err(Refusal::Full));
    assert_eq!(fenced.room(T), vec![("ep_a".to_string(), 0)]);
    assert_eq!(fenced.shares.recovery(384, 1000), (0, Some(0)));
    fenced.shares.renewed(Instant::now());
    assert_eq!(fenced.try_admit("ep_a", 4, None, T), Ok(()));
}

#[test]
fn an_endpoint_given_back_is_forgotten_and_found_again_by_its_next_claim() {
    let lanes = cluster();
    let _ = lanes.try_admit("ep_a", 4, None, T);
    lanes.granted(&[grant("ep_a", 2, 0)], T);
    // No demand and nothing in flight for IDLE_TICKS renewals: not wanted.
    let mut wanted = true;
    for _ in 0..=IDLE_TICKS {
        wanted = lanes
            .shares
            .wants(|_| 0, false, IDLE_TICKS)
            .iter()
            .any(|w| w.key == "ep_a" && w.wants);
    }
    assert!(!wanted);
    lanes.granted(
        &[Grant {
            released: true,
            ..grant("ep_a", 0, 0)
        }],
        T,
    );
    assert!(lanes.room(T).is_empty(), "forgotten: claimable again");
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Err(Refusal::Full));
    // Recovery is always wanted; leaving, nothing is.
    let wants = lanes.shares.wants(|_| 0, false, IDLE_TICKS);
    assert!(wants.iter().any(|w| w.key == RECOVERY && w.wants));
    assert!(
        lanes
            .shares
            .wants(|_| 0, true, IDLE_TICKS)
            .iter()
            .all(|w| !w.wants)
    );
}

#[test]
fn local_shares_are_the_endpoints_own_limits() {
    let lanes = Lanes::default();
    assert!(!lanes.shares.is_cluster());
    assert_eq!(lanes.try_admit("ep_a", 1, None, T), Ok(()));
    assert!(lanes.shares.known().is_empty());
    assert_eq!(lanes.shares.recovery(384, 0), (384, None));
    assert!(lanes.shares.has_share("ep_never_seen"));
}

#[test]
fn a_granted_share_outlives_two_of_the_claimers_polls() {
    let tick = Duration::from_millis(250);
    assert_eq!(idle_patience(Duration::from_secs(1), tick), 8);
    assert_eq!(idle_patience(Duration::from_millis(50), tick), IDLE_TICKS);
    assert_eq!(idle_patience(Duration::from_millis(300), tick), 3);
    // A first touch's share is still wanted after patience − 1 idle
    // renewals, so the claim that comes back at the next poll finds it.
    let lanes = cluster();
    let _ = lanes.try_admit("ep_a", 4, None, T);
    lanes.granted(&[grant("ep_a", 2, 0)], T);
    let patience = idle_patience(Duration::from_secs(1), tick);
    let wanted = |l: &Lanes| {
        l.shares
            .wants(|_| 0, false, patience)
            .iter()
            .any(|w| w.key == "ep_a" && w.wants)
    };
    for _ in 0..patience - 1 {
        assert!(wanted(&lanes));
    }
    assert_eq!(lanes.try_admit("ep_a", 4, None, T), Ok(()));
}

#[test]
fn a_node_that_claims_no_recovery_wants_no_share_of_it() {
    let lanes = cluster();
    let wants = lanes.shares.wants(|_| 0, false, IDLE_TICKS);
    assert!(
        wants.iter().any(|w| w.key == RECOVERY && w.wants),
        "a claiming node"
    );
    lanes.shares.claims_no_recovery();
    assert!(
        lanes.shares.wants(|_| 0, false, IDLE_TICKS).is_empty(),
        "an API-only node with no manual attempt renews nothing"
    );
}
