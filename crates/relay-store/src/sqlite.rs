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
    pub(crate) publishes: std::sync::Arc<crate::group::Pending>,
    /// The dispatcher new messages may be handed to (see [`crate::Intake`]).
    pub(crate) intake: crate::group::IntakeSlot,
}

pub(crate) mod dialect {
    pub use super::Txns;

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

    pub fn migration_sql(m: &crate::migrate::Migration) -> &'static str {
        m.sqlite
    }

    pub async fn listen_for_wakeups(
        _pool: &sqlx::SqlitePool,
        _notify: std::sync::Arc<tokio::sync::Notify>,
        _endpoints: tokio::sync::mpsc::UnboundedSender<crate::EndpointNotice>,
        _stop: tokio::sync::watch::Receiver<bool>,
    ) -> crate::Result<Option<tokio::task::JoinHandle<()>>> {
        Ok(None)
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
        let (publishes, intake) = SqliteStore::start_committer(&txns);
        Ok(SqliteStore {
            write,
            read,
            txns,
            publishes,
            intake,
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
    /// To the writer's thread ([`Writer::serve`]), which runs them in
    /// cycles.
    jobs: std::sync::mpsc::Sender<Job>,
    /// Transactions handed to the writer so far (tests wait on it).
    sent: Arc<std::sync::atomic::AtomicU64>,
}

/// One transaction waiting for the [`Writer`]: its commit kind and `f`
/// with its reply, type-erased. Given no writer, it does not run and only
/// prepares its reply.
struct Job {
    commit: Commit,
    run: RunJob,
}

type RunJob = Box<dyn FnOnce(Option<&mut Writer>) -> Outcome + Send>;

/// What a [`Job`] did: whether it succeeded, and how to tell its caller
/// once the cycle's end is known (`Some(error)`: the cycle failed). A job
/// that failed reports its own error whatever the cycle did.
struct Outcome {
    ok: bool,
    reply: Box<dyn FnOnce(Option<StoreError>) + Send>,
}

impl Job {
    /// Tells the caller that its job could not run, or was not committed.
    fn fail(self, e: &StoreError) {
        ((self.run)(None).reply)(Some(copy_of(e)));
    }
}

/// A cycle's error for each of its jobs: SQLite's error code and message
/// as they were; any other error as the writer being unavailable.
fn copy_of(e: &StoreError) -> StoreError {
    match e {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(code, msg)) => {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(*code, msg.clone()))
        }
        StoreError::Durability(why) => StoreError::Durability(why.clone()),
        _ => StoreError::Unavailable("the SQLite writer"),
    }
}

/// What the writer's thread keeps between cycles: its connection while no
/// cycle uses it, and how to open another.
struct WriterSlot {
    path: std::path::PathBuf,
    conn: Option<rusqlite::Connection>,
    /// Cycles run so far.
    cycles: u64,
    /// Makes committed cycles durable and answers them.
    syncer: Arc<Syncer>,
}

impl WriterSlot {
    fn open(&self) -> Result<rusqlite::Connection> {
        let conn = rusqlite::Connection::open(&self.path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // synchronous: a commit writes the log and the Syncer flushes it.
        // temp_store: each job's savepoint journal stays in memory.
        conn.execute_batch(
            "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY",
        )?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        Ok(conn)
    }
}

/// Prepared statements the [`Writer`] keeps: the hot path's fixed SQL and
/// the multi-row statements of the batch sizes that recur.
const STATEMENT_CACHE: usize = 256;

/// At most this many transactions share one cycle's commit.
const CYCLE_JOBS: usize = 64;

/// How long the writer keeps the right to write with no transaction to
/// run: under load the next one comes within a cycle or two, and taking
/// the right back costs a round trip to sqlx's connection thread (sqlx
/// pings a connection when it is given back, and the next `acquire` waits
/// for that).
const HOLD_IDLE: Duration = Duration::from_millis(2);

/// How long the writer keeps the right to write at most before giving it
/// back, so sqlx's own writes (which queue for it, first come first
/// served) are not kept waiting longer by a steady stream of transactions.
const HOLD_AT_MOST: Duration = Duration::from_millis(20);

impl Txns {
    /// Starts the writer's thread, and the [`Syncer`]'s. The writer's
    /// takes the right to write (the write pool's connection) on the
    /// current runtime.
    fn start(pool: SqlitePool, path: std::path::PathBuf, sync: SyncFn) -> Self {
        let (jobs, queued) = std::sync::mpsc::channel();
        let mut wal = path.clone().into_os_string();
        wal.push("-wal");
        let syncer = Syncer::start(wal.into(), sync);
        let mut slot = WriterSlot {
            path,
            conn: None,
            cycles: 0,
            syncer,
        };
        let (runtime, write_pool) = (tokio::runtime::Handle::current(), pool.clone());
        let started = std::thread::Builder::new()
            .name("relay-sqlite-writer".into())
            .spawn(move || Writer::serve(&runtime, &write_pool, &mut slot, &queued));
        if let Err(e) = started {
            // Its queue is gone with it: every transaction fails as the
            // writer being unavailable.
            tracing::error!(error = %e, "could not start the SQLite writer's thread");
        }
        Txns {
            pool,
            jobs,
            sent: Arc::default(),
        }
    }

