//! The delivery rules end to end: a real HTTPS receiver on loopback, the
//! injected clock walking the schedule, one `run_once` per due time.

mod common;

use std::time::Duration;

use common::{Env, Setup, WAIT};
use relay_core::model::{MessageState, SignatureScheme};
use relay_core::retry::RetrySchedule;
use relay_core::time::Clock;
use relay_receiver::{Behavior, Reply};
use relay_store::ExecutorExt as _;
use sha2::Digest;

const DATA: &str = r#"{"order_id":"1042",  "carrier" : "DHL","note":"bytes kept as sent"}"#;

async fn env(setup: Setup) -> Env {
    Env::start(setup).await.expect("sqlite env")
}

#[tokio::test]
async fn a_delivery_is_a_signed_cloudevent_with_a_full_attempt_record() {
    for scheme in [SignatureScheme::V1a, SignatureScheme::V1] {
        let e = env(Setup {
            scheme,
            ..Default::default()
        })
        .await;
        let published = e.publish("evt_order_1042", DATA).await;
        assert_eq!(published.messages_created, 1);
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        let got = e.receiver.wait_for(1, WAIT).await.unwrap();
        let r = &got[0];
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/hooks");
        assert_eq!(
            r.sni.as_deref(),
            Some("receiver.test"),
            "SNI is the hostname"
        );
        assert_eq!(
            r.header("content-type"),
            Some("application/cloudevents+json")
        );
        assert_eq!(r.header("webhook-id"), Some("evt_order_1042"));
        let ts: i64 = r.header("webhook-timestamp").unwrap().parse().unwrap();
        assert_eq!(ts, e.clock.now().unix_seconds());
        let sig = r.header("webhook-signature").unwrap().to_string();
        let prefix = if scheme == SignatureScheme::V1a {
            "v1a,"
        } else {
            "v1,"
        };
        assert!(sig.starts_with(prefix), "{sig}");
        assert_eq!(
            r.signature_valid,
            Some(true),
            "the receiver verified the signature"
        );
        assert_eq!(r.header("relay-event-type"), Some("order.shipped"));
        assert_eq!(r.header("relay-attempt"), Some("1"));

        let body = r.body_str().unwrap();
        let ce: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(ce["specversion"], "1.0");
        assert_eq!(ce["id"], "evt_order_1042");
        assert_eq!(ce["source"], "https://acme.example/merchants/42");
        assert_eq!(ce["type"], "order.shipped");
        assert_eq!(ce["subject"], "order/1042");
        assert_eq!(ce["datacontenttype"], "application/json");
        assert_eq!(ce["dataschema"], "urn:relay:event-type:order.shipped:v1");
        assert_eq!(ce["seq"], 1);
        assert_eq!(ce["environment"], "live");
        assert_eq!(
            ce["traceparent"],
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        );
        assert!(
            body.contains(DATA),
            "data is embedded byte for byte: {body}"
        );
        assert!(!body.contains("null"), "absent attributes are omitted");
        assert!(
            !body.contains(&e.scope.tenant_id),
            "the tenant id never appears"
        );
        assert!(
            r.headers
                .iter()
                .all(|(_, v)| !v.contains(&e.scope.tenant_id)),
            "nor in a header"
        );

        let m = e.only_message().await;
        assert_eq!(m.state, MessageState::Delivered);
        assert_eq!(m.attempts_used, 1);
        let attempts = e.attempts(&m.id).await;
        assert_eq!(attempts.len(), 1);
        let a = &attempts[0];
        assert_eq!(a.number, 1);
        assert_eq!(a.status_code, Some(200));
        assert_eq!(a.outcome.as_str(), "delivered");
        assert_eq!(a.destination_ip.as_deref(), Some("127.0.0.1"));
        assert_eq!(a.signature, sig);
        assert_eq!(a.body_sha256, hex::encode(sha2::Sha256::digest(&r.body)));
        assert_eq!(a.error_kind, None);
        assert_eq!(a.trigger, relay_core::model::AttemptTrigger::Scheduled);
        // Nothing more to do.
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
        assert_eq!(e.receiver.count(), 1);
    }
}

