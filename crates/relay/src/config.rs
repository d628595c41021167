//! Operator configuration: defaults → `relay.toml` → `RELAY_*` environment → flags.
//!
//! Every layer is merged into one TOML table before it is read, so one set of
//! rules applies to all of them: an unknown key is an error naming the key
//! (and where it came from), and values from the environment, which are always
//! text, are accepted wherever a number is expected. `RELAY_SECTION__KEY`
//! names `key` inside `[section]` (`RELAY_OUTBOUND__ALLOW_PORTS=8443,9443`).
//! Secrets are redacted when the effective configuration is printed.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use anyhow::{Context, bail};
use relay_core::retry::ScheduleBounds;
use relay_net::OutboundConfig;
use serde::Deserialize;
use serde::de::{self, Deserializer};

/// Environment variables with the `RELAY_` prefix that are not configuration keys.
const NOT_CONFIG_ENV: &[&str] = &["RELAY_CONFIG", "RELAY_LOG"];
/// Prefixes of `RELAY_` variables used by tests and tooling, never read as configuration.
const NOT_CONFIG_ENV_PREFIXES: &[&str] = &["RELAY_TEST_", "RELAY_BENCH_"];

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
        }
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
    /// Loads the configuration from every layer.
    pub fn load(flags: &Flags) -> anyhow::Result<Config> {
        let env: Vec<(String, String)> = std::env::vars().collect();
        Self::load_from(flags, &env)
    }

    /// Loads with an explicit environment (tests pass their own).
    pub fn load_from(flags: &Flags, env: &[(String, String)]) -> anyhow::Result<Config> {
        let mut table = toml::Table::new();
        let file = match &flags.config {
            Some(path) => Some(path.clone()),
            None => Some(PathBuf::from("relay.toml")).filter(|p| p.exists()),
        };
        if let Some(path) = &file {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read configuration file {}", path.display()))?;
            table = toml::from_str(&text)
                .with_context(|| format!("{} is not valid TOML", path.display()))?;
            check_keys(&table, &format!("{}", path.display()))?;
        }
        let mut from_env = toml::Table::new();
        for (name, value) in env {
            let Some(key) = name.strip_prefix("RELAY_") else {
                continue;
            };
            if NOT_CONFIG_ENV.contains(&name.as_str())
                || NOT_CONFIG_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
            {
                continue;
            }
            let path: Vec<String> = key.split("__").map(|p| p.to_ascii_lowercase()).collect();
            insert(&mut from_env, &path, toml::Value::String(value.clone()))
                .with_context(|| format!("environment variable {name}"))?;
        }
        check_keys(&from_env, "the environment (RELAY_*)")?;
        merge(&mut table, from_env);
        let mut from_flags = toml::Table::new();
        if let Some(v) = &flags.listen {
            from_flags.insert("listen".into(), v.clone().into());
        }
        if let Some(v) = &flags.data_dir {
            from_flags.insert("data_dir".into(), v.display().to_string().into());
        }
        if let Some(v) = &flags.database_url {
            from_flags.insert("database_url".into(), v.clone().into());
        }
        merge(&mut table, from_flags);
        let config = Config::deserialize(toml::Value::Table(table))
            .map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))?;
        config.validate()?;
        Ok(config)
    }

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
        if self.retention.days == 0 {
            bail!("retention.days must be at least 1");
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
        }
    }

    /// The effective configuration as TOML, secrets redacted.
    pub fn render_redacted(&self) -> String {
        let redacted = |s: &Option<Secret>| match s {
            Some(_) => toml::Value::String("<redacted>".into()),
            None => toml::Value::String("<unset>".into()),
        };
        let mut t = toml::Table::new();
        t.insert("listen".into(), self.listen.clone().into());
        t.insert(
            "data_dir".into(),
            self.data_dir.display().to_string().into(),
        );
        t.insert(
            "database_url".into(),
            redact_url(&self.database_url()).into(),
        );
        t.insert("operator_token".into(), redacted(&self.operator_token));
        t.insert("master_key".into(), redacted(&self.master_key));
        t.insert(
            "master_key_file".into(),
            self.master_key_file
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "<unset>".into())
                .into(),
        );
        t.insert(
            "log_format".into(),
            match self.log_format {
                LogFormat::Text => "text",
                LogFormat::Json => "json",
            }
            .into(),
        );
        t.insert("log_level".into(), self.log_level.clone().into());
        let mut outbound = toml::Table::new();
        let ints = |v: &[u16]| toml::Value::Array(v.iter().map(|p| i64::from(*p).into()).collect());
        let strs = |v: &[String]| toml::Value::Array(v.iter().map(|s| s.clone().into()).collect());
        outbound.insert("allow_ports".into(), ints(&self.outbound.allow_ports));
        outbound.insert("allow_cidrs".into(), strs(&self.outbound.allow_cidrs));
        outbound.insert("block_cidrs".into(), strs(&self.outbound.block_cidrs));
        let cas: Vec<String> = self
            .outbound
            .extra_ca_certs
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        outbound.insert("extra_ca_certs".into(), strs(&cas));
        t.insert("outbound".into(), outbound.into());
        let mut limits = toml::Table::new();
        let l = &self.limits;
        limits.insert(
            "max_request_bytes".into(),
            (l.max_request_bytes as i64).into(),
        );
        limits.insert(
            "endpoints_per_tenant".into(),
            i64::from(l.endpoints_per_tenant).into(),
        );
        limits.insert(
            "endpoints_per_consumer".into(),
            i64::from(l.endpoints_per_consumer).into(),
        );
        limits.insert(
            "max_event_ttl_seconds".into(),
            (l.max_event_ttl_seconds as i64).into(),
        );
        limits.insert(
            "max_endpoint_concurrency".into(),
            i64::from(l.max_endpoint_concurrency).into(),
        );
        t.insert("limits".into(), limits.into());
        let mut retry = toml::Table::new();
        let r = &self.retry;
        retry.insert(
            "min_wait_seconds".into(),
            i64::from(r.min_wait_seconds).into(),
        );
        retry.insert(
            "max_wait_seconds".into(),
            i64::from(r.max_wait_seconds).into(),
        );
        retry.insert("max_attempts".into(), i64::from(r.max_attempts).into());
        retry.insert(
            "max_total_window_seconds".into(),
            (r.max_total_window_seconds as i64).into(),
        );
        t.insert("retry".into(), retry.into());
        let mut delivery = toml::Table::new();
        delivery.insert(
            "lease_seconds".into(),
            i64::try_from(self.delivery.lease_seconds)
                .unwrap_or(i64::MAX)
                .into(),
        );
        delivery.insert(
            "circuit_failure_threshold".into(),
            i64::from(self.delivery.circuit_failure_threshold).into(),
        );
        delivery.insert(
            "circuit_cool_down_seconds".into(),
            i64::try_from(self.delivery.circuit_cool_down_seconds)
                .unwrap_or(i64::MAX)
                .into(),
        );
        delivery.insert(
            "recovery_per_second".into(),
            i64::from(self.delivery.recovery_per_second).into(),
        );
        delivery.insert(
            "shutdown_grace_seconds".into(),
            i64::try_from(self.delivery.shutdown_grace_seconds)
                .unwrap_or(i64::MAX)
                .into(),
        );
        t.insert("delivery".into(), delivery.into());
        let mut retention = toml::Table::new();
        retention.insert("days".into(), i64::from(self.retention.days).into());
        t.insert("retention".into(), retention.into());
        toml::to_string(&t).unwrap_or_default()
    }
}

