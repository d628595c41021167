//! The Amazon EventBridge kind against moto's server: a private one per
//! test (`eventbridge/moto.rs`, on the harness of `common/moto.rs`) on
//! loopback, serving TLS with the test's own CA (trusted through the
//! operator's `extra_ca_certs`, the address allowed through
//! `allow_cidrs`), checking every request's Signature Version 4 and the
//! signing user's IAM policy. Each bus has a rule routing the events of
//! the test's `Source` to an SQS queue (standard, and FIFO); what Relay
//! put is read back from it with boto3, an independent client
//! (`eventbridge/moto_admin.py`).
//!
//! The kind's client puts exactly as the engine calls it
//! (`relay_destinations::build`, `Client::deliver`, `classify`, `record`).

#[path = "common/listening.rs"]
mod listening;
#[path = "eventbridge/moto.rs"]
mod moto;
#[path = "common/moto.rs"]
mod moto_server;
#[path = "eventbridge/peer.rs"]
mod peer;
#[path = "common/proxy.rs"]
mod proxy;

// The shared suite on the standard bus: a wrong secret (retryable), a user
// without events:PutEvents (permanent), hanging and down behind a loopback
// relay. EventBridge writes `Detail` again: the cases that need the bytes
// sent to arrive unchanged are the kind's own below (`reserialized`).
relay_compliance::compliance_suite!(peer::EventBridgePeer; reserialized);

use relay_core::model::ContentMode;
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::aws::{self, Credentials};
use relay_destinations::eventbridge::{EventBridge, EventBridgeDestination, Put, wire};
use relay_destinations::{Config, Kind, Shared};
use relay_net::{HttpsClient, Limits};

use moto::{FIFO_QUEUE, Key, Moto, QUEUE, SOURCE};
use moto_server::{NOW, message, rejected, send};

/// The private server, or `None` after saying `SKIPPED`.
async fn moto() -> Option<Moto> {
    Some(Moto::start(moto_server::python_or_skip("eventbridge")?).await)
}

fn destination(m: &Moto, event_bus: String) -> EventBridgeDestination {
    EventBridgeDestination {
        event_bus,
        region: "us-east-1".into(),
        endpoint_url: Some(m.url()),
        source: SOURCE.into(),
        detail_type: None,
        credentials: Credentials::keys(
            SecretRef::Secret("eb-key-id".into()),
            SecretRef::Secret("eb-secret".into()),
        ),
    }
}

fn shared(m: &Moto) -> Shared {
    Shared {
        https: HttpsClient::new(m.server.guard()),
        clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
    }
}

/// The endpoint's client with `key` as its credentials.
fn client(m: &Moto, d: &EventBridgeDestination, key: &Key) -> relay_destinations::Client {
    let mut secrets = Secrets::new();
    secrets.insert(
        d.credentials.access_key_id.clone().expect("keys"),
        SecretValue::from(key.id.as_str()),
    );
    secrets.insert(
        d.credentials.secret_access_key.clone().expect("keys"),
        SecretValue::from(key.secret.as_str()),
    );
    relay_destinations::build(&Config::EventBridge(d.clone()), &shared(m), &secrets)
        .expect("every reference resolved")
}

fn limits() -> Limits {
    Limits {
        connect_timeout: std::time::Duration::from_secs(5),
        total_timeout: std::time::Duration::from_secs(10),
        ..Limits::default()
    }
}

