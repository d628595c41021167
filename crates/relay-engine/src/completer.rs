//! The end of an attempt: its lane slot given back ([`Dispatcher::finished`]),
//! and the completer task that writes completions in batches.

use super::*;

/// What a finished attempt tells the endpoint's circuit breaker (the same
/// signal as the automatic-disable clock: see `Attempter::attempt`).
pub(crate) fn breaker_signal(completion: Option<&Completion>) -> relay_core::circuit::Signal {
    completion
        .map(|c| c.health)
        .unwrap_or(relay_core::circuit::Signal::Neutral)
}

/// How long the completer waits for more completions to join a batch.
pub(crate) const COMPLETION_LINGER: Duration = Duration::from_millis(2);

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
            if before >= self.config().max_recovery_in_flight {
                self.recovery_freed.notify_one();
            }
        }
    }

    pub(crate) async fn complete(
        &self,
        batch: &[Completion],
    ) -> Result<(), relay_store::StoreError> {
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

    /// Writes completions in batches: the first one waits, the rest that are
    /// already queued join it (up to `completion_batch`). Each completion's
    /// in-flight permit is given back once it is written.
    pub(crate) async fn completer(
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
