//! `relay serve` as a user runs it: zero configuration on SQLite, the operator
//! token printed once and only its hash kept, PostgreSQL by URL.

mod common;

use common::{curl, generated_token, printed_token, start, tenant_key};

/// Zero configuration: the first start generates the operator token and
/// hands it over without a log stream seeing it. Standard output here is a
/// pipe (what a service manager or a container collects), so the token goes
/// to `<data_dir>/operator-token`, readable by its owner only, and only that
/// file's path is printed and logged.
#[test]
fn zero_configuration_generates_the_operator_token_once_and_never_logs_it() {
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let first = common::start_logging(dir.path(), &[], Some(&logs.path().join("first.log")));
    let token = generated_token(&first).expect("the first start writes the token to its file");
    assert!(token.starts_with("rop_"));
    assert_eq!(printed_token(&first.banner), None, "{:?}", first.banner);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(common::token_file(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
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
    let logged = std::fs::read_to_string(logs.path().join("first.log")).unwrap();
    assert!(
        !logged.contains(&token),
        "the log holds the token:\n{logged}"
    );
    assert!(
        logged.contains("operator-token"),
        "the log names the file:\n{logged}"
    );

    // Apart from the file handed to the operator, the token is not stored
    // in clear anywhere in the data directory.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() && path != common::token_file(dir.path()) {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                "{} holds the operator token in clear",
                path.display()
            );
        }
    }

    // The next start generates none, and reminds the operator of the file.
    let second = common::start_logging(dir.path(), &[], Some(&logs.path().join("second.log")));
    assert_eq!(generated_token(&second), None, "{:?}", second.banner);
    assert_eq!(printed_token(&second.banner), None);
    let (status, body) = curl("GET", &format!("{}/v1/tenants", second.url), &token, None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"name\":\"a\""), "{body}");
    drop(second);
    let logged = std::fs::read_to_string(logs.path().join("second.log")).unwrap();
    assert!(
        logged.contains("still holds the generated operator token"),
        "{logged}"
    );
    assert!(!logged.contains(&token));
}

/// A person who starts Relay at a terminal is shown the token there, once;
/// then nothing is written to the data directory. (`script` gives
/// `relay serve` a pseudo-terminal.)
#[test]
fn a_generated_operator_token_is_shown_on_a_terminal_and_written_nowhere() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "exec '{}' serve --listen 127.0.0.1:0 --data-dir '{}'",
        env!("CARGO_BIN_EXE_relay"),
        dir.path().display()
    );
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qfec", &command, "/dev/null"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    for (k, _) in std::env::vars() {
        if k.starts_with("RELAY_") {
            cmd.env_remove(k);
        }
    }
    // Killing `script` hangs up the terminal, which ends `relay serve`.
    let mut script = Killed(cmd.spawn().expect("run script (util-linux)"));
    let stdout = script.0.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    let url = loop {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("relay serve printed no address ({e}): {lines:?}"));
        let line = line.trim_end_matches('\r').to_string();
        if let Some(rest) = line.strip_prefix("Relay listening on ") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
        lines.push(line);
    };
    let token = printed_token(&lines).unwrap_or_else(|| panic!("no token shown: {lines:?}"));
    assert!(!common::token_file(dir.path()).exists());
    let (status, body) = curl("GET", &format!("{url}/v1/tenants"), &token, None);
    assert_eq!(status, 200, "{body}");
}

/// Kills the process when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A configured operator token must be hard to guess: a weak one stops the
/// start with a message that names the setting, never the token.
#[test]
fn a_weak_configured_operator_token_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    for token in ["rop_short", "rop_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_relay"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path())
            .env("RELAY_OPERATOR_TOKEN", token)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{token} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        let said = format!("{err}{}", String::from_utf8_lossy(&out.stdout));
        assert!(err.contains("operator_token"), "{err}");
        assert!(
            err.contains("at least 32") || err.contains("too easy"),
            "{err}"
        );
        assert!(!said.contains(token), "{said}");
    }
}

/// `[metrics] listen` and `[metrics] token`: `/metrics` on an address of
/// its own, only for the holder of its token, and no longer on the API's.
#[test]
fn metrics_can_have_a_listener_and_a_token_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let op = "rop_metrics_0f3c9a1e5b7d2f4a6c8e0b1d3f";
    let metrics_token = "mtr_0f3c9a1e5b7d2f4a6c8e0b1d3f5a7c9e";
    let relay = start(
        dir.path(),
        &[
            ("RELAY_OPERATOR_TOKEN", op),
            ("RELAY_METRICS__LISTEN", "127.0.0.1:0"),
            ("RELAY_METRICS__TOKEN", metrics_token),
        ],
    );
    let metrics_url = relay
        .banner
        .iter()
        .find_map(|l| l.strip_prefix("Metrics listening on "))
        .unwrap_or_else(|| panic!("no metrics address printed: {:?}", relay.banner))
        .to_string();
    let (status, body) = curl("GET", &metrics_url, metrics_token, None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("relay_"), "{body}");
    let (status, body) = curl("GET", &metrics_url, op, None);
    assert_eq!(status, 401, "{body}");
    let (status, body) = curl(
        "GET",
        &format!("{}/metrics", relay.url),
        metrics_token,
        None,
    );
    assert_eq!(status, 404, "{body}");
}

