//! The sweep, the [`Sweeper`] service: ends waiting messages whose delivery
//! window has closed, at the time it closes, without an attempt.
//!
//! A message waits (`scheduled` for a later retry or behind a full lane, a
//! rate limit or an open circuit; `held` by a paused or disabled endpoint)
//! without being claimed, so the check the attempt makes (`attempt.rs`) would
//! only end it when it is next claimed, which for a held message may be
//! never. Every `sweep_interval` the sweeper (and
//! [`Dispatcher::run_once`]) asks the store for the waiting messages whose
//! event's time-to-live has passed at the injected clock's now, a bounded
//! batch per short transaction, read from an index that holds only those
//! messages (`Store::expire_due`); they become `expired` (`ttl_expired`).
//!
//! The same sweep applies the window rule (`relay_core::window`) to the
//! due backlog of each rate-limited endpoint this process has attempted: a
//! message that the tokens needed by the messages ahead of it keep from
//! starting any of its remaining attempts before its window ends becomes
//! `window_exceeded` now, without an attempt, and leaves its place (and its
//! token) to the messages behind it. At most [`WINDOW_PAGES`] pages of
//! `sweep_batch` messages are read per endpoint and sweep; what lies deeper
//! is looked at as the backlog drains towards it, always before the
//! endpoint could take it. The rule assumes the endpoint goes at its rate;
//! with several nodes on PostgreSQL the nodes share that rate
//! (`crate::shares`), so it holds for the whole cluster and the rule is
//! exact there too (it is given the endpoint's rate, not this node's share).

use relay_core::model::EndpointState;
use relay_core::retry::RetrySchedule;
use relay_core::time::Timestamp;
use relay_core::window::{Fit, WindowFacts, fit, rate_limited_ready_at};
use relay_store::{Commit, ExecutorExt as _, StoreError, retention, window};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

use crate::{Dispatcher, EngineConfig, Service};

/// Pages of a rate-limited endpoint's backlog the window rule reads per sweep.
pub const WINDOW_PAGES: usize = 2;

impl Dispatcher {
    /// Ends every waiting message whose event's time-to-live has passed at
    /// the clock's now: `expired`, [`crate::EngineConfig::sweep_batch`] per
    /// transaction, until a batch comes back short. Returns how many.
    pub async fn expire_due(&self) -> Result<u64, StoreError> {
        let batch = self.config().sweep_batch.max(1);
        let mut total = 0;
        loop {
            let now = self.attempter.clock.now();
            let n = self
                .store()
                .write(Commit::Durable, move |mut x| {
                    Box::pin(async move { retention::expire_due(&mut x, now, batch).await })
                })
                .await?;
            total += n;
            if n < u64::from(batch) {
                break;
            }
            // Let other writers in between batches.
            tokio::task::yield_now().await;
        }
        if total > 0 {
            tracing::info!(
                messages = total,
                "messages expired: their event's time-to-live passed while they waited"
            );
        }
        Ok(total)
    }

    /// Ends `window_exceeded` the due live messages of this process's
    /// rate-limited endpoints whose remaining attempts the rate limit,
    /// behind the backlog ahead of them, keeps out of their window
    /// (`relay_core::window`). Returns how many.
    pub async fn end_exceeded_windows(&self) -> Result<u64, StoreError> {
        let now = self.attempter.clock.now();
        let mut total = 0;
        for (endpoint_id, rate, tokens) in self.lanes.rate_limited(now) {
            total += self.exceeded_in(&endpoint_id, rate, tokens, now).await?;
        }
        Ok(total)
    }

