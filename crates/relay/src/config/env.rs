//! Which environment variables are Relay's configuration.
//!
//! The rule (docs/configuration.md, "The environment"): a variable is read
//! as configuration when its name starts with `RELAY_`; the rest of the name
//! is the key, `__` separating a section from its key
//! (`RELAY_OUTBOUND__ALLOW_PORTS`). An unknown key is an error, so a
//! misspelt one is reported. Left alone, never read:
//!
//! - `RELAY_CONFIG` (the file, a flag's variable) and `RELAY_LOG` (the log
//!   filter), and the tooling's `RELAY_TEST_*` and `RELAY_BENCH_*`;
//! - the variables Kubernetes injects for a Service (service links) whose
//!   name begins with `RELAY` (a Service named `relay` or `relay-…`),
//!   recognised by name *and* value, so that a misspelt key that happens to
//!   end like one is still reported:
//!   `…_SERVICE_HOST` (an IP address), `…_SERVICE_PORT` and
//!   `…_SERVICE_PORT_<NAME>` (a port number), `…_PORT` (`tcp://…`,
//!   `udp://…` or `sctp://…`), `…_PORT_<N>_<TCP|UDP|SCTP>` (the same),
//!   and that followed by `_PROTO` (`tcp`, `udp`, `sctp`), `_PORT` (a port
//!   number) or `_ADDR` (an IP address). None has a `__`.

/// Environment variables with the `RELAY_` prefix that are not configuration keys.
const NOT_CONFIG_ENV: &[&str] = &["RELAY_CONFIG", "RELAY_LOG"];
/// Prefixes of `RELAY_` variables used by tests and tooling, never read as configuration.
const NOT_CONFIG_ENV_PREFIXES: &[&str] = &["RELAY_TEST_", "RELAY_BENCH_"];

/// Whether `name=value` is read as configuration (see the module's rule).
pub(super) fn is_configuration(name: &str, value: &str) -> bool {
    name.starts_with("RELAY_")
        && !NOT_CONFIG_ENV.contains(&name)
        && !NOT_CONFIG_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
        && !is_service_link(name, value)
}

fn is_port(v: &str) -> bool {
    !v.is_empty() && v.len() <= 5 && v.bytes().all(|b| b.is_ascii_digit())
}

fn is_ip(v: &str) -> bool {
    v.parse::<std::net::IpAddr>().is_ok()
}

fn is_link_url(v: &str) -> bool {
    ["tcp://", "udp://", "sctp://"]
        .iter()
        .any(|p| v.strip_prefix(p).is_some_and(|rest| !rest.is_empty()))
}

/// A Kubernetes service link variable (by name and value).
pub(super) fn is_service_link(name: &str, value: &str) -> bool {
    if name.contains("__") || !name.starts_with("RELAY") {
        return false;
    }
    if name.ends_with("_SERVICE_HOST") {
        return is_ip(value);
    }
    if let Some((_, after)) = name.rsplit_once("_SERVICE_PORT")
        && (after.is_empty() || (after.starts_with('_') && after.len() > 1))
    {
        return is_port(value);
    }
    let parts: Vec<&str> = name.split('_').collect();
    for i in 1..parts.len() {
        if parts[i] != "PORT" {
            continue;
        }
        let rest = &parts[i + 1..];
        match rest {
            [] => return is_link_url(value),
            [n, proto] if is_port(n) && is_proto(proto) => return is_link_url(value),
            [n, proto, what] if is_port(n) && is_proto(proto) => {
                return match *what {
                    "PROTO" => ["tcp", "udp", "sctp"].contains(&value),
                    "PORT" => is_port(value),
                    "ADDR" => is_ip(value),
                    _ => false,
                };
            }
            _ => {}
        }
    }
    false
}

