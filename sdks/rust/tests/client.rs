//! The hand-written layer against a local fake of the API (tests/fake):
//! retries and `Retry-After`, the idempotency key kept across retries,
//! typed errors, pagination, timeouts, the user agent, HTTPS with an added
//! CA, and no API key in `Debug`.

mod fake;

use std::sync::Arc;
use std::time::Duration;

use fake::{Fake, Recorder, Reply};
use futures_util::StreamExt;
use relay_sdk::api::MessagesListQuery;
use relay_sdk::types::{MessageState, PublishEvent};
use relay_sdk::{Client, Error};
use serde_json::json;

const KEY: &str = "rk_live_7h1s_1s_n0t_4_r34l_k3y_9f2c";

fn client(fake: &Fake, timer: &Arc<Recorder>) -> Client {
    Client::builder(fake.url.as_str(), KEY)
        .timer(timer.clone())
        .build()
        .expect("client")
}

fn published(id: &str, duplicate: bool) -> serde_json::Value {
    json!({
        "id": id, "type": "order.paid", "type_version": 1, "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "environment": "live",
        "data": {"id": "o_1"}, "created_at": "2026-01-01T00:00:00.000Z",
        "time": "2026-01-01T00:00:00.000Z", "messages_created": 1, "duplicate": duplicate,
    })
}

fn order(data: serde_json::Value) -> PublishEvent {
    PublishEvent {
        r#type: "order.paid".into(),
        data,
        ..Default::default()
    }
}

fn message(id: &str) -> serde_json::Value {
    json!({
        "id": id, "event_id": "evt_1", "endpoint_id": "ep_1", "event_type": "order.paid",
        "environment": "live", "state": "delivered", "attempts_used": 1, "deferrals_used": 0,
        "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z",
    })
}

