//! The Azure Service Bus kind against a judge, not the service: no Service
//! Bus emulator exists here, so `scripts/judges/servicebus_judge.py`
//! (one per test, `service_bus/judge.rs`) implements the documented REST
//! send with TLS from the test's own CA (trusted through the operator's
//! `extra_ca_certs`, the address allowed through `allow_cidrs`): it
//! recomputes each SAS token's signature from the rule's key (its
//! self-test checks it against the official Python SDK's own token
//! generator), checks its expiry and resource, the entity, the
//! `BrokerProperties`, the size, and keeps each message it acknowledged
//! with `201` for read-back. Entra tokens come from relay-receiver's
//! OAuth 2.0 token endpoint (`OAuthIssuer`).
//!
//! The kind's client sends exactly as the engine calls it
//! (`relay_destinations::build`, `Client::deliver`, `classify`, `record`).

#[path = "service_bus/judge.rs"]
mod judge;
#[path = "common/listening.rs"]
mod listening;
#[path = "service_bus/peer.rs"]
mod peer;
#[path = "common/proxy.rs"]
mod proxy;

// The shared suite: ServerBusy (retryable), a deleted queue (permanent),
// hanging and down behind a loopback relay; binary mode's properties read
// back by the peer.
relay_compliance::compliance_suite!(peer::ServiceBusPeer; binary);

use std::sync::Arc;
use std::time::Duration;

use relay_compliance::process::free_port;
use relay_core::model::{ContentMode, Environment, Event, SignatureScheme};
use relay_core::outcome::{FailureCode, OAuthError, Refusal, TokenFailure, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_core::signature::SigningKey;
use relay_core::time::{ManualClock, Timestamp};
use relay_core::transition::DeadLetterReason;
use relay_destinations::service_bus::{
    EntraCredentials, SasKey, ServiceBusAuth, ServiceBusDestination, wire,
};
use relay_destinations::{Config, Input, Prepared, Shared};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig};
use relay_receiver::{OAuthIssuer, Receiver, ReceiverConfig};
use serde_json::value::RawValue;

use judge::Judge;

const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

/// A judge of its own, reached directly.
async fn judge(bearer: bool) -> Judge {
    let port = free_port();
    Judge::start(port, port, bearer).await
}

fn sas(key_name: &str) -> ServiceBusAuth {
    ServiceBusAuth::Sas(SasKey {
        key_name: key_name.into(),
        key: SecretRef::Secret("sb".into()),
    })
}

fn destination(
    j: &Judge,
    entity: &str,
    mode: ContentMode,
    sessions: bool,
) -> ServiceBusDestination {
    ServiceBusDestination {
        namespace: None,
        endpoint: Some(j.url()),
        entity: entity.into(),
        auth: sas(judge::RULE),
        sessions,
        content_mode: mode,
        max_message_bytes: 256 * 1024,
        refused: None,
    }
}

fn guard(j: &Judge, extra_ports: &[u16]) -> Guard {
    let mut allow_ports = vec![j.public_port];
    allow_ports.extend_from_slice(extra_ports);
    Guard::from_config(&OutboundConfig {
        allow_ports,
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![j.ca_pem.clone()],
        allow_plaintext_credentials_to_loopback: false,
    })
    .expect("a guard")
}

fn secrets(value: &str) -> Secrets {
    let mut s = Secrets::new();
    s.insert(SecretRef::Secret("sb".into()), SecretValue::from(value));
    s
}

/// The endpoint's client with `value` as its secret, on `clock`.
fn client_on(
    j: &Judge,
    d: &ServiceBusDestination,
    value: &str,
    clock: Arc<ManualClock>,
    extra_ports: &[u16],
) -> relay_destinations::Client {
    relay_destinations::build(
        &Config::ServiceBus(d.clone()),
        &Shared {
            https: HttpsClient::new(guard(j, extra_ports)),
            clock,
        },
        &secrets(value),
    )
    .expect("the secret resolves")
}

