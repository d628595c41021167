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
//! prepared each new statement text anew. Instead [`Txns::run`] takes the
//! write pool's one connection (so nothing else writes meanwhile) and runs
//! the whole transaction on a blocking thread on the [`Writer`]: a rusqlite
//! connection to the same file that keeps its prepared statements.

use std::str::FromStr;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rusqlite::types::Value;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::backend::{Bind, SqlBuilder};
use crate::rows::RowExt;
use crate::txn::{Commit, Exec};
use crate::{Result, StoreError};

pub struct SqliteStore {
    pub(crate) write: SqlitePool,
    pub(crate) read: SqlitePool,
    pub(crate) txns: Txns,
    /// To the group committer (`crate::group`).
    pub(crate) publishes: tokio::sync::mpsc::Sender<crate::group::PublishJob>,
}

pub(crate) mod dialect {
    pub use super::Txns;

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
    /// The live claim (`crate::backend::live_claim`). The planner has no
    /// statistics, so the indexes are named. Each endpoint's oldest due
    /// messages are taken by a recursive walk, one index probe per message
    /// (`(next_attempt_at, rowid)` orders them as `messages_live_due` does):
    /// SQLite has no `LATERAL`, and a `LIMIT` may not refer to the row.
    pub const LIVE_CLAIM: crate::backend::LiveClaimDialect = crate::backend::LiveClaimDialect {
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
            .busy_timeout(BUSY_TIMEOUT);
        let path = options.get_filename().to_path_buf();
        if path.as_os_str() == ":memory:" {
            return Err(StoreError::InvalidUrl(
                "an in-memory database cannot hold a durable queue; name a file".into(),
            ));
        }
        let write = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        let read = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options.read_only(true))
            .await?;
        let txns = Txns {
            pool: write.clone(),
            slot: Arc::new(WriterSlot {
                path,
                conn: std::sync::Mutex::new(None),
            }),
        };
        let (publishes, queued) = tokio::sync::mpsc::channel(crate::group::QUEUE);
        tokio::spawn(SqliteStore::run_publishes(txns.clone(), queued));
        Ok(SqliteStore {
            write,
            read,
            txns,
            publishes,
        })
    }
}

const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the hot-path transactions (see the module docs).
#[derive(Clone)]
pub struct Txns {
    /// The one-connection write pool: holding its connection is holding
    /// the right to write, so the [`Writer`] and sqlx never write at once.
    pool: SqlitePool,
    slot: Arc<WriterSlot>,
}

/// The [`Writer`]'s connection while no transaction uses it.
struct WriterSlot {
    path: std::path::PathBuf,
    conn: std::sync::Mutex<Option<rusqlite::Connection>>,
}

