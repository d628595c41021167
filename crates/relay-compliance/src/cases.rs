//! The cases. Each takes a started [`Harness`] and panics on a violation.

use std::future::Future;

use relay_core::model::{ContentMode, MessageState};
use relay_core::outcome::AttemptOutcome;
use relay_core::time::Clock;
use sha2::Digest;

use crate::harness::wait_received;
use crate::{Harness, Mode, Peer};

/// Starts the harness on one backend and runs `case` with the harness's
/// log subscriber installed (the secrets case reads what was logged).
pub async fn run<P, F, Fut>(postgres: bool, name: &str, case: F)
where
    P: Peer,
    F: FnOnce(Harness<P>) -> Fut,
    Fut: Future<Output = ()>,
{
    run_in(postgres, name, ContentMode::Structured, case).await;
}

/// [`run`] with the endpoint in content mode `mode`.
pub async fn run_in<P, F, Fut>(postgres: bool, name: &str, mode: ContentMode, case: F)
where
    P: Peer,
    F: FnOnce(Harness<P>) -> Fut,
    Fut: Future<Output = ()>,
{
    let Some(h) = Harness::<P>::start(postgres, name, mode).await else {
        return;
    };
    let subscriber = tracing_subscriber::fmt()
        .with_writer(h.logs.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    // The test runtime is current-thread: every task of the dispatcher logs
    // through this thread's default subscriber.
    let _guard = tracing::subscriber::set_default(subscriber);
    case(h).await;
}

/// [`run`] with a second endpoint beside the peer's (`h.neighbour`).
pub async fn run_with_neighbour<P, F, Fut>(postgres: bool, name: &str, case: F)
where
    P: Peer,
    F: FnOnce(Harness<P>) -> Fut,
    Fut: Future<Output = ()>,
{
    let Some(h) = Harness::<P>::start_with_neighbour(postgres, name).await else {
        return;
    };
    case(h).await;
}

/// One publish, one attempt, one message at the peer, and nothing more.
pub async fn delivered_once<P: Peer>(h: Harness<P>) {
    let id = h.publish().await;
    assert_eq!(h.round().await, 1);
    let got = wait_received(&h.peer, 1).await;
    assert_eq!(got.len(), 1, "received once");
    assert_eq!(P::event_ids(&got[0]), vec![id]);
    let m = h.only_message().await;
    assert_eq!(m.state, MessageState::Delivered);
    assert_eq!(h.round().await, 0, "nothing left to attempt");
    h.clock.advance_millis(3_600_000);
    assert_eq!(h.round().await, 0, "nothing to attempt an hour later");
    assert_eq!(h.peer.received().await.len(), 1, "never delivered twice");
}

/// The signature verifies with the standalone verifier SDK and the key the
/// consumer holds, over the exact bytes received; a changed byte fails.
pub async fn signature_verifies<P: Peer>(h: Harness<P>) {
    h.publish().await;
    h.round().await;
    let got = wait_received(&h.peer, 1).await;
    let r = got.first().expect("a message");
    let verifier = relay_verify::Verifier::new([h.whsec()]).expect("verifier");
    let headers = relay_verify::SignatureHeaders {
        id: &r.webhook_id,
        timestamp: &r.webhook_timestamp,
        signature: &r.webhook_signature,
    };
    let now = u64::try_from(h.clock.now().unix_seconds()).unwrap();
    verifier
        .verify_at(&headers, &r.body, now)
        .expect("the signature verifies");
    let mut tampered = r.body.clone();
    tampered[0] ^= 1;
    assert!(verifier.verify_at(&headers, &tampered, now).is_err());
}

/// The body is a CloudEvents 1.0 structured-mode event that the spec's JSON
/// Schema accepts, with the event's attributes.
pub async fn envelope_is_valid_cloudevents<P: Peer>(h: Harness<P>) {
    let id = h.publish().await;
    h.round().await;
    let got = wait_received(&h.peer, 1).await;
    let r = got.first().expect("a message");
    assert!(r.binary.is_none(), "structured mode by default");
    let body: serde_json::Value = serde_json::from_slice(&r.body).expect("JSON");
    assert_valid_cloudevent(&body);
    assert_eq!(body["id"], id.as_str());
}

/// Binary content mode: the peer's binding carries every context attribute
/// of the event (checked against the CloudEvents JSON Schema once put back
/// together with `data`), the body is the published data, and the signature
/// over the body verifies with the standalone verifier SDK.
pub async fn binary_mode_carries_the_event<P: Peer>(h: Harness<P>) {
    let id = h.publish().await;
    h.round().await;
    let got = wait_received(&h.peer, 1).await;
    let r = got.first().expect("a message");
    let attributes = r.binary.as_ref().expect("a binary-mode message");
    let data: serde_json::Value = serde_json::from_slice(&r.body).expect("the body is the data");
    let mut event = serde_json::Map::new();
    for (name, value) in attributes {
        // A binding carries every value as a string (`seq` too), which
        // the schema accepts for extensions.
        event.insert(name.clone(), serde_json::Value::String(value.clone()));
    }
    event.insert("data".into(), data);
    let event = serde_json::Value::Object(event);
    assert_valid_cloudevent(&event);
    assert_eq!(event["id"], id.as_str());
    assert_eq!(event["datacontenttype"], "application/json");
    assert!(
        event["dataschema"]
            .as_str()
            .is_some_and(|s| s.contains("order.shipped"))
    );
    assert!(
        event["time"]
            .as_str()
            .and_then(relay_core::time::Timestamp::parse_rfc3339)
            .is_some(),
        "time is RFC 3339: {}",
        event["time"]
    );
    let verifier = relay_verify::Verifier::new([h.whsec()]).expect("verifier");
    let headers = relay_verify::SignatureHeaders {
        id: &r.webhook_id,
        timestamp: &r.webhook_timestamp,
        signature: &r.webhook_signature,
    };
    let now = u64::try_from(h.clock.now().unix_seconds()).unwrap();
    verifier
        .verify_at(&headers, &r.body, now)
        .expect("the signature over the data verifies");
}

/// A retryable refusal leaves the message scheduled for the schedule's next
/// time, with an attempt recorded as a retry and its error code.
pub async fn retryable_failure_is_a_retry<P: Peer>(h: Harness<P>) {
    h.peer.set_mode(Mode::FailRetryable).await;
    h.publish().await;
    assert_eq!(h.round().await, 1);
    let m = h.only_message().await;
    assert_eq!(m.state, MessageState::Scheduled, "{m:?}");
    assert_eq!(m.attempts_used, 1);
    assert!(m.next_attempt_at.is_some_and(|t| t > h.clock.now()));
    let a = h.attempts(&m).await;
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].outcome, AttemptOutcome::Retry);
    assert!(a[0].error_code.is_some(), "{:?}", a[0]);
    assert_eq!(
        m.last_error_code.as_deref(),
        a[0].error_code.map(|c| c.to_string()).as_deref()
    );
}

