//! Relay's dispatcher: turns `scheduled` messages into signed deliveries.
//!
//! - [`Dispatcher::start`]: the background loop. Claim due messages with a
//!   lease (no transaction stays open), attempt each in its own task (at most
//!   `max_in_flight` at once), send the completions to one completer task that
//!   writes them in batches, rescue expired leases now and then. It wakes at
//!   once on a publish (in-process `Notify`, and `LISTEN/NOTIFY` from other
//!   nodes on PostgreSQL), otherwise when the next retry is due, with a poll
//!   as the fallback.
//! - [`Dispatcher::run_once`]: one claim → attempt → complete round at the
//!   injected clock's "now"; tests walk retry schedules with it.
//! - [`attempt`]: one attempt (envelope, signature, guarded POST, outcome).
//! - [`lanes`]: per-endpoint concurrency limits (isolation between endpoints).
//! - [`metrics`]: the Prometheus counters behind `/metrics`.
//!
//! Safety: a message is attempted only under a lease; a completion is
//! applied only if its lease still holds (`Store::complete`), so a late or
//! duplicate completion never overwrites a rescued, cancelled or completed
//! message. A process that dies mid-attempt leaves a lease that expires and is
//! rescued: delivery is at least once.
//!
//! Graceful shutdown (the loop after its shutdown signal): stop
//! claiming, let attempts in flight finish within `shutdown_grace`, flush
//! completions, release the remaining leases.

pub mod attempt;
pub mod intake;
pub mod lanes;
mod lifecycle;
pub mod metrics;
pub mod sweep;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use relay_core::model::AttemptTrigger;
use relay_core::retry::ScheduleBounds;
use relay_core::sealed::MasterKey;
use relay_core::time::Clock;
use relay_net::{HttpsClient, Limits};
use relay_store::{Completion, Store};
use tokio::sync::{Notify, Semaphore, mpsc, watch};

pub use attempt::Attempter;
pub use metrics::Metrics;

/// How the dispatcher behaves; see [`EngineConfig::new`] for the defaults.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// This process's lease owner name (unique per process).
    pub owner: String,
    /// How long a claim is valid; longer than the whole-request timeout.
    pub lease: Duration,
    /// Messages claimed per round.
    pub claim_batch: u32,
    /// Attempts in flight at once in this process.
    pub max_in_flight: usize,
    /// Of those, recovery attempts (recover, bulk retry, replay) at most: the
    /// rest is kept for live traffic, so a large recovery never leaves a live
    /// message waiting for a slot.
    pub max_recovery_in_flight: usize,
    /// Recovery attempts started per second at most in this process (0: no
    /// limit). Recovery shares the machine and the database with live
    /// traffic; at full speed it would double live latency.
    pub recovery_per_second: u32,
    /// The longest the loop sleeps without a wake-up (fallback poll).
    pub poll_interval: Duration,
    /// How often expired leases are rescued.
    pub rescue_interval: Duration,
    /// Completions written per transaction at most.
    pub completion_batch: usize,
    /// How long in-flight attempts may finish after shutdown is requested.
    pub shutdown_grace: Duration,
    pub limits: Limits,
    pub retry_bounds: ScheduleBounds,
    /// A CloudEvents body larger than this is dead-lettered (`payload_too_large`).
    pub max_payload_bytes: usize,
    /// Events older than this are purged with their messages and attempts.
    pub retention: Duration,
    /// How often the purge runs, and how many events one transaction removes.
    pub purge_interval: Duration,
    pub purge_batch: u32,
    /// When an endpoint's circuit opens and how long it stays open.
    pub breaker: relay_core::circuit::BreakerConfig,
    /// How often waiting messages whose window closed are ended (`sweep`),
    /// and how many one transaction ends at most.
    pub sweep_interval: Duration,
    pub sweep_batch: u32,
}

impl EngineConfig {
    /// Defaults with a fresh owner name: `<prefix>-<pid>-<random>`.
    pub fn new(prefix: &str) -> Self {
        let mut r = [0u8; 6];
        let _ = getrandom::fill(&mut r);
        EngineConfig {
            owner: format!("{prefix}-{}-{}", std::process::id(), hex::encode(r)),
            lease: Duration::from_secs(60),
            claim_batch: 128,
            max_in_flight: 512,
            max_recovery_in_flight: 384,
            recovery_per_second: 1000,
            poll_interval: Duration::from_secs(1),
            rescue_interval: Duration::from_secs(5),
            completion_batch: 256,
            shutdown_grace: Duration::from_secs(25),
            limits: Limits::default(),
            retry_bounds: ScheduleBounds::DEFAULT,
            max_payload_bytes: 1024 * 1024,
            retention: Duration::from_secs(30 * 86_400),
            purge_interval: Duration::from_secs(60),
            purge_batch: 500,
            breaker: relay_core::circuit::BreakerConfig::default(),
            sweep_interval: Duration::from_secs(1),
            sweep_batch: 500,
        }
    }
}

pub struct Dispatcher {
    attempter: Arc<Attempter>,
    lanes: Arc<lanes::Lanes>,
    /// Recovery attempts in flight in this process.
    recovery_in_flight: std::sync::atomic::AtomicUsize,
    /// The tenant whose recovery traffic the last claim served first (where
    /// the next claim's rotation across tenants starts).
    recovery_cursor: std::sync::Mutex<Option<String>>,
    /// Signalled when a recovery slot frees up after all were taken.
    recovery_freed: Notify,
    /// Messages leased ahead, per endpoint (see [`Ahead`]), and room
    /// reserved for messages leased at publish ([`intake`]).
    ahead: Arc<std::sync::Mutex<AheadState>>,
    /// In-flight permits (`max_in_flight`): an attempt, or a message leased
    /// ahead, holds one until its completion is written.
    permits: Arc<Semaphore>,
    /// Signalled when messages leased at publish were queued: the loop
    /// starts what can start, without claiming.
    intake_ready: Notify,
    /// Set when the loop stops claiming: nothing leased ahead starts then.
    stopping: std::sync::atomic::AtomicBool,
    /// Recovery attempts that may start now (`recovery_per_second`), and when
    /// that was counted.
    recovery_tokens: std::sync::Mutex<(f64, relay_core::time::Timestamp)>,
}

