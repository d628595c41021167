//! The endpoints' circuit breakers in this process ([`Breakers`], held by
//! [`crate::lanes::Lanes`]), alone or as this node's part of the cluster's
//! (docs/endpoint-health.md "Several nodes").
//!
//! Alone (SQLite: one process) each endpoint's [`Circuit`] is moved by this
//! process's attempts only, as [`relay_core::circuit`] says.
//!
//! In a cluster (PostgreSQL, once [`Breakers::join_cluster`] was called by
//! [`crate::CircuitSync`]) the circuits move the same way between syncs (a
//! node that sees the threshold itself opens at once, and asks for a sync
//! at once: [`Breakers::opened`]), and besides:
//! - every signal is kept for the next sync, which pushes them into the
//!   cluster's circuit ([`Breakers::take_pushes`]) and sets the local
//!   circuits from the cluster's ([`Breakers::apply`]): the cluster's circuit
//!   wins, with the signals that came during the sync folded on top;
//! - half-open, a probe starts only with a permit the cluster granted
//!   (asked for at the sync while this node holds none); a permit not used
//!   by the next sync is given back, and none is asked for at that sync, so
//!   a node without messages for the endpoint does not keep one from the
//!   others.

use std::collections::HashMap;
use std::sync::Mutex;

use relay_core::circuit::{BreakerConfig, Circuit, Signal};
use relay_core::time::Timestamp;
use relay_store::circuits::{Push, Synced};

use crate::lanes::Refusal;

/// Probe permits this node holds for one endpoint.
#[derive(Debug, Default, Clone, Copy)]
struct Permits {
    unused: u32,
    /// Granted at the last sync (kept through the next one).
    fresh: bool,
    /// When the last of them was granted (the database's clock).
    granted_at: Timestamp,
    /// Given back at a sync that failed: never used again, given back at
    /// the next one (the cluster may have counted them out and granted
    /// them elsewhere meanwhile).
    returning: u32,
}

impl Permits {
    /// The permits a probe may take at `now`: none once a probe started now
    /// could outlive them (`use_within` after the grant; the cluster hands
    /// them to another node after their lifetime).
    fn usable(&self, now: Timestamp, use_within: i64) -> u32 {
        if now.millis() < self.granted_at.millis().saturating_add(use_within) {
            self.unused
        } else {
            0
        }
    }
}

#[derive(Default)]
struct State {
    /// Whether the circuits are this node's part of the cluster's.
    cluster: bool,
    /// Endpoint id → its circuit here (absent = closed with no failures).
    circuits: HashMap<String, Circuit>,
    /// Cluster: the signals since the last push, in their order.
    pending: Vec<(String, Signal)>,
    /// Cluster: probe permits held, per endpoint.
    permits: HashMap<String, Permits>,
    /// Cluster: how long after its grant a permit may start a probe, in
    /// milliseconds (`join_cluster`).
    use_within: i64,
    /// Cluster: the cluster's circuits that are not closed as the last sync
    /// read them, in this node's time (what the next sync's signals are
    /// folded on).
    synced: HashMap<String, Circuit>,
}

/// The endpoints' circuits in this process (see the module's docs).
#[derive(Default)]
pub struct Breakers {
    pub config: BreakerConfig,
    state: Mutex<State>,
    /// Signalled when a signal of this node opened a circuit: the cluster's
    /// sync runs at once instead of at its next tick.
    pub opened: tokio::sync::Notify,
}

impl Breakers {
    pub fn new(config: BreakerConfig) -> Breakers {
        Breakers {
            config,
            ..Default::default()
        }
    }

    /// From now on the circuits are this node's part of the cluster's. A
    /// probe permit starts a probe only within `use_within` of its grant: the
    /// permit's lifetime in the cluster less the longest attempt, so no
    /// probe outlives the permit it took.
    pub fn join_cluster(&self, use_within: std::time::Duration) {
        if let Ok(mut s) = self.state.lock() {
            s.cluster = true;
            s.use_within = i64::try_from(use_within.as_millis()).unwrap_or(i64::MAX);
        }
    }

    /// The endpoint's circuit here as it stands at `now`.
    pub fn get(&self, endpoint_id: &str, now: Timestamp) -> Circuit {
        self.state
            .lock()
            .ok()
            .and_then(|s| s.circuits.get(endpoint_id).copied())
            .unwrap_or_default()
            .at(now)
    }

    /// How many attempts each endpoint with a circuit that limits them may
    /// start at `now` (0 while open; half-open: the probes left, or in a
    /// cluster the permits held unused).
    pub fn room(&self, now: Timestamp) -> Vec<(String, u32)> {
        let Ok(s) = self.state.lock() else {
            return Vec::new();
        };
        s.circuits
            .iter()
            .filter_map(|(id, c)| {
                let room = if s.cluster {
                    cluster_room(&s.circuits, &s.permits, id, now, s.use_within)
                } else {
                    c.room(now, self.config)
                };
                room.map(|r| (id.clone(), r))
            })
            .collect()
    }

