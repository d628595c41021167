//! `relay receive`: a local HTTPS receiver for trying Relay out.
//!
//! It serves HTTPS on loopback with a certificate from a CA it generates,
//! writes that CA to a file (give it to `relay serve` as
//! `[outbound] extra_ca_certs`), and prints each delivery with the result of
//! verifying its Standard Webhooks signature over the raw body. The key to
//! verify with (`whpk_…` or `whsec_…`) is read from a file at each delivery,
//! so it can be written after the endpoint is created.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use relay_core::signature::{DEFAULT_TOLERANCE_SECONDS, SignatureHeaders, VerificationKey, verify};
use relay_core::time::Clock;
use relay_receiver::{Receiver, ReceiverConfig, Recorded};

#[derive(Debug, clap::Args)]
pub struct ReceiveArgs {
    /// Address to listen on (loopback).
    #[arg(long, default_value = "127.0.0.1:9443")]
    pub listen: SocketAddr,
    /// Where to write the PEM of the CA that signed the receiver's certificate.
    #[arg(long, default_value = "./receiver-ca.pem")]
    pub ca_file: PathBuf,
    /// A file holding the endpoint's `whpk_…` public key or `whsec_…` secret.
    #[arg(long)]
    pub verify_key_file: Option<PathBuf>,
}

/// The outcome of checking one delivery, as printed.
pub fn verdict(r: &Recorded, key_file: Option<&std::path::Path>, now_seconds: i64) -> String {
    let Some(path) = key_file else {
        return "not checked (no --verify-key-file)".into();
    };
    let Ok(text) = std::fs::read_to_string(path) else {
        return format!("not checked ({} not written yet)", path.display());
    };
    let key = match VerificationKey::parse(text.trim()) {
        Ok(k) => k,
        Err(e) => return format!("not checked (bad key in {}: {e})", path.display()),
    };
    let headers = SignatureHeaders {
        webhook_id: r.header("webhook-id").unwrap_or_default().to_string(),
        webhook_timestamp: r
            .header("webhook-timestamp")
            .unwrap_or_default()
            .to_string(),
        webhook_signature: r
            .header("webhook-signature")
            .unwrap_or_default()
            .to_string(),
    };
    match verify(
        &[key],
        &headers,
        &r.body,
        relay_core::time::Timestamp(now_seconds * 1000),
        DEFAULT_TOLERANCE_SECONDS,
    ) {
        Ok(()) => "valid".into(),
        Err(e) => format!("INVALID ({e})"),
    }
}

pub async fn receive(args: ReceiveArgs) -> anyhow::Result<()> {
    let receiver = Receiver::start(ReceiverConfig {
        addr: args.listen,
        ..Default::default()
    })
    .await
    .with_context(|| format!("cannot listen on {}", args.listen))?;
    std::fs::write(&args.ca_file, receiver.ca().ca_cert_pem())
        .with_context(|| format!("cannot write {}", args.ca_file.display()))?;
    println!(
        "Receiving on {} (CA certificate written to {})",
        receiver.url("/"),
        args.ca_file.display()
    );
    let clock = crate::serve::SystemClock;
    let mut seen = 0usize;
    loop {
        let next = tokio::select! {
            r = receiver.wait_for(seen + 1, Duration::from_secs(3600)) => r,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let Ok(all) = next else { continue };
        for r in &all[seen..] {
            let check = verdict(
                r,
                args.verify_key_file.as_deref(),
                clock.now().unix_seconds(),
            );
            println!(
                "delivery {} {} webhook-id={} type={} signature: {check}",
                r.method,
                r.path,
                r.header("webhook-id").unwrap_or("-"),
                r.header("relay-event-type").unwrap_or("-"),
            );
            println!("  {}", r.body_str().unwrap_or("<binary body>"));
        }
        seen = all.len();
    }
}