/// What one claim gave the loop.
struct Claim {
    /// With a lane slot taken: to attempt now.
    admitted: Vec<relay_store::Claimed>,
    /// Leased ahead (see [`Ahead`]).
    ahead: Vec<relay_store::Claimed>,
    /// When the earliest scheduled message is due, as the claim read it.
    next_due: Option<relay_core::time::Timestamp>,
}

/// A live message leased ahead of a free slot in its endpoint's lane, with
/// the in-flight permit it holds and when it was claimed.
///
/// With lanes of 10 and a fast endpoint, a slot turns over in about a
/// millisecond, while claiming its next message takes a writer transaction.
/// So for an endpoint limited by concurrency alone (no rate limit, circuit
/// closed) a claim also leases up to [`AHEAD_DEPTH`] × `max_concurrency`
/// more, queued here; an attempt that finishes starts the next one of its
/// endpoint at once, and the queue is refilled once half of it is used.
/// What cannot start (the circuit opened, or it waited half a lease) is
/// given back unattempted.
struct Ahead {
    claimed: relay_store::Claimed,
    permit: tokio::sync::OwnedSemaphorePermit,
    at: relay_core::time::Timestamp,
}

/// The dispatcher's messages leased ahead, and what publishes reserved.
#[derive(Default)]
struct AheadState {
    /// Endpoint → its messages leased ahead, oldest first.
    queues: HashMap<String, VecDeque<Ahead>>,
    /// How many `queues` hold in all.
    queued: usize,
    /// Endpoint → room reserved by publishes not committed yet.
    reserved: HashMap<String, u32>,
    /// How many `reserved` holds in all.
    reserved_total: usize,
    /// Endpoints a publish scheduled live messages for (they were not
    /// leased at publish), each with the mark of when that began: new
    /// messages are not leased at publish ahead of those. A claim that
    /// started after the mark and found none of the endpoint's due live
    /// messages left clears it. (Messages scheduled while that claim ran
    /// may then be overtaken by the next ones leased at publish; the next
    /// claim, which their publish woke, takes them.)
    backlog: HashMap<String, u64>,
    /// The latest mark given out.
    marks: u64,
    /// Endpoints paused or disabled (as this process was told: see
    /// [`Dispatcher::endpoint_changed`]), each with the mark of when: none
    /// of their messages starts. A claim that started after the mark and
    /// found the endpoint active again clears it.
    stopped: HashMap<String, u64>,
}

impl AheadState {
    /// Queued and reserved for `endpoint_id`.
    fn held(&self, endpoint_id: &str) -> u32 {
        self.queues.get(endpoint_id).map_or(0, |q| q.len() as u32)
            + self.reserved.get(endpoint_id).copied().unwrap_or(0)
    }
}

