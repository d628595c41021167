//! The claimer, the [`Claimer`] service, and one round of it
//! ([`Service::run_once`]; [`Dispatcher::run_once`] adds the other
//! services' passes): claim due messages under a lease, admit them to their
//! lanes, start their attempts, wait for the next reason to claim; on its
//! stop signal, stop claiming and let the attempts in flight finish.

use super::*;
use relay_store::{Commit, ExecutorExt as _, claims};

/// What one claim gave the loop.
pub(crate) struct Claim {
    /// With a lane slot taken: to attempt now.
    pub(crate) admitted: Vec<relay_store::Claimed>,
    /// Leased ahead (see [`Ahead`]).
    pub(crate) ahead: Vec<relay_store::Claimed>,
    /// When the earliest scheduled message is due, as the claim read it.
    pub(crate) next_due: Option<relay_core::time::Timestamp>,
}

/// How long the loop waits for recovery tokens at most.
pub(crate) const RECOVERY_TICK: Duration = Duration::from_millis(10);

/// Gives claimed messages back unattempted ([`claims::release_claims`]),
/// committed as the claim was ([`Commit::Lease`]: lost in a power cut, the
/// lease expires); no write at all when there are none.
pub(crate) async fn release_claims(
    store: &dyn Store,
    owner: &str,
    ids: &[String],
    now: relay_core::time::Timestamp,
) -> Result<u64, relay_store::StoreError> {
    if ids.is_empty() {
        return Ok(0);
    }
    let (owner, ids) = (owner.to_string(), ids.to_vec());
    store
        .write(Commit::Lease, move |mut x| {
            Box::pin(async move { claims::release_claims(&mut x, &owner, &ids, now).await })
        })
        .await
}