/// A refusal no retry fixes ends the message at once, in the terminal
/// state the reference's "Terminal states" table gives it: an HTTPS
/// endpoint's (a non-retried 4xx) is `failed_permanent`
/// (`rejected_by_endpoint`); every other kind's (a broker's, stream's,
/// queue's or object store's refusal of the message) is `dead_lettered`
/// (`rejected_by_destination`). Either way the attempt made on the wire
/// is recorded with its code and counts.
pub async fn permanent_failure_is_permanent<P: Peer>(h: Harness<P>) {
    h.peer.set_mode(Mode::FailPermanent).await;
    h.publish().await;
    assert_eq!(h.round().await, 1);
    let m = h.only_message().await;
    let (state, reason, outcome) = refusal_ends(P::KIND);
    assert_eq!(m.state, state, "{m:?}");
    assert_eq!(m.terminal_reason.as_deref(), Some(reason), "{m:?}");
    assert_eq!(m.attempts_used, 1, "{m:?}");
    let a = h.attempts(&m).await;
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].outcome, outcome);
    assert!(a[0].error_code.is_some(), "{:?}", a[0]);
    assert_eq!(
        m.last_error_code.as_deref(),
        a[0].error_code.map(|c| c.to_string()).as_deref()
    );
}

/// Where a destination's refusal of a message ends it, by kind (the
/// reference's "Terminal states"): the message's state, its terminal
/// reason and the attempt's outcome.
pub fn refusal_ends(kind: &str) -> (MessageState, &'static str, AttemptOutcome) {
    match kind {
        "https" => (
            MessageState::FailedPermanent,
            "rejected_by_endpoint",
            AttemptOutcome::Permanent,
        ),
        _ => (
            MessageState::DeadLettered,
            "rejected_by_destination",
            AttemptOutcome::DeadLettered,
        ),
    }
}

/// A peer that never answers costs one attempt of at most the timeout, and
/// the message is retried.
pub async fn timeout_is_a_retry<P: Peer>(h: Harness<P>) {
    h.peer.set_mode(Mode::Hang).await;
    h.publish().await;
    let started = std::time::Instant::now();
    assert_eq!(h.round().await, 1);
    assert!(
        started.elapsed() < crate::harness::ATTEMPT_TIMEOUT * 4,
        "{:?}",
        started.elapsed()
    );
    let m = h.only_message().await;
    assert_eq!(m.state, MessageState::Scheduled, "{m:?}");
    let a = h.attempts(&m).await;
    assert_eq!(a[0].outcome, AttemptOutcome::Retry);
    assert_eq!(
        a[0].error_kind,
        Some(relay_core::model::ErrorKind::Timeout.into()),
        "{:?}",
        a[0]
    );
}

