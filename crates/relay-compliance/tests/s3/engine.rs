//! The dispatcher writing an `s3` endpoint's messages in batches to the
//! moto server, on SQLite and PostgreSQL (the compliance harness: the
//! store, the dispatcher and the guard wired as `relay serve` wires them,
//! an injected clock). What was written is read back with boto3 and judged
//! object by object and line by line.

use std::io::Read as _;

use relay_compliance::cases::{assert_valid_cloudevent, run};
use relay_compliance::{Harness, Mode, Peer, Received};
use relay_core::model::{Message, MessageState};
use relay_core::outcome::AttemptOutcome;
use relay_core::time::Clock;
use relay_destinations::s3::{S3Batch, S3Compression};
use sha2::Digest;

use super::peer::{S3Peer, configure};

fn batch(max_events: u32) -> S3Batch {
    S3Batch {
        max_events,
        max_wait_seconds: 5,
        ..S3Batch::default()
    }
}

/// The object's lines (inflated when gzip), each a JSON value.
fn lines(o: &Received, gzip: bool) -> Vec<serde_json::Value> {
    let mut text = Vec::new();
    if gzip {
        assert_eq!(&o.body[..2], &[0x1f, 0x8b], "a gzip object");
        flate2::read::GzDecoder::new(&o.body[..])
            .read_to_end(&mut text)
            .expect("the object inflates");
    } else {
        text = o.body.clone();
    }
    assert_eq!(text.last(), Some(&b'\n'), "every line ends");
    text.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON line"))
        .collect()
}

/// The object's signature verifies with the verifier SDK over its exact
/// bytes, at its own timestamp (an object is read later than it was
/// written: a consumer verifies at the time the object says, after
/// checking that time against its own rules); a changed byte fails.
fn assert_signed(h: &Harness<S3Peer>, o: &Received) {
    let verifier = relay_verify::Verifier::new([h.whsec()]).expect("verifier");
    let headers = relay_verify::SignatureHeaders {
        id: &o.webhook_id,
        timestamp: &o.webhook_timestamp,
        signature: &o.webhook_signature,
    };
    assert!(o.webhook_id.starts_with("bat_"), "{o:?}");
    let at: u64 = o.webhook_timestamp.parse().expect("seconds");
    verifier
        .verify_at(&headers, &o.body, at)
        .expect("the object's signature verifies");
    let mut tampered = o.body.clone();
    let last = tampered.len() - 2;
    tampered[last] ^= 1;
    assert!(verifier.verify_at(&headers, &tampered, at).is_err());
}