impl Dispatcher {
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
    pub(crate) async fn claim(
        &self,
        limit: u32,
        look_ahead: bool,
    ) -> Result<Claim, relay_store::StoreError> {
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
        let recovery_room = self
            .recovery_limits()
            .0
            .saturating_sub(self.recovery_in_flight.load(Ordering::Relaxed))
            .min(self.recovery_tokens(now) as usize);
        let cursor = self.recovery_cursor.lock().ok().and_then(|c| c.clone());
        let recovery_limit = u32::try_from(recovery_room).unwrap_or(u32::MAX);
        let (owner, lanes_room) = (a.config.owner.clone(), room.clone());
        // Committed as a lease: a claim lost in a power cut expires.
        let batch = a
            .store
            .write(Commit::Lease, move |mut x| {
                Box::pin(async move {
                    let req = relay_store::ClaimRequest {
                        owner: &owner,
                        now,
                        lease_until,
                        limit,
                        recovery_limit,
                        room: &lanes_room,
                        recovery_after: cursor.as_deref(),
                    };
                    claims::claim(&mut x, &req).await
                })
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
            release_claims(&*a.store, &a.config.owner, &ids, now).await?;
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

    /// After a claim that took fewer than it could (so it took every due
    /// live message of an endpoint that had room left), lets publishes lease
    /// again for the endpoints it left room in: their backlog, as marked up
    /// to `marks_seen`, is gone.
    pub(crate) fn clear_backlog(
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
    pub(crate) fn recovery_tokens(&self, now: relay_core::time::Timestamp) -> u32 {
        let Some(rate) = self.recovery_limits().1 else {
            return u32::MAX;
        };
        if rate == 0 {
            // This node's share of the rate is none now (`crate::shares`).
            return 0;
        }
        let Ok(mut t) = self.recovery_tokens.lock() else {
            return 0;
        };
        let burst = (f64::from(rate) / 10.0).max(1.0);
        let elapsed = (now.millis() - t.1.millis()).max(0) as f64 / 1000.0;
        *t = ((t.0 + elapsed * f64::from(rate)).min(burst), now.max(t.1));
        t.0.floor().max(0.0) as u32
    }

    /// Recovery traffic's limits on this node: `max_recovery_in_flight`
    /// and `recovery_per_second` (`None`: not limited), or on PostgreSQL
    /// this node's share of them (`crate::shares`).
    pub(crate) fn recovery_limits(&self) -> (usize, Option<u32>) {
        let c = self.config();
        self.lanes
            .shares
            .recovery(c.max_recovery_in_flight, c.recovery_per_second)
    }

    /// Takes a lane slot (and a token, when rate-limited) for `c`'s endpoint,
    /// or says it cannot start now.
    pub(crate) fn admit(&self, c: &relay_store::Claimed, now: relay_core::time::Timestamp) -> bool {
        self.lanes.admit(
            &c.endpoint.id,
            c.endpoint.max_concurrency,
            c.endpoint.rate_limit_per_second,
            now,
        )
    }

    /// One round of every pass a test walks schedules with, in the order
    /// they meet a message: rescue expired leases ([`crate::Rescuer`]),
    /// sweep ([`crate::Sweeper`]), claim what is due now, attempt it all
    /// concurrently and complete it in one batch ([`Claimer`]), write the
    /// object storage batches due ([`crate::BatchWriter`]). Returns
    /// how many messages were claimed.
    pub async fn run_once(&self) -> Result<usize, relay_store::StoreError> {
        self.rescue().await?;
        self.expire_due().await?;
        self.end_exceeded_windows().await?;
        let n = self.claim_round().await?;
        self.write_due_batches().await;
        Ok(n)
    }

    /// The claimer's round: claim what is due now, attempt it all
    /// concurrently, complete it in one batch; how many were claimed.
    pub(crate) async fn claim_round(&self) -> Result<usize, relay_store::StoreError> {
        // On PostgreSQL: the shares first, and again for the endpoints the
        // claim met for the first time (the keeper's wake-up, in line).
        self.renew_shares(false).await?;
        let batch = self.config().claim_batch;
        let mut claimed = self.claim(batch, false).await?.admitted;
        if self.lanes.shares.ungranted() {
            self.renew_shares(false).await?;
            let more = batch.saturating_sub(claimed.len() as u32);
            claimed.extend(self.claim(more, false).await?.admitted);
        }
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

    /// Writes the object storage batches due now (`crate::batches`); gives
    /// back those of endpoints stopped meanwhile.
    pub(crate) async fn write_due_batches(&self) {
        let now = self.attempter.clock.now();
        let back = self
            .attempter
            .write_due_batches(now, |e| self.is_stopped(e))
            .await;
        if !back.is_empty() {
            self.give_back(&back).await;
        }
    }
}

/// The claimer's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct ClaimConfig {
    /// Messages claimed per round at most (`claim_batch`).
    pub batch: u32,
    /// Recovery attempts in flight at most (`max_recovery_in_flight`; on
    /// PostgreSQL the claimer holds this node's share of it,
    /// `Dispatcher::recovery_limits`).
    pub max_recovery_in_flight: usize,
    /// The longest it sleeps without a wake-up (`poll_interval`).
    pub poll_interval: Duration,
    /// How long attempts in flight may finish after its stop signal
    /// (`shutdown_grace`).
    pub shutdown_grace: Duration,
}

impl From<&EngineConfig> for ClaimConfig {
    fn from(c: &EngineConfig) -> Self {
        ClaimConfig {
            batch: c.claim_batch,
            max_recovery_in_flight: c.max_recovery_in_flight,
            poll_interval: c.poll_interval,
            shutdown_grace: c.shutdown_grace,
        }
    }
}

/// The claimer service: claims due messages while in-flight permits are
/// free, starts their attempts (and those leased ahead or at publish),
/// sends their completions to the [`crate::Completer`], and waits for
/// the next reason to claim (a publish's `wake`, a permit or lane slot
/// freed, the next message due, the poll interval).
///
/// On its stop signal it stops claiming (and leasing at publish), gives up
/// what is leased ahead (its leases are released by the engine), lets the
/// attempts in flight finish within `shutdown_grace` (then cuts them short),
/// and ends; its end drops the last sender of the completer's queue.
pub struct Claimer {
    dispatcher: Arc<Dispatcher>,
    wake: Arc<Notify>,
    tx: mpsc::Sender<completer::Done>,
    config: ClaimConfig,
}

impl Claimer {
    /// A claimer sending completions to `tx` (the completer's queue).
    pub(crate) fn new(
        dispatcher: Arc<Dispatcher>,
        wake: Arc<Notify>,
        tx: mpsc::Sender<completer::Done>,
    ) -> Self {
        let config = ClaimConfig::from(dispatcher.config());
        Claimer {
            dispatcher,
            wake,
            tx,
            config,
        }
    }
}

impl Service for Claimer {
    const NAME: &'static str = "claimer";
    type Config = ClaimConfig;

    fn config(&self) -> &ClaimConfig {
        &self.config
    }

    /// One round: claim what is due now, attempt it all concurrently,
    /// complete it in one batch (not through the completer); how many
    /// messages were claimed.
    async fn run_once(&self) -> Result<u64, relay_store::StoreError> {
        Ok(self.dispatcher.claim_round().await? as u64)
    }

    async fn run(self, mut shutdown: watch::Receiver<bool>) {
        let Claimer {
            dispatcher: this,
            wake,
            tx,
            config: cfg,
        } = self;
        // An attempt holds one of these until its completion is written
        // (see `engine`).
        let permits = this.permits.clone();
        let mut tasks = tokio::task::JoinSet::new();
        // False after a wake-up for messages leased at publish alone: they
        // need starting, not a claim. The last claim's `next_due` stands.
        let mut claim_now = true;
        let mut last_due = None;
        loop {
            if *shutdown.borrow() {
                break;
            }
            while tasks.try_join_next().is_some() {}
            this.start_ahead(&mut tasks, &tx).await;
            let free = permits.available_permits().min(cfg.batch as usize) as u32;
            let mut claimed_full = false;
            // As the claim read it (else read below).
            let mut next_due = if claim_now { None } else { last_due };
            if free > 0 && claim_now {
                match this.claim(free, true).await {
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
                            this.spawn_attempts(&mut tasks, &tx, c, permit);
                        }
                        let mut queued = Vec::with_capacity(ahead.len());
                        for c in ahead {
                            let Ok(permit) = permits.clone().acquire_owned().await else {
                                break;
                            };
                            queued.push((c, permit));
                        }
                        this.queue_ahead(queued);
                        // The attempts that would start them may have ended
                        // while the claim ran.
                        this.start_ahead(&mut tasks, &tx).await;
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "claiming due messages failed; retrying");
                        tokio::select! {
                            _ = tokio::time::sleep(cfg.poll_interval) => {}
                            _ = crate::service::stopped(&mut shutdown) => {}
                        }
                        continue;
                    }
                }
            }
            if claimed_full {
                continue;
            }
            let now = this.attempter.clock.now();
            let next_due = match next_due {
                Some(due) => due,
                None => this
                    .store()
                    .read(|mut x| Box::pin(async move { claims::next_due(&mut x).await }))
                    .await
                    .ok()
                    .flatten(),
            };
            // Due messages left unclaimed although permits were free sit behind
            // full lanes (or a manual attempt), or are recovery traffic with
            // every recovery slot taken: wait for a lane or a recovery slot to
            // free up rather than spin on claims that skip them.
            let rate_limited = this.recovery_tokens(now) == 0;
            let recovery_capped = rate_limited
                || this
                    .recovery_in_flight
                    .load(std::sync::atomic::Ordering::Relaxed)
                    >= this.recovery_limits().0;
            let behind_full_lanes = free > 0
                && next_due.is_some_and(|d| d <= now)
                && (recovery_capped || !this.lanes.full(now).is_empty());
            let wait = match next_due {
                _ if free == 0 || behind_full_lanes => cfg.poll_interval,
                Some(due) => Duration::from_millis((due.millis() - now.millis()).max(1) as u64)
                    .min(cfg.poll_interval),
                None => cfg.poll_interval,
            };
            // While messages are leased ahead, sweep them now and then: the
            // attempts that would start them may all have ended (a circuit
            // opened), or they may have waited too long.
            let wait = if this.ahead.lock().is_ok_and(|m| !m.queues.is_empty()) {
                wait.min(AHEAD_SWEEP)
            } else {
                wait
            };
            // Behind rate-limited lanes: back when the soonest empty bucket
            // has a token again.
            let wait = match behind_full_lanes.then(|| this.lanes.next_token_in(now)) {
                Some(Some(token)) => wait.min(token),
                _ => wait,
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
                        _ = this.lanes.freed.notified() => {}
                        _ = this.recovery_freed.notified() => {}
                    }
                } else {
                    std::future::pending::<()>().await;
                }
            };
            claim_now = true;
            tokio::select! {
                _ = wake.notified() => {}
                _ = this.promoted.notified() => {}
                _ = this.intake_ready.notified() => claim_now = false,
                _ = tokio::time::sleep(wait) => {}
                _ = permit_freed => {}
                _ = lane_freed => {}
                _ = crate::service::stopped(&mut shutdown) => {}
            }
        }
        // Graceful shutdown: no new claims, nothing leased ahead starts (its
        // leases are released by the engine); let attempts finish within the
        // grace.
        this.stopping
            .store(true, std::sync::atomic::Ordering::Relaxed);
        this.store().set_intake(None);
        if let Ok(mut m) = this.ahead.lock() {
            m.queues.clear();
            m.queued = 0;
        }
        tracing::info!("claimer stopping: waiting for attempts in flight");
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
        // Returning drops the last sender of the completer's queue.
        tracing::info!("claimer stopped: no attempt in flight");
    }
}
