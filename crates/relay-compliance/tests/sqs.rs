//! The Amazon SQS kind against moto's server: a private one per test
//! (`sqs/moto.rs`) on loopback, serving TLS with the test's own CA
//! (trusted through the operator's `extra_ca_certs`, the address allowed
//! through `allow_cidrs`), checking every request's Signature Version 4
//! and the signing user's IAM policy. What Relay sent is read back with
//! boto3, an independent client (`sqs/moto_admin.py`).
//!
//! The kind's client sends exactly as the engine calls it
//! (`relay_destinations::build`, `Client::deliver`, `classify`, `record`).

#[path = "sqs/link_local.rs"]
mod link_local;
#[path = "common/listening.rs"]
mod listening;
#[path = "sqs/moto.rs"]
mod moto;
#[path = "common/moto.rs"]
mod moto_server;
#[path = "sqs/peer.rs"]
mod peer;
#[path = "common/proxy.rs"]
mod proxy;

// The shared suite on the standard queue: a wrong secret (retryable), a
// user without sqs:SendMessage (permanent), hanging and down behind a
// loopback relay; binary mode's attributes undone by the peer.
relay_compliance::compliance_suite!(peer::SqsPeer; binary);

use relay_core::model::ContentMode;
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::sqs::{SqsDestination, wire};
use relay_destinations::{Config, Shared};
use relay_net::{Guard, HttpsClient, Limits};

use moto::{FIFO_QUEUE, Key, Moto, QUEUE};
use moto_server::{message, rejected, send};

/// The private server, or `None` after saying `SKIPPED`.
async fn moto() -> Option<Moto> {
    Some(Moto::start(moto_server::python_or_skip("sqs")?).await)
}

fn destination(m: &Moto, queue: &str, mode: ContentMode) -> SqsDestination {
    SqsDestination {
        queue_url: format!("{}/123456789012/{queue}", m.url()),
        region: "us-east-1".into(),
        credentials: relay_destinations::aws::Credentials::keys(
            SecretRef::Secret("sqs-key-id".into()),
            SecretRef::Secret("sqs-secret".into()),
        ),
        content_mode: mode,
        max_message_bytes: 256 * 1024,
    }
}

fn guard(m: &Moto) -> Guard {
    m.server.guard()
}

/// The endpoint's client with `key` as its credentials.
fn client(m: &Moto, d: &SqsDestination, key: &Key) -> relay_destinations::Client {
    let mut secrets = Secrets::new();
    secrets.insert(
        d.credentials.access_key_id.clone().expect("keys"),
        SecretValue::from(key.id.as_str()),
    );
    secrets.insert(
        d.credentials.secret_access_key.clone().expect("keys"),
        SecretValue::from(key.secret.as_str()),
    );
    relay_destinations::build(
        &Config::Sqs(d.clone()),
        &Shared {
            https: HttpsClient::new(guard(m)),
            clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
        },
        &secrets,
    )
    .expect("every reference resolved")
}

/// A structured message as boto3 receives it: the body byte for byte, the
/// attributes of the binding, and SQS's own digests of both equal to
/// those Relay computed (and checked in SendMessage's answer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_is_its_body_and_attributes_with_sqs_digests() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, QUEUE, ContentMode::Structured);
    let c = client(&m, &d, &m.relay);
    let msg = message("evt_1", None, ContentMode::Structured);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(record.detail["status_code"], 200);
    assert!(record.detail["message_id"].is_string(), "{record:?}");
    assert!(record.destination.is_some_and(|a| a.ip().is_loopback()));

    let got = m.drain(QUEUE);
    assert_eq!(got.len(), 1, "{got:?}");
    let r = &got[0];
    assert_eq!(r.body, msg.body.to_vec());
    let attributes = wire::attributes(&msg);
    assert_eq!(
        r.attributes,
        attributes.iter().cloned().collect(),
        "every attribute, as sent"
    );
    assert_eq!(r.attributes["webhook-id"], "evt_1");
    assert_eq!(r.attributes["content-type"], "application/cloudevents+json");
    let body = std::str::from_utf8(&r.body).unwrap();
    assert_eq!(r.md5_of_body, wire::md5_of_body(body));
    assert_eq!(
        r.md5_of_attributes.as_deref(),
        Some(wire::md5_of_attributes(&attributes).as_str())
    );
}

