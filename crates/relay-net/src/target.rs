//! Endpoint URLs and host names: parsing, normalisation and the URL rules.
//!
//! URLs are parsed the WHATWG way (the `url` crate), which is how browsers
//! and most HTTP stacks read them: `https://2130706433/`, `https://0x7f.1/`
//! and `https://017700000001/` are all the IPv4 address 127.0.0.1, host
//! names are lower-cased and IDNA-mapped, and an IPv6 literal with a zone id
//! is invalid. Host names given without a URL (brokers, `connect_checked`)
//! go through the same host parser, so no spelling reaches a resolver that
//! would read it differently.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr};

use url::Url;

use crate::policy::{Blocked, Policy};

/// The longest URL accepted.
pub const MAX_URL_LEN: usize = 4096;

/// Every way an outbound target can be refused or a connection can fail: the
/// stable kinds of [`UrlRejection`] and [`crate::GuardError`]. The enum lives
/// in `relay-core` (`relay_core::model::ErrorKind`) so an attempt record can
/// hold it; it is re-exported here, where it is produced.
pub use relay_core::model::ErrorKind;

/// Why a URL (or host) is refused. [`UrlRejection::code`] is the stable code
/// the API returns with `422`.
#[derive(Debug, thiserror::Error)]
pub enum UrlRejection {
    /// The text is not a URL, or its host is not a valid host.
    #[error("invalid URL: {reason}")]
    Invalid {
        /// What is wrong.
        reason: String,
    },
    /// Only `https://` is allowed.
    #[error("scheme not allowed: only https:// URLs are accepted, not {scheme}://")]
    SchemeNotAllowed {
        /// The scheme that was given.
        scheme: String,
    },
    /// A user name or password in the URL.
    #[error("credentials in URL: a user name or password in the URL is not allowed")]
    CredentialsInUrl,
    /// The port is neither 443 nor allowed by the operator.
    #[error("port not allowed: port {port} is not allowed (allowed: {allowed})")]
    PortNotAllowed {
        /// The port that was given.
        port: u16,
        /// The allowed ports, for the message.
        allowed: PortList,
    },
    /// The host is, or resolves to, a blocked address.
    #[error("blocked address: {}", describe_blocked(host, blocked))]
    BlockedAddress {
        /// The host as normalised (a name or an IP literal).
        host: String,
        /// The first blocked address and the rule that blocks it.
        blocked: Blocked,
    },
    /// The host cannot be resolved (or has no A/AAAA record).
    #[error("dns: cannot resolve {host}: {source}")]
    Dns {
        /// The host name.
        host: String,
        /// The resolver's error.
        #[source]
        source: io::Error,
    },
}

/// The refusal's text. An address the caller wrote itself is named with
/// the rule that blocks it; a name is only said to be blocked, never what
/// it resolved to nor the range that holds it: a tenant must not map the
/// operator's network by registering names and reading refusals (the
/// operator reads the address and rule from [`UrlRejection::blocked`]).
fn describe_blocked(host: &str, blocked: &Blocked) -> String {
    let literal = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
        .is_ok();
    if host == blocked.address.to_string() {
        blocked.to_string()
    } else if literal {
        format!("{host}: {blocked}")
    } else if is_localhost_name(host) {
        format!("{host} is a loopback name (RFC 6761), which Relay does not connect to")
    } else {
        format!("{host} resolves to a blocked address, which Relay does not connect to")
    }
}

impl UrlRejection {
    /// The stable code: `invalid_url`, `scheme_not_allowed`,
    /// `credentials_in_url`, `port_not_allowed`, `blocked_address` or `dns`.
    pub fn code(&self) -> &'static str {
        self.kind().as_str()
    }

    /// The kind of refusal, typed.
    pub fn kind(&self) -> ErrorKind {
        match self {
            UrlRejection::Invalid { .. } => ErrorKind::InvalidUrl,
            UrlRejection::SchemeNotAllowed { .. } => ErrorKind::SchemeNotAllowed,
            UrlRejection::CredentialsInUrl => ErrorKind::CredentialsInUrl,
            UrlRejection::PortNotAllowed { .. } => ErrorKind::PortNotAllowed,
            UrlRejection::BlockedAddress { .. } => ErrorKind::BlockedAddress,
            UrlRejection::Dns { .. } => ErrorKind::Dns,
        }
    }

    /// The blocked address and rule, for `blocked_address`.
    pub fn blocked(&self) -> Option<&Blocked> {
        match self {
            UrlRejection::BlockedAddress { blocked, .. } => Some(blocked),
            _ => None,
        }
    }

    fn invalid(reason: impl Into<String>) -> UrlRejection {
        UrlRejection::Invalid {
            reason: reason.into(),
        }
    }
}

