//! `[server]` and `[metrics]`: the HTTP server's protection from slow and
//! hostile clients, the metrics listener, and the strength an operator's
//! tokens must have.

use super::*;

/// `[server]`: how the HTTP server protects itself from slow and hostile
/// clients (`docs/security.md`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Server {
    /// A request's head must arrive within this time (from the connection's
    /// start, or from the first byte of a later request); else `408`.
    #[serde(deserialize_with = "number")]
    pub header_read_timeout_seconds: u64,
    /// A request's body must arrive whole within this time after its head;
    /// else `408`.
    #[serde(deserialize_with = "number")]
    pub body_read_timeout_seconds: u64,
    /// A response must be written whole within this time; a client that
    /// does not read it is cut off.
    #[serde(deserialize_with = "number")]
    pub response_write_timeout_seconds: u64,
    /// A kept-alive connection with no request under way is closed after this time.
    #[serde(deserialize_with = "number")]
    pub idle_timeout_seconds: u64,
    /// Connections served at once (each listener); more are answered `503`.
    #[serde(deserialize_with = "number")]
    pub max_connections: u32,
    /// After `SIGTERM`, how long requests under way may finish before the
    /// connections still open are closed.
    #[serde(deserialize_with = "number")]
    pub shutdown_drain_seconds: u64,
    /// After `SIGTERM`, how long `/readyz` answers `503` while the API (and
    /// the dispatcher) still serve, before the listener closes: the time a
    /// load balancer needs to take this instance out. `0`: close at once.
    #[serde(deserialize_with = "number")]
    pub shutdown_delay_seconds: u64,
    /// What this process runs: `all` (the API and the delivery workers),
    /// `api` (the API alone) or `worker` (the delivery workers, with an HTTP
    /// listener for health, readiness and metrics alone). `relay serve
    /// --role` overrides it.
    #[serde(deserialize_with = "role")]
    pub role: relay_api::Role,
}

/// `[server] role`: one of the names of [`relay_api::Role`]; anything else
/// is refused with the names that exist.
fn role<'de, D: Deserializer<'de>>(d: D) -> Result<relay_api::Role, D::Error> {
    let name = String::deserialize(d)?;
    parse_role(&name).map_err(de::Error::custom)
}

/// The role `name` names, or why not (naming the key and the choices).
fn parse_role(name: &str) -> Result<relay_api::Role, String> {
    relay_api::Role::parse(name).ok_or_else(|| {
        let names: Vec<String> = relay_api::Role::EVERY
            .iter()
            .map(|r| format!("\"{r}\""))
            .collect();
        format!(
            "server.role must be one of {}, not {name:?}",
            names.join(", ")
        )
    })
}

impl Default for Server {
    fn default() -> Self {
        let d = relay_api::server::ServerSettings::default();
        Server {
            header_read_timeout_seconds: d.header_read_timeout.as_secs(),
            body_read_timeout_seconds: d.body_read_timeout.as_secs(),
            response_write_timeout_seconds: d.response_write_timeout.as_secs(),
            idle_timeout_seconds: d.idle_timeout.as_secs(),
            max_connections: u32::try_from(d.max_connections).unwrap_or(u32::MAX),
            shutdown_drain_seconds: d.shutdown_drain.as_secs(),
            shutdown_delay_seconds: 0,
            role: relay_api::Role::All,
        }
    }
}

/// The most `[server] max_connections` accepts.
pub const MAX_CONNECTIONS: u32 = 1_000_000;

impl Server {
    pub fn settings(&self) -> relay_api::server::ServerSettings {
        let secs = std::time::Duration::from_secs;
        relay_api::server::ServerSettings {
            header_read_timeout: secs(self.header_read_timeout_seconds),
            body_read_timeout: secs(self.body_read_timeout_seconds),
            response_write_timeout: secs(self.response_write_timeout_seconds),
            idle_timeout: secs(self.idle_timeout_seconds),
            max_connections: self.max_connections as usize,
            shutdown_drain: secs(self.shutdown_drain_seconds),
        }
    }

