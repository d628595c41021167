use super::*;

const T: Timestamp = Timestamp(1_000_000);
/// How long after its grant a permit may start a probe.
const USE_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);
const C: BreakerConfig = BreakerConfig {
    failure_threshold: 2,
    cool_down_millis: 1000,
    half_open_probes: 3,
};

fn synced(db_now: i64, not_closed: &[(&str, Circuit)], granted: &[(&str, u32)]) -> Synced {
    Synced {
        now: Timestamp(db_now),
        granted: granted.iter().map(|(id, n)| (id.to_string(), *n)).collect(),
        not_closed: not_closed
            .iter()
            .map(|(id, c)| (id.to_string(), *c))
            .collect(),
    }
}

#[test]
fn alone_nothing_is_kept_for_a_sync() {
    let b = Breakers::new(C);
    b.record("ep", Signal::Failure, T);
    assert!(b.take_pushes(T, false).is_empty());
}

#[test]
fn in_a_cluster_signals_go_to_the_next_sync_and_a_local_opening_asks_for_one_at_once() {
    let b = Breakers::new(C);
    b.join_cluster(USE_WITHIN);
    b.record("ep", Signal::Failure, T);
    b.record("ep", Signal::Success, T);
    b.record("ep", Signal::Rejected, T);
    b.record("ep", Signal::Neutral, T);
    b.record("ep_b", Signal::Failure, T);
    let opened = b.opened.notified();
    tokio::pin!(opened);
    assert!(!opened.as_mut().enable(), "nothing opened yet");
    b.record("ep_b", Signal::Failure, T);
    assert_eq!(b.get("ep_b", T).name(), "open", "opens at once");
    assert!(opened.as_mut().enable(), "and asks for a sync at once");
    let pushes = b.take_pushes(T, false);
    assert_eq!(
        pushes,
        vec![
            Push {
                endpoint_id: "ep".into(),
                signals: vec![Signal::Success, Signal::Rejected],
                ..Default::default()
            },
            Push {
                endpoint_id: "ep_b".into(),
                signals: vec![Signal::Failure, Signal::Failure],
                ..Default::default()
            },
        ],
        "what came before the last success changes nothing; neutral signals say nothing"
    );
    assert!(b.take_pushes(T, false).is_empty(), "taken once");
    b.restore(pushes.clone());
    assert_eq!(b.take_pushes(T, false), pushes, "a failed sync's come back");
}

#[test]
fn the_clusters_circuit_wins_and_probes_need_a_permit() {
    let b = Breakers::new(C);
    b.join_cluster(USE_WITHIN);
    assert!(b.get("ep", T).name() == "closed");
    // Another node opened it; the database's clock is 5 s ahead.
    let db = T.millis() + 5000;
    b.apply(
        &synced(
            db,
            &[(
                "ep",
                Circuit::Open {
                    until: Timestamp(db + 800),
                },
            )],
            &[],
        ),
        T,
    );
    assert_eq!(
        b.get("ep", T),
        Circuit::Open {
            until: T.plus_millis(800)
        },
        "the rest of the cool-down here"
    );
    assert_eq!(b.room(T), vec![("ep".to_string(), 0)]);
    assert!(matches!(
        b.try_start("ep", T, || Ok(())),
        Err(Refusal::CircuitOpen { until: Some(_) })
    ));
    // Past the cool-down here, but no permit: nothing starts; one is asked for.
    let later = T.plus_millis(900);
    assert_eq!(b.room(later), vec![("ep".to_string(), 0)]);
    assert_eq!(
        b.try_start("ep", later, || Ok(())),
        Err(Refusal::CircuitOpen { until: None })
    );
    let asks = b.take_pushes(later, false);
    assert_eq!(asks[0].wanted, 1);
    // The cluster is half-open and grants one.
    let half = Circuit::HalfOpen {
        probes_in_flight: 2,
    };
    assert!(
        b.apply(&synced(db + 900, &[("ep", half)], &[("ep", 1)]), later),
        "more may go now"
    );
    assert_eq!(b.room(later), vec![("ep".to_string(), 1)]);
    assert_eq!(
        b.try_start("ep", later, || Err(Refusal::Full)),
        Err(Refusal::Full),
        "a refusal after takes nothing"
    );
    assert_eq!(b.try_start("ep", later, || Ok(())), Ok(()));
    assert_eq!(
        b.try_start("ep", later, || Ok(())),
        Err(Refusal::CircuitOpen { until: None }),
        "one permit, one probe"
    );
    // The permit was used (this node has messages for it): another is
    // asked for, while the cluster has room for more probes at once.
    let more = b.take_pushes(later, false);
    assert_eq!((more[0].returned, more[0].wanted), (0, 1));
    // Its success closes it here at once, and at the next sync everywhere.
    b.record("ep", Signal::Success, later);
    assert_eq!(b.get("ep", later).name(), "closed");
    // A sync that read the cluster before the success reached it keeps
    // the success on top.
    b.apply(&synced(db + 950, &[("ep", half)], &[]), later);
    assert_eq!(b.get("ep", later).name(), "closed");
    assert_eq!(
        b.take_pushes(later, false)[0].signals,
        vec![Signal::Success]
    );
    b.apply(&synced(db + 1000, &[], &[]), later);
    assert_eq!(b.get("ep", later), Circuit::default());
}

