//! No input panics the server (issue 2, item 7): property tests POST
//! arbitrary bytes, arbitrary JSON values and mutations of valid bodies
//! (wrong types, huge numbers, deep nesting, unicode, nulls, odd escapes) to
//! `POST /v1/events`, `POST /v1/endpoints` and `PUT /v1/event-types/x.created`,
//! and check that the answer is never 5xx and is problem+json whenever it is
//! not 2xx. Each property builds one runtime and one state.

mod common;

use axum::http::{Method, StatusCode};
use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use relay_api::ApiSettings;
use relay_store::EndpointLimits;
use serde_json::{Map, Value, json};

const CASES: u32 = 96;

struct Fixture {
    rt: tokio::runtime::Runtime,
    h: Harness,
    key: String,
    consumer: String,
}

impl Fixture {
    fn new() -> Fixture {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (h, key, consumer) = rt.block_on(async {
            let h = Harness::with_settings(ApiSettings {
                endpoint_limits: EndpointLimits {
                    per_tenant: 100_000,
                    per_consumer: 100_000,
                },
                ..ApiSettings::default()
            })
            .await;
            let (_, key) = h.tenant_with_key("fuzz", "live").await;
            h.event_type(&key, "order.created", order_schema()).await;
            h.open_event_type(&key, "x.created").await;
            let consumer = h.consumer(&key, "fuzz").await;
            h.endpoint(&key, &consumer, &["order.created"]).await;
            h.endpoint(&key, &consumer, &["*"]).await;
            (h, key, consumer)
        });
        Fixture {
            rt,
            h,
            key,
            consumer,
        }
    }

    /// Sends `body` and checks the answer.
    fn check(&self, method: Method, path: &str, body: Vec<u8>) -> Result<(), TestCaseError> {
        let r = self
            .rt
            .block_on(self.h.send(method, path, Some(&self.key), body.clone()));
        let shown = String::from_utf8_lossy(&body);
        prop_assert!(
            !r.status.is_server_error(),
            "{path} answered {} to {shown}: {}",
            r.status,
            r.text()
        );
        if r.status.is_success() {
            prop_assert!(
                serde_json::from_slice::<Value>(&r.body).is_ok(),
                "{path}: {} without JSON for {shown}: {:?}",
                r.status,
                r.text()
            );
        } else {
            prop_assert_eq!(
                r.content_type(),
                "application/problem+json",
                "{} {} for {}",
                path,
                r.status,
                shown
            );
            let p: Value = serde_json::from_slice(&r.body)
                .map_err(|e| TestCaseError::fail(format!("problem is not JSON: {e}")))?;
            prop_assert!(
                p["code"].as_str().is_some_and(|c| !c.is_empty()),
                "{path}: problem without code: {p}"
            );
            prop_assert_eq!(p["status"].as_u64(), Some(u64::from(r.status.as_u16())));
            prop_assert!(r.status != StatusCode::OK);
        }
        Ok(())
    }

    fn run<S: Strategy<Value = Vec<u8>>>(&self, strategy: S, method: Method, path: &str) {
        self.run_cases(strategy, |body| self.check(method.clone(), path, body));
    }

    fn run_cases<S: Strategy>(
        &self,
        strategy: S,
        test: impl Fn(S::Value) -> Result<(), TestCaseError>,
    ) {
        let mut runner = TestRunner::new(Config {
            cases: CASES,
            failure_persistence: None,
            ..Config::default()
        });
        if let Err(e) = runner.run(&strategy, test) {
            panic!("{e}");
        }
    }
}

fn order_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "order_id": { "type": "integer" },
            "total": { "type": "number", "minimum": 0 },
            "note": { "type": "string", "maxLength": 50, "pattern": "^[^<>]*$" },
            "items": { "type": "array", "items": { "type": "object" } },
            "customer": { "type": ["object", "null"], "properties": { "email": { "format": "email" } } }
        }
    })
}

/// Arbitrary JSON values: every scalar kind (unicode strings included) nested
/// in arrays and objects.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        any::<String>().prop_map(Value::String),
        "[a-z._*:/ -]{0,24}".prop_map(Value::String),
        Just(json!("order.created")),
        Just(json!("*")),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop_oneof!["[a-z_]{1,12}", any::<String>()], inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// JSON texts serde_json's `Value` would not produce: huge and odd numbers,
/// lone surrogates, escapes, deep nesting.
fn raw_token() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "1e400",
            "-1e400",
            "1e-400",
            "123456789012345678901234567890",
            "-123456789012345678901234567890.5",
            "18446744073709551616",
            "-9223372036854775809",
            "-0",
            "0.0",
            "1E+2",
            "\"\\ud800\"",
            "\"\\udc00\\ud800\"",
            "\"\\u0000\"",
            "\"\\uFFFF\"",
            "\"\u{10FFFF}\"",
            "\"\u{202E}\u{200B}\"",
            "null",
            "[]",
            "{}",
            "{\"a\":1,\"a\":2}",
        ])
        .prop_map(str::to_string),
        (1usize..400).prop_map(|n| format!("{}{}", "[".repeat(n), "]".repeat(n))),
        (1usize..300).prop_map(|n| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n))),
        arb_json().prop_map(|v| v.to_string()),
    ]
}

