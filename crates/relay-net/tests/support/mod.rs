//! Helpers shared by the integration tests: guards with injected resolvers.
#![allow(dead_code)]

use std::io;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use relay_net::{Guard, OutboundConfig, Resolve, ResolveFuture, StaticResolver};

pub fn ip(text: &str) -> IpAddr {
    text.parse().expect("test address")
}

pub fn guard(config: &OutboundConfig, resolver: impl Resolve + 'static) -> Guard {
    Guard::with_resolver(config, Arc::new(resolver)).expect("test guard")
}

/// The names the table and property tests resolve.
pub fn table_resolver() -> StaticResolver {
    StaticResolver::new()
        .with("public.example", [ip("93.184.215.14")])
        .with(
            "dual.example",
            [
                ip("93.184.215.14"),
                ip("2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
            ],
        )
        .with("mapped-public.example", [ip("::ffff:93.184.215.14")])
        .with("private.example", [ip("10.0.0.5")])
        .with("mixed.example", [ip("93.184.215.14"), ip("127.0.0.1")])
        .with("mixed6.example", [ip("2606:2800:21f:cb07::1"), ip("::1")])
        .with("metadata.example", [ip("169.254.169.254")])
        .with("mapped.example", [ip("::ffff:127.0.0.1")])
        .with("nat64.example", [ip("64:ff9b::a9fe:a9fe")])
        .with("empty.example", [])
        .with("localhost", [ip("127.0.0.1")])
}

/// Answers `first` to the first query and `later` to every other one:
/// the DNS-rebinding attacker.
pub struct RebindingResolver {
    calls: AtomicUsize,
    first: Vec<IpAddr>,
    later: Vec<IpAddr>,
}

impl RebindingResolver {
    pub fn new(first: Vec<IpAddr>, later: Vec<IpAddr>) -> Self {
        RebindingResolver {
            calls: AtomicUsize::new(0),
            first,
            later,
        }
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl Resolve for RebindingResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> ResolveFuture<'a> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let answer = if host != "rebind.example" {
            Err(io::Error::new(io::ErrorKind::NotFound, host.to_owned()))
        } else if n == 0 {
            Ok(self.first.clone())
        } else {
            Ok(self.later.clone())
        };
        Box::pin(std::future::ready(answer))
    }
}
