//! The `relay` binary: parses flags and configuration, then hands over to the
//! libraries. Subcommands: `serve`, `migrate`, `config check`,
//! `keys rotate-master`, `openapi`,
//! `receive` (a local HTTPS receiver for trying Relay out), `bench`
//! (end-to-end measurements, see docs/benchmarks.md), `healthcheck` (asks a
//! running `serve` for `/healthz` or `/readyz`; the container's probe).

mod bench;
mod config;
mod healthcheck;
mod keys;
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
    /// Run the API and the delivery workers, or one of them (--role); apply pending migrations first.
    Serve(ServeArgs),
    /// Apply pending database migrations and exit.
    Migrate(MigrateArgs),
    /// Configuration tools.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Master key tools.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
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

#[derive(clap::Args)]
struct ServeArgs {
    #[command(flatten)]
    flags: Flags,
    /// Apply destructive migrations on PostgreSQL too (by default only
    /// `relay migrate` runs them there).
    #[arg(long)]
    allow_destructive_migrations: bool,
    /// What this process runs: all (the API and the delivery workers, the
    /// default), api (the API alone) or worker (the delivery workers, with
    /// /healthz, /readyz and /metrics alone). Overrides `[server] role`.
    #[arg(long, value_name = "all|api|worker")]
    role: Option<String>,
}

#[derive(clap::Args)]
struct CheckArgs {
    #[command(flatten)]
    flags: Flags,
    /// Check as `relay serve --role` would run.
    #[arg(long, value_name = "all|api|worker")]
    role: Option<String>,
}

#[derive(clap::Args)]
struct MigrateArgs {
    #[command(flatten)]
    flags: Flags,
    /// Only say whether the schema is behind, current or newer than this
    /// binary (exit status 3, 0, 4), migrating nothing.
    #[arg(long)]
    check: bool,
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Re-seal every sealed value under master_key, reading the old ones
    /// with master_key_previous; online, resumable.
    RotateMaster(keys::RotateArgs),
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Validate the configuration and print it, secrets redacted.
    Check(CheckArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Openapi => {
            print!("{}", relay_api::openapi::document_text());
            Ok(())
        }
        Command::Config {
            command: ConfigCommand::Check(args),
        } => {
            let config = Config::load(&Flags {
                role: args.role,
                ..args.flags
            })?;
            print!("{}", config.render_redacted());
            eprintln!("configuration is valid");
            Ok(())
        }
        Command::Migrate(args) => {
            let config = Config::load(&args.flags)?;
            serve::init_tracing(&config);
            if args.check {
                let code = runtime()?.block_on(serve::migrate_check(&config))?;
                std::process::exit(code);
            }
            runtime()?.block_on(serve::migrate(&config))
        }
        Command::Keys {
            command: KeysCommand::RotateMaster(args),
        } => {
            let config = Config::load(&args.flags)?;
            serve::init_tracing(&config);
            runtime()?.block_on(keys::rotate_master(&config, &args))
        }
        Command::Receive(args) => runtime()?.block_on(receive::receive(args)),
        Command::Bench(args) => bench::run(args),
        Command::Healthcheck(args) => healthcheck::run(args),
        Command::Serve(args) => {
            let mut config = Config::load(&Flags {
                role: args.role,
                ..args.flags
            })?;
            config.allow_destructive_migrations = args.allow_destructive_migrations;
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
