//! Operator configuration: defaults → `relay.toml` → `RELAY_*` environment → flags.
//!
//! Every layer is merged into one TOML table before it is read, so one set of
//! rules applies to all of them: an unknown key is an error naming the key
//! (and where it came from), and values from the environment, which are always
//! text, are accepted wherever a number is expected. `RELAY_SECTION__KEY`
//! names `key` inside `[section]` (`RELAY_OUTBOUND__ALLOW_PORTS=8443,9443`).
//! Secrets are redacted when the effective configuration is printed.
//!
//! This module holds the configuration's types, their defaults and the
//! checks of their values, the larger sections in modules of their own
//! (`server` with `[metrics]`, `secrets`, `store`, `telemetry`); `env` says
//! which variables are configuration, `layers` reads and merges the
//! layers, `render` prints the effective configuration (`relay config
//! check`).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use anyhow::{Context, bail};
use relay_core::retry::ScheduleBounds;
use relay_net::OutboundConfig;
use serde::Deserialize;
use serde::de::{self, Deserializer};

mod aws;
mod env;
mod gcp;
mod layers;
mod render;
mod telemetry;

pub use aws::Aws;
pub use gcp::Gcp;
pub use telemetry::Telemetry;
mod secrets;
mod server;
mod store;

pub use secrets::Secrets;
pub use server::{Metrics, Server, check_token_strength};
pub use store::Store;

/// A secret value: prints as `<redacted>` in `Debug`, never in full.
#[derive(Clone, Deserialize, PartialEq, Eq)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Address the API listens on.
    pub listen: String,
    /// Directory for the SQLite database and generated files.
    pub data_dir: PathBuf,
    /// `sqlite://…` or `postgres://…`; defaults to `sqlite://<data_dir>/relay.db`.
    pub database_url: Option<Secret>,
    /// The operator token; generated on first start when absent (only its hash is stored).
    pub operator_token: Option<Secret>,
    /// The master key that encrypts signing keys at rest (32 bytes, hex or
    /// base64), or a reference to it (`env:NAME`, `file:/path`).
    pub master_key: Option<Secret>,
    /// A file holding the master key, instead of `master_key`.
    pub master_key_file: Option<PathBuf>,
    /// During a rotation (`relay keys rotate-master`): the key values were
    /// sealed with before, still read; as `master_key`.
    pub master_key_previous: Option<Secret>,
    /// A file holding the previous master key, instead of `master_key_previous`.
    pub master_key_previous_file: Option<PathBuf>,
    /// `text` or `json`.
    pub log_format: LogFormat,
    /// A `tracing` filter such as `info` or `relay=debug,info`.
    pub log_level: String,
    pub outbound: OutboundConfig,
    pub limits: Limits,
    pub retry: RetryBounds,
    pub delivery: Delivery,
    pub retention: Retention,
    /// This installation's public base URL (`https://relay.example.com`):
    /// inbound sources answer the URL to give a provider below it.
    pub public_url: Option<String>,
    pub inbound: Inbound,
    pub secrets: Secrets,
    pub server: Server,
    pub metrics: Metrics,
    pub telemetry: Telemetry,
    /// `[aws]`: the installation's AWS identity (role credentials).
    pub aws: Aws,
    /// `[gcp]`: the installation's Google workload identity (Pub/Sub).
    pub gcp: Gcp,
    /// `[store]`: PostgreSQL's pool and timeouts.
    pub store: Store,
    /// The configuration file this was read from, if any (never readable
    /// through a secret reference).
    #[serde(skip)]
    pub config_file: Option<PathBuf>,
    /// Where each value set by a layer came from, by dotted key
    /// (`limits.endpoints_per_tenant` → `env RELAY_LIMITS__ENDPOINTS_PER_TENANT`);
    /// a key missing here has its default.
    #[serde(skip)]
    pub sources: std::collections::BTreeMap<String, String>,
    /// `relay serve --allow-destructive-migrations` (a flag, not a key).
    #[serde(skip)]
    pub allow_destructive_migrations: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: "127.0.0.1:8080".into(),
            data_dir: PathBuf::from("./relay-data"),
            database_url: None,
            operator_token: None,
            master_key: None,
            master_key_file: None,
            master_key_previous: None,
            master_key_previous_file: None,
            log_format: LogFormat::Text,
            log_level: "info".into(),
            outbound: OutboundConfig::default(),
            limits: Limits::default(),
            retry: RetryBounds::default(),
            delivery: Delivery::default(),
            retention: Retention::default(),
            public_url: None,
            inbound: Inbound::default(),
            secrets: Secrets::default(),
            server: Server::default(),
            metrics: Metrics::default(),
            telemetry: Telemetry::default(),
            aws: Aws::default(),
            gcp: Gcp::default(),
            store: Store::default(),
            config_file: None,
            sources: Default::default(),
            allow_destructive_migrations: false,
        }
    }
}