#[tokio::test]
async fn the_reference_schedule_is_walked_exactly_and_ends_exhausted() {
    let e = env(Setup {
        behavior: Behavior::status(503),
        verify: false,
        ..Default::default()
    })
    .await;
    e.publish("evt_retry", DATA).await;
    let id = e.only_message().await.id;
    let schedule = RetrySchedule::reference();
    let mut attempt_times = vec![e.clock.now()];
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
    for attempt in 2..=10u32 {
        let m = e.only_message().await;
        assert_eq!(m.state, MessageState::Scheduled);
        assert_eq!(m.attempts_used, i64::from(attempt - 1));
        assert_eq!(m.last_error_code.as_deref(), Some("http_503"));
        let due = m.next_attempt_at.expect("due time");
        let wait = schedule.wait_millis(&id, attempt).expect("a wait");
        let last = *attempt_times.last().unwrap();
        assert_eq!(
            due.millis() - last.millis(),
            wait,
            "wait before attempt {attempt}"
        );
        // Not a millisecond early.
        e.clock.set(due.plus_millis(-1));
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
        e.clock.set(due);
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        attempt_times.push(due);
    }
    let m = e.only_message().await;
    assert_eq!(m.state, MessageState::Exhausted);
    assert_eq!(m.attempts_used, 10);
    assert_eq!(m.terminal_reason.as_deref(), Some("attempts_exhausted"));
    assert_eq!(m.next_attempt_at, None);
    e.clock.advance_millis(30 * 24 * 3600 * 1000);
    assert_eq!(
        e.dispatcher.run_once().await.unwrap(),
        0,
        "no infinite retry"
    );
    assert_eq!(e.receiver.count(), 10);
    let total = attempt_times.last().unwrap().millis() - attempt_times[0].millis();
    let hours = total as f64 / 3_600_000.0;
    assert!((60.0..92.0).contains(&hours), "≈76 h ±20 %: {hours}");
    let attempts = e.attempts(&id).await;
    assert_eq!(attempts.len(), 10);
    assert!(attempts.iter().all(|a| a.status_code == Some(503)));
    assert_eq!(attempts.last().unwrap().outcome.as_str(), "exhausted");
}

/// One response, one expected message state (the reference table).
async fn outcome_of(behavior: Behavior) -> (Env, relay_core::model::Message) {
    let e = env(Setup {
        behavior,
        verify: false,
        tune: |c| {
            c.limits.total_timeout = Duration::from_millis(400);
            c.limits.connect_timeout = Duration::from_millis(400);
        },
        ..Default::default()
    })
    .await;
    e.publish("evt_1", DATA).await;
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
    let m = e.only_message().await;
    (e, m)
}

#[tokio::test]
async fn responses_follow_the_reference_table() {
    use MessageState::*;
    let cases: Vec<(Behavior, MessageState, Option<&str>, Option<&str>)> = vec![
        (Behavior::status(200), Delivered, None, None),
        (Behavior::status(204), Delivered, None, None),
        (Behavior::status(299), Delivered, None, None),
        (
            Behavior::redirect("https://elsewhere.example/"),
            FailedPermanent,
            Some("redirect_not_followed"),
            Some("http_302"),
        ),
        (
            Behavior::status(301),
            FailedPermanent,
            Some("redirect_not_followed"),
            Some("http_301"),
        ),
        (
            Behavior::status(400),
            FailedPermanent,
            Some("rejected_by_endpoint"),
            Some("http_400"),
        ),
        (
            Behavior::status(404),
            FailedPermanent,
            Some("rejected_by_endpoint"),
            Some("http_404"),
        ),
        (
            Behavior::status(422),
            FailedPermanent,
            Some("rejected_by_endpoint"),
            Some("http_422"),
        ),
        (Behavior::status(401), Scheduled, None, Some("http_401")),
        (Behavior::status(407), Scheduled, None, Some("http_407")),
        (Behavior::status(409), Scheduled, None, Some("http_409")),
        (Behavior::status(429), Scheduled, None, Some("http_429")),
        (Behavior::status(500), Scheduled, None, Some("http_500")),
        (Behavior::status(502), Scheduled, None, Some("http_502")),
        (Behavior::status(503), Scheduled, None, Some("http_503")),
        (Behavior::close(), Scheduled, None, None),
        (Behavior::hang(), Scheduled, None, Some("timeout")),
        (
            Behavior::reply(Reply::new(500).with_header("webhook-delivery", "abort-message")),
            FailedPermanent,
            Some("aborted_by_consumer"),
            Some("http_500"),
        ),
        // A 2xx has no retries left to stop: delivered (documented in relay-destinations/src/https/classify.rs).
        (Behavior::abort_message(), Delivered, None, None),
    ];
    for (behavior, state, reason, code) in cases {
        let label = format!("{behavior:?}");
        let (e, m) = outcome_of(behavior).await;
        assert_eq!(m.state, state, "{label}");
        assert_eq!(m.terminal_reason.as_deref(), reason, "{label}");
        if let Some(code) = code {
            assert_eq!(m.last_error_code.as_deref(), Some(code), "{label}");
        }
        assert_eq!(m.attempts_used, 1, "{label}");
        let attempts = e.attempts(&m.id).await;
        assert_eq!(attempts.len(), 1, "{label}");
        if state == Scheduled {
            assert!(m.next_attempt_at.is_some(), "{label}: retried later");
        }
    }
}