#[tokio::test]
async fn a_publish_is_retried_on_429_and_503_with_retry_after_and_keeps_its_event_id() {
    let timer = Recorder::new();
    let date = httpdate::fmt_http_date(timer.now + Duration::from_secs(3));
    let fake = Fake::start(vec![
        Reply::problem(429, "rate_limited").header("retry-after", "7"),
        Reply::problem(503, "overloaded").header("retry-after", &date),
        Reply::json(202, published("evt_from_server_echo", false)),
    ])
    .await;
    let relay = client(&fake, &timer);
    let event = relay
        .events()
        .publish(order(json!({"id": "o_1"})))
        .await
        .expect("published");
    assert_eq!(event.messages_created, 1);

    let seen = fake.seen();
    assert_eq!(seen.len(), 3);
    let ids: Vec<String> = seen
        .iter()
        .map(|s| s.json()["id"].as_str().unwrap().to_string())
        .collect();
    assert!(ids[0].starts_with("evt_") && ids[0].len() == 36, "{ids:?}");
    assert!(
        ids.iter().all(|id| *id == ids[0]),
        "the id changed across retries: {ids:?}"
    );
    let request_ids: Vec<&str> = seen
        .iter()
        .map(|s| s.header("x-request-id").unwrap())
        .collect();
    assert!(
        request_ids.iter().all(|r| r.starts_with("req_")),
        "{request_ids:?}"
    );
    assert!(request_ids[0] != request_ids[1] && request_ids[1] != request_ids[2]);
    assert_eq!(
        timer.waits(),
        [Duration::from_secs(7), Duration::from_secs(3)]
    );
    for s in &seen {
        assert_eq!((s.method.as_str(), s.uri.as_str()), ("POST", "/v1/events"));
        assert_eq!(
            s.header("user-agent"),
            Some(concat!("relay-sdk-rust/", env!("CARGO_PKG_VERSION")))
        );
        assert_eq!(
            s.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
        assert_eq!(s.header("content-type"), Some("application/json"));
    }
    // Two publishes: two ids.
    let _ = relay.events().publish(order(json!({}))).await;
    let again = fake.seen();
    assert_ne!(again[3].json()["id"], again[0].json()["id"]);
}

#[tokio::test]
async fn a_given_event_id_is_sent_as_is() {
    let timer = Recorder::new();
    let fake = Fake::start(vec![Reply::json(200, published("evt_mine_1", true))]).await;
    let mut event = order(json!({}));
    event.id = Some("evt_mine_1".into());
    let got = client(&fake, &timer).events().publish(event).await.unwrap();
    assert!(got.duplicate);
    assert_eq!(fake.seen()[0].json()["id"], "evt_mine_1");
}

#[tokio::test]
async fn without_retry_after_the_backoff_grows_and_the_last_answer_is_a_typed_error() {
    let timer = Recorder::new();
    let fake = Fake::start(vec![Reply::problem(503, "overloaded"); 4]).await;
    let relay = Client::builder(fake.url.as_str(), KEY)
        .timer(timer.clone())
        .backoff(Duration::from_millis(100), Duration::from_millis(300))
        .build()
        .unwrap();
    let err = relay
        .consumers()
        .get("con_1")
        .await
        .expect_err("503 four times");
    assert_eq!(fake.seen().len(), 4);
    let waits = timer.waits();
    assert_eq!(waits.len(), 3);
    for (wait, ceiling) in waits.iter().zip([100, 200, 300]) {
        assert!(*wait <= Duration::from_millis(ceiling), "{waits:?}");
    }
    let problem = err.problem().expect("a problem");
    assert!(problem.is_rate_limited());
    assert_eq!((problem.status, problem.code.as_str()), (503, "overloaded"));
}

#[tokio::test]
async fn a_retry_after_over_the_limit_is_returned_at_once() {
    let timer = Recorder::new();
    let fake = Fake::start(vec![
        Reply::problem(429, "rate_limited").header("retry-after", "120"),
    ])
    .await;
    let err = client(&fake, &timer)
        .consumers()
        .get("con_1")
        .await
        .unwrap_err();
    assert_eq!(fake.seen().len(), 1);
    assert!(timer.waits().is_empty());
    assert_eq!(
        err.problem().unwrap().retry_after,
        Some(Duration::from_secs(120))
    );
}

#[tokio::test]
async fn a_422_is_a_typed_error_with_code_fields_and_request_id() {
    let timer = Recorder::new();
    let mut reply = Reply::json(
        422,
        json!({"type": "https://relay.dev/problems/schema_violation", "title": "Unprocessable",
               "status": 422, "detail": "data does not match the schema", "code": "schema_violation",
               "errors": [{"field": "/data", "message": "\"total\" is a required property"}]}),
    );
    reply.headers[0].1 = "application/problem+json".into();
    let fake = Fake::start(vec![
        reply,
        Reply::problem(404, "not_found").header("x-request-id", "req_server"),
    ])
    .await;
    let relay = client(&fake, &timer);
    let err = relay
        .events()
        .publish(order(json!({"id": "o"})))
        .await
        .unwrap_err();
    let Error::Problem(p) = &err else {
        panic!("{err:?}")
    };
    assert_eq!((p.status, p.code.as_str()), (422, "schema_violation"));
    assert!(p.is_validation());
    assert_eq!(p.errors[0].field, "/data");
    assert_eq!(
        p.request_id.as_deref(),
        fake.seen()[0].header("x-request-id")
    );
    assert!(timer.waits().is_empty(), "a 422 is not retried");
    // Relay's own request id, when it answers one, is the error's.
    let err = relay.consumers().get("con_x").await.unwrap_err();
    assert!(err.problem().unwrap().is_not_found());
    assert_eq!(err.request_id(), Some("req_server"));
}

#[tokio::test]
async fn lists_follow_next_after_page_by_page() {
    let timer = Recorder::new();
    let fake = Fake::start(vec![
        Reply::json(
            200,
            json!({"data": [message("msg_1"), message("msg_2")], "next_after": "msg_2"}),
        ),
        Reply::json(200, json!({"data": [message("msg_3")], "next_after": null})),
        Reply::json(
            200,
            json!({"data": [message("msg_1")], "next_after": "msg_1"}),
        ),
        Reply::json(200, json!({"data": [], "next_after": "msg_5"})),
        Reply::json(
            200,
            json!({"data": [message("msg_6")], "next_after": "msg_6"}),
        ),
        Reply::json(200, json!({"data": [], "next_after": "msg_6"})),
    ])
    .await;
    let relay = client(&fake, &timer);
    let query = MessagesListQuery {
        event_id: Some("evt 1".into()),
        state: Some(MessageState::Delivered),
        ..Default::default()
    };
    let mut pager = relay.messages().list(&query);
    let mut ids = Vec::new();
    while let Some(m) = pager.next().await {
        ids.push(m.unwrap().id);
    }
    assert_eq!(ids, ["msg_1", "msg_2", "msg_3"]);
    let seen = fake.seen();
    assert_eq!(seen[0].uri, "/v1/messages?event_id=evt%201&state=delivered");
    assert_eq!(
        seen[1].uri,
        "/v1/messages?event_id=evt%201&state=delivered&after=msg_2"
    );
    // As a Stream: an empty page that names the next goes on (a filtered
    // list reads a bounded span per page); a cursor that does not move on
    // ends the list.
    let items: Vec<_> = relay
        .messages()
        .list(&Default::default())
        .into_stream()
        .collect()
        .await;
    assert_eq!(items.len(), 2);
    let seen = fake.seen();
    assert_eq!(seen.len(), 6);
    assert_eq!(seen[4].uri, "/v1/messages?after=msg_5");
}

#[tokio::test]
async fn a_list_that_fails_yields_the_error_and_ends() {
    let timer = Recorder::new();
    let fake = Fake::start(vec![Reply::problem(401, "unauthorized")]).await;
    let mut pager = client(&fake, &timer).consumers().list();
    let first = pager.next().await.expect("an item");
    assert!(first.unwrap_err().problem().unwrap().is_authentication());
    assert!(pager.next().await.is_none());
}

#[tokio::test]
async fn a_timeout_is_retried_for_reads_only() {
    let timer = Recorder::new();
    let fake = Fake::start(vec![Reply::hang(), Reply::hang(), Reply::hang()]).await;
    let relay = Client::builder(fake.url.as_str(), KEY)
        .timer(timer.clone())
        .timeout(Duration::from_millis(200))
        .max_retries(1)
        .build()
        .unwrap();
    let err = relay.consumers().get("con_1").await.unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
    assert_eq!(fake.seen().len(), 2);
    assert_eq!(timer.waits().len(), 1);
    // A create is not repeated: it might have been done.
    let err = relay
        .consumers()
        .create(&relay_sdk::types::CreateConsumer {
            external_id: "acme".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
    assert_eq!(fake.seen().len(), 3);
    assert!(err.request_id().unwrap().starts_with("req_"));
}

#[tokio::test]
async fn no_server_is_a_connection_error_after_the_retries() {
    let timer = Recorder::new();
    // A port nothing listens on: bind, then close.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let relay = Client::builder(format!("http://127.0.0.1:{port}"), KEY)
        .timer(timer.clone())
        .build()
        .unwrap();
    let err = relay.event_types().get("order.paid").await.unwrap_err();
    assert!(matches!(err, Error::Connection { .. }), "{err:?}");
    assert_eq!(timer.waits().len(), 3);
    assert!(!format!("{err} {err:?}").contains(KEY));
}

#[tokio::test]
async fn a_base_path_prefixes_every_request_and_204_is_unit() {
    let timer = Recorder::new();
    let fake = Fake::start(vec![Reply {
        status: 204,
        headers: Vec::new(),
        body: String::new(),
        hang: false,
    }])
    .await;
    let relay = Client::builder(format!("{}/relay/", fake.url), KEY)
        .timer(timer.clone())
        .build()
        .unwrap();
    relay.endpoints().delete("ep/1").await.unwrap();
    assert_eq!(fake.seen()[0].uri, "/relay/v1/endpoints/ep%2F1");
    assert_eq!(fake.seen()[0].method, "DELETE");
}

#[test]
fn settings_are_checked_and_the_key_never_printed() {
    for bad in [
        "ftp://relay.example",
        "relay.example",
        "http://user:pw@relay.example",
        "https://relay.example/?x=1",
    ] {
        let err = Client::new(bad, KEY).unwrap_err();
        assert!(matches!(err, Error::Config(_)), "{bad}: {err:?}");
    }
    let err = Client::builder("https://relay.example", KEY)
        .add_ca_pem("no pem")
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err:?}");
    let client = Client::new("https://relay.example", KEY).unwrap();
    let builder = Client::builder("https://relay.example", KEY);
    let printed = format!("{client:?} {builder:?}");
    assert!(!printed.contains("rk_live"), "{printed}");
    assert!(printed.contains("relay.example"), "{printed}");
}

/// A CA and a certificate for 127.0.0.1 it signed: (CA PEM, server config).
fn tls_server() -> (String, Arc<rustls::ServerConfig>) {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "relay-sdk test CA");
    let issuer =
        rcgen::CertifiedIssuer::self_signed(ca_params, rcgen::KeyPair::generate().unwrap())
            .unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
    (issuer.pem(), Arc::new(config))
}

#[tokio::test]
async fn https_works_with_an_added_ca_and_fails_without_it() {
    let (ca_pem, config) = tls_server();
    let fake = Fake::start_with(
        vec![Reply::json(200, json!({"id": "con_1", "external_id": "acme", "created_at": "2026-01-01T00:00:00.000Z",
                                     "updated_at": "2026-01-01T00:00:00.000Z", "environment": "live", "source": "api"}))],
        Some(config),
    )
    .await;
    assert!(fake.url.starts_with("https://"));
    let timer = Recorder::new();
    let untrusting = Client::builder(fake.url.as_str(), KEY)
        .timer(timer.clone())
        .max_retries(0)
        .build()
        .unwrap();
    let err = untrusting.consumers().get("con_1").await.unwrap_err();
    let Error::Connection { message, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(
        message.contains("certificate") || message.contains("Certificate"),
        "{message}"
    );
    let trusting = Client::builder(fake.url.as_str(), KEY)
        .add_ca_pem(ca_pem)
        .build()
        .unwrap();
    let consumer = trusting.consumers().get("con_1").await.expect("over TLS");
    assert_eq!(consumer.external_id, "acme");
    // The connection is kept for the next request.
    let _ = trusting.consumers().get("con_1").await;
    assert_eq!(fake.seen().len(), 2);
    assert_eq!(
        fake.connections(),
        2,
        "one refused by the untrusting client, one kept alive"
    );
}
