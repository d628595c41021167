//! The portal in a real browser (issue 27): a real `relay serve` and
//! relay-receiver, and `portal/tests/e2e.mjs` driving the system's Chromium
//! with playwright-core: mint a token, open the page, add an endpoint, send
//! a test event and see it in the log with its attempt, fail a delivery and
//! resend it, rotate the key and see both keys, change the theme; consumer
//! A's token sees nothing of B's; an expired token is refused; framing by an
//! origin that is not allowed is refused; the component embedded in a
//! tenant's own page works from its origin only.
//!
//! Needs `/usr/bin/chromium` (Debian's `chromium`) and
//! `portal/tests/node_modules` (`npm ci` there); `scripts/test` installs
//! both. Without them the test fails, saying what to run.
//!
//! The script asks this test to act through `CONTROL <json>` lines (set the
//! receiver's answer, expire a token): the relay process runs on the system
//! clock, so a token's expiry is moved into the past in its database rather
//! than waited for. Screenshots go to `RELAY_TEST_PORTAL_SCREENSHOTS` (default: a
//! temporary directory); `docs/portal/` holds a set of them.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{curl, start_logging};
use relay_receiver::{Behavior, Receiver, ReceiverConfig};
use relay_store::ExecutorExt;
use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn browser_available() -> PathBuf {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} is missing: run `scripts/test` (it installs Debian's chromium) or \
         `apt-get install -y chromium`"
    );
    let dir = repo().join("portal/tests");
    assert!(
        dir.join("node_modules/playwright-core").exists(),
        "playwright-core is missing: run `scripts/test` (or `npm --prefix portal/tests ci`)"
    );
    dir
}

#[test]
fn the_portal_works_in_a_real_browser() {
    let tests_dir = browser_available();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let receiver = rt
        .block_on(Receiver::start(ReceiverConfig::default()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = receiver.port().to_string();
    let ca = receiver.ca_pem_path().to_str().unwrap().to_string();
    let log = dir.path().join("relay.log");
    let relay = start_logging(
        dir.path(),
        &[
            (
                "RELAY_OPERATOR_TOKEN",
                "rop_portal_0f3c9a1e5b7d2f4a6c8e0b1d3",
            ),
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.1/32"),
            ("RELAY_OUTBOUND__ALLOW_PORTS", &port),
            ("RELAY_OUTBOUND__EXTRA_CA_CERTS", &ca),
        ],
        Some(&log),
    );
    let api = |method: &str, path: &str, token: &str, body: Option<Value>| -> Value {
        let (status, text) = curl(
            method,
            &format!("{}{path}", relay.url),
            token,
            body.map(|b| b.to_string()).as_deref(),
        );
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {text}"
        );
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    let tenant = api(
        "POST",
        "/v1/tenants",
        "rop_portal_0f3c9a1e5b7d2f4a6c8e0b1d3",
        Some(json!({"name": "acme"})),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    let key = api(
        "POST",
        &format!("/v1/tenants/{tenant}/api-keys"),
        "rop_portal_0f3c9a1e5b7d2f4a6c8e0b1d3",
        Some(json!({"environment": "live"})),
    )["key"]
        .as_str()
        .unwrap()
        .to_string();
    api(
        "PUT",
        "/v1/event-types/order.created",
        &key,
        // Both fields thin: an endpoint added in the portal is thin, and
        // the portal shows a message's payload as its endpoint received it.
        Some(json!({
            "schema": {"type": "object", "properties": {
                "order_id": {"type": "string"}, "note": {"type": "string"}}},
            "sample": {"order_id": "o-1042", "note": "<b>not html</b>"},
            "thin_fields": ["/order_id", "/note"],
        })),
    );
    let consumer = |external: &str| {
        api(
            "POST",
            "/v1/consumers",
            &key,
            Some(json!({"external_id": external, "name": format!("Merchant {external}")})),
        )["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let consumer_a = consumer("a");
    let consumer_b = consumer("b");
    let endpoint_b = api(
        "POST",
        "/v1/endpoints",
        &key,
        Some(json!({
            "consumer_id": consumer_b,
            "event_types": ["order.created"],
            "destination": {"kind": "https", "url": receiver.url("/b")},
        })),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();

    let shots = match std::env::var_os("RELAY_TEST_PORTAL_SCREENSHOTS") {
        Some(d) => PathBuf::from(d),
        None => dir.path().join("shots"),
    };
    std::fs::create_dir_all(&shots).unwrap();
    let config = json!({
        "relay": relay.url,
        "key": key,
        "tenant": tenant,
        "consumer_a": consumer_a,
        "endpoint_b": endpoint_b,
        "receiver_url": receiver.url("/portal-a"),
        "shots": shots,
    });
    let mut node = Command::new("node")
        .arg(tests_dir.join("e2e.mjs"))
        .arg(config.to_string())
        .current_dir(&tests_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("run node");
    let mut stdin = node.stdin.take().unwrap();
    let stdout = BufReader::new(node.stdout.take().unwrap());
    let db_url = format!("sqlite://{}", dir.path().join("relay.db").display());
    let mut transcript = Vec::new();
    let mut ok = false;
    for line in stdout.lines().map_while(Result::ok) {
        println!("{line}");
        transcript.push(line.clone());
        if line == "E2E OK" {
            ok = true;
        }
        let Some(cmd) = line.strip_prefix("CONTROL ") else {
            continue;
        };
        let cmd: Value = serde_json::from_str(cmd).unwrap();
        match (cmd["receiver"].as_str(), cmd["expire"].as_str()) {
            (Some("ok"), _) => receiver.set_behavior(Behavior::ok()),
            (Some("status"), _) => {
                receiver.set_behavior(Behavior::status(cmd["status"].as_u64().unwrap() as u16))
            }
            (_, Some(token_id)) => rt.block_on(expire(&db_url, token_id)),
            _ => panic!("unknown control {cmd}"),
        }
        writeln!(stdin, "done").unwrap();
    }
    let status = node.wait().unwrap();
    assert!(
        ok && status.success(),
        "the browser test failed:\n{}\nrelay's log:\n{}",
        transcript.join("\n"),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // The deliveries the page caused reached the receiver, never B's endpoint.
    let got = receiver.requests();
    assert!(got.iter().all(|r| r.path == "/portal-a"), "{got:?}");
    // A test event, a failed one and its resend; the failed one may also
    // have been retried on the schedule (the process runs on the system
    // clock) before the test ended.
    let ids: std::collections::BTreeSet<&str> =
        got.iter().filter_map(|r| r.header("webhook-id")).collect();
    assert_eq!(ids.len(), 2, "two test events: {got:?}");
    assert!(
        (3..=4).contains(&got.len()),
        "{} requests: {got:?}",
        got.len()
    );
}

/// Moves the token's expiry into the past, in the database of the running
/// `relay serve` (SQLite lets a second process write while it runs).
async fn expire(db_url: &str, token_id: &str) {
    let store = relay_store::open(db_url)
        .await
        .expect("open relay's database");
    let id = token_id.to_string();
    store
        .write(relay_store::Commit::Durable, move |mut x| {
            Box::pin(async move {
                use relay_store::exec::Exec;
                x.execute(&relay_store::sql::SqlBuilder::of(
                    "UPDATE portal_tokens SET expires_at = 0 WHERE id = $1",
                    [id.as_str().into()],
                ))
                .await
            })
        })
        .await
        .expect("expire the token");
}