/// One event as the rule's target receives it: EventBridge's event whose
/// `source` is the configured one, `detail-type` the event type, `time`
/// the event's, and `detail` the CloudEvent (the same JSON Relay sent);
/// the record holds EventBridge's `EventId`, the routed event's `id`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_is_routed_as_the_cloudevent() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, m.bus_arn(QUEUE));
    let c = client(&m, &d, &m.relay);
    let msg = message("evt_1", None, ContentMode::Structured);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(record.detail["status_code"], 200);
    let event_id = record.detail["event_id"].as_str().expect("an EventId");
    assert!(record.destination.is_some_and(|a| a.ip().is_loopback()));

    let got = m.events(QUEUE);
    assert_eq!(got.len(), 1, "{got:?}");
    let e = &got[0];
    assert_eq!(e["id"], event_id);
    assert_eq!(e["source"], SOURCE);
    assert_eq!(e["detail-type"], "order.shipped");
    assert_eq!(e["time"], "2027-01-15T08:00:00Z", "the event's time");
    let sent: serde_json::Value = serde_json::from_slice(&msg.body).unwrap();
    assert_eq!(e["detail"], sent, "the CloudEvent, as JSON");
    assert_eq!(e["detail"]["id"], "evt_1");
    assert!(m.events(FIFO_QUEUE).is_empty(), "only this bus's rule");

    // A configured DetailType, and the bus by name.
    let named = EventBridgeDestination {
        detail_type: Some("Order Shipped".into()),
        ..destination(&m, QUEUE.into())
    };
    let (verdict, record) = send(&client(&m, &named, &m.relay), &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    let got = m.events(QUEUE);
    assert_eq!(got[0]["detail-type"], "Order Shipped");
}

/// A rule whose target is a FIFO queue: every event arrives once, in the
/// target's `MessageGroupId` (the rule's: EventBridge keeps no order and
/// takes no group from the entry, so Relay's ordering key has nowhere to
/// go).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_target_receives_every_event_once() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, "relay-events-fifo".into());
    let c = client(&m, &d, &m.relay);
    for (id, key) in [
        ("evt_1", Some("customer/7")),
        ("evt_2", None),
        ("evt_3", Some("customer/7")),
    ] {
        let (verdict, record) = send(&c, &message(id, key, ContentMode::Structured)).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    }
    let got = m.drain(FIFO_QUEUE);
    let mut ids: Vec<String> = got
        .iter()
        .map(|r| {
            let e: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
            e["detail"]["id"].as_str().unwrap().to_string()
        })
        .collect();
    ids.sort();
    assert_eq!(ids, ["evt_1", "evt_2", "evt_3"]);
    assert!(
        got.iter().all(|r| r.system["MessageGroupId"] == "relay"),
        "{got:?}"
    );
    assert!(m.events(QUEUE).is_empty());
}

/// A failed entry in EventBridge's `200` is a failed attempt of its
/// message, by the entry's code. Relay never sends an entry EventBridge
/// fails (its entries always have `Source`, `DetailType` and a `Detail`
/// that is a JSON object), so the failure is provoked genuinely through
/// the kind's own signed `POST` (`Client::post`, what `deliver` sends
/// through): entries moto fails as EventBridge does, without `Detail`
/// (`InvalidArgument`) and with a `Detail` that is not JSON
/// (`MalformedDetail`); moto's real answer is read and classified as any
/// attempt's. A request of two entries shows the answer's entries are the
/// request's, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_entry_fails_its_message_by_its_code() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, m.bus_arn(QUEUE));
    let relay_destinations::Client::EventBridge(c) = client(&m, &d, &m.relay) else {
        unreachable!("an eventbridge destination builds an eventbridge client")
    };
    let bus = m.bus_arn(QUEUE);
    let entry = |detail: Option<&str>| {
        let mut e = serde_json::json!({
            "EventBusName": bus, "Source": SOURCE, "DetailType": "order.shipped",
        });
        if let Some(detail) = detail {
            e["Detail"] = detail.into();
        }
        e
    };
    for (entry, code) in [
        (entry(None), "InvalidArgument"),
        (entry(Some("{not json")), "MalformedDetail"),
    ] {
        let body = serde_json::json!({"Entries": [entry]})
            .to_string()
            .into_bytes();
        let put = Put {
            event_bus: bus.clone(),
            result: c.post(wire::TARGET, body, aws::now(), limits()).await,
        };
        let record = EventBridge::record(&put);
        assert_eq!(record.detail["status_code"], 200, "{record:?}");
        assert_eq!(record.detail["error"]["code"], code, "{record:?}");
        assert_eq!(record.detail["event_id"], serde_json::Value::Null);
        assert_eq!(
            EventBridge::classify(&put, NOW),
            rejected(Refusal::Rejected),
            "{record:?}"
        );
    }
    let body = serde_json::json!({"Entries": [entry(Some("{\"a\":1}")), entry(None)]})
        .to_string()
        .into_bytes();
    let response = c
        .post(wire::TARGET, body, aws::now(), limits())
        .await
        .unwrap();
    let a = wire::answer(&response.body_prefix);
    assert_eq!(a.failed_entry_count, Some(1));
    assert!(a.entries[0].event_id.is_some() && a.entries[0].error_code.is_none());
    assert_eq!(a.entries[1].error_code.as_deref(), Some("InvalidArgument"));
    assert_eq!(m.events(QUEUE).len(), 1, "the good entry was routed");
}