/// Hides the password of a database URL.
fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let creds = &url[scheme_end + 3..at];
            match creds.find(':') {
                Some(colon) => format!(
                    "{}{}:<redacted>{}",
                    &url[..scheme_end + 3],
                    &creds[..colon],
                    &url[at..]
                ),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
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

/// The sections and keys that exist, for error messages that name the bad key.
const KEYS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "listen",
            "data_dir",
            "database_url",
            "operator_token",
            "master_key",
            "master_key_file",
            "log_format",
            "log_level",
            "outbound",
            "limits",
            "retry",
            "delivery",
            "retention",
        ],
    ),
    (
        "outbound",
        &[
            "allow_ports",
            "allow_cidrs",
            "block_cidrs",
            "extra_ca_certs",
        ],
    ),
    (
        "limits",
        &[
            "max_request_bytes",
            "endpoints_per_tenant",
            "endpoints_per_consumer",
            "max_event_ttl_seconds",
            "max_endpoint_concurrency",
        ],
    ),
    (
        "retry",
        &[
            "min_wait_seconds",
            "max_wait_seconds",
            "max_attempts",
            "max_total_window_seconds",
        ],
    ),
    (
        "delivery",
        &[
            "lease_seconds",
            "circuit_failure_threshold",
            "circuit_cool_down_seconds",
            "recovery_per_second",
            "shutdown_grace_seconds",
        ],
    ),
    ("retention", &["days"]),
];

