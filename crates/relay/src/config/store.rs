//! `[store]`: how Relay connects to PostgreSQL beyond what `database_url`
//! says (its TLS is in the URL: `sslmode`, `sslrootcert`, `sslcert`,
//! `sslkey`; see `docs/operations.md`). SQLite has no use for it.

use std::time::Duration;

use anyhow::bail;
use serde::Deserialize;

use super::number;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Store {
    /// Connections each node's pool keeps open at most (one more listens
    /// for wake-ups).
    #[serde(deserialize_with = "number")]
    pub pool_size: u32,
    /// How long getting a connection may take (opening one, or waiting for
    /// a free one in the pool).
    #[serde(deserialize_with = "number")]
    pub connect_timeout_seconds: u64,
    /// The server cancels a statement running longer; 0 keeps the
    /// server's `statement_timeout`.
    #[serde(deserialize_with = "number")]
    pub statement_timeout_seconds: u64,
}

/// The largest `[store] pool_size`.
pub const MAX_POOL_SIZE: u32 = 10_000;

impl Default for Store {
    fn default() -> Self {
        let d = relay_store::StoreSettings::default();
        Store {
            pool_size: d.pool_size,
            connect_timeout_seconds: d.connect_timeout.as_secs(),
            statement_timeout_seconds: d.statement_timeout.map_or(0, |t| t.as_secs()),
        }
    }
}

impl Store {
    pub fn settings(&self) -> relay_store::StoreSettings {
        relay_store::StoreSettings {
            pool_size: self.pool_size,
            connect_timeout: Duration::from_secs(self.connect_timeout_seconds),
            statement_timeout: (self.statement_timeout_seconds > 0)
                .then(|| Duration::from_secs(self.statement_timeout_seconds)),
        }
    }

    pub(super) fn validate(&self) -> anyhow::Result<()> {
        // Two at least: a transaction and a read may be under way at once.
        if !(2..=MAX_POOL_SIZE).contains(&self.pool_size) {
            bail!("store.pool_size must be between 2 and {MAX_POOL_SIZE}");
        }
        if !(1..=3600).contains(&self.connect_timeout_seconds) {
            bail!("store.connect_timeout_seconds must be between 1 and 3600");
        }
        if self.statement_timeout_seconds > 86_400 {
            bail!("store.statement_timeout_seconds must be at most 86400 (0: the server's)");
        }
        Ok(())
    }

    /// As `relay config check` prints it.
    pub(super) fn render(&self) -> toml::Value {
        let n = |v: u64| toml::Value::Integer(i64::try_from(v).unwrap_or(i64::MAX));
        let mut t = toml::Table::new();
        t.insert("pool_size".into(), i64::from(self.pool_size).into());
        t.insert(
            "connect_timeout_seconds".into(),
            n(self.connect_timeout_seconds),
        );
        t.insert(
            "statement_timeout_seconds".into(),
            n(self.statement_timeout_seconds),
        );
        t.into()
    }
}
