//! `relay serve` and `relay migrate`: wiring configuration to the libraries.

use std::sync::Arc;

use anyhow::Context;
use relay_core::time::{Clock, Timestamp};
use relay_store::Store;
use tokio::net::TcpListener;

use crate::config::{Config, LogFormat};

/// The wall clock; everything below the binary takes time from a `Clock`.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Timestamp(millis)
    }
}

pub fn init_tracing(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("RELAY_LOG")
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(&config.log_level))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match config.log_format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}

async fn open_store(config: &Config) -> anyhow::Result<Arc<dyn Store>> {
    if config.uses_sqlite() {
        std::fs::create_dir_all(&config.data_dir).with_context(|| {
            format!(
                "cannot create the data directory {}",
                config.data_dir.display()
            )
        })?;
    }
    relay_store::open(&config.database_url())
        .await
        .context("cannot open the database")
}

pub async fn migrate(config: &Config) -> anyhow::Result<()> {
    let store = open_store(config).await?;
    tracing::info!(backend = store.backend(), "database is up to date");
    Ok(())
}

const OPERATOR_TOKEN_SETTING: &str = "operator_token_sha256";

/// The operator token's digest: from configuration, from the database, or
/// generated now (printed once to stdout; only the digest is stored).
async fn operator_token_digest(config: &Config, store: &dyn Store) -> anyhow::Result<[u8; 32]> {
    if let Some(token) = &config.operator_token {
        return Ok(relay_api::auth::token_digest(token.expose()));
    }
    let stored = match store.get_setting(OPERATOR_TOKEN_SETTING).await? {
        Some(hex_digest) => hex_digest,
        None => {
            let token = relay_api::auth::new_operator_token();
            let digest = relay_api::auth::token_digest_hex(&token);
            let kept = store
                .put_setting_if_absent(OPERATOR_TOKEN_SETTING, &digest)
                .await?;
            if kept == digest {
                println!(
                    "Generated the operator token. It is shown only this once; store it safely:"
                );
                println!();
                println!("    RELAY_OPERATOR_TOKEN={token}");
                println!();
            }
            kept
        }
    };
    let bytes = hex::decode(&stored).context("the stored operator token digest is corrupt")?;
    bytes
        .try_into()
        .map_err(|_| anyhow::anyhow!("the stored operator token digest is corrupt"))
}

pub async fn serve(config: Config) -> anyhow::Result<()> {
    let store = open_store(&config).await?;
    let operator = operator_token_digest(&config, &*store).await?;
    let guard = relay_net::Guard::from_config(&config.outbound)
        .context("invalid [outbound] configuration")?;
    let state = relay_api::AppState::new(
        store.clone(),
        Arc::new(SystemClock),
        Arc::new(guard),
        operator,
        config.api_settings(),
    );
    let listener = TcpListener::bind(&config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, backend = store.backend(), "relay is listening");
    println!(
        "Relay listening on http://{addr} ({} backend)",
        store.backend()
    );
    relay_api::serve(listener, state, shutdown_signal()).await?;
    tracing::info!("relay stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutdown requested");
}
