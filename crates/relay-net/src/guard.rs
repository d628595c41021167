//! The outbound guard: the one way out of Relay.
//!
//! [`Guard`] owns the policy, the resolver and the TLS configuration. It
//! checks URLs at registration ([`Guard::check_url`]) and, for every
//! connection, resolves again, checks every candidate address and connects
//! only to a verified one ([`Guard::resolve_checked`],
//! [`Guard::connect_checked`], [`Guard::connect_tls`], and
//! [`Guard::upgrade_tls`] for protocols that upgrade a checked
//! connection). The registration check is early feedback; the connect-time
//! check is what defeats DNS rebinding.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rustls::ClientConfig;
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout_at};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use crate::config::{ConfigError, OutboundConfig};
use crate::policy::Policy;
use crate::resolve::{Resolve, SystemResolver};
use crate::target::{
    self, CheckedUrl, ErrorKind, TargetHost, UrlRejection, check_answer, check_host_statically,
    check_port,
};

/// Why an outbound connection (or exchange) did not happen or failed.
/// [`GuardError::kind`] is the stable error kind recorded on attempts.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// The target is refused by a rule (`blocked_address`, `port_not_allowed`,
    /// `invalid_url`, …) or its name does not resolve (`dns`). No connection
    /// was attempted.
    #[error(transparent)]
    Rejected(#[from] UrlRejection),
    /// Every verified address refused the TCP connection.
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// The last address tried.
        addr: SocketAddr,
        /// The socket error.
        #[source]
        source: io::Error,
    },
    /// A deadline passed.
    #[error("{phase} timed out after {after:?}")]
    Timeout {
        /// `connect`, `tls handshake`, `dns` or `exchange`.
        phase: &'static str,
        /// The limit that was exceeded.
        after: Duration,
        /// The connected address, when the timeout came after the connect.
        addr: Option<SocketAddr>,
    },
    /// The TLS handshake failed (unknown CA, wrong name, expired, …).
    #[error("TLS handshake with {host} at {addr} failed: {source}")]
    Tls {
        /// The host name the certificate was verified against.
        host: String,
        /// The connected address.
        addr: SocketAddr,
        /// The TLS error.
        #[source]
        source: io::Error,
    },
    /// The HTTP exchange failed (malformed response, connection reset, …).
    #[error("HTTP exchange with {addr} failed: {source}")]
    Http {
        /// The connected address.
        addr: SocketAddr,
        /// The protocol error.
        #[source]
        source: hyper::Error,
    },
}

impl GuardError {
    /// The stable kind: `blocked_address`, `port_not_allowed`, `invalid_url`,
    /// `scheme_not_allowed`, `credentials_in_url`, `dns`, `connect`,
    /// `timeout`, `tls` or `http`.
    pub fn kind(&self) -> ErrorKind {
        match self {
            GuardError::Rejected(rejection) => rejection.kind(),
            GuardError::Connect { .. } => ErrorKind::Connect,
            GuardError::Timeout { .. } => ErrorKind::Timeout,
            GuardError::Tls { .. } => ErrorKind::Tls,
            GuardError::Http { .. } => ErrorKind::Http,
        }
    }

    /// The address a connection was made to (or last tried), if any.
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        match self {
            GuardError::Rejected(_) => None,
            GuardError::Connect { addr, .. }
            | GuardError::Tls { addr, .. }
            | GuardError::Http { addr, .. } => Some(*addr),
            GuardError::Timeout { addr, .. } => *addr,
        }
    }
}

struct Inner {
    policy: Policy,
    resolver: Arc<dyn Resolve>,
    tls_config: Arc<ClientConfig>,
    /// The operator's `extra_ca_certs` as PEM text, for TLS clients that
    /// are not rustls (librdkafka).
    extra_ca_pem: Option<String>,
    /// `[outbound] allow_plaintext_credentials_to_loopback`.
    plaintext_credentials_to_loopback: bool,
}

/// The outbound guard. Cheap to clone; build one per process.
#[derive(Clone)]
pub struct Guard {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("policy", &self.inner.policy)
            .finish_non_exhaustive()
    }
}

