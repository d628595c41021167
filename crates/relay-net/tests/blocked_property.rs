//! Property: no address inside a blocked range is ever accepted or connected
//! to, whatever the spelling of the URL or host.
//!
//! Addresses are drawn from every shipped range and rendered in every
//! spelling the WHATWG parser accepts (dotted, decimal, hex, octal, short
//! forms, per-octet hex/octal, percent-encoding, trailing dot, IPv4-mapped,
//! IPv4-compatible, NAT64, 6to4, Teredo, expanded and upper-case IPv6) or
//! hidden behind a host name whose answer contains it.

mod support;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, TcpListener};
use std::time::Duration;

use ipnet::IpNet;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use relay_net::policy::shipped_rules;
use relay_net::{Guard, OutboundConfig, StaticResolver};

/// How to write a host for an address.
fn v4_spellings(a: Ipv4Addr) -> Vec<String> {
    let [o0, o1, o2, o3] = a.octets();
    let n = u32::from(a);
    let obfuscated = !n;
    vec![
        a.to_string(),
        n.to_string(),
        format!("0x{n:x}"),
        format!("0X{n:08X}"),
        format!("0{n:o}"),
        format!("0x{o0:x}.0x{o1:x}.0x{o2:x}.0x{o3:x}"),
        format!("0{o0:o}.0{o1:o}.0{o2:o}.0{o3:o}"),
        format!("{o0}.{o1}.{}", (u32::from(o2) << 8) | u32::from(o3)),
        format!("{o0}.{}", n & 0x00ff_ffff),
        format!("0x{o0:x}.{}", n & 0x00ff_ffff),
        format!("{a}."),
        a.to_string()
            .bytes()
            .map(|b| format!("%{b:02x}"))
            .collect::<String>(),
        format!("[::ffff:{a}]"),
        format!("[::ffff:{:x}:{:x}]", n >> 16, n & 0xffff),
        format!("[0:0:0:0:0:FFFF:{a}]"),
        format!("[::{a}]"),
        format!("[64:ff9b::{a}]"),
        format!("[64:ff9b:1::{a}]"),
        format!("[2002:{:x}:{:x}::1]", n >> 16, n & 0xffff),
        format!(
            "[2001:0:4136:e378:8000:63bf:{:x}:{:x}]",
            obfuscated >> 16,
            obfuscated & 0xffff
        ),
        format!("[2001:0:{:x}:{:x}::1]", n >> 16, n & 0xffff),
    ]
}

fn v6_spellings(a: Ipv6Addr) -> Vec<String> {
    let s = a.segments();
    vec![
        format!("[{a}]"),
        format!(
            "[{:x}:{:x}:{:x}:{:x}:{:x}:{:x}:{:x}:{:x}]",
            s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
        ),
        format!(
            "[{:04X}:{:04X}:{:04X}:{:04X}:{:04X}:{:04X}:{:04X}:{:04X}]",
            s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
        ),
        format!("[{}]", a.to_string().to_uppercase()),
    ]
}

fn address_in(net: IpNet, offset: u128) -> IpAddr {
    match net {
        IpNet::V4(n) => {
            let host =
                u32::try_from(offset & u128::from(u32::from(n.hostmask()))).unwrap_or_default();
            IpAddr::V4(Ipv4Addr::from(u32::from(n.network()) | host))
        }
        IpNet::V6(n) => {
            let host = offset & u128::from(n.hostmask());
            IpAddr::V6(Ipv6Addr::from(u128::from(n.network()) | host))
        }
    }
}

fn spellings(address: IpAddr) -> Vec<String> {
    let mut out = match address {
        IpAddr::V4(v4) => v4_spellings(v4),
        IpAddr::V6(v6) => v6_spellings(v6),
    };
    // The same address behind host names.
    out.push("only-blocked.example".to_owned());
    out.push("Mostly-Public.Example.".to_owned());
    out
}

fn resolver_for(address: IpAddr) -> StaticResolver {
    StaticResolver::new()
        .with("only-blocked.example", [address])
        .with(
            "mostly-public.example",
            [
                IpAddr::V4(Ipv4Addr::new(93, 184, 215, 14)),
                IpAddr::V6(Ipv6Addr::new(0x2606, 0x2800, 0x21f, 0, 0, 0, 0, 1)),
                address,
            ],
        )
}

