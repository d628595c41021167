//! Remembering `webhook-id`s, so a replay inside the tolerance is caught.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// 96 hours: Relay retries for up to about three days; ids are kept longer.
pub const MIN_RETENTION_SECONDS: u64 = 96 * 3600;

/// How often (at most) [`MemorySeenStore`] sweeps out expired ids.
const SWEEP_EVERY_SECONDS: u64 = 60;

/// Where verified `webhook-id`s are remembered.
///
/// Back it with whatever your service shares between processes (a database
/// table with a unique key, `SET NX EX` in Redis, …). Keep each id for at
/// least [`MIN_RETENTION_SECONDS`].
pub trait SeenStore {
    /// Records `webhook_id` as seen at `now` (unix seconds) and says whether
    /// it is new: `true` the first time, `false` when it was already seen
    /// within the retention. Must be atomic: of two concurrent calls with the
    /// same id, at most one returns `true`.
    fn check_and_insert(&self, webhook_id: &str, now: u64) -> bool;
}

impl<T: SeenStore + ?Sized> SeenStore for &T {
    fn check_and_insert(&self, webhook_id: &str, now: u64) -> bool {
        (**self).check_and_insert(webhook_id, now)
    }
}

impl<T: SeenStore + ?Sized> SeenStore for Arc<T> {
    fn check_and_insert(&self, webhook_id: &str, now: u64) -> bool {
        (**self).check_and_insert(webhook_id, now)
    }
}

impl<T: SeenStore + ?Sized> SeenStore for Box<T> {
    fn check_and_insert(&self, webhook_id: &str, now: u64) -> bool {
        (**self).check_and_insert(webhook_id, now)
    }
}

/// A [`SeenStore`] in process memory, for a single process.
///
/// Keeps each id for the retention (96 hours by default, never less) and
/// drops older ones, sweeping at most once a minute. It forgets everything on
/// restart; use a shared store when that matters.
#[derive(Debug)]
pub struct MemorySeenStore {
    retention: u64,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    seen: HashMap<String, u64>,
    next_sweep: u64,
}

impl Default for MemorySeenStore {
    fn default() -> Self {
        MemorySeenStore::new()
    }
}

impl MemorySeenStore {
    /// A store that keeps ids for 96 hours.
    pub fn new() -> Self {
        MemorySeenStore::with_retention_seconds(MIN_RETENTION_SECONDS)
    }

    /// A store that keeps ids for `seconds`; values under 96 hours are raised
    /// to 96 hours.
    pub fn with_retention_seconds(seconds: u64) -> Self {
        MemorySeenStore {
            retention: seconds.max(MIN_RETENTION_SECONDS),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// How long ids are kept, in seconds.
    pub fn retention_seconds(&self) -> u64 {
        self.retention
    }

    /// How many ids are held now (expired ones not yet swept included).
    pub fn len(&self) -> usize {
        self.lock().seen.len()
    }

    /// Whether no id is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere while holding the lock leaves the map consistent
        // (every operation on it is a single call), so keep using it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl SeenStore for MemorySeenStore {
    fn check_and_insert(&self, webhook_id: &str, now: u64) -> bool {
        let retention = self.retention;
        let live = |seen_at: u64| now.saturating_sub(seen_at) <= retention;
        let mut inner = self.lock();
        if now >= inner.next_sweep {
            inner.seen.retain(|_, seen_at| live(*seen_at));
            inner.next_sweep = now.saturating_add(SWEEP_EVERY_SECONDS);
        }
        match inner.seen.get_mut(webhook_id) {
            Some(seen_at) if live(*seen_at) => false,
            Some(seen_at) => {
                *seen_at = now;
                true
            }
            None => {
                inner.seen.insert(webhook_id.to_owned(), now);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_ids_96_hours_then_forgets_them() {
        let store = MemorySeenStore::new();
        let t0 = 1_700_000_000;
        assert!(store.check_and_insert("msg_a", t0));
        assert!(!store.check_and_insert("msg_a", t0));
        assert!(store.check_and_insert("msg_b", t0 + 10));
        assert!(!store.check_and_insert("msg_a", t0 + MIN_RETENTION_SECONDS));
        assert_eq!(store.len(), 2);
        // One second past the retention: msg_a is new again; msg_b is still known.
        assert!(store.check_and_insert("msg_a", t0 + MIN_RETENTION_SECONDS + 1));
        assert!(!store.check_and_insert("msg_b", t0 + MIN_RETENTION_SECONDS + 1));
        // Much later, a sweep drops everything expired.
        assert!(store.check_and_insert("msg_c", t0 + 10 * MIN_RETENTION_SECONDS));
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn retention_is_never_under_96_hours() {
        assert_eq!(
            MemorySeenStore::with_retention_seconds(60).retention_seconds(),
            MIN_RETENTION_SECONDS
        );
        let week = 7 * 24 * 3600;
        let store = MemorySeenStore::with_retention_seconds(week);
        assert_eq!(store.retention_seconds(), week);
        assert!(store.check_and_insert("x", 0));
        assert!(!store.check_and_insert("x", week));
        assert!(store.check_and_insert("x", week + 1));
        assert!(MemorySeenStore::default().is_empty());
    }

    #[test]
    fn shared_between_threads_one_winner() {
        let store = Arc::new(MemorySeenStore::new());
        let wins: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    let store = Arc::clone(&store);
                    s.spawn(move || usize::from(store.check_and_insert("msg_same", 5)))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
        });
        assert_eq!(wins, 1);
    }
}