#[tokio::test]
async fn a_redirect_is_not_followed_and_raises_a_health_warning() {
    let (e, m) = outcome_of(Behavior::redirect("https://elsewhere.example/x")).await;
    assert_eq!(m.state, MessageState::FailedPermanent);
    assert_eq!(
        e.receiver.count(),
        1,
        "the redirect target was never requested"
    );
    let warnings = relay_store::conformance::endpoint_warnings(e.store(), &e.endpoint.id, 10)
        .await
        .unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        warnings[0].kind,
        relay_core::model::WarningKind::RedirectNotFollowed
    );
    assert!(warnings[0].detail.contains("elsewhere.example"));
}

#[tokio::test]
async fn a_410_disables_the_endpoint_at_once() {
    let (e, m) = outcome_of(Behavior::gone()).await;
    assert_eq!(m.state, MessageState::FailedPermanent);
    let ep = e.endpoint_now().await;
    assert_eq!(ep.state, relay_core::model::EndpointState::Disabled);
    assert_eq!(ep.disabled_reason.as_deref(), Some("endpoint_returned_410"));
    // New events are recorded, not attempted.
    e.publish("evt_after", DATA).await;
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
    assert_eq!(e.receiver.count(), 1);
}

#[tokio::test]
async fn an_endpoint_that_refuses_everything_fails_continuously_and_is_disabled_at_5_days() {
    // A 400 to every message: each ends failed_permanent at once, and each
    // counts toward automatic disabling like a retried failure would.
    let e = env(Setup {
        behavior: Behavior::status(400),
        verify: false,
        ..Default::default()
    })
    .await;
    let start = e.clock.now();
    for (i, hour) in [0, 12, 72, 119, 120].into_iter().enumerate() {
        e.clock.set(start.plus_seconds(hour * 3600));
        e.publish(&format!("evt_{i}"), DATA).await;
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        let ep = e.endpoint_now().await;
        let want = if hour < 120 {
            relay_core::model::EndpointState::Active
        } else {
            relay_core::model::EndpointState::Disabled
        };
        assert_eq!(ep.state, want, "at hour {hour}");
    }
    assert!(
        e.messages()
            .await
            .iter()
            .all(|m| m.state == MessageState::FailedPermanent)
    );
    let ep = e.endpoint_now().await;
    assert_eq!(ep.disabled_reason.as_deref(), Some("failing_for_5_days"));
    let warnings = relay_store::conformance::endpoint_warnings(e.store(), &e.endpoint.id, 10)
        .await
        .unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.kind == relay_core::model::WarningKind::FailingFor72Hours),
        "{warnings:?}"
    );
    assert_eq!(
        e.dispatcher.node_circuit(&e.endpoint.id).name(),
        "closed",
        "a refusal is an answer: the breaker does not open on it"
    );
}