/// `[inbound]`: inbound provider webhooks (`docs/inbound.md`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Inbound {
    /// Whether this node writes verified receipts to the ledger; a node
    /// that only receives leaves them to the others.
    #[serde(deserialize_with = "relay_net::config::boolean")]
    pub processing: bool,
}

impl Default for Inbound {
    fn default() -> Self {
        Inbound { processing: true }
    }
}

/// A list written as one (TOML) or as comma-separated text (environment variables).
fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        List(Vec<String>),
        Text(String),
    }
    Ok(match Raw::deserialize(d)? {
        Raw::List(l) => l,
        Raw::Text(s) => s
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// `[limits]`: what tenants may ask of the installation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    #[serde(deserialize_with = "number")]
    pub max_request_bytes: usize,
    #[serde(deserialize_with = "number")]
    pub endpoints_per_tenant: u32,
    #[serde(deserialize_with = "number")]
    pub endpoints_per_consumer: u32,
    #[serde(deserialize_with = "number")]
    pub max_event_ttl_seconds: u64,
    #[serde(deserialize_with = "number")]
    pub max_endpoint_concurrency: u32,
}

impl Default for Limits {
    fn default() -> Self {
        let api = relay_api::ApiSettings::default();
        Limits {
            max_request_bytes: api.max_request_bytes,
            endpoints_per_tenant: api.endpoint_limits.per_tenant,
            endpoints_per_consumer: api.endpoint_limits.per_consumer,
            max_event_ttl_seconds: api.max_event_ttl_seconds,
            max_endpoint_concurrency: api.max_endpoint_concurrency,
        }
    }
}

/// `[retry]`: the bounds a per-endpoint retry schedule must respect.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryBounds {
    #[serde(deserialize_with = "number")]
    pub min_wait_seconds: u32,
    #[serde(deserialize_with = "number")]
    pub max_wait_seconds: u32,
    #[serde(deserialize_with = "number")]
    pub max_attempts: u32,
    #[serde(deserialize_with = "number")]
    pub max_total_window_seconds: u64,
}

impl Default for RetryBounds {
    fn default() -> Self {
        let b = ScheduleBounds::DEFAULT;
        RetryBounds {
            min_wait_seconds: b.min_wait_seconds,
            max_wait_seconds: b.max_wait_seconds,
            max_attempts: b.max_attempts,
            max_total_window_seconds: b.max_total_window_seconds,
        }
    }
}

impl RetryBounds {
    pub fn bounds(&self) -> ScheduleBounds {
        ScheduleBounds {
            min_wait_seconds: self.min_wait_seconds,
            max_wait_seconds: self.max_wait_seconds,
            max_attempts: self.max_attempts,
            max_total_window_seconds: self.max_total_window_seconds,
        }
    }
}

/// `[retention]`: how long events, messages and attempts are kept.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Retention {
    #[serde(deserialize_with = "number")]
    pub days: u32,
}

impl Default for Retention {
    fn default() -> Self {
        Retention { days: 30 }
    }
}

/// `[delivery]`: how the dispatcher holds the messages it works on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Delivery {
    /// How long a claimed message stays leased to this process; after a crash,
    /// its messages are attempted again once their leases expire. At least
    /// the longest attempt and the margin (`relay_engine::shortest_lease`):
    /// a shorter lease is refused.
    #[serde(deserialize_with = "number")]
    pub lease_seconds: u64,
    /// The longest one attempt's request may take (connection, request,
    /// response head and body prefix); longer, it fails as a timeout.
    #[serde(deserialize_with = "number")]
    pub request_timeout_seconds: u64,
    /// Consecutive retried failures that open an endpoint's circuit.
    #[serde(deserialize_with = "number")]
    pub circuit_failure_threshold: u32,
    /// How long an open circuit waits before letting a probe through.
    #[serde(deserialize_with = "number")]
    pub circuit_cool_down_seconds: u64,
    /// How many probes a half-open circuit lets through at once (at least 1).
    #[serde(deserialize_with = "number")]
    pub circuit_half_open_probes: u32,
    /// Recovery attempts (recover, bulk retry, replay) started per second at
    /// most (with several nodes on PostgreSQL, between them all); 0 for no
    /// limit.
    #[serde(deserialize_with = "number")]
    pub recovery_per_second: u32,
    /// Recovery attempts in flight at once at most (with several nodes on
    /// PostgreSQL, between them all), so the rest of the in-flight slots
    /// stay free for live traffic; at least 1.
    #[serde(deserialize_with = "number")]
    pub max_recovery_in_flight: u32,
    /// How long attempts in flight may finish after shutdown is requested;
    /// those still running are then abandoned and their leases released.
    #[serde(deserialize_with = "number")]
    pub shutdown_grace_seconds: u64,
    /// Manual attempts (resends, test sends) per endpoint that may wait for
    /// its lane or run at once on each node; one more is answered `429`.
    #[serde(deserialize_with = "number")]
    pub manual_pending_per_endpoint: u32,
    /// Whose receivers prove ownership before deliveries: `opt_in` (the
    /// HTTPS endpoints that ask, the default) or `required` (every HTTPS
    /// endpoint created or changed).
    pub ownership_proof: relay_api::OwnershipProof,
}