impl Dispatcher {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        client: HttpsClient,
        master: MasterKey,
        config: EngineConfig,
    ) -> Arc<Self> {
        let (config_breaker, config_max_in_flight) = (config.breaker, config.max_in_flight);
        Arc::new(Dispatcher {
            attempter: Arc::new(Attempter {
                store,
                clock,
                client,
                master,
                config,
                keys: attempt::KeyCache::default(),
                metrics: Arc::new(Metrics::default()),
            }),
            lanes: Arc::new(lanes::Lanes::new(config_breaker)),
            recovery_in_flight: Default::default(),
            recovery_cursor: Default::default(),
            recovery_freed: Notify::new(),
            ahead: Default::default(),
            permits: Arc::new(Semaphore::new(config_max_in_flight)),
            intake_ready: Notify::new(),
            stopping: Default::default(),
            recovery_tokens: std::sync::Mutex::new((0.0, relay_core::time::Timestamp(0))),
        })
    }

    pub fn metrics(&self) -> Arc<Metrics> {
        self.attempter.metrics.clone()
    }

    pub fn config(&self) -> &EngineConfig {
        &self.attempter.config
    }

    fn store(&self) -> &dyn Store {
        &*self.attempter.store
    }

    /// Claims due messages for endpoints whose lanes have room (live first,
    /// recovery shared fairly across tenants within what is left of
    /// `max_recovery_in_flight`), takes a lane slot for each, and gives back
    /// (unattempted) the ones that found their lane full. The caller must
    /// call [`Dispatcher::finished`] after each attempt.
    ///
    /// With `look_ahead`, endpoints limited by concurrency alone also get
    /// room for their queue of messages leased ahead (refilled once half of
    /// it is used; within a quarter of `max_in_flight` in all); what is
    /// claimed for it comes back second, not admitted.
    async fn claim(&self, limit: u32, look_ahead: bool) -> Result<Claim, relay_store::StoreError> {
        use std::sync::atomic::Ordering;
        let a = &self.attempter;
        let now = a.clock.now();
        let lease_until = now.plus_millis(a.config.lease.as_millis() as i64);
        let mut room = self.lanes.room(now);
        // Backlog marks given out before this claim (see `AheadState`).
        let marks_seen = self.ahead.lock().map(|s| s.marks).unwrap_or(0);
        // Endpoint → how many more may be leased ahead.
        let mut ahead_room: HashMap<String, u32> = HashMap::new();
        if look_ahead {
            let (queued, total): (HashMap<String, u32>, u32) = self
                .ahead
                .lock()
                .map(|s| {
                    let held = s
                        .queues
                        .keys()
                        .chain(s.reserved.keys())
                        .map(|e| (e.clone(), s.held(e)))
                        .collect();
                    (held, (s.queued + s.reserved_total) as u32)
                })
                .unwrap_or_default();
            // Messages leased ahead hold in-flight permits: at most a quarter
            // of them, and half of what this claim may take, so the other
            // endpoints always have permits to start with.
            let mut budget = (self.ahead_budget() as u32)
                .saturating_sub(total)
                .min(limit / 2);
            let eligible = self.lanes.look_ahead(now);
            // Fewest queued first.
            room.sort_by_key(|(e, _)| queued.get(e).copied().unwrap_or(0));
            for (endpoint, r) in room.iter_mut() {
                let Some(max) = eligible.get(endpoint) else {
                    continue;
                };
                let q = queued.get(endpoint).copied().unwrap_or(0);
                let max = max * AHEAD_DEPTH;
                if q <= max / 2 && budget > 0 {
                    let more = (max - q).min(budget);
                    budget -= more;
                    *r += more;
                    ahead_room.insert(endpoint.clone(), more);
                }
            }
        }
        let recovery_room = a
            .config
            .max_recovery_in_flight
            .saturating_sub(self.recovery_in_flight.load(Ordering::Relaxed))
            .min(self.recovery_tokens(now) as usize);
        let cursor = self.recovery_cursor.lock().ok().and_then(|c| c.clone());
        let batch = a
            .store
            .claim(&relay_store::ClaimRequest {
                owner: &a.config.owner,
                now,
                lease_until,
                limit,
                recovery_limit: u32::try_from(recovery_room).unwrap_or(u32::MAX),
                room: &room,
                recovery_after: cursor.as_deref(),
            })
            .await?;
        if batch.recovery_first.is_some()
            && let Ok(mut c) = self.recovery_cursor.lock()
        {
            *c = batch.recovery_first;
        }
        let claimed = self.drop_stopped(batch.claimed, marks_seen).await?;
        if (claimed.len() as u32) < limit {
            self.clear_backlog(&room, &claimed, marks_seen);
        }
        if let Some(oldest) = claimed
            .iter()
            .filter_map(|c| c.message.next_attempt_at)
            .min()
        {
            a.metrics
                .due_lag_millis
                .store((now.millis() - oldest.millis()).max(0), Ordering::Relaxed);
        }
        let (admitted, rest): (Vec<_>, Vec<_>) =
            claimed.into_iter().partition(|c| self.admit(c, now));
        let (ahead, overflow): (Vec<_>, Vec<_>) = rest.into_iter().partition(|c| match ahead_room
            .get_mut(&c.endpoint.id)
        {
            Some(n) if *n > 0 && !c.recovery => {
                *n -= 1;
                true
            }
            _ => false,
        });
        if !overflow.is_empty() {
            let ids: Vec<String> = overflow.iter().map(|c| c.message.id.clone()).collect();
            a.store.release_claims(&a.config.owner, &ids, now).await?;
        }
        let recovery = admitted.iter().filter(|c| c.recovery).count();
        self.recovery_in_flight
            .fetch_add(recovery, Ordering::Relaxed);
        if recovery > 0
            && let Ok(mut t) = self.recovery_tokens.lock()
        {
            t.0 -= recovery as f64;
        }
        Ok(Claim {
            admitted,
            ahead,
            next_due: batch.next_due,
        })
    }

    /// How many messages may be leased ahead (queued, or reserved at
    /// publish) in all: a quarter of `max_in_flight`, since each holds an
    /// in-flight permit and the other endpoints need some to start with.
    fn ahead_budget(&self) -> usize {
        self.config().max_in_flight / 4
    }

    /// After a claim that took fewer than it could (so it took every due
    /// live message of an endpoint that had room left), lets publishes lease
    /// again for the endpoints it left room in: their backlog, as marked up
    /// to `marks_seen`, is gone.
    fn clear_backlog(
        &self,
        room: &[(String, u32)],
        claimed: &[relay_store::Claimed],
        marks_seen: u64,
    ) {
        let Ok(mut s) = self.ahead.lock() else {
            return;
        };
        if s.backlog.is_empty() {
            return;
        }
        let mut taken: HashMap<&str, (u32, u32)> = HashMap::new();
        for c in claimed.iter().filter(|c| !c.recovery) {
            let t = taken
                .entry(&c.endpoint.id)
                .or_insert((0, c.endpoint.max_concurrency));
            t.0 += 1;
        }
        let offered: HashMap<&str, u32> = room.iter().map(|(e, n)| (e.as_str(), *n)).collect();
        s.backlog.retain(|endpoint, mark| {
            let (took, max) = taken
                .get(endpoint.as_str())
                .copied()
                .unwrap_or((0, u32::MAX));
            let cap = offered.get(endpoint.as_str()).copied().unwrap_or(max);
            *mark > marks_seen || took >= cap
        });
    }

    /// Whole recovery attempts that may start at `now` under
    /// `recovery_per_second` (a bucket of a tenth of a second's worth, so
    /// recovery runs smoothly instead of in bursts).
    fn recovery_tokens(&self, now: relay_core::time::Timestamp) -> u32 {
        let rate = self.config().recovery_per_second;
        if rate == 0 {
            return u32::MAX;
        }
        let Ok(mut t) = self.recovery_tokens.lock() else {
            return 0;
        };
        let burst = (f64::from(rate) / 10.0).max(1.0);
        let elapsed = (now.millis() - t.1.millis()).max(0) as f64 / 1000.0;
        *t = ((t.0 + elapsed * f64::from(rate)).min(burst), now.max(t.1));
        t.0.floor().max(0.0) as u32
    }

    /// Takes a lane slot (and a token, when rate-limited) for `c`'s endpoint,
    /// or says it cannot start now.
    fn admit(&self, c: &relay_store::Claimed, now: relay_core::time::Timestamp) -> bool {
        self.lanes.admit(
            &c.endpoint.id,
            c.endpoint.max_concurrency,
            c.endpoint.rate_limit_per_second,
            now,
        )
    }

    /// Queues `ahead` (each with its permit) for its endpoint.
    fn queue_ahead(&self, ahead: Vec<(relay_store::Claimed, tokio::sync::OwnedSemaphorePermit)>) {
        let at = self.attempter.clock.now();
        if let Ok(mut m) = self.ahead.lock() {
            m.queued += ahead.len();
            for (claimed, permit) in ahead {
                m.queues
                    .entry(claimed.endpoint.id.clone())
                    .or_default()
                    .push_back(Ahead {
                        claimed,
                        permit,
                        at,
                    });
            }
        }
    }

    /// Whether a message leased ahead at `at` has waited too long to start
    /// (half its lease: the attempt must finish well within the rest).
    fn too_old(&self, at: relay_core::time::Timestamp, now: relay_core::time::Timestamp) -> bool {
        now.millis() - at.millis() > self.config().lease.as_millis() as i64 / 2
    }

    /// The endpoint's next message leased ahead, with a lane slot taken for
    /// it, if one can start now.
    fn next_ahead(&self, endpoint_id: &str) -> Option<Ahead> {
        if self.stopping.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let now = self.attempter.clock.now();
        let mut m = self.ahead.lock().ok()?;
        if m.stopped.contains_key(endpoint_id) {
            return None;
        }
        let q = m.queues.get_mut(endpoint_id)?;
        let front = q.front()?;
        if self.too_old(front.at, now) || !self.admit(&front.claimed, now) {
            return None;
        }
        let next = q.pop_front();
        if q.is_empty() {
            m.queues.remove(endpoint_id);
        }
        m.queued -= 1;
        self.attempter
            .metrics
            .ahead_started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        next
    }

    /// Starts what was leased ahead and can start now (the attempts that
    /// would have started it ended otherwise), and gives back what waited
    /// too long or cannot start with nothing of its endpoint in flight (its
    /// circuit opened).
    fn sweep_ahead(&self) -> (Vec<Ahead>, Vec<Ahead>) {
        let now = self.attempter.clock.now();
        let (mut start, mut give_back) = (Vec::new(), Vec::new());
        let Ok(mut m) = self.ahead.lock() else {
            return (start, give_back);
        };
        let m = &mut *m;
        for (endpoint_id, q) in m.queues.iter_mut() {
            if m.stopped.contains_key(endpoint_id) {
                // Paused or disabled: given back, held.
                give_back.extend(q.drain(..));
                continue;
            }
            while let Some(front) = q.front() {
                if self.too_old(front.at, now) {
                    give_back.extend(q.pop_front());
                } else if self.admit(&front.claimed, now) {
                    start.extend(q.pop_front());
                } else {
                    break;
                }
            }
            if !q.is_empty() && self.lanes.in_flight(endpoint_id) == 0 {
                give_back.extend(q.drain(..));
            }
        }
        m.queues.retain(|_, q| !q.is_empty());
        m.queued = m.queues.values().map(VecDeque::len).sum();
        (start, give_back)
    }

    /// Starts and gives back what [`Dispatcher::sweep_ahead`] finds.
    async fn start_ahead(
        self: &Arc<Self>,
        tasks: &mut tokio::task::JoinSet<()>,
        tx: &mpsc::Sender<(Completion, tokio::sync::OwnedSemaphorePermit)>,
    ) {
        let (start, give_back) = self.sweep_ahead();
        let metrics = &self.attempter.metrics;
        metrics
            .ahead_started
            .fetch_add(start.len() as u64, std::sync::atomic::Ordering::Relaxed);
        for a in start {
            self.spawn_attempts(tasks, tx, a.claimed, a.permit);
        }
        if give_back.is_empty() {
            return;
        }
        metrics
            .ahead_given_back
            .fetch_add(give_back.len() as u64, std::sync::atomic::Ordering::Relaxed);
        let ids: Vec<String> = give_back
            .iter()
            .map(|a| a.claimed.message.id.clone())
            .collect();
        let now = self.attempter.clock.now();
        if let Err(e) = self
            .store()
            .release_claims(&self.config().owner, &ids, now)
            .await
        {
            tracing::warn!(error = %e, "giving back messages leased ahead failed; their leases expire");
        }
    }

    /// Attempts `c`, then whatever of its endpoint was leased ahead and can
    /// start next, in one task.
    fn spawn_attempts(
        self: &Arc<Self>,
        tasks: &mut tokio::task::JoinSet<()>,
        tx: &mpsc::Sender<(Completion, tokio::sync::OwnedSemaphorePermit)>,
        c: relay_store::Claimed,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) {
        let dispatcher = self.clone();
        let tx = tx.clone();
        tasks.spawn(async move {
            let mut next = Some((c, permit));
            while let Some((c, permit)) = next.take() {
                if dispatcher.is_stopped(&c.endpoint.id) {
                    // Paused or disabled since it was claimed: no attempt;
                    // given back, it lands held.
                    dispatcher.finished(&c, None);
                    dispatcher
                        .give_back(std::slice::from_ref(&c.message.id))
                        .await;
                    drop(permit);
                    break;
                }
                let result = dispatcher
                    .attempter
                    .attempt(&c, AttemptTrigger::Scheduled)
                    .await;
                dispatcher.finished(&c, result.as_ref());
                if result.as_ref().is_some_and(|r| r.disable_endpoint) {
                    // A 410: nothing more of the endpoint starts (the
                    // completion disables it).
                    dispatcher.stop(&c.endpoint.id);
                }
                if let Some(done) = result {
                    // The completer is gone only after shutdown; the lease
                    // then expires and the message is retried.
                    let _ = tx.send((done, permit)).await;
                }
                next = dispatcher
                    .next_ahead(&c.endpoint.id)
                    .map(|a| (a.claimed, a.permit));
            }
        });
    }

    /// Frees what a claimed attempt held: its lane slot (telling the breaker
    /// how it went) and, for recovery traffic, its recovery slot.
    fn finished(&self, c: &relay_store::Claimed, completion: Option<&Completion>) {
        let now = self.attempter.clock.now();
        self.lanes
            .done(&c.endpoint.id, breaker_signal(completion), now);
        if c.recovery {
            let before = self
                .recovery_in_flight
                .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            if before >= self.config().max_recovery_in_flight {
                self.recovery_freed.notify_one();
            }
        }
    }

    async fn complete(&self, batch: &[Completion]) -> Result<(), relay_store::StoreError> {
        let done = self.store().complete(batch).await?;
        let gone = done.gone.len() as u64;
        if gone > 0 {
            // Logged by the store; the batch's other completions are written.
            self.attempter
                .metrics
                .completions_message_gone
                .fetch_add(gone, std::sync::atomic::Ordering::Relaxed);
        }
        let lost = (done.applied.iter().filter(|ok| !**ok).count() as u64).saturating_sub(gone);
        if lost > 0 {
            self.attempter
                .metrics
                .completions_lost_lease
                .fetch_add(lost, std::sync::atomic::Ordering::Relaxed);
            tracing::info!(
                lost,
                "completions found their lease gone; nothing was overwritten"
            );
        }
        Ok(())
    }

    /// One round: rescue expired leases, sweep (see [`sweep`]), claim what is due now, attempt it
    /// all concurrently, complete in one batch. Returns how many messages
    /// were claimed.
    pub async fn run_once(&self) -> Result<usize, relay_store::StoreError> {
        self.rescue().await?;
        self.expire_due().await?;
        self.end_exceeded_windows().await?;
        let claimed = self.claim(self.config().claim_batch, false).await?.admitted;
        let n = claimed.len();
        let completions = futures_util::future::join_all(claimed.iter().map(|c| async {
            let done = self.attempter.attempt(c, AttemptTrigger::Scheduled).await;
            self.finished(c, done.as_ref());
            done
        }))
        .await;
        let completions: Vec<Completion> = completions.into_iter().flatten().collect();
        if !completions.is_empty() {
            self.complete(&completions).await?;
        }
        Ok(n)
    }

    /// Runs queued jobs (bulk retry) to completion, batch by batch, each
    /// batch one transaction under the job's lease: a crash resumes from the
    /// last cursor. Returns how many jobs finished.
    pub async fn run_jobs(&self, wake: Option<&Notify>) -> Result<u64, relay_store::StoreError> {
        self.run_jobs_paced(wake, false).await
    }

    /// [`Dispatcher::run_jobs`]; when `paced`, a bulk retry restarts its next
    /// batch only once fewer than [`JOB_PACE_DUE`] of its tenant's recovery
    /// messages are waiting to be claimed (or half a lease has passed, so the
    /// job's lease never lapses while it waits). Restarting 50,000 messages
    /// at once would hold the writer for a hundred batch transactions in a
    /// row and leave a backlog that every claim has to look past; paced, the
    /// job moves at the pace its messages are delivered.
    async fn run_jobs_paced(
        &self,
        wake: Option<&Notify>,
        paced: bool,
    ) -> Result<u64, relay_store::StoreError> {
        let a = &self.attempter;
        let lease = a.config.lease.as_millis() as i64;
        let mut finished = 0;
        loop {
            let now = a.clock.now();
            let Some(job) = a
                .store
                .lease_job(&a.config.owner, now, now.plus_millis(lease))
                .await?
            else {
                return Ok(finished);
            };
            let mut filter = match bulk_retry_filter(&job.job.parameters) {
                Some(f) => f,
                None => {
                    tracing::error!(job = %job.job.id, "unreadable job parameters; the job is skipped");
                    return Ok(finished);
                }
            };
            loop {
                if paced {
                    self.pace_job(&job.scope.tenant_id).await?;
                }
                let now = a.clock.now();
                // Nothing whose event is gone or going: restarted, such a
                // message would keep its event past the retention period.
                filter.events_since = Some(self.retention_cutoff(now));
                let progress = a
                    .store
                    .advance_bulk_retry(
                        &job,
                        &filter,
                        &a.config.owner,
                        JOB_BATCH,
                        now,
                        now.plus_millis(lease),
                    )
                    .await?;
                if progress.affected > 0
                    && let Some(w) = wake
                {
                    // Restarted messages are due now.
                    w.notify_one();
                }
                if progress.state == "done" {
                    tracing::info!(job = %progress.id, processed = progress.processed, affected = progress.affected, "job finished");
                    finished += 1;
                    break;
                }
            }
        }
    }

    /// Waits until fewer than [`JOB_PACE_DUE`] of the tenant's recovery
    /// messages are due and unclaimed, or half a lease has passed.
    async fn pace_job(&self, tenant_id: &str) -> Result<(), relay_store::StoreError> {
        let a = &self.attempter;
        let give_up = std::time::Instant::now() + a.config.lease / 2;
        while a.store.recovery_due(tenant_id, a.clock.now()).await? >= JOB_PACE_DUE
            && std::time::Instant::now() < give_up
        {
            tokio::time::sleep(JOB_PACE_POLL).await;
        }
        Ok(())
    }

    /// When the retention period that ends at `now` began: events created
    /// before it are purged once none of their messages is live, and bulk
    /// retries restart none of their messages.
    pub fn retention_cutoff(
        &self,
        now: relay_core::time::Timestamp,
    ) -> relay_core::time::Timestamp {
        now.plus_millis(-(self.config().retention.as_millis() as i64))
    }

    /// Deletes what is older than the retention period, a batch per short
    /// transaction, until nothing is left to purge (events with a live
    /// message stay until it ends). Returns how many events went.
    pub async fn purge(&self) -> Result<u64, relay_store::StoreError> {
        let cfg = self.config();
        let cutoff = self.retention_cutoff(self.attempter.clock.now());
        let mut total = 0;
        loop {
            let n = self.store().purge_before(cutoff, cfg.purge_batch).await?;
            total += n;
            if n < u64::from(cfg.purge_batch) {
                break;
            }
            // Let other writers in between batches.
            tokio::task::yield_now().await;
        }
        if total > 0 {
            tracing::info!(events = total, "purged events past the retention period");
        }
        // The health view reads 24 hours of latency; two days are kept.
        let latency_cutoff = self
            .attempter
            .clock
            .now()
            .plus_seconds(-LATENCY_KEPT_SECONDS);
        self.store().purge_latency_before(latency_cutoff).await?;
        Ok(total)
    }

    async fn rescue(&self) -> Result<(), relay_store::StoreError> {
        let now = self.attempter.clock.now();
        let rescued = self.store().rescue_expired_leases(now).await?;
        if rescued > 0 {
            self.attempter
                .metrics
                .leases_rescued
                .fetch_add(rescued, std::sync::atomic::Ordering::Relaxed);
            tracing::warn!(rescued, "expired leases returned to scheduled");
        }
        Ok(())
    }

    /// Starts the loop in a task: returns once wake-ups from other nodes are
    /// being listened for (PostgreSQL), so a publish right after cannot be
    /// missed. The task runs until `shutdown` turns true, then shuts down
    /// gracefully; the handle completes only once every task the dispatcher
    /// spawned (the loop, the completer, attempts, the jobs task, the
    /// endpoint-notice follower) has ended.
    pub async fn start(
        self: Arc<Self>,
        wake: Arc<Notify>,
        shutdown: watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        // New messages of this process's publishes may come leased (see
        // `intake`); until the loop stops.
        self.store().set_intake(Some(self.intake()));
        // Endpoint state changes committed by other nodes (PostgreSQL).
        let (endpoints, notices) = mpsc::unbounded_channel();
        let follower = tokio::spawn(self.clone().follow_endpoints(notices));
        if let Err(e) = self
            .store()
            .listen_for_wakeups(wake.clone(), endpoints, shutdown.clone())
            .await
        {
            tracing::warn!(error = %e, "cannot listen for wake-ups from other nodes; polling instead");
        }
        let jobs = tokio::spawn(self.clone().jobs_loop(wake.clone(), shutdown.clone()));
        let run = self.run(wake, shutdown);
        tokio::spawn(async move {
            run.await;
            for (name, task) in [("jobs", jobs), ("endpoint notices", follower)] {
                if let Err(e) = task.await {
                    tracing::error!(error = %e, task = name, "a dispatcher task failed");
                }
            }
        })
    }

    /// Jobs (bulk retry) run beside the loop, so a long job never holds up
    /// deliveries. On shutdown a job stops where it is (its last batch is
    /// committed or rolled back; its lease lapses and it resumes later).
    async fn jobs_loop(self: Arc<Self>, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
        let tick = self.config().rescue_interval.min(Duration::from_secs(1));
        loop {
            let stopped = async {
                if stop.wait_for(|s| *s).await.is_err() {
                    // No shutdown signal can come any more: run on.
                    std::future::pending::<()>().await;
                }
            };
            tokio::select! {
                r = self.run_jobs_paced(Some(&wake), true) => {
                    if let Err(e) = r {
                        tracing::error!(error = %e, "running jobs failed; they resume later");
                    }
                }
                _ = stopped => break,
            }
            tokio::select! {
                _ = tokio::time::sleep(tick) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                break;
            }
        }
    }

    async fn run(self: Arc<Self>, wake: Arc<Notify>, mut shutdown: watch::Receiver<bool>) {
        let cfg = self.config().clone();
        let permits = self.permits.clone();
        // A permit is held until the attempt's completion is committed, so
        // `max_in_flight` also bounds what a crash can leave attempted but
        // unrecorded (the duplicates after a restart), and a slow database
        // slows claiming instead of growing a queue of unwritten completions.
        let (tx, rx) = mpsc::channel::<(Completion, tokio::sync::OwnedSemaphorePermit)>(
            cfg.max_in_flight.max(1),
        );
        let completer = tokio::spawn(self.clone().completer(rx));
        let mut tasks = tokio::task::JoinSet::new();
        let mut last_rescue = std::time::Instant::now();
        let mut last_purge: Option<std::time::Instant> = None;
        let mut last_sweep: Option<std::time::Instant> = None;
        if let Err(e) = self.rescue().await {
            tracing::error!(error = %e, "lease rescue failed");
        }
        // False after a wake-up for messages leased at publish alone: they
        // need starting, not a claim. The last claim's `next_due` stands.
        let mut claim_now = true;
        let mut last_due = None;
        loop {
            if *shutdown.borrow() {
                break;
            }
            while tasks.try_join_next().is_some() {}
            if last_purge.is_none_or(|t| t.elapsed() >= cfg.purge_interval) {
                last_purge = Some(std::time::Instant::now());
                if let Err(e) = self.purge().await {
                    tracing::error!(error = %e, "purging past the retention period failed");
                }
            }
            if last_sweep.is_none_or(|t| t.elapsed() >= cfg.sweep_interval) {
                last_sweep = Some(std::time::Instant::now());
                self.sweep().await;
            }
            if last_rescue.elapsed() >= cfg.rescue_interval {
                last_rescue = std::time::Instant::now();

                if let Err(e) = self.rescue().await {
                    tracing::error!(error = %e, "lease rescue failed");
                }
            }
            self.start_ahead(&mut tasks, &tx).await;
            let free = permits.available_permits().min(cfg.claim_batch as usize) as u32;
            let mut claimed_full = false;
            // As the claim read it (else read below).
            let mut next_due = if claim_now { None } else { last_due };
            if free > 0 && claim_now {
                match self.claim(free, true).await {
                    Ok(Claim {
                        admitted: claimed,
                        ahead,
                        next_due: due,
                    }) => {
                        next_due = Some(due);
                        last_due = next_due;
                        claimed_full = (claimed.len() + ahead.len()) as u32 == free;
                        for c in claimed {
                            let Ok(permit) = permits.clone().acquire_owned().await else {
                                break;
                            };
                            self.spawn_attempts(&mut tasks, &tx, c, permit);
                        }
                        let mut queued = Vec::with_capacity(ahead.len());
                        for c in ahead {
                            let Ok(permit) = permits.clone().acquire_owned().await else {
                                break;
                            };
                            queued.push((c, permit));
                        }
                        self.queue_ahead(queued);
                        // The attempts that would start them may have ended
                        // while the claim ran.
                        self.start_ahead(&mut tasks, &tx).await;
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "claiming due messages failed; retrying");
                        tokio::select! {
                            _ = tokio::time::sleep(cfg.poll_interval) => {}
                            _ = shutdown.changed() => {}
                        }
                        continue;
                    }
                }
            }
            if claimed_full {
                continue;
            }
            let now = self.attempter.clock.now();
            let next_due = match next_due {
                Some(due) => due,
                None => self.store().next_due_at().await.ok().flatten(),
            };
            // Due messages left unclaimed although permits were free sit behind
            // full lanes (or a manual attempt), or are recovery traffic with
            // every recovery slot taken: wait for a lane or a recovery slot to
            // free up rather than spin on claims that skip them.
            let rate_limited = self.recovery_tokens(now) == 0;
            let recovery_capped = rate_limited
                || self
                    .recovery_in_flight
                    .load(std::sync::atomic::Ordering::Relaxed)
                    >= cfg.max_recovery_in_flight;
            let behind_full_lanes = free > 0
                && next_due.is_some_and(|d| d <= now)
                && (recovery_capped || !self.lanes.full(now).is_empty());
            let wait = match next_due {
                _ if free == 0 || behind_full_lanes => cfg.poll_interval,
                Some(due) => Duration::from_millis((due.millis() - now.millis()).max(1) as u64)
                    .min(cfg.poll_interval),
                None => cfg.poll_interval,
            };
            // While messages are leased ahead, sweep them now and then: the
            // attempts that would start them may all have ended (a circuit
            // opened), or they may have waited too long.
            let wait = if self.ahead.lock().is_ok_and(|m| !m.queues.is_empty()) {
                wait.min(AHEAD_SWEEP)
            } else {
                wait
            };
            // Recovery due but out of tokens: back when some have come in.
            let wait = if behind_full_lanes && rate_limited {
                wait.min(RECOVERY_TICK)
            } else {
                wait
            };
            let permit_freed = async {
                if free == 0 {
                    let _ = permits.acquire().await;
                } else {
                    std::future::pending::<()>().await;
                }
            };
            let lane_freed = async {
                if behind_full_lanes {
                    tokio::select! {
                        _ = self.lanes.freed.notified() => {}
                        _ = self.recovery_freed.notified() => {}
                    }
                } else {
                    std::future::pending::<()>().await;
                }
            };
            claim_now = true;
            tokio::select! {
                _ = wake.notified() => {}
                _ = self.intake_ready.notified() => claim_now = false,
                _ = tokio::time::sleep(wait) => {}
                _ = permit_freed => {}
                _ = lane_freed => {}
                _ = shutdown.changed() => {}
            }
        }
        // Graceful shutdown: no new claims, nothing leased ahead starts (its
        // leases are released below); let attempts finish within the grace.
        self.stopping
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.store().set_intake(None);
        if let Ok(mut m) = self.ahead.lock() {
            m.queues.clear();
            m.queued = 0;
        }
        tracing::info!("dispatcher stopping: waiting for attempts in flight");
        let finished = tokio::time::timeout(cfg.shutdown_grace, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        if finished.is_err() {
            tracing::warn!(
                unfinished = tasks.len(),
                "attempts still in flight after the grace period; they are abandoned and their leases released"
            );
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
        // Every sender is gone now: the completer flushes what it has and ends.
        drop(tx);
        if let Err(e) = completer.await {
            tracing::error!(error = %e, "the completer task failed");
        }
        let now = self.attempter.clock.now();
        match self.store().release_leases(&cfg.owner, now).await {
            Ok(n) if n > 0 => tracing::info!(released = n, "released unfinished leases"),
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "releasing leases failed; they will expire"),
        }
        tracing::info!("dispatcher stopped");
    }

    /// Writes completions in batches: the first one waits, the rest that are
    /// already queued join it (up to `completion_batch`). Each completion's
    /// in-flight permit is given back once it is written.
    async fn completer(
        self: Arc<Self>,
        mut rx: mpsc::Receiver<(Completion, tokio::sync::OwnedSemaphorePermit)>,
    ) {
        let max = self.config().completion_batch;
        let mut batch = Vec::with_capacity(max);
        let mut permits = Vec::with_capacity(max);
        while let Some((first, permit)) = rx.recv().await {
            batch.push(first);
            permits.push(permit);
            // Linger briefly for more: a completion's delay costs nothing at
            // the endpoint (it has its delivery), while every transaction
            // takes the single writer from claims and publishes.
            let deadline = tokio::time::Instant::now() + COMPLETION_LINGER;
            while batch.len() < max {
                let next = match rx.try_recv() {
                    Ok(item) => Some(item),
                    Err(mpsc::error::TryRecvError::Empty) => {
                        tokio::time::timeout_at(deadline, rx.recv())
                            .await
                            .ok()
                            .flatten()
                    }
                    Err(mpsc::error::TryRecvError::Disconnected) => None,
                };
                let Some((c, p)) = next else { break };
                batch.push(c);
                permits.push(p);
            }
            let mut delay = Duration::from_millis(50);
            loop {
                match self.complete(&batch).await {
                    Ok(()) => break,
                    Err(e) => {
                        // Keep trying: a completion not written means the lease
                        // expires and the message is attempted again (a duplicate,
                        // never a loss). Give up only after the lease is long gone.
                        tracing::error!(error = %e, batch = batch.len(), "writing completions failed; retrying");
                        if delay > self.config().lease * 2 {
                            tracing::error!(
                                "dropping completions after repeated failures; their messages will be retried"
                            );
                            break;
                        }
                        tokio::time::sleep(delay).await;
                        delay *= 2;
                    }
                }
            }
            batch.clear();
            permits.clear();
        }
    }
}