impl Guard {
    /// The production guard: the operator's configuration and the system
    /// resolver. Logs [`OutboundConfig::startup_warnings`] as warnings.
    pub fn from_config(config: &OutboundConfig) -> Result<Guard, ConfigError> {
        let resolver = SystemResolver::from_system_conf().map_err(ConfigError::Resolver)?;
        let guard = Guard::with_resolver(config, Arc::new(resolver))?;
        for line in config.startup_warnings() {
            tracing::warn!(target: "relay_net", "{line}");
        }
        Ok(guard)
    }

    /// A guard with an injected resolver (tests, or a custom resolver).
    pub fn with_resolver(
        config: &OutboundConfig,
        resolver: Arc<dyn Resolve>,
    ) -> Result<Guard, ConfigError> {
        let policy = Policy::from_config(config)?;
        let tls_config = Arc::new(crate::tls::client_config(config)?);
        let extra_ca_pem = crate::tls::extra_ca_pem(config)?;
        Ok(Guard {
            inner: Arc::new(Inner {
                policy,
                resolver,
                tls_config,
                extra_ca_pem,
                plaintext_credentials_to_loopback: config.allow_plaintext_credentials_to_loopback,
            }),
        })
    }

    /// Whether credentials may travel to `host` without TLS: only when the
    /// operator allowed it for development and `host` is this machine (a
    /// loopback address or `localhost` as written, or a name every address
    /// of which is a loopback address).
    pub async fn plaintext_credentials_allowed(&self, host: &str) -> bool {
        if !self.inner.plaintext_credentials_to_loopback {
            return false;
        }
        if crate::config::is_loopback_host(host) {
            return true;
        }
        match self.inner.resolver.resolve(host).await {
            Ok(addresses) => {
                !addresses.is_empty() && addresses.iter().all(|a| a.to_canonical().is_loopback())
            }
            Err(_) => false,
        }
    }

    /// The address and port policy.
    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    /// The TLS client configuration (no ALPN set) for brokers and other
    /// TLS clients; pass the original host name as the server name.
    pub fn tls_config(&self) -> Arc<ClientConfig> {
        Arc::clone(&self.inner.tls_config)
    }

    /// The operator's `extra_ca_certs` as PEM text (every file's
    /// certificates, one after another), for a TLS client that is not
    /// rustls and takes its trust anchors as PEM (the Kafka kind's
    /// librdkafka). `None` without extra CAs.
    pub fn extra_ca_pem(&self) -> Option<&str> {
        self.inner.extra_ca_pem.as_deref()
    }

    /// A TLS connector over [`Guard::tls_config`].
    pub fn tls_connector(&self) -> TlsConnector {
        TlsConnector::from(self.tls_config())
    }

    /// The rules that need no resolver: syntax, scheme, credentials, port,
    /// IP literals and `localhost`. The delivery path uses this to turn a
    /// stored URL into a [`CheckedUrl`]; the connect-time check does the rest.
    pub fn parse_url(&self, url: &str) -> Result<CheckedUrl, UrlRejection> {
        target::parse_url(&self.inner.policy, url)
    }

    /// The registration check: every rule, and every A and AAAA record of a
    /// host name checked (one blocked address refuses the URL).
    pub async fn check_url(&self, url: &str) -> Result<CheckedUrl, UrlRejection> {
        let checked = self.parse_url(url)?;
        match checked.host() {
            TargetHost::Ip(_) => Ok(checked),
            TargetHost::Name(name) => {
                let answer = self.resolve_name(name).await?;
                Ok(checked.with_addresses(answer))
            }
        }
    }

    /// Resolves and checks `host` for a connection to `port`.
    ///
    /// `host` is a name or an IP literal (bracketed or not), in any spelling
    /// a URL accepts. Returns every address of the answer (IPv4-mapped ones
    /// reduced to IPv4), all of them verified; one blocked address refuses
    /// the whole answer.
    pub async fn resolve_checked(
        &self,
        host: &str,
        port: u16,
    ) -> Result<Vec<SocketAddr>, GuardError> {
        let policy = &self.inner.policy;
        check_port(policy, port)?;
        let target = target::parse_host(host)?;
        let addresses = match &target {
            TargetHost::Ip(_) => check_host_statically(policy, &target)?,
            TargetHost::Name(name) => {
                check_host_statically(policy, &target)?;
                self.resolve_name(name).await?
            }
        };
        Ok(addresses
            .into_iter()
            .map(|ip| SocketAddr::new(ip.to_canonical(), port))
            .collect())
    }

