//! Where the tests find PostgreSQL, and what they do without it.
//!
//! [`postgres_url`] is the one answer for every test of every crate that
//! needs a PostgreSQL server:
//! - `RELAY_TEST_POSTGRES_URL`, when set, names the server (a test that
//!   then cannot connect fails);
//! - otherwise the local default, [`DEFAULT_URL`] (user `postgres` without a
//!   password, database `test`), is used when it answers: probed once per
//!   test process by connecting to it;
//! - otherwise the test says `SKIPPED on PostgreSQL: <test> (<why>)` and
//!   runs its SQLite half only — unless `RELAY_TEST_REQUIRE_ALL=1` (set by
//!   `.ci/run`), under which a missing server fails the test. Each skip is
//!   also appended to the file `RELAY_TEST_SKIP_LOG` names, when set, so
//!   `scripts/test` can list the skips at the end of a run.
//!
//! [`server`] starts a private server instead, for the tests that need one
//! configured their way (TLS, `pg_hba.conf`).

pub mod server;

use std::io::Write;
use std::path::Path;
use std::str::FromStr;
use std::sync::OnceLock;
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection};

/// Names the PostgreSQL server the tests use (a URL with a database name).
pub const URL_ENV: &str = "RELAY_TEST_POSTGRES_URL";
/// The local server the tests use when [`URL_ENV`] is unset and it answers.
pub const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/test";
/// `1`: a test that would skip fails instead.
pub const REQUIRE_ALL_ENV: &str = "RELAY_TEST_REQUIRE_ALL";
/// A file each skip is appended to (one line each), when set.
pub const SKIP_LOG_ENV: &str = "RELAY_TEST_SKIP_LOG";

const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether every test must run (`RELAY_TEST_REQUIRE_ALL=1`).
pub fn require_all() -> bool {
    std::env::var(REQUIRE_ALL_ENV).is_ok_and(|v| v == "1")
}

/// The PostgreSQL URL for `test`, or `None` after saying `SKIPPED` (see the
/// module's documentation). Panics instead of skipping under
/// `RELAY_TEST_REQUIRE_ALL=1`.
pub fn postgres_url(test: &str) -> Option<String> {
    static FOUND: OnceLock<Result<String, String>> = OnceLock::new();
    let found = FOUND.get_or_init(|| choose(std::env::var(URL_ENV).ok(), probe_default));
    match found {
        Ok(url) => Some(url.clone()),
        Err(why) => {
            skip(&format!("on PostgreSQL: {test}"), why);
            None
        }
    }
}

/// The server named by `named` (the variable's value), else the default
/// when `probe` finds it answering; else why there is none.
fn choose(
    named: Option<String>,
    probe: impl FnOnce() -> Result<(), String>,
) -> Result<String, String> {
    match named {
        Some(url) if !url.is_empty() => Ok(url),
        _ => probe()
            .map(|()| DEFAULT_URL.to_owned())
            .map_err(|why| format!("{URL_ENV} is unset and {DEFAULT_URL} does not answer: {why}")),
    }
}

/// Says `SKIPPED <what> (<why>)` on stderr and in the skip log; panics
/// instead under `RELAY_TEST_REQUIRE_ALL=1`.
pub fn skip(what: &str, why: &str) {
    let log = std::env::var_os(SKIP_LOG_ENV).filter(|p| !p.is_empty());
    skip_with(require_all(), what, why, log.as_deref().map(Path::new));
}

fn skip_with(require_all: bool, what: &str, why: &str, log: Option<&Path>) {
    if require_all {
        panic!("{REQUIRE_ALL_ENV}=1 and this test would be SKIPPED {what}: {why}");
    }
    let line = format!("SKIPPED {what} ({why})");
    eprintln!("{line}");
    if let Some(path) = log {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path);
        // One write per line, so the lines of parallel tests do not interleave.
        if let Ok(mut file) = file {
            let _ = file.write_all(format!("{line}\n").as_bytes());
        }
    }
}

/// Whether the default server lets the default URL's user into its
/// database: one connection, closed at once. On a thread and a runtime of
/// its own, as its callers are synchronous and asynchronous tests alike.
fn probe_default() -> Result<(), String> {
    let probe = || -> Result<(), String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("no runtime for the probe: {e}"))?;
        rt.block_on(async {
            let options = PgConnectOptions::from_str(DEFAULT_URL).map_err(|e| e.to_string())?;
            match tokio::time::timeout(PROBE_TIMEOUT, options.connect()).await {
                Err(_) => Err(format!("no answer within {} s", PROBE_TIMEOUT.as_secs())),
                Ok(Err(e)) => Err(e.to_string()),
                Ok(Ok(conn)) => {
                    let _ = conn.close().await;
                    Ok(())
                }
            }
        })
    };
    std::thread::spawn(probe)
        .join()
        .unwrap_or_else(|_| Err("the probe panicked".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_server_is_used_without_a_probe() {
        let named = choose(Some("postgres://u@db:5433/x".into()), || {
            panic!("probed although a server was named")
        });
        assert_eq!(named, Ok("postgres://u@db:5433/x".into()));
    }

    #[test]
    fn without_a_name_the_default_is_used_when_it_answers() {
        assert_eq!(choose(None, || Ok(())), Ok(DEFAULT_URL.into()));
        // An empty variable is an unset one.
        assert_eq!(
            choose(Some(String::new()), || Ok(())),
            Ok(DEFAULT_URL.into())
        );
        let why = choose(None, || Err("connection refused".into())).unwrap_err();
        assert!(why.contains("RELAY_TEST_POSTGRES_URL is unset"), "{why}");
        assert!(why.contains("connection refused"), "{why}");
    }

    #[test]
    fn a_skip_is_said_and_logged() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("skips");
        skip_with(false, "on PostgreSQL: a", "no server", Some(&log));
        skip_with(false, "on PostgreSQL: b", "no server", Some(&log));
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "SKIPPED on PostgreSQL: a (no server)\nSKIPPED on PostgreSQL: b (no server)\n"
        );
    }

    #[test]
    #[should_panic(
        expected = "RELAY_TEST_REQUIRE_ALL=1 and this test would be SKIPPED on PostgreSQL: a"
    )]
    fn a_skip_fails_when_every_test_must_run() {
        skip_with(true, "on PostgreSQL: a", "no server", None);
    }
}
