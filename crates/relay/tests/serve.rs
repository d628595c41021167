//! `relay serve` as a user runs it: zero configuration on SQLite, the operator
//! token printed once and only its hash kept, PostgreSQL by URL.

mod common;

use common::{curl, printed_token, start, tenant_key};

#[test]
fn zero_configuration_generates_the_operator_token_once() {
    let dir = tempfile::tempdir().unwrap();
    let first = start(dir.path(), &[]);
    let token = printed_token(&first.banner).expect("the first start prints the token");
    assert!(token.starts_with("rop_"));
    let (status, body) = curl(
        "POST",
        &format!("{}/v1/tenants", first.url),
        &token,
        Some(r#"{"name":"a"}"#),
    );
    assert_eq!(status, 201, "{body}");
    let (status, _) = curl(
        "GET",
        &format!("{}/v1/tenants", first.url),
        "rop_wrong",
        None,
    );
    assert_eq!(status, 401);
    drop(first);

    // The token is not stored in clear anywhere in the data directory.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                "{} holds the operator token in clear",
                path.display()
            );
        }
    }

    let second = start(dir.path(), &[]);
    assert_eq!(
        printed_token(&second.banner),
        None,
        "the token is printed only once"
    );
    let (status, body) = curl("GET", &format!("{}/v1/tenants", second.url), &token, None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"name\":\"a\""), "{body}");
}

#[test]
fn a_configured_operator_token_is_used_and_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let relay = start(
        dir.path(),
        &[("RELAY_OPERATOR_TOKEN", "rop_chosen_by_operator")],
    );
    assert_eq!(printed_token(&relay.banner), None);
    let (status, _) = curl(
        "GET",
        &format!("{}/v1/tenants", relay.url),
        "rop_chosen_by_operator",
        None,
    );
    assert_eq!(status, 200);
}

#[test]
fn postgres_is_selected_by_url() {
    let Some(url) = relay_store::testenv::postgres_url("postgres_is_selected_by_url") else {
        return;
    };
    // A database of its own, so this test never sees another run's tables.
    let db = format!("relay_serve_{}", std::process::id());
    let admin = std::process::Command::new("psql")
        .args([
            &url,
            "-c",
            &format!("DROP DATABASE IF EXISTS {db}"),
            "-c",
            &format!("CREATE DATABASE {db}"),
        ])
        .output()
        .expect("psql");
    assert!(
        admin.status.success(),
        "{}",
        String::from_utf8_lossy(&admin.stderr)
    );
    let db_url = match url.rsplit_once('/') {
        Some((base, _)) => format!("{base}/{db}"),
        None => panic!("the tests' PostgreSQL URL has no database name"),
    };
    let dir = tempfile::tempdir().unwrap();
    {
        let relay = start(
            dir.path(),
            &[
                ("RELAY_DATABASE_URL", &db_url),
                ("RELAY_OPERATOR_TOKEN", "rop_pg"),
            ],
        );
        let (status, body) = curl(
            "POST",
            &format!("{}/v1/tenants", relay.url),
            "rop_pg",
            Some(r#"{"name":"pg"}"#),
        );
        assert_eq!(status, 201, "{body}");
        assert!(
            !dir.path().join("relay.db").exists(),
            "no SQLite file when PostgreSQL is selected"
        );
    }
    let _ = std::process::Command::new("psql")
        .args([
            &url,
            "-c",
            &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
        ])
        .output();
}

#[test]
fn config_check_prints_the_effective_configuration_redacted() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["config", "check"])
        .env("RELAY_OPERATOR_TOKEN", "rop_secret_value")
        .env("RELAY_OUTBOUND__ALLOW_PORTS", "8443")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("allow_ports = [8443]"), "{text}");
    assert!(
        text.contains("<redacted>") && !text.contains("rop_secret_value"),
        "{text}"
    );

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["config", "check"])
        .env("RELAY_OUTBOUND__ALLOW_PORT", "8443")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("outbound.allow_port"));
}

