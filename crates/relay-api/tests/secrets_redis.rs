//! End to end: a Redis Streams endpoint whose password is a tenant secret
//! (`secret:redis-pw`), against a private `redis-server` with
//! `requirepass`, through the API and the dispatcher. The password changes
//! on the server; once the secret is replaced through the API, the very
//! next attempt authenticates with the new value (no restart, no refresh
//! interval waited). Neither value reaches an answer, the audit log, an
//! attempt record or the log. On SQLite and PostgreSQL.

mod common;

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use common::Harness;
use relay_net::{Guard, OutboundConfig, StaticResolver};
use relay_store::conformance::TestDb;
use serde_json::{Value, json};

const HOST: &str = "redis.secrets.test";
const STREAM: &str = "orders";

fn cli(port: u16, pw: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(["--no-auth-warning", "-a", pw])
        .args(args)
        .output()
        .map_err(|e| format!("redis-cli: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || text.starts_with("ERR") || text.contains("Could not connect") {
        return Err(text);
    }
    Ok(text)
}

/// A private redis-server requiring `pw`, stopped when dropped.
struct Redis {
    port: u16,
    child: Child,
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_redis(pw: &str) -> Option<Redis> {
    if Command::new("redis-server")
        .arg("--version")
        .output()
        .is_err()
    {
        relay_store::testenv::skip(
            "secrets_redis",
            "redis-server is not installed (Debian: apt-get install redis-server)",
        );
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--loglevel", "warning"])
        .args(["--requirepass", pw])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start redis-server");
    let redis = Redis { port, child };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while cli(port, pw, &["PING"])
        .map(|o| o.trim() != "PONG")
        .unwrap_or(true)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "redis-server did not answer"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(redis)
}

/// What the log subscriber wrote.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

async fn messages(h: &Harness, key: &str) -> Vec<Value> {
    h.get("/v1/messages", key).await.expect(StatusCode::OK)["data"]
        .as_array()
        .unwrap()
        .clone()
}

async fn a_tenant_secret_authenticates_a_broker_and_a_new_value_is_used_at_once(postgres: bool) {
    let db = if postgres {
        match TestDb::postgres("secrets_redis").await {
            Some(db) => db,
            None => return,
        }
    } else {
        TestDb::sqlite().await
    };
    let old = format!("rpw-old-{}", std::process::id());
    let new = format!("rpw-new-{}", std::process::id());
    let Some(redis) = start_redis(&old) else {
        return;
    };
    let port = redis.port;
    let outbound = OutboundConfig {
        allow_ports: vec![port],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        allow_plaintext_credentials_to_loopback: true,
        ..Default::default()
    };
    let resolver = StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]);
    let guard = Arc::new(Guard::with_resolver(&outbound, Arc::new(resolver)).expect("guard"));
    let mut engine = relay_engine::EngineConfig::new("secrets-redis");
    engine.secret_refresh = Duration::from_secs(3600);
    let h = Harness::build(db, Default::default(), guard, engine).await;

    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let (_, key) = h.tenant_with_key("acme", "live").await;
    let mut answers = String::new();
    let r = h
        .put("/v1/secrets/redis-pw", &key, json!({ "value": old }))
        .await;
    answers.push_str(&r.text());
    r.expect(StatusCode::CREATED);
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "c").await;
    let r = h
        .post(
            "/v1/endpoints",
            &key,
            json!({
                "consumer_id": consumer,
                "destination": {
                    "kind": "redis_stream", "host": HOST, "port": port,
                    "stream": STREAM, "password": "secret:redis-pw",
                },
                "event_types": ["order.created"],
            }),
        )
        .await;
    answers.push_str(&r.text());
    r.expect(StatusCode::CREATED);

    let publish = |n: u32| {
        let h = &h;
        let key = key.clone();
        async move {
            h.publish(
                &key,
                json!({ "type": "order.created", "data": { "order": n } }),
            )
            .await
            .expect(StatusCode::ACCEPTED);
        }
    };
    publish(1).await;
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(
        cli(port, &old, &["XLEN", STREAM]).unwrap().trim(),
        "1",
        "delivered with AUTH from the tenant secret"
    );

    // The password changes on the server, and Relay's pooled connection
    // goes: the next attempt, with the old value, is refused and retried.
    cli(port, &old, &["CONFIG", "SET", "requirepass", &new]).unwrap();
    cli(port, &new, &["CLIENT", "KILL", "TYPE", "normal"]).unwrap();
    publish(2).await;
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    let waiting: Vec<Value> = messages(&h, &key)
        .await
        .into_iter()
        .filter(|m| m["state"] != "delivered")
        .collect();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let waiting_id = waiting[0]["id"].as_str().unwrap().to_string();
    let attempts = h
        .get(&format!("/v1/messages/{waiting_id}/attempts"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(attempts["data"][0]["outcome"], "retry", "{attempts}");
    assert_eq!(
        attempts["data"][0]["error_code"], "auth_refused",
        "{attempts}"
    );

    // The tenant replaces the secret. The retry comes 4 to 6 s later, well
    // within the refresh interval (an hour here): only the API telling the
    // dispatcher makes it resolve the secret again.
    let r = h
        .put("/v1/secrets/redis-pw", &key, json!({ "value": new }))
        .await;
    answers.push_str(&r.text());
    r.expect(StatusCode::OK);
    h.clock.advance_millis(10_000);
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(cli(port, &new, &["XLEN", STREAM]).unwrap().trim(), "2");
    let all = messages(&h, &key).await;
    assert!(all.iter().all(|m| m["state"] == "delivered"), "{all:?}");

    // Neither value anywhere.
    let mut records = String::new();
    for m in &all {
        let id = m["id"].as_str().unwrap();
        records.push_str(
            &h.get(&format!("/v1/messages/{id}/attempts"), &key)
                .await
                .text(),
        );
        records.push_str(&h.get(&format!("/v1/messages/{id}"), &key).await.text());
    }
    records.push_str(&h.get("/v1/endpoints", &key).await.text());
    records.push_str(&h.get("/v1/secrets", &key).await.text());
    let audit = h.get("/v1/audit-log", &key).await.text();
    let logs = captured.text();
    assert!(
        logs.contains("auth_refused"),
        "the log was captured: {logs}"
    );
    for pw in [&old, &new] {
        for (what, text) in [
            ("an answer", &answers),
            ("a record", &records),
            ("the audit log", &audit),
            ("the log", &logs),
        ] {
            assert!(!text.contains(pw.as_str()), "a password in {what}: {text}");
        }
    }
    drop(redis);
    h.db.cleanup().await;
}

#[tokio::test]
async fn a_tenant_secret_authenticates_a_broker_sqlite() {
    a_tenant_secret_authenticates_a_broker_and_a_new_value_is_used_at_once(false).await;
}

#[tokio::test]
async fn a_tenant_secret_authenticates_a_broker_postgres() {
    a_tenant_secret_authenticates_a_broker_and_a_new_value_is_used_at_once(true).await;
}