fn is_proto(p: &str) -> bool {
    ["TCP", "UDP", "SCTP"].contains(&p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_service_links_are_not_configuration_and_misspelt_keys_are() {
        // (name, value, read as configuration)
        let cases: &[(&str, &str, bool)] = &[
            // A Service named `relay` (docs: kubernetes.io, "Environment variables").
            ("RELAY_SERVICE_HOST", "10.0.0.1", false),
            ("RELAY_SERVICE_PORT", "8080", false),
            ("RELAY_SERVICE_PORT_HTTP", "8080", false),
            ("RELAY_PORT", "tcp://10.0.0.1:8080", false),
            ("RELAY_PORT_8080_TCP", "tcp://10.0.0.1:8080", false),
            ("RELAY_PORT_8080_TCP_PROTO", "tcp", false),
            ("RELAY_PORT_8080_TCP_PORT", "8080", false),
            ("RELAY_PORT_8080_TCP_ADDR", "10.0.0.1", false),
            ("RELAY_PORT_9090_UDP_ADDR", "fd00::1", false),
            // Services named `relay-metrics` and `relay-db`.
            ("RELAY_METRICS_SERVICE_HOST", "10.0.0.2", false),
            ("RELAY_METRICS_PORT", "tcp://10.0.0.2:9090", false),
            ("RELAY_DB_PORT_5432_TCP_ADDR", "10.0.0.3", false),
            // Relay's own variables that are not keys.
            ("RELAY_CONFIG", "/etc/relay/relay.toml", false),
            ("RELAY_LOG", "debug", false),
            ("RELAY_TEST_POSTGRES_URL", "postgres://x", false),
            ("RELAY_BENCH_SECONDS", "5", false),
            // Configuration, misspelt or not: read (an unknown key is an error).
            ("RELAY_LISTEN", "0.0.0.0:8080", true),
            (
                "RELAY_MASTER_KEY",
                "file:/run/secrets/relay/master-key",
                true,
            ),
            ("RELAY_OUTBOUND__ALLOW_PORTS", "8443", true),
            ("RELAY_LISTN", "0.0.0.0:8080", true),
            // Ends like a service link, but the value is not one's.
            ("RELAY_PORT", "8080", true),
            ("RELAY_METRICS_PORT", "9090", true),
            ("RELAY_SERVICE_HOST", "relay.example.com", true),
            ("RELAY_SERVICE_PORT", "http", true),
            ("RELAY_PORT_8080_TCP_PROTO", "http", true),
            ("RELAY_PORT_8080_TCP_HOST", "10.0.0.1", true),
            ("RELAY_PORT_HTTP_TCP", "tcp://10.0.0.1:80", true),
            // A section key never looks like a link (it has `__`).
            ("RELAY_METRICS__LISTEN_PORT", "tcp://10.0.0.1:1", true),
            // Not Relay's at all.
            ("PATH", "/usr/bin", false),
            ("KUBERNETES_SERVICE_HOST", "10.0.0.1", false),
        ];
        for (name, value, read) in cases {
            assert_eq!(
                is_configuration(name, value),
                *read,
                "{name}={value} read as configuration"
            );
        }
    }

    #[test]
    fn a_pod_with_service_links_loads_and_config_check_names_each_source() {
        use crate::config::{Config, Flags};
        let key = "9f".repeat(32);
        let previous = "7e".repeat(32);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("relay.toml");
        std::fs::write(&file, "[retention]\ndays = 9\n").unwrap();
        let flags = Flags {
            config: Some(file.clone()),
            data_dir: Some("/var/lib/relay".into()),
            ..Default::default()
        };
        let env: Vec<(String, String)> = [
            ("RELAY_SERVICE_HOST", "10.0.0.1"),
            ("RELAY_SERVICE_PORT", "8080"),
            ("RELAY_PORT", "tcp://10.0.0.1:8080"),
            ("RELAY_PORT_8080_TCP", "tcp://10.0.0.1:8080"),
            ("RELAY_PORT_8080_TCP_PROTO", "tcp"),
            ("RELAY_PORT_8080_TCP_PORT", "8080"),
            ("RELAY_PORT_8080_TCP_ADDR", "10.0.0.1"),
            ("RELAY_LISTEN", "0.0.0.0:8080"),
            ("RELAY_MASTER_KEY", key.as_str()),
            ("RELAY_MASTER_KEY_PREVIOUS", previous.as_str()),
            ("RELAY_LIMITS__ENDPOINTS_PER_TENANT", "12"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let c = Config::load_from(&flags, &env).unwrap();
        let out = c.render_redacted();
        for line in [
            "listen = \"0.0.0.0:8080\"  # env RELAY_LISTEN",
            "master_key = \"<redacted>\"  # env RELAY_MASTER_KEY",
            "master_key_previous = \"<redacted>\"  # env RELAY_MASTER_KEY_PREVIOUS",
            "data_dir = \"/var/lib/relay\"  # flag --data-dir",
            "log_level = \"info\"  # default",
            "endpoints_per_tenant = 12  # env RELAY_LIMITS__ENDPOINTS_PER_TENANT",
            "log_format = \"text\"  # default",
        ] {
            assert!(out.lines().any(|l| l == line), "{line:?} in\n{out}");
        }
        let days = format!("days = 9  # file {}", file.display());
        assert!(out.lines().any(|l| l == days), "{days:?} in\n{out}");
        assert!(!out.contains(&key) && !out.contains(&previous), "{out}");
        assert!(!format!("{c:?}").contains(&key), "Debug hides the key");

        // A misspelt key is still an error, beside the links.
        let mut misspelt = env.clone();
        misspelt.push(("RELAY_LISTN".into(), "0.0.0.0:1".into()));
        let err = Config::load_from(&flags, &misspelt).unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown configuration key `listn`"),
            "{err:#}"
        );
        let mut not_a_link = env;
        not_a_link.push(("RELAY_METRICS_PORT".into(), "9090".into()));
        let err = Config::load_from(&flags, &not_a_link).unwrap_err();
        assert!(format!("{err:#}").contains("`metrics_port`"), "{err:#}");
    }
}
