//! The embedded SQLite backend (WAL), the zero-configuration default.
//!
//! One process owns the database file. Writes go through a pool of exactly
//! one connection (SQLite's single writer, queued in-process); reads use a
//! separate pool and see committed data thanks to WAL.

use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::{Result, StoreError};

pub struct SqliteStore {
    pub(crate) write: SqlitePool,
    pub(crate) read: SqlitePool,
    /// To the group committer (`crate::group`).
    pub(crate) publishes: tokio::sync::mpsc::Sender<crate::group::PublishJob>,
}

pub(crate) mod dialect {
    pub const BACKEND: &str = "sqlite";
    /// SQLite has no row locks; the single writer connection serialises writes.
    pub const FOR_UPDATE: &str = "";
    /// The single writer already serialises migrations within the process.
    pub const MIGRATION_LOCK: Option<&str> = None;

    /// One writer at a time: a claim's select-then-update cannot race another claim.
    pub const SKIP_LOCKED: &str = "";
    /// A claim looks at this many times its limit of the next due messages,
    /// so one endpoint's backlog at the front leaves room for the others'.
    pub const CLAIM_CANDIDATES: i64 = 4;
    /// One process owns the database; the API wakes the dispatcher in-process.
    pub const WAKE_NOTIFY: Option<&str> = None;

    /// Without statistics the planner prefers `messages_due` (by priority)
    /// and sorts every recovery message to find the tenants; name the index.
    pub const RECOVERY_INDEX: &str = " INDEXED BY messages_recovery_due";

    pub fn migration_sql(m: &crate::migrate::Migration) -> &'static str {
        m.sqlite
    }

    pub async fn listen_for_wakeups(
        _pool: &sqlx::SqlitePool,
        _notify: std::sync::Arc<tokio::sync::Notify>,
    ) -> crate::Result<()> {
        Ok(())
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `url` (`sqlite://path/to/relay.db`).
    pub async fn connect(url: &str) -> Result<Self> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|e| StoreError::InvalidUrl(e.to_string()))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: a publish acknowledged with 202 survives power loss too.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let write = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        let read = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options.read_only(true))
            .await?;
        let (publishes, queued) = tokio::sync::mpsc::channel(crate::group::QUEUE);
        tokio::spawn(SqliteStore::run_publishes(write.clone(), queued));
        Ok(SqliteStore {
            write,
            read,
            publishes,
        })
    }
}

mod imp {
    crate::backend::impl_store!(super::SqliteStore, sqlx::Sqlite, super::dialect);
}
