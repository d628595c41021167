//! The embedded SQLite backend (WAL), the zero-configuration default.
//!
//! One process owns the database file. Writes go through a pool of exactly
//! one connection (SQLite's single writer, queued in-process); reads use a
//! separate pool and see committed data thanks to WAL.
//!
//! The hot-path transactions (`crate::txn`: publish batches, claims,
//! completion batches) do not go through sqlx statement by statement: sqlx
//! runs each statement on the connection's own thread, so a transaction of
//! ten statements was twenty thread wake-ups on the one writer. Instead
//! [`SqliteStore::write_txn`] takes the write connection from the pool, locks
//! its handle out of sqlx's thread (`lock_handle`) and runs the whole
//! transaction on a blocking thread with direct calls ([`Writer`], rusqlite
//! over the same handle), then gives the connection back.

use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures_util::future::BoxFuture;
use rusqlite::types::Value;

use crate::backend::{Bind, SqlBuilder};
use crate::rows::RowExt;
use crate::txn::{Commit, Exec};
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

impl SqliteStore {
    /// Runs `f` as one transaction (`BEGIN IMMEDIATE` … `COMMIT`) on the
    /// write connection, on a blocking thread: rolled back if `f` fails. A
    /// [`Commit::Lease`] commits with `synchronous = NORMAL` (no fsync; the
    /// next `FULL` commit's fsync covers it), every other write with `FULL`.
    /// Once started it runs to its end even if the caller stops waiting,
    /// like a transaction whose commit was already sent.
    pub(crate) async fn write_txn<T, F>(write: &SqlitePool, commit: Commit, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a mut Writer) -> BoxFuture<'a, Result<T>> + Send + 'static,
    {
        let conn = write.acquire().await?;
        tokio::task::spawn_blocking(move || Writer::run(conn, commit, f))
            .await
            .map_err(|_| StoreError::Unavailable("the SQLite writer"))?
    }
}

/// The write connection's handle, lent by sqlx for one transaction.
pub struct Writer {
    conn: rusqlite::Connection,
    /// Committing with `synchronous = NORMAL` (a [`Commit::Lease`]).
    relaxed: bool,
}

impl Writer {
    fn run<T>(
        mut pooled: sqlx::pool::PoolConnection<sqlx::Sqlite>,
        commit: Commit,
        f: impl for<'a> FnOnce(&'a mut Writer) -> BoxFuture<'a, Result<T>>,
    ) -> Result<T> {
        // A blocking thread of the runtime: waiting here is allowed.
        let mut locked = tokio::runtime::Handle::current().block_on(pooled.lock_handle())?;
        let raw = locked.as_raw_handle();
        // SAFETY: `locked` keeps sqlx's thread off this handle, and `pooled`
        // keeps it open, until both are dropped at the end of this function,
        // after `writer` (which does not close the handle: `from_handle`).
        let conn = unsafe { rusqlite::Connection::from_handle(raw.as_ptr()) }?;
        let mut writer = Writer {
            conn,
            relaxed: commit == Commit::Lease,
        };
        if writer.relaxed {
            writer.conn.execute_batch("PRAGMA synchronous = NORMAL")?;
        }
        writer.conn.execute_batch("BEGIN IMMEDIATE")?;
        let out = ready(f(&mut writer))?;
        writer.conn.execute_batch("COMMIT")?;
        Ok(out)
    }

    /// `q` prepared, with each `$n` placeholder bound to `q.binds[n - 1]`.
    /// Written as `?n`, which SQLite numbers by `n` (it numbers `$n` by first
    /// appearance, and looking each name up is linear in their count).
    fn prepare(&self, q: &SqlBuilder) -> Result<rusqlite::Statement<'_>> {
        let mut stmt = self.conn.prepare(&numbered_by_index(&q.sql))?;
        for i in 1..=stmt.parameter_count() {
            let Some(bind) = q.binds.get(i - 1) else {
                return Err(rusqlite::Error::InvalidParameterCount(i, q.binds.len()).into());
            };
            match bind {
                Bind::Text(s) => stmt.raw_bind_parameter(i, s.as_str())?,
                Bind::Int(v) => stmt.raw_bind_parameter(i, v)?,
                Bind::OptInt(v) => stmt.raw_bind_parameter(i, v)?,
                Bind::OptText(v) => stmt.raw_bind_parameter(i, v.as_deref())?,
            }
        }
        Ok(stmt)
    }
}