fn client(j: &Judge, d: &ServiceBusDestination) -> relay_destinations::Client {
    client_on(j, d, &j.key, Arc::new(ManualClock::new(NOW)), &[])
}

/// The machine's time: what the judge measures a token's expiry by.
fn machine_now() -> Timestamp {
    Timestamp::from_millis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64,
    )
}

/// Event `id` with `ordering_key`, prepared in `mode`.
fn message(id: &str, ordering_key: Option<&str>, mode: ContentMode) -> Prepared {
    let event = Event {
        id: id.into(),
        event_type: "order.shipped".into(),
        type_version: 1,
        environment: Environment::Live,
        subject: Some("order/é☃".into()),
        data: RawValue::from_string(format!(r#"{{"order_id":"{id}","note":"é\n☃"}}"#)).unwrap(),
        consumer_id: None,
        ordering_key: ordering_key.map(str::to_string),
        seq: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: NOW,
        created_at: NOW,
    };
    relay_destinations::prepare(&Input {
        event: &event,
        source: "https://acme.example/merchants/42",
        keys: &[SigningKey::generate(SignatureScheme::V1, [5; 32])],
        attempt_number: 1,
        max_payload_bytes: 1 << 20,
        content_mode: mode,
        now: NOW,
        shaped: None,
    })
    .expect("prepared")
}

async fn send(
    c: &relay_destinations::Client,
    m: &Prepared,
) -> (Verdict, relay_destinations::Record) {
    let limits = Limits {
        connect_timeout: Duration::from_secs(5),
        total_timeout: Duration::from_secs(15),
        ..Limits::default()
    };
    let d = c.deliver(m, limits).await;
    (d.classify(NOW), d.record())
}

/// The kind's client's `Debug`.
fn debug(c: &relay_destinations::Client) -> String {
    let relay_destinations::Client::ServiceBus(k) = c else {
        unreachable!("a service bus destination builds a service bus client")
    };
    format!("{k:?}")
}

fn rejected(r: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(r),
    }
}

/// A structured message to a session queue as the judge took it: the body
/// byte for byte, `MessageId` the event id, `SessionId` the ordering key,
/// `Label` the event type, every user property as sent, the SAS token
/// Relay signed accepted by the judge's recomputation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_is_its_body_and_broker_properties() {
    let j = judge(false).await;
    let d = destination(&j, judge::SESSION_QUEUE, ContentMode::Structured, true);
    let c = client(&j, &d);
    let msg = message("evt_1", Some("customer/7"), ContentMode::Structured);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(record.detail["status_code"], 201);
    assert_eq!(record.detail["entity"], judge::SESSION_QUEUE);
    assert_eq!(record.detail["message_id"], "evt_1");
    assert_eq!(record.detail["session_id"], "customer/7");
    assert_eq!(record.detail["sas_token_signed"], true);
    assert!(record.destination.is_some_and(|a| a.ip().is_loopback()));

    let got = j.messages();
    assert_eq!(got.len(), 1, "{got:?}");
    let m = &got[0];
    assert_eq!(m.entity, judge::SESSION_QUEUE);
    assert_eq!(m.auth, "sas");
    assert_eq!(m.body, msg.body.to_vec());
    assert_eq!(m.content_type, "application/cloudevents+json");
    assert_eq!(
        m.broker,
        serde_json::json!({"MessageId": "evt_1", "Label": "order.shipped", "SessionId": "customer/7"})
    );
    let sent: std::collections::BTreeMap<String, String> = wire::properties(&msg)
        .into_iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
        .collect();
    assert_eq!(m.properties, sent, "every user property, as sent");

    // Without `sessions`, the queue without them: no SessionId.
    let d = destination(&j, judge::QUEUE, ContentMode::Structured, false);
    let (verdict, record) = send(&client(&j, &d), &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(j.messages()[1].broker.get("SessionId"), None);
}

/// Binary mode: the body is the event's `data`, every other context
/// attribute a user property `cloudEvents_<name>` (the AMQP binding; the
/// subject's non-ASCII characters arrive intact), the content type the
/// `datacontenttype`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_mode_is_the_amqp_binding() {
    let j = judge(false).await;
    let d = destination(&j, judge::QUEUE, ContentMode::Binary, false);
    let msg = message("evt_b", None, ContentMode::Binary);
    let (verdict, record) = send(&client(&j, &d), &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    let got = j.messages();
    let data: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(data["order_id"], "evt_b");
    for (name, value) in &msg.attributes {
        if *name == "datacontenttype" {
            assert_eq!(got[0].content_type, *value);
        } else {
            assert_eq!(
                got[0].properties[&format!("cloudevents_{name}")],
                *value,
                "{name}"
            );
        }
    }
    assert_eq!(got[0].properties["cloudevents_subject"], "order/é☃");
}

/// Refusals, each by the judge's own checks: a key the judge's
/// recomputation refuses (`401`: retried, `auth_refused`), a queue that
/// does not exist (`404`: permanent, `unknown_target`), ServerBusy (`503`:
/// retried not before its `Retry-After`), a `SessionId` the queue has no
/// sessions for (`400`: permanent), a message larger than the queue takes
/// (`413`: permanent). No key and no token reaches a record or `Debug`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_classified_and_credentials_never_recorded() {
    let j = judge(false).await;
    let msg = message("evt_r", Some("customer/7"), ContentMode::Structured);
    let d = destination(&j, judge::QUEUE, ContentMode::Structured, false);
    let mut shown = String::new();

    let wrong = client_on(&j, &d, "not-the-key", Arc::new(ManualClock::new(NOW)), &[]);
    let (verdict, record) = send(&wrong, &msg).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::AuthRefused),
            not_before: None,
        },
        "{record:?}"
    );
    assert_eq!(record.detail["status_code"], 401);
    shown.push_str(&format!("{record:?} {}", debug(&wrong)));
    // Another rule's name with this key: its signature is not that rule's.
    let other = ServiceBusDestination {
        auth: sas(judge::OTHER_RULE),
        ..d.clone()
    };
    let (verdict, _) = send(&client(&j, &other), &msg).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::AuthRefused),
            not_before: None,
        }
    );

    let gone = destination(&j, "missing", ContentMode::Structured, false);
    let (verdict, record) = send(&client(&j, &gone), &msg).await;
    assert_eq!(verdict, rejected(Refusal::UnknownTarget), "{record:?}");
    assert!(
        record.detail["error"]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("could not be found")),
        "{record:?}"
    );
    shown.push_str(&format!("{record:?}"));

    let c = client(&j, &d);
    j.set_state(serde_json::json!({"mode": "busy", "retry_after": 10}));
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::Unavailable),
            not_before: Some(NOW.plus_seconds(10)),
        },
        "{record:?}"
    );
    assert_eq!(record.detail["status_code"], 503);
    j.set_state(serde_json::json!({"mode": "accept"}));

    let sessions_on_plain = destination(&j, judge::QUEUE, ContentMode::Structured, true);
    let (verdict, record) = send(&client(&j, &sessions_on_plain), &msg).await;
    assert_eq!(verdict, rejected(Refusal::Rejected), "{record:?}");
    assert_eq!(record.detail["status_code"], 400);
    let no_session = destination(&j, judge::SESSION_QUEUE, ContentMode::Structured, false);
    let (verdict, _) = send(&client(&j, &no_session), &msg).await;
    assert_eq!(verdict, rejected(Refusal::Rejected));

    let small = destination(&j, judge::SMALL_QUEUE, ContentMode::Structured, false);
    let (verdict, record) = send(&client(&j, &small), &msg).await;
    assert_eq!(verdict, rejected(Refusal::Rejected), "{record:?}");
    assert_eq!(record.detail["status_code"], 413);
    shown.push_str(&format!("{record:?} {}", debug(&c)));

    assert!(j.messages().is_empty(), "nothing was taken");
    assert!(!shown.contains(&j.key), "the key in {shown}");
    assert!(!shown.contains("sig="), "a token in {shown}");
}