    async fn exceeded_in(
        &self,
        endpoint_id: &str,
        rate: u32,
        tokens: f64,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let batch = self.config().sweep_batch.max(1);
        let mut after = None;
        // Messages ahead that keep their place (each takes a token first).
        let mut ahead = 0u64;
        let mut exceeded = Vec::new();
        for _ in 0..WINDOW_PAGES {
            let (endpoint, from) = (endpoint_id.to_string(), after.take());
            let Some(backlog) = self
                .store()
                .read(move |mut x| {
                    Box::pin(async move {
                        window::due_backlog(&mut x, &endpoint, now, from, batch).await
                    })
                })
                .await?
            else {
                break;
            };
            // A paused or disabled endpoint's messages are held, not here;
            // the rate limit may have changed (or gone) since the lane saw it.
            if backlog.endpoint.state != EndpointState::Active
                || backlog.endpoint.rate_limit_per_second != Some(rate)
            {
                break;
            }
            // As the attempts use it: the override as it was accepted.
            let schedule =
                RetrySchedule::stored(backlog.endpoint.retry_schedule_seconds.as_deref());
            let span = i64::try_from(schedule.max_window_seconds())
                .unwrap_or(i64::MAX / 2_000)
                .saturating_mul(1000);
            for w in &backlog.messages {
                let used = u32::try_from(w.attempts_used).unwrap_or(u32::MAX);
                let later: Vec<i64> = (used.saturating_add(2)..=schedule.max_attempts())
                    .filter_map(|n| schedule.wait_millis(&w.id, n))
                    .collect();
                let facts = WindowFacts {
                    now,
                    created_at: w.created_at,
                    schedule_span_millis: span,
                    expires_at: w.expires_at,
                    next_attempt_at: w.next_attempt_at,
                    later_waits_millis: &later,
                    endpoint_ready_at: rate_limited_ready_at(now, rate, tokens, ahead),
                };
                match fit(&facts) {
                    Fit::WindowExceeded => exceeded.push(w.id.clone()),
                    Fit::Fits { .. } | Fit::Outside => ahead += 1,
                }
            }
            if backlog.messages.len() < batch as usize {
                break;
            }
            after = backlog
                .messages
                .last()
                .map(|w| (w.next_attempt_at, w.id.clone()));
        }
        if exceeded.is_empty() {
            return Ok(0);
        }
        let ended = self
            .store()
            .write(Commit::Durable, move |mut x| {
                Box::pin(async move { window::end_window_exceeded(&mut x, &exceeded, now).await })
            })
            .await?;
        if ended > 0 {
            tracing::info!(
                endpoint = endpoint_id,
                messages = ended,
                "messages ended window_exceeded: the endpoint's rate limit and backlog keep their attempts out of their window"
            );
        }
        Ok(ended)
    }

    /// The sweep the sweeper runs every `sweep_interval`.
    pub(crate) async fn sweep(&self) {
        if let Err(e) = self.expire_due().await {
            tracing::error!(error = %e, "expiring messages past their time-to-live failed; the next sweep retries");
        }
        if let Err(e) = self.end_exceeded_windows().await {
            tracing::error!(error = %e, "applying the window rule failed; the next sweep retries");
        }
    }
}

/// The sweep's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct SweepConfig {
    /// How often the sweep runs (`sweep_interval`).
    pub interval: Duration,
    /// Messages one transaction ends at most (`sweep_batch`).
    pub batch: u32,
}

impl From<&EngineConfig> for SweepConfig {
    fn from(c: &EngineConfig) -> Self {
        SweepConfig {
            interval: c.sweep_interval,
            batch: c.sweep_batch,
        }
    }
}

/// The window sweep service: a sweep at once, then every `interval`.
pub struct Sweeper {
    dispatcher: Arc<Dispatcher>,
    config: SweepConfig,
}

impl Sweeper {
    pub fn new(dispatcher: Arc<Dispatcher>) -> Self {
        let config = SweepConfig::from(dispatcher.config());
        Sweeper { dispatcher, config }
    }
}

impl Service for Sweeper {
    const NAME: &'static str = "window sweep";
    type Config = SweepConfig;

    fn config(&self) -> &SweepConfig {
        &self.config
    }

    /// One sweep: the TTLs that passed, then the windows the rate limits
    /// keep messages out of; how many messages it ended.
    async fn run_once(&self) -> Result<u64, StoreError> {
        let expired = self.dispatcher.expire_due().await?;
        Ok(expired + self.dispatcher.end_exceeded_windows().await?)
    }

    async fn run(self, stop: watch::Receiver<bool>) {
        crate::service::every(self.config.interval, true, stop, || self.dispatcher.sweep()).await;
    }
}