async fn assert_refused(
    guard: &Guard,
    host: &str,
    port: u16,
    address: IpAddr,
) -> Result<(), TestCaseError> {
    let url = if port == 443 {
        format!("https://{host}/hook")
    } else {
        format!("HTTPS://{host}:{port}/hook")
    };
    match guard.check_url(&url).await {
        Ok(checked) => {
            return Err(TestCaseError::fail(format!(
                "{url} ({address}) was accepted as {checked}"
            )));
        }
        Err(rejection) => prop_assert!(
            rejection.code() == "blocked_address",
            "{url} ({address}): {rejection}"
        ),
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    for spelled in [host, bare] {
        match guard
            .connect_checked(spelled, port, Duration::from_millis(500))
            .await
        {
            Ok((_, addr)) => {
                return Err(TestCaseError::fail(format!(
                    "connected to {addr} for {spelled} ({address})"
                )));
            }
            Err(error) => prop_assert!(
                error.kind() == relay_net::ErrorKind::BlockedAddress,
                "{spelled} ({address}): {error}"
            ),
        }
    }
    Ok(())
}

/// Every shipped range, every spelling, through check_url and connect_checked.
#[test]
fn no_blocked_address_is_accepted_in_any_spelling() {
    let rules = shipped_rules().expect("shipped list");
    let nets: Vec<IpNet> = rules.iter().map(|r| r.net).collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let strategy = (
        proptest::sample::select(nets),
        any::<u128>(),
        any::<usize>(),
    );
    let mut runner = TestRunner::new(Config {
        cases: 2048,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&strategy, |(net, offset, pick)| {
        let address = address_in(net, offset);
        let guard = support::guard(&OutboundConfig::default(), resolver_for(address));
        let all = spellings(address);
        let host = &all[pick % all.len()];
        runtime.block_on(assert_refused(&guard, host, 443, address))
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}

/// Every spelling of every edge address of every range (deterministic sweep).
#[test]
fn range_edges_are_refused_in_every_spelling() {
    let rules = shipped_rules().expect("shipped list");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut failures = Vec::new();
    for rule in &rules {
        for address in [address_in(rule.net, 0), address_in(rule.net, u128::MAX)] {
            let guard = support::guard(&OutboundConfig::default(), resolver_for(address));
            for host in spellings(address) {
                if let Err(e) = runtime.block_on(assert_refused(&guard, &host, 443, address)) {
                    failures.push(e.to_string());
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// A real listener on 127.0.0.1 with its port allowed: no spelling of a
/// loopback address ever opens a connection to it.
#[test]
fn loopback_listener_never_sees_a_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("local addr").port();
    let config = OutboundConfig {
        allow_ports: vec![port],
        ..OutboundConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let loopback: Vec<IpAddr> = vec![
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(Ipv6Addr::LOCALHOST),
    ];
    let mut runner = TestRunner::new(Config {
        cases: 512,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (proptest::sample::select(loopback), any::<usize>());
    let result = runner.run(&strategy, |(address, pick)| {
        let guard = support::guard(&config, resolver_for(address).with("localhost", [address]));
        let mut all = spellings(address);
        all.push("localhost".to_owned());
        all.push("LocalHost.".to_owned());
        let host = &all[pick % all.len()];
        runtime.block_on(assert_refused(&guard, host, port, address))
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    // A completed TCP handshake would be waiting in the accept queue.
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Err(e) => panic!("accept failed: {e}"),
        Ok((_, peer)) => panic!("the guard let a connection through from {peer}"),
    }
}

proptest! {
    #![proptest_config(Config { cases: 1024, failure_persistence: None, ..Config::default() })]

    /// Arbitrary text, as a URL, as a host or inside a URL, never panics and
    /// never connects.
    #[test]
    fn arbitrary_input_never_panics(text in "\\PC{0,64}", raw in proptest::collection::vec(any::<u8>(), 0..64)) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        // Everything is blocked so that no input can reach the network.
        let everything = OutboundConfig {
            block_cidrs: vec!["0.0.0.0/0".into(), "::/0".into()],
            ..OutboundConfig::default()
        };
        let guard = support::guard(&everything, StaticResolver::new());
        let lossy = String::from_utf8_lossy(&raw).into_owned();
        runtime.block_on(async {
            for input in [text.clone(), lossy.clone(), format!("https://{text}/"), format!("https://{lossy}:443/x")] {
                let _ = guard.check_url(&input).await;
            }
            for host in [&text, &lossy] {
                if let Ok((_, addr)) = guard.connect_checked(host, 443, Duration::from_millis(50)).await {
                    return Err(TestCaseError::fail(format!("connected to {addr} for {host:?}")));
                }
            }
            Ok(())
        })?;
    }
}