/// What a finished attempt tells the endpoint's circuit breaker (the same
/// signal as the automatic-disable clock: see `Attempter::attempt`).
fn breaker_signal(completion: Option<&Completion>) -> relay_core::circuit::Signal {
    completion
        .map(|c| c.health)
        .unwrap_or(relay_core::circuit::Signal::Neutral)
}

impl Dispatcher {
    /// The endpoint's circuit in this process, as it stands now.
    pub fn circuit(&self, endpoint_id: &str) -> relay_core::circuit::Circuit {
        self.lanes.circuit(endpoint_id, self.attempter.clock.now())
    }
}

/// How long the loop waits for recovery tokens at most.
const RECOVERY_TICK: Duration = Duration::from_millis(10);

/// How often messages leased ahead are swept while there are any.
const AHEAD_SWEEP: Duration = Duration::from_millis(50);

/// How many lanes' worth of messages a busy endpoint may have leased ahead.
/// With one, a queue refilled at half (`max_concurrency` / 2 left) ran dry
/// while its refill waited for the writer, and the lane's slots idled; with
/// two, `relay bench throughput --concurrency 32` (a backlog forming) gave
/// 7,592, 7,130 and 7,190 deliveries/s against 6,449, 6,801 and 5,734, in
/// alternating runs; three gave less again.
pub const AHEAD_DEPTH: u32 = 2;

