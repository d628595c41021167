//! OpenTelemetry traces of `relay serve`, checked against a real OTLP
//! receiver (issue 43, point 6): `tests/otlp/receiver.py` decodes what
//! Relay exports with PyPI's `opentelemetry-proto`. One event is published
//! with the publisher's `traceparent` header, one without; the test checks
//! each publish span and attempt span, their parents and links, that the
//! delivery's `traceparent` header names the attempt span, the labelled
//! metrics, and that no secret or personal data is in any attribute.

mod harness;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use harness::{
    EVENT_TYPE, MASTER_KEY, OPERATOR, Settings, Sink, http, id_of, metric, start, tenant,
};
use relay_receiver::{Behavior, Recorded};
use serde_json::{Value, json};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PUBLISHER_SPAN: &str = "00f067aa0ba902b7";
const HOOK_TOKEN: &str = "Bearer hook-t0ken-never-in-a-span";
const EMAIL: &str = "jane.doe@example.com";
const PHONE: &str = "+44 7700 900123";

/// The receiver, killed when dropped.
struct Receiver {
    child: Child,
    _stdin: ChildStdin,
    port: u16,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn receiver() -> Receiver {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otlp/receiver.py");
    let mut child = Command::new(relay_receiver::judges::python())
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the OTLP receiver");
    let stdin = child.stdin.take().expect("stdin");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the receiver's port");
    let port = line
        .trim()
        .strip_prefix("listening on ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| {
            panic!("the receiver printed {line:?} (is opentelemetry-proto installed?)")
        });
    Receiver {
        child,
        _stdin: stdin,
        port,
    }
}

impl Receiver {
    fn spans(&self) -> (Vec<Value>, Vec<Value>) {
        let (status, body) = http(
            "GET",
            &format!("http://127.0.0.1:{}/spans", self.port),
            None,
            None,
        )
        .expect("GET /spans");
        assert_eq!(status, 200, "{body}");
        let v: Value = serde_json::from_str(&body).expect("JSON");
        (
            v["spans"].as_array().cloned().unwrap_or_default(),
            v["rejected"].as_array().cloned().unwrap_or_default(),
        )
    }
}

/// `POST /v1/events` with a `traceparent` header.
fn publish_with_header(base: &str, key: &str, body: &Value, traceparent: &str) -> (u16, Value) {
    let host = base.strip_prefix("http://").expect("http base");
    let mut s = TcpStream::connect(host).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let body = body.to_string();
    write!(
        s,
        "POST /v1/events HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nAuthorization: Bearer {key}\r\ntraceparent: {traceparent}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("answer");
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let json = raw
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (status, json)
}

fn span<'a>(spans: &'a [Value], name: &str, event_id: &str) -> Option<&'a Value> {
    spans
        .iter()
        .find(|s| s["name"] == name && s["attributes"]["relay.event_id"] == event_id)
}

fn delivered<'a>(requests: &'a [Recorded], event_id: &str) -> &'a Recorded {
    requests
        .iter()
        .find(|r| r.header("webhook-id") == Some(event_id))
        .unwrap_or_else(|| panic!("no delivery of {event_id}"))
}