/// Binary mode: the body is the data, and with more context attributes
/// than places the message still has ten attributes (SQS's limit, which
/// moto does not enforce: the rule is Relay's, checked here on what was
/// stored).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_mode_stays_within_ten_attributes() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, QUEUE, ContentMode::Binary);
    let c = client(&m, &d, &m.relay);
    let msg = message("evt_b", Some("customer/7"), ContentMode::Binary);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    let got = m.drain(QUEUE);
    assert_eq!(got.len(), 1);
    assert!(got[0].attributes.len() <= wire::MAX_ATTRIBUTES, "{got:?}");
    let data: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(data["order_id"], "evt_b");
    let undone = got[0].received();
    let attrs = undone.binary.expect("binary");
    let names: std::collections::BTreeSet<&str> = attrs.iter().map(|(n, _)| n.as_str()).collect();
    for name in msg.attributes.iter().map(|(n, _)| *n) {
        assert!(names.contains(name), "{name} carried: {names:?}");
    }
}

/// A FIFO queue: the ordering key is the `MessageGroupId`, the event id
/// the `MessageDeduplicationId`; one group's messages come back in the
/// order sent, and the same event sent again within the deduplication
/// window is acknowledged but stored once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifo_groups_by_ordering_key_and_deduplicates_by_event_id() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, FIFO_QUEUE, ContentMode::Structured);
    let c = client(&m, &d, &m.relay);
    let sent = [
        message("evt_1", Some("customer/7"), ContentMode::Structured),
        message("evt_2", Some("customer/8"), ContentMode::Structured),
        message("evt_3", Some("customer/7"), ContentMode::Structured),
        message("evt_4", None, ContentMode::Structured),
    ];
    for msg in &sent {
        let (verdict, record) = send(&c, msg).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
        assert!(record.detail["sequence_number"].is_string(), "{record:?}");
    }
    // The same event again (a retry after a lost answer): acknowledged.
    let (verdict, _) = send(&c, &sent[0]).await;
    assert_eq!(verdict, Verdict::Delivered);

    let got = m.drain(FIFO_QUEUE);
    let ids: Vec<&str> = got
        .iter()
        .map(|r| r.attributes["webhook-id"].as_str())
        .collect();
    assert_eq!(got.len(), 4, "stored once each: {ids:?}");
    let of = |id: &str| {
        got.iter()
            .find(|r| r.attributes["webhook-id"] == id)
            .unwrap()
    };
    for (id, group) in [
        ("evt_1", "customer/7"),
        ("evt_2", "customer/8"),
        ("evt_3", "customer/7"),
        ("evt_4", "evt_4"),
    ] {
        assert_eq!(of(id).system["MessageGroupId"], group, "{id}");
        assert_eq!(of(id).system["MessageDeduplicationId"], id, "{id}");
    }
    let group7: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| of(id).system["MessageGroupId"] == "customer/7")
        .collect();
    assert_eq!(group7, ["evt_1", "evt_3"], "one group, in order");
}

