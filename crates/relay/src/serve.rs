//! `relay serve` and `relay migrate`: wiring configuration to the libraries.

use std::sync::Arc;

use anyhow::Context;
use relay_core::time::{Clock, OffsetClock, Timestamp};
use relay_store::{Commit, ExecutorExt as _, Store, settings};
use tokio::net::TcpListener;

use crate::config::{Config, LogFormat};

/// The wall clock; everything below the binary takes time from a `Clock`.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Timestamp(millis)
    }
}

/// Test-only: skews this process's clock by this many milliseconds (an
/// integer, either sign), so end-to-end tests can run nodes whose clocks
/// disagree (`crates/relay/tests/clock_skew.rs`). Read only by debug builds;
/// a release binary never looks at it.
#[cfg(debug_assertions)]
pub const TEST_CLOCK_OFFSET_ENV: &str = "RELAY_TEST_CLOCK_OFFSET_MS";

/// This node's own clock: the system's (in a debug build, skewed by
/// [`TEST_CLOCK_OFFSET_ENV`] when it is set).
fn node_clock() -> anyhow::Result<Arc<dyn Clock>> {
    #[cfg(debug_assertions)]
    if let Some(v) = std::env::var_os(TEST_CLOCK_OFFSET_ENV) {
        let skew: i64 = v
            .to_str()
            .and_then(|v| v.trim().parse().ok())
            .with_context(|| {
                format!("{TEST_CLOCK_OFFSET_ENV} must be a whole number of milliseconds")
            })?;
        tracing::warn!(
            skew_ms = skew,
            "this test build's clock is skewed ({TEST_CLOCK_OFFSET_ENV})"
        );
        let skewed = OffsetClock::new(Arc::new(SystemClock));
        skewed.set_offset(skew);
        return Ok(Arc::new(skewed));
    }
    Ok(Arc::new(SystemClock))
}

pub fn init_tracing(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("RELAY_LOG")
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(&config.log_level))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(log_colours())
        .with_writer(std::io::stderr);
    match config.log_format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}

/// Colour codes only for a person at a terminal: a log written to a file, a
/// pipe or a log collector stays plain text. `NO_COLOR` turns them off too.
pub fn log_colours() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Opens the store and applies pending migrations: all of them on SQLite
/// (one process owns the database); on PostgreSQL, where other nodes may
/// still run the older binary, a destructive one only when
/// `allow_destructive` (`relay migrate`, `serve --allow-destructive-migrations`).
pub async fn open_store(
    config: &Config,
    allow_destructive: bool,
) -> anyhow::Result<Arc<dyn Store>> {
    if config.uses_sqlite() {
        std::fs::create_dir_all(&config.data_dir).with_context(|| {
            format!(
                "cannot create the data directory {}",
                config.data_dir.display()
            )
        })?;
    }
    let options = relay_store::migrate::Options {
        allow_destructive: allow_destructive || config.uses_sqlite(),
    };
    relay_store::open_migrating(&config.database_url(), &config.store.settings(), options)
        .await
        .context("cannot open the database")
}

pub async fn migrate(config: &Config) -> anyhow::Result<()> {
    let store = open_store(config, true).await?;
    tracing::info!(backend = store.backend(), "database is up to date");
    Ok(())
}

/// `relay migrate --check`: where the schema stands, migrating nothing.
/// Exit status 0 when current, 3 when behind, 4 when newer than this binary.
pub async fn migrate_check(config: &Config) -> anyhow::Result<i32> {
    use relay_store::migrate::SchemaStatus;
    let url = config.database_url();
    if let Some(path) = url.strip_prefix("sqlite://") {
        let path = path.split('?').next().unwrap_or(path);
        if path != ":memory:" && !std::path::Path::new(path).exists() {
            println!("behind: no database yet at {path}; `relay migrate` would create it");
            return Ok(3);
        }
    }
    let store = relay_store::connect(&url, &config.store.settings())
        .await
        .context("cannot open the database")?;
    Ok(match store.schema_status().await? {
        SchemaStatus::Current { version } => {
            println!("current: schema version {version}, as this binary expects");
            0
        }
        SchemaStatus::Behind { applied, pending } => {
            let applied = applied.map_or("none".to_string(), |v| v.to_string());
            println!(
                "behind: schema version {applied}; `relay migrate` would apply {} migration(s):",
                pending.len()
            );
            for (version, name, destructive) in pending {
                println!(
                    "  {version:04} {name}{}",
                    if destructive { " (destructive)" } else { "" }
                );
            }
            3
        }
        SchemaStatus::Newer { known, unknown } => {
            println!(
                "newer: the database holds migration(s) {unknown:?} this binary does not know \
                 (it knows up to {known}); this binary refuses to serve it"
            );
            4
        }
    })
}

