//! A hostile tenant's JSON Schemas (issue 39, section 1): a few hundred
//! bytes of schema whose `$ref`s and branches lead to the same subschemas
//! again and again, or patterns that make a backtracking engine take
//! exponential time, are refused at `PUT /v1/event-types/{name}` in
//! milliseconds with a stable code; versions stored before these rules are
//! refused at publish instead of run; a payload that would cost too much to
//! validate is refused before it is.
//!
//! Every request runs against a deadline on a multi-threaded runtime, so a
//! check that blows up fails the test instead of hanging it.

mod common;

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use common::*;
use http_body_util::BodyExt;
use relay_core::model::Environment;
use relay_store::{PutEventType, Scope};
use serde_json::{Value, json};
use tower::ServiceExt;

/// A request that must answer within `limit`. It runs as its own task, so
/// a handler stuck on a worker thread cannot also stop the deadline.
async fn timed(
    h: &Harness,
    what: &str,
    limit: Duration,
    method: Method,
    path: &str,
    key: &str,
    body: Value,
) -> Resp {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let router = h.router.clone();
    let started = Instant::now();
    let task = tokio::spawn(async move {
        let res = router.oneshot(req).await.unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let body = res.into_body().collect().await.unwrap().to_bytes();
        Resp {
            status,
            headers,
            body,
        }
    });
    let r = tokio::time::timeout(limit, task)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within {limit:?}"))
        .unwrap();
    eprintln!("{what}: {:?}", started.elapsed());
    r
}

