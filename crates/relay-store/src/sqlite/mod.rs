//! The embedded SQLite backend (WAL), the zero-configuration default.
//!
//! One process owns the database file. Writes go through a pool of exactly
//! one connection (SQLite's single writer, queued in-process); reads use a
//! separate pool and see committed data thanks to WAL.
//!
//! The hot-path transactions (`crate::txn`: publish batches, claims,
//! completion batches) do not go through sqlx statement by statement: sqlx
//! runs each statement on the connection's own thread, so a transaction of
//! ten statements was twenty thread wake-ups on the one writer, and it
//! prepared each new statement text anew. Instead [`Txns::run`] queues the
//! whole transaction for the [`Writer`]: a rusqlite connection to the same
//! file that keeps its prepared statements, on a thread of its own. That
//! thread takes the write pool's one connection (so nothing else writes
//! meanwhile) and runs every transaction queued by then in one *cycle*:
//! one `BEGIN` … `COMMIT`, each transaction in its own savepoint. Under
//! load a publish batch, a claim and a completion batch thus share one
//! commit, one fsync and one write of each page they touch. It keeps the
//! connection while transactions keep coming (for a bounded time, so
//! sqlx's own writes get their turn): taking it anew for every cycle cost
//! a round trip to sqlx's connection thread, which pings a connection
//! given back, and a hand-off to a blocking thread and back.
//!
//! The fsync is not the writer's: its connection commits with
//! `synchronous = NORMAL` (the commit writes the log, it does not flush
//! it), and the [`Syncer`] thread flushes the log (`fdatasync` of the WAL
//! file) and only then answers the cycle's callers. Meanwhile the writer
//! runs the next cycle: a flush takes longer than a cycle's statements on
//! a virtual disk (1.2–1.4 ms here), and one flush covers every cycle
//! committed before it started. Nothing is answered before it is on disk;
//! the log is written in order, so after a power cut what survives is a
//! prefix of the commits, and every answered one is in it.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::exec::Commit;
use crate::{Result, StoreError};
use syncer::{SyncFn, wal_flush};

pub struct SqliteStore {
    /// The one-connection write pool: holding its connection is holding
    /// the right to write (the writer's thread takes it; tests hold it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) write: SqlitePool,
    pub(crate) read: SqlitePool,
    pub(crate) txns: Txns,
    /// To the group committer (`crate::group`).
    pub(crate) publishes: std::sync::Arc<crate::group::Pending>,
    /// The dispatcher new messages may be handed to (see [`crate::Intake`]).
    pub(crate) intake: crate::group::IntakeSlot,
}

pub(crate) mod dialect {

    pub const BACKEND: &str = "sqlite";
    /// SQLite has no row locks; the single writer connection serialises writes.
    pub const FOR_UPDATE: &str = "";
    pub const FOR_SHARE: &str = "";
    /// The single writer already serialises migrations within the process.
    pub const MIGRATION_LOCK: Option<&str> = None;

    /// One writer at a time: a claim's select-then-update cannot race another claim.
    pub const SKIP_LOCKED: &str = "";
    /// A claim looks at this many times its limit of the next due messages,
    /// so one endpoint's backlog at the front leaves room for the others'.
    pub const CLAIM_CANDIDATES: i64 = 4;
    /// The live claim (`crate::live_claim::live_claim`). The planner has no
    /// statistics, so the indexes are named. Each endpoint's oldest due
    /// messages are taken by a recursive walk, one index probe per message
    /// (`(next_attempt_at, rowid)` orders them as `messages_live_due` does):
    /// SQLite has no `LATERAL`, and a `LIMIT` may not refer to the row.
    pub const LIVE_CLAIM: crate::live_claim::LiveClaimDialect =
        crate::live_claim::LiveClaimDialect {
            id_in: (" IN (", ")"),
            due_index: " INDEXED BY messages_due",
            endpoint_index: " INDEXED BY messages_live_due",
            skip_locked: SKIP_LOCKED,
            candidates: CLAIM_CANDIDATES,
            take_each: "walk(endpoint_id, cap, due_by, now_ms, n, at, rid, id) AS (\
            SELECT endpoint_id, cap, due_by, now_ms, 0, -1, -1, NULL FROM capped WHERE cap > 0 \
            UNION ALL \
            SELECT w.endpoint_id, w.cap, w.due_by, w.now_ms, w.n + 1, m.next_attempt_at, m.rowid, m.id \
            FROM walk w JOIN messages m ON m.rowid = (SELECT d.rowid \
              FROM messages d INDEXED BY messages_live_due \
              WHERE d.endpoint_id = w.endpoint_id AND d.state = 'scheduled' AND d.priority = 0 \
              AND (d.next_attempt_at, d.rowid) > (w.at, w.rid) AND d.next_attempt_at <= w.due_by \
              AND (d.lease_until IS NULL OR d.lease_until < w.now_ms) \
              ORDER BY d.next_attempt_at, d.rowid LIMIT 1) \
            WHERE w.n < w.cap), \
          each(id, next_attempt_at) AS (SELECT id, at FROM walk WHERE n > 0)",
        };
    /// One process owns the database; the API wakes the dispatcher in-process.
    pub const WAKE_NOTIFY: Option<&str> = None;
    /// One process: the API tells its dispatcher of endpoint changes.
    pub const ENDPOINT_NOTIFY: Option<&str> = None;
    /// No arrays: batches are padded `VALUES` lists.
    pub const ARRAYS: bool = false;
    /// Publish batches handed to the writer at once (see [`crate::group`]):
    /// one committed and waiting for the [`Syncer`]'s flush, one in the
    /// current cycle, one waiting to take what queues meanwhile.
    pub const PUBLISH_BATCHES: usize = 3;

