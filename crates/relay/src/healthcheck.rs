//! `relay healthcheck`: asks the `relay serve` of the same configuration
//! whether it is alive (`/healthz`) or ready (`/readyz`) and exits 0 when it
//! answers `200`, 1 otherwise. It is the container image's health check (an
//! image without a shell or curl) and works wherever `relay serve` runs.
//!
//! It connects over loopback only (through `relay_net::loopback`, like every
//! outbound socket): a listener on `0.0.0.0` or `[::]` is asked at
//! `127.0.0.1` or `[::1]` on the same port.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::config::{Config, Flags};

#[derive(clap::Args)]
pub struct HealthcheckArgs {
    #[command(flatten)]
    pub flags: Flags,
    /// Ask `/readyz` (takes traffic: not shutting down, the database
    /// answers) instead of `/healthz` (the process answers).
    #[arg(long)]
    pub ready: bool,
    /// How long connecting and the answer may take, in seconds.
    #[arg(long, default_value_t = 5)]
    pub timeout_seconds: u64,
}

/// The most of an answer that is read (the probes answer a few bytes).
const MAX_ANSWER: u64 = 64 * 1024;

pub fn run(args: HealthcheckArgs) -> anyhow::Result<()> {
    let config = Config::load(&args.flags)?;
    let addr = probe_address(&config.listen)?;
    let path = if args.ready { "/readyz" } else { "/healthz" };
    let timeout = Duration::from_secs(args.timeout_seconds.max(1));
    let (status, body) =
        get(addr, path, timeout).with_context(|| format!("GET http://{addr}{path} failed"))?;
    if status != 200 {
        let code = problem_code(&body);
        bail!("GET http://{addr}{path} answered {status}{code}");
    }
    println!("GET http://{addr}{path} answered 200{}", role_of(&body));
    Ok(())
}

/// ` (role worker)` when the answer is `/readyz`'s JSON naming the role
/// (`[server] role`), else nothing.
fn role_of(body: &str) -> String {
    let role = body
        .split_once("\"role\":\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(role, _)| role);
    match role {
        Some(role) if ["all", "api", "worker"].contains(&role) => format!(" (role {role})"),
        _ => String::new(),
    }
}

/// Where to ask: the configured listen address, an unspecified one turned
/// into loopback.
fn probe_address(listen: &str) -> anyhow::Result<SocketAddr> {
    let mut addr: SocketAddr = listen
        .parse()
        .with_context(|| format!("listen: {listen:?} is not an address"))?;
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => addr.set_ip(Ipv4Addr::LOCALHOST.into()),
        IpAddr::V6(ip) if ip.is_unspecified() => addr.set_ip(Ipv6Addr::LOCALHOST.into()),
        ip if ip.is_loopback() => {}
        ip => bail!(
            "relay healthcheck asks over loopback only, and listen is {ip}; \
             listen on 0.0.0.0 (or loopback) or probe {addr} over HTTP"
        ),
    }
    Ok(addr)
}

/// One `GET` on a fresh connection; (status, body).
fn get(addr: SocketAddr, path: &str, timeout: Duration) -> anyhow::Result<(u16, String)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let tcp = runtime.block_on(async {
        tokio::time::timeout(timeout, relay_net::loopback::connect_loopback(addr)).await
    });
    let tcp = tcp.map_err(|_| anyhow::anyhow!("no connection within {timeout:?}"))??;
    let mut tcp = tcp.into_std()?;
    tcp.set_nonblocking(false)?;
    tcp.set_read_timeout(Some(timeout))?;
    tcp.set_write_timeout(Some(timeout))?;
    write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: relay-healthcheck\r\nConnection: close\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    tcp.take(MAX_ANSWER).read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .context("the answer is not HTTP/1.1")?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// ` (code)` of a problem+json answer, or nothing.
fn problem_code(body: &str) -> String {
    let code = body
        .split_once("\"code\":\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(code, _)| code);
    match code {
        Some(code) if code.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            format!(" ({code})")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unspecified_listen_address_is_asked_over_loopback() {
        assert_eq!(
            probe_address("0.0.0.0:8080").unwrap(),
            "127.0.0.1:8080".parse().unwrap()
        );
        assert_eq!(
            probe_address("[::]:9000").unwrap(),
            "[::1]:9000".parse().unwrap()
        );
        assert_eq!(
            probe_address("127.0.0.1:7").unwrap(),
            "127.0.0.1:7".parse().unwrap()
        );
        let err = probe_address("10.1.2.3:8080").unwrap_err().to_string();
        assert!(err.contains("loopback only"), "{err}");
    }

    #[test]
    fn the_role_readiness_names_is_shown_and_nothing_else_of_the_body() {
        assert_eq!(
            role_of(r#"{"status":"ready","role":"worker"}"#),
            " (role worker)"
        );
        assert_eq!(role_of(r#"{"status":"ready","role":"api"}"#), " (role api)");
        assert_eq!(role_of("ok"), "");
        assert_eq!(role_of(r#"{"role":"x\u001b[31m"}"#), "");
        assert_eq!(role_of(r#"{"role":7}"#), "");
    }

    #[test]
    fn a_problem_code_is_named_and_nothing_else_of_the_body() {
        assert_eq!(
            problem_code(r#"{"type":"about:blank","code":"shutting_down","detail":"x"}"#),
            " (shutting_down)"
        );
        assert_eq!(problem_code("ok"), "");
        assert_eq!(problem_code(r#"{"code":"a b"}"#), "");
    }
}