impl Default for Delivery {
    fn default() -> Self {
        // The engine's own defaults, where it has them.
        let engine = relay_engine::EngineConfig::new("defaults");
        Delivery {
            lease_seconds: 60,
            request_timeout_seconds: engine.limits.total_timeout.as_secs(),
            circuit_failure_threshold: 5,
            circuit_cool_down_seconds: 30,
            circuit_half_open_probes: 3,
            recovery_per_second: engine.recovery_per_second,
            max_recovery_in_flight: u32::try_from(engine.max_recovery_in_flight)
                .unwrap_or(u32::MAX),
            shutdown_grace_seconds: engine.shutdown_grace.as_secs(),
            manual_pending_per_endpoint: engine.manual_pending_per_endpoint,
            ownership_proof: relay_api::OwnershipProof::OptIn,
        }
    }
}

impl Delivery {
    /// A lease shorter than an attempt can take (and the margin) could
    /// expire under an attempt still on the wire: another node would send
    /// the message again. Refused, saying what the least lease is and why.
    fn validate_lease(&self) -> anyhow::Result<()> {
        let timeout = self.request_timeout_seconds;
        if timeout == 0 {
            bail!("delivery.request_timeout_seconds must be at least 1");
        }
        let shortest = relay_engine::shortest_lease(std::time::Duration::from_secs(timeout));
        let shortest = shortest.as_secs() + u64::from(shortest.subsec_nanos() > 0);
        if self.lease_seconds < shortest {
            bail!(
                "delivery.lease_seconds is {}, but must be at least {shortest}: an attempt can take \
                 delivery.request_timeout_seconds ({timeout} s) plus {} s, and a lease must also \
                 cover writing its outcome and the nodes' clock disagreement ({} s); a shorter \
                 lease could expire while the attempt is still on the wire, and another node would \
                 send the message again",
                self.lease_seconds,
                relay_engine::ATTEMPT_OVERRUN.as_secs(),
                relay_engine::LEASE_MARGIN.as_secs(),
            );
        }
        Ok(())
    }
}

/// A number written as a number (TOML) or as text (environment variables).
fn number<'de, T, D>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr + TryFrom<i64>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Int(i64),
        Text(String),
    }
    match Raw::deserialize(d)? {
        Raw::Int(i) => {
            T::try_from(i).map_err(|_| de::Error::custom(format!("{i} is out of range")))
        }
        Raw::Text(s) => s
            .trim()
            .parse()
            .map_err(|_| de::Error::custom(format!("{s:?} is not a valid number"))),
    }
}

/// Flags given on the command line; they override everything else.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct Flags {
    /// Configuration file (default: ./relay.toml when it exists).
    #[arg(long, env = "RELAY_CONFIG")]
    pub config: Option<PathBuf>,
    /// Address to listen on, e.g. 127.0.0.1:8080.
    #[arg(long)]
    pub listen: Option<String>,
    /// Data directory for the SQLite database and generated files.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Database URL: sqlite://path or postgres://user@host/db.
    #[arg(long)]
    pub database_url: Option<String>,
    /// `relay serve --role` (`all`, `api` or `worker`): overrides `[server]
    /// role`. Not a flag of every command, so set by the ones that take it.
    #[arg(skip)]
    pub role: Option<String>,
}