/// How long the completer waits for more completions to join a batch.
const COMPLETION_LINGER: Duration = Duration::from_millis(2);

/// How long the latency histogram's hours are kept.
const LATENCY_KEPT_SECONDS: i64 = 2 * 86_400;

/// Messages examined per job transaction.
const JOB_BATCH: u32 = 500;
/// A paced bulk retry waits while this many of its tenant's recovery
/// messages are due and unclaimed (two batches' worth).
pub const JOB_PACE_DUE: u64 = 2 * JOB_BATCH as u64;
/// How often a waiting bulk retry looks again.
const JOB_PACE_POLL: Duration = Duration::from_millis(100);

/// The message filter a bulk retry job was started with.
pub fn bulk_retry_filter(parameters: &serde_json::Value) -> Option<relay_store::MessageFilter> {
    let text = |k: &str| {
        parameters
            .get(k)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let time = |k: &str| text(k).and_then(|s| relay_core::time::Timestamp::parse_rfc3339(&s));
    let state = match text("state") {
        Some(s) => Some(relay_core::model::MessageState::parse(&s)?),
        None => None,
    };
    Some(relay_store::MessageFilter {
        endpoint_id: text("endpoint_id"),
        event_type: text("event_type"),
        error_code: text("error_code"),
        state,
        since: time("since"),
        until: time("until"),
        ..Default::default()
    })
}

/// Why a manual attempt could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ManualError {
    #[error("message not found")]
    NotFound,
    /// Another attempt is in flight (or leased): at most one at a time.
    #[error("an attempt for this message is in flight")]
    Busy,
    /// The message's event's time to live has passed: no attempt is made.
    #[error("the event has expired")]
    EventExpired,
    /// The message's endpoint was deleted: no attempt is made.
    #[error("the endpoint was deleted")]
    EndpointDeleted,
    #[error(transparent)]
    Store(relay_store::StoreError),
}