    /// Resolves `host` again, checks every candidate and connects to the
    /// first verified address that accepts, all within `timeout`.
    pub async fn connect_checked(
        &self,
        host: &str,
        port: u16,
        timeout: Duration,
    ) -> Result<(TcpStream, SocketAddr), GuardError> {
        let deadline = Instant::now() + timeout;
        let candidates = timeout_at(deadline, self.resolve_checked(host, port))
            .await
            .map_err(|_| GuardError::Timeout {
                phase: "dns",
                after: timeout,
                addr: None,
            })??;
        let mut last_error = None;
        for addr in candidates {
            match timeout_at(deadline, TcpStream::connect(addr)).await {
                Ok(Ok(stream)) => {
                    // Nagle only delays small webhook requests.
                    let _ = stream.set_nodelay(true);
                    return Ok((stream, addr));
                }
                Ok(Err(source)) => last_error = Some(GuardError::Connect { addr, source }),
                Err(_) => {
                    return Err(GuardError::Timeout {
                        phase: "connect",
                        after: timeout,
                        addr: Some(addr),
                    });
                }
            }
        }
        Err(last_error.unwrap_or_else(|| {
            GuardError::Rejected(UrlRejection::Dns {
                host: host.to_owned(),
                source: io::Error::new(io::ErrorKind::NotFound, "no address to connect to"),
            })
        }))
    }

    /// [`Guard::connect_checked`] then a TLS handshake with the original host
    /// name (SNI and certificate verification), all within `timeout`.
    pub async fn connect_tls(
        &self,
        host: &str,
        port: u16,
        timeout: Duration,
    ) -> Result<(TlsStream<TcpStream>, SocketAddr), GuardError> {
        let deadline = Instant::now() + timeout;
        let target = target::parse_host(host)?;
        let (tcp, addr) = self.connect_checked(host, port, timeout).await?;
        handshake(&self.tls_connector(), &target, tcp, addr, deadline, timeout).await
    }

    /// A TLS handshake with `host`'s name over a connection that
    /// [`Guard::connect_checked`] opened to it, all within `timeout`: for
    /// protocols that start in plain text and upgrade (NATS sends its `INFO`
    /// before the handshake). Pass only a stream from `connect_checked` for
    /// the same `host`.
    pub async fn upgrade_tls(
        &self,
        host: &str,
        tcp: TcpStream,
        addr: SocketAddr,
        timeout: Duration,
    ) -> Result<TlsStream<TcpStream>, GuardError> {
        let deadline = Instant::now() + timeout;
        let target = target::parse_host(host)?;
        handshake(&self.tls_connector(), &target, tcp, addr, deadline, timeout)
            .await
            .map(|(stream, _)| stream)
    }

    async fn resolve_name(&self, name: &str) -> Result<Vec<std::net::IpAddr>, UrlRejection> {
        let raw = self
            .inner
            .resolver
            .resolve(name)
            .await
            .map_err(|source| UrlRejection::Dns {
                host: name.to_owned(),
                source,
            })?;
        let mut answer = Vec::with_capacity(raw.len());
        for ip in raw {
            if !answer.contains(&ip) {
                answer.push(ip);
            }
        }
        check_answer(&self.inner.policy, name, &answer)?;
        Ok(answer)
    }
}

/// A TLS handshake over a verified connection, bounded by `deadline`.
pub(crate) async fn handshake(
    connector: &TlsConnector,
    target: &TargetHost,
    tcp: TcpStream,
    addr: SocketAddr,
    deadline: Instant,
    limit: Duration,
) -> Result<(TlsStream<TcpStream>, SocketAddr), GuardError> {
    let name = crate::tls::server_name(target).map_err(|e| {
        GuardError::Rejected(UrlRejection::Invalid {
            reason: format!("host {target} is not a valid TLS server name: {e}"),
        })
    })?;
    match timeout_at(deadline, connector.connect(name, tcp)).await {
        Ok(Ok(stream)) => Ok((stream, addr)),
        Ok(Err(source)) => Err(GuardError::Tls {
            host: target.to_string(),
            addr,
            source,
        }),
        Err(_) => Err(GuardError::Timeout {
            phase: "tls handshake",
            after: limit,
            addr: Some(addr),
        }),
    }
}
