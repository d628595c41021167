//! The SQLite writer: a rusqlite connection on a thread of its own that runs
//! the queued transactions in cycles (one `BEGIN` … `COMMIT`, each
//! transaction in its own savepoint), with its prepared statements cached;
//! see the parent module for why.

use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rusqlite::types::Value;
use sqlx::SqlitePool;

use super::syncer::{CloseOnDrop, SyncFn, Syncer, answer};
use super::{BUSY_TIMEOUT, dialect};
use crate::exec::{Commit, Exec};
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};
use crate::{Result, StoreError};

/// Runs the hot-path transactions (see the module docs).
#[derive(Clone)]
pub struct Txns {
    /// To the writer's thread ([`Writer::serve`]), which runs them in
    /// cycles.
    jobs: std::sync::mpsc::Sender<Job>,
    /// Transactions handed to the writer so far (tests wait on it).
    pub(crate) sent: Arc<std::sync::atomic::AtomicU64>,
}

/// One transaction waiting for the [`Writer`]: its commit kind and `f`
/// with its reply, type-erased. Given no writer, it does not run and only
/// prepares its reply.
pub(crate) struct Job {
    commit: Commit,
    run: RunJob,
}

pub(crate) type RunJob = Box<dyn FnOnce(Option<&mut Writer>) -> Outcome + Send>;

/// What a [`Job`] did: whether it succeeded, and how to tell its caller
/// once the cycle's end is known (`Some(error)`: the cycle failed). A job
/// that failed reports its own error whatever the cycle did.
pub(crate) struct Outcome {
    pub(crate) ok: bool,
    pub(crate) reply: Box<dyn FnOnce(Option<StoreError>) + Send>,
}

impl Job {
    /// Tells the caller that its job could not run, or was not committed.
    fn fail(self, e: &StoreError) {
        ((self.run)(None).reply)(Some(copy_of(e)));
    }
}

/// A cycle's error for each of its jobs: SQLite's error code and message
/// as they were; any other error as the writer being unavailable.
pub(crate) fn copy_of(e: &StoreError) -> StoreError {
    match e {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(code, msg)) => {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(*code, msg.clone()))
        }
        StoreError::Durability(why) => StoreError::Durability(why.clone()),
        StoreError::Schema(why) => StoreError::Schema(why.clone()),
        StoreError::Corrupt(why) => StoreError::Corrupt(why.clone()),
        _ => StoreError::Unavailable("the SQLite writer"),
    }
}

/// What the writer's thread keeps between cycles: its connection while no
/// cycle uses it, and how to open another.
pub(crate) struct WriterSlot {
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
pub(crate) const STATEMENT_CACHE: usize = 256;

/// At most this many transactions share one cycle's commit.
pub(crate) const CYCLE_JOBS: usize = 64;

/// How long the writer keeps the right to write with no transaction to
/// run: under load the next one comes within a cycle or two, and taking
/// the right back costs a round trip to sqlx's connection thread (sqlx
/// pings a connection when it is given back, and the next `acquire` waits
/// for that).
pub(crate) const HOLD_IDLE: Duration = Duration::from_millis(2);

/// How long the writer keeps the right to write at most before giving it
/// back, so sqlx's own writes (which queue for it, first come first
/// served) are not kept waiting longer by a steady stream of transactions.
pub(crate) const HOLD_AT_MOST: Duration = Duration::from_millis(20);

impl Txns {
    /// Starts the writer's thread, and the [`Syncer`]'s. The writer's
    /// takes the right to write (the write pool's connection) on the
    /// current runtime.
    pub(crate) fn start(pool: SqlitePool, path: std::path::PathBuf, sync: SyncFn) -> Self {
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
        let runtime = tokio::runtime::Handle::current();
        let started = std::thread::Builder::new()
            .name("relay-sqlite-writer".into())
            .spawn(move || Writer::serve(&runtime, &pool, &mut slot, &queued));
        if let Err(e) = started {
            // Its queue is gone with it: every transaction fails as the
            // writer being unavailable.
            tracing::error!(error = %e, "could not start the SQLite writer's thread");
        }
        Txns {
            jobs,
            sent: Arc::default(),
        }
    }

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
    pub(crate) conn: rusqlite::Connection,
    /// SQLite virtual-machine steps the current job's statements took: a
    /// measure of their work that does not depend on the machine (tests
    /// compare it).
    pub(crate) steps: u64,
    /// Which cycle this is (tests tell shared cycles by it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) cycle: u64,
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
/// The virtual-machine steps `stmt` took since it was last asked (a cached
/// statement keeps counting across uses).
pub(crate) fn vm_steps(stmt: &rusqlite::Statement<'_>) -> u64 {
    u64::try_from(stmt.reset_status(rusqlite::StatementStatus::VmStep)).unwrap_or(0)
}

/// `sql` with SQLite's placeholders: each `$n` written `?` when `n` is one
/// more than the largest number seen so far (which is what SQLite numbers a
/// bare `?`), otherwise `?n`. The padded `VALUES` lists of the hot path
/// number their placeholders in order, so their text is about half as long:
/// the statement cache hashes, compares and copies it on every use. Relay's
/// SQL has no `$` inside string literals: values are always bound.
pub(crate) fn sqlite_placeholders(sql: &str) -> String {
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

/// The value of a future that is ready at once: a transaction awaits
/// nothing but the [`Writer`], whose calls complete synchronously. One that
/// awaited something else could never be woken here: it fails, as the
/// executor fails it on either backend (`crate::executor`).
pub(crate) fn ready<T>(f: BoxFuture<'_, Result<T>>) -> Result<T> {
    let mut f = f;
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => Err(StoreError::Internal(crate::executor::AWAITED_OUTSIDE)),
    }
}

impl Exec for Writer {
    type Row = WriterRow;
    fn dialect(&self) -> &'static crate::exec::Dialect {
        &dialect::DIALECT
    }

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
    async fn execute_script(&mut self, sql: &str) -> Result<()> {
        Ok(self.conn.execute_batch(sql)?)
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