#[test]
fn a_permit_not_used_by_the_next_sync_goes_back_and_none_is_asked_for_then() {
    let b = Breakers::new(C);
    b.join_cluster(USE_WITHIN);
    let half = Circuit::HalfOpen {
        probes_in_flight: 1,
    };
    b.apply(&synced(T.millis(), &[("ep", half)], &[("ep", 1)]), T);
    assert_eq!(b.take_pushes(T, false), vec![], "kept through one sync");
    b.apply(&synced(T.millis(), &[("ep", half)], &[]), T);
    let back = b.take_pushes(T, false);
    assert_eq!(
        (back[0].returned, back[0].wanted),
        (1, 0),
        "given back, none asked for"
    );
    b.apply(
        &synced(
            T.millis(),
            &[(
                "ep",
                Circuit::HalfOpen {
                    probes_in_flight: 0,
                },
            )],
            &[],
        ),
        T,
    );
    assert_eq!(b.take_pushes(T, false)[0].wanted, 1, "then asked for again");
    // Leaving: every permit goes back, none is asked for.
    b.apply(&synced(T.millis(), &[("ep", half)], &[("ep", 1)]), T);
    let last = b.take_pushes(T, true);
    assert_eq!((last[0].returned, last[0].wanted), (1, 0));
    // A circuit the cluster opened again drops the permits held.
    b.apply(&synced(T.millis(), &[("ep", half)], &[("ep", 1)]), T);
    b.apply(
        &synced(
            T.millis(),
            &[(
                "ep",
                Circuit::Open {
                    until: T.plus_millis(1000),
                },
            )],
            &[],
        ),
        T,
    );
    assert_eq!(b.room(T), vec![("ep".to_string(), 0)]);
    assert!(b.take_pushes(T, false).is_empty());
}

#[test]
fn a_permit_given_back_at_a_failed_sync_starts_no_probe_and_goes_back_at_the_next() {
    let b = Breakers::new(C);
    b.join_cluster(USE_WITHIN);
    let half = Circuit::HalfOpen {
        probes_in_flight: 1,
    };
    b.apply(&synced(T.millis(), &[("ep", half)], &[("ep", 1)]), T);
    assert!(b.take_pushes(T, false).is_empty(), "kept through one sync");
    // The next sync gives it back, and fails: the database may expire it
    // and grant it to another node before this one reaches it again.
    let back = b.take_pushes(T, false);
    assert_eq!(back[0].returned, 1);
    b.restore(back);
    assert_eq!(b.room(T), vec![("ep".to_string(), 0)]);
    assert_eq!(
        b.try_start("ep", T, || Ok(())),
        Err(Refusal::CircuitOpen { until: None }),
        "a permit on its way back starts nothing"
    );
    // Still given back at the next sync, once.
    let again = b.take_pushes(T, false);
    assert_eq!((again[0].returned, again[0].wanted), (1, 0));
    assert_eq!(b.take_pushes(T, false)[0].returned, 0);
}

#[test]
fn a_permit_starts_no_probe_that_could_outlive_it_in_the_cluster() {
    let b = Breakers::new(C);
    b.join_cluster(USE_WITHIN);
    let half = Circuit::HalfOpen {
        probes_in_flight: 1,
    };
    // Granted at T; no sync succeeds after it (the database unreachable).
    b.apply(&synced(T.millis(), &[("ep", half)], &[("ep", 1)]), T);
    let within = T.plus_millis(USE_WITHIN.as_millis() as i64 - 1);
    assert_eq!(b.room(within), vec![("ep".to_string(), 1)]);
    let late = T.plus_millis(USE_WITHIN.as_millis() as i64);
    assert_eq!(b.room(late), vec![("ep".to_string(), 0)]);
    assert_eq!(
        b.try_start("ep", late, || Ok(())),
        Err(Refusal::CircuitOpen { until: None }),
        "a probe started now could still run when the cluster grants the permit again"
    );
    // Given back at the next sync though granted at the last one.
    let back = b.take_pushes(late, false);
    assert_eq!((back[0].returned, back[0].wanted), (1, 0));
}
