//! Relay's HTTP API.
//!
//! - [`routes`]: one module per resource; handlers validate, call the store,
//!   and shape the response. The router is built by [`router`].
//! - [`auth`]: operator token and tenant API keys.
//! - [`error`]: every failure as `application/problem+json` with a stable code.
//! - [`extract`]: body and query extractors that fail as problems.
//! - [`schema`]: compiled JSON Schemas of the event catalog, bounded and cached.
//! - [`cpu`]: CPU-heavy checks on blocking threads, shared fairly between tenants.
//! - [`openapi`]: the OpenAPI document generated from the handlers.
//!
//! The library never reads ports, files or signals: [`serve`] takes a bound
//! listener and a shutdown future, so tests bind `127.0.0.1:0` or call the
//! router directly.

pub mod auth;
pub mod cache;
pub mod cpu;
pub mod deliverable;
pub mod error;
pub mod extract;
pub mod openapi;
pub mod request_id;
pub mod routes;
pub mod schema;
pub mod server;

use std::future::Future;
use std::sync::Arc;

use relay_core::retry::ScheduleBounds;
use relay_core::sealed::MasterKey;
use relay_core::time::Clock;
use relay_store::{EndpointLimits, Store};

/// Settings the API enforces, from the operator configuration.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Largest request body accepted; larger bodies get `413`.
    pub max_request_bytes: usize,
    pub endpoint_limits: EndpointLimits,
    pub retry_bounds: ScheduleBounds,
    /// Longest `ttl_seconds` a publish may ask for.
    pub max_event_ttl_seconds: u64,
    /// Highest `max_concurrency` an endpoint may ask for.
    pub max_endpoint_concurrency: u32,
    /// How long events, messages and attempts are kept; replay and recover
    /// refuse ranges that start earlier.
    pub retention_days: u32,
    /// This installation's public base URL (`https://relay.example.com`):
    /// inbound sources answer the URL to give the provider below it.
    pub public_url: Option<String>,
    /// The HTTP server's timeouts, connection cap and drain time.
    pub server: server::ServerSettings,
    /// Where `/metrics` is served and whether it asks for a token.
    pub metrics: MetricsAccess,
    /// What this process plays (`[server] role`): a worker serves only
    /// `/healthz`, `/readyz` and `/metrics` ([`routes::worker_router`]).
    pub role: Role,
    /// Whose receivers prove ownership before deliveries (`[delivery]
    /// ownership_proof`).
    pub ownership_proof: OwnershipProof,
}

/// Whose receivers must prove that they want the traffic before the first
/// delivery (`[delivery] ownership_proof`; `docs/security.md`, "Proof of
/// endpoint ownership"): the HTTPS endpoints that ask for it
/// (`verify_ownership`, `opt_in`, the default), or every HTTPS endpoint
/// created or changed (`required`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnershipProof {
    #[default]
    OptIn,
    Required,
}

impl OwnershipProof {
    pub const fn as_str(self) -> &'static str {
        match self {
            OwnershipProof::OptIn => "opt_in",
            OwnershipProof::Required => "required",
        }
    }
}

/// Which parts of Relay one process runs (`[server] role`, `relay serve
/// --role`): the API and the delivery workers (`all`, the default), the API
/// alone (`api`: no claim, rescue, purge, sweep, job or ledger writer; manual
/// attempts still run where they are asked for), or the workers alone
/// (`worker`: the HTTP listener serves only health, readiness and metrics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    #[default]
    All,
    Api,
    Worker,
}

impl Role {
    /// Every role, in the order the documentation lists them.
    pub const EVERY: [Role; 3] = [Role::All, Role::Api, Role::Worker];

    /// The name in configuration, `/readyz` and `relay_node_role`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::All => "all",
            Role::Api => "api",
            Role::Worker => "worker",
        }
    }

    /// The role named `name` exactly (lower case), if any.
    pub fn parse(name: &str) -> Option<Role> {
        Role::EVERY.into_iter().find(|r| r.as_str() == name)
    }

    /// Whether this process serves the API (`all`, `api`).
    pub fn serves_api(self) -> bool {
        self != Role::Worker
    }

    /// Whether this process runs the delivery services (`all`, `worker`).
    pub fn delivers(self) -> bool {
        self != Role::Api
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where `/metrics` is served and whether it asks for a token.
#[derive(Clone, Default)]
pub struct MetricsAccess {
    /// `/metrics` is served on a listener of its own ([`serve_metrics`]);
    /// on the API's listener it answers `404` like any unknown path.
    pub separate_listener: bool,
    /// SHA-256 of the token `/metrics` asks for (`Authorization: Bearer`);
    /// `None`: no token is asked.
    pub token_sha256: Option<[u8; 32]>,
}

impl std::fmt::Debug for MetricsAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsAccess")
            .field("separate_listener", &self.separate_listener)
            .field("token", &self.token_sha256.map(|_| "<redacted>"))
            .finish()
    }
}