#[test]
fn secrets_never_reach_the_logs_the_attempts_or_the_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let mut receiver = std::process::Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["receive", "--listen", "127.0.0.1:0", "--ca-file", "ca.pem"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(receiver.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut out, &mut first).unwrap();
    let receiver_url = first
        .strip_prefix("Receiving on ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    let port = receiver_url.rsplit(':').next().unwrap().to_string();
    let log = dir.path().join("relay.log");
    let ca = dir.path().join("ca.pem");
    let relay = common::start_logging(
        dir.path(),
        &[
            ("RELAY_OPERATOR_TOKEN", "rop_log_test_token_value"),
            ("RELAY_LOG", "debug"),
            ("RELAY_LOG_FORMAT", "json"),
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.1/32"),
            ("RELAY_OUTBOUND__ALLOW_PORTS", &port),
            ("RELAY_OUTBOUND__EXTRA_CA_CERTS", ca.to_str().unwrap()),
        ],
        Some(&log),
    );
    let op = "rop_log_test_token_value";
    let json = |s: &str| -> serde_json::Value { serde_json::from_str(s).unwrap() };
    let key = tenant_key(&relay.url, op);
    let schema = r#"{"schema":{"type":"object"}}"#;
    curl(
        "PUT",
        &format!("{}/v1/event-types/order.shipped", relay.url),
        &key,
        Some(schema),
    );
    let (_, c) = curl(
        "POST",
        &format!("{}/v1/consumers", relay.url),
        &key,
        Some(r#"{"external_id":"m"}"#),
    );
    let consumer = json(&c)["id"].as_str().unwrap().to_string();
    let body = format!(
        r#"{{"consumer_id":"{consumer}","signature_scheme":"v1","event_types":["order.shipped"],"destination":{{"kind":"https","url":"{receiver_url}/hooks"}}}}"#
    );
    let (status, e) = curl(
        "POST",
        &format!("{}/v1/endpoints", relay.url),
        &key,
        Some(&body),
    );
    assert_eq!(status, 201, "{e}");
    let secret = json(&e)["secret"].as_str().unwrap().to_string();
    let secret_b64 = secret.trim_start_matches("whsec_").to_string();
    let (status, _) = curl(
        "POST",
        &format!("{}/v1/events", relay.url),
        &key,
        Some(r#"{"type":"order.shipped","data":{"n":1}}"#),
    );
    assert_eq!(status, 202);
    // The delivery arrives (the receiver prints it).
    let mut line = String::new();
    while !line.starts_with("delivery ") {
        line.clear();
        assert!(
            std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0,
            "receiver ended"
        );
    }
    let (_, messages) = curl("GET", &format!("{}/v1/messages", relay.url), &key, None);
    let message = json(&messages)["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, attempts) = curl(
        "GET",
        &format!("{}/v1/messages/{message}/attempts", relay.url),
        &key,
        None,
    );
    let (_, metrics) = curl("GET", &format!("{}/metrics", relay.url), &key, None);
    assert!(metrics.contains("relay_attempts_total"), "{metrics}");
    drop(relay);
    let _ = receiver.kill();
    let _ = receiver.wait();
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("\"attempt finished\""),
        "json logs with the attempt span: {logged}"
    );
    for (what, text) in [
        ("log", &logged),
        ("attempts", &attempts),
        ("metrics", &metrics),
    ] {
        for secret in [secret_b64.as_str(), key.as_str(), op] {
            assert!(!text.contains(secret), "the {what} contain a secret");
        }
    }
}

/// Every spelling of `secret` that could sit in a file.
fn spellings(secret: &[u8]) -> Vec<Vec<u8>> {
    use base64::Engine;
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    let mut out = vec![secret.to_vec(), hex::encode(secret).into_bytes()];
    out.extend(engines.iter().map(|e| e.encode(secret).into_bytes()));
    out
}

#[test]
fn signing_secrets_are_sealed_at_rest_and_a_wrong_master_key_stops_the_start() {
    use base64::Engine;
    let dir = tempfile::tempdir().unwrap();
    let op = "rop_at_rest";
    let relay = start(dir.path(), &[("RELAY_OPERATOR_TOKEN", op)]);
    let json = |s: &str| -> serde_json::Value { serde_json::from_str(s).unwrap() };
    let key = tenant_key(&relay.url, op);
    let (_, c) = curl(
        "POST",
        &format!("{}/v1/consumers", relay.url),
        &key,
        Some(r#"{"external_id":"m"}"#),
    );
    let consumer = json(&c)["id"].as_str().unwrap().to_string();
    let body = format!(
        r#"{{"consumer_id":"{consumer}","signature_scheme":"v1","event_types":[],"destination":{{"kind":"https","url":"https://93.184.215.14/hooks"}}}}"#
    );
    let (status, e) = curl(
        "POST",
        &format!("{}/v1/endpoints", relay.url),
        &key,
        Some(&body),
    );
    assert_eq!(status, 201, "{e}");
    let endpoint = json(&e)["id"].as_str().unwrap().to_string();
    let mut secrets = vec![json(&e)["secret"].as_str().unwrap().to_string()];
    let (status, r) = curl(
        "POST",
        &format!("{}/v1/endpoints/{endpoint}/rotate-key", relay.url),
        &key,
        Some(r#"{"overlap_hours":1}"#),
    );
    assert_eq!(status, 200, "{r}");
    secrets.push(json(&r)["secret"].as_str().unwrap().to_string());
    drop(relay);

    // Nothing in the data directory (database, WAL, key file) holds a secret in clear.
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            files.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    assert!(files.iter().any(|(p, _)| p.ends_with("relay.db")));
    for secret in &secrets {
        let raw = base64::engine::general_purpose::STANDARD
            .decode(secret.trim_start_matches("whsec_"))
            .unwrap();
        for spelling in spellings(&raw) {
            for (path, bytes) in &files {
                assert!(
                    !bytes
                        .windows(spelling.len())
                        .any(|w| w == spelling.as_slice()),
                    "{} holds a signing secret in clear",
                    path.display()
                );
            }
        }
    }

    // The same data directory with another master key: a clear error, no start.
    let key_file = dir.path().join("master.key");
    assert!(
        key_file.exists(),
        "zero configuration generated the master key"
    );
    std::fs::write(&key_file, format!("{}\n", "ab".repeat(32))).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .env_remove("RELAY_OPERATOR_TOKEN")
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "relay serve must not start with the wrong master key"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("master key does not match"), "{err}");
    // A configured key file that is missing is an error too.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .env("RELAY_MASTER_KEY_FILE", dir.path().join("missing.key"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.key"));
}

#[test]
fn relay_migrate_creates_the_schema_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_relay"))
            .args(["migrate", "--data-dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(dir.path().join("relay.db").exists());
    // The migrated database serves at once.
    let relay = start(dir.path(), &[("RELAY_OPERATOR_TOKEN", "rop_m")]);
    let (status, _) = curl("GET", &format!("{}/v1/tenants", relay.url), "rop_m", None);
    assert_eq!(status, 200);
}