const OPERATOR_TOKEN_SETTING: &str = "operator_token_sha256";

/// Where a generated operator token is written when no terminal shows it,
/// inside the data directory.
pub const GENERATED_TOKEN_FILE: &str = "operator-token";

/// The operator token's digest: from configuration, from the database, or
/// generated now (see [`hand_over_generated_token`]; only the digest is stored).
async fn operator_token_digest(config: &Config, store: &dyn Store) -> anyhow::Result<[u8; 32]> {
    let leftover = config.data_dir.join(GENERATED_TOKEN_FILE);
    if leftover.exists() {
        tracing::warn!(path = %leftover.display(), "this file still holds the generated operator token; store the token safely and delete the file");
    }
    if let Some(token) = &config.operator_token {
        return Ok(relay_api::auth::token_digest(token.expose()));
    }
    let stored = store
        .read(|mut x| Box::pin(async move { settings::get(&mut x, OPERATOR_TOKEN_SETTING).await }))
        .await?;
    let stored = match stored {
        Some(hex_digest) => hex_digest,
        None => {
            let token = relay_api::auth::new_operator_token();
            let digest = relay_api::auth::token_digest_hex(&token);
            let wanted = digest.clone();
            let kept = store
                .write(Commit::Durable, move |mut x| {
                    Box::pin(async move {
                        settings::put_if_absent(&mut x, OPERATOR_TOKEN_SETTING, &wanted).await
                    })
                })
                .await?;
            if kept == digest {
                hand_over_generated_token(config, &token)?;
            }
            kept
        }
    };
    let bytes = hex::decode(&stored).context("the stored operator token digest is corrupt")?;
    bytes
        .try_into()
        .map_err(|_| anyhow::anyhow!("the stored operator token digest is corrupt"))
}

/// Shows a generated operator token to a person once, never through a log
/// stream: printed when standard output is a terminal (someone is looking;
/// nothing records it), otherwise (a service manager, a container, a pipe:
/// what is printed is kept in a log) written to `<data_dir>/operator-token`,
/// readable by this user only, and only that file's path is printed and logged.
fn hand_over_generated_token(config: &Config, token: &str) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        println!("Generated the operator token. It is shown only this once; store it safely:");
        println!();
        println!("    RELAY_OPERATOR_TOKEN={token}");
        println!();
        return Ok(());
    }
    let path = config.data_dir.join(GENERATED_TOKEN_FILE);
    std::fs::create_dir_all(&config.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {}",
            config.data_dir.display()
        )
    })?;
    // A file left from an earlier database names a token that no longer works.
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(e).with_context(|| format!("cannot replace {}", path.display()));
        }
    }
    crate::config::write_private_file(&path, &format!("{token}\n"))
        .with_context(|| format!("cannot write {}", path.display()))?;
    tracing::warn!(path = %path.display(), "generated the operator token and wrote it to this file (readable by this user only); store it safely, then delete the file");
    println!(
        "Generated the operator token into {} (readable by this user only); store it safely, then delete the file.",
        path.display()
    );
    Ok(())
}

/// Relay's pieces, wired and running, before the API listens: the store,
/// the API state and the dispatcher loop (it stops when `stop` turns true).
/// `relay serve` and `relay bench` both start Relay this way. An API-only
/// node (`[server] role = "api"`) starts none of the dispatcher's services:
/// its `engine` task only waits for `stop`.
pub struct Started {
    pub store: Arc<dyn Store>,
    pub state: Arc<relay_api::AppState>,
    pub stop: tokio::sync::watch::Sender<bool>,
    pub engine: tokio::task::JoinHandle<()>,
    /// The span exporter, when `[telemetry] otlp_endpoint` is set; finish
    /// it after the engine, so the last attempts' spans are exported.
    pub telemetry: Option<relay_engine::telemetry::Exporter>,
}

/// The delivery client's pool keeps as many idle connections per host as
/// attempts may run at once: endpoints often share a host, and a connection
/// returned to a full pool is closed, so the next attempt would pay a new TLS
/// handshake (with 2 endpoints × lanes of 100 on one host, the default of 128
/// opened 319–1,193 connections in a run where 200 do).
fn pool_settings(engine: &relay_engine::EngineConfig) -> relay_net::PoolSettings {
    let default = relay_net::PoolSettings::default();
    relay_net::PoolSettings {
        max_idle_per_host: default.max_idle_per_host.max(engine.max_in_flight),
        ..default
    }
}