fn check_keys(table: &toml::Table, origin: &str) -> anyhow::Result<()> {
    fn known(section: &str) -> Option<&'static [&'static str]> {
        KEYS.iter().find(|(s, _)| *s == section).map(|(_, k)| *k)
    }
    for (key, value) in table {
        let top = known("").unwrap_or(&[]);
        if !top.contains(&key.as_str()) {
            bail!("unknown configuration key `{key}` in {origin}");
        }
        if let Some(section_keys) = known(key) {
            let toml::Value::Table(inner) = value else {
                bail!("`{key}` in {origin} must be a section ([{key}])");
            };
            for inner_key in inner.keys() {
                if !section_keys.contains(&inner_key.as_str()) {
                    bail!("unknown configuration key `{key}.{inner_key}` in {origin}");
                }
            }
        }
    }
    Ok(())
}

fn insert(table: &mut toml::Table, path: &[String], value: toml::Value) -> anyhow::Result<()> {
    match path {
        [] => bail!("empty key"),
        [last] => {
            table.insert(last.clone(), value);
            Ok(())
        }
        [first, rest @ ..] => {
            let entry = table
                .entry(first.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            match entry {
                toml::Value::Table(inner) => insert(inner, rest, value),
                _ => bail!("`{first}` is not a section"),
            }
        }
    }
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
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
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_need_no_configuration() {
        let c = Config::load_from(&Flags::default(), &[]).unwrap();
        assert_eq!(c.listen, "127.0.0.1:8080");
        assert_eq!(c.database_url(), "sqlite://./relay-data/relay.db");
        assert!(c.uses_sqlite());
    }

    #[test]
    fn layers_apply_in_order_file_env_flags() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("relay.toml");
        std::fs::write(
            &file,
            "listen = \"127.0.0.1:1000\"\ndata_dir = \"/from/file\"\n[limits]\nendpoints_per_tenant = 7\n[outbound]\nallow_ports = [8443]\n",
        )
        .unwrap();
        let flags = Flags {
            config: Some(file.clone()),
            listen: Some("127.0.0.1:3000".into()),
            ..Default::default()
        };
        let c = Config::load_from(
            &flags,
            &env(&[
                ("RELAY_LISTEN", "127.0.0.1:2000"),
                ("RELAY_DATA_DIR", "/from/env"),
                ("RELAY_LIMITS__ENDPOINTS_PER_CONSUMER", "3"),
                ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.0/8"),
                ("RELAY_TEST_POSTGRES_URL", "postgres://ignored"),
                ("RELAY_CONFIG", "ignored-here"),
                ("HOME", "/root"),
            ]),
        )
        .unwrap();
        assert_eq!(c.listen, "127.0.0.1:3000", "flags win");
        assert_eq!(
            c.data_dir,
            PathBuf::from("/from/env"),
            "environment beats file"
        );
        assert_eq!(c.limits.endpoints_per_tenant, 7, "file beats defaults");
        assert_eq!(
            c.limits.endpoints_per_consumer, 3,
            "numbers from the environment"
        );
        assert_eq!(c.outbound.allow_ports, vec![8443]);
        assert_eq!(c.outbound.allow_cidrs, vec!["127.0.0.0/8".to_string()]);
    }

    /// Every setting `docs/configuration.md` lists is a key the loader
    /// accepts, from a file and from the environment, and every key it
    /// accepts is listed there.
    #[test]
    fn documented_settings_are_the_known_keys() {
        let doc = include_str!("../../../docs/configuration.md");
        let mut documented: Vec<(String, String)> = doc
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split_once('`').map(|(name, _)| name))
            .filter_map(|name| match name.strip_prefix('[') {
                Some(rest) => rest
                    .split_once("] ")
                    .map(|(section, key)| (section.to_string(), key.to_string())),
                None => Some((String::new(), name.to_string())),
            })
            .filter(|(_, key)| key.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            .collect();
        documented.sort();
        let mut known: Vec<(String, String)> = KEYS
            .iter()
            .flat_map(|(section, keys)| keys.iter().map(|k| (section.to_string(), k.to_string())))
            .filter(|(section, key)| {
                // A section's own name among the top-level keys.
                !(section.is_empty() && KEYS.iter().any(|(s, _)| s == key))
            })
            .collect();
        known.sort();
        assert_eq!(documented, known, "docs/configuration.md against KEYS");
        let c = Config::default();
        let rendered = c.render_redacted();
        for (section, key) in &known {
            if section.is_empty() {
                continue;
            }
            assert!(
                rendered.contains(&format!("{key} = ")),
                "`{section}.{key}` is not printed by `config check`"
            );
        }
    }

    #[test]
    fn delivery_settings_load_from_a_file_and_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("relay.toml");
        std::fs::write(
            &file,
            "[delivery]\nrecovery_per_second = 5\nshutdown_grace_seconds = 7\n",
        )
        .unwrap();
        let flags = Flags {
            config: Some(file),
            ..Default::default()
        };
        let c = Config::load_from(&flags, &[]).unwrap();
        assert_eq!(c.delivery.recovery_per_second, 5);
        assert_eq!(c.delivery.shutdown_grace_seconds, 7);
        let c = Config::load_from(
            &Flags::default(),
            &env(&[
                ("RELAY_DELIVERY__RECOVERY_PER_SECOND", "0"),
                ("RELAY_DELIVERY__SHUTDOWN_GRACE_SECONDS", "0"),
            ]),
        )
        .unwrap();
        assert_eq!(c.delivery.recovery_per_second, 0);
        assert_eq!(c.delivery.shutdown_grace_seconds, 0);
        let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
        assert_eq!(defaults.delivery.shutdown_grace_seconds, 25);
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("relay.toml");
        std::fs::write(&file, "[outbound]\nallow_port = [1]\n").unwrap();
        let flags = Flags {
            config: Some(file),
            ..Default::default()
        };
        let err = Config::load_from(&flags, &[]).unwrap_err().to_string();
        assert!(err.contains("outbound.allow_port"), "{err}");
        std::fs::write(dir.path().join("x.toml"), "listn = \"x\"\n").unwrap();
        let flags = Flags {
            config: Some(dir.path().join("x.toml")),
            ..Default::default()
        };
        let err = Config::load_from(&flags, &[]).unwrap_err().to_string();
        assert!(err.contains("`listn`"), "{err}");
        let err = Config::load_from(&Flags::default(), &env(&[("RELAY_LISTN", "x")]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`listn`") && err.contains("environment"),
            "{err}"
        );
        let err = Config::load_from(
            &Flags::default(),
            &env(&[("RELAY_RETRY__MAX_ATTEMPT", "3")]),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("retry.max_attempt"), "{err}");
    }

    #[test]
    fn bad_values_are_errors() {
        for (k, v) in [
            ("RELAY_LISTEN", "nowhere"),
            ("RELAY_DATABASE_URL", "mysql://x"),
            ("RELAY_LIMITS__ENDPOINTS_PER_TENANT", "many"),
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "not-a-cidr"),
            ("RELAY_MASTER_KEY", "short"),
            ("RELAY_RETRY__MAX_ATTEMPTS", "0"),
            ("RELAY_DELIVERY__LEASE_SECONDS", "4"),
        ] {
            assert!(
                Config::load_from(&Flags::default(), &env(&[(k, v)])).is_err(),
                "{k}={v} should be rejected"
            );
        }
    }

    #[test]
    fn secrets_are_redacted_when_printed() {
        let c = Config::load_from(
            &Flags::default(),
            &env(&[
                ("RELAY_OPERATOR_TOKEN", "rop_supersecret"),
                ("RELAY_MASTER_KEY", &"ab".repeat(32)),
                (
                    "RELAY_DATABASE_URL",
                    "postgres://relay:hunter2@db.internal/relay",
                ),
            ]),
        )
        .unwrap();
        let printed = c.render_redacted();
        let debug = format!("{c:?}");
        for secret in ["rop_supersecret", &"ab".repeat(32), "hunter2"] {
            assert!(!printed.contains(secret), "{printed}");
            assert!(!debug.contains(secret), "{debug}");
        }
        assert!(
            printed.contains("postgres://relay:<redacted>@db.internal/relay"),
            "{printed}"
        );
    }

    #[test]
    fn master_keys_take_hex_or_base64() {
        assert!(parse_master_key(&"0f".repeat(32)).is_ok());
        assert!(parse_master_key("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=").is_ok());
        assert!(parse_master_key("AAAA").is_err());
    }
}