#[tokio::test]
async fn half_open_lets_a_few_probes_through_then_opens_again_on_failure() {
    let e = env(Setup {
        behavior: Behavior::status(503),
        verify: false,
        tune: |c| {
            c.breaker = relay_core::circuit::BreakerConfig {
                failure_threshold: 2,
                cool_down_millis: 30_000,
                half_open_probes: 3,
            };
        },
        ..Default::default()
    })
    .await;
    for i in 0..2 {
        e.publish(&format!("evt_{i}"), DATA).await;
        e.dispatcher.run_once().await.unwrap();
    }
    assert_eq!(e.dispatcher.node_circuit(&e.endpoint.id).name(), "open");
    for i in 2..10 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    let before = e.receiver.count();
    e.clock.advance_millis(30_000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(
        e.receiver.count() - before,
        3,
        "three probes, not one and not the whole backlog"
    );
    assert_eq!(e.dispatcher.node_circuit(&e.endpoint.id).name(), "open");
    // The next cool-down: the probes succeed and the circuit closes.
    e.receiver.set_behavior(Behavior::ok());
    e.clock.advance_millis(3_600_000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(e.dispatcher.node_circuit(&e.endpoint.id).name(), "closed");
}

#[tokio::test]
async fn retry_after_defers_without_using_an_attempt_at_most_three_times() {
    let e = env(Setup {
        behavior: Behavior::retry_after(429, "3600"),
        verify: false,
        ..Default::default()
    })
    .await;
    e.publish("evt_ra", DATA).await;
    for deferral in 1..=3 {
        let before = e.clock.now();
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        let m = e.only_message().await;
        assert_eq!(m.state, MessageState::Scheduled);
        assert_eq!(m.attempts_used, 0, "a deferral does not use an attempt");
        assert_eq!(m.deferrals_used, deferral);
        let due = m.next_attempt_at.unwrap();
        assert!(
            due.millis() >= before.plus_seconds(3600).millis(),
            "Retry-After is honoured"
        );
        e.clock.set(due);
    }
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
    let m = e.only_message().await;
    assert_eq!(
        (m.attempts_used, m.deferrals_used),
        (1, 3),
        "the fourth counts"
    );
    let attempts = e.attempts(&m.id).await;
    assert_eq!(
        attempts
            .iter()
            .map(|a| a.outcome.as_str())
            .collect::<Vec<_>>(),
        vec!["deferred", "deferred", "deferred", "retry"]
    );
    // An HTTP-date Retry-After works too, and the later of the two times wins.
    let e = env(Setup {
        behavior: Behavior::retry_after(503, "Wed, 21 Oct 2015 07:28:00 GMT"),
        verify: false,
        ..Default::default()
    })
    .await;
    e.publish("evt_date", DATA).await;
    e.dispatcher.run_once().await.unwrap();
    let m = e.only_message().await;
    let schedule = RetrySchedule::reference();
    assert_eq!(
        m.next_attempt_at.unwrap().millis() - e.clock.now().millis(),
        schedule.wait_millis(&m.id, 2).unwrap(),
        "a Retry-After in the past leaves the schedule's time"
    );
}

#[tokio::test]
async fn at_most_8_kb_of_a_huge_response_is_read() {
    let e = env(Setup {
        behavior: Behavior::Stream {
            status: relay_net::StatusCode::OK,
            headers: relay_net::HeaderMap::new(),
            total_bytes: None,
        },
        verify: false,
        ..Default::default()
    })
    .await;
    e.publish("evt_big", DATA).await;
    let started = std::time::Instant::now();
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "reading stopped"
    );
    let m = e.only_message().await;
    assert_eq!(m.state, MessageState::Delivered);
    let a = &e.attempts(&m.id).await[0];
    let kept = a.response_body.as_deref().unwrap_or_default();
    assert!(
        kept.len() <= 8192 && kept.len() > 4096,
        "kept {} bytes",
        kept.len()
    );
}

#[tokio::test]
async fn an_expired_event_is_not_attempted() {
    let e = env(Setup::default()).await;
    let expires = e.clock.now().plus_seconds(60);
    e.publish_with("evt_ttl", DATA, Some(expires)).await;
    e.clock.set(expires);
    e.dispatcher.run_once().await.unwrap();
    let m = e.only_message().await;
    assert_eq!(m.state, MessageState::Expired);
    assert_eq!(m.terminal_reason.as_deref(), Some("ttl_expired"));
    assert_eq!(e.receiver.count(), 0);
}

#[tokio::test]
async fn dns_rebinding_at_connect_time_is_blocked_recorded_and_retried() {
    // The name resolves to loopback at connect time, and loopback is not allowed.
    let e = env(Setup {
        host: "rebind.test",
        resolves_to: "127.0.0.1",
        allow_loopback: false,
        ..Default::default()
    })
    .await;
    e.publish("evt_rebind", DATA).await;
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(e.receiver.count(), 0, "nothing reached the blocked address");
    let m = e.only_message().await;
    assert_eq!(
        m.state,
        MessageState::Scheduled,
        "retried like a connection error"
    );
    assert_eq!(m.last_error_code.as_deref(), Some("blocked_address"));
    let a = &e.attempts(&m.id).await[0];
    assert_eq!(
        a.error_kind,
        Some(relay_core::model::ErrorKind::BlockedAddress.into())
    );
    let warnings = relay_store::conformance::endpoint_warnings(e.store(), &e.endpoint.id, 10)
        .await
        .unwrap();
    assert_eq!(
        warnings[0].kind,
        relay_core::model::WarningKind::BlockedAddress
    );
    // What the tenant reads (the attempt, its detail, the health warning)
    // says the target is blocked, never what the name resolved to.
    let record = serde_json::to_string(a).unwrap();
    for text in [record.as_str(), warnings[0].detail.as_str()] {
        assert!(text.contains("blocked"), "{text}");
        for never in ["127.0.0.1", "127.0.0.0/8", "loopback"] {
            assert!(!text.contains(never), "reveals {never:?}: {text}");
        }
    }
    assert_eq!(a.destination_ip, None, "no address was connected to");
}

#[tokio::test]
async fn a_slow_response_that_ends_in_time_is_delivered_and_a_late_one_is_a_timeout() {
    let (_, m) = outcome_of(Behavior::delay(Duration::from_millis(100), Behavior::ok())).await;
    assert_eq!(m.state, MessageState::Delivered);
    let (e, m) = outcome_of(Behavior::delay(Duration::from_secs(5), Behavior::ok())).await;
    assert_eq!(m.state, MessageState::Scheduled);
    let a = &e.attempts(&m.id).await[0];
    assert_eq!(
        a.error_kind,
        Some(relay_core::model::ErrorKind::Timeout.into())
    );
    assert!(a.duration_ms < 3000, "{}", a.duration_ms);
}

#[tokio::test]
async fn the_response_body_is_recorded_but_never_a_secret() {
    let e = env(Setup {
        behavior: Behavior::reply(Reply::new(500).with_body("upstream exploded")),
        scheme: SignatureScheme::V1,
        verify: false,
        ..Default::default()
    })
    .await;
    e.publish("evt_s", DATA).await;
    e.dispatcher.run_once().await.unwrap();
    let m = e.only_message().await;
    let a = &e.attempts(&m.id).await[0];
    assert_eq!(a.response_body.as_deref(), Some("upstream exploded"));
    assert_eq!(
        a.response_body_encoding,
        Some(relay_core::model::BodyEncoding::Utf8)
    );
    let secret = match &e.key {
        relay_core::signature::SigningKey::Hmac(h) => h.expose_whsec(),
        _ => unreachable!("v1 endpoint"),
    };
    let record = format!("{a:?}");
    let raw = secret.trim_start_matches("whsec_");
    assert!(!record.contains(raw), "the attempt record holds no secret");
    let metrics = e.dispatcher.metrics().render();
    assert!(!metrics.contains(raw) && !metrics.contains(&e.endpoint.id));
}

#[tokio::test]
async fn a_response_body_that_is_not_utf8_is_kept_byte_for_byte_as_base64() {
    let bytes: &[u8] = &[0xff, 0xfe, 0x00, b'a', 0xc3];
    let e = env(Setup {
        behavior: Behavior::reply(Reply::new(500).with_body(bytes.to_vec())),
        verify: false,
        ..Default::default()
    })
    .await;
    e.publish("evt_bin", DATA).await;
    e.dispatcher.run_once().await.unwrap();
    let m = e.only_message().await;
    let a = &e.attempts(&m.id).await[0];
    assert_eq!(
        a.response_body_encoding,
        Some(relay_core::model::BodyEncoding::Base64)
    );
    use base64::Engine as _;
    let kept = base64::engine::general_purpose::STANDARD
        .decode(a.response_body.as_deref().unwrap())
        .unwrap();
    assert_eq!(kept, bytes, "the bytes, not a lossy decoding");
    let api = serde_json::to_value(a).unwrap();
    assert_eq!(api["response_body_encoding"], "base64");
}

#[tokio::test]
async fn during_a_rotation_overlap_both_keys_sign_new_first_then_only_the_new_one() {
    let e = env(Setup {
        verify: false,
        ..Default::default()
    })
    .await;
    let master = relay_core::sealed::MasterKey::from_bytes(common::MASTER);
    let now = e.clock.now();
    let rotated_at = now.plus_millis(1);
    let (new_record, new_key) =
        relay_store::keys::generate(&master, &e.endpoint.id, SignatureScheme::V1a, rotated_at);
    let audit = relay_store::AuditEntry {
        id: relay_store::new_id(relay_core::id::IdKind::Audit, rotated_at),
        actor: "test".into(),
        action: "endpoint.key_rotated".into(),
        target: e.endpoint.id.clone(),
        parameters: serde_json::json!({}),
        at: rotated_at,
    };
    let overlap_end = rotated_at.plus_seconds(24 * 3600);
    let (scope, id) = (e.scope.clone(), e.endpoint.id.clone());
    e.store()
        .write(relay_store::Commit::Durable, move |mut x| {
            Box::pin(async move {
                relay_store::endpoints::rotate_key(
                    &mut x,
                    &scope,
                    &id,
                    &new_record,
                    overlap_end,
                    &audit,
                )
                .await
            })
        })
        .await
        .unwrap();
    e.clock.set(rotated_at);
    e.publish("evt_during", DATA).await;
    e.dispatcher.run_once().await.unwrap();
    let during = e.receiver.wait_for(1, WAIT).await.unwrap().remove(0);
    let header = during.header("webhook-signature").unwrap().to_string();
    let entries: Vec<&str> = header.split(' ').collect();
    assert_eq!(
        entries.len(),
        2,
        "two signatures during the overlap: {header}"
    );
    let verifies = |key: &relay_core::signature::SigningKey, entry: &str| {
        let headers = relay_core::signature::SignatureHeaders {
            webhook_id: during.header("webhook-id").unwrap().into(),
            webhook_timestamp: during.header("webhook-timestamp").unwrap().into(),
            webhook_signature: entry.into(),
        };
        relay_core::signature::verify(
            &[key.verification_key()],
            &headers,
            &during.body,
            e.clock.now(),
            300,
        )
        .is_ok()
    };
    assert!(verifies(&new_key, entries[0]), "the new key signs first");
    assert!(verifies(&e.key, entries[1]), "the old key signs second");
    assert!(!verifies(&e.key, entries[0]));

    // After the overlap, only the new key signs.
    e.clock.set(overlap_end);
    e.publish("evt_after", DATA).await;
    e.dispatcher.run_once().await.unwrap();
    let after = e.receiver.wait_for(2, WAIT).await.unwrap().remove(1);
    let header = after.header("webhook-signature").unwrap();
    assert_eq!(header.split(' ').count(), 1, "{header}");
    assert!(header.starts_with("v1a,"));
}

#[tokio::test]
async fn events_past_retention_are_purged_with_their_messages_and_attempts() {
    let e = env(Setup {
        verify: false,
        tune: |c| {
            c.retention = Duration::from_secs(30 * 86_400);
            c.purge_batch = 2;
        },
        ..Default::default()
    })
    .await;
    for i in 0..5 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(e.messages().await.len(), 5);
    e.clock.advance_millis(29 * 86_400 * 1000);
    assert_eq!(
        e.dispatcher.purge().await.unwrap(),
        0,
        "still within retention"
    );
    e.clock.advance_millis(2 * 86_400 * 1000);
    e.publish("evt_recent", DATA).await;
    assert_eq!(
        e.dispatcher.purge().await.unwrap(),
        5,
        "in batches of 2 until done"
    );
    let left: Vec<String> = e.messages().await.into_iter().map(|m| m.event_id).collect();
    assert_eq!(left, vec!["evt_recent"]);
}

#[tokio::test]
async fn a_bulk_retry_job_restarts_failed_messages_and_they_are_delivered() {
    let e = env(Setup {
        behavior: Behavior::status(400),
        verify: false,
        ..Default::default()
    })
    .await;
    for i in 0..7 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    e.dispatcher.run_once().await.unwrap();
    assert!(
        e.messages()
            .await
            .iter()
            .all(|m| m.state == MessageState::FailedPermanent)
    );
    let now = e.clock.now();
    let job = relay_store::Job {
        id: relay_store::new_id(relay_core::id::IdKind::Job, now),
        kind: relay_core::model::JobKind::BulkRetry,
        parameters: serde_json::json!({"state": "failed_permanent", "error_code": "http_400"}),
        state: relay_core::model::JobState::Queued,
        processed: 0,
        affected: 0,
        created_at: now,
        updated_at: now,
        finished_at: None,
    };
    let audit = relay_store::AuditEntry {
        id: relay_store::new_id(relay_core::id::IdKind::Audit, now),
        actor: "test".into(),
        action: "messages.bulk_retry".into(),
        target: job.id.clone(),
        parameters: job.parameters.clone(),
        at: now,
    };
    relay_store::conformance::create_job(e.store(), &e.scope, &job, &audit)
        .await
        .unwrap();
    assert_eq!(e.dispatcher.run_jobs(None).await.unwrap(), 1);
    let done = relay_store::conformance::get_job(e.store(), &e.scope, &job.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (done.state.as_str(), done.processed, done.affected),
        ("done", 7, 7)
    );
    assert!(
        e.messages()
            .await
            .iter()
            .all(|m| m.state == MessageState::Scheduled && m.attempts_used == 0)
    );
    e.receiver.set_behavior(Behavior::ok());
    e.dispatcher.run_once().await.unwrap();
    assert!(
        e.messages()
            .await
            .iter()
            .all(|m| m.state == MessageState::Delivered)
    );
}

#[tokio::test]
async fn an_endpoint_rate_limit_is_enforced_without_using_up_attempts() {
    let e = env(Setup {
        verify: false,
        ..Default::default()
    })
    .await;
    let mut endpoint = e.endpoint.clone();
    endpoint.rate_limit_per_second = Some(5);
    endpoint.updated_at = e.clock.now();
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    for i in 0..12 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    let delivered = |ms: &[relay_core::model::Message]| {
        ms.iter()
            .filter(|m| m.state == MessageState::Delivered)
            .count()
    };
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered(&e.messages().await), 5, "one second of burst");
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(
        delivered(&e.messages().await),
        5,
        "no token left at the same instant"
    );
    let waiting = e.messages().await;
    assert!(
        waiting
            .iter()
            .filter(|m| m.state == MessageState::Scheduled)
            .all(|m| m.attempts_used == 0),
        "messages held back by the rate limit used no attempt"
    );
    e.clock.advance_millis(1000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered(&e.messages().await), 10);
    e.clock.advance_millis(1000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered(&e.messages().await), 12);
    assert_eq!(e.receiver.count(), 12);
}