/// Refusals, each by moto's own checks: a wrong secret (a signature
/// refusal: retried, `auth_refused`), a user whose policy has no
/// `events:PutEvents` (`403 AccessDenied`: permanent), a bus that
/// does not exist (`ResourceNotFoundException`: permanent,
/// `unknown_target`). Neither key id nor secret reaches a record or the
/// client's `Debug`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_classified_and_credentials_never_recorded() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, m.bus_arn(QUEUE));
    let msg = message("evt_r", None, ContentMode::Structured);
    let wrong = Key {
        id: m.relay.id.clone(),
        secret: "not-the-secret-0123456789".into(),
    };
    let c = client(&m, &d, &wrong);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::AuthRefused),
            not_before: None,
        },
        "{record:?}"
    );
    let relay_destinations::Client::EventBridge(kind_client) = &c else {
        unreachable!("an eventbridge destination builds an eventbridge client")
    };
    let shown = format!("{record:?} {} {kind_client:?}", record.detail);
    for secret in [wrong.id.as_str(), wrong.secret.as_str()] {
        assert!(!shown.contains(secret), "a credential in {shown}");
    }

    let c = client(&m, &d, &m.denied);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, rejected(Refusal::AuthRefused), "{record:?}");
    assert_eq!(record.detail["error"]["code"], "AccessDenied");
    let shown = format!("{record:?}");
    assert!(!shown.contains(&m.denied.id) && !shown.contains(&m.denied.secret));

    let gone = destination(&m, "no-such-bus".into());
    let (verdict, record) = send(&client(&m, &gone, &m.reader), &msg).await;
    assert_eq!(verdict, rejected(Refusal::UnknownTarget), "{record:?}");
    assert_eq!(record.detail["error"]["code"], "ResourceNotFoundException");
    assert!(m.events(QUEUE).is_empty(), "nothing was routed");
}

/// Registration: the endpoint URL through the guard (moto's, allowed), and
/// the rules the guard does not know (`https` only, the bus's shape, the
/// ARN's region, the `Source` EventBridge takes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_checks_the_bus_the_source_and_the_endpoint() {
    let Some(m) = moto().await else { return };
    let g = m.server.guard();
    let d = destination(&m, m.bus_arn(QUEUE));
    relay_destinations::validate(&Config::EventBridge(d.clone()), &g)
        .await
        .expect("moto's bus is allowed");
    let refused = |d: EventBridgeDestination| {
        let g = g.clone();
        async move {
            relay_destinations::validate(&Config::EventBridge(d), &g)
                .await
                .unwrap_err()
        }
    };
    for (changed, code, pointer) in [
        (
            EventBridgeDestination {
                endpoint_url: Some(m.url().replace("https://", "http://")),
                ..d.clone()
            },
            "scheme_not_allowed",
            "/destination/endpoint_url",
        ),
        (
            EventBridgeDestination {
                event_bus: "arn:aws:events:eu-west-1:123456789012:event-bus/relay-events".into(),
                ..d.clone()
            },
            "invalid_region",
            "/destination/region",
        ),
        (
            EventBridgeDestination {
                event_bus: "relay events".into(),
                ..d.clone()
            },
            "invalid_event_bus",
            "/destination/event_bus",
        ),
        (
            EventBridgeDestination {
                source: "aws.orders".into(),
                ..d.clone()
            },
            "invalid_source",
            "/destination/source",
        ),
    ] {
        let e = refused(changed).await;
        assert_eq!((e.code, e.pointer), (code, pointer), "{e:?}");
    }
    let e = refused(EventBridgeDestination {
        endpoint_url: Some("https://127.0.0.1:1".into()),
        ..d.clone()
    })
    .await;
    assert_eq!(e.pointer, "/destination/endpoint_url", "{e:?}");
    // AWS's own host for the region: refused by this guard (not allowed),
    // named at the region, which made it.
    let e = refused(EventBridgeDestination {
        endpoint_url: None,
        ..d
    })
    .await;
    assert_eq!(e.pointer, "/destination/region", "{e:?}");
}

