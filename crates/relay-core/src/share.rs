//! Cluster shares: how an endpoint's limit (its `max_concurrency`, its
//! `rate_limit_per_second`) is split across the nodes that want it, so the
//! whole cluster holds it instead of each node on its own.
//!
//! Each node holds a **share** of the limit, written in the database with
//! the other nodes' (`relay_store::shares`). The nodes that want the
//! endpoint (its **wanting set**, ordered by node name) each have a
//! **target**: an even split of the limit, the remainder given to the
//! nodes from an offset that a hash of the endpoint's key chooses (so an
//! endpoint with a limit of 1 does not always land on the same node). A
//! node may then fill what it is [`allowed`]: its target, but no more than
//! what the other nodes leave of the limit; its row says it holds
//! [`holding`]: that, and never less than what it has in flight (a node
//! above its target gives back as its attempts finish, never by cutting
//! them). So the shares never sum over the limit: a node takes
//! only what the others have given back.

/// A stable hash of an endpoint's key (FNV-1a, 32 bits): every node,
/// whatever its build, chooses the same remainder offset.
pub fn key_hash(key: &str) -> u32 {
    key.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// `node`'s target of `limit` for the endpoint `key` among `wanting` (the
/// wanting set's node names, sorted and without duplicates; `node` must be
/// one of them, else 0).
pub fn target(limit: u32, wanting: &[&str], node: &str, key: &str) -> u32 {
    let Some(index) = wanting.iter().position(|n| *n == node) else {
        return 0;
    };
    let n = wanting.len() as u32;
    let (base, remainder) = (limit / n, limit % n);
    // The remainder's slots go to `remainder` nodes in a row, starting at
    // the key's offset.
    let offset = key_hash(key) % n;
    let from_offset = (index as u32 + n - offset) % n;
    base + u32::from(from_offset < remainder)
}

/// What `node` may fill of `limit` (its lane's slots): its `target`, at
/// most what `others` (the other nodes' unexpired shares, summed) leave.
pub fn allowed(limit: u32, target: u32, others: u32) -> u32 {
    target.min(limit.saturating_sub(others))
}

/// What `node` holds of `limit` (its row, what the others leave alone):
/// what it is [`allowed`], at least what it has in flight. A node above
/// its allowance starts nothing until its attempts drain below it, and
/// gives the rest back as they do.
pub fn holding(limit: u32, target: u32, others: u32, in_flight: u32) -> u32 {
    allowed(limit, target, others).max(in_flight)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_split_evenly_with_the_remainder_rotated_by_key() {
        let nodes = ["a", "b", "c"];
        // (limit, key) → every node's target; each row sums to the limit.
        for limit in [0, 1, 2, 3, 4, 5, 10, 50] {
            for key in ["ep_1", "ep_2", "ep_3", "recovery:"] {
                let targets: Vec<u32> = nodes
                    .iter()
                    .map(|n| target(limit, &nodes, n, key))
                    .collect();
                assert_eq!(targets.iter().sum::<u32>(), limit, "{limit} {key}");
                let (min, max) = (targets.iter().min().unwrap(), targets.iter().max().unwrap());
                assert!(max - min <= 1, "even: {targets:?}");
            }
        }
        assert_eq!(target(4, &["a", "b"], "a", "ep_1"), 2);
        assert_eq!(target(4, &["a"], "a", "ep_1"), 4);
        assert_eq!(target(4, &["a", "b"], "z", "ep_1"), 0, "not wanting");
    }

    #[test]
    fn a_limit_of_one_lands_on_different_nodes_for_different_endpoints() {
        let nodes = ["a", "b", "c"];
        let mut landed = std::collections::BTreeSet::new();
        for i in 0..30 {
            let key = format!("ep_{i}");
            let owners: Vec<&str> = nodes
                .iter()
                .copied()
                .filter(|n| target(1, &nodes, n, &key) == 1)
                .collect();
            assert_eq!(owners.len(), 1, "{key}");
            landed.insert(owners[0]);
        }
        assert_eq!(landed.len(), 3, "the remainder rotates: {landed:?}");
    }

    #[test]
    fn a_node_holds_its_target_within_what_others_leave_and_never_below_its_in_flight() {
        // (limit, target, others, in flight) → holding
        for (limit, t, others, in_flight, want) in [
            (4, 2, 0, 0, 2),
            (4, 2, 2, 0, 2),
            (4, 2, 3, 0, 1),
            (4, 2, 4, 0, 0),
            (4, 2, 6, 0, 0),
            (4, 1, 0, 3, 3),
            (4, 0, 4, 1, 1),
            (50, 17, 33, 0, 17),
            (50, 17, 40, 0, 10),
        ] {
            assert_eq!(
                holding(limit, t, others, in_flight),
                want,
                "{limit} {t} {others} {in_flight}"
            );
        }
    }

    #[test]
    fn the_key_hash_is_fixed() {
        // FNV-1a test vectors: every node must compute the same offsets.
        assert_eq!(key_hash(""), 0x811c_9dc5);
        assert_eq!(key_hash("a"), 0xe40c_292c);
        assert_eq!(key_hash("foobar"), 0xbf9c_f968);
    }
}