/// The result of a manual attempt.
#[derive(Debug, Clone)]
pub struct ManualOutcome {
    /// The attempt made (`None` when the message ended without one, e.g. its TTL passed).
    pub attempt: Option<relay_core::model::Attempt>,
    /// Whether the message changed (it may have been cancelled meanwhile).
    pub applied: bool,
}

impl Dispatcher {
    /// One immediate attempt at a message, under a lease so it never runs
    /// beside an automatic one (reference "Recovery"): a success ends the
    /// message `delivered` and cancels pending attempts; a failure leaves the
    /// schedule (or the terminal state) as it was and does not count.
    pub async fn resend(
        &self,
        scope: &relay_store::Scope,
        message_id: &str,
    ) -> Result<ManualOutcome, ManualError> {
        let a = &self.attempter;
        let now = a.clock.now();
        let lease_until = now.plus_millis(a.config.lease.as_millis() as i64);
        let claimed = a
            .store
            .lease_for_manual_attempt(scope, message_id, &a.config.owner, now, lease_until)
            .await
            .map_err(|e| match e {
                relay_store::StoreError::NotFound => ManualError::NotFound,
                relay_store::StoreError::Conflict("event_expired") => ManualError::EventExpired,
                relay_store::StoreError::Conflict("endpoint_deleted") => {
                    ManualError::EndpointDeleted
                }
                other => ManualError::Store(other),
            })?
            .ok_or(ManualError::Busy)?;
        self.attempt_leased(&claimed).await
    }