/// Recovers the endpoint's messages from a minute before `since` (which
/// makes them recovery traffic); returns how many were restarted.
async fn recover_since(e: &Env, since: relay_core::time::Timestamp) -> u64 {
    let now = e.clock.now();
    relay_store::recovery::recover(
        e.store(),
        &e.scope,
        &e.endpoint.id,
        since.plus_seconds(-60),
        now.plus_seconds(60),
        &relay_store::AuditEntry {
            id: relay_store::new_id(relay_core::id::IdKind::Audit, now),
            actor: "operator".into(),
            action: "endpoint.recovered".into(),
            target: e.endpoint.id.clone(),
            parameters: serde_json::json!({}),
            at: now,
        },
    )
    .await
    .unwrap()
    .requeued
}

#[tokio::test]
async fn recovery_traffic_runs_within_the_endpoint_rate_limit() {
    let e = env(Setup {
        behavior: Behavior::status(400),
        verify: false,
        ..Default::default()
    })
    .await;
    let published_at = e.clock.now();
    for i in 0..12 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    // Every message is refused for good (10 at a time: the lane's limit).
    e.dispatcher.run_once().await.unwrap();
    e.dispatcher.run_once().await.unwrap();
    assert!(
        e.messages()
            .await
            .iter()
            .all(|m| m.state == MessageState::FailedPermanent)
    );
    // The consumer is fixed; the endpoint gets a rate limit; the outage is
    // recovered, which makes every message recovery traffic.
    e.receiver.set_behavior(Behavior::ok());
    let mut endpoint = e.endpoint.clone();
    endpoint.rate_limit_per_second = Some(5);
    endpoint.updated_at = e.clock.now();
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    assert_eq!(recover_since(&e, published_at).await, 12);
    let delivered = |ms: &[relay_core::model::Message]| {
        ms.iter()
            .filter(|m| m.state == MessageState::Delivered)
            .count()
    };
    let before = e.receiver.count();
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(
        delivered(&e.messages().await),
        5,
        "recovery traffic gets one second of burst, no more"
    );
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(
        delivered(&e.messages().await),
        5,
        "no token left at the same instant"
    );
    e.clock.advance_millis(1000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered(&e.messages().await), 10);
    e.clock.advance_millis(1000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered(&e.messages().await), 12);
    assert_eq!(e.receiver.count() - before, 12, "one attempt each");
}