/// `sql` with each `$n` placeholder written `?n`. Relay's SQL has no `$`
/// inside string literals: values are always bound.
fn numbered_by_index(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    out
}

impl Drop for Writer {
    /// A transaction left open (an error, a panic) is rolled back, and the
    /// connection's `synchronous = FULL` restored, before the handle goes
    /// back to sqlx.
    fn drop(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        if self.relaxed
            && let Err(e) = self.conn.execute_batch("PRAGMA synchronous = FULL")
        {
            tracing::error!(error = %e, "restoring synchronous = FULL on the SQLite writer failed");
        }
    }
}

/// The value of a future that is ready at once: the transactions in
/// `crate::txn` await nothing but the [`Writer`], whose calls complete
/// synchronously.
fn ready<T>(f: BoxFuture<'_, Result<T>>) -> Result<T> {
    let mut f = f;
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => Err(StoreError::Unavailable(
            "a SQLite writer transaction waited on something else",
        )),
    }
}

impl Exec for Writer {
    type Row = WriterRow;
    const CLAIM_CANDIDATES: i64 = dialect::CLAIM_CANDIDATES;
    const SKIP_LOCKED: &'static str = dialect::SKIP_LOCKED;
    const RECOVERY_INDEX: &'static str = dialect::RECOVERY_INDEX;
    const WAKE_NOTIFY: Option<&'static str> = dialect::WAKE_NOTIFY;

    async fn execute(&mut self, q: &SqlBuilder) -> Result<u64> {
        Ok(self.prepare(q)?.raw_execute()? as u64)
    }

    async fn fetch(&mut self, q: &SqlBuilder) -> Result<Vec<WriterRow>> {
        let mut stmt = self.prepare(q)?;
        let columns: Arc<[String]> = stmt.column_names().into_iter().map(String::from).collect();
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let values = (0..columns.len())
                .map(|i| row.get::<_, Value>(i))
                .collect::<rusqlite::Result<Vec<_>>>()?;
            out.push(WriterRow {
                columns: columns.clone(),
                values,
            });
        }
        Ok(out)
    }
}

/// A row the [`Writer`] read, its column names shared with its statement's
/// other rows.
pub struct WriterRow {
    columns: Arc<[String]>,
    values: Vec<Value>,
}

impl WriterRow {
    fn value(&self, col: &str) -> Result<&Value> {
        self.columns
            .iter()
            .position(|c| c == col)
            .map(|i| &self.values[i])
            .ok_or_else(|| StoreError::Corrupt(format!("no column `{col}`")))
    }
}

impl RowExt for WriterRow {
    fn text(&self, col: &str) -> Result<String> {
        self.opt_text(col)?
            .ok_or_else(|| StoreError::Corrupt(format!("{col}: NULL")))
    }
    fn opt_text(&self, col: &str) -> Result<Option<String>> {
        match self.value(col)? {
            Value::Null => Ok(None),
            Value::Text(s) => Ok(Some(s.clone())),
            _ => Err(StoreError::Corrupt(format!("{col}: not text"))),
        }
    }
    fn int(&self, col: &str) -> Result<i64> {
        self.opt_int(col)?
            .ok_or_else(|| StoreError::Corrupt(format!("{col}: NULL")))
    }
    fn opt_int(&self, col: &str) -> Result<Option<i64>> {
        match self.value(col)? {
            Value::Null => Ok(None),
            Value::Integer(v) => Ok(Some(*v)),
            _ => Err(StoreError::Corrupt(format!("{col}: not an integer"))),
        }
    }
}

