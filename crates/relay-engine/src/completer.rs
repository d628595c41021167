//! The end of an attempt: its lane slot given back ([`Dispatcher::finished`]),
//! and the [`Completer`] service that writes completions in batches.

use super::*;
use relay_store::{Commit, ExecutorExt as _, completions};

/// What a finished attempt tells the endpoint's circuit breaker (the same
/// signal as the automatic-disable clock: see `Attempter::attempt`).
pub(crate) fn breaker_signal(completion: Option<&Completion>) -> relay_core::circuit::Signal {
    completion
        .map(|c| c.health)
        .unwrap_or(relay_core::circuit::Signal::Neutral)
}

/// How long the completer waits for more completions to join a batch.
pub(crate) const COMPLETION_LINGER: Duration = Duration::from_millis(2);

/// A finished attempt's completion, with the in-flight permit it holds
/// until the completion is written.
pub(crate) type Done = (Completion, tokio::sync::OwnedSemaphorePermit);

/// Applies `batch` ([`completions::complete`]) in one durable write: each
/// completion only while its lease holds.
pub(crate) async fn write_completions(
    store: &dyn Store,
    batch: &[Completion],
) -> Result<relay_store::Completed, relay_store::StoreError> {
    let batch = batch.to_vec();
    store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { completions::complete(&mut x, &batch).await })
        })
        .await
}

impl Dispatcher {
    /// Frees what a claimed attempt held: its lane slot (telling the breaker
    /// how it went) and, for recovery traffic, its recovery slot.
    pub(crate) fn finished(&self, c: &relay_store::Claimed, completion: Option<&Completion>) {
        let now = self.attempter.clock.now();
        self.lanes
            .done(&c.endpoint.id, breaker_signal(completion), now);
        if c.recovery {
            let before = self
                .recovery_in_flight
                .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            if before >= self.recovery_limits().0 {
                self.recovery_freed.notify_one();
            }
        }
    }

    pub(crate) async fn complete(
        &self,
        batch: &[Completion],
    ) -> Result<(), relay_store::StoreError> {
        let done = write_completions(self.store(), batch).await?;
        if done.promoted > 0 {
            // The next messages of their ordering keys are due now.
            self.promoted.notify_one();
        }
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
}

/// The completer's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct CompleterConfig {
    /// Completions written per transaction at most (`completion_batch`).
    pub batch: usize,
    /// A batch that cannot be written is retried until twice this has
    /// passed (`lease`): by then its messages' leases are long gone.
    pub lease: Duration,
}

impl From<&EngineConfig> for CompleterConfig {
    fn from(c: &EngineConfig) -> Self {
        CompleterConfig {
            batch: c.completion_batch.max(1),
            lease: c.lease,
        }
    }
}

/// The completer service: writes the claimer's attempts' completions in
/// batches, the first one waits, the rest that are already queued join it
/// (up to `batch`). Each completion's in-flight permit is given back once
/// it is written. It ends when every sender of its queue is gone (the
/// claimer's attempts have all ended), after writing what it holds: the
/// stop signal alone does not end it.
pub struct Completer {
    dispatcher: Arc<Dispatcher>,
    rx: tokio::sync::Mutex<mpsc::Receiver<Done>>,
    config: CompleterConfig,
}

impl Completer {
    pub(crate) fn new(dispatcher: Arc<Dispatcher>, rx: mpsc::Receiver<Done>) -> Self {
        let config = CompleterConfig::from(dispatcher.config());
        Completer {
            dispatcher,
            rx: tokio::sync::Mutex::new(rx),
            config,
        }
    }

    /// Writes `batch`, retrying while the leases may still hold.
    async fn write(&self, batch: &[Completion]) {
        let mut delay = Duration::from_millis(50);
        loop {
            match self.dispatcher.complete(batch).await {
                Ok(()) => break,
                Err(e) => {
                    // Keep trying: a completion not written means the lease
                    // expires and the message is attempted again (a duplicate,
                    // never a loss). Give up only after the lease is long gone.
                    tracing::error!(error = %e, batch = batch.len(), "writing completions failed; retrying");
                    if delay > self.config.lease * 2 {
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
    }
}

impl Service for Completer {
    const NAME: &'static str = "completer";
    type Config = CompleterConfig;

    fn config(&self) -> &CompleterConfig {
        &self.config
    }

    /// Writes what is queued now, `batch` at a time, without waiting for
    /// more; how many completions it wrote. (On an error, the batch it took
    /// is not written: its leases expire and its messages are attempted
    /// again.)
    async fn run_once(&self) -> Result<u64, relay_store::StoreError> {
        let mut rx = self.rx.lock().await;
        let mut total = 0;
        loop {
            let mut batch = Vec::with_capacity(self.config.batch);
            let mut permits = Vec::with_capacity(self.config.batch);
            while batch.len() < self.config.batch {
                let Ok((c, p)) = rx.try_recv() else { break };
                batch.push(c);
                permits.push(p);
            }
            if batch.is_empty() {
                return Ok(total);
            }
            self.dispatcher.complete(&batch).await?;
            total += batch.len() as u64;
        }
    }

    async fn run(self, _stop: watch::Receiver<bool>) {
        let max = self.config.batch;
        let mut rx = self.rx.lock().await;
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
            self.write(&batch).await;
            batch.clear();
            permits.clear();
        }
    }
}