#[tokio::test]
async fn recovery_traffic_is_paced_by_recovery_per_second() {
    // 40 a second: a tenth of a second's worth (4) at once, then 4 per 100 ms.
    let e = env(Setup {
        behavior: Behavior::status(400),
        verify: false,
        tune: |c| c.recovery_per_second = 40,
        ..Default::default()
    })
    .await;
    let published_at = e.clock.now();
    for i in 0..12 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    e.dispatcher.run_once().await.unwrap();
    e.dispatcher.run_once().await.unwrap();
    e.receiver.set_behavior(Behavior::ok());
    assert_eq!(recover_since(&e, published_at).await, 12);
    let delivered = async || {
        e.messages()
            .await
            .iter()
            .filter(|m| m.state == MessageState::Delivered)
            .count()
    };
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered().await, 4, "a tenth of a second's worth at once");
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered().await, 4, "nothing more at the same instant");
    e.clock.advance_millis(50);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered().await, 6, "2 more after 50 ms");
    e.clock.advance_millis(1000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered().await, 10, "never more than the burst");
    e.clock.advance_millis(100);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered().await, 12);
    // Live traffic is not paced: 8 new events go at once.
    for i in 0..8 {
        e.publish(&format!("evt_live_{i}"), DATA).await;
    }
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(delivered().await, 20);
}

