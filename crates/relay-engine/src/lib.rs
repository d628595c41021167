//! Relay's dispatcher: turns `scheduled` messages into signed deliveries.
//!
//! - [`Engine`] ([`Dispatcher::start`] runs one): the dispatcher's
//!   [`Service`]s, each a loop with its slice of [`EngineConfig`], a
//!   `run_once` and a `run(stop)`: the claimer (claim due messages with a
//!   lease, no transaction open; attempt each in its own task, at most
//!   `max_in_flight` at once; woken at once by a publish, in-process
//!   `Notify` and `LISTEN/NOTIFY` from other nodes on PostgreSQL, otherwise
//!   when the next retry is due, with a poll as the fallback), the
//!   completer (writes completions in batches), lease rescue, the circuit
//!   sync (PostgreSQL: one breaker per endpoint for the cluster), retention
//!   purge, the window sweep, the job runner, the ledger writer, the batch
//!   writer and, on PostgreSQL, the share keeper. [`engine`] starts them and
//!   stops them in a written order.
//! - [`Dispatcher::run_once`]: one rescue → sweep → claim → attempt →
//!   complete → batch write round at the injected clock's "now"; tests walk
//!   retry schedules with it.
//! - [`Handle`]: what the API calls (manual attempts, the circuit, secret
//!   changes, payloads), not the whole dispatcher.
//! - [`attempt`]: one attempt (envelope, signature, guarded POST, outcome).
//! - `claim`, `completer`, `rescue`, `purge`, [`sweep`], `jobs`, [`inbound`],
//!   [`batch_writer`]: one service each ([`service`] lists them); `ahead`
//!   (look-ahead), `resend` (manual attempts), `lifecycle` (pause and
//!   disable): parts of the dispatcher; this file holds the dispatcher's
//!   state, configuration and wiring.
//! - [`inbound`]: the ledger writer of inbound provider webhooks' receipts.
//! - [`secrets`]: resolving secret references (`secret:`, `env:`, `file:`).
//! - [`lanes`]: per-endpoint concurrency limits (isolation between endpoints).
//! - [`breakers`]: the endpoints' circuit breakers, this process's or its
//!   part of the cluster's (`circuit_sync`).
//! - [`shares`]: on PostgreSQL, this node's share of every limit, so the
//!   cluster holds one set of them (the [`ShareKeeper`]).
//! - [`metrics`]: the Prometheus counters behind `/metrics`.
//! - [`telemetry`]: OpenTelemetry spans of attempts (and the API's
//!   publishes), exported over OTLP/HTTP.
//!
//! Safety: a message is attempted only under a lease; a completion is
//! applied only if its lease still holds
//! (`relay_store::completions::complete`), so a late or duplicate
//! completion never overwrites a rescued, cancelled or completed message.
//! A process that dies mid-attempt leaves a lease that expires and is
//! rescued: delivery is at least once.
//!
//! Graceful shutdown ([`Engine::shutdown`], after the stop signal): the
//! claimer stops claiming and lets attempts in flight finish within
//! `shutdown_grace`, the completer flushes, the remaining leases are
//! released; then the other services end, and only then does `start`'s
//! handle complete.

mod ahead;
pub mod attempt;
pub mod batch_writer;
pub mod batches;
pub mod breakers;
mod circuit_sync;
mod claim;
pub mod clock_sync;
mod completer;
pub mod engine;
mod handle;
pub mod inbound;
pub mod intake;
mod jobs;
pub mod lanes;
mod lifecycle;
pub mod metrics;
pub mod ownership;
mod purge;
mod rescue;
mod resend;
pub mod secrets;
pub mod service;
pub mod shapes;
pub mod shares;
pub mod sweep;
pub mod telemetry;

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

pub use ahead::AHEAD_DEPTH;
use ahead::AHEAD_SWEEP;
use ahead::{Ahead, AheadState};
pub use attempt::Attempter;
pub use batch_writer::{BatchConfig, BatchWriter};
pub use circuit_sync::{CircuitConfig, CircuitSync};
pub use claim::{ClaimConfig, Claimer};
pub use clock_sync::{ClockSync, ClockSyncConfig};
pub use completer::{Completer, CompleterConfig};
pub use engine::Engine;
pub use handle::Handle;
pub use inbound::{LedgerConfig, LedgerWriter};
pub use jobs::{JOB_PACE_DUE, JobConfig, JobRunner, bulk_retry_filter};
pub use metrics::Metrics;
pub use ownership::{ProofError, Prover};
pub use purge::{PurgeConfig, Purger};
pub use relay_destinations::ATTEMPT_OVERRUN;
pub use rescue::{RescueConfig, Rescuer};
pub use resend::{ManualError, ManualOutcome};
pub use service::Service;
pub use shares::{ShareConfig, ShareKeeper};
pub use sweep::{SweepConfig, Sweeper};

