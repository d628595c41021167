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
//! checks of their values; `layers` reads and merges the layers, `render`
//! prints the effective configuration (`relay config check`).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use anyhow::{Context, bail};
use relay_core::retry::ScheduleBounds;
use relay_net::OutboundConfig;
use serde::Deserialize;
use serde::de::{self, Deserializer};

mod layers;
mod render;

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
    /// The master key that encrypts signing keys at rest (32 bytes, hex or base64).
    pub master_key: Option<Secret>,
    /// A file holding the master key, instead of `master_key`.
    pub master_key_file: Option<PathBuf>,
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
        }
    }
}

/// `[inbound]`: inbound provider webhooks (`docs/inbound.md`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Inbound {
    /// Whether this node writes verified receipts to the ledger; a node
    /// that only receives leaves them to the others.
    #[serde(deserialize_with = "boolean")]
    pub processing: bool,
}

impl Default for Inbound {
    fn default() -> Self {
        Inbound { processing: true }
    }
}

/// `[secrets]`: what tenants' secret references may name besides their own
/// tenant secrets (`docs/security.md`). By default neither `env:` nor
/// `file:` references are allowed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Secrets {
    /// `env:NAME` is allowed when NAME starts with one of these prefixes.
    #[serde(deserialize_with = "strings")]
    pub allow_env_prefixes: Vec<String>,
    /// `file:/path` is allowed when the path is inside one of these
    /// absolute directories (checked again once links are followed).
    #[serde(deserialize_with = "strings")]
    pub allow_file_dirs: Vec<String>,
    /// How often an endpoint's references are resolved again (a changed
    /// value rebuilds its client); a tenant secret replaced through this
    /// node's API is noticed at once.
    #[serde(deserialize_with = "number")]
    pub refresh_seconds: u64,
}

impl Default for Secrets {
    fn default() -> Self {
        Secrets {
            allow_env_prefixes: Vec::new(),
            allow_file_dirs: Vec::new(),
            refresh_seconds: 30,
        }
    }
}

impl Secrets {
    pub fn policy(&self) -> relay_core::secret::SecretPolicy {
        relay_core::secret::SecretPolicy {
            allow_env_prefixes: self.allow_env_prefixes.clone(),
            allow_file_dirs: self.allow_file_dirs.clone(),
        }
    }

    /// Refuses what would let a tenant read Relay's own configuration: an
    /// empty prefix or one matching `RELAY_…` variables (the master key,
    /// the database URL), a relative directory, or one holding the data
    /// directory or the master key file.
    fn validate(
        &self,
        data_dir: &std::path::Path,
        master_key_file: Option<&std::path::Path>,
    ) -> anyhow::Result<()> {
        for p in &self.allow_env_prefixes {
            if p.is_empty() || "RELAY_".starts_with(p.as_str()) || p.starts_with("RELAY_") {
                bail!(
                    "secrets.allow_env_prefixes: {p:?} would let tenants read Relay's own RELAY_ variables; use a prefix of your own (APP_SECRET_)"
                );
            }
        }
        let absolute = |p: &std::path::Path| {
            std::path::absolute(p)
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        };
        let protected: Vec<String> = std::iter::once(absolute(data_dir))
            .chain(master_key_file.map(absolute))
            .collect();
        for d in &self.allow_file_dirs {
            let trimmed = d.trim_end_matches('/');
            let plain = trimmed
                .strip_prefix('/')
                .is_none_or(|rest| rest.split('/').all(|c| !matches!(c, "" | "." | "..")));
            if !d.starts_with('/') || !plain {
                bail!(
                    "secrets.allow_file_dirs: {d:?} is not an absolute directory without `.` or `..`"
                );
            }
            if protected
                .iter()
                .any(|p| p == d.trim_end_matches('/') || relay_core::secret::path_inside(p, d))
            {
                bail!(
                    "secrets.allow_file_dirs: {d:?} holds the data directory or the master key file"
                );
            }
        }
        if self.refresh_seconds == 0 {
            bail!("secrets.refresh_seconds must be at least 1");
        }
        Ok(())
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

/// A boolean written as one (TOML) or as text (environment variables).
fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Bool(bool),
        Text(String),
    }
    match Raw::deserialize(d)? {
        Raw::Bool(b) => Ok(b),
        Raw::Text(s) => match s.trim() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(de::Error::custom(format!("{s:?} is not true or false"))),
        },
    }
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
    /// its messages are attempted again once their leases expire. Keep it
    /// above the 20 s whole-request timeout in production.
    #[serde(deserialize_with = "number")]
    pub lease_seconds: u64,
    /// Consecutive retried failures that open an endpoint's circuit.
    #[serde(deserialize_with = "number")]
    pub circuit_failure_threshold: u32,
    /// How long an open circuit waits before letting a probe through.
    #[serde(deserialize_with = "number")]
    pub circuit_cool_down_seconds: u64,
    /// Recovery attempts (recover, bulk retry, replay) started per second at
    /// most by each node; 0 for no limit.
    #[serde(deserialize_with = "number")]
    pub recovery_per_second: u32,
    /// How long attempts in flight may finish after shutdown is requested;
    /// those still running are then abandoned and their leases released.
    #[serde(deserialize_with = "number")]
    pub shutdown_grace_seconds: u64,
    /// Manual attempts (resends, test sends) per endpoint that may wait for
    /// its lane or run at once on each node; one more is answered `429`.
    #[serde(deserialize_with = "number")]
    pub manual_pending_per_endpoint: u32,
}

/// The shortest lease `[delivery] lease_seconds` accepts.
pub const MIN_LEASE_SECONDS: u64 = 5;

impl Default for Delivery {
    fn default() -> Self {
        // The engine's own defaults, where it has them.
        let engine = relay_engine::EngineConfig::new("defaults");
        Delivery {
            lease_seconds: 60,
            circuit_failure_threshold: 5,
            circuit_cool_down_seconds: 30,
            recovery_per_second: engine.recovery_per_second,
            shutdown_grace_seconds: engine.shutdown_grace.as_secs(),
            manual_pending_per_endpoint: engine.manual_pending_per_endpoint,
        }
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
        if self.master_key.is_some() && self.master_key_file.is_some() {
            bail!("set master_key or master_key_file, not both");
        }
        if let Some(k) = &self.master_key {
            parse_master_key(k.expose()).context("master_key")?;
        }
        self.outbound.validate()?;
        self.retry
            .bounds()
            .validate()
            .map_err(|e| anyhow::anyhow!("retry: {e}"))?;
        if self.limits.max_request_bytes < 1024 {
            bail!("limits.max_request_bytes must be at least 1024");
        }
        if self.delivery.lease_seconds < MIN_LEASE_SECONDS {
            bail!("delivery.lease_seconds must be at least {MIN_LEASE_SECONDS}");
        }
        if self.delivery.circuit_failure_threshold == 0 {
            bail!("delivery.circuit_failure_threshold must be at least 1");
        }
        if self.delivery.manual_pending_per_endpoint == 0 {
            bail!("delivery.manual_pending_per_endpoint must be at least 1");
        }
        if self.retention.days == 0 {
            bail!("retention.days must be at least 1");
        }
        self.secrets
            .validate(&self.data_dir, self.master_key_file.as_deref())?;
        if let Some(url) = &self.public_url {
            let ok = (url.starts_with("https://") || url.starts_with("http://"))
                && !url.contains(['?', '#'])
                && url.len() <= 2048;
            if !ok {
                bail!("public_url must be an http(s) URL without a query or fragment");
            }
        }
        Ok(())
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