/// `n` definitions, each applying the next one twice; the last is a string.
/// Validating anything but a string visits 2^n subschemas.
fn doubling_chain(n: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert(format!("d{n}"), json!({"type": "string"}));
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

fn self_loop() -> Value {
    json!({
        "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}},
        "$ref": "#/$defs/a"
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_schemas_are_refused_at_put_in_milliseconds() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let big: Vec<Value> = (0..30_000).map(|i| json!({"const": i})).collect();
    // (what, body, code, field)
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "a field path through a self-referring schema",
            json!({"schema": self_loop(), "thin_fields": ["/x"]}),
            "schema_too_complex",
            "/schema/$defs/a",
        ),
        (
            "a sample through 2^30 branches",
            json!({"schema": doubling_chain(30), "sample": 1}),
            "schema_too_complex",
            "/schema",
        ),
        (
            "look-ahead",
            json!({"schema": {"properties": {"code": {"type": "string", "pattern": "^(?=a)(a|aa)+$"}}}}),
            "unsupported_pattern",
            "/schema/properties/code/pattern",
        ),
        (
            "a backreference",
            json!({"schema": {"items": {"type": "string", "pattern": "(a*)*\\1b"}}}),
            "unsupported_pattern",
            "/schema/items/pattern",
        ),
        (
            "a backreference in patternProperties",
            json!({"schema": {"patternProperties": {"^(x+)+\\1$": {}}}}),
            "unsupported_pattern",
            "/schema/patternProperties/^(x+)+\\1$",
        ),
        (
            "a pattern that compiles to gigabytes",
            json!({"schema": {"pattern": "a{1000}{1000}"}}),
            "unsupported_pattern",
            "/schema/pattern",
        ),
        (
            "a schema over 256 KiB",
            json!({"schema": {"anyOf": big}}),
            "schema_too_large",
            "/schema",
        ),
    ];
    for (what, body, code, field) in cases {
        if code != "schema_too_large" {
            assert!(body.to_string().len() < 2500, "{what}: a small schema");
        }
        let r = timed(
            &h,
            what,
            Duration::from_secs(5),
            Method::PUT,
            "/v1/event-types/order.created",
            &key,
            body,
        )
        .await;
        let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(r.error_fields(), vec![field.to_string()], "{what}: {p}");
    }
    // The linear-time engine runs what schemas ordinarily use.
    let r = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({
                "schema": {"type": "object", "properties": {
                    "sku": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
                    "name": {"type": "string", "pattern": "^\\p{L}+$"}
                }, "patternProperties": {"^x-[a-z]+$": {"type": "string"}}},
                "sample": {"sku": "ABC-1234", "name": "Zoë", "x-note": "ok"}
            }),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text());
    h.publish(
        &key,
        json!({"type": "order.created", "data": {"sku": "abc"}}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
}

/// Versions stored before these rules (written here straight to the store)
/// are refused at publish, naming the version, instead of run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_hostile_schemas_are_refused_at_publish() {
    let h = Harness::new().await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    let scope = Scope {
        tenant_id: tenant,
        environment: Environment::Live,
    };
    let stored = [
        ("chain.created", doubling_chain(30), "schema_too_complex"),
        ("loop.created", self_loop(), "schema_too_complex"),
        (
            "regex.created",
            json!({"type": "array", "items": {"type": "string", "pattern": "(a*)*\\1b"}}),
            "unsupported_pattern",
        ),
    ];
    for (name, schema, _) in &stored {
        relay_store::conformance::put_event_type(
            &*h.state.store,
            &scope,
            &PutEventType {
                name: name.to_string(),
                description: String::new(),
                schema: schema.clone(),
                sample: None,
                thin_fields: vec![],
                personal_data_fields: vec![],
                audience: Default::default(),
                now: T0,
            },
        )
        .await
        .unwrap();
    }
    // 2,000 strings that each cost a backtracking engine 40 ms or more.
    let strings: Vec<String> = (0..2000).map(|_| format!("{}!", "a".repeat(21))).collect();
    for (name, _, code) in stored {
        let data = if name == "regex.created" {
            json!(strings)
        } else {
            json!(1)
        };
        let r = timed(
            &h,
            name,
            Duration::from_secs(5),
            Method::POST,
            "/v1/events",
            &key,
            json!({"type": name, "data": data}),
        )
        .await;
        let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(r.error_fields(), vec!["/type".to_string()], "{p}");
        assert!(p["detail"].as_str().unwrap().contains("version 1"), "{p}");
    }
}

/// A schema within its bounds may still be expensive per value; a payload
/// with enough values to cost more than the budget is refused before it is
/// validated, and one within it is validated (on the CPU pool).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_has_a_budget_per_publish() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    // Each element passes through a chain of 10 doubling definitions:
    // 9,211 (weighted) subschemas per element, within the per-value bound
    // of 10,000; 20,000,000 allows about 2,170 elements.
    let mut schema = doubling_chain(10);
    schema["$defs"]["d10"] = json!({"type": "integer"});
    let schema =
        json!({"$defs": schema["$defs"], "type": "array", "items": {"$ref": "#/$defs/d0"}});
    let r = h
        .put(
            "/v1/event-types/list.created",
            &key,
            json!({"schema": schema}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text());
    let many: Vec<u32> = (0..5000).collect();
    let r = timed(
        &h,
        "5,000 values",
        Duration::from_secs(5),
        Method::POST,
        "/v1/events",
        &key,
        json!({"type": "list.created", "data": many}),
    )
    .await;
    let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_too_costly");
    assert_eq!(r.error_fields(), vec!["/data".to_string()], "{p}");
    let few: Vec<u32> = (0..100).collect();
    let r = timed(
        &h,
        "100 values",
        Duration::from_secs(5),
        Method::POST,
        "/v1/events",
        &key,
        json!({"type": "list.created", "data": few}),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.text());
}

/// An endpoint's subscriptions are each deduplicated and looked up in the
/// catalog: a body of 40,000 names (under the 1 MiB request limit) is
/// refused at once for their number; 256 are judged one by one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_names_at_most_256_event_types() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let consumer = h.consumer(&key, "c1").await;
    let names = |n: usize| -> Vec<String> { (0..n).map(|i| format!("t{i}.created")).collect() };
    let many = names(40_000);
    let body = endpoint_body(
        &consumer,
        &many.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert!(body.to_string().len() < 1024 * 1024);
    let r = timed(
        &h,
        "40,000 subscriptions",
        Duration::from_secs(5),
        Method::POST,
        "/v1/endpoints",
        &key,
        body,
    )
    .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(r.error_fields(), vec!["/event_types".to_string()]);
    // 256 are not refused for their number (these name no event type).
    let few = names(256);
    h.post(
        "/v1/endpoints",
        &key,
        endpoint_body(
            &consumer,
            &few.iter().map(String::as_str).collect::<Vec<_>>(),
        ),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_event_type");
}

/// `format: "regex"` (asserted under draft 7) checks a string's syntax with
/// a parser whose group-name check is quadratic: one string of 30,000 named
/// groups and 30,000 references to the last costs 900 million comparisons.
/// Strings over 4 KiB are not taken for regular expressions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_format_regex_string_is_checked_in_bounded_time() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.event_type(
        &key,
        "pattern.created",
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "format": "regex"}),
    )
    .await;
    let n = 30_000;
    let mut text: String = (0..n).map(|i| format!("(?<n{i}>)")).collect();
    text.extend((0..n).map(|_| format!("\\k<n{}>", n - 1)));
    assert!(text.len() < 900 * 1024);
    let r = timed(
        &h,
        "a 30,000-group pattern",
        Duration::from_secs(5),
        Method::POST,
        "/v1/events",
        &key,
        json!({"type": "pattern.created", "data": text}),
    )
    .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
    // Ordinary patterns are still checked as such.
    h.publish(
        &key,
        json!({"type": "pattern.created", "data": "^(?<year>\\d{4})-\\k<year>$"}),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    h.publish(
        &key,
        json!({"type": "pattern.created", "data": "(unclosed"}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
}
