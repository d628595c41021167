//! PostgreSQL over TLS (issue #43 §1): the store connects to private
//! servers the tests start (`relay_store::testenv::server`) with libpq's
//! `sslmode`, `sslrootcert`, `sslcert` and `sslkey`, against a test CA.
//!
//! The TLS server refuses every connection without TLS (`hostnossl …
//! reject`), authenticates `postgres` by password and `certuser` by its
//! client certificate (`cert`), and presents a certificate for the name
//! `localhost` only, so `verify-ca` to `127.0.0.1` passes where
//! `verify-full` does not. A second server without TLS proves `require`
//! refuses a plaintext-only server. No error quotes the password or a key.

use std::path::{Path, PathBuf};
use std::time::Duration;

use relay_receiver::TestCa;
use relay_store::testenv::server::{PgServer, ServerConfig, ServerTls};
use relay_store::{StoreError, StoreSettings};
use sqlx::Connection;

const PASSWORD: &str = "pg-tls-password-4f1c9e";

/// The test CA, a CA the server does not use, a client certificate for
/// `certuser`, all as files.
struct Pki {
    dir: tempfile::TempDir,
    ca: TestCa,
    client_key_pem: String,
}

impl Pki {
    fn new() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let ca = TestCa::generate();
        let wrong = TestCa::generate_named("Some other CA");
        std::fs::write(dir.path().join("ca.pem"), ca.ca_cert_pem()).unwrap();
        std::fs::write(dir.path().join("wrong-ca.pem"), wrong.ca_cert_pem()).unwrap();
        let client = ca.client_cert("certuser");
        std::fs::write(dir.path().join("client.crt"), client.chain_pem()).unwrap();
        std::fs::write(dir.path().join("client.key"), client.key_pem()).unwrap();
        Pki {
            dir,
            ca,
            client_key_pem: client.key_pem().to_string(),
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn tls_server(&self, test: &str) -> Option<PgServer> {
        let leaf = self.ca.leaf().without_defaults().name("localhost").build();
        let server = PgServer::start(
            test,
            &ServerConfig {
                tls: Some(ServerTls {
                    cert_pem: leaf.chain_pem(),
                    key_pem: leaf.key_pem().to_string(),
                    client_ca_pem: Some(self.ca.ca_cert_pem()),
                }),
                hba: vec![
                    "hostssl all postgres 127.0.0.1/32 scram-sha-256".into(),
                    "hostssl all certuser 127.0.0.1/32 cert".into(),
                    "hostnossl all all 127.0.0.1/32 reject".into(),
                ],
            },
        )?;
        server.psql(&format!("ALTER ROLE postgres PASSWORD '{PASSWORD}'"));
        server.psql("CREATE ROLE certuser LOGIN SUPERUSER");
        Some(server)
    }
}

fn url(host: &str, port: u16, user: &str, query: &str) -> String {
    let password = if user == "postgres" {
        format!(":{PASSWORD}")
    } else {
        String::new()
    };
    format!("postgres://{user}{password}@{host}:{port}/postgres?{query}")
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// Opens the store (migrations included) at `url`, then says whether its
/// own connection is encrypted (`pg_stat_ssl`).
async fn open_and_check_tls(url: &str) -> Result<bool, StoreError> {
    let settings = StoreSettings {
        connect_timeout: Duration::from_secs(20),
        ..StoreSettings::default()
    };
    let store = relay_store::open_with(url, &settings).await?;
    drop(store);
    let options = relay_store::postgres::connect::connect_options(url)?;
    let mut conn = sqlx::PgConnection::connect_with(&options).await?;
    let ssl: bool = sqlx::query_scalar("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        .fetch_one(&mut conn)
        .await?;
    conn.close().await?;
    Ok(ssl)
}

/// The error opening the store at `url`, checked to quote no secret.
async fn refused(pki: &Pki, url: &str) -> String {
    let settings = StoreSettings {
        connect_timeout: Duration::from_secs(20),
        ..StoreSettings::default()
    };
    let Err(e) = relay_store::open_with(url, &settings).await else {
        panic!("{url} was accepted");
    };
    let text = format!("{e} / {e:?} / {:?}", std::error::Error::source(&e));
    assert!(!text.contains(PASSWORD), "the password in {text}");
    assert!(
        !text.contains(pki.client_key_pem.lines().nth(1).unwrap()),
        "the key in {text}"
    );
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_connects_over_tls_as_each_sslmode_says() {
    let pki = Pki::new();
    let Some(server) = pki.tls_server("the_store_connects_over_tls_as_each_sslmode_says") else {
        return;
    };
    let port = server.port();
    let ca = path(&pki.file("ca.pem"));
    let wrong = path(&pki.file("wrong-ca.pem"));

    // `require` encrypts without checking the certificate.
    let ok = open_and_check_tls(&url("127.0.0.1", port, "postgres", "sslmode=require")).await;
    assert_eq!(ok.map_err(|e| e.to_string()), Ok(true), "{}", server.log());
    // `verify-ca` checks the chain, not the name.
    let q = format!("sslmode=verify-ca&sslrootcert={ca}");
    assert_eq!(
        open_and_check_tls(&url("127.0.0.1", port, "postgres", &q))
            .await
            .map_err(|e| e.to_string()),
        Ok(true)
    );
    // `verify-full` checks the name too: `localhost` is in the certificate,
    // `127.0.0.1` is not.
    let q = format!("sslmode=verify-full&sslrootcert={ca}");
    assert_eq!(
        open_and_check_tls(&url("localhost", port, "postgres", &q))
            .await
            .map_err(|e| e.to_string()),
        Ok(true)
    );
    let why = refused(&pki, &url("127.0.0.1", port, "postgres", &q)).await;
    assert!(why.contains("NotValidForName"), "{why}");

    // Another CA's certificate is refused by every verifying mode, and by
    // `require` with a root certificate (libpq's rule: then it verifies).
    for mode in ["verify-ca", "verify-full", "require"] {
        let q = format!("sslmode={mode}&sslrootcert={wrong}");
        let why = refused(&pki, &url("localhost", port, "postgres", &q)).await;
        assert!(why.contains("UnknownIssuer"), "{mode}: {why}");
    }

    // Without TLS the server refuses (`hostnossl … reject`).
    let why = refused(&pki, &url("127.0.0.1", port, "postgres", "sslmode=disable")).await;
    assert!(why.contains("no encryption"), "{why}");

    // A client certificate authenticates `certuser`; without it, nothing does.
    let client = format!(
        "sslmode=verify-full&sslrootcert={ca}&sslcert={}&sslkey={}",
        path(&pki.file("client.crt")),
        path(&pki.file("client.key"))
    );
    assert_eq!(
        open_and_check_tls(&url("localhost", port, "certuser", &client))
            .await
            .map_err(|e| e.to_string()),
        Ok(true)
    );
    let q = format!("sslmode=verify-full&sslrootcert={ca}");
    let why = refused(&pki, &url("localhost", port, "certuser", &q)).await;
    assert!(why.contains("certificate"), "{why}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn require_refuses_a_server_without_tls() {
    let pki = Pki::new();
    let Some(server) = PgServer::start(
        "require_refuses_a_server_without_tls",
        &ServerConfig {
            tls: None,
            hba: vec!["host all all 127.0.0.1/32 trust".into()],
        },
    ) else {
        return;
    };
    let port = server.port();
    let ca = path(&pki.file("ca.pem"));
    for query in [
        "sslmode=require".to_string(),
        format!("sslmode=verify-ca&sslrootcert={ca}"),
        format!("sslmode=verify-full&sslrootcert={ca}"),
    ] {
        let why = refused(&pki, &url("127.0.0.1", port, "postgres", &query)).await;
        assert!(
            why.contains("server does not support TLS"),
            "{query}: {why}"
        );
    }
    // `prefer` (the default) and `disable` go on in plain text.
    for query in ["sslmode=prefer", "sslmode=disable", ""] {
        assert_eq!(
            open_and_check_tls(&url("127.0.0.1", port, "postgres", query))
                .await
                .map_err(|e| e.to_string()),
            Ok(false),
            "{query}"
        );
    }
}