    pub(crate) fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// New messages written (PostgreSQL refreshes its planner statistics
    /// by them; the SQLite queries name their indexes).
    pub(crate) fn wrote(&self, _messages: u64) {}

    /// Runs `f` as one transaction on the [`Writer`]: rolled back if `f`
    /// fails, and answered only once it is committed. It may share a
    /// *cycle* (one `BEGIN IMMEDIATE` … `COMMIT`) with the transactions
    /// queued beside it, each inside its own savepoint, so a failing one
    /// rolls back alone. A cycle with a [`Commit::Durable`] transaction is
    /// answered once the [`Syncer`] has flushed the log after its commit; a
    /// cycle made only of [`Commit::Lease`] at its commit (the next flush
    /// covers it), unless an earlier cycle still waits for a flush: then
    /// after that one, so no answer overtakes an earlier cycle's. Once
    /// started it runs to its end even if the caller stops waiting, like a
    /// transaction whose commit was already sent.
    pub(crate) async fn run<T, F>(&self, commit: Commit, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a mut Writer) -> BoxFuture<'a, Result<T>> + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel::<Result<T>>();
        let run = Box::new(move |w: Option<&mut Writer>| {
            let out = w.map(|w| {
                w.steps = 0;
                ready(f(w))
            });
            Outcome {
                ok: matches!(out, Some(Ok(_))),
                reply: Box::new(move |failed: Option<StoreError>| {
                    let _ = tx.send(match (out, failed) {
                        (Some(Err(e)), _) | (_, Some(e)) => Err(e),
                        (Some(Ok(v)), None) => Ok(v),
                        (None, None) => Err(StoreError::Unavailable("the SQLite writer")),
                    });
                }),
            }
        });
        self.jobs
            .send(Job { commit, run })
            .map_err(|_| StoreError::Unavailable("the SQLite writer"))?;
        self.sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        rx.await
            .map_err(|_| StoreError::Unavailable("the SQLite writer"))?
    }
}

/// The connection the hot-path transactions run on: rusqlite, on the same
/// database file, with its prepared statements cached.
pub struct Writer {
    conn: rusqlite::Connection,
    /// SQLite virtual-machine steps the current job's statements took: a
    /// measure of their work that does not depend on the machine (tests
    /// compare it).
    steps: u64,
    /// Which cycle this is (tests tell shared cycles by it).
    #[cfg_attr(not(test), allow(dead_code))]
    cycle: u64,
}

