//! A private Tansu broker per test: crates.io `tansu` (Apache-2.0), a
//! Kafka-compatible broker whose `--authentication` makes every client
//! authenticate with SASL SCRAM-SHA-256 or SCRAM-SHA-512 before any other
//! request. `scripts/test` builds it (with its SQLite storage only) and
//! exports its path as `RELAY_TEST_TANSU`.
//!
//! Its users are SCRAM credentials in its storage (SQLite, a file in the
//! test's temporary directory), made through the broker (`tansu user
//! create`), which an authenticating broker refuses to an unauthenticated
//! client: so the file first serves a broker without authentication, which
//! makes the users and the topic, then the authenticating one on the same
//! port. Dropping it ends the process and removes the directory.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use relay_compliance::process::free_port;

use crate::listening::listening;

pub const TANSU_ENV: &str = "RELAY_TEST_TANSU";

/// A user of the broker: name, password and SCRAM mechanism
/// (`scram256` or `scram512`, `tansu user create`'s words).
pub struct User {
    pub name: &'static str,
    pub password: &'static str,
    pub mechanism: &'static str,
}

pub struct Tansu {
    pub port: u16,
    child: Child,
    _dir: tempfile::TempDir,
}

/// The broker's program, or why there is none (the test then says
/// `SKIPPED`).
pub fn missing() -> Result<PathBuf, String> {
    std::env::var_os(TANSU_ENV)
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "{TANSU_ENV} names no tansu program; scripts/test builds it (cargo install tansu --features libsql)"
            )
        })
}

impl Tansu {
    /// An authenticating broker on a free port that advertises itself as
    /// `advertised_host`, with `users` and the topic `topic` (`partitions`
    /// of them) made.
    pub async fn start(
        program: PathBuf,
        advertised_host: &str,
        users: &[User],
        topic: &str,
        partitions: u32,
    ) -> Tansu {
        let dir = tempfile::Builder::new()
            .prefix("relay-tansu-")
            .tempdir()
            .expect("a temporary directory");
        let port = free_port();
        let broker = |authenticate: bool| {
            let mut c = Command::new(&program);
            c.arg("broker")
                .args(["--listener-url", &format!("tcp://127.0.0.1:{port}")])
                .args([
                    "--advertised-listener-url",
                    &format!("tcp://{advertised_host}:{port}"),
                ])
                // A path relative to the working directory.
                .args(["--storage-engine", "sqlite://tansu.db"])
                .current_dir(dir.path());
            if authenticate {
                c.arg("--authentication");
            }
            c.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("tansu broker starts")
        };
        let admin = |args: &[&str]| {
            let broker_url = format!("tcp://127.0.0.1:{port}");
            let out = Command::new(&program)
                .args(args)
                .args(["--broker", &broker_url])
                .stdin(Stdio::null())
                .output()
                .expect("tansu runs");
            assert!(
                out.status.success(),
                "tansu {}: {}{}",
                args[..2].join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        };

        let mut setup = broker(false);
        listening("tansu", port, Duration::from_secs(30)).await;
        for u in users {
            admin(&[
                "user",
                "create",
                u.name,
                u.password,
                "--mechanism",
                u.mechanism,
            ]);
        }
        admin(&[
            "topic",
            "create",
            topic,
            "--partitions",
            &partitions.to_string(),
        ]);
        let _ = setup.kill();
        let _ = setup.wait();

        let child = broker(true);
        listening("tansu", port, Duration::from_secs(30)).await;
        Tansu {
            port,
            child,
            _dir: dir,
        }
    }
}

impl Drop for Tansu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