    /// The endpoint's test action: `event` (a sample of a type it subscribes
    /// to) is written with one message for this endpoint only, and attempted
    /// at once through the normal signing and guard path.
    pub async fn send_test(
        &self,
        scope: &relay_store::Scope,
        endpoint_id: &str,
        event: relay_store::NewEvent,
    ) -> Result<(String, ManualOutcome), ManualError> {
        let a = &self.attempter;
        let lease_until = event.now.plus_millis(a.config.lease.as_millis() as i64);
        let claimed = a
            .store
            .publish_to_endpoint(scope, endpoint_id, event, &a.config.owner, lease_until)
            .await
            .map_err(|e| match e {
                relay_store::StoreError::NotFound => ManualError::NotFound,
                other => ManualError::Store(other),
            })?;
        let message_id = claimed.message.id.clone();
        Ok((message_id, self.attempt_leased(&claimed).await?))
    }

    /// One manual attempt at a message this process has leased.
    async fn attempt_leased(
        &self,
        claimed: &relay_store::Claimed,
    ) -> Result<ManualOutcome, ManualError> {
        let a = &self.attempter;
        let Some(completion) = a.attempt(claimed, AttemptTrigger::Manual).await else {
            // The lease lapses on its own; nothing changed.
            return Ok(ManualOutcome {
                attempt: None,
                applied: false,
            });
        };
        let applied = a
            .store
            .complete(std::slice::from_ref(&completion))
            .await
            .map_err(ManualError::Store)?;
        Ok(ManualOutcome {
            attempt: completion.attempt,
            applied: applied.applied.first().copied().unwrap_or(false),
        })
    }
}
