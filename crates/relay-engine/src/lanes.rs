//! Per-endpoint lanes: each endpoint has at most `max_concurrency` attempts in
//! flight in this process, so a slow or hanging endpoint holds at most that
//! many of the dispatcher's slots and never delays the others.
//!
//! Claims skip endpoints whose lane is full; a claim that still lands on a
//! full lane (several of one endpoint's messages in one batch) is given back
//! unattempted. With several nodes on PostgreSQL each node enforces the limit
//! on its own, so an endpoint sees at most `nodes × max_concurrency`.

use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct Lanes {
    /// Endpoint id → (attempts in flight, its limit).
    lanes: Mutex<HashMap<String, (u32, u32)>>,
    /// Signalled when a full lane gets a free slot (the dispatcher waits on
    /// it instead of polling while due messages sit behind full lanes).
    pub freed: tokio::sync::Notify,
}

impl Lanes {
    /// The endpoints whose lane is full now.
    pub fn full(&self) -> Vec<String> {
        self.lanes
            .lock()
            .map(|m| {
                m.iter()
                    .filter(|(_, (n, max))| n >= max)
                    .map(|(id, _)| id.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Takes a slot in the endpoint's lane, or says it is full.
    pub fn admit(&self, endpoint_id: &str, max_concurrency: u32) -> bool {
        let Ok(mut m) = self.lanes.lock() else {
            return true;
        };
        let lane = m
            .entry(endpoint_id.to_string())
            .or_insert((0, max_concurrency));
        lane.1 = max_concurrency.max(1);
        if lane.0 >= lane.1 {
            return false;
        }
        lane.0 += 1;
        true
    }

    /// Frees the slot an attempt held.
    pub fn done(&self, endpoint_id: &str) {
        let mut was_full = false;
        if let Ok(mut m) = self.lanes.lock()
            && let Some(lane) = m.get_mut(endpoint_id)
        {
            was_full = lane.0 >= lane.1;
            lane.0 = lane.0.saturating_sub(1);
            if lane.0 == 0 {
                m.remove(endpoint_id);
            }
        }
        if was_full {
            self.freed.notify_one();
        }
    }

    pub fn in_flight(&self, endpoint_id: &str) -> u32 {
        self.lanes
            .lock()
            .ok()
            .and_then(|m| m.get(endpoint_id).map(|l| l.0))
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_holds_at_most_its_limit_and_frees_slots() {
        let lanes = Lanes::default();
        assert!(lanes.admit("ep_a", 2));
        assert!(lanes.admit("ep_a", 2));
        assert!(!lanes.admit("ep_a", 2));
        assert!(lanes.admit("ep_b", 2), "another endpoint is not affected");
        assert_eq!(lanes.full(), vec!["ep_a".to_string()]);
        lanes.done("ep_a");
        assert!(lanes.full().is_empty());
        assert!(lanes.admit("ep_a", 2));
        assert_eq!(lanes.in_flight("ep_a"), 2);
        lanes.done("ep_b");
        assert_eq!(lanes.in_flight("ep_b"), 0);
    }
}