impl Writer {
    /// The writer's thread: takes the right to write (the write pool's one
    /// connection) when a job comes, then runs every job queued by then
    /// (up to [`CYCLE_JOBS`]) as one cycle. Jobs that arrive meanwhile wait
    /// for the next cycle, so under load a publish batch, a claim and a
    /// completion batch share one commit, one flush and one write of each
    /// page they touch. It keeps the right to write between cycles, up to
    /// [`HOLD_IDLE`] without a job and [`HOLD_AT_MOST`] in all. Runs until
    /// every [`Txns`] is dropped.
    fn serve(
        runtime: &tokio::runtime::Handle,
        pool: &SqlitePool,
        slot: &mut WriterSlot,
        queued: &std::sync::mpsc::Receiver<Job>,
    ) {
        use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
        // The right to write is given back (dropped) on this thread: sqlx
        // spawns its return to the pool onto the runtime.
        let _runtime = runtime.enter();
        // The Syncer's thread ends with this one, once it has answered
        // what it holds.
        let _syncer = CloseOnDrop(slot.syncer.clone());
        let mut right: Option<(sqlx::pool::PoolConnection<sqlx::Sqlite>, std::time::Instant)> =
            None;
        loop {
            let first = match queued.try_recv() {
                Ok(job) => job,
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) if right.is_some() => {
                    match queued.recv_timeout(HOLD_IDLE) {
                        Ok(job) => job,
                        Err(RecvTimeoutError::Timeout) => {
                            right = None;
                            continue;
                        }
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                Err(TryRecvError::Empty) => match queued.recv() {
                    Ok(job) => job,
                    Err(_) => return,
                },
            };
            if right
                .as_ref()
                .is_some_and(|(_, since)| since.elapsed() >= HOLD_AT_MOST)
            {
                right = None;
            }
            if right.is_none() {
                match runtime.block_on(pool.acquire()) {
                    Ok(conn) => right = Some((conn, std::time::Instant::now())),
                    Err(e) => {
                        let e = StoreError::from(e);
                        first.fail(&e);
                        while let Ok(job) = queued.try_recv() {
                            job.fail(&e);
                        }
                        continue;
                    }
                }
            }
            let mut jobs = vec![first];
            while jobs.len() < CYCLE_JOBS
                && let Ok(job) = queued.try_recv()
            {
                jobs.push(job);
            }
            // A panicking job drops its reply (its caller sees the writer
            // unavailable) and the cycle's connection, which rolls back;
            // the thread goes on with the next cycle.
            let cycle = std::panic::AssertUnwindSafe(|| Writer::cycle(&mut *slot, jobs));
            if std::panic::catch_unwind(cycle).is_err() {
                tracing::error!(
                    "a SQLite writer cycle panicked; its transactions were rolled back"
                );
            }
        }
    }

    /// Runs `jobs` as one cycle (see [`Txns::run`]) and answers each (or
    /// has the [`Syncer`] answer them). The connection is parked again only
    /// outside a transaction, as every cycle expects it; otherwise it is
    /// closed (which rolls back) and the next cycle opens another.
    fn cycle(slot: &mut WriterSlot, jobs: Vec<Job>) {
        let conn = match slot.conn.take().map_or_else(|| slot.open(), Ok) {
            Ok(conn) => conn,
            Err(e) => {
                for job in jobs {
                    job.fail(&e);
                }
                return;
            }
        };
        let cycle = slot.cycles;
        slot.cycles += 1;
        let mut writer = Writer {
            conn,
            steps: 0,
            cycle,
        };
        let durable = jobs.iter().any(|j| j.commit == Commit::Durable);
        match writer.control("BEGIN IMMEDIATE").map_err(StoreError::from) {
            Ok(()) => writer.jobs(jobs, &slot.syncer, durable),
            Err(e) => {
                for job in jobs {
                    job.fail(&e);
                }
            }
        }
        if writer.conn.is_autocommit() {
            slot.conn = Some(writer.conn);
        }
    }

    /// Inside the cycle's transaction: each job in its own savepoint (a
    /// lone job needs none: it is the whole transaction), then the commit;
    /// the replies go out once it is known, through `syncer` when it
    /// committed.
    fn jobs(&mut self, jobs: Vec<Job>, syncer: &Syncer, durable: bool) {
        let alone = jobs.len() == 1;
        let mut done: Vec<Outcome> = Vec::with_capacity(jobs.len());
        let mut jobs = jobs.into_iter();
        let mut broken = None;
        for job in jobs.by_ref() {
            if !alone && let Err(e) = self.control("SAVEPOINT job") {
                broken = Some((StoreError::from(e), Some(job)));
                break;
            }
            let outcome = (job.run)(Some(self));
            let closed = match (outcome.ok, alone) {
                (true, true) => Ok(()),
                (true, false) => self.control("RELEASE job"),
                (false, true) => self.conn.execute_batch("ROLLBACK"),
                (false, false) => self.conn.execute_batch("ROLLBACK TO job; RELEASE job"),
            };
            if outcome.ok {
                done.push(outcome);
            } else {
                // Its own error: nothing of it remains to commit.
                (outcome.reply)(None);
            }
            if let Err(e) = closed {
                broken = Some((StoreError::from(e), None));
                break;
            }
        }
        let failed = match broken {
            Some((e, job)) => {
                for job in job.into_iter().chain(jobs) {
                    job.fail(&e);
                }
                Some(e)
            }
            None if self.conn.is_autocommit() => None,
            None => self.control("COMMIT").err().map(StoreError::from),
        };
        if failed.is_some() && !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        match failed {
            None => syncer.committed(durable, done),
            Some(e) => answer(done, Some(&e)),
        }
    }

    /// Runs one of the cycle's transaction-control statements, prepared
    /// once: `execute_batch` parsed each anew, four times a cycle.
    fn control(&self, sql: &str) -> rusqlite::Result<()> {
        self.conn.prepare_cached(sql)?.raw_execute().map(drop)
    }

    /// `q` prepared (cached), with each `$n` placeholder bound to
    /// `q.binds[n - 1]`. Written as `?` or `?n` ([`sqlite_placeholders`]),
    /// which SQLite numbers by `n` (it numbers `$n` by first appearance, and
    /// looking each name up is linear in their count).
    fn prepare(&self, q: &SqlBuilder) -> Result<rusqlite::CachedStatement<'_>> {
        let mut stmt = self.conn.prepare_cached(&sqlite_placeholders(&q.sql))?;
        for i in 1..=stmt.parameter_count() {
            let Some(bind) = q.binds.get(i - 1) else {
                return Err(rusqlite::Error::InvalidParameterCount(i, q.binds.len()).into());
            };
            match bind {
                Bind::Text(s) => stmt.raw_bind_parameter(i, s.as_str())?,
                Bind::Int(v) => stmt.raw_bind_parameter(i, v)?,
                Bind::OptInt(v) => stmt.raw_bind_parameter(i, v)?,
                Bind::OptText(v) => stmt.raw_bind_parameter(i, v.as_deref())?,
                Bind::Texts(_) | Bind::Ints(_) => stmt.raw_bind_parameter(i, bind.json_array())?,
            }
        }
        Ok(stmt)
    }
}