/// A peer that hangs holds only its own endpoint's slots: with every slot
/// of the peer's endpoint taken by an attempt that will time out, another
/// endpoint (HTTPS, its own receiver) delivers meanwhile, within the same
/// round, long before the hung attempts end.
pub async fn a_hung_peer_holds_only_its_endpoint<P: Peer>(h: Harness<P>) {
    let n = h.neighbour.as_ref().expect("run with a neighbour");
    h.peer.set_mode(Mode::Hang).await;
    // More than the endpoint's slots (`max_concurrency` 10).
    for _ in 0..12 {
        h.publish().await;
    }
    for _ in 0..5 {
        h.publish_to_neighbour().await;
    }
    let started = std::time::Instant::now();
    let (_, (arrived, after)) = tokio::join!(h.round(), async {
        let got = n
            .receiver
            .wait_for(5, crate::harness::ATTEMPT_TIMEOUT * 4)
            .await;
        (got.map(|g| g.len()).unwrap_or(0), started.elapsed())
    });
    let round = started.elapsed();
    assert_eq!(arrived, 5, "the neighbour received its messages");
    assert!(
        after < crate::harness::ATTEMPT_TIMEOUT,
        "the neighbour waited for the hung peer: its deliveries took {after:?}, the round {round:?}"
    );
    assert!(
        round >= crate::harness::ATTEMPT_TIMEOUT,
        "the peer's attempts hung until their timeout: {round:?}"
    );
    h.peer.set_mode(Mode::Accept).await;
    let messages = h.messages().await;
    let (theirs, ours): (Vec<_>, Vec<_>) = messages
        .iter()
        .partition(|m| m.endpoint_id == n.endpoint.id);
    assert_eq!(theirs.len(), 5);
    assert!(
        theirs.iter().all(|m| m.state == MessageState::Delivered),
        "{theirs:?}"
    );
    assert_eq!(ours.len(), 12);
    assert!(
        ours.iter().all(|m| m.state != MessageState::Delivered),
        "{ours:?}"
    );
}

/// Down: the attempt fails as a retry; up again: the next attempt delivers,
/// once.
pub async fn destination_down_then_up<P: Peer>(h: Harness<P>) {
    h.peer.set_mode(Mode::Down).await;
    h.publish().await;
    assert_eq!(h.round().await, 1);
    let m = h.only_message().await;
    assert_eq!(m.state, MessageState::Scheduled, "{m:?}");
    let a = h.attempts(&m).await;
    assert_eq!(a[0].outcome, AttemptOutcome::Retry);
    assert!(
        a[0].error_kind
            .as_ref()
            .and_then(|k| k.known())
            .is_some_and(|k| P::down_error_kinds().contains(&k)),
        "{:?}",
        a[0]
    );
    h.peer.set_mode(Mode::Accept).await;
    h.advance_to_next_attempt(&m);
    assert_eq!(h.round().await, 1);
    let m = h.only_message().await;
    assert_eq!(m.state, MessageState::Delivered, "{m:?}");
    assert_eq!(wait_received(&h.peer, 1).await.len(), 1);
    assert_eq!(h.attempts(&m).await.len(), 2);
}

/// The record keeps, for every kind: the digest of the exact body, the
/// signature sent, the address used, the duration, the outcome, the error
/// code, and a `detail` object.
pub async fn attempt_record_is_complete<P: Peer>(h: Harness<P>) {
    h.publish().await;
    h.round().await;
    let got = wait_received(&h.peer, 1).await;
    let r = got.first().expect("a message");
    let m = h.only_message().await;
    let a = &h.attempts(&m).await[0];
    assert_eq!(a.number, 1);
    assert_eq!(a.body_sha256, hex::encode(sha2::Sha256::digest(&r.body)));
    assert_eq!(a.signature, r.webhook_signature);
    assert_eq!(a.destination_ip.as_deref(), Some("127.0.0.1"));
    assert!(a.duration_ms >= 0);
    assert_eq!(a.outcome, AttemptOutcome::Delivered);
    assert_eq!(a.error_code, None);
    assert_eq!(a.error_kind, None);
    assert!(a.detail.is_object(), "{:?}", a.detail);
    assert_ne!(a.detail, serde_json::json!({}), "the kind says what it got");
    assert_eq!(a.started_at, h.clock.now());
}