/// Opens the store, loads the operator token and master key, and starts the
/// dispatcher wired to the API state (its services only where the role
/// delivers: see [`start_engine`]).
pub async fn start(config: &Config) -> anyhow::Result<Started> {
    let role = config.server.role;
    if role != relay_api::Role::All && config.uses_sqlite() {
        tracing::warn!(
            %role,
            "with SQLite one process owns the database: an api node alone delivers nothing, \
             a worker node alone takes no publishes; split roles on PostgreSQL"
        );
    }
    let store = open_store(config, config.allow_destructive_migrations).await?;
    let operator = operator_token_digest(config, &*store).await?;
    let master = crate::keys::load(config, &*store).await?;
    let guard = relay_net::Guard::from_config(&config.outbound)
        .context("invalid [outbound] configuration")?;
    // One clock for the process, the engine's and the API's: the database's,
    // as seen from here (this node's clock plus the offset the engine keeps
    // measuring), so every node stamps and judges leases on one time base.
    let synced = Arc::new(OffsetClock::new(node_clock()?));
    let clock: Arc<dyn Clock> = synced.clone();
    let mut engine_config = relay_engine::EngineConfig::new("relay");
    let request_timeout = std::time::Duration::from_secs(config.delivery.request_timeout_seconds);
    engine_config.limits.total_timeout = request_timeout;
    engine_config.limits.connect_timeout =
        engine_config.limits.connect_timeout.min(request_timeout);
    engine_config.retry_bounds = config.retry.bounds();
    engine_config.max_payload_bytes = config.limits.max_request_bytes;
    engine_config.lease = std::time::Duration::from_secs(config.delivery.lease_seconds);
    engine_config.breaker = relay_core::circuit::BreakerConfig {
        failure_threshold: config.delivery.circuit_failure_threshold,
        cool_down_millis: i64::try_from(config.delivery.circuit_cool_down_seconds * 1000)
            .unwrap_or(i64::MAX),
        half_open_probes: config.delivery.circuit_half_open_probes,
    };
    engine_config.retention =
        std::time::Duration::from_secs(u64::from(config.retention.days) * 86_400);
    engine_config.recovery_per_second = config.delivery.recovery_per_second;
    engine_config.max_recovery_in_flight = config.delivery.max_recovery_in_flight as usize;
    engine_config.manual_pending_per_endpoint = config.delivery.manual_pending_per_endpoint;
    engine_config.shutdown_grace =
        std::time::Duration::from_secs(config.delivery.shutdown_grace_seconds);
    engine_config.inbound_processing = config.inbound.processing;
    engine_config.secrets = config.secrets.policy(config.protected_paths());
    engine_config.secret_refresh = std::time::Duration::from_secs(config.secrets.refresh_seconds);
    engine_config.aws = config.aws.installation(clock.clone(), &guard);
    engine_config.gcp = config.gcp.installation(clock.clone(), &guard);
    // Who asks, in the ownership challenge: this installation's host.
    if let Some(host) = config.public_url.as_deref().and_then(|u| {
        let rest = u.split_once("://").map_or(u, |(_, r)| r);
        rest.split('/').next().filter(|h| !h.is_empty())
    }) {
        engine_config.ownership_origin = host.to_string();
    }
    let dispatcher = relay_engine::Dispatcher::new(
        store.clone(),
        clock.clone(),
        relay_net::HttpsClient::with_pool(guard.clone(), pool_settings(&engine_config)),
        master.clone(),
        engine_config,
    );
    dispatcher.follow_database_clock(synced);
    let state = relay_api::AppState::new(
        store.clone(),
        clock,
        Arc::new(guard),
        operator,
        master,
        dispatcher.handle(),
        config.api_settings(),
    );
    let metrics = dispatcher.metrics();
    metrics.set_tenant_labels(config.metrics.tenant_labels);
    let telemetry = config.telemetry.endpoint().map(|url| {
        tracing::info!(collector = ?url, "spans are exported over OTLP/HTTP");
        let (tracer, exporter) = relay_engine::telemetry::start(
            url,
            relay_net::operator::OperatorClient::new(&state.guard),
            relay_engine::telemetry::Origin {
                service_name: config.telemetry.service_name.clone(),
                service_version: env!("CARGO_PKG_VERSION"),
                instance_id: dispatcher.config().owner.clone(),
            },
            metrics.clone(),
        );
        dispatcher.set_tracer(tracer);
        exporter
    });
    let _ = state.metrics.set(Arc::new(move || metrics.render()));
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let engine = start_engine(role, &dispatcher, &state, stop_rx).await;
    Ok(Started {
        store,
        state,
        stop,
        engine,
        telemetry,
    })
}

