//! Short-lived caches for what every publish reads: the caller's API key
//! and the event type (with its current schema version).
//!
//! An entry lives [`TTL`] at most. A change made through this process (a
//! key revoked, an event type put) clears the cache at once; another node
//! sharing the database sees it within [`TTL`]. That second is the price of
//! not reading two or three rows on every publish.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an entry is trusted.
pub const TTL: Duration = Duration::from_secs(1);
/// Entries kept at most; a full cache is emptied (simple, and rare).
const MAX_ENTRIES: usize = 10_000;

pub struct TtlCache<K, V> {
    entries: Mutex<HashMap<K, (Instant, V)>>,
}

impl<K, V> Default for TtlCache<K, V> {
    fn default() -> Self {
        TtlCache {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash, V: Clone> TtlCache<K, V> {
    /// The value cached under `key` if it is younger than [`TTL`].
    pub fn get(&self, key: &K) -> Option<V> {
        let entries = self.entries.lock().ok()?;
        entries
            .get(key)
            .filter(|(at, _)| at.elapsed() < TTL)
            .map(|(_, v)| v.clone())
    }

    pub fn insert(&self, key: K, value: V) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert(key, (Instant::now(), value));
        }
    }

    /// Forgets everything (after a change made through this process).
    pub fn clear(&self) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_and_clear() {
        let c: TtlCache<&str, u32> = TtlCache::default();
        assert_eq!(c.get(&"a"), None);
        c.insert("a", 1);
        assert_eq!(c.get(&"a"), Some(1));
        c.clear();
        assert_eq!(c.get(&"a"), None);
        // An entry stamped longer ago than the TTL is not returned.
        c.entries
            .lock()
            .unwrap()
            .insert("old", (Instant::now() - TTL - Duration::from_millis(1), 2));
        assert_eq!(c.get(&"old"), None);
    }

    #[test]
    fn a_full_cache_starts_over() {
        let c: TtlCache<usize, usize> = TtlCache::default();
        for i in 0..MAX_ENTRIES {
            c.insert(i, i);
        }
        c.insert(MAX_ENTRIES, 0);
        assert_eq!(c.entries.lock().unwrap().len(), 1);
        assert_eq!(c.get(&MAX_ENTRIES), Some(0));
    }
}