/// How the dispatcher behaves; see [`EngineConfig::new`] for the defaults.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// This process's lease owner name (unique per process).
    pub owner: String,
    /// How long a claim is valid; at least [`EngineConfig::shortest_lease`].
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
    /// The share of the time the purge service may spend in the store's
    /// writes while deliveries run (an attempt in flight, or one ended
    /// since its last batch; between 0 and 1): after each batch it rests
    /// for the batch's time × (1 − share) / share, so a backlog of history
    /// to purge never crowds out live deliveries. With no delivery since
    /// its last batch it purges at full speed.
    pub purge_busy_share: f64,
    /// When an endpoint's circuit opens and how long it stays open.
    pub breaker: relay_core::circuit::BreakerConfig,
    /// How often this node's circuits sync with the cluster's (PostgreSQL;
    /// [`CircuitSync`]): other nodes may start attempts for at most this
    /// long after a circuit opened.
    pub circuit_sync_interval: Duration,
    /// How often waiting messages whose window closed are ended (`sweep`),
    /// and how many one transaction ends at most.
    pub sweep_interval: Duration,
    pub sweep_batch: u32,
    /// Whether this process writes verified inbound receipts to the ledger
    /// ([`inbound`]); a node that only receives leaves them to the others.
    pub inbound_processing: bool,
    /// What `env:` and `file:` secret references may name (`[secrets]`).
    pub secrets: relay_core::secret::SecretPolicy,
    /// The installation's AWS identity (`[aws]`): the AWS kinds' endpoints
    /// that name a role assume it with this identity and their tenant's
    /// `ExternalId`. `None`: such endpoints are refused at registration.
    pub aws: Option<Arc<relay_destinations::aws::identity::Installation>>,
    /// The installation's Google workload identity (`[gcp]`): Pub/Sub
    /// endpoints with `workload_identity` publish with its tokens, for the
    /// projects it lists. `None`: such endpoints are refused at
    /// registration.
    pub gcp: Option<Arc<relay_destinations::gcp::Installation>>,
    /// How long an endpoint's resolved secrets are used before they are
    /// resolved again (a changed value rebuilds the endpoint's client).
    pub secret_refresh: Duration,
    /// Manual attempts (resend, test send) per endpoint that may wait for
    /// its lane or run at once in this process; one more is refused at once
    /// (the API answers `429` with `Retry-After`).
    pub manual_pending_per_endpoint: u32,
    /// How long a manual attempt waits for a slot of its endpoint's lane
    /// before it is refused the same way.
    pub manual_wait: Duration,
    /// How often the clock's offset to the database is measured again
    /// ([`clock_sync`]).
    pub clock_sync_interval: Duration,
    /// On PostgreSQL, how often this node renews its shares of the
    /// endpoints' limits (`shares`), and how long a renewal holds: a node
    /// that cannot renew for that long stops starting attempts.
    pub share_tick: Duration,
    pub share_ttl: Duration,
    /// Who asks, in the ownership challenge's `WebHook-Request-Origin`
    /// (the host of `public_url`, else `relay`).
    pub ownership_origin: String,
}

/// What a lease covers beyond the longest attempt: the time from the claim
/// to the request and from the answer to the completion's commit (a batch
/// of completions written; normally milliseconds, seconds when the database
/// is slow), and the nodes' disagreement on the time (the clock offsets'
/// error bounds and drift between measurements: milliseconds, see
/// [`clock_sync`]).
pub const LEASE_MARGIN: Duration = Duration::from_secs(5);

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
            purge_busy_share: 0.03,
            breaker: relay_core::circuit::BreakerConfig::default(),
            circuit_sync_interval: Duration::from_millis(250),
            sweep_interval: Duration::from_secs(1),
            sweep_batch: 500,
            inbound_processing: true,
            secrets: Default::default(),
            aws: None,
            gcp: None,
            secret_refresh: Duration::from_secs(30),
            manual_pending_per_endpoint: 10,
            manual_wait: Duration::from_secs(10),
            clock_sync_interval: Duration::from_secs(15),
            share_tick: Duration::from_millis(250),
            share_ttl: Duration::from_secs(2),
            ownership_origin: "relay".into(),
        }
    }

    /// The longest one attempt can take: the request timeout
    /// (`limits.total_timeout`) and what a kind may wait beyond it
    /// ([`relay_destinations::ATTEMPT_OVERRUN`]).
    pub fn longest_attempt(&self) -> Duration {
        self.limits.total_timeout + relay_destinations::ATTEMPT_OVERRUN
    }

    /// The shortest lease under which an attempt ends, and its completion
    /// is written, before the lease does: the longest attempt and
    /// [`LEASE_MARGIN`]. A shorter lease could expire under an attempt still
    /// on the wire, and another node would send the message again.
    pub fn shortest_lease(&self) -> Duration {
        shortest_lease(self.limits.total_timeout)
    }
}

