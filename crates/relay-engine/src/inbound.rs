//! The ledger writer, the [`LedgerWriter`] service: turns verified inbound
//! receipts into ledger entries.
//!
//! The receiving route (`relay-api/src/routes/inbound.rs`) writes a receipt
//! durably, answers the provider, and wakes this service
//! ([`Dispatcher::wake_inbound`]). The task leases due receipts from the
//! store (`relay_store::inbound::claim`, the store as the queue, as for
//! messages), makes each one's ledger entries with the preset's pure rules
//! (`relay_inbound::events`) and writes them with the receipt's completion,
//! applied only while the lease holds; a claim's receipts complete in one
//! transaction (one commit for up to [`INBOUND_BATCH`] receipts). A process that
//! dies between the lease and the completion leaves a lease that expires;
//! the next claim takes the receipt again, and since the ledger is unique
//! per (receipt, ordinal) nothing is written twice. A body the preset
//! cannot read is a lasting failure: the receipt is left `failed` with the
//! refusal's code, and `POST /v1/inbound-receipts/{id}/reprocess` makes it
//! due again.

use std::sync::Arc;
use std::time::Duration;

use relay_core::id::IdKind;
use relay_inbound::model::{LedgerEntry, ReceiptWork};
use relay_inbound::{Request, events};
use relay_store::{Commit, ExecutorExt as _, StoreError, inbound};
use tokio::sync::watch;

use crate::{Dispatcher, EngineConfig, Service};

/// Receipts leased per claim.
pub const INBOUND_BATCH: i64 = 64;

/// The ledger entries of one leased receipt, or the refusal's code.
pub fn entries(
    work: &ReceiptWork,
    now: relay_core::time::Timestamp,
) -> Result<Vec<LedgerEntry>, &'static str> {
    let receipt = &work.receipt;
    let headers: Vec<(String, String)> = receipt
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let request = Request {
        url: "",
        headers: &headers,
        body: &work.body,
    };
    let event_id = receipt.provider_event_id.as_deref().unwrap_or_default();
    let found = events(receipt.preset, &work.options, event_id, &request).map_err(|r| r.code())?;
    Ok(found
        .into_iter()
        .map(|e| LedgerEntry {
            id: relay_store::new_id(IdKind::LedgerEntry, now),
            source_id: receipt.source_id.clone(),
            provider: receipt.provider.clone(),
            event_type: e.event_type,
            provider_event_id: e.provider_event_id,
            occurred_at: e.occurred_at,
            received_at: receipt.received_at,
            receipt_id: receipt.id.clone(),
            message_id: e.message_id,
            recipient: e.recipient,
            status: e.status,
            recorded_at: now,
        })
        .collect())
}

impl Dispatcher {
    /// Wakes the ledger writer: a new verified receipt waits.
    pub fn wake_inbound(&self) {
        self.inbound_ready.notify_one();
    }

    /// One round of the ledger writer at the clock's now: leases due
    /// receipts and processes each. Returns how many it processed.
    pub async fn process_receipts_once(&self) -> Result<usize, StoreError> {
        let clock = &self.attempter.clock;
        let now = clock.now();
        let lease = i64::try_from(self.config().lease.as_millis()).unwrap_or(i64::MAX);
        let (owner, lease_until) = (self.config().owner.clone(), now.plus_millis(lease));
        // A claim lost in a power cut costs nothing: its leases expire.
        let work = self
            .store()
            .write(Commit::Lease, move |mut x| {
                Box::pin(async move {
                    inbound::claim(&mut x, &owner, now, lease_until, INBOUND_BATCH).await
                })
            })
            .await?;
        let n = work.len();
        let now = clock.now();
        // The batch's completions share one transaction (one commit).
        let mut done = Vec::with_capacity(n);
        for w in work {
            match entries(&w, now) {
                Ok(entries) => done.push((w.receipt.id, w.lease, entries)),
                Err(code) => {
                    tracing::warn!(receipt = %w.receipt.id, refusal = code, "an inbound receipt's body gives no ledger entry; left failed");
                    let (id, lease) = (w.receipt.id.clone(), w.lease.clone());
                    self.store()
                        .write(Commit::Durable, move |mut x| {
                            Box::pin(
                                async move { inbound::fail(&mut x, &id, &lease, code, None).await },
                            )
                        })
                        .await?;
                }
            }
        }
        let ids: Vec<String> = done.iter().map(|(id, _, _)| id.clone()).collect();
        let held = self
            .store()
            .write(Commit::Durable, move |mut x| {
                Box::pin(async move { inbound::complete_all(&mut x, &done, now).await })
            })
            .await?;
        for (id, held) in ids.iter().zip(held) {
            if !held {
                tracing::info!(receipt = %id, "an inbound receipt's lease expired before its completion; another processing writes it");
            }
        }
        Ok(n)
    }
}

/// The ledger writer's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct LedgerConfig {
    /// Whether this process runs it at all (`inbound_processing`).
    pub enabled: bool,
    /// The longest it waits without a wake-up (`poll_interval`, at least
    /// 50 ms).
    pub poll: Duration,
}

impl From<&EngineConfig> for LedgerConfig {
    fn from(c: &EngineConfig) -> Self {
        LedgerConfig {
            enabled: c.inbound_processing,
            poll: c.poll_interval.max(Duration::from_millis(50)),
        }
    }
}

/// The ledger writer service: processes what is due, then waits for a
/// wake-up ([`Dispatcher::wake_inbound`]), the poll interval (receipts of
/// other nodes, expired leases) or the stop signal. A receipt in hand at
/// shutdown is finished (one short transaction); what is leased and not yet
/// started expires.
pub struct LedgerWriter {
    dispatcher: Arc<Dispatcher>,
    config: LedgerConfig,
}

impl LedgerWriter {
    pub fn new(dispatcher: Arc<Dispatcher>) -> Self {
        let config = LedgerConfig::from(dispatcher.config());
        LedgerWriter { dispatcher, config }
    }
}

impl Service for LedgerWriter {
    const NAME: &'static str = "ledger writer";
    type Config = LedgerConfig;

    fn config(&self) -> &LedgerConfig {
        &self.config
    }

    /// [`Dispatcher::process_receipts_once`].
    async fn run_once(&self) -> Result<u64, StoreError> {
        Ok(self.dispatcher.process_receipts_once().await? as u64)
    }

    async fn run(self, mut stop: watch::Receiver<bool>) {
        let d = &self.dispatcher;
        loop {
            if *stop.borrow() {
                break;
            }
            match d.process_receipts_once().await {
                Ok(n) if n as i64 >= INBOUND_BATCH => continue,
                Ok(_) => {}
                Err(e) => {
                    tracing::error!(error = %e, "processing inbound receipts failed; retried")
                }
            }
            tokio::select! {
                _ = d.inbound_ready.notified() => {}
                _ = tokio::time::sleep(self.config.poll) => {}
                _ = crate::service::stopped(&mut stop) => {}
            }
        }
    }
}
