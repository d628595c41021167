//! The master key as an operator manages it, through the binary:
//! `relay keys rotate-master` online (a node serving with both keys),
//! interrupted after some batches and resumed, on SQLite and PostgreSQL;
//! a PostgreSQL node without a key refuses to start (no key is generated);
//! `relay migrate --check`; and no key ever printed.

mod harness;

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use harness::{MASTER_KEY, PgDb, Relay, Settings, Sink, Tenant, start, tenant};
use relay_receiver::{Behavior, Recorded};
use serde_json::json;

/// The key the rotation moves to (64 hex digits).
const NEW_KEY: &str = "3c5e7a9b1d2f4a6c8e0b2d4f6a8c0e1f3a5c7e9b2d4f6a8c0e2b4d6f8a1c3e5f";

/// `relay <args>` with only `env` of Relay's variables.
fn relay(args: &[&str], data_dir: &Path, env: &[(String, String)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_relay"));
    cmd.args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .current_dir(data_dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("RELAY_") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run relay")
}

/// `relay serve` that must refuse to start: its output once it has ended,
/// or a failure (and the process killed) if it is still running at the
/// deadline, so a node that wrongly starts fails the test instead of hanging it.
fn refused_serve(data_dir: &Path, env: &[(String, String)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_relay"));
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .current_dir(data_dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, _) in std::env::vars() {
        if k.starts_with("RELAY_") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run relay serve");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!("relay serve started instead of refusing:\n{}", text(&out));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Publishes one event and checks every endpoint got it, signed with its
/// own secret (so the node opened every signing key).
fn deliver(node: &Relay, t: &Tenant, sink: &Sink, endpoints: &[(String, String)], id: &str) {
    t.api.at(&node.url).publish_to(&t.consumer_id, id);
    let wanted: HashSet<String> = endpoints.iter().map(|(p, _)| p.clone()).collect();
    let marker = id.as_bytes().to_vec();
    let got = sink
        .wait_for_all(
            &wanted,
            |r: &Recorded| {
                r.body
                    .windows(marker.len())
                    .any(|w| w == marker.as_slice())
                    .then(|| r.path.clone())
            },
            Instant::now() + Duration::from_secs(60),
        )
        .unwrap_or_else(|e| panic!("deliveries of {id}: {e}"));
    for (path, secret) in endpoints {
        let r = got
            .iter()
            .find(|r| &r.path == path && r.body.windows(marker.len()).any(|w| w == marker))
            .unwrap();
        relay_verify::Verifier::new([secret.as_str()])
            .unwrap()
            .verify(
                &relay_verify::SignatureHeaders {
                    id: r.header("webhook-id").unwrap(),
                    timestamp: r.header("webhook-timestamp").unwrap(),
                    signature: r.header("webhook-signature").unwrap(),
                },
                &r.body,
            )
            .unwrap_or_else(|e| panic!("{path} {id}: {e:?}"));
    }
}

fn rotation_is_online_interruptible_and_resumable(db: Option<&PgDb>) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Sink::start(Behavior::ok());
    let base = Settings::new(dir.path(), &sink).database(db.map(|d| d.url.as_str()));
    let mut env = vec![(
        "RELAY_OPERATOR_TOKEN".to_string(),
        harness::OPERATOR.to_string(),
    )];
    if let Some(db) = db {
        env.push(("RELAY_DATABASE_URL".into(), db.url.clone()));
    }
    let with = |pairs: &[(&str, &str)]| {
        let mut e = env.clone();
        e.extend(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        e
    };
    let both_env = with(&[
        ("RELAY_MASTER_KEY", NEW_KEY),
        ("RELAY_MASTER_KEY_PREVIOUS", MASTER_KEY),
    ]);
    let mut outputs = Vec::new();

    // Sealed under the old key: 5 signing keys and a tenant secret.
    let node = start(&base);
    let t = tenant(&node.url, "rotation");
    let endpoints: Vec<(String, String)> = (0..5)
        .map(|i| {
            let path = format!("/r{i}");
            let e = t.endpoint(&sink.receiver.url(&path), "v1");
            (path, e["secret"].as_str().unwrap().to_string())
        })
        .collect();
    t.api.expect(
        "PUT",
        "/v1/secrets/db-password",
        Some(&json!({ "value": "a password that stays sealed" })),
        201,
    );
    deliver(&node, &t, &sink, &endpoints, "evt_before");
    let mut logs = vec![node.log.clone()];
    drop(node);

    // A rotation needs the previous key.
    let out = relay(
        &["keys", "rotate-master"],
        dir.path(),
        &with(&[("RELAY_MASTER_KEY", NEW_KEY)]),
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("needs both keys"), "{}", text(&out));
    outputs.push(out);

    // Serving with both keys while the rotation runs; it stops after two
    // batches of two (of 7 sealed values: 5 keys, the secret, the check).
    let both = base
        .clone()
        .env("RELAY_MASTER_KEY", NEW_KEY)
        .env("RELAY_MASTER_KEY_PREVIOUS", MASTER_KEY);
    let node = start(&both);
    logs.push(node.log.clone());
    let out = relay(
        &[
            "keys",
            "rotate-master",
            "--batch-size",
            "2",
            "--max-batches",
            "2",
        ],
        dir.path(),
        &both_env,
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Stopped after 2 batch(es): 4 of 4 values re-sealed"),
        "{}",
        text(&out)
    );
    outputs.push(out);
    // Midway, every key signs: those moved and those not yet.
    deliver(&node, &t, &sink, &endpoints, "evt_midway");

    // Resumed: the rest, from where it stopped.
    let out = relay(&["keys", "rotate-master"], dir.path(), &both_env);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Rotation complete: 3 of 3 sealed values re-sealed"),
        "{}",
        text(&out)
    );
    outputs.push(out);
    deliver(&node, &t, &sink, &endpoints, "evt_after");
    drop(node);

    // The new key alone now opens everything; the old one alone is refused.
    let node = start(&base.clone().env("RELAY_MASTER_KEY", NEW_KEY));
    logs.push(node.log.clone());
    deliver(&node, &t, &sink, &endpoints, "evt_new_only");
    drop(node);
    let out = refused_serve(dir.path(), &with(&[("RELAY_MASTER_KEY", MASTER_KEY)]));
    assert!(!out.status.success());
    assert!(
        text(&out).contains("master key does not match"),
        "{}",
        text(&out)
    );
    outputs.push(out);

    // No output, error or log holds either key.
    for out in &outputs {
        let t = text(out).to_lowercase();
        assert!(!t.contains(MASTER_KEY) && !t.contains(NEW_KEY), "{t}");
    }
    for log in logs {
        let t = std::fs::read_to_string(log).unwrap().to_lowercase();
        assert!(!t.contains(MASTER_KEY) && !t.contains(NEW_KEY), "{t}");
    }
}

#[test]
fn master_key_rotation_on_sqlite_is_online_interruptible_and_resumable() {
    rotation_is_online_interruptible_and_resumable(None);
}

#[test]
fn master_key_rotation_on_postgres_is_online_interruptible_and_resumable() {
    let Some(db) = PgDb::create("keys_rotation") else {
        return;
    };
    rotation_is_online_interruptible_and_resumable(Some(&db));
}

#[test]
fn on_postgres_a_node_without_a_master_key_refuses_to_start_and_generates_none() {
    let Some(db) = PgDb::create("keys_required") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let env = vec![
        ("RELAY_DATABASE_URL".to_string(), db.url.clone()),
        (
            "RELAY_OPERATOR_TOKEN".to_string(),
            harness::OPERATOR.to_string(),
        ),
    ];
    let out = refused_serve(dir.path(), &env);
    assert!(!out.status.success());
    assert!(
        text(&out)
            .contains("no master key: on PostgreSQL every node must be given the same master key"),
        "{}",
        text(&out)
    );
    assert!(
        !dir.path().join("master.key").exists(),
        "no key was generated"
    );
    // Given one by reference to a file (a mounted Kubernetes Secret), with
    // the Service's links in the environment, it starts.
    let secrets = tempfile::tempdir().unwrap();
    let key_file = secrets.path().join("master-key");
    std::fs::write(&key_file, format!("{NEW_KEY}\n")).unwrap();
    let mut env = env;
    env.push((
        "RELAY_MASTER_KEY".into(),
        format!("file:{}", key_file.display()),
    ));
    env.push(("RELAY_PORT".into(), "tcp://10.0.0.1:8080".into()));
    env.push(("RELAY_SERVICE_HOST".into(), "10.0.0.1".into()));
    let out = relay(&["migrate"], dir.path(), &env);
    assert!(out.status.success(), "{}", text(&out));
    let sink = Sink::start(Behavior::ok());
    let mut s = Settings::new(dir.path(), &sink).database(Some(&db.url));
    for (k, v) in &env {
        s = s.env(k, v);
    }
    let node = start(&s);
    drop(node);
    assert!(!dir.path().join("master.key").exists());
}

#[test]
fn migrate_check_says_behind_current_or_newer_and_a_newer_schema_is_not_served() {
    let dir = tempfile::tempdir().unwrap();
    let env: Vec<(String, String)> = Vec::new();
    let check = |expect: i32, says: &str| {
        let out = relay(&["migrate", "--check"], dir.path(), &env);
        assert_eq!(out.status.code(), Some(expect), "{}", text(&out));
        assert!(text(&out).starts_with(says), "{}", text(&out));
    };
    check(3, "behind: no database yet");
    assert!(
        !dir.path().join("relay.db").exists(),
        "a check creates nothing"
    );
    let out = relay(&["migrate"], dir.path(), &env);
    assert!(out.status.success(), "{}", text(&out));
    check(0, "current: schema version");

    // A newer Relay migrated it: this one says so and will not serve it.
    let url = format!("sqlite://{}", dir.path().join("relay.db").display());
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        use relay_store::ExecutorExt;
        let store = relay_store::connect(&url, &Default::default()).await.unwrap();
        store
            .write(relay_store::Commit::Durable, |mut x| {
                Box::pin(async move {
                    use relay_store::Exec;
                    x.execute(&relay_store::sql::SqlBuilder::new(
                        "INSERT INTO relay_migrations (version, name, applied_at) VALUES (99999, 'from_the_future', 0)",
                    ))
                    .await
                })
            })
            .await
            .unwrap();
    });
    check(4, "newer: the database holds migration(s) [99999]");
    for out in [
        relay(&["migrate"], dir.path(), &env),
        refused_serve(dir.path(), &env),
    ] {
        assert!(!out.status.success());
        assert!(
            text(&out).contains("the database's schema is newer than this binary"),
            "{}",
            text(&out)
        );
    }
}