/// [`EngineConfig::shortest_lease`] with a request timeout of
/// `request_timeout`: what `[delivery] lease_seconds` must reach.
pub fn shortest_lease(request_timeout: Duration) -> Duration {
    request_timeout + relay_destinations::ATTEMPT_OVERRUN + LEASE_MARGIN
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
    /// Signalled when a completion batch let the next message of an
    /// ordering key go (`relay_store::ordering`): it is due at once.
    promoted: Notify,
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
    /// Signalled when a verified inbound receipt was written ([`inbound`]).
    inbound_ready: Notify,
    /// The dispatcher's clock when it is to follow the database's
    /// ([`Dispatcher::follow_database_clock`]).
    synced_clock: std::sync::OnceLock<Arc<relay_core::time::OffsetClock>>,
    /// Held by the share renewal in progress ([`shares`]): one at a time.
    renewal: tokio::sync::Mutex<()>,
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
        let resolver = secrets::Resolver::new(config.secrets.clone())
            .with_tenant_secrets(store.clone(), master.clone());
        // With several nodes on one PostgreSQL the limits are shared
        // (`shares`); on SQLite one process owns the database.
        let shares = if store.backend() == "postgres" {
            shares::Shares::cluster(
                config.share_ttl,
                (
                    u32::try_from(config.max_recovery_in_flight).unwrap_or(u32::MAX),
                    config.recovery_per_second,
                ),
            )
        } else {
            shares::Shares::local()
        };
        let lanes = Arc::new(lanes::Lanes::new(config_breaker).with_shares(shares));
        Arc::new(Dispatcher {
            attempter: Arc::new(Attempter {
                store,
                shared: relay_destinations::Shared {
                    https: client,
                    clock: clock.clone(),
                },
                clock,
                master,
                resolver,
                config,
                endpoints: attempt::EndpointCache::default(),
                shapes: shapes::ShapeCache::default(),
                metrics: Arc::new(Metrics::default()),
                batches: batches::Batches::new(lanes.clone()),
                tracer: std::sync::OnceLock::new(),
            }),
            lanes,
            recovery_in_flight: Default::default(),
            recovery_cursor: Default::default(),
            recovery_freed: Notify::new(),
            promoted: Notify::new(),
            ahead: Default::default(),
            permits: Arc::new(Semaphore::new(config_max_in_flight)),
            intake_ready: Notify::new(),
            stopping: Default::default(),
            recovery_tokens: std::sync::Mutex::new((0.0, relay_core::time::Timestamp(0))),
            inbound_ready: Notify::new(),
            synced_clock: Default::default(),
            renewal: Default::default(),
        })
    }

    /// `clock`, the one this dispatcher was made with (and the API's), is
    /// kept at the database's time: the engine measures its offset before
    /// its first rescue and claim, then every `clock_sync_interval`
    /// ([`ClockSync`]). Before [`Dispatcher::start`]; the first call wins.
    pub fn follow_database_clock(&self, clock: Arc<relay_core::time::OffsetClock>) {
        let _ = self.synced_clock.set(clock);
    }

    /// The clock sync of the clock this dispatcher follows, if it follows
    /// the database's ([`Dispatcher::follow_database_clock`]): the engine
    /// runs one; a process that starts no engine (an API-only node) runs
    /// it itself, since what its API stamps must agree with the workers.
    pub fn clock_sync(&self) -> Option<ClockSync> {
        self.synced_clock
            .get()
            .map(|clock| ClockSync::new(self, clock.clone()))
    }

    pub fn metrics(&self) -> Arc<Metrics> {
        self.attempter.metrics.clone()
    }

    /// Sends attempt spans to `tracer` (`[telemetry]`); the first call wins.
    pub fn set_tracer(&self, tracer: telemetry::Tracer) {
        let _ = self.attempter.tracer.set(tracer);
    }

    /// The tracer spans go to, when traces are on.
    pub fn tracer(&self) -> Option<&telemetry::Tracer> {
        self.attempter.tracer.get().filter(|t| t.enabled())
    }

    pub fn config(&self) -> &EngineConfig {
        &self.attempter.config
    }

    /// Resolves secret references under the operator's policy (the API
    /// checks a destination's references with it at registration).
    pub fn resolver(&self) -> &secrets::Resolver {
        &self.attempter.resolver
    }

    /// The tenant secret `name` of `scope` was replaced or deleted: the
    /// endpoints naming it resolve it again at their next attempt.
    pub fn secret_changed(&self, scope: &relay_store::Scope, name: &str) {
        self.attempter.endpoints.secret_changed(scope, name);
    }

    fn store(&self) -> &dyn Store {
        &*self.attempter.store
    }

    /// The payload `message` of `endpoint` carries of `event`, exactly as
    /// its attempts send it (the endpoint version's shape, through the same
    /// cache); `None` is the event's whole data. `ShapeError::NotAddressed`
    /// when the event is not meant for the endpoint's consumer.
    pub async fn payload_of(
        &self,
        tenant_id: &str,
        message: &relay_core::model::Message,
        endpoint: &relay_core::model::Endpoint,
        event: &relay_core::model::Event,
    ) -> Result<Option<shapes::Payload>, shapes::ShapeError> {
        let now = self.attempter.clock.now();
        self.attempter
            .shapes
            .payload_of(self.store(), tenant_id, message, endpoint, event, now)
            .await
    }

    /// Starts the [`Engine`] in a task: returns once wake-ups from other
    /// nodes are being listened for (PostgreSQL), so a publish right after
    /// cannot be missed. The services run until `shutdown` turns true, then
    /// stop in order ([`Engine::shutdown`]); the handle completes only once
    /// every task the engine spawned (its services, attempts, the
    /// endpoint-notice follower, the store's wake-up listener) has ended.
    pub async fn start(
        self: Arc<Self>,
        wake: Arc<Notify>,
        shutdown: watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        let engine = Engine::start(self, wake, shutdown).await;
        tokio::spawn(engine.run_until_stopped())
    }

    /// An API-only node's services ([`Engine::start_api_only`]): no
    /// delivery service, but what its manual attempts need to hold the
    /// cluster's limits and circuits. The handle completes once they ended.
    pub async fn start_api_only(
        self: Arc<Self>,
        wake: Arc<Notify>,
        shutdown: watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        engine::Engine::start_api_only(self, wake, shutdown).await
    }

    /// The narrow handle the API holds ([`Handle`]).
    pub fn handle(self: &Arc<Self>) -> Handle {
        Handle::new(self.clone())
    }
}