/// [`attempt_record_is_complete`] for a peer that parses what it carries
/// and writes it again (EventBridge's `Detail`, `compliance_suite!(Peer;
/// reserialized)`): what arrives is the same JSON, not the same bytes, and
/// no signature travels, so the received event is compared as JSON with
/// the message (its id, and nothing claiming a signature); the record's
/// digest, of the bytes Relay sent, is checked for its shape. Every other
/// part of the record is checked as for every kind.
pub async fn attempt_record_is_complete_reserialized<P: Peer>(h: Harness<P>) {
    let id = h.publish().await;
    h.round().await;
    let got = wait_received(&h.peer, 1).await;
    let r = got.first().expect("a message");
    let event: serde_json::Value = serde_json::from_slice(&r.body).expect("JSON");
    assert_valid_cloudevent(&event);
    assert_eq!(event["id"], id.as_str());
    assert_eq!(r.webhook_signature, "", "nothing claims a signature");
    let m = h.only_message().await;
    let a = &h.attempts(&m).await[0];
    assert_eq!(a.number, 1);
    assert!(
        a.body_sha256.len() == 64 && a.body_sha256.bytes().all(|b| b.is_ascii_hexdigit()),
        "{}",
        a.body_sha256
    );
    assert_eq!(a.destination_ip.as_deref(), Some("127.0.0.1"));
    assert!(a.duration_ms >= 0);
    assert_eq!(a.outcome, AttemptOutcome::Delivered);
    assert_eq!(a.error_code, None);
    assert_eq!(a.error_kind, None);
    assert!(a.detail.is_object(), "{:?}", a.detail);
    assert_ne!(a.detail, serde_json::json!({}), "the kind says what it got");
    assert_eq!(a.started_at, h.clock.now());
}

/// Neither the signing secret nor the destination's credentials appear in
/// what was logged, in attempt records (success and failure), or in the
/// `Debug` of the endpoint.
pub async fn secrets_stay_out_of_logs_and_records<P: Peer>(h: Harness<P>) {
    h.peer.set_mode(Mode::FailRetryable).await;
    h.publish().await;
    h.round().await;
    h.peer.set_mode(Mode::Accept).await;
    let m = h.only_message().await;
    h.advance_to_next_attempt(&m);
    h.round().await;
    let whsec = h.whsec();
    let mut secrets = vec![whsec.trim_start_matches("whsec_").to_string(), whsec];
    secrets.extend(h.peer.secrets());
    let logs = h.logs.text();
    assert!(logs.contains("attempt finished"), "the logs were captured");
    let attempts = h.attempts(&m).await;
    assert_eq!(attempts.len(), 2);
    let records = format!("{attempts:?} {}", serde_json::to_string(&attempts).unwrap());
    let endpoint = format!("{:?}", h.endpoint);
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        assert!(!logs.contains(secret.as_str()), "a secret in the logs");
        assert!(
            !records.contains(secret.as_str()),
            "a secret in the records"
        );
        assert!(!endpoint.contains(secret.as_str()), "a secret in Debug");
    }
}

/// A burst with the destination stopped in the middle and started again:
/// every accepted event arrives (at least once), none is lost, and what was
/// not acknowledged is retried until it is.
pub async fn stopped_mid_burst_loses_nothing<P: Peer>(h: Harness<P>) {
    let mut ids = Vec::new();
    for _ in 0..15 {
        ids.push(h.publish().await);
    }
    h.round().await;
    h.peer.set_mode(Mode::Down).await;
    for _ in 0..15 {
        ids.push(h.publish().await);
    }
    // Rounds until everything due was attempted against the stopped peer.
    while h.round().await > 0 {}
    h.peer.set_mode(Mode::Accept).await;
    h.retry_until_delivered(20).await;
    let messages = h.messages().await;
    assert_eq!(messages.len(), ids.len());
    assert!(
        messages.iter().all(|m| m.state == MessageState::Delivered),
        "{messages:?}"
    );
    let got = wait_received(&h.peer, ids.len()).await;
    let mut received: Vec<String> = got.iter().flat_map(P::event_ids).collect();
    received.sort();
    received.dedup();
    ids.sort();
    assert_eq!(received, ids, "every accepted event arrived");
}

/// The CloudEvents 1.0.2 JSON Schema accepts `event`, and it is version 1.0
/// of the event this harness publishes.
pub fn assert_valid_cloudevent(event: &serde_json::Value) {
    let schema: serde_json::Value = serde_json::from_str(include_str!(
        "../../../testdata/cloudevents-v1.0.2.schema.json"
    ))
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema");
    let errors: Vec<String> = validator
        .iter_errors(event)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(event["specversion"], "1.0");
    assert_eq!(event["type"], "order.shipped");
    assert_eq!(event["source"], "https://acme.example/merchants/42");
    assert_eq!(event["subject"], "order/1042");
    assert_eq!(event["data"]["order_id"], "1042");
}
