//! The cluster's circuit breakers, the [`CircuitSync`] service (PostgreSQL
//! only; docs/endpoint-health.md "Several nodes"): every `interval`, and at
//! once when a signal of this node opened a circuit, one write transaction
//! pushes the signals this node saw since its last sync into the cluster's
//! circuits, gives back and asks for probe permits, and reads the circuits
//! that are not closed back into this node's ([`crate::breakers`],
//! `relay_store::circuits`). On SQLite (one process) it does not run: the
//! breakers are the process's own, at no cost.

use relay_store::ExecutorExt;
use relay_store::circuits::{self, Push};

use super::*;

impl Dispatcher {
    /// One sync of this node's circuits with the cluster's; how many
    /// endpoints it pushed. `last`: the node is leaving (permits go back).
    pub(crate) async fn sync_circuits(
        &self,
        config: &CircuitConfig,
        last: bool,
    ) -> Result<(u64, bool), relay_store::StoreError> {
        let breakers = &self.lanes.circuits;
        let pushes: Vec<Push> = breakers.take_pushes(self.attempter.clock.now(), last);
        let n = pushes.len() as u64;
        let (breaker, permit) = (
            config.breaker,
            i64::try_from(config.permit_lifetime.as_millis()).unwrap_or(i64::MAX),
        );
        let sent = pushes.clone();
        let synced = self
            .store()
            .write(relay_store::Commit::Lease, move |mut x| {
                Box::pin(async move { circuits::sync(&mut x, sent, breaker, permit).await })
            })
            .await;
        match synced {
            Ok(synced) => {
                let freer = breakers.apply(&synced, self.attempter.clock.now());
                Ok((n, freer))
            }
            Err(e) => {
                breakers.restore(pushes);
                Err(e)
            }
        }
    }
}

/// The circuit sync's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct CircuitConfig {
    /// How often this node's circuits sync with the cluster's
    /// (`circuit_sync_interval`).
    pub interval: Duration,
    /// How long a probe permit is good for: the lease, which no attempt
    /// outlives (a dead node's permits come back after it).
    pub permit_lifetime: Duration,
    pub breaker: relay_core::circuit::BreakerConfig,
}

impl From<&EngineConfig> for CircuitConfig {
    fn from(c: &EngineConfig) -> Self {
        CircuitConfig {
            interval: c.circuit_sync_interval,
            permit_lifetime: c.lease,
            breaker: c.breaker,
        }
    }
}

/// The circuit sync service (see the module's docs). The engine makes its
/// first pass itself, before the claimer starts, and stops it after the
/// completer, when it makes a last pass: what the last attempts said is
/// pushed and the permits held go back.
pub struct CircuitSync {
    dispatcher: Arc<Dispatcher>,
    /// The claimer's wake-up: a circuit that lets more through now.
    wake: Arc<Notify>,
    config: CircuitConfig,
}

impl CircuitSync {
    pub fn new(dispatcher: Arc<Dispatcher>, wake: Arc<Notify>) -> Self {
        let config = CircuitConfig::from(dispatcher.config());
        CircuitSync {
            dispatcher,
            wake,
            config,
        }
    }

    /// On PostgreSQL: this node's circuits become its part of the
    /// cluster's and the first sync is made, before the node's first
    /// attempt (a claim, or an API node's resend), so it holds an endpoint
    /// the cluster holds from the start. `None` on SQLite (one process).
    pub async fn join(dispatcher: &Arc<Dispatcher>, wake: Arc<Notify>) -> Option<CircuitSync> {
        if dispatcher.store().backend() != "postgres" {
            return None;
        }
        // A probe permit lives a lease in the cluster: it starts a probe
        // only while the longest attempt still ends within it.
        let c = dispatcher.config();
        dispatcher
            .lanes
            .circuits
            .join_cluster(c.lease.saturating_sub(c.longest_attempt()));
        let sync = CircuitSync::new(dispatcher.clone(), wake);
        if let Err(e) = sync.run_once().await {
            tracing::error!(error = %e, "syncing the circuits with the cluster failed");
        }
        Some(sync)
    }

    async fn pass(&self, last: bool) -> u64 {
        match self.dispatcher.sync_circuits(&self.config, last).await {
            Ok((n, freer)) => {
                if freer {
                    self.dispatcher.lanes.freed.notify_one();
                    self.wake.notify_one();
                }
                n
            }
            Err(e) => {
                tracing::error!(error = %e, "syncing the circuits with the cluster failed");
                0
            }
        }
    }
}

impl Service for CircuitSync {
    const NAME: &'static str = "circuit sync";
    type Config = CircuitConfig;

    fn config(&self) -> &CircuitConfig {
        &self.config
    }

    /// One sync; how many endpoints' signals and permits it pushed.
    async fn run_once(&self) -> Result<u64, relay_store::StoreError> {
        let (n, freer) = self.dispatcher.sync_circuits(&self.config, false).await?;
        if freer {
            self.dispatcher.lanes.freed.notify_one();
            self.wake.notify_one();
        }
        Ok(n)
    }

    async fn run(self, mut stop: watch::Receiver<bool>) {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(self.config.interval) => {}
                _ = self.dispatcher.lanes.circuits.opened.notified() => {}
                _ = crate::service::stopped(&mut stop) => {}
            }
            if *stop.borrow() {
                break;
            }
            self.pass(false).await;
        }
        self.pass(true).await;
    }
}