/// Refusals, each by moto's own checks: a wrong secret (`403
/// SignatureDoesNotMatch`: retried, `auth_refused`), a user whose policy
/// has no `sqs:SendMessage` (`403 AccessDenied`: permanent), a queue that
/// does not exist (`NonExistentQueue`: permanent, `unknown_target`).
/// Neither key id nor secret reaches a record or the client's `Debug`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_classified_and_credentials_never_recorded() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, QUEUE, ContentMode::Structured);
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
    assert_eq!(record.detail["error"]["code"], "SignatureDoesNotMatch");
    let relay_destinations::Client::Sqs(kind_client) = &c else {
        unreachable!("an sqs destination builds an sqs client")
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

    let gone = destination(&m, "no-such-queue", ContentMode::Structured);
    let c = client(&m, &gone, &m.reader);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, rejected(Refusal::UnknownTarget), "{record:?}");
    assert_eq!(
        record.detail["error"]["code"],
        "AWS.SimpleQueueService.NonExistentQueue"
    );
    assert!(m.drain(QUEUE).is_empty(), "nothing was stored");
}

/// Registration: the queue URL through the guard (moto's, allowed), and
/// the rules the guard does not know (`https` only, the URL's shape).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_checks_the_queue_url() {
    let Some(m) = moto().await else { return };
    let g = guard(&m);
    let d = destination(&m, FIFO_QUEUE, ContentMode::Structured);
    relay_destinations::validate(&Config::Sqs(d.clone()), &g)
        .await
        .expect("moto's queue is allowed");
    let mut plain = d.clone();
    plain.queue_url = plain.queue_url.replace("https://", "http://");
    let e = relay_destinations::validate(&Config::Sqs(plain), &g)
        .await
        .unwrap_err();
    assert_eq!(e.pointer, "/destination/queue_url");
    let mut other_port = d;
    other_port.queue_url = format!("https://127.0.0.1:1/123456789012/{QUEUE}");
    let e = relay_destinations::validate(&Config::Sqs(other_port), &g)
        .await
        .unwrap_err();
    assert_eq!(e.pointer, "/destination/queue_url", "{e:?}");
}

