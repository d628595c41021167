//! The operator's `[outbound]` configuration section and its validation.
//!
//! The key names are fixed by API.md: `allow_ports`, `allow_cidrs`,
//! `block_cidrs`, `extra_ca_certs`. Unknown keys are errors. Every list also
//! accepts a comma-separated string so that the environment spelling
//! (`RELAY_OUTBOUND__ALLOW_PORTS=8443,9443`) works with any config loader.

use std::fmt;
use std::path::{Path, PathBuf};

use ipnet::IpNet;
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

/// The `[outbound]` section of `relay.toml` (or `RELAY_OUTBOUND__*`).
///
/// The default is the safe configuration: port 443 only, the shipped blocked
/// ranges, the bundled web PKI trust roots.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OutboundConfig {
    /// Ports allowed in addition to 443.
    #[serde(deserialize_with = "ports")]
    pub allow_ports: Vec<u16>,
    /// Ranges exempted from blocking (development and tests only; warned at start).
    #[serde(deserialize_with = "strings")]
    pub allow_cidrs: Vec<String>,
    /// Ranges blocked in addition to the shipped list.
    #[serde(deserialize_with = "strings")]
    pub block_cidrs: Vec<String>,
    /// PEM files whose certificates are trusted in addition to the bundled roots.
    #[serde(deserialize_with = "paths")]
    pub extra_ca_certs: Vec<PathBuf>,
    /// Lets a broker destination send its credentials without TLS when its
    /// host is written as a loopback address (`127.0.0.0/8`, `::1`) or
    /// `localhost`: local development against brokers without TLS only
    /// (warned at start; never anywhere else).
    #[serde(deserialize_with = "boolean")]
    pub allow_plaintext_credentials_to_loopback: bool,
}