/// The SAS token's expiry is the engine's clock's: a clock two hours
/// behind the judge's signs a token that expired an hour ago (`401`); on
/// time, a token is signed once and reused, and signed again within five
/// minutes of its expiry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sas_token_is_timed_by_the_engines_clock() {
    let j = judge(false).await;
    let d = destination(&j, judge::QUEUE, ContentMode::Structured, false);
    let clock = Arc::new(ManualClock::new(machine_now().plus_seconds(-7200)));
    let c = client_on(&j, &d, &j.key, clock.clone(), &[]);
    let (verdict, record) = send(&c, &message("evt_1", None, ContentMode::Structured)).await;
    assert_eq!(record.detail["status_code"], 401, "{record:?}");
    assert!(matches!(verdict, Verdict::Retry { .. }));

    let now = machine_now();
    clock.set(now);
    let signed = |r: &relay_destinations::Record| r.detail["sas_token_signed"] == true;
    let (v, r) = send(&c, &message("evt_2", None, ContentMode::Structured)).await;
    assert_eq!((v, signed(&r)), (Verdict::Delivered, true), "{r:?}");
    clock.set(now.plus_seconds(3000));
    let (v, r) = send(&c, &message("evt_3", None, ContentMode::Structured)).await;
    assert_eq!(
        (v, signed(&r)),
        (Verdict::Delivered, false),
        "reused: {r:?}"
    );
    clock.set(now.plus_seconds(3300));
    let (v, r) = send(&c, &message("evt_4", None, ContentMode::Structured)).await;
    assert_eq!(
        (v, signed(&r)),
        (Verdict::Delivered, true),
        "renewed: {r:?}"
    );
    let ids: Vec<String> = j
        .messages()
        .iter()
        .map(|m| m.broker["MessageId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["evt_2", "evt_3", "evt_4"]);
}

/// Entra ID: a token from relay-receiver's OAuth 2.0 token endpoint
/// (client credentials in the form, Service Bus's scope), sent as
/// `Bearer`, cached; a token the service no longer takes (`401`) is
/// forgotten and the send made once more with a new one in the same
/// attempt; a client secret the endpoint refuses is a token failure,
/// retried with a health warning. No secret or token is recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entra_tokens_are_fetched_cached_and_renewed() {
    let j = judge(true).await;
    let tokens = Receiver::start(ReceiverConfig {
        ca: Some(j.ca.clone()),
        ..Default::default()
    })
    .await
    .expect("a token endpoint");
    let secret = "entra-secret-0123456789";
    let issuer = OAuthIssuer::new("relay-app", secret, Some(3600));
    tokens.serve_token_endpoint("/tenant-1/oauth2/v2.0/token", issuer.clone());
    let d = ServiceBusDestination {
        auth: ServiceBusAuth::Entra(EntraCredentials {
            tenant_id: "tenant-1".into(),
            client_id: "relay-app".into(),
            client_secret: SecretRef::Secret("sb".into()),
            token_url: Some(tokens.url("/tenant-1/oauth2/v2.0/token")),
        }),
        ..destination(&j, judge::QUEUE, ContentMode::Structured, false)
    };
    let clock = Arc::new(ManualClock::new(NOW));
    let c = client_on(&j, &d, secret, clock.clone(), &[tokens.port()]);

    let (v, r) = send(&c, &message("evt_1", None, ContentMode::Structured)).await;
    assert_eq!(v, Verdict::Delivered, "{r:?}");
    assert_eq!(r.detail["auth"], "entra");
    assert_eq!(r.detail["oauth2"]["token_fetched"], true);
    let (v, r) = send(&c, &message("evt_2", None, ContentMode::Structured)).await;
    assert_eq!(v, Verdict::Delivered, "{r:?}");
    assert_eq!(r.detail["oauth2"]["token_fetched"], false, "cached");
    let requests = issuer.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "client_secret_post");
    assert_eq!(
        requests[0].grant_type.as_deref(),
        Some("client_credentials")
    );
    assert_eq!(
        requests[0].scope.as_deref(),
        Some("https://servicebus.azure.net/.default")
    );

    // The service stops taking the token.
    j.set_state(serde_json::json!({"mode": "accept", "revoked": issuer.issued_tokens()}));
    let (v, r) = send(&c, &message("evt_3", None, ContentMode::Structured)).await;
    assert_eq!(v, Verdict::Delivered, "{r:?}");
    assert_eq!(r.detail["oauth2"]["retried_with_new_token"], true);
    let issued = issuer.issued_tokens();
    assert_eq!(issued.len(), 2);
    let got = j.messages();
    assert_eq!(got.len(), 3);
    for m in &got {
        assert_eq!(m.auth, "entra");
        assert!(
            issued.contains(m.bearer.as_ref().unwrap()),
            "an issued token"
        );
    }
    assert_eq!(got[2].bearer.as_ref(), Some(&issued[1]));

    // A secret the token endpoint refuses.
    let refused = client_on(&j, &d, "not-the-secret", clock, &[tokens.port()]);
    let delivery = refused
        .deliver(
            &message("evt_4", None, ContentMode::Structured),
            Limits::default(),
        )
        .await;
    let (verdict, record) = (delivery.classify(NOW), delivery.record());
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Token(TokenFailure::OAuth(OAuthError::InvalidClient)),
            not_before: None,
        },
        "{record:?}"
    );
    assert!(delivery.health_warning().is_some());
    let shown = format!("{record:?} {r:?} {} {}", debug(&c), debug(&refused));
    assert!(!shown.contains(secret), "{shown}");
    for t in &issued {
        assert!(!shown.contains(t.as_str()), "a token in {shown}");
    }
}