async fn by_event(h: &Harness<S3Peer>) -> Vec<(String, Message)> {
    let mut out = Vec::new();
    for m in h.messages().await {
        out.push((m.event_id.clone(), m));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Seven events, at most three a batch: two batches close full in the
/// round that claims them, the seventh waits until its batch's time is
/// up. Three objects, named after their batches; every line a valid
/// CloudEvent; every object signed; each message
/// delivered once, its attempt record naming the object, its ETag, the
/// batch and its line.
async fn batches_close_by_count_and_by_time(h: Harness<S3Peer>) {
    let mut ids = Vec::new();
    for _ in 0..7 {
        ids.push(h.publish().await);
    }
    assert_eq!(h.round().await, 7);
    let objects = h.peer.received().await;
    assert_eq!(objects.len(), 2, "two full batches written: {objects:?}");
    let waiting: Vec<Message> = h
        .messages()
        .await
        .into_iter()
        .filter(|m| m.state != MessageState::Delivered)
        .collect();
    assert_eq!(waiting.len(), 1, "one waits in the open batch");
    assert_eq!(waiting[0].state, MessageState::InFlight);
    h.clock.advance_millis(4_999);
    assert_eq!(h.round().await, 0);
    assert_eq!(h.peer.received().await.len(), 2, "not yet its time");
    h.clock.advance_millis(1);
    assert_eq!(h.round().await, 0);
    let objects = h.peer.received().await;
    assert_eq!(objects.len(), 3, "the batch closed by time");

    let stored = h.peer.moto.objects();
    let mut seen = Vec::new();
    for (o, s) in objects.iter().zip(&stored) {
        assert_signed(&h, o);
        assert_eq!(
            s.key,
            format!("relay/2027/01/15/08/{}.jsonl", o.webhook_id),
            "named after the batch, under the prefix and the hour"
        );
        assert_eq!(s.content_type, "application/x-ndjson");
        let events = lines(o, false);
        assert!(events.len() == 3 || events.len() == 1, "{events:?}");
        for (i, event) in events.iter().enumerate() {
            assert_valid_cloudevent(event);
            let id = event["id"].as_str().unwrap().to_string();
            let (_, m) = by_event(&h)
                .await
                .into_iter()
                .find(|(e, _)| *e == id)
                .expect("a message of the event");
            assert_eq!(m.state, MessageState::Delivered);
            let a = h.attempts(&m).await;
            assert_eq!(a.len(), 1, "{a:?}");
            assert_eq!(a[0].outcome, AttemptOutcome::Delivered);
            assert_eq!(a[0].detail["key"], s.key.as_str());
            assert_eq!(a[0].detail["etag"], s.etag.as_str());
            assert_eq!(a[0].detail["batch_id"], o.webhook_id.as_str());
            assert_eq!(a[0].detail["line"], i + 1);
            assert_eq!(a[0].body_sha256, hex::encode(sha2::Sha256::digest(&o.body)));
            assert_eq!(a[0].signature, o.webhook_signature);
            assert_eq!(a[0].destination_ip.as_deref(), Some("127.0.0.1"));
            seen.push(id);
        }
    }
    // Each event exactly once. (A batch's order is the order its messages
    // joined it, which its attempt records tell: `line`.)
    seen.sort();
    ids.sort();
    assert_eq!(seen, ids);
    assert_eq!(h.round().await, 0, "nothing left");
}

/// A write the service refuses (a wrong secret: `403`) is retried: both
/// members scheduled together, one attempt each, nothing stored. With the
/// right secret again, the retry writes the same batch (the same bytes,
/// gzip here) to the same object; a message published meanwhile goes into
/// a batch of its own.
async fn a_refused_batch_is_written_again_to_the_same_object(h: Harness<S3Peer>) {
    h.peer.set_mode(Mode::FailRetryable).await;
    let first = [h.publish().await, h.publish().await];
    assert_eq!(h.round().await, 2);
    let failed = by_event(&h).await;
    let mut key = None;
    for (_, m) in &failed {
        assert_eq!(m.state, MessageState::Scheduled, "{m:?}");
        assert_eq!(m.attempts_used, 1);
        let a = h.attempts(m).await;
        assert_eq!(a[0].outcome, AttemptOutcome::Retry);
        assert_eq!(
            a[0].error_code.map(|c| c.to_string()).as_deref(),
            Some("auth_refused")
        );
        assert_eq!(a[0].detail["error"]["code"], "SignatureDoesNotMatch");
        key.get_or_insert(a[0].detail["key"].clone());
        assert_eq!(Some(&a[0].detail["key"]), key.as_ref(), "one object");
    }
    assert_eq!(
        failed[0].1.next_attempt_at, failed[1].1.next_attempt_at,
        "a batch's members stay due together"
    );
    assert!(h.peer.received().await.is_empty());

    h.peer.set_mode(Mode::Accept).await;
    // Past the next attempt and the engine's refresh of secret references.
    let next = failed[0].1.next_attempt_at.unwrap();
    h.clock.set(next.max(h.clock.now().plus_seconds(31)));
    let later = h.publish().await;
    assert_eq!(h.round().await, 3);
    let objects = h.peer.received().await;
    assert_eq!(objects.len(), 1, "{objects:?}");
    let o = &objects[0];
    assert_signed(&h, o);
    let events = lines(o, true);
    let mut got: Vec<&str> = events.iter().map(|e| e["id"].as_str().unwrap()).collect();
    got.sort_unstable();
    assert_eq!(got, first.iter().map(String::as_str).collect::<Vec<_>>());
    for (event, m) in by_event(&h).await {
        if event == later {
            assert_eq!(m.state, MessageState::InFlight, "in the next batch");
            continue;
        }
        assert_eq!(m.state, MessageState::Delivered, "{m:?}");
        let a = h.attempts(&m).await;
        assert_eq!(a.len(), 2);
        assert_eq!(a[1].detail["key"], a[0].detail["key"], "the same object");
        assert_eq!(a[1].detail["batch_id"], o.webhook_id.as_str());
        assert_eq!(a[1].body_sha256, a[0].body_sha256, "the same bytes");
        assert!(
            a[1].detail["key"]
                .as_str()
                .is_some_and(|k| k.ends_with(".jsonl.gz"))
        );
    }
    h.clock.advance_millis(5_000);
    h.round().await;
    assert_eq!(h.peer.received().await.len(), 2);
}

/// A resend of one message of a written batch writes the whole batch
/// again, the same bytes to the same object, and records the attempt on
/// that message alone.
async fn a_resend_writes_the_batch_again(h: Harness<S3Peer>) {
    h.publish().await;
    h.publish().await;
    assert_eq!(h.round().await, 2);
    let before = h.peer.moto.objects();
    assert_eq!(before.len(), 1);
    let messages = by_event(&h).await;
    let (_, m) = &messages[1];
    let outcome = h
        .dispatcher
        .resend(&h.scope, &m.id, "key_test")
        .await
        .expect("the resend");
    let a = outcome.attempt.expect("an attempt");
    assert_eq!(a.outcome, AttemptOutcome::Delivered);
    assert_eq!(a.detail["key"], before[0].key.as_str());
    let text = String::from_utf8(before[0].body.clone()).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains(&format!("\"id\":\"{}\"", m.event_id)))
        .expect("its line")
        + 1;
    assert_eq!(a.detail["line"], line);
    let after = h.peer.moto.objects();
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].body, before[0].body, "the same object");
    assert_eq!(h.attempts(&messages[0].1).await.len(), 1);
    assert_eq!(h.attempts(m).await.len(), 2);
}

macro_rules! engine_cases {
    ($($case:ident: $batch:expr, $compression:expr;)*) => {
        mod sqlite {
            use super::*;
            $(
                #[tokio::test]
                async fn $case() {
                    configure($batch, $compression);
                    run::<S3Peer, _, _>(false, stringify!($case), super::$case).await;
                }
            )*
        }
        mod postgres {
            use super::*;
            $(
                #[tokio::test]
                async fn $case() {
                    configure($batch, $compression);
                    run::<S3Peer, _, _>(true, stringify!($case), super::$case).await;
                }
            )*
        }
    };
}

engine_cases! {
    batches_close_by_count_and_by_time: batch(3), S3Compression::None;
    a_refused_batch_is_written_again_to_the_same_object: batch(2), S3Compression::Gzip;
    a_resend_writes_the_batch_again: batch(2), S3Compression::None;
}