/// Whether `host`, as written, is this machine: a loopback address or
/// `localhost` (never resolved).
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A boolean written as one (TOML) or as text (environment variables:
/// `true`, `false`, `1`, `0`). Relay's own configuration reads its
/// booleans with it too.
pub fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
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

/// Why an `[outbound]` section, or the resources it names, cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A value in `allow_cidrs` or `block_cidrs` is not a CIDR or an IP address.
    #[error("outbound.{key}: {value:?} is not a CIDR range or IP address")]
    InvalidCidr {
        /// `allow_cidrs` or `block_cidrs`.
        key: &'static str,
        /// The value as the operator wrote it.
        value: String,
    },
    /// Port 0 cannot be connected to.
    #[error("outbound.allow_ports: 0 is not a port")]
    InvalidPort,
    /// A line of the shipped blocked-ranges file does not parse (a build defect).
    #[error("blocked_ranges.txt line {line}: {text:?} is not a CIDR range")]
    ShippedList {
        /// 1-based line number.
        line: usize,
        /// The offending text.
        text: String,
    },
    /// An `extra_ca_certs` file cannot be read or parsed.
    #[error("outbound.extra_ca_certs: cannot read {}: {source}", path.display())]
    CaFile {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// An `extra_ca_certs` file contains no certificate.
    #[error("outbound.extra_ca_certs: {} contains no PEM certificate", path.display())]
    CaFileEmpty {
        /// The file.
        path: PathBuf,
    },
    /// An `extra_ca_certs` certificate is not acceptable as a trust anchor.
    #[error("outbound.extra_ca_certs: {} holds a certificate that is not a usable trust anchor: {source}", path.display())]
    CaCertificate {
        /// The file.
        path: PathBuf,
        /// The rustls error.
        #[source]
        source: rustls::Error,
    },
    /// The TLS provider refused the protocol versions (a build defect).
    #[error("cannot build the TLS client configuration: {0}")]
    Tls(#[source] rustls::Error),
    /// The system DNS configuration cannot be read.
    #[error("cannot read the system DNS configuration: {0}")]
    Resolver(#[source] std::io::Error),
}

impl OutboundConfig {
    /// Parses `allow_cidrs` into ranges (host bits are cleared).
    pub fn allow_ranges(&self) -> Result<Vec<IpNet>, ConfigError> {
        parse_cidrs("allow_cidrs", &self.allow_cidrs)
    }

    /// Parses `block_cidrs` into ranges (host bits are cleared).
    pub fn block_ranges(&self) -> Result<Vec<IpNet>, ConfigError> {
        parse_cidrs("block_cidrs", &self.block_cidrs)
    }

    /// Checks every value without building anything.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.allow_ranges()?;
        self.block_ranges()?;
        if self.allow_ports.contains(&0) {
            return Err(ConfigError::InvalidPort);
        }
        Ok(())
    }

    /// The lines to log as warnings at start: one per non-empty allow list.
    ///
    /// [`crate::Guard::from_config`] logs them with `tracing::warn!`; callers
    /// that build a [`crate::Policy`] by hand log them themselves.
    pub fn startup_warnings(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.allow_cidrs.is_empty() {
            lines.push(format!(
                "outbound.allow_cidrs is set: deliveries may reach {} although they are blocked by default (development and tests only)",
                self.allow_cidrs.join(", ")
            ));
        }
        if !self.allow_ports.is_empty() {
            let ports: Vec<String> = self.allow_ports.iter().map(u16::to_string).collect();
            lines.push(format!(
                "outbound.allow_ports is set: endpoint URLs may use ports {} in addition to 443",
                ports.join(", ")
            ));
        }
        if self.allow_plaintext_credentials_to_loopback {
            lines.push(
                "outbound.allow_plaintext_credentials_to_loopback is set: broker destinations on a loopback host may send their credentials without TLS (development only)".to_string(),
            );
        }
        if !self.extra_ca_certs.is_empty() {
            let files: Vec<String> = self
                .extra_ca_certs
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            lines.push(format!(
                "outbound.extra_ca_certs is set: certificates from {} are trusted in addition to the bundled roots",
                files.join(", ")
            ));
        }
        lines
    }
}

/// Parses one CIDR (`10.0.0.0/8`, `fd00::/8`) or bare address (`10.1.2.3`).
pub fn parse_cidr(text: &str) -> Option<IpNet> {
    let text = text.trim();
    if let Ok(net) = text.parse::<IpNet>() {
        return Some(net.trunc());
    }
    text.parse::<std::net::IpAddr>().ok().map(IpNet::from)
}

fn parse_cidrs(key: &'static str, values: &[String]) -> Result<Vec<IpNet>, ConfigError> {
    values
        .iter()
        .map(|value| {
            parse_cidr(value).ok_or_else(|| ConfigError::InvalidCidr {
                key,
                value: value.clone(),
            })
        })
        .collect()
}

/// Reads a PEM file's certificates; used for `extra_ca_certs`.
pub(crate) fn read_pem_certs(
    path: &Path,
) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, ConfigError> {
    use rustls::pki_types::pem::PemObject;
    let bytes = std::fs::read(path).map_err(|source| ConfigError::CaFile {
        path: path.to_path_buf(),
        source,
    })?;
    let certs: Result<Vec<_>, _> =
        rustls::pki_types::CertificateDer::pem_slice_iter(&bytes).collect();
    let certs = certs.map_err(|e| ConfigError::CaFile {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
    })?;
    if certs.is_empty() {
        return Err(ConfigError::CaFileEmpty {
            path: path.to_path_buf(),
        });
    }
    Ok(certs)
}

// ---- lenient list deserializers: a sequence, or one comma-separated string.

fn split_list(text: &str) -> impl Iterator<Item = &str> {
    text.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|s| s.trim().trim_matches('"').trim_matches('\''))
        .filter(|s| !s.is_empty())
}

struct StringList;

impl<'de> Visitor<'de> for StringList {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings or a comma-separated string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(split_list(v).map(str::to_owned).collect())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element::<String>()? {
            out.push(item);
        }
        Ok(out)
    }
}

fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    d.deserialize_any(StringList)
}

fn paths<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    Ok(strings(d)?.into_iter().map(PathBuf::from).collect())
}

/// One port: a number, or a string holding a number.
struct Port(u16);