/// How the [`Syncer`] flushes the log at this path (tests give their own).
type SyncFn = Arc<dyn Fn(&std::path::Path) -> std::io::Result<()> + Send + Sync>;

/// The store's own flush of its log ([`sync_wal`]), remembering which
/// WAL file it flushed last.
fn wal_flush() -> SyncFn {
    let seen = std::sync::Mutex::new(None);
    Arc::new(move |wal: &std::path::Path| sync_wal(wal, &seen))
}

/// Flushes the WAL file at `wal` to disk (`fdatasync`), and its directory
/// when that file is not the one last flushed (`seen`: its device and
/// inode), since a new file's name is on disk only once its directory is.
/// Opened by path each time: if the last connection closed, SQLite
/// checkpointed the log into the database, flushed that and deleted the
/// file, and a later one is another file. So no file means nothing waits
/// in a log.
fn sync_wal(
    wal: &std::path::Path,
    seen: &std::sync::Mutex<Option<(u64, u64)>>,
) -> std::io::Result<()> {
    let file = match std::fs::File::open(wal) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    file.sync_data()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = file.metadata()?;
        let id = (meta.dev(), meta.ino());
        let mut seen = seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if *seen != Some(id) {
            if let Some(dir) = wal.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::File::open(dir)?.sync_all()?;
            }
            *seen = Some(id);
        }
    }
    Ok(())
}

/// Makes committed cycles durable off the writer, then answers them (see
/// the module docs): one thread, flushing the log once for every cycle
/// committed while the previous flush ran.
struct Syncer {
    wal: std::path::PathBuf,
    sync: SyncFn,
    state: std::sync::Mutex<SyncState>,
    wake: std::sync::Condvar,
}

#[derive(Default)]
struct SyncState {
    /// Committed cycles to answer, oldest first: whether each needs the
    /// flush, and its replies.
    waiting: Vec<(bool, Vec<Outcome>)>,
    /// A flush, or the answers after it, in progress.
    busy: bool,
    closed: bool,
}