/// The allowed ports, displayed as `443, 8443`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortList(pub Vec<u16>);

impl fmt::Display for PortList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, port) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{port}")?;
        }
        Ok(())
    }
}

/// A host after normalisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetHost {
    /// An IP literal (never resolved).
    Ip(IpAddr),
    /// A DNS name: lower case ASCII (IDNA), no trailing dot.
    Name(String),
}

impl fmt::Display for TargetHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetHost::Ip(ip) => write!(f, "{ip}"),
            TargetHost::Name(name) => f.write_str(name),
        }
    }
}

/// A URL that passed the rules.
///
/// From [`crate::Guard::check_url`] (registration: the addresses were
/// resolved and checked) or [`crate::Guard::parse_url`] (syntactic rules and
/// IP literals only). Either way the connection is checked again when it is
/// made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUrl {
    url: Url,
    host: TargetHost,
    port: u16,
    addresses: Vec<IpAddr>,
}

impl CheckedUrl {
    /// The URL as serialised by the WHATWG parser.
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The parsed URL.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The normalised host.
    pub fn host(&self) -> &TargetHost {
        &self.host
    }

    /// The host as a string for `resolve_checked`/`connect_checked`: a name,
    /// or an IP literal without brackets.
    pub fn host_str(&self) -> String {
        self.host.to_string()
    }

    /// The port (443 when the URL has none).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The addresses checked so far: the literal, or the resolved answer at
    /// `check_url` time (empty after `parse_url` of a name).
    pub fn addresses(&self) -> &[IpAddr] {
        &self.addresses
    }

    /// The request target: path and query, `/` at least.
    pub fn path_and_query(&self) -> &str {
        let s = &self.url[url::Position::BeforePath..url::Position::AfterQuery];
        if s.is_empty() { "/" } else { s }
    }

    /// The `Host` header value: the original host, `:port` unless 443.
    pub fn host_header(&self) -> String {
        let host = match &self.host {
            TargetHost::Ip(IpAddr::V6(v6)) => format!("[{v6}]"),
            other => other.to_string(),
        };
        if self.port == crate::policy::HTTPS_PORT {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    pub(crate) fn with_addresses(mut self, addresses: Vec<IpAddr>) -> Self {
        self.addresses = addresses;
        self
    }
}

impl fmt::Display for CheckedUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.url.as_str())
    }
}

/// Applies every rule that needs no resolver: syntax, scheme, credentials,
/// port, IP literals and `localhost`.
pub fn parse_url(policy: &Policy, input: &str) -> Result<CheckedUrl, UrlRejection> {
    if input.len() > MAX_URL_LEN {
        return Err(UrlRejection::invalid(format!(
            "the URL is longer than {MAX_URL_LEN} bytes"
        )));
    }
    let url = Url::parse(input).map_err(|e| UrlRejection::invalid(e.to_string()))?;
    if url.scheme() != "https" {
        return Err(UrlRejection::SchemeNotAllowed {
            scheme: url.scheme().to_owned(),
        });
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlRejection::CredentialsInUrl);
    }
    let port = url
        .port_or_known_default()
        .unwrap_or(crate::policy::HTTPS_PORT);
    check_port(policy, port)?;
    let host = match url.host() {
        Some(url::Host::Ipv4(v4)) => TargetHost::Ip(IpAddr::V4(v4)),
        Some(url::Host::Ipv6(v6)) => TargetHost::Ip(IpAddr::V6(v6)),
        Some(url::Host::Domain(name)) => normalise_name(name)?,
        None => return Err(UrlRejection::invalid("the URL has no host")),
    };
    let addresses = check_host_statically(policy, &host)?;
    Ok(CheckedUrl {
        url,
        host,
        port,
        addresses,
    })
}