    /// Starts an attempt under the endpoint's circuit when it allows one and
    /// `then` (the lane's other checks, run under the circuits' lock) says
    /// yes; otherwise nothing is taken.
    pub fn try_start(
        &self,
        endpoint_id: &str,
        now: Timestamp,
        then: impl FnOnce() -> Result<(), Refusal>,
    ) -> Result<(), Refusal> {
        let Ok(mut s) = self.state.lock() else {
            return Err(Refusal::Full);
        };
        let current = s.circuits.get(endpoint_id).copied().unwrap_or_default();
        let refused = || {
            let until = match current.at(now) {
                Circuit::Open { until } => Some(until),
                _ => None,
            };
            Err(Refusal::CircuitOpen { until })
        };
        let Some(after) = current.try_start(now, self.config) else {
            return refused();
        };
        let probe = s.cluster && matches!(current.at(now), Circuit::HalfOpen { .. });
        let use_within = s.use_within;
        if probe
            && s.permits
                .get(endpoint_id)
                .is_none_or(|p| p.usable(now, use_within) == 0)
        {
            return refused();
        }
        then()?;
        if probe && let Some(p) = s.permits.get_mut(endpoint_id) {
            p.unused -= 1;
        }
        if after != Circuit::default() {
            s.circuits.insert(endpoint_id.to_string(), after);
        }
        Ok(())
    }

