//! Batching is a capability of a kind: the engine batches the test-only
//! local directory kind (`relay_destinations::local_dir`, feature
//! `test-kinds`, one file per batch) exactly as it batches object storage,
//! with nothing of its own for it: open batches per endpoint, closed by
//! count, size or time, recorded durably before the write, written again
//! whole (the same bytes, the same name) on retry and on a resend.

mod common;

use std::path::{Path, PathBuf};

use common::{Env, Setup};
use relay_core::model::{AttemptTrigger, Message, MessageState};
use relay_core::signature::{SignatureHeaders, verify};
use relay_core::time::Clock;
use relay_destinations::Config;
use relay_destinations::local_dir::LocalDirDestination;
use sha2::Digest;

const DATA: &str = r#"{"order_id":"1042","carrier":"DHL"}"#;

/// An engine whose endpoint is a local directory `dir` that closes its
/// batches at `max_events`, `max_bytes` or after 5 seconds.
async fn env(dir: &Path, max_events: u32, max_bytes: u64) -> Env {
    let e = Env::start(Setup::default()).await.expect("sqlite env");
    let mut endpoint = e.endpoint.clone();
    endpoint.destination = Config::LocalDir(LocalDirDestination {
        dir: dir.to_string_lossy().into_owned(),
        max_events,
        max_bytes,
        max_wait_seconds: 5,
    })
    .into();
    endpoint.updated_at = e.clock.now();
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    e
}

/// The files written, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.unwrap().path())
        .map(|p: PathBuf| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// The event ids of a file's lines, in order; every line a CloudEvent.
fn event_ids(bytes: &[u8]) -> Vec<String> {
    assert_eq!(bytes.last(), Some(&b'\n'), "every line ends");
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let ce: serde_json::Value = serde_json::from_slice(l).expect("a JSON line");
            assert_eq!(ce["specversion"], "1.0");
            assert_eq!(ce["type"], "order.shipped");
            ce["id"].as_str().unwrap().to_string()
        })
        .collect()
}

async fn message_of(e: &Env, event: &str) -> Message {
    e.messages()
        .await
        .into_iter()
        .find(|m| m.event_id == event)
        .expect("its message")
}

#[tokio::test]
async fn batches_close_by_count_then_by_time_and_each_member_records_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let e = env(dir.path(), 3, 1 << 20).await;
    let mut published = Vec::new();
    for i in 0..7 {
        let id = format!("evt_count_{i}");
        e.publish(&id, DATA).await;
        published.push(id);
    }
    let closed_at = e.clock.now();
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 7);
    assert_eq!(files(dir.path()).len(), 2, "two full batches written");
    let waiting: Vec<Message> = e
        .messages()
        .await
        .into_iter()
        .filter(|m| m.state != MessageState::Delivered)
        .collect();
    assert_eq!(waiting.len(), 1, "one waits in the open batch");
    assert_eq!(waiting[0].state, MessageState::InFlight);
    e.clock.advance_millis(4_999);
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
    assert_eq!(files(dir.path()).len(), 2, "not yet its time");
    e.clock.advance_millis(1);
    e.dispatcher.run_once().await.unwrap();
    let written = files(dir.path());
    assert_eq!(written.len(), 3, "the batch closed by time");

    let mut seen = Vec::new();
    for (name, bytes) in &written {
        let batch_id = name.strip_suffix(".jsonl").expect("named from its batch");
        assert!(batch_id.starts_with("bat_"), "{name}");
        let ids = event_ids(bytes);
        assert!(ids.len() == 3 || ids.len() == 1, "{ids:?}");
        for (i, id) in ids.iter().enumerate() {
            let m = message_of(&e, id).await;
            assert_eq!(m.state, MessageState::Delivered);
            let a = e.attempts(&m.id).await;
            assert_eq!(a.len(), 1, "{a:?}");
            assert_eq!(a[0].outcome.as_str(), "delivered");
            assert_eq!(a[0].trigger, AttemptTrigger::Scheduled);
            assert_eq!(a[0].detail["batch_id"], batch_id);
            assert_eq!(a[0].detail["key"], name.as_str());
            assert_eq!(a[0].detail["line"], i + 1);
            assert_eq!(a[0].body_sha256, hex::encode(sha2::Sha256::digest(bytes)));
            if ids.len() == 3 {
                // Signed over the file's exact bytes, as the batch.
                let headers = SignatureHeaders {
                    webhook_id: batch_id.into(),
                    webhook_timestamp: closed_at.unix_seconds().to_string(),
                    webhook_signature: a[0].signature.clone(),
                };
                let key = e.key.verification_key();
                assert_eq!(verify(&[key], &headers, bytes, closed_at, 300), Ok(()));
            }
            seen.push(id.clone());
        }
    }
    seen.sort();
    published.sort();
    assert_eq!(seen, published, "each event exactly once");
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 0, "nothing left");
}