impl Dispatcher {
    /// The endpoint's circuit as this node sees it now: on PostgreSQL its
    /// part of the cluster's (the last sync's, with this node's signals
    /// since folded on top), on SQLite the only one.
    pub fn node_circuit(&self, endpoint_id: &str) -> relay_core::circuit::Circuit {
        self.lanes
            .circuits
            .get(endpoint_id, self.attempter.clock.now())
    }

    /// The endpoint's circuit as it stands now. On PostgreSQL the
    /// cluster's, read from the database, so every node shows the same one,
    /// an API-only node too (it runs no circuit sync); on SQLite this
    /// process's, which is the only one.
    pub async fn circuit(
        &self,
        endpoint_id: &str,
    ) -> Result<relay_core::circuit::Circuit, relay_store::StoreError> {
        use relay_store::ExecutorExt as _;
        if self.store().backend() != "postgres" {
            return Ok(self.node_circuit(endpoint_id));
        }
        let id = endpoint_id.to_string();
        let (circuit, _) = self
            .store()
            .read(move |mut x| {
                Box::pin(async move { relay_store::circuits::get(&mut x, &id).await })
            })
            .await?;
        Ok(circuit)
    }
}

#[cfg(test)]
mod lease_tests {
    use super::*;

    #[test]
    fn the_shortest_lease_is_the_longest_attempt_and_the_margin() {
        let mut c = EngineConfig::new("test");
        assert_eq!(c.longest_attempt(), Duration::from_secs(22));
        assert_eq!(c.shortest_lease(), Duration::from_secs(27));
        assert!(c.lease >= c.shortest_lease(), "the default lease is valid");
        c.limits.total_timeout = Duration::from_millis(5_500);
        assert_eq!(c.shortest_lease(), Duration::from_millis(12_500));
        assert_eq!(
            shortest_lease(Duration::from_secs(5)),
            Duration::from_secs(12)
        );
    }
}