impl Default for ApiSettings {
    fn default() -> Self {
        ApiSettings {
            max_request_bytes: 1024 * 1024,
            endpoint_limits: EndpointLimits {
                per_tenant: 1000,
                per_consumer: 20,
            },
            retry_bounds: ScheduleBounds::DEFAULT,
            max_event_ttl_seconds: 30 * 24 * 3600,
            max_endpoint_concurrency: 100,
            retention_days: 30,
            public_url: None,
            server: server::ServerSettings::default(),
            metrics: MetricsAccess::default(),
            role: Role::All,
            ownership_proof: OwnershipProof::OptIn,
        }
    }
}

/// Everything a handler needs.
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    /// The outbound guard: endpoint URLs are checked with it at registration.
    pub guard: Arc<relay_net::Guard>,
    /// SHA-256 of the operator token; the token itself is never kept.
    pub operator_token_sha256: [u8; 32],
    /// Seals new signing keys.
    pub master_key: MasterKey,
    /// What the API asks of this process's dispatcher (manual attempts,
    /// circuits, limits, secret and endpoint changes): its narrow handle.
    pub engine: relay_engine::Handle,
    pub settings: ApiSettings,
    pub schemas: schema::SchemaCache,
    /// Blocking threads for CPU-heavy checks (schemas, large validations).
    pub cpu: cpu::CpuPool,
    /// Active API keys by token digest (see [`cache`]).
    pub api_keys: cache::TtlCache<String, relay_core::model::ApiKey>,
    /// Event types by (tenant, environment, name) (see [`cache`]).
    pub event_types:
        cache::TtlCache<(String, &'static str, String), Arc<relay_core::model::EventType>>,
    /// Woken after every publish that created messages (the dispatcher waits on it).
    pub wake: Arc<tokio::sync::Notify>,
    /// Renders the Prometheus text for `/metrics` (set by whoever runs the dispatcher).
    pub metrics: std::sync::OnceLock<MetricsRenderer>,
    /// Each inbound source's rate-limit bucket in this process.
    pub inbound_buckets: routes::inbound::Buckets,
    /// Set once shutdown is asked for: `/readyz` answers `503` from then on
    /// (while the API still serves, for `[server] shutdown_delay_seconds`)
    /// and every answer closes its connection, so load balancers and
    /// kept-alive clients move to other instances.
    pub shutting_down: std::sync::atomic::AtomicBool,
}

/// Produces the Prometheus text exposition for `/metrics`.
pub type MetricsRenderer = Arc<dyn Fn() -> String + Send + Sync>;

impl AppState {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        guard: Arc<relay_net::Guard>,
        operator_token_sha256: [u8; 32],
        master_key: MasterKey,
        engine: relay_engine::Handle,
        settings: ApiSettings,
    ) -> Arc<Self> {
        Arc::new(AppState {
            store,
            clock,
            guard,
            operator_token_sha256,
            master_key,
            engine,
            settings,
            schemas: schema::SchemaCache::default(),
            cpu: cpu::CpuPool::default(),
            api_keys: cache::TtlCache::default(),
            event_types: cache::TtlCache::default(),
            wake: Arc::new(tokio::sync::Notify::new()),
            metrics: std::sync::OnceLock::new(),
            inbound_buckets: Default::default(),
            shutting_down: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Shutdown is asked for: readiness fails from now on (see
    /// [`AppState::shutting_down`]).
    pub fn begin_shutdown(&self) {
        self.shutting_down
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down
            .load(std::sync::atomic::Ordering::Relaxed)
    }
}

pub use routes::router;

/// Serves the API on `listener` until `shutdown` completes, with the
/// timeouts, connection cap and drain time of `state.settings.server`
/// (on a worker, only its probes and metrics: see [`router`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let settings = state.settings.server.clone();
    server::serve(listener, router(state), settings, shutdown).await
}

/// Serves `/metrics` alone on `listener` (the operator's `[metrics] listen`)
/// until `shutdown` completes, like [`serve`].
pub async fn serve_metrics(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let settings = state.settings.server.clone();
    server::serve(listener, routes::metrics_router(state), settings, shutdown).await
}