/// A valid body with one field replaced by a raw token, a field removed, or a
/// field added.
fn mutated(valid: Value) -> impl Strategy<Value = Vec<u8>> {
    let keys: Vec<String> = valid.as_object().unwrap().keys().cloned().collect();
    let replace = (prop::sample::select(keys.clone()), raw_token()).prop_map({
        let valid = valid.clone();
        move |(k, token)| {
            let mut obj = valid.as_object().unwrap().clone();
            obj.insert(k.clone(), json!("\u{1}PLACEHOLDER\u{1}"));
            Value::Object(obj)
                .to_string()
                .replace("\"\\u0001PLACEHOLDER\\u0001\"", &token)
                .into_bytes()
        }
    });
    let remove = prop::sample::select(keys).prop_map({
        let valid = valid.clone();
        move |k| {
            let mut obj = valid.as_object().unwrap().clone();
            obj.remove(&k);
            Value::Object(obj).to_string().into_bytes()
        }
    });
    let add = (prop_oneof!["[a-z_]{1,12}", any::<String>()], arb_json()).prop_map({
        let valid = valid.clone();
        move |(k, v)| {
            let mut obj = valid.as_object().unwrap().clone();
            obj.insert(k, v);
            Value::Object(obj).to_string().into_bytes()
        }
    });
    let nested = (raw_token(), prop::sample::select(vec![0usize, 1, 2])).prop_map({
        let valid = valid.clone();
        move |(token, at)| {
            // Into the second level (data members, destination fields, schema keywords).
            let mut obj = valid.as_object().unwrap().clone();
            let inner_key = ["data", "destination", "schema"]
                .into_iter()
                .find(|k| obj.contains_key(*k))
                .unwrap_or("data");
            let field = ["order_id", "url", "type"][at];
            let mut inner = obj
                .get(inner_key)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            inner.insert(field.into(), json!("\u{1}PLACEHOLDER\u{1}"));
            obj.insert(inner_key.into(), Value::Object(inner));
            Value::Object(obj)
                .to_string()
                .replace("\"\\u0001PLACEHOLDER\\u0001\"", &token)
                .into_bytes()
        }
    });
    prop_oneof![replace, remove, add, nested]
}

fn valid_publish() -> Value {
    json!({
        "id": "evt-fuzz",
        "type": "order.created",
        "subject": "order/1",
        "data": { "order_id": 1, "total": 2.5, "note": "hi", "items": [{}], "customer": null },
        "ordering_key": "k",
        "ttl_seconds": 3600,
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    })
}

fn valid_endpoint(consumer: &str) -> Value {
    json!({
        "consumer_id": consumer,
        "description": "fuzz",
        "destination": { "kind": "https", "url": GOOD_URL, "auth": null },
        "event_types": ["order.created"],
        "signature_scheme": "v1",
        "retry_schedule_seconds": [5, 60],
        "max_concurrency": 5,
        "rate_limit_per_second": 10,
        "snapshot_fields": [],
        "auto_disable": true,
    })
}

fn valid_event_type() -> Value {
    json!({
        "description": "fuzz",
        "schema": { "type": "object", "properties": { "a": { "type": "string" } } },
        "sample": { "a": "x" },
        "personal_data_fields": ["/a"],
    })
}

fn arbitrary_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..512)
}

fn arbitrary_json_text() -> impl Strategy<Value = Vec<u8>> {
    arb_json().prop_map(|v| v.to_string().into_bytes())
}

/// Arbitrary JSON objects whose keys are the route's field names.
fn shaped(valid: Value) -> impl Strategy<Value = Vec<u8>> {
    let keys: Vec<String> = valid.as_object().unwrap().keys().cloned().collect();
    prop::collection::vec((prop::sample::select(keys), arb_json()), 0..8).prop_map(|kv| {
        Value::Object(kv.into_iter().collect::<Map<_, _>>())
            .to_string()
            .into_bytes()
    })
}

#[test]
fn publish_survives_any_body() {
    let f = Fixture::new();
    let p = "/v1/events";
    f.run(arbitrary_bytes(), Method::POST, p);
    f.run(arbitrary_json_text(), Method::POST, p);
    f.run(shaped(valid_publish()), Method::POST, p);
    f.run(mutated(valid_publish()), Method::POST, p);
}

#[test]
fn endpoint_create_survives_any_body() {
    let f = Fixture::new();
    let p = "/v1/endpoints";
    let valid = valid_endpoint(&f.consumer);
    f.run(arbitrary_bytes(), Method::POST, p);
    f.run(arbitrary_json_text(), Method::POST, p);
    f.run(shaped(valid.clone()), Method::POST, p);
    f.run(mutated(valid), Method::POST, p);
    // URLs: arbitrary text and near-misses of URLs.
    let consumer = f.consumer.clone();
    let urls = prop_oneof![
        any::<String>(),
        "(https?|ftp|file|gopher)://[a-z0-9.:@%\\[\\]/?#_-]{0,60}",
        "https://\\[[0-9a-f:.%]{0,40}\\](:[0-9]{0,6})?/",
        "https://[0-9.]{0,20}(:[0-9]{0,7})?/x",
    ]
    .prop_map(move |url| {
        let mut b = valid_endpoint(&consumer);
        b["destination"]["url"] = Value::String(url);
        b.to_string().into_bytes()
    });
    f.run(urls, Method::POST, p);
}

#[test]
fn event_type_put_survives_any_body() {
    let f = Fixture::new();
    let p = "/v1/event-types/x.created";
    f.run(arbitrary_bytes(), Method::PUT, p);
    f.run(arbitrary_json_text(), Method::PUT, p);
    f.run(shaped(valid_event_type()), Method::PUT, p);
    f.run(mutated(valid_event_type()), Method::PUT, p);
    // Arbitrary schemas, each followed by a publish of arbitrary data
    // against whatever was accepted.
    f.run_cases((arb_json(), arb_json()), |(schema, data)| {
        let put = json!({ "schema": schema, "sample": null });
        f.check(Method::PUT, p, put.to_string().into_bytes())?;
        let publish = json!({ "type": "x.created", "data": data });
        f.check(Method::POST, "/v1/events", publish.to_string().into_bytes())
    });
}