#[tokio::test]
async fn the_circuit_opens_on_consecutive_failures_holds_without_using_attempts_and_closes_on_a_probe()
 {
    let e = env(Setup {
        behavior: Behavior::status(503),
        verify: false,
        tune: |c| {
            c.breaker = relay_core::circuit::BreakerConfig {
                failure_threshold: 3,
                cool_down_millis: 30_000,
                half_open_probes: 1,
            };
        },
        ..Default::default()
    })
    .await;
    let mut endpoint = e.endpoint.clone();
    endpoint.max_concurrency = 1;
    endpoint.updated_at = e.clock.now();
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    for i in 0..6 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    for _ in 0..3 {
        e.dispatcher.run_once().await.unwrap();
    }
    assert_eq!(e.receiver.count(), 3);
    assert_eq!(e.dispatcher.node_circuit(&e.endpoint.id).name(), "open");
    // While open: nothing is attempted, even when retries fall due.
    e.clock.advance_millis(10_000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(
        e.receiver.count(),
        3,
        "no attempt while the circuit is open"
    );
    let used: i64 = e.messages().await.iter().map(|m| m.attempts_used).sum();
    assert_eq!(used, 3, "time spent open used up no attempt");
    // After the cool-down one probe goes; it succeeds and the circuit closes.
    e.receiver.set_behavior(Behavior::ok());
    e.clock.advance_millis(20_000);
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(e.receiver.count(), 4);
    assert_eq!(e.dispatcher.node_circuit(&e.endpoint.id).name(), "closed");
    for _ in 0..5 {
        e.dispatcher.run_once().await.unwrap();
    }
    assert!(
        e.messages()
            .await
            .iter()
            .all(|m| m.state == MessageState::Delivered)
    );
}

/// `env:` and `file:` are granted per tenant, and judged for the
/// endpoint's tenant at every resolve: a reference the operator granted
/// another tenant (or a grant withdrawn since the endpoint was registered)
/// sends nothing and is a recorded `secret_unresolved` attempt, retried,
/// whose detail names the reference and the refusal, never the value.
#[tokio::test]
async fn a_reference_not_granted_to_the_endpoints_tenant_is_a_recorded_refusal() {
    let e = env(Setup {
        verify: false,
        tune: |c| {
            c.secrets = relay_core::secret::SecretPolicy::default().grant(
                "ten_01JD0000000000000000000000",
                relay_core::secret::SecretGrant {
                    env_prefixes: vec!["PAT".into()],
                    file_dirs: vec![],
                },
            )
        },
        ..Default::default()
    })
    .await;
    let mut endpoint = e.endpoint.clone();
    let Ok(relay_destinations::Config::Https(mut https)) =
        relay_destinations::Config::try_from(&endpoint.destination)
    else {
        unreachable!()
    };
    https.headers.push(relay_destinations::https::HttpsHeader {
        name: "X-Token".into(),
        value: None,
        secret: Some(relay_core::secret::SecretRef::Env("PATH".into())),
    });
    endpoint.destination = relay_destinations::Config::Https(https).into();
    endpoint.updated_at = e.clock.now();
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    e.publish("evt_not_granted", DATA).await;
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(e.receiver.count(), 0, "nothing was sent");
    let m = e.only_message().await;
    assert_eq!(m.state, MessageState::Scheduled);
    assert_eq!(m.last_error_code.as_deref(), Some("secret_unresolved"));
    let a = &e.attempts(&m.id).await[0];
    let record = serde_json::to_string(a).unwrap();
    assert!(record.contains("env:PATH"), "{record}");
    assert!(record.contains("granted"), "{record}");
    let path = std::env::var("PATH").unwrap();
    assert!(!record.contains(&path), "{record}");
}

/// Credentials never travel in clear (issue #40 point 5): an endpoint
/// stored before the rule (or since the operator withdrew the loopback
/// allowance) whose broker destination carries a password with `tls` off
/// resolves no secret and builds no client: each attempt is a recorded
/// `secret_unresolved` that says why.
#[tokio::test]
async fn a_broker_password_is_never_sent_without_tls() {
    let e = env(Setup {
        verify: false,
        ..Default::default()
    })
    .await;
    let mut endpoint = e.endpoint.clone();
    endpoint.destination = relay_destinations::Config::RedisStream(
        relay_destinations::redis_stream::RedisStreamDestination {
            host: "127.0.0.1".into(),
            port: 6379,
            tls: false,
            database: None,
            stream: "events".into(),
            max_len: None,
            username: None,
            password: Some(relay_core::secret::SecretRef::Secret("redis-pw".into())),
            content_mode: Default::default(),
            wait_aof: None,
        },
    )
    .into();
    endpoint.updated_at = e.clock.now();
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    e.publish("evt_clear", DATA).await;
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
    let m = e.only_message().await;
    assert_eq!(m.state, MessageState::Scheduled, "retried, not lost");
    assert_eq!(m.last_error_code.as_deref(), Some("secret_unresolved"));
    let a = &e.attempts(&m.id).await[0];
    let record = serde_json::to_string(a).unwrap();
    assert!(record.contains("without TLS"), "{record}");
    assert!(
        a.destination_ip.is_none(),
        "no connection was made: {record}"
    );
}
