//! The SQLite backend's own tests: the writer's cycles, the flusher, placeholders.

use std::sync::Arc;
use std::task::{Context, Waker};

use futures_util::future::BoxFuture;

use super::syncer::{SyncFn, sync_wal};
use super::writer::{CYCLE_JOBS, Writer, sqlite_placeholders};
use super::*;
use crate::exec::{Commit, Exec};
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};
use crate::{Operator, Publisher, Signals, within};

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
                let batch = crate::claims::claim(x, &req).await?;
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