/// `AssumeRole` against moto's STS, signed with `relay`'s keys and always
/// with the tenant's `ExternalId`: the role's temporary credentials (a
/// session token) send to the queue under the role's own policy; they are
/// reused until five minutes before they expire by the given clock, then
/// assumed again; keys STS refuses give no credentials and no value in
/// the error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_assumed_role_sends_and_is_assumed_again_before_expiry() {
    use relay_core::time::Clock as _;
    use relay_destinations::aws::{self, sts};
    let Some(m) = moto().await else { return };
    let clock = std::sync::Arc::new(relay_core::time::ManualClock::default());
    clock.set(aws::now());
    let role = sts::Role {
        arn: moto::ROLE_ARN.into(),
        external_id: sts::external_id(b"the installation's secret", "ten_1"),
        session_name: "relay".into(),
        duration_seconds: 900,
    };
    let base = |k: &Key| aws::Keys {
        access_key_id: SecretValue::from(k.id.as_str()),
        secret_access_key: SecretValue::from(k.secret.as_str()),
        session_token: None,
    };
    let limits = Limits::default();
    let assumed = sts::AssumedRole::new(
        HttpsClient::new(guard(&m)),
        format!("{}/", m.url()),
        "us-east-1".into(),
        base(&m.relay),
        role.clone(),
        clock.clone(),
    );
    let first = assumed.keys(limits).await.expect("the role is assumed");
    let id =
        |t: &sts::Temporary| String::from_utf8(t.keys.access_key_id.expose().to_vec()).unwrap();
    assert!(id(&first).starts_with("ASIA"), "{}", id(&first));
    assert!(first.expires_at > clock.now());
    let again = assumed.keys(limits).await.unwrap();
    assert_eq!(id(&again), id(&first), "cached");

    // The role's credentials send (moto checks the role's policy).
    let mut d = destination(&m, QUEUE, ContentMode::Structured);
    d.credentials.session_token = Some(SecretRef::Secret("sqs-token".into()));
    let mut secrets = Secrets::new();
    secrets.insert(
        d.credentials.access_key_id.clone().expect("keys"),
        first.keys.access_key_id.clone(),
    );
    secrets.insert(
        d.credentials.secret_access_key.clone().expect("keys"),
        first.keys.secret_access_key.clone(),
    );
    secrets.insert(
        SecretRef::Secret("sqs-token".into()),
        first.keys.session_token.clone().unwrap(),
    );
    let c = relay_destinations::build(
        &Config::Sqs(d),
        &Shared {
            https: HttpsClient::new(guard(&m)),
            clock: clock.clone(),
        },
        &secrets,
    )
    .unwrap();
    let (verdict, record) = send(&c, &message("evt_role", None, ContentMode::Structured)).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(m.drain(QUEUE).len(), 1);
    // The role's policy, not the user's, is what moto checks: a queue
    // outside it is refused.
    let mut outside = destination(&m, "no-such-queue", ContentMode::Structured);
    outside.credentials.session_token = Some(SecretRef::Secret("sqs-token".into()));
    let c = relay_destinations::build(
        &Config::Sqs(outside),
        &Shared {
            https: HttpsClient::new(guard(&m)),
            clock: clock.clone(),
        },
        &secrets,
    )
    .unwrap();
    let (verdict, record) = send(&c, &message("evt_out", None, ContentMode::Structured)).await;
    assert_eq!(verdict, rejected(Refusal::AuthRefused), "{record:?}");

    // Five minutes before expiry: assumed again.
    clock.set(first.expires_at.plus_seconds(-sts::REFRESH_BEFORE_SECONDS));
    let refreshed = assumed.keys(limits).await.unwrap();
    assert_ne!(id(&refreshed), id(&first), "assumed again");

    // Keys STS refuses: no credentials; the error names no value.
    let wrong = Key {
        id: m.relay.id.clone(),
        secret: "not-the-secret-0123456789".into(),
    };
    let refused = sts::assume_role(
        &HttpsClient::new(guard(&m)),
        &format!("{}/", m.url()),
        "us-east-1",
        &base(&wrong),
        &role,
        aws::now(),
        limits,
    )
    .await
    .expect_err("refused");
    let shown = format!("{refused:?}");
    assert!(
        matches!(refused, sts::Failure::Refused { status: 403, .. }),
        "{shown}"
    );
    assert!(!shown.contains(&wrong.secret) && !shown.contains(&m.relay.secret));
    // The denied user may not assume it.
    let denied = sts::assume_role(
        &HttpsClient::new(guard(&m)),
        &format!("{}/", m.url()),
        "us-east-1",
        &base(&m.denied),
        &role,
        aws::now(),
        limits,
    )
    .await;
    assert!(
        matches!(denied, Err(sts::Failure::Refused { status: 403, .. })),
        "{denied:?}"
    );
}

/// An endpoint that names a role instead of keys: registration assumes it
/// once with the installation's identity and the tenant's `ExternalId`
/// (`check_access`, what the API calls); the endpoint's client assumes it
/// again and sends under the role's policy. An installation whose identity
/// may not assume the role is refused at registration and its sends are
/// dead-lettered as `auth_refused`; no text names a credential. An
/// installation without `[aws]` sends nothing and retries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_naming_a_role_sends_as_the_role_assumed_by_the_installation() {
    use relay_destinations::Tenancy;
    use relay_destinations::aws::{self, identity};
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
    let d = Config::Sqs(SqsDestination {
        credentials: aws::Credentials::role(moto::ROLE_ARN),
        ..destination(&m, QUEUE, ContentMode::Structured)
    });
    let shared = Shared {
        https: HttpsClient::new(guard(&m)),
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
    assert_eq!(m.drain(QUEUE).len(), 2);

    // An identity that may not assume the role.
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
    assert!(refused.message.contains("403"), "{refused:?}");
    let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy).unwrap();
    let (verdict, record) = send(&c, &message("evt_role_3", None, ContentMode::Structured)).await;
    assert_eq!(verdict, rejected(Refusal::AuthRefused), "{record:?}");
    let shown = format!("{refused:?} {record:?}");
    for value in [secret, &m.denied.secret, &m.relay.secret] {
        assert!(!shown.contains(value), "{shown}");
    }

    // No installation identity: nothing is sent; retried.
    let none = Tenancy {
        tenant: "ten_1",
        aws: None,
        gcp: None,
    };
    let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), none).unwrap();
    let (verdict, record) = send(&c, &message("evt_role_4", None, ContentMode::Structured)).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::AuthRefused),
            not_before: None
        },
        "{record:?}"
    );
    assert!(m.drain(QUEUE).is_empty());
}