impl<'de> Deserialize<'de> for Port {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct PortVisitor;
        impl Visitor<'_> for PortVisitor {
            type Value = u16;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a port number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<u16, E> {
                u16::try_from(v).map_err(|_| E::custom(format!("{v} is not a port")))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<u16, E> {
                u16::try_from(v).map_err(|_| E::custom(format!("{v} is not a port")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<u16, E> {
                v.trim()
                    .parse()
                    .map_err(|_| E::custom(format!("{v:?} is not a port")))
            }
        }
        d.deserialize_any(PortVisitor).map(Port)
    }
}

struct PortList;

impl<'de> Visitor<'de> for PortList {
    type Value = Vec<u16>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of ports or a comma-separated string of ports")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        u16::try_from(v)
            .map(|p| vec![p])
            .map_err(|_| E::custom(format!("{v} is not a port")))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        u16::try_from(v)
            .map(|p| vec![p])
            .map_err(|_| E::custom(format!("{v} is not a port")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        split_list(v)
            .map(|item| {
                item.parse::<u16>()
                    .map_err(|_| E::custom(format!("{item:?} is not a port")))
            })
            .collect()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Port(p)) = seq.next_element::<Port>()? {
            out.push(p);
        }
        Ok(out)
    }
}

fn ports<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u16>, D::Error> {
    d.deserialize_any(PortList)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cidr_parsing_accepts_ranges_and_bare_addresses() {
        assert_eq!(parse_cidr("10.0.0.0/8"), "10.0.0.0/8".parse().ok());
        assert_eq!(parse_cidr("10.1.2.3/8"), "10.0.0.0/8".parse().ok());
        assert_eq!(parse_cidr(" 10.1.2.3 "), "10.1.2.3/32".parse().ok());
        assert_eq!(parse_cidr("::1"), "::1/128".parse().ok());
        assert_eq!(parse_cidr("10.0.0.0/33"), None);
        assert_eq!(parse_cidr("example.com"), None);
    }

    #[test]
    fn invalid_cidr_names_the_value() {
        let cfg = OutboundConfig {
            block_cidrs: vec!["10.0.0.0/8".into(), "nope/8".into()],
            ..Default::default()
        };
        let err = cfg.validate().err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("outbound.block_cidrs: \"nope/8\" is not a CIDR range or IP address")
        );
    }

    #[test]
    fn warnings_only_when_allow_lists_are_set() {
        assert!(OutboundConfig::default().startup_warnings().is_empty());
        let cfg = OutboundConfig {
            allow_ports: vec![8443],
            allow_cidrs: vec!["127.0.0.0/8".into()],
            ..Default::default()
        };
        let lines = cfg.startup_warnings();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].contains("127.0.0.0/8"));
        assert!(lines[1].contains("8443"));
    }

    #[test]
    fn zero_port_is_rejected() {
        let cfg = OutboundConfig {
            allow_ports: vec![0],
            ..Default::default()
        };
        assert!(matches!(cfg.validate(), Err(ConfigError::InvalidPort)));
    }

    #[test]
    fn toml_section_parses_and_rejects_unknown_keys() {
        let cfg: Result<OutboundConfig, _> = toml::from_str(
            r#"
            allow_ports = [443, 8443]
            allow_cidrs = []
            block_cidrs = ["203.0.113.0/24"]
            extra_ca_certs = ["/etc/relay/dev-ca.pem"]
            "#,
        );
        let cfg = cfg.ok();
        assert_eq!(
            cfg.as_ref()
                .map(|c| (c.allow_ports.clone(), c.block_cidrs.len())),
            Some((vec![443, 8443], 1))
        );
        let unknown: Result<OutboundConfig, _> = toml::from_str("allow_port = [8443]");
        assert!(unknown.is_err());
        let empty: Result<OutboundConfig, _> = toml::from_str("");
        assert_eq!(empty.ok(), Some(OutboundConfig::default()));
    }

    #[test]
    fn environment_style_strings_are_lists() {
        let cfg: Result<OutboundConfig, _> = toml::from_str(
            r#"
            allow_ports = "8443, 9443"
            allow_cidrs = "127.0.0.0/8,::1"
            block_cidrs = "[\"10.0.0.0/8\"]"
            extra_ca_certs = "/a.pem,/b.pem"
            "#,
        );
        let Ok(cfg) = cfg else { panic!("{cfg:?}") };
        assert_eq!(cfg.allow_ports, vec![8443, 9443]);
        assert_eq!(cfg.allow_cidrs, vec!["127.0.0.0/8", "::1"]);
        assert_eq!(cfg.block_cidrs, vec!["10.0.0.0/8"]);
        assert_eq!(cfg.extra_ca_certs.len(), 2);
        let single: Result<OutboundConfig, _> = toml::from_str("allow_ports = 8443");
        assert_eq!(single.ok().map(|c| c.allow_ports), Some(vec![8443]));
        let bad: Result<OutboundConfig, _> = toml::from_str("allow_ports = \"70000\"");
        assert!(bad.is_err());
    }
}
