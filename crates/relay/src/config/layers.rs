//! The layers merged into one TOML table, then read as a [`Config`]:
//! defaults → `relay.toml` → `RELAY_*` environment → flags; an unknown key is
//! an error naming the key and where it came from.

use std::path::PathBuf;

use anyhow::{Context, bail};
use serde::Deserialize;

use super::{Config, Flags};

impl Config {
    /// Loads the configuration from every layer.
    pub fn load(flags: &Flags) -> anyhow::Result<Config> {
        let env: Vec<(String, String)> = std::env::vars().collect();
        Self::load_from(flags, &env)
    }

    /// Loads with an explicit environment (tests pass their own).
    pub fn load_from(flags: &Flags, env: &[(String, String)]) -> anyhow::Result<Config> {
        let mut table = toml::Table::new();
        let mut sources = std::collections::BTreeMap::new();
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
            note_sources(&mut sources, &table, "", &|_| {
                format!("file {}", path.display())
            });
        }
        let mut from_env = toml::Table::new();
        for (name, value) in env {
            if !super::env::is_configuration(name, value) {
                continue;
            }
            let Some(key) = name.strip_prefix("RELAY_") else {
                continue;
            };
            let path: Vec<String> = key.split("__").map(|p| p.to_ascii_lowercase()).collect();
            insert(&mut from_env, &path, toml::Value::String(value.clone()))
                .with_context(|| format!("environment variable {name}"))?;
            sources.insert(path.join("."), format!("env {name}"));
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
        note_sources(&mut sources, &from_flags, "", &|key| {
            format!("flag --{}", key.replace('_', "-"))
        });
        if let Some(role) = &flags.role {
            let mut server = toml::Table::new();
            server.insert("role".into(), role.clone().into());
            from_flags.insert("server".into(), server.into());
            sources.insert("server.role".into(), "flag --role".into());
        }
        merge(&mut table, from_flags);
        let mut config = Config::deserialize(toml::Value::Table(table))
            .map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))?;
        config.config_file = file;
        config.sources = sources;
        config.validate()?;
        Ok(config)
    }
}

/// The sections and keys that exist, for error messages that name the bad key.
pub(super) const KEYS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "listen",
            "data_dir",
            "database_url",
            "operator_token",
            "master_key",
            "master_key_file",
            "master_key_previous",
            "master_key_previous_file",
            "log_format",
            "log_level",
            "outbound",
            "limits",
            "retry",
            "delivery",
            "retention",
            "public_url",
            "inbound",
            "secrets",
            "server",
            "metrics",
            "telemetry",
            "aws",
            "gcp",
            "store",
        ],
    ),
    (
        "outbound",
        &[
            "allow_ports",
            "allow_cidrs",
            "block_cidrs",
            "extra_ca_certs",
            "allow_plaintext_credentials_to_loopback",
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
            "request_timeout_seconds",
            "circuit_failure_threshold",
            "circuit_cool_down_seconds",
            "circuit_half_open_probes",
            "recovery_per_second",
            "max_recovery_in_flight",
            "shutdown_grace_seconds",
            "manual_pending_per_endpoint",
            "ownership_proof",
        ],
    ),
    ("retention", &["days"]),
    ("inbound", &["processing"]),
    (
        "server",
        &[
            "header_read_timeout_seconds",
            "body_read_timeout_seconds",
            "response_write_timeout_seconds",
            "idle_timeout_seconds",
            "max_connections",
            "shutdown_drain_seconds",
            "shutdown_delay_seconds",
            "role",
        ],
    ),
    ("metrics", &["listen", "token", "tenant_labels"]),
    ("telemetry", &["otlp_endpoint", "service_name"]),
    (
        "aws",
        &[
            "external_id_secret",
            "access_key_id",
            "secret_access_key",
            "session_token",
            "web_identity_token_file",
            "role_arn",
            "credential_source",
            "metadata_endpoint",
            "container_credentials_url",
            "container_token_file",
            "sts_endpoint",
            "region",
        ],
    ),
    (
        "gcp",
        &["workload_identity", "metadata_endpoint", "projects"],
    ),
    (
        "store",
        &[
            "pool_size",
            "connect_timeout_seconds",
            "statement_timeout_seconds",
        ],
    ),
    ("secrets", &["grants", "refresh_seconds"]),
];

/// Keys of earlier versions that are refused with the reason and what
/// replaces them, rather than as unknown.
const RETIRED: &[(&str, &str, &str)] = &[
    ("secrets", "allow_env_prefixes", GRANT_INSTEAD),
    ("secrets", "allow_file_dirs", GRANT_INSTEAD),
];

const GRANT_INSTEAD: &str = "it let every tenant name what it allowed; grant env: and file: \
     references per tenant instead:\n\n[[secrets.grants]]\ntenant = \"ten_…\"\n\
     env_prefixes = [\"ACME_\"]\nfile_dirs = [\"/run/secrets/acme\"]";

fn check_keys(table: &toml::Table, origin: &str) -> anyhow::Result<()> {
    fn known(section: &str) -> Option<&'static [&'static str]> {
        KEYS.iter().find(|(s, _)| *s == section).map(|(_, k)| *k)
    }
    if let Some((section, key, why)) = RETIRED.iter().find(|(section, key, _)| {
        table
            .get(*section)
            .and_then(|v| v.as_table())
            .is_some_and(|t| t.contains_key(*key))
    }) {
        bail!("`{section}.{key}` in {origin} is no longer accepted: {why}");
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

/// Records `source(key)` as where each leaf of `table` came from, by its
/// dotted path (`limits.endpoints_per_tenant`; an array is one leaf).
fn note_sources(
    sources: &mut std::collections::BTreeMap<String, String>,
    table: &toml::Table,
    prefix: &str,
    source: &dyn Fn(&str) -> String,
) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            toml::Value::Table(inner) => note_sources(sources, inner, &path, source),
            _ => {
                let from = source(&path);
                sources.insert(path, from);
            }
        }
    }
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
