//! `relay bench`: the binary's part of it. The bench itself is the
//! `relay-bench` crate; it gets from here its logging and the way to start
//! a Relay ([`relay_bench::Launch`]), wired exactly as `relay serve` wires
//! one, from the configuration file the bench writes.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use crate::config::{Config, Flags};

/// Runs one workload (`relay bench <workload>`).
pub fn run(args: relay_bench::BenchArgs) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("RELAY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(crate::serve::log_colours())
        .with_writer(std::io::stderr)
        .try_init();
    relay_bench::run(args, Arc::new(|path| Box::pin(launch(path))))
}

/// Starts a Relay from `config_path` alone (no environment), its API on a
/// free loopback port.
async fn launch(config_path: PathBuf) -> anyhow::Result<relay_bench::Launched> {
    let config = Config::load_from(
        &Flags {
            config: Some(config_path),
            ..Flags::default()
        },
        &[],
    )?;
    let started = crate::serve::start(&config).await?;
    let metrics = started
        .state
        .metrics
        .get()
        .cloned()
        .context("the dispatcher's metrics are not wired")?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let api_addr = listener.local_addr()?;
    let mut stop_rx = started.stop.subscribe();
    tokio::spawn(relay_api::serve(listener, started.state, async move {
        let _ = stop_rx.wait_for(|s| *s).await;
    }));
    Ok(relay_bench::Launched {
        api_addr,
        store: started.store,
        stop: started.stop,
        engine: started.engine,
        metrics,
    })
}