/// `SIGTERM` ends `relay serve` within `[server] shutdown_drain_seconds`
/// while slow clients hold connections in every phase (a head, a body,
/// idle), and a normal request answers promptly beside them until then.
#[test]
fn sigterm_ends_the_process_within_the_drain_time_while_slow_clients_hold_connections() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let op = "rop_drain_0f3c9a1e5b7d2f4a6c8e0b1d3f5a";
    let mut relay = start(
        dir.path(),
        &[
            ("RELAY_OPERATOR_TOKEN", op),
            ("RELAY_SERVER__SHUTDOWN_DRAIN_SECONDS", "2"),
            ("RELAY_SERVER__HEADER_READ_TIMEOUT_SECONDS", "120"),
            ("RELAY_SERVER__BODY_READ_TIMEOUT_SECONDS", "120"),
            ("RELAY_SERVER__IDLE_TIMEOUT_SECONDS", "120"),
        ],
    );
    let key = tenant_key(&relay.url, op);
    let addr = relay.url.trim_start_matches("http://").to_string();
    let mut held = Vec::new();
    for i in 0..150 {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        let partial = match i % 3 {
            0 => "POST /v1/events HTTP/1.1\r\nHost: relay.test\r\nX-Slow: a".to_string(),
            1 => format!(
                "POST /v1/events HTTP/1.1\r\nHost: relay.test\r\nAuthorization: Bearer {key}\r\nContent-Length: 1000\r\n\r\n{{"
            ),
            _ => "GET /healthz HTTP/1.1\r\nHost: relay.test\r\n\r\n".to_string(),
        };
        s.write_all(partial.as_bytes()).unwrap();
        held.push(s);
    }
    let t0 = Instant::now();
    let (status, _) = curl("GET", &format!("{}/healthz", relay.url), op, None);
    assert_eq!(status, 200);
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());

    let t0 = Instant::now();
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &relay.child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = t0 + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = relay.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "relay serve still running 15 s after SIGTERM (drain time 2 s)"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = t0.elapsed();
    assert!(status.success(), "{status}");
    assert!(took < Duration::from_secs(4), "SIGTERM to exit: {took:?}");
    println!(
        "SIGTERM with {} slow connections held: exited after {took:?}",
        held.len()
    );
}

#[test]
fn a_configured_operator_token_is_used_and_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let relay = start(
        dir.path(),
        &[(
            "RELAY_OPERATOR_TOKEN",
            "rop_chosen_by_operator_0f3c9a1e5b7d",
        )],
    );
    assert_eq!(printed_token(&relay.banner), None);
    let (status, _) = curl(
        "GET",
        &format!("{}/v1/tenants", relay.url),
        "rop_chosen_by_operator_0f3c9a1e5b7d",
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
                (
                    "RELAY_OPERATOR_TOKEN",
                    "rop_pg_0f3c9a1e5b7d2f4a6c8e0b1d3f5a",
                ),
                // On PostgreSQL the master key is never generated (keys.rs).
                ("RELAY_MASTER_KEY", &"4d".repeat(32)),
            ],
        );
        let (status, body) = curl(
            "POST",
            &format!("{}/v1/tenants", relay.url),
            "rop_pg_0f3c9a1e5b7d2f4a6c8e0b1d3f5a",
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
        .env("RELAY_OPERATOR_TOKEN", "rop_secret_value_0f3c9a1e5b7d2f4a")
        .env("RELAY_OUTBOUND__ALLOW_PORTS", "8443")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("allow_ports = [8443]"), "{text}");
    assert!(
        text.contains("<redacted>") && !text.contains("rop_secret_value_0f3c9a1e5b7d2f4a"),
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
            ("RELAY_OPERATOR_TOKEN", "rop_log_test_token_value_0f3c9a1e"),
            ("RELAY_LOG", "debug"),
            ("RELAY_LOG_FORMAT", "json"),
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.1/32"),
            ("RELAY_OUTBOUND__ALLOW_PORTS", &port),
            ("RELAY_OUTBOUND__EXTRA_CA_CERTS", ca.to_str().unwrap()),
        ],
        Some(&log),
    );
    let op = "rop_log_test_token_value_0f3c9a1e";
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
        Some(&format!(
            r#"{{"type":"order.shipped","consumer_id":"{consumer}","data":{{"n":1}}}}"#
        )),
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
    let op = "rop_at_rest_0f3c9a1e5b7d2f4a6c8e0b1d";
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
    let relay = start(
        dir.path(),
        &[(
            "RELAY_OPERATOR_TOKEN",
            "rop_migrated_0f3c9a1e5b7d2f4a6c8e0b",
        )],
    );
    let (status, _) = curl(
        "GET",
        &format!("{}/v1/tenants", relay.url),
        "rop_migrated_0f3c9a1e5b7d2f4a6c8e0b",
        None,
    );
    assert_eq!(status, 200);
}