impl Syncer {
    fn start(wal: std::path::PathBuf, sync: SyncFn) -> Arc<Self> {
        let syncer = Arc::new(Syncer {
            wal,
            sync,
            state: std::sync::Mutex::default(),
            wake: std::sync::Condvar::new(),
        });
        let thread = syncer.clone();
        let started = std::thread::Builder::new()
            .name("relay-sqlite-sync".into())
            .spawn(move || thread.run());
        if let Err(e) = started {
            // Without the thread, cycles are flushed and answered on the
            // writer's (see `committed`).
            tracing::warn!(error = %e, "could not start the SQLite log's flusher thread");
            syncer.lock().closed = true;
        }
        syncer
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SyncState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A cycle committed: answers it at once if it needs no flush and none
    /// is owed to an earlier cycle, else queues it for the thread.
    fn committed(&self, durable: bool, replies: Vec<Outcome>) {
        let mut state = self.lock();
        if state.closed {
            // No thread (it could not start, or the store is going away).
            drop(state);
            let failed = if durable { self.flush() } else { None };
            answer(replies, failed.as_ref());
            return;
        }
        if !durable && !state.busy && state.waiting.is_empty() {
            drop(state);
            answer(replies, None);
            return;
        }
        state.waiting.push((durable, replies));
        drop(state);
        self.wake.notify_one();
    }

    /// Flushes the log; the error each caller is given if that failed.
    fn flush(&self) -> Option<StoreError> {
        match (self.sync)(&self.wal) {
            Ok(()) => None,
            Err(e) => {
                tracing::error!(error = %e, "flushing the SQLite log failed");
                Some(StoreError::Durability(e.to_string()))
            }
        }
    }

    /// The thread: waits for committed cycles, flushes once for all that
    /// are waiting, answers them in order; ends once closed and empty.
    fn run(&self) {
        loop {
            let cycles = {
                let mut state = self.lock();
                state.busy = false;
                while state.waiting.is_empty() && !state.closed {
                    state = self
                        .wake
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                if state.waiting.is_empty() {
                    return;
                }
                state.busy = true;
                std::mem::take(&mut state.waiting)
            };
            // The cycles before the first durable one need no flush: what
            // they follow was flushed already.
            let mut cycles = cycles.into_iter().peekable();
            while let Some((_, replies)) = cycles.next_if(|(durable, _)| !durable) {
                answer(replies, None);
            }
            if cycles.peek().is_some() {
                let failed = self.flush();
                for (_, replies) in cycles {
                    answer(replies, failed.as_ref());
                }
            }
        }
    }

    fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_all();
    }
}

/// Answers a committed cycle's callers: each with its value, or all with
/// `failed`.
fn answer(replies: Vec<Outcome>, failed: Option<&StoreError>) {
    for outcome in replies {
        (outcome.reply)(failed.map(copy_of));
    }
}

/// Closes the [`Syncer`] when dropped.
struct CloseOnDrop(Arc<Syncer>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The virtual-machine steps `stmt` took since it was last asked (a cached
/// statement keeps counting across uses).
fn vm_steps(stmt: &rusqlite::Statement<'_>) -> u64 {
    u64::try_from(stmt.reset_status(rusqlite::StatementStatus::VmStep)).unwrap_or(0)
}

/// `sql` with SQLite's placeholders: each `$n` written `?` when `n` is one
/// more than the largest number seen so far (which is what SQLite numbers a
/// bare `?`), otherwise `?n`. The padded `VALUES` lists of the hot path
/// number their placeholders in order, so their text is about half as long:
/// the statement cache hashes, compares and copies it on every use. Relay's
/// SQL has no `$` inside string literals: values are always bound.
fn sqlite_placeholders(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let (mut copied, mut i, mut largest) = (0, 0, 0u64);
    while let Some(at) = bytes[i..].iter().position(|b| *b == b'$') {
        let dollar = i + at;
        let digits = bytes[dollar + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        i = dollar + 1 + digits;
        if digits == 0 {
            continue;
        }
        let number = &sql[dollar + 1..i];
        out.push_str(&sql[copied..dollar]);
        copied = i;
        match number.parse::<u64>() {
            Ok(n) if n == largest + 1 => {
                out.push('?');
                largest = n;
            }
            parsed => {
                out.push('?');
                out.push_str(number);
                if let Ok(n) = parsed {
                    largest = largest.max(n);
                }
            }
        }
    }
    out.push_str(&sql[copied..]);
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
    const FOR_SHARE: &'static str = dialect::FOR_SHARE;
    const RECOVERY_INDEX: &'static str = dialect::RECOVERY_INDEX;
    const WAKE_NOTIFY: Option<&'static str> = dialect::WAKE_NOTIFY;
    const ENDPOINT_NOTIFY: Option<&'static str> = dialect::ENDPOINT_NOTIFY;
    const ARRAYS: bool = dialect::ARRAYS;
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
    use crate::within;

    #[test]
    fn placeholders_are_written_for_sqlite() {
        for (sql, want) in [
            ("SELECT $1", "SELECT ?"),
            // In order: bare `?`, numbered by SQLite one after the other.
            ("VALUES ($1, $2), ($3, $4)", "VALUES (?, ?), (?, ?)"),
            // Out of order or repeated: numbered.
            (
                "UPDATE t SET a = $2 WHERE id = $1 AND b = $2",
                "UPDATE t SET a = ?2 WHERE id = ?1 AND b = ?2",
            ),
            ("SELECT $1, $1, $2, $4, $5", "SELECT ?, ?1, ?, ?4, ?"),
            ("VALUES ($10, $11)", "VALUES (?10, ?)"),
            // A `$` not followed by a digit is not a placeholder.
            ("SELECT '$' || $1", "SELECT '$' || ?"),
            ("SELECT 1 $", "SELECT 1 $"),
            ("SELECT 1", "SELECT 1"),
            ("", ""),
        ] {
            assert_eq!(sqlite_placeholders(sql), want, "{sql}");
        }
    }

    /// What SQLite binds to each placeholder of the rewritten text is what
    /// the `$n` placeholders meant: `q.binds[n - 1]`.
    #[test]
    fn rewritten_placeholders_take_their_values() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for (sql, want) in [
            ("SELECT $1, $2, $3", "a b c"),
            ("SELECT $2, $1, $3", "b a c"),
            ("SELECT $1, $1, $2, $3", "a a b c"),
            ("SELECT $3, $1, $2", "c a b"),
        ] {
            let q = SqlBuilder::numbered(sql, ["a", "b", "c"].map(|v| Bind::Text(v.into())));
            let mut stmt = conn.prepare(&sqlite_placeholders(&q.sql)).unwrap();
            for i in 1..=stmt.parameter_count() {
                let Bind::Text(v) = &q.binds[i - 1] else {
                    unreachable!()
                };
                stmt.raw_bind_parameter(i, v.as_str()).unwrap();
            }
            let n = stmt.column_count();
            let mut rows = stmt.raw_query();
            let row = rows.next().unwrap().unwrap();
            let got: Vec<String> = (0..n).map(|i| row.get(i).unwrap()).collect();
            assert_eq!(got.join(" "), want, "{sql}");
        }
    }

    async fn store() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("w.db").display());
        let store = SqliteStore::connect(&url).await.unwrap();
        (dir, store)
    }

    /// A flush of the log that waits for the test's permission, and fails
    /// while `failing` is set.
    #[derive(Default)]
    struct Gate {
        permits: std::sync::Mutex<u32>,
        opened: std::sync::Condvar,
        calls: std::sync::atomic::AtomicU64,
        failing: std::sync::atomic::AtomicBool,
    }

    impl Gate {
        fn sync_fn(self: &Arc<Self>) -> SyncFn {
            let gate = self.clone();
            Arc::new(move |_: &std::path::Path| {
                gate.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut permits = gate.permits.lock().unwrap();
                while *permits == 0 {
                    permits = gate.opened.wait(permits).unwrap();
                }
                *permits -= 1;
                if gate.failing.load(std::sync::atomic::Ordering::SeqCst) {
                    return Err(std::io::Error::other("the disk is gone"));
                }
                Ok(())
            })
        }

        fn open(&self, n: u32) {
            *self.permits.lock().unwrap() += n;
            self.opened.notify_all();
        }

        fn calls(&self) -> u64 {
            self.calls.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    async fn gated_store() -> (tempfile::TempDir, SqliteStore, Arc<Gate>) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("w.db").display());
        let gate = Arc::new(Gate::default());
        let store = SqliteStore::connect_syncing(&url, gate.sync_fn())
            .await
            .unwrap();
        (dir, store, gate)
    }

    /// Rows in `t`, as a reader sees them (committed, flushed or not).
    async fn rows_in_t(store: &SqliteStore) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM t")
            .fetch_one(&store.read)
            .await
            .unwrap()
    }