#[tokio::test]
async fn a_batch_closes_before_a_line_would_take_it_over_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // Fewer bytes than any line: every batch holds the one line it opened with.
    let e = env(dir.path(), 100, 1).await;
    for i in 0..3 {
        e.publish(&format!("evt_size_{i}"), DATA).await;
    }
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 3);
    let written = files(dir.path());
    assert_eq!(written.len(), 2, "closed by size as the next line came");
    for (_, bytes) in &written {
        assert_eq!(event_ids(bytes).len(), 1);
    }
    e.clock.advance_millis(5_000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(files(dir.path()).len(), 3, "the last by time");
}

#[tokio::test]
async fn a_failed_write_is_retried_whole_the_same_bytes_and_a_resend_writes_it_again() {
    let root = tempfile::tempdir().unwrap();
    // Not made yet: the first write fails.
    let dir = root.path().join("batches");
    let e = env(&dir, 2, 1 << 20).await;
    e.publish("evt_retry_1", DATA).await;
    e.publish("evt_retry_2", DATA).await;
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 2);
    let mut failed = Vec::new();
    for id in ["evt_retry_1", "evt_retry_2"] {
        let m = message_of(&e, id).await;
        assert_eq!(m.state, MessageState::Scheduled, "{m:?}");
        assert_eq!(m.attempts_used, 1);
        let a = e.attempts(&m.id).await;
        assert_eq!(a[0].outcome.as_str(), "retry");
        assert!(a[0].detail["error"].is_string(), "{:?}", a[0].detail);
        failed.push((m, a[0].clone()));
    }
    let (first, second) = (&failed[0], &failed[1]);
    assert_eq!(
        first.0.next_attempt_at, second.0.next_attempt_at,
        "a batch's members stay due together"
    );
    assert_eq!(first.1.detail["key"], second.1.detail["key"], "one batch");
    assert_eq!(first.1.body_sha256, second.1.body_sha256);

    std::fs::create_dir(&dir).unwrap();
    e.clock.set(first.0.next_attempt_at.unwrap());
    // A message published now goes into a batch of its own.
    e.publish("evt_retry_later", DATA).await;
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 3);
    let written = files(&dir);
    assert_eq!(written.len(), 1, "{written:?}");
    let (name, bytes) = &written[0];
    let mut lines = event_ids(bytes);
    let line_of_second = lines.iter().position(|l| l == "evt_retry_2").unwrap() + 1;
    lines.sort();
    assert_eq!(lines, ["evt_retry_1", "evt_retry_2"]);
    assert_eq!(first.1.detail["key"], name.as_str(), "the same name");
    assert_eq!(
        first.1.body_sha256,
        hex::encode(sha2::Sha256::digest(bytes)),
        "the same bytes as the failed write"
    );
    for (m, before) in &failed {
        let m = message_of(&e, &m.event_id).await;
        assert_eq!(m.state, MessageState::Delivered, "{m:?}");
        let a = e.attempts(&m.id).await;
        assert_eq!(a.len(), 2);
        assert_eq!(a[1].detail["batch_id"], before.detail["batch_id"]);
        assert_eq!(a[1].body_sha256, before.body_sha256);
    }
    assert_eq!(
        message_of(&e, "evt_retry_later").await.state,
        MessageState::InFlight,
        "in the next batch"
    );

    // A resend of one member writes the whole batch again, unchanged, and
    // records the attempt on that member alone.
    std::fs::remove_file(dir.join(name)).unwrap();
    let m = message_of(&e, "evt_retry_2").await;
    let outcome = e
        .dispatcher
        .resend(&e.scope, &m.id, "key_test")
        .await
        .expect("the resend");
    let a = outcome.attempt.expect("an attempt");
    assert_eq!(a.outcome.as_str(), "delivered");
    assert_eq!(a.detail["line"], line_of_second);
    assert_eq!(std::fs::read(dir.join(name)).unwrap(), *bytes);
    assert_eq!(
        e.attempts(&message_of(&e, "evt_retry_1").await.id)
            .await
            .len(),
        2
    );
    assert_eq!(e.attempts(&m.id).await.len(), 3);
}