/// The installation's identity as web identity (`[aws]
/// web_identity_token_file` and `role_arn`): its token file is read at
/// the exchange (absent, nothing is sent and the attempt is retried), the
/// token exchanged for the installation role's credentials with
/// `AssumeRoleWithWebIdentity`, those assume the endpoint's role with the
/// tenant's `ExternalId`, and the role's credentials send to the queue.
/// moto fails on an unsigned `AssumeRoleWithWebIdentity` while it checks
/// signatures, so its count of unchecked actions covers the set-up and
/// that one exchange (`Moto::start_for_web_identity`); a wrong signature
/// refused right after proves the exchange was the last of them, and every
/// request after it was checked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_installation_with_web_identity_sends_as_the_tenants_role() {
    use relay_destinations::Tenancy;
    use relay_destinations::aws::{self, identity};
    let Some(python) = moto_server::python_or_skip("sqs") else {
        return;
    };
    let m = Moto::start_for_web_identity(python).await;
    let dir = tempfile::tempdir().expect("a directory");
    let token_file = dir.path().join("token");
    let clock = std::sync::Arc::new(relay_core::time::ManualClock::default());
    clock.set(aws::now());
    let installation = std::sync::Arc::new(identity::Installation::new(
        SecretValue::from("an-installation-secret-of-32-characters-or-more"),
        identity::Identity::WebIdentity {
            token_file: token_file.clone(),
            role_arn: moto::INSTALLATION_ROLE_ARN.into(),
        },
        Some(format!("{}/", m.url())),
        "us-east-1".into(),
        clock.clone(),
    ));
    let d = Config::Sqs(SqsDestination {
        credentials: relay_destinations::aws::Credentials::role(moto::ROLE_ARN),
        ..destination(&m, QUEUE, ContentMode::Structured)
    });
    let shared = Shared {
        https: HttpsClient::new(guard(&m)),
        clock,
    };
    let tenancy = Tenancy {
        tenant: "ten_1",
        aws: Some(&installation),
        gcp: None,
    };
    let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy)
        .expect("a role needs no secret reference");
    let (verdict, record) = send(&c, &message("evt_web_0", None, ContentMode::Structured)).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::AuthRefused),
            not_before: None
        },
        "no token file, nothing sent: {record:?}"
    );
    let token = "eyJhbGciOiJSUzI1NiJ9.a-projected-service-account-token.c2ln";
    std::fs::write(&token_file, token).expect("the token file");
    let (verdict, record) = send(&c, &message("evt_web_1", None, ContentMode::Structured)).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    let got = m.drain(QUEUE);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].attributes["webhook-id"], "evt_web_1");
    assert!(!format!("{record:?} {installation:?}").contains(token));

    // Every request after the exchange is checked.
    let wrong = Key {
        id: m.relay.id.clone(),
        secret: "not-the-secret-0123456789".into(),
    };
    let keys = destination(&m, QUEUE, ContentMode::Structured);
    let (verdict, record) = send(
        &client(&m, &keys, &wrong),
        &message("evt_web_2", None, ContentMode::Structured),
    )
    .await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::AuthRefused),
            not_before: None
        },
        "{record:?}"
    );
    assert!(m.drain(QUEUE).is_empty());
}