    fn insert_into_t(
        store: &SqliteStore,
        commit: Commit,
        a: i64,
    ) -> tokio::task::JoinHandle<Result<u64>> {
        let txns = store.txns.clone();
        tokio::spawn(async move {
            txns.run(commit, move |x| {
                Box::pin(async move {
                    x.execute(&SqlBuilder::numbered(
                        "INSERT INTO t (a) VALUES ($1)",
                        [Bind::Int(a)],
                    ))
                    .await
                })
            })
            .await
        })
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

    /// The writer's commits write the log without flushing it (NORMAL is
    /// 1); the Syncer flushes it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_writer_commits_with_synchronous_normal() {
        let (_dir, store) = store().await;
        assert_eq!(synchronous(&store).await, 1);
        store.txns.run(Commit::Lease, create_table).await.unwrap();
        let failed = store.txns.run(Commit::Lease, create_table).await;
        assert!(failed.is_err(), "the table exists already");
        assert_eq!(synchronous(&store).await, 1);
    }

    /// A durable cycle is answered only after a flush that started after
    /// its commit; meanwhile the writer goes on with the next cycles. A
    /// lease cycle is answered at once when no flush is owed, else after
    /// the flush of the cycles before it; one flush covers every durable
    /// cycle committed while the previous one ran.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn durable_cycles_are_answered_after_their_flush_and_the_writer_goes_on() {
        let (_dir, store, gate) = gated_store().await;
        // No flush is owed: a lease cycle is answered at its commit.
        store.txns.run(Commit::Lease, create_table).await.unwrap();
        assert_eq!(gate.calls(), 0);

        let first = insert_into_t(&store, Commit::Durable, 1);
        until(|| gate.calls() == 1).await;
        assert_eq!(rows_in_t(&store).await, 1, "committed before the flush");
        // While that flush runs, the writer commits a lease cycle (which
        // waits for it: it follows the first) and another durable one.
        // Each committed before the next is queued, so each has a cycle
        // of its own.
        let committed = |rows: i64| {
            let store = &store;
            within(async move {
                while rows_in_t(store).await < rows {
                    tokio::task::yield_now().await;
                }
            })
        };
        let second = insert_into_t(&store, Commit::Lease, 2);
        committed(2).await;
        let third = insert_into_t(&store, Commit::Durable, 3);
        committed(3).await;
        assert!(!first.is_finished() && !second.is_finished() && !third.is_finished());