    /// `shutdown_delay_seconds` as a duration.
    pub fn shutdown_delay(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.shutdown_delay_seconds)
    }

    pub(super) fn validate(&self) -> anyhow::Result<()> {
        for (key, value) in [
            (
                "header_read_timeout_seconds",
                self.header_read_timeout_seconds,
            ),
            ("body_read_timeout_seconds", self.body_read_timeout_seconds),
            (
                "response_write_timeout_seconds",
                self.response_write_timeout_seconds,
            ),
            ("idle_timeout_seconds", self.idle_timeout_seconds),
        ] {
            if !(1..=86_400).contains(&value) {
                bail!("server.{key} must be between 1 and 86400");
            }
        }
        if !(1..=MAX_CONNECTIONS).contains(&self.max_connections) {
            bail!("server.max_connections must be between 1 and {MAX_CONNECTIONS}");
        }
        if self.shutdown_drain_seconds > 3600 {
            bail!("server.shutdown_drain_seconds must be at most 3600");
        }
        if self.shutdown_delay_seconds > 3600 {
            bail!("server.shutdown_delay_seconds must be at most 3600");
        }
        Ok(())
    }
}

/// `[metrics]`: where `/metrics` is served and whether it asks for a token.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Metrics {
    /// An address of its own for `/metrics` (`127.0.0.1:9090`); then the
    /// API's listener no longer serves it.
    pub listen: Option<String>,
    /// A bearer token `/metrics` asks for.
    pub token: Option<Secret>,
    /// Label outcome counters with the tenant id as well (off: labels never
    /// carry tenant ids).
    #[serde(deserialize_with = "relay_net::config::boolean")]
    pub tenant_labels: bool,
}

impl Metrics {
    pub(super) fn validate(&self, api_listen: &str) -> anyhow::Result<()> {
        if let Some(listen) = &self.listen {
            let addr = listen.parse::<std::net::SocketAddr>().with_context(|| {
                format!("metrics.listen: {listen:?} is not an address such as 127.0.0.1:9090")
            })?;
            if addr.port() != 0 && api_listen.parse::<std::net::SocketAddr>().ok() == Some(addr) {
                bail!("metrics.listen must differ from listen");
            }
        }
        if let Some(token) = &self.token {
            check_token_strength("metrics.token", token.expose())?;
        }
        Ok(())
    }

    pub fn access(&self) -> relay_api::MetricsAccess {
        relay_api::MetricsAccess {
            separate_listener: self.listen.is_some(),
            token_sha256: self
                .token
                .as_ref()
                .map(|t| relay_api::auth::token_digest(t.expose())),
        }
    }
}

/// The fewest characters a configured token (`operator_token`,
/// `[metrics] token`) may have.
pub const MIN_TOKEN_CHARS: usize = 32;
/// The fewest different characters it may use: a long token of one or two
/// repeated characters guesses as easily as a short one.
pub const MIN_TOKEN_DISTINCT_CHARS: usize = 8;

/// Refuses a configured token that is easy to guess: shorter than
/// [`MIN_TOKEN_CHARS`], with fewer than [`MIN_TOKEN_DISTINCT_CHARS`]
/// different characters, or with characters other than printable ASCII.
/// The message never quotes the token.
pub fn check_token_strength(key: &str, token: &str) -> anyhow::Result<()> {
    const HOW: &str =
        "use at least 32 random characters, e.g. the output of `openssl rand -hex 32`";
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        bail!("{key} must be printable ASCII without spaces; {HOW}");
    }
    if token.len() < MIN_TOKEN_CHARS {
        bail!(
            "{key} is too short ({} characters, at least {MIN_TOKEN_CHARS} are required); {HOW}",
            token.len()
        );
    }
    let distinct = token
        .bytes()
        .collect::<std::collections::BTreeSet<u8>>()
        .len();
    if distinct < MIN_TOKEN_DISTINCT_CHARS {
        bail!("{key} is too easy to guess (only {distinct} different characters); {HOW}");
    }
    Ok(())
}