/// Parses a bare host (`example.com`, `10.0.0.1`, `[::1]`, `::1`, and every
/// spelling a URL would accept) into a [`TargetHost`].
pub fn parse_host(input: &str) -> Result<TargetHost, UrlRejection> {
    if input.is_empty() || input.len() > MAX_URL_LEN {
        return Err(UrlRejection::invalid("the host is empty or too long"));
    }
    let bracketed;
    let text = if input.contains(':') && !input.starts_with('[') {
        bracketed = format!("[{input}]");
        bracketed.as_str()
    } else {
        input
    };
    match url::Host::parse(text) {
        Ok(url::Host::Ipv4(v4)) => Ok(TargetHost::Ip(IpAddr::V4(v4))),
        Ok(url::Host::Ipv6(v6)) => Ok(TargetHost::Ip(IpAddr::V6(v6))),
        Ok(url::Host::Domain(name)) => normalise_name(&name),
        Err(e) => Err(UrlRejection::invalid(format!("host {input:?}: {e}"))),
    }
}

/// Lower case (the URL parser already did it), one trailing dot removed,
/// DNS length limits, and an IP-looking result read as an IP.
fn normalise_name(name: &str) -> Result<TargetHost, UrlRejection> {
    let lower = name.to_ascii_lowercase();
    let trimmed = lower.strip_suffix('.').unwrap_or(&lower);
    if trimmed.is_empty() || trimmed.len() > 253 {
        return Err(UrlRejection::invalid(format!(
            "host {name:?} is not a valid DNS name"
        )));
    }
    if let Ok(ip) = trimmed.parse::<IpAddr>() {
        return Ok(TargetHost::Ip(ip));
    }
    if trimmed
        .split('.')
        .any(|label| label.is_empty() || label.len() > 63)
    {
        return Err(UrlRejection::invalid(format!(
            "host {name:?} is not a valid DNS name"
        )));
    }
    Ok(TargetHost::Name(trimmed.to_owned()))
}

/// `localhost` and `*.localhost` (RFC 6761 6.3).
pub fn is_localhost_name(name: &str) -> bool {
    name == "localhost" || name.ends_with(".localhost")
}

pub(crate) fn check_port(policy: &Policy, port: u16) -> Result<(), UrlRejection> {
    if policy.port_allowed(port) {
        Ok(())
    } else {
        Err(UrlRejection::PortNotAllowed {
            port,
            allowed: PortList(policy.allowed_ports().to_vec()),
        })
    }
}

/// Checks an IP literal, or a name that needs no resolver to be refused.
/// Returns the checked addresses (the literal) or nothing for a name.
pub(crate) fn check_host_statically(
    policy: &Policy,
    host: &TargetHost,
) -> Result<Vec<IpAddr>, UrlRejection> {
    match host {
        TargetHost::Ip(ip) => {
            policy
                .check_ip(*ip)
                .map_err(|blocked| UrlRejection::BlockedAddress {
                    host: host.to_string(),
                    blocked,
                })?;
            Ok(vec![*ip])
        }
        TargetHost::Name(name) if is_localhost_name(name) => {
            // A loopback name is refused without asking a resolver, unless
            // the operator opened loopback; then it is resolved and every
            // answer checked like any other name.
            let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
            policy
                .check_ip(loopback)
                .map_err(|blocked| UrlRejection::BlockedAddress {
                    host: name.clone(),
                    blocked,
                })?;
            Ok(Vec::new())
        }
        TargetHost::Name(_) => Ok(Vec::new()),
    }
}

/// Checks every resolved address; any blocked address refuses the whole
/// answer. An empty answer is a `dns` error.
pub(crate) fn check_answer(
    policy: &Policy,
    name: &str,
    answer: &[IpAddr],
) -> Result<(), UrlRejection> {
    if answer.is_empty() {
        return Err(UrlRejection::Dns {
            host: name.to_owned(),
            source: io::Error::new(io::ErrorKind::NotFound, "no A or AAAA record"),
        });
    }
    for ip in answer {
        policy
            .check_ip(*ip)
            .map_err(|blocked| UrlRejection::BlockedAddress {
                host: name.to_owned(),
                blocked,
            })?;
    }
    Ok(())
}