        gate.open(1);
        assert_eq!(within(first).await.unwrap().unwrap(), 1);
        // The lease cycle needs no flush of its own; the third does.
        assert_eq!(within(second).await.unwrap().unwrap(), 1);
        until(|| gate.calls() == 2).await;
        assert!(
            !third.is_finished(),
            "its commit came after the first flush began"
        );
        gate.open(1);
        assert_eq!(within(third).await.unwrap().unwrap(), 1);
        assert_eq!(gate.calls(), 2, "one flush for each durable cycle here");
    }

    /// A flush that fails fails the callers of every cycle it was to make
    /// durable (what they wrote stays committed: re-publishing an event id
    /// is idempotent); the next flush is tried anew.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_flush_fails_its_callers_and_the_next_one_is_tried() {
        let (_dir, store, gate) = gated_store().await;
        gate.open(1);
        store.txns.run(Commit::Durable, create_table).await.unwrap();
        gate.failing
            .store(true, std::sync::atomic::Ordering::SeqCst);
        gate.open(1);
        let failed = within(insert_into_t(&store, Commit::Durable, 1))
            .await
            .unwrap();
        let Err(StoreError::Durability(why)) = failed else {
            panic!("a durability error, not {failed:?}");
        };
        assert!(why.contains("the disk is gone"), "{why}");
        gate.failing
            .store(false, std::sync::atomic::Ordering::SeqCst);
        gate.open(1);
        let after = within(insert_into_t(&store, Commit::Durable, 2)).await;
        assert_eq!(after.unwrap().unwrap(), 1);
        assert_eq!(gate.calls(), 3);
    }

    /// The real flush: a WAL file is synced (and its directory, the first
    /// time); no file, as after the last connection closed, is nothing to
    /// flush.
    #[test]
    fn the_log_is_flushed_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let wal = dir.path().join("w.db-wal");
        let seen = std::sync::Mutex::new(None);
        sync_wal(&wal, &seen).unwrap();
        assert_eq!(*seen.lock().unwrap(), None, "no file flushed");
        std::fs::write(&wal, b"frames").unwrap();
        sync_wal(&wal, &seen).unwrap();
        assert!(seen.lock().unwrap().is_some(), "its directory flushed once");
        sync_wal(&wal, &seen).unwrap();
        let missing = dir.path().join("missing").join("w.db-wal");
        assert!(sync_wal(&missing, &seen).is_ok());
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

    /// Transactions queued while another holds the right to write share
    /// the next cycle; one that fails rolls back alone and the others
    /// commit.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn queued_transactions_share_a_cycle_and_fail_alone() {
        let (_dir, store) = store().await;
        store.txns.run(Commit::Durable, create_table).await.unwrap();
        let insert = |a: i64, fails: bool| {
            store.txns.run(Commit::Durable, move |x| {
                Box::pin(async move {
                    x.execute(&SqlBuilder::numbered(
                        "INSERT INTO t (a) VALUES ($1)",
                        [Bind::Int(a)],
                    ))
                    .await?;
                    if fails {
                        x.execute(&SqlBuilder::new("INSERT INTO missing VALUES (1)"))
                            .await?;
                    }
                    Ok(x.cycle)
                })
            })
        };
        let held = store.write.acquire().await.unwrap();
        let (mut one, mut two, mut three) = (
            Box::pin(insert(1, false)),
            Box::pin(insert(2, true)),
            Box::pin(insert(3, false)),
        );
        // Each first poll queues its job; none can run yet.
        let mut cx = Context::from_waker(Waker::noop());
        assert!(one.as_mut().poll(&mut cx).is_pending());
        assert!(two.as_mut().poll(&mut cx).is_pending());
        assert!(three.as_mut().poll(&mut cx).is_pending());
        drop(held);
        let (one, two, three) = (one.await.unwrap(), two.await, three.await.unwrap());
        assert!(two.is_err(), "the missing table");
        assert_eq!(one, three, "one cycle");
        let rows: Vec<i64> = sqlx::query_scalar("SELECT a FROM t ORDER BY a")
            .fetch_all(&store.write)
            .await
            .unwrap();
        assert_eq!(rows, vec![1, 3], "the failed one rolled back alone");
        // Its cycle committed: what comes next runs in a cycle of its own.
        assert!(insert(4, false).await.unwrap() > one);
    }

    /// A steady stream of transactions does not keep sqlx's own writes
    /// from the right to write: the writer gives it back after
    /// [`HOLD_AT_MOST`] however busy it is.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlx_writes_get_their_turn_while_the_writer_is_busy() {
        let (_dir, store) = store().await;
        store.txns.run(Commit::Durable, create_table).await.unwrap();
        // Four cycles' worth of transactions always queued, each slow
        // enough that they queue faster than the writer runs them: it never
        // waits for one, so only its bound gives the right to write back.
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ran = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let stream = {
            let (txns, stop, ran) = (store.txns.clone(), stop.clone(), ran.clone());
            tokio::spawn(async move {
                let mut queued = tokio::task::JoinSet::new();
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    while queued.len() < 4 * CYCLE_JOBS {
                        let txns = txns.clone();
                        queued.spawn(async move {
                            txns.run(Commit::Lease, |x| {
                                Box::pin(async move {
                                    std::thread::sleep(Duration::from_micros(500));
                                    x.execute(&SqlBuilder::new("INSERT INTO t (a) VALUES (0)"))
                                        .await
                                })
                            })
                            .await
                        });
                    }
                    queued.join_next().await.unwrap().unwrap().unwrap();
                    ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                while let Some(done) = queued.join_next().await {
                    done.unwrap().unwrap();
                }
            })
        };
        let ran_now = ran.clone();
        until(move || ran_now.load(std::sync::atomic::Ordering::SeqCst) >= 100).await;
        let own_write = sqlx::query("INSERT INTO t (a) VALUES (1)").execute(&store.write);
        within(own_write).await.unwrap();
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        within(stream).await.unwrap();
    }

    /// A job that panics fails its own caller (the writer is unavailable to
    /// it) and rolls its cycle back; the writer goes on with the next.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_job_fails_alone_and_the_writer_goes_on() {
        let (_dir, store) = store().await;
        store.txns.run(Commit::Durable, create_table).await.unwrap();
        let bug = true;
        let panicked = store.txns.run(Commit::Durable, move |x| {
            Box::pin(async move {
                x.execute(&SqlBuilder::new("INSERT INTO t (a) VALUES (1)"))
                    .await?;
                if bug {
                    panic!("a bug in a transaction");
                }
                Ok(())
            })
        });
        assert!(matches!(
            within(panicked).await,
            Err(StoreError::Unavailable(_))
        ));
        within(insert_into_t(&store, Commit::Durable, 2))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(rows_in_t(&store).await, 1, "the panicked one rolled back");
    }

    /// Yields until `cond` holds (at most 10 s, then fails).
    async fn until(cond: impl Fn() -> bool) {
        let waited = tokio::time::timeout(Duration::from_secs(10), async {
            while !cond() {
                tokio::task::yield_now().await;
            }
        });
        waited.await.expect("the condition within 10 s");
    }

    /// Counts what each publish batch hands over, with room for everything.
    #[derive(Default)]
    struct CountingIntake {
        batches: std::sync::Mutex<Vec<usize>>,
    }

    impl crate::Intake for CountingIntake {
        fn owner(&self) -> &str {
            "w"
        }
        fn lease_millis(&self) -> i64 {
            30_000
        }
        fn reserve(
            &self,
            _: &crate::IntakeEndpoint<'_>,
            _: relay_core::time::Timestamp,
        ) -> Option<crate::Reserved> {
            Some(crate::Reserved {
                behind: false,
                hold: Box::new(()),
            })
        }
        fn take(&self, leased: Vec<(crate::Reserved, crate::Claimed)>) {
            self.batches.lock().unwrap().push(leased.len());
        }
    }

    /// A publish batch takes its publishes when the writer starts it: those
    /// that queued while it waited for the writer go with it, in one
    /// commit, instead of forming a batch that waits for another cycle.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_publish_batch_takes_what_queued_while_it_waited_for_the_writer() {
        use crate::Store;
        use crate::conformance::{consumer, endpoint, new_event, scope, tenant};
        let (_dir, store) = store().await;
        store.migrate().await.unwrap();
        let store = Arc::new(store);
        let live = {
            let s: &dyn Store = &*store;
            let t = tenant(s, "a").await;
            let live = scope(&t, relay_core::model::Environment::Live);
            let c = consumer(s, &live, "c").await;
            endpoint(s, &live, &c.id, &["order.shipped"]).await;
            live
        };
        let intake = Arc::new(CountingIntake::default());
        store.set_intake(Some(intake.clone()));
        let publish = |id: &'static str| {
            let (store, live) = (store.clone(), live.clone());
            tokio::spawn(async move {
                store
                    .publish(&live, new_event(id, "order.shipped", None))
                    .await
            })
        };
        let sent = |store: &SqliteStore| store.txns.sent.load(std::sync::atomic::Ordering::SeqCst);
        let before = sent(&store);
        let held = store.write.acquire().await.unwrap();
        let a = publish("evt_a");
        // Both batches are with the writer, waiting; neither has started.
        until(|| sent(&store) >= before + dialect::PUBLISH_BATCHES as u64).await;
        let (b, c) = (publish("evt_b"), publish("evt_c"));
        until(|| store.publishes.len() == 3).await;
        drop(held);
        for p in [a, b, c] {
            assert_eq!(p.await.unwrap().unwrap().messages_leased, 1);
        }
        assert_eq!(
            *intake.batches.lock().unwrap(),
            vec![3],
            "one batch took all three"
        );
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