impl Config {
    fn validate(&self) -> anyhow::Result<()> {
        self.listen
            .parse::<std::net::SocketAddr>()
            .with_context(|| {
                format!(
                    "listen: {:?} is not an address such as 127.0.0.1:8080",
                    self.listen
                )
            })?;
        let url = self.database_url();
        if !(url.starts_with("sqlite:")
            || url.starts_with("postgres://")
            || url.starts_with("postgresql://"))
        {
            bail!("database_url must start with sqlite:// or postgres://");
        }
        crate::keys::validate(self)?;
        if let Some(t) = &self.operator_token {
            check_token_strength("operator_token", t.expose())?;
        }
        self.server.validate()?;
        self.metrics.validate(&self.listen)?;
        self.telemetry.validate()?;
        self.aws.validate()?;
        self.gcp.validate()?;
        self.store.validate()?;
        self.outbound.validate()?;
        self.retry
            .bounds()
            .validate()
            .map_err(|e| anyhow::anyhow!("retry: {e}"))?;
        if self.limits.max_request_bytes < 1024 {
            bail!("limits.max_request_bytes must be at least 1024");
        }
        self.delivery.validate_lease()?;
        if self.delivery.circuit_failure_threshold == 0 {
            bail!("delivery.circuit_failure_threshold must be at least 1");
        }
        if self.delivery.circuit_half_open_probes == 0 {
            bail!("delivery.circuit_half_open_probes must be at least 1");
        }
        if self.delivery.max_recovery_in_flight == 0 {
            bail!("delivery.max_recovery_in_flight must be at least 1");
        }
        if self.delivery.manual_pending_per_endpoint == 0 {
            bail!("delivery.manual_pending_per_endpoint must be at least 1");
        }
        if self.retention.days == 0 {
            bail!("retention.days must be at least 1");
        }
        self.secrets.validate(&self.protected_paths())?;
        if let Some(url) = &self.public_url {
            let authority = url.split("://").nth(1).unwrap_or_default();
            let authority = authority.split('/').next().unwrap_or_default();
            let ok = (url.starts_with("https://") || url.starts_with("http://"))
                && !url.contains(['?', '#'])
                && !authority.contains('@')
                && url.len() <= 2048;
            if !ok {
                bail!(
                    "public_url must be an http(s) URL without credentials, a query or a fragment"
                );
            }
        }
        Ok(())
    }

    /// What no secret reference may read, as absolute paths: the
    /// configuration file, the master key file, the data directory (where
    /// a generated master key and operator token live) and a SQLite
    /// database with its journal files.
    pub fn protected_paths(&self) -> Vec<String> {
        let absolute = |p: &std::path::Path| {
            std::path::absolute(p)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| p.display().to_string())
        };
        let mut paths: Vec<String> = [
            self.config_file.as_deref(),
            self.master_key_file.as_deref(),
            self.master_key_previous_file.as_deref(),
            Some(self.data_dir.as_path()),
        ]
        .into_iter()
        .flatten()
        .map(absolute)
        .collect();
        // A master key named by a `file:` reference.
        for key in [&self.master_key, &self.master_key_previous]
            .into_iter()
            .flatten()
        {
            if let Some(Ok(path)) = crate::keys::reference(key) {
                paths.push(absolute(&path));
            }
        }
        if let Some(db) = self
            .database_url()
            .strip_prefix("sqlite://")
            .map(|rest| rest.split('?').next().unwrap_or(rest).to_string())
            .filter(|p| !p.is_empty() && p != ":memory:")
        {
            let db = absolute(std::path::Path::new(&db));
            paths.extend([format!("{db}-wal"), format!("{db}-shm"), db]);
        }
        paths
    }

    /// The database URL in effect.
    pub fn database_url(&self) -> String {
        match &self.database_url {
            Some(u) => u.expose().to_string(),
            None => format!("sqlite://{}", self.data_dir.join("relay.db").display()),
        }
    }

    pub fn uses_sqlite(&self) -> bool {
        self.database_url().starts_with("sqlite:")
    }

    pub fn api_settings(&self) -> relay_api::ApiSettings {
        relay_api::ApiSettings {
            max_request_bytes: self.limits.max_request_bytes,
            endpoint_limits: relay_store::EndpointLimits {
                per_tenant: self.limits.endpoints_per_tenant,
                per_consumer: self.limits.endpoints_per_consumer,
            },
            retry_bounds: self.retry.bounds(),
            max_event_ttl_seconds: self.limits.max_event_ttl_seconds,
            max_endpoint_concurrency: self.limits.max_endpoint_concurrency,
            retention_days: self.retention.days,
            public_url: self.public_url.clone(),
            server: self.server.settings(),
            metrics: self.metrics.access(),
            role: self.server.role,
            ownership_proof: self.delivery.ownership_proof,
        }
    }
}

/// A master key: 32 bytes as 64 hex digits or standard base64.
pub fn parse_master_key(text: &str) -> anyhow::Result<[u8; 32]> {
    let text = text.trim();
    let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        hex::decode(text).context("invalid hex")?
    } else {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|_| anyhow::anyhow!("expected 32 bytes as 64 hex digits or base64"))?
    };
    bytes
        .try_into()
        .map_err(|_| anyhow::anyhow!("expected exactly 32 bytes (64 hex digits or base64)"))
}

/// Writes `contents` to a new file at `path`, readable by the owner only.
pub fn write_private_file(path: &std::path::Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    options.open(path)?.write_all(contents.as_bytes())
}

#[cfg(test)]
mod tests;