impl WriterSlot {
    fn open(&self) -> Result<rusqlite::Connection> {
        let conn = rusqlite::Connection::open(&self.path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        Ok(conn)
    }
}

/// Prepared statements the [`Writer`] keeps: the hot path's fixed SQL and
/// the multi-row statements of the batch sizes that recur.
const STATEMENT_CACHE: usize = 256;

impl Txns {
    pub(crate) fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Runs `f` as one transaction (`BEGIN IMMEDIATE` … `COMMIT`) on the
    /// [`Writer`], on a blocking thread, while holding the write pool's
    /// connection: rolled back if `f` fails. A [`Commit::Lease`] commits
    /// with `synchronous = NORMAL` (no fsync; the next `FULL` commit's fsync
    /// covers it), every other write with `FULL`. Once started it runs to
    /// its end even if the caller stops waiting, like a transaction whose
    /// commit was already sent.
    pub(crate) async fn run<T, F>(&self, commit: Commit, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a mut Writer) -> BoxFuture<'a, Result<T>> + Send + 'static,
    {
        let token = self.pool.acquire().await?;
        let slot = self.slot.clone();
        tokio::task::spawn_blocking(move || {
            let out = Writer::run(&slot, commit, f);
            drop(token);
            out
        })
        .await
        .map_err(|_| StoreError::Unavailable("the SQLite writer"))?
    }
}

/// The connection the hot-path transactions run on: rusqlite, on the same
/// database file, with its prepared statements cached.
pub struct Writer {
    conn: rusqlite::Connection,
    /// SQLite virtual-machine steps this transaction's statements took: a
    /// measure of their work that does not depend on the machine (tests
    /// compare it).
    steps: u64,
}

impl Writer {
    fn run<T>(
        slot: &WriterSlot,
        commit: Commit,
        f: impl for<'a> FnOnce(&'a mut Writer) -> BoxFuture<'a, Result<T>>,
    ) -> Result<T> {
        let parked = slot.conn.lock().ok().and_then(|mut c| c.take());
        let conn = match parked {
            Some(conn) => conn,
            None => slot.open()?,
        };
        let mut writer = Writer { conn, steps: 0 };
        let relaxed = commit == Commit::Lease;
        let out = if relaxed {
            writer
                .conn
                .execute_batch("PRAGMA synchronous = NORMAL")
                .map_err(StoreError::from)
                .and_then(|()| writer.transaction(f))
        } else {
            writer.transaction(f)
        };
        // Parked again only as every write expects it: outside a transaction,
        // `synchronous = FULL`. Otherwise it is closed (which rolls back) and
        // the next transaction opens another.
        let clean = writer.conn.is_autocommit()
            && (!relaxed
                || writer
                    .conn
                    .execute_batch("PRAGMA synchronous = FULL")
                    .is_ok());
        if clean && let Ok(mut c) = slot.conn.lock() {
            *c = Some(writer.conn);
        }
        out
    }

    fn transaction<T>(
        &mut self,
        f: impl for<'a> FnOnce(&'a mut Writer) -> BoxFuture<'a, Result<T>>,
    ) -> Result<T> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        match ready(f(self)).and_then(|out| Ok(self.conn.execute_batch("COMMIT").map(|()| out)?)) {
            Ok(out) => Ok(out),
            Err(e) => {
                if !self.conn.is_autocommit() {
                    let _ = self.conn.execute_batch("ROLLBACK");
                }
                Err(e)
            }
        }
    }

    /// `q` prepared (cached), with each `$n` placeholder bound to
    /// `q.binds[n - 1]`. Written as `?n`, which SQLite numbers by `n` (it
    /// numbers `$n` by first appearance, and looking each name up is linear
    /// in their count).
    fn prepare(&self, q: &SqlBuilder) -> Result<rusqlite::CachedStatement<'_>> {
        let mut stmt = self.conn.prepare_cached(&numbered_by_index(&q.sql))?;
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

