//! What the registration checks (`validate*.rs`) share: a real guard.

use std::sync::Arc;

use relay_net::{Guard, OutboundConfig, StaticResolver};

/// A guard that allows `ports`, resolves `public_host` to a public address
/// and `local.example` to 127.0.0.1, which it allows only with
/// `allow_loopback` (the operator's allow list).
pub fn guard(ports: &[u16], public_host: &str, allow_loopback: bool) -> Guard {
    let config = OutboundConfig {
        allow_ports: ports.to_vec(),
        allow_cidrs: if allow_loopback {
            vec!["127.0.0.1/32".into()]
        } else {
            vec![]
        },
        block_cidrs: vec![],
        extra_ca_certs: vec![],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new()
        .with(public_host, ["8.8.8.8".parse().unwrap()])
        .with("local.example", ["127.0.0.1".parse().unwrap()]);
    Guard::with_resolver(&config, Arc::new(resolver)).unwrap()
}
