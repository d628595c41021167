//! `relay serve` on PostgreSQL over TLS (issue #43 §1), end to end: a
//! private server the test starts (`relay_store::testenv::server`) with a
//! test CA, `ssl = on`, every plaintext connection refused (`hostnossl …
//! reject`) and the user `relay` authenticated by its client certificate
//! only (`cert`). Relay connects with `sslmode=verify-full`,
//! `sslrootcert`, `sslcert` and `sslkey` and `[store]` settings, and
//! delivers an event. With another CA's root it refuses to start, and its
//! error names the certificate problem without the password.
//!
//! Skipped (SKIPPED line) only without the PostgreSQL server's binaries; a
//! failure then under `RELAY_TEST_REQUIRE_ALL=1`.

mod harness;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use harness::{Settings, Sink, eventually, id_of, start, tenant};
use relay_receiver::{Behavior, TestCa};
use relay_store::testenv::server::{PgServer, ServerConfig, ServerTls};

const PASSWORD: &str = "pg-e2e-password-8d2b71";

struct Files {
    dir: tempfile::TempDir,
    ca: TestCa,
    client_key_pem: String,
}

impl Files {
    fn new() -> Files {
        let dir = tempfile::tempdir().unwrap();
        let ca = TestCa::generate();
        let client = ca.client_cert("relay");
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("ca.pem", &ca.ca_cert_pem());
        write(
            "wrong-ca.pem",
            &TestCa::generate_named("Another CA").ca_cert_pem(),
        );
        write("client.crt", &client.chain_pem());
        write("client.key", client.key_pem());
        Files {
            client_key_pem: client.key_pem().to_string(),
            dir,
            ca,
        }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// The TLS server, with the database `relay` owned by the role `relay`
    /// and `relay_pw` by `pwuser`.
    fn server(&self, test: &str) -> Option<PgServer> {
        let leaf = self.ca.default_leaf();
        let server = PgServer::start(
            test,
            &ServerConfig {
                tls: Some(ServerTls {
                    cert_pem: leaf.chain_pem(),
                    key_pem: leaf.key_pem().to_string(),
                    client_ca_pem: Some(self.ca.ca_cert_pem()),
                }),
                hba: vec![
                    "hostssl all relay 127.0.0.1/32 cert".into(),
                    "hostssl all pwuser 127.0.0.1/32 scram-sha-256".into(),
                    "hostnossl all all 127.0.0.1/32 reject".into(),
                ],
            },
        )?;
        server.psql("CREATE ROLE relay LOGIN");
        server.psql(&format!("CREATE ROLE pwuser LOGIN PASSWORD '{PASSWORD}'"));
        server.psql("CREATE DATABASE relay OWNER relay");
        server.psql("CREATE DATABASE relay_pw OWNER pwuser");
        Some(server)
    }

    /// A key's body line: never to be printed.
    fn key_line(&self) -> &str {
        self.client_key_pem.lines().nth(1).expect("a PEM body")
    }
}

#[test]
fn relay_serves_on_postgres_over_verified_tls_with_a_client_certificate() {
    let files = Files::new();
    let Some(server) =
        files.server("relay_serves_on_postgres_over_verified_tls_with_a_client_certificate")
    else {
        return;
    };
    let url = format!(
        "postgres://relay@127.0.0.1:{}/relay?sslmode=verify-full&sslrootcert={}&sslcert={}&sslkey={}",
        server.port(),
        files.path("ca.pem"),
        files.path("client.crt"),
        files.path("client.key"),
    );
    let sink = Sink::start(Behavior::ok());
    let data = tempfile::tempdir().unwrap();
    let relay = start(
        &Settings::new(data.path(), &sink)
            .database(Some(&url))
            .env("RELAY_STORE__POOL_SIZE", "4")
            .env("RELAY_STORE__CONNECT_TIMEOUT_SECONDS", "20")
            .env("RELAY_STORE__STATEMENT_TIMEOUT_SECONDS", "60"),
    );
    let t = tenant(&relay.url, "pgtls");
    let endpoint = t.endpoint(&sink.receiver.url("/tls"), "v1a");
    t.api.publish_to(&t.consumer_id, "evt_pg_tls_1");
    sink.wait_count(1, Instant::now() + Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("no delivery: {e}\n{}", relay.log_tail(30)));
    let messages = format!("/v1/messages?endpoint_id={}", id_of(&endpoint));
    eventually(
        "the message recorded as delivered",
        Instant::now() + Duration::from_secs(30),
        || (t.api.get(&messages)["data"][0]["state"] == "delivered").then_some(()),
    );

    // Every connection of Relay's is encrypted, and there are no more than
    // the pool's and its listener.
    let seen = server.query(
        "SELECT count(*), bool_and(s.ssl), max(s.version) FROM pg_stat_activity a \
         JOIN pg_stat_ssl s USING (pid) WHERE a.usename = 'relay'",
    );
    let cols: Vec<&str> = seen.split('|').collect();
    let count: usize = cols[0].parse().unwrap();
    assert!((1..=5).contains(&count), "{seen}");
    assert_eq!(cols[1], "t", "{seen}");
    assert!(cols[2].starts_with("TLSv1."), "{seen}");
    relay.assert_no_panic();
    assert!(!relay.log_text().contains(files.key_line()));
}

#[test]
fn relay_refuses_a_database_whose_certificate_another_ca_signed() {
    let files = Files::new();
    let Some(server) = files.server("relay_refuses_a_database_whose_certificate_another_ca_signed")
    else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let migrate = |query: &str| {
        let url = format!(
            "postgres://pwuser:{PASSWORD}@127.0.0.1:{}/relay_pw?{query}",
            server.port()
        );
        let out = run_relay(data.path(), &["migrate"], &url);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains(PASSWORD), "the password printed: {text}");
        assert!(!text.contains(files.key_line()), "the key printed: {text}");
        (out.status.success(), text)
    };
    let (ok, text) = migrate(&format!(
        "sslmode=verify-full&sslrootcert={}",
        files.path("wrong-ca.pem")
    ));
    assert!(!ok, "{text}");
    assert!(text.contains("cannot open the database"), "{text}");
    assert!(text.contains("UnknownIssuer"), "{text}");
    // The right CA: the password user migrates the database.
    let (ok, text) = migrate(&format!(
        "sslmode=verify-full&sslrootcert={}",
        files.path("ca.pem")
    ));
    assert!(ok, "{text}\n{}", server.log());
    // A key file that cannot be read is named, its parameter too.
    let (ok, text) = migrate(&format!(
        "sslmode=verify-full&sslrootcert={}&sslcert={}&sslkey={}",
        files.path("ca.pem"),
        files.path("client.crt"),
        files.path("missing.key"),
    ));
    assert!(!ok, "{text}");
    assert!(text.contains("sslkey: cannot read"), "{text}");
}

/// Runs `relay <args>` in `dir` with `RELAY_DATABASE_URL=url` and no other
/// `RELAY_` configuration.
fn run_relay(dir: &Path, args: &[&str], url: &str) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_relay"));
    cmd.args(args).current_dir(dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("RELAY_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("RELAY_DATABASE_URL", url)
        .env("RELAY_DATA_DIR", dir)
        .env("RELAY_STORE__CONNECT_TIMEOUT_SECONDS", "20")
        .output()
        .expect("run relay")
}
