//! The `relay` binary: parses flags and configuration, then hands over to the
//! libraries. Subcommands: `serve`, `migrate`, `config check`, `openapi`,
//! `receive` (a local HTTPS receiver for trying Relay out), `bench`
//! (end-to-end measurements, see docs/benchmarks.md), `healthcheck` (asks a
//! running `serve` for `/healthz` or `/readyz`; the container's probe).

mod bench;
mod config;
mod healthcheck;
mod receive;
mod serve;

use clap::{Parser, Subcommand};

use crate::config::{Config, Flags};

/// mimalloc instead of glibc's malloc: glibc's was 8–11 % of the samples of
/// a loaded run (docs/benchmarks.md, "Where the time goes"). Built without
/// transparent huge pages, which doubled peak RSS for no speed.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "relay",
    version,
    about = "Durable, signed, at-least-once event delivery"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the API (and apply pending migrations first).
    Serve(Flags),
    /// Apply pending database migrations and exit.
    Migrate(Flags),
    /// Configuration tools.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Print the OpenAPI document.
    Openapi,
    /// Run a local HTTPS receiver that prints and verifies deliveries (for trying Relay out).
    Receive(receive::ReceiveArgs),
    /// Measure Relay end to end: Relay, an HTTPS receiver and a publisher in one process.
    Bench(relay_bench::BenchArgs),
    /// Ask the `relay serve` of this configuration for /healthz (or /readyz with --ready); exit 0 when it answers 200.
    Healthcheck(healthcheck::HealthcheckArgs),
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Validate the configuration and print it, secrets redacted.
    Check(Flags),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Openapi => {
            print!("{}", relay_api::openapi::document_text());
            Ok(())
        }
        Command::Config {
            command: ConfigCommand::Check(flags),
        } => {
            let config = Config::load(&flags)?;
            print!("{}", config.render_redacted());
            eprintln!("configuration is valid");
            Ok(())
        }
        Command::Migrate(flags) => {
            let config = Config::load(&flags)?;
            serve::init_tracing(&config);
            runtime()?.block_on(serve::migrate(&config))
        }
        Command::Receive(args) => runtime()?.block_on(receive::receive(args)),
        Command::Bench(args) => bench::run(args),
        Command::Healthcheck(args) => healthcheck::run(args),
        Command::Serve(flags) => {
            let config = Config::load(&flags)?;
            serve::init_tracing(&config);
            runtime()?.block_on(serve::serve(config))
        }
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}