    /// The endpoint's circuit after an attempt ended with `signal` at `now`.
    pub fn record(&self, endpoint_id: &str, signal: Signal, now: Timestamp) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        let before = s.circuits.get(endpoint_id).copied().unwrap_or_default();
        let after = before.record(signal, now, self.config);
        let opened = matches!(after, Circuit::Open { .. }) && after != before;
        if after != before {
            if let Circuit::Open { until } = after {
                tracing::warn!(endpoint = endpoint_id, until = %until.to_rfc3339(), "circuit opened");
            } else if after == Circuit::default() && !matches!(before, Circuit::Closed { .. }) {
                tracing::info!(endpoint = endpoint_id, "circuit closed");
            }
        }
        set(&mut s.circuits, endpoint_id, after);
        // In a cluster every signal goes to the next sync, but those that
        // say nothing of the endpoint's health only when they free a
        // probe's permit.
        if s.cluster && (signal != Signal::Neutral || before.at(now).name() == "half_open") {
            s.pending.push((endpoint_id.to_string(), signal));
        }
        drop(s);
        if opened {
            self.opened.notify_one();
        }
    }

    /// What this node tells the cluster at a sync at `now`: its signals
    /// since the last one per endpoint (in their order; those before the
    /// last success change nothing and are left out), the permits it gives
    /// back unused, the permits it asks for. `last`: the node is leaving;
    /// it gives back every permit it holds unused and asks for none.
    pub fn take_pushes(&self, now: Timestamp, last: bool) -> Vec<Push> {
        let Ok(mut s) = self.state.lock() else {
            return Vec::new();
        };
        let mut pushes: HashMap<String, Push> = HashMap::new();
        for (id, signal) in std::mem::take(&mut s.pending) {
            let push = pushes.entry(id).or_insert_with_key(|id| new_push(id));
            if signal == Signal::Success {
                push.signals.clear();
            }
            push.signals.push(signal);
        }
        let State {
            circuits,
            permits,
            use_within,
            ..
        } = &mut *s;
        let mut returned_now = Vec::new();
        for (id, p) in permits.iter_mut() {
            let stale = p.usable(now, *use_within) < p.unused;
            let back = p.returning
                + if !p.fresh || last || stale {
                    p.unused
                } else {
                    0
                };
            if back > 0 {
                pushes
                    .entry(id.clone())
                    .or_insert_with(|| new_push(id))
                    .returned = back;
                p.unused -= back - p.returning;
                p.returning = 0;
                returned_now.push(id.clone());
            }
            p.fresh = false;
        }
        permits.retain(|_, p| p.unused > 0);
        for (id, c) in circuits.iter().filter(|_| !last) {
            if matches!(c.at(now), Circuit::HalfOpen { .. })
                && !permits.contains_key(id)
                && !returned_now.contains(id)
            {
                pushes
                    .entry(id.clone())
                    .or_insert_with(|| new_push(id))
                    .wanted = 1;
            }
        }
        let mut pushes: Vec<Push> = pushes.into_values().collect();
        pushes.sort_by(|a, b| a.endpoint_id.cmp(&b.endpoint_id));
        pushes
    }

    /// A sync of `pushes` failed: its signals and permits given back are
    /// kept for the next one (ahead of what came since).
    pub fn restore(&self, pushes: Vec<Push>) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        let mut pending: Vec<(String, Signal)> = Vec::new();
        for p in pushes {
            if p.returned > 0 {
                s.permits
                    .entry(p.endpoint_id.clone())
                    .or_default()
                    .returning += p.returned;
            }
            pending.extend(
                p.signals
                    .into_iter()
                    .map(|sig| (p.endpoint_id.clone(), sig)),
            );
        }
        pending.append(&mut s.pending);
        s.pending = pending;
    }

    /// Sets the local circuits from the cluster's as `synced` read them
    /// (this node's time `now`), with the signals that came during the sync
    /// folded on top, and takes the permits granted. Returns whether some
    /// endpoint may now take attempts it could not before (the claimer
    /// looks again).
    pub fn apply(&self, synced: &Synced, now: Timestamp) -> bool {
        let Ok(mut s) = self.state.lock() else {
            return false;
        };
        let State {
            circuits,
            pending,
            permits,
            synced: cluster,
            use_within,
            ..
        } = &mut *s;
        let before: Vec<(String, Option<u32>)> = circuits
            .keys()
            .map(|id| {
                (
                    id.clone(),
                    cluster_room(circuits, permits, id, now, *use_within),
                )
            })
            .collect();
        *cluster = synced
            .not_closed
            .iter()
            .map(|(id, c)| {
                let local = match *c {
                    // The rest of the cool-down, in this node's time.
                    Circuit::Open { until } => Circuit::Open {
                        until: now.plus_millis(until.millis() - synced.now.millis()),
                    },
                    other => other,
                };
                (id.clone(), local)
            })
            .collect();
        let mut ids: Vec<String> = circuits.keys().chain(cluster.keys()).cloned().collect();
        ids.sort();
        ids.dedup();
        for id in ids {
            let local = circuits.get(&id).copied().unwrap_or_default();
            let mut c = match cluster.get(&id) {
                // Probes in flight here stay counted here.
                Some(Circuit::HalfOpen { .. }) => Circuit::HalfOpen {
                    probes_in_flight: match local {
                        Circuit::HalfOpen { probes_in_flight } => probes_in_flight,
                        _ => 0,
                    },
                },
                Some(c) => *c,
                None => Circuit::default(),
            };
            for (_, signal) in pending.iter().filter(|(e, _)| *e == id) {
                c = c.record(*signal, now, self.config);
            }
            if c.name() != local.name() {
                tracing::info!(endpoint = %id, circuit = c.name(), "circuit set by the cluster");
            }
            set(circuits, &id, c);
            if !matches!(c.at(now), Circuit::HalfOpen { .. }) {
                permits.remove(&id);
            }
        }
        for (id, n) in &synced.granted {
            if matches!(
                circuits.get(id).map(|c| c.at(now)),
                Some(Circuit::HalfOpen { .. })
            ) {
                let p = permits.entry(id.clone()).or_default();
                p.unused += n;
                p.fresh = true;
                p.granted_at = synced.now;
            }
        }
        before.iter().any(|(id, was)| {
            match (was, cluster_room(circuits, permits, id, now, *use_within)) {
                (Some(_), None) => true,
                (Some(a), Some(b)) => b > *a,
                _ => false,
            }
        }) || !synced.granted.is_empty()
    }
}

/// In a cluster, how many attempts the endpoint may start at `now`
/// (`None`: its circuit does not limit them).
fn cluster_room(
    circuits: &HashMap<String, Circuit>,
    permits: &HashMap<String, Permits>,
    endpoint_id: &str,
    now: Timestamp,
    use_within: i64,
) -> Option<u32> {
    match circuits.get(endpoint_id).map(|c| c.at(now)) {
        None | Some(Circuit::Closed { .. }) => None,
        Some(Circuit::HalfOpen { .. }) => Some(
            permits
                .get(endpoint_id)
                .map_or(0, |p| p.usable(now, use_within)),
        ),
        Some(Circuit::Open { .. }) => Some(0),
    }
}

fn new_push(endpoint_id: &str) -> Push {
    Push {
        endpoint_id: endpoint_id.to_string(),
        ..Default::default()
    }
}

/// Keeps `c` as the endpoint's circuit (absent when closed with no failures).
fn set(circuits: &mut HashMap<String, Circuit>, endpoint_id: &str, c: Circuit) {
    if c == Circuit::default() {
        circuits.remove(endpoint_id);
    } else {
        circuits.insert(endpoint_id.to_string(), c);
    }
}

#[cfg(test)]
mod tests;