/// An endpoint that names a role instead of keys: registration assumes it
/// once with the installation's identity and the tenant's `ExternalId`
/// (`check_access`, what the API calls); the endpoint's client assumes it
/// again and puts under the role's policy. An installation whose identity
/// may not assume the role is refused at registration and its puts are
/// dead-lettered as `auth_refused`; no text names a credential.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_naming_a_role_puts_as_the_role_assumed_by_the_installation() {
    use relay_destinations::Tenancy;
    use relay_destinations::aws::identity;
    let Some(m) = moto().await else { return };
    let clock = std::sync::Arc::new(relay_core::time::ManualClock::default());
    clock.set(aws::now());
    let secret = "an-installation-secret-of-32-characters-or-more";
    let installation = |k: &Key| {
        std::sync::Arc::new(identity::Installation::new(
            SecretValue::from(secret),
            identity::Identity::Keys(aws::Keys {
                access_key_id: SecretValue::from(k.id.as_str()),
                secret_access_key: SecretValue::from(k.secret.as_str()),
                session_token: None,
            }),
            Some(format!("{}/", m.url())),
            "us-east-1".into(),
            clock.clone(),
        ))
    };
    let d = Config::EventBridge(EventBridgeDestination {
        credentials: Credentials::role(moto::ROLE_ARN),
        ..destination(&m, m.bus_arn(QUEUE))
    });
    let shared = Shared {
        https: HttpsClient::new(m.server.guard()),
        clock: clock.clone(),
    };
    let relay = installation(&m.relay);
    let tenancy = Tenancy {
        tenant: "ten_1",
        aws: Some(&relay),
        gcp: None,
    };
    relay_destinations::check_access(&d, &shared, tenancy)
        .await
        .expect("the role is assumed at registration");
    let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy)
        .expect("a role needs no secret reference");
    for id in ["evt_role_1", "evt_role_2"] {
        let (verdict, record) = send(&c, &message(id, None, ContentMode::Structured)).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    }
    assert_eq!(m.events(QUEUE).len(), 2);

    let denied = installation(&m.denied);
    let tenancy = Tenancy {
        tenant: "ten_1",
        aws: Some(&denied),
        gcp: None,
    };
    let refused = relay_destinations::check_access(&d, &shared, tenancy)
        .await
        .expect_err("refused at registration");
    assert_eq!(
        (refused.code, refused.pointer),
        ("invalid_role", "/destination/role_arn"),
        "{refused:?}"
    );
    let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy).unwrap();
    let (verdict, record) = send(&c, &message("evt_role_3", None, ContentMode::Structured)).await;
    assert_eq!(verdict, rejected(Refusal::AuthRefused), "{record:?}");
    let shown = format!("{refused:?} {record:?}");
    for value in [secret, &m.denied.secret, &m.relay.secret] {
        assert!(!shown.contains(value), "{shown}");
    }
    assert!(m.events(QUEUE).is_empty());
}