    /// Without statistics the planner prefers `messages_due` (by priority)
    /// and sorts every recovery message to find the tenants; name the index.
    pub const RECOVERY_INDEX: &str = " INDEXED BY messages_recovery_due";

    /// SQLite's database has no clock but the process's (see `crate::clock`).
    pub const DATABASE_NOW: Option<&str> = None;

    /// The constants above, as the operations read them (`crate::exec`).
    pub const DIALECT: crate::exec::Dialect = crate::exec::Dialect {
        backend: BACKEND,
        claim_candidates: CLAIM_CANDIDATES,
        skip_locked: SKIP_LOCKED,
        for_update: FOR_UPDATE,
        for_share: FOR_SHARE,
        recovery_index: RECOVERY_INDEX,
        wake_notify: WAKE_NOTIFY,
        endpoint_notify: ENDPOINT_NOTIFY,
        live_claim: LIVE_CLAIM,
        arrays: ARRAYS,
        migration_lock: MIGRATION_LOCK,
        migration_sql,
        database_now: DATABASE_NOW,
    };

    pub fn migration_sql(m: &crate::migrate::Migration) -> &'static str {
        m.sqlite
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `url` (`sqlite://path/to/relay.db`).
    pub async fn connect(url: &str) -> Result<Self> {
        Self::connect_syncing(url, wal_flush()).await
    }

    /// [`Self::connect`], with the [`Syncer`]'s flush of the log given.
    async fn connect_syncing(url: &str, sync: SyncFn) -> Result<Self> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|e| StoreError::InvalidUrl(e.to_string()))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: a publish acknowledged with 202 survives power loss too.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let path = options.get_filename().to_path_buf();
        if path.as_os_str() == ":memory:" {
            return Err(StoreError::InvalidUrl(
                "an in-memory database cannot hold a durable queue; name a file".into(),
            ));
        }
        // No ping before each acquire (sqlx's default): a connection to a
        // file does not go away, and the ping is a round trip to the
        // connection's worker thread, for every writer cycle (the write
        // pool's connection is its token) and every read.
        let write = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        let read = SqlitePoolOptions::new()
            .max_connections(8)
            .test_before_acquire(false)
            .connect_with(options.read_only(true))
            .await?;
        let txns = Txns::start(write.clone(), path, sync);
        let (publishes, intake) = crate::group::start_committer(&txns, dialect::PUBLISH_BATCHES);
        Ok(SqliteStore {
            write,
            read,
            txns,
            publishes,
            intake,
        })
    }
}

impl crate::backend::Backend for SqliteStore {
    type Txns = Txns;
    type Read = sqlx::SqliteConnection;
    type Reader = sqlx::pool::PoolConnection<sqlx::Sqlite>;

    fn dialect(&self) -> &'static crate::exec::Dialect {
        &dialect::DIALECT
    }

    fn txns(&self) -> &Txns {
        &self.txns
    }

    async fn reader(&self) -> Result<Self::Reader> {
        Ok(self.read.acquire().await?)
    }

    fn rx<'a>(
        r: &'a mut sqlx::SqliteConnection,
        own: &'a crate::executor::Outstanding,
    ) -> crate::executor::Rx<'a> {
        crate::executor::Rx::sqlite(r, own)
    }

    fn publishes(&self) -> &crate::group::Pending {
        &self.publishes
    }

    fn intake(&self) -> &crate::group::IntakeSlot {
        &self.intake
    }

    /// One process owns the database: nobody else tells it anything.
    async fn listen(
        &self,
        _notify: Arc<tokio::sync::Notify>,
        _endpoints: tokio::sync::mpsc::UnboundedSender<crate::EndpointNotice>,
        _stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<()>>> {
        Ok(None)
    }
}

impl crate::backend::Writes for Txns {
    type Write = Writer;

    async fn write<T, F>(&self, commit: Commit, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a mut Writer) -> BoxFuture<'a, Result<T>> + Send + 'static,
    {
        self.run(commit, f).await
    }

    fn wrote(&self, _messages: u64) {}

    fn tx<'a>(w: &'a mut Writer, own: &'a crate::executor::Outstanding) -> crate::executor::Tx<'a> {
        crate::executor::Tx::sqlite(w, own)
    }
}

const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

#[cfg(test)]
mod plan_tests;
mod syncer;
#[cfg(test)]
mod tests;
mod writer;

pub use writer::{Txns, Writer, WriterRow};