/// The dispatcher's services, where `role` delivers (`all`, `worker`): the
/// claimer, completer, lease rescue, sweep, purge, job runner, ledger writer
/// and batch writer, and leasing at publish ([`relay_engine::Engine`]). An
/// API-only node starts none of them: it never claims, rescues or purges,
/// and, since only a started engine registers the store's intake, leases no
/// message at publish, so every message it takes is left to the workers.
/// Its dispatcher still serves the API's handle: resend and test send are
/// attempted here, through this process's lanes, and answered with the
/// attempt; the clock sync, and on PostgreSQL the circuit sync and the
/// share keeper, run here so that those attempts meet the cluster's clock,
/// circuits and limits (`relay_engine::Engine::start_api_only`).
async fn start_engine(
    role: relay_api::Role,
    dispatcher: &std::sync::Arc<relay_engine::Dispatcher>,
    state: &relay_api::AppState,
    stop: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    if role.delivers() {
        return dispatcher.clone().start(state.wake.clone(), stop).await;
    }
    tracing::info!("api role: no delivery services run in this process");
    dispatcher
        .clone()
        .start_api_only(state.wake.clone(), stop)
        .await
}

pub async fn serve(config: Config) -> anyhow::Result<()> {
    // Listened for from the start: a signal that comes before the API
    // serves (the listener answers as soon as it is bound) is a shutdown
    // like any other, never the default action of ending the process.
    let mut signals = Signals::new()?;
    let Started {
        store,
        state,
        stop: stop_tx,
        engine,
        telemetry,
    } = start(&config).await?;

    let metrics_listener = match &config.metrics.listen {
        Some(listen) => {
            let listener = TcpListener::bind(listen)
                .await
                .with_context(|| format!("cannot listen on {listen} (metrics.listen)"))?;
            let addr = listener.local_addr()?;
            tracing::info!(%addr, "metrics are served on a listener of their own");
            println!("Metrics listening on http://{addr}/metrics");
            Some(listener)
        }
        None => None,
    };
    let listener = TcpListener::bind(&config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let addr = listener.local_addr()?;
    let role = config.server.role;
    tracing::info!(%addr, backend = store.backend(), %role, "relay is listening");
    println!(
        "Relay listening on http://{addr} ({} backend, {role} role)",
        store.backend()
    );
    let metrics = metrics_listener.map(|listener| {
        let mut stop_rx = stop_tx.subscribe();
        tokio::spawn(relay_api::serve_metrics(
            listener,
            state.clone(),
            async move {
                let _ = stop_rx.wait_for(|s| *s).await;
            },
        ))
    });
    let delay = config.server.shutdown_delay();
    let api = state.clone();
    let shutdown = async move {
        signals.recv().await;
        // Not ready from now on; for `[server] shutdown_delay_seconds` the
        // API still takes requests (and the dispatcher still delivers) while
        // load balancers notice and stop sending here. A second signal ends
        // the delay at once.
        api.begin_shutdown();
        if !delay.is_zero() {
            tracing::info!(
                delay_seconds = delay.as_secs(),
                "readiness now fails; serving on for the shutdown delay"
            );
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = signals.recv() => {}
            }
        }
        // Stop claiming; the API closes its listener and finishes its open
        // requests within `[server] shutdown_drain_seconds`.
        let _ = stop_tx.send(true);
    };
    relay_api::serve(listener, state, shutdown).await?;
    if let Some(metrics) = metrics {
        metrics.await.context("the metrics listener failed")??;
    }
    engine.await.context("the dispatcher task failed")?;
    if let Some(exporter) = telemetry {
        exporter.finish().await;
    }
    tracing::info!("relay stopped");
    Ok(())
}

/// SIGTERM and SIGINT (Ctrl-C), each listened for from [`Signals::new`] on.
struct Signals {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> anyhow::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                terminate: signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?,
                interrupt: signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next SIGTERM or SIGINT (including one that came before this call).
    async fn recv(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.terminate.recv() => {},
            _ = self.interrupt.recv() => {},
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutdown requested");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_keeps_a_connection_for_every_attempt_that_may_run_at_once() {
        let mut engine = relay_engine::EngineConfig::new("test");
        for max_in_flight in [1, 128, 512, 4096] {
            engine.max_in_flight = max_in_flight;
            let pool = pool_settings(&engine);
            assert!(pool.max_idle_per_host >= max_in_flight);
            assert_eq!(
                pool.idle_timeout,
                relay_net::PoolSettings::default().idle_timeout
            );
        }
    }
}
