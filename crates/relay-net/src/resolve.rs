//! Name resolution behind a trait, so tests can inject answers.
//!
//! [`SystemResolver`] is the production implementation (hickory-resolver with
//! the system's `/etc/resolv.conf` and hosts file, A and AAAA queried in
//! parallel). [`StaticResolver`] answers from a fixed table and is meant for
//! tests in any crate. The guard, not the resolver, decides what is allowed:
//! a resolver only reports what the name resolves to.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;

use hickory_resolver::TokioResolver;
use hickory_resolver::config::LookupIpStrategy;

/// The future a [`Resolve`] implementation returns.
pub type ResolveFuture<'a> = Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// Resolves a host name to all its A and AAAA addresses.
///
/// `host` is already normalised by the guard: lower case, IDNA (punycode),
/// no trailing dot, never an IP literal. An empty answer is reported as an
/// error by the guard.
pub trait Resolve: Send + Sync {
    /// Every address the name resolves to.
    fn resolve<'a>(&'a self, host: &'a str) -> ResolveFuture<'a>;
}

/// The system resolver (hickory-resolver, tokio runtime).
#[derive(Clone)]
pub struct SystemResolver {
    inner: TokioResolver,
}

impl std::fmt::Debug for SystemResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SystemResolver")
    }
}

impl SystemResolver {
    /// Reads the system configuration (`/etc/resolv.conf`, hosts file).
    pub fn from_system_conf() -> io::Result<SystemResolver> {
        let mut builder = TokioResolver::builder_tokio().map_err(io::Error::other)?;
        builder.options_mut().ip_strategy = LookupIpStrategy::Ipv4AndIpv6;
        let inner = builder.build().map_err(io::Error::other)?;
        Ok(SystemResolver { inner })
    }
}

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> ResolveFuture<'a> {
        Box::pin(async move {
            // A fully-qualified name: search domains are never appended, so
            // "intranet" cannot become "intranet.corp.example".
            let fqdn = format!("{host}.");
            let answer = self
                .inner
                .lookup_ip(fqdn.as_str())
                .await
                .map_err(|e| io::Error::new(io::ErrorKind::NotFound, e))?;
            let mut out: Vec<IpAddr> = Vec::new();
            for ip in answer.iter() {
                if !out.contains(&ip) {
                    out.push(ip);
                }
            }
            Ok(out)
        })
    }
}

/// Answers from a fixed table; unknown names fail with `NotFound`.
#[derive(Debug, Clone, Default)]
pub struct StaticResolver {
    table: HashMap<String, Vec<IpAddr>>,
}

impl StaticResolver {
    /// An empty table.
    pub fn new() -> StaticResolver {
        StaticResolver::default()
    }

    /// Adds (or replaces) the answer for `host` (matched in lower case).
    pub fn with(mut self, host: &str, addresses: impl IntoIterator<Item = IpAddr>) -> Self {
        self.table
            .insert(host.to_ascii_lowercase(), addresses.into_iter().collect());
        self
    }
}

impl Resolve for StaticResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> ResolveFuture<'a> {
        let answer = self.table.get(host).cloned().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("no address record for {host}"),
            )
        });
        Box::pin(std::future::ready(answer))
    }
}