mod imp {
    crate::backend::impl_store!(super::SqliteStore, sqlx::Sqlite, super::dialect);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_by_index() {
        for (sql, want) in [
            ("SELECT $1", "SELECT ?1"),
            (
                "UPDATE t SET a = $2 WHERE id = $1 AND b = $2",
                "UPDATE t SET a = ?2 WHERE id = ?1 AND b = ?2",
            ),
            ("VALUES ($10, $11)", "VALUES (?10, ?11)"),
            // A `$` not followed by a digit is not a placeholder.
            ("SELECT '$' || $1", "SELECT '$' || ?1"),
            ("SELECT 1", "SELECT 1"),
        ] {
            assert_eq!(numbered_by_index(sql), want, "{sql}");
        }
    }

    async fn store() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("w.db").display());
        let store = SqliteStore::connect(&url).await.unwrap();
        (dir, store)
    }

    async fn synchronous(store: &SqliteStore) -> i64 {
        sqlx::query_scalar::<_, i64>("PRAGMA synchronous")
            .fetch_one(&store.write)
            .await
            .unwrap()
    }

    fn create_table(x: &mut Writer) -> BoxFuture<'_, Result<u64>> {
        Box::pin(async move {
            x.execute(&SqlBuilder::new("CREATE TABLE t (a INTEGER)"))
                .await
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_lease_commit_leaves_the_writer_synchronous_full() {
        let (_dir, store) = store().await;
        // FULL is 2.
        assert_eq!(synchronous(&store).await, 2);
        SqliteStore::write_txn(&store.write, Commit::Lease, create_table)
            .await
            .unwrap();
        assert_eq!(synchronous(&store).await, 2);
        // Also after a lease transaction that failed.
        let failed = SqliteStore::write_txn(&store.write, Commit::Lease, create_table).await;
        assert!(failed.is_err(), "the table exists already");
        assert_eq!(synchronous(&store).await, 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_transaction_is_rolled_back_and_binds_by_number() {
        let (_dir, store) = store().await;
        SqliteStore::write_txn(&store.write, Commit::Durable, create_table)
            .await
            .unwrap();
        let failed = SqliteStore::write_txn(&store.write, Commit::Durable, |x| {
            Box::pin(async move {
                x.execute(&SqlBuilder::numbered(
                    "INSERT INTO t (a) VALUES ($2), ($1)",
                    [Bind::Int(1), Bind::Int(2)],
                ))
                .await?;
                x.execute(&SqlBuilder::new("INSERT INTO missing VALUES (1)"))
                    .await
            })
        })
        .await;
        assert!(failed.is_err());
        let count = sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM t")
            .fetch_one(&store.write)
            .await
            .unwrap();
        assert_eq!(count, 0, "the first insert was rolled back");
        // The connection is back with sqlx, outside any transaction.
        let rows = SqliteStore::write_txn(&store.write, Commit::Durable, |x| {
            Box::pin(async move {
                x.execute(&SqlBuilder::numbered(
                    "INSERT INTO t (a) VALUES ($2), ($1)",
                    [Bind::Int(1), Bind::Int(2)],
                ))
                .await?;
                x.fetch(&SqlBuilder::new("SELECT a FROM t ORDER BY rowid"))
                    .await
            })
        })
        .await
        .unwrap();
        let values: Vec<i64> = rows.iter().map(|r| r.int("a").unwrap()).collect();
        assert_eq!(values, vec![2, 1]);
        // Too few values for the placeholders is an error, not a NULL.
        let short = SqliteStore::write_txn(&store.write, Commit::Durable, |x| {
            Box::pin(async move {
                x.execute(&SqlBuilder::numbered(
                    "INSERT INTO t (a) VALUES ($2)",
                    [Bind::Int(1)],
                ))
                .await
            })
        })
        .await;
        assert!(short.is_err());
    }
}