#[test]
fn spans_reach_a_real_otlp_receiver_with_their_parents_and_no_secret() {
    let otlp = receiver();
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay = start(
        &Settings::new(dir.path(), &sink)
            .env(
                "RELAY_TELEMETRY__OTLP_ENDPOINT",
                &format!("http://127.0.0.1:{}/v1/traces", otlp.port),
            )
            .env("RELAY_TELEMETRY__SERVICE_NAME", "relay-under-test"),
    );
    let t = tenant(&relay.url, "traced");
    t.api.expect(
        "PUT",
        "/v1/secrets/hook-token",
        Some(&json!({ "value": HOOK_TOKEN })),
        201,
    );
    let endpoint = t.api.expect(
        "POST",
        "/v1/endpoints",
        Some(&json!({
            "consumer_id": t.consumer_id,
            "destination": { "kind": "https", "url": sink.receiver.url("/traced"),
                "headers": [{ "name": "Authorization", "secret": "secret:hook-token" }] },
            "event_types": [EVENT_TYPE],
            "signature_scheme": "v1",
            "snapshot_fields": ["*"],
        })),
        201,
    );
    let signing_secret = endpoint["secret"].as_str().expect("secret").to_string();
    let event = |id: &str| {
        json!({ "id": id, "type": EVENT_TYPE, "consumer_id": t.consumer_id,
                "subject": format!("customer/{EMAIL}"),
                "data": { "email": EMAIL, "phone": PHONE, "name": "Jane Doe" } })
    };

    // The publisher's trace, in the request's header; and none.
    let publisher = format!("00-{TRACE_ID}-{PUBLISHER_SPAN}-01");
    let (status, published) =
        publish_with_header(&relay.url, &t.api.token, &event("evt_traced"), &publisher);
    assert_eq!(status, 202, "{published}");
    assert_eq!(
        published["traceparent"],
        publisher.as_str(),
        "the header's trace is stored"
    );
    let own = t
        .api
        .expect("POST", "/v1/events", Some(&event("evt_untraced")), 202);
    let own_trace = own["traceparent"]
        .as_str()
        .expect("traceparent")
        .to_string();

    let deadline = Instant::now() + Duration::from_secs(30);
    let requests = sink
        .wait_for_all(
            &["evt_traced", "evt_untraced"]
                .map(String::from)
                .into_iter()
                .collect(),
            |r| r.header("webhook-id").map(str::to_string),
            deadline,
        )
        .unwrap_or_else(|e| panic!("deliveries missing: {e}\n{}", relay.log_tail(20)));

    // Both publishes' and attempts' spans arrive.
    let spans = loop {
        let (spans, rejected) = otlp.spans();
        assert!(
            rejected.is_empty(),
            "the receiver refused exports: {rejected:?}"
        );
        let names = ["relay.publish", "relay.attempt"];
        if ["evt_traced", "evt_untraced"]
            .iter()
            .all(|e| names.iter().all(|n| span(&spans, n, e).is_some()))
        {
            break spans;
        }
        assert!(
            Instant::now() < deadline,
            "spans missing: {spans:#?}\n{}",
            relay.log_tail(20)
        );
        std::thread::sleep(Duration::from_millis(100));
    };

    // The publisher's trace: publish span under the publisher's span, the
    // attempt under the publish span and linked to the publisher's span,
    // and the delivery's traceparent naming the attempt span.
    let publish = span(&spans, "relay.publish", "evt_traced").unwrap();
    let attempt = span(&spans, "relay.attempt", "evt_traced").unwrap();
    assert_eq!(publish["trace_id"], TRACE_ID);
    assert_eq!(publish["parent_span_id"], PUBLISHER_SPAN);
    assert_eq!(publish["kind"], 2, "server");
    assert_eq!(attempt["trace_id"], TRACE_ID);
    assert_eq!(attempt["parent_span_id"], publish["span_id"]);
    assert_eq!(attempt["kind"], 3, "client");
    assert_eq!(
        attempt["links"].as_array().map(Vec::len),
        Some(1),
        "{attempt}"
    );
    assert_eq!(attempt["links"][0]["trace_id"], TRACE_ID);
    assert_eq!(attempt["links"][0]["span_id"], PUBLISHER_SPAN);
    let header = delivered(&requests, "evt_traced")
        .header("traceparent")
        .map(str::to_string);
    assert_eq!(
        header,
        Some(format!(
            "00-{TRACE_ID}-{}-01",
            attempt["span_id"].as_str().unwrap()
        )),
        "the delivery continues the trace under its attempt span"
    );
    assert_eq!(attempt["status"]["code"], 1, "ok: {attempt}");
    let a = attempt["attributes"].clone();
    assert_eq!(a["relay.attempt.outcome"], "delivered");
    assert_eq!(a["relay.destination.kind"], "https");
    assert_eq!(a["http.response.status_code"], 200);
    assert_eq!(a["relay.attempt.number"], 1);
    assert_eq!(a["relay.endpoint_id"], id_of(&endpoint));
    assert_eq!(a["relay.event_type"], EVENT_TYPE);
    assert_eq!(publish["attributes"]["relay.messages_created"], 1);
    assert!(
        attempt["start_time_unix_nano"].as_u64() >= publish["start_time_unix_nano"].as_u64()
            && attempt["end_time_unix_nano"].as_u64() >= attempt["start_time_unix_nano"].as_u64()
    );

    // Relay's own trace: the publish span is the root and the stored parent.
    let publish = span(&spans, "relay.publish", "evt_untraced").unwrap();
    let attempt = span(&spans, "relay.attempt", "evt_untraced").unwrap();
    let stored: Vec<&str> = own_trace.split('-').collect();
    assert_eq!(publish["trace_id"], stored[1]);
    assert_eq!(
        publish["span_id"], stored[2],
        "the stored traceparent names the publish span"
    );
    assert_eq!(publish["parent_span_id"], "", "a root span");
    assert_eq!(attempt["parent_span_id"], publish["span_id"]);
    assert_eq!(attempt["links"], json!([]));
    let header = delivered(&requests, "evt_untraced")
        .header("traceparent")
        .map(str::to_string);
    assert_eq!(
        header,
        Some(format!(
            "00-{}-{}-01",
            stored[1],
            attempt["span_id"].as_str().unwrap()
        ))
    );

    for s in &spans {
        assert_eq!(s["resource"]["service.name"], "relay-under-test", "{s}");
        assert_eq!(s["scope"]["name"], "relay");
    }

    // No secret and no personal data in any attribute (or anywhere in a span).
    let text = Value::Array(spans.clone()).to_string();
    let whsec = signing_secret.trim_start_matches("whsec_");
    for (what, value) in [
        ("the signing secret", whsec),
        ("the API key", t.api.token.as_str()),
        ("the operator token", OPERATOR),
        ("the master key", MASTER_KEY),
        (
            "the credential header's value",
            "hook-t0ken-never-in-a-span",
        ),
        ("the email address", EMAIL),
        ("the phone number", PHONE),
        ("the name", "Jane Doe"),
        ("the subject", "customer/"),
        ("the receiver's URL", "/traced"),
    ] {
        assert!(!text.contains(value), "{what} is in a span: {text}");
    }

    // The labelled metrics: kind, outcome and error code, no tenant id.
    let metrics = relay.metrics();
    let delivered_series =
        "relay_attempt_outcomes_total{kind=\"https\",outcome=\"delivered\",error_code=\"\"}";
    assert_eq!(metric(&metrics, delivered_series), Some(2.0), "{metrics}");
    assert!(
        metric(&metrics, "relay_spans_exported_total").unwrap_or(0.0) >= 4.0,
        "{metrics}"
    );
    assert_eq!(
        metric(&metrics, "relay_spans_dropped_total"),
        Some(0.0),
        "{metrics}"
    );
    assert!(
        metrics.contains("relay_delivery_latency_seconds_bucket{le=\"3600\"} 2"),
        "{metrics}"
    );
    assert!(
        metric(&metrics, "relay_backlog_messages").is_some(),
        "{metrics}"
    );
    assert!(
        metric(&metrics, "relay_oldest_message_age_seconds").is_some(),
        "{metrics}"
    );
    let tenant_id = a["relay.tenant_id"]
        .as_str()
        .expect("the span names the tenant");
    assert!(
        !metrics.contains(tenant_id),
        "a tenant id in the metrics: {metrics}"
    );
    relay.assert_no_panic();
}

#[test]
fn tenant_labels_are_there_only_when_the_operator_asks() {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay =
        start(&Settings::new(dir.path(), &sink).env("RELAY_METRICS__TENANT_LABELS", "true"));
    let t = tenant(&relay.url, "labelled");
    t.endpoint(&sink.receiver.url("/labelled"), "v1");
    t.api.publish_to(&t.consumer_id, "evt_labelled");
    sink.wait_count(1, Instant::now() + Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("no delivery: {e}\n{}", relay.log_tail(20)));
    // The outcome is counted as the attempt concludes, just after the
    // receiver answered: wait for the series.
    let series = "relay_attempt_outcomes_total{kind=\"https\",outcome=\"delivered\"";
    let line = harness::eventually(
        "the delivered outcome counted",
        Instant::now() + Duration::from_secs(10),
        || {
            relay
                .metrics()
                .lines()
                .find(|l| l.starts_with(series))
                .map(str::to_string)
        },
    );
    assert!(line.contains(",tenant=\"ten_"), "{line}");
}