/// Registration: the service's URL and the token URL through the guard
/// (the judge's, allowed), and the rules the guard does not know.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_checks_the_endpoint_and_the_token_url() {
    let j = judge(false).await;
    let g = guard(&j, &[]);
    let d = destination(&j, judge::QUEUE, ContentMode::Structured, false);
    relay_destinations::validate(&Config::ServiceBus(d.clone()), &g)
        .await
        .expect("the judge is allowed");
    let mut other_port = d.clone();
    other_port.endpoint = Some("https://127.0.0.1:1".into());
    let e = relay_destinations::validate(&Config::ServiceBus(other_port), &g)
        .await
        .unwrap_err();
    assert_eq!(e.pointer, "/destination/endpoint", "{e:?}");
    let entra = ServiceBusDestination {
        auth: ServiceBusAuth::Entra(EntraCredentials {
            tenant_id: "tenant-1".into(),
            client_id: "relay-app".into(),
            client_secret: SecretRef::Secret("sb".into()),
            token_url: Some("https://127.0.0.1:1/tenant-1/oauth2/v2.0/token".into()),
        }),
        ..d.clone()
    };
    let e = relay_destinations::validate(&Config::ServiceBus(entra), &g)
        .await
        .unwrap_err();
    assert_eq!(e.pointer, "/destination/auth/entra/token_url", "{e:?}");
    // A namespace's host goes through the guard too: not an allowed address here.
    let ns = ServiceBusDestination {
        namespace: Some("acme-prod.servicebus.windows.net".into()),
        endpoint: None,
        ..d
    };
    let e = relay_destinations::validate(&Config::ServiceBus(ns), &g)
        .await
        .unwrap_err();
    assert_eq!(e.pointer, "/destination/namespace", "{e:?}");
}