/// The virtual-machine steps `stmt` took since it was last asked (a cached
/// statement keeps counting across uses).
fn vm_steps(stmt: &rusqlite::Statement<'_>) -> u64 {
    u64::try_from(stmt.reset_status(rusqlite::StatementStatus::VmStep)).unwrap_or(0)
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
    const LIVE_CLAIM: &'static crate::backend::LiveClaimDialect = &dialect::LIVE_CLAIM;

    async fn execute(&mut self, q: &SqlBuilder) -> Result<u64> {
        let mut stmt = self.prepare(q)?;
        let changed = stmt.raw_execute()? as u64;
        let steps = vm_steps(&stmt);
        drop(stmt);
        self.steps += steps;
        Ok(changed)
    }

    async fn fetch(&mut self, q: &SqlBuilder) -> Result<Vec<WriterRow>> {
        let mut stmt = self.prepare(q)?;
        let columns: Arc<[String]> = stmt.column_names().into_iter().map(String::from).collect();
        let mut out = Vec::new();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next()? {
            let values = (0..columns.len())
                .map(|i| row.get::<_, Value>(i))
                .collect::<rusqlite::Result<Vec<_>>>()?;
            out.push(WriterRow {
                columns: columns.clone(),
                values,
            });
        }
        drop(rows);
        let steps = vm_steps(&stmt);
        drop(stmt);
        self.steps += steps;
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

    /// The writer's `synchronous` setting, as a durable transaction sees it.
    async fn synchronous(store: &SqliteStore) -> i64 {
        let rows = store
            .txns
            .run(Commit::Durable, |x| {
                Box::pin(async move { x.fetch(&SqlBuilder::new("PRAGMA synchronous")).await })
            })
            .await
            .unwrap();
        rows[0].int("synchronous").unwrap()
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
        store.txns.run(Commit::Lease, create_table).await.unwrap();
        assert_eq!(synchronous(&store).await, 2);
        // Also after a lease transaction that failed.
        let failed = store.txns.run(Commit::Lease, create_table).await;
        assert!(failed.is_err(), "the table exists already");
        assert_eq!(synchronous(&store).await, 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_transaction_is_rolled_back_and_binds_by_number() {
        let (_dir, store) = store().await;
        store.txns.run(Commit::Durable, create_table).await.unwrap();
        let failed = store
            .txns
            .run(Commit::Durable, |x| {
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
        let rows = store
            .txns
            .run(Commit::Durable, |x| {
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
        let short = store
            .txns
            .run(Commit::Durable, |x| {
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

    /// The SQLite VM steps of one claim of 50 live messages from 10 healthy
    /// endpoints, while an endpoint whose lane is full has `backlog` due
    /// messages ahead of theirs.
    async fn claim_steps(backlog: usize) -> (usize, u64) {
        use crate::Store;
        use crate::conformance::{T0, consumer, endpoint, new_event, scope, tenant};
        let (_dir, store) = store().await;
        store.migrate().await.unwrap();
        let s: &dyn Store = &store;
        let t = tenant(s, "a").await;
        let live = scope(&t, relay_core::model::Environment::Live);
        let c = consumer(s, &live, "c").await;
        let hanging = endpoint(s, &live, &c.id, &["hang.queued"]).await;
        for _ in 0..10 {
            endpoint(s, &live, &c.id, &["order.shipped"]).await;
        }
        let publishes = (0..backlog).map(|i| {
            let mut ev = new_event(&format!("evt_hang_{i}"), "hang.queued", None);
            ev.now = T0.plus_millis(i as i64);
            s.publish(&live, ev)
        });
        for r in futures_util::future::join_all(publishes).await {
            r.unwrap();
        }
        for i in 0..10 {
            let mut ev = new_event(&format!("evt_ok_{i}"), "order.shipped", None);
            ev.now = T0.plus_seconds(60).plus_millis(i);
            s.publish(&live, ev).await.unwrap();
        }
        let now = T0.plus_seconds(120);
        let room = vec![(hanging.id.clone(), 0)];
        store
            .txns
            .run(Commit::Lease, move |x| {
                Box::pin(async move {
                    let req = crate::ClaimRequest {
                        owner: "w",
                        now,
                        lease_until: now.plus_seconds(30),
                        limit: 50,
                        recovery_limit: 0,
                        room: &room,
                        recovery_after: None,
                    };
                    let batch = crate::txn::claim(x, &req).await?;
                    Ok((batch.claimed.len(), x.steps))
                })
            })
            .await
            .unwrap()
    }

    /// Isolation at the store: the claim's work does not grow with the
    /// backlog of an endpoint whose lane is full (it used to walk all of it,
    /// on every claim, on the single writer). Counted in SQLite VM steps, so
    /// the machine's load does not matter.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_claims_work_does_not_grow_with_a_full_endpoints_backlog() {
        let (claimed, without) = claim_steps(0).await;
        assert_eq!(claimed, 50);
        let (claimed, with) = claim_steps(5_000).await;
        assert_eq!(claimed, 50, "the healthy endpoints' messages");
        assert!(
            with <= 2 * without,
            "VM steps with a 5,000-deep full backlog: {with}, without: {without}"
        );
    }
}
