//! The event catalog (issue 2, item 5): names follow `noun.verb_past`;
//! schemas must be valid JSON Schemas (`invalid_schema`); a sample must match
//! its schema (`schema_violation`); a changed schema opens a new version and
//! publishes validate against the current one; a remote `$ref` is refused
//! and never fetched.

mod common;

use std::net::TcpListener;

use axum::http::StatusCode;
use common::*;
use serde_json::{Value, json};

#[tokio::test]
async fn names_follow_noun_verb_past() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let body = json!({ "schema": { "type": "object" } });
    for good in [
        "order.shipped",
        "invoice.paid",
        "webhook_delivery.attempt_exhausted",
        "shop.order.created",
        "notice.read",
    ] {
        h.put(&format!("/v1/event-types/{good}"), &key, body.clone())
            .await
            .expect(StatusCode::CREATED);
    }
    for bad in [
        "order",
        "order.ship",
        "Order.shipped",
        "order..shipped",
        "order.shipped.",
        "order-x.shipped",
        "1order.shipped",
        "order.ship__ped",
        "order.%2A",
        "*",
        "order%20.shipped",
    ] {
        let r = h
            .put(&format!("/v1/event-types/{bad}"), &key, body.clone())
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(r.error_fields(), vec!["name"], "{bad}: {}", r.text());
    }
    let long = format!("order.{}ed", "x".repeat(130));
    h.put(&format!("/v1/event-types/{long}"), &key, body.clone())
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    let list = h.get("/v1/event-types", &key).await.expect(StatusCode::OK);
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // The five created here plus the built-in operational types.
    assert_eq!(
        names.len(),
        5 + relay_core::operational::all().count(),
        "{list}"
    );
    h.get("/v1/event-types/order.ship", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn invalid_schemas_are_refused() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    for schema in [
        json!({ "type": "nonsense" }),
        json!({ "type": 5 }),
        json!({ "minimum": "five" }),
        json!({ "required": "id" }),
        json!({ "properties": { "a": { "type": ["string", 3] } } }),
        json!({ "pattern": "(" }),
        json!("string"),
        json!(42),
        json!(null),
        json!([]),
    ] {
        let r = h
            .put(
                "/v1/event-types/order.created",
                &key,
                json!({ "schema": schema }),
            )
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_schema");
        assert_eq!(r.error_fields(), vec!["/schema"], "{schema}: {}", r.text());
    }
    // None of them was stored.
    h.get("/v1/event-types/order.created", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    // Boolean schemas are valid JSON Schemas.
    h.put(
        "/v1/event-types/order.created",
        &key,
        json!({ "schema": true }),
    )
    .await
    .expect(StatusCode::CREATED);
}

#[tokio::test]
async fn other_catalog_fields_are_validated() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let r = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": {}, "personal_data_fields": ["/email", "email", "/a~2"] }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    // The first bad entry of a list is named.
    assert_eq!(r.error_fields(), vec!["/personal_data_fields/1"]);
    let r = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": {}, "description": "x".repeat(2001) }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(r.error_fields(), vec!["/description"]);
    let et = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({
                "schema": customer_schema(),
                "description": "Orders",
                "thin_fields": ["/id", "/customer/id"],
                "personal_data_fields": ["/customer/email"]
            }),
        )
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(et["description"], "Orders");
    assert_eq!(
        et["versions"][0]["personal_data_fields"],
        json!(["/customer/email"])
    );
    assert_eq!(
        et["versions"][0]["thin_fields"],
        json!(["/id", "/customer/id"])
    );
}

fn customer_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" },
            "customer": {
                "type": "object",
                "properties": { "id": {}, "email": {}, "name": {} }
            }
        }
    })
}

#[tokio::test]
async fn field_lists_name_fields_the_schema_declares() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let cases: &[(Value, &[&str])] = &[
        // not in the schema (a typo), in either list
        (json!({ "thin_fields": ["/ID"] }), &["/thin_fields/0"]),
        (
            json!({ "personal_data_fields": ["/customer/phone"] }),
            &["/personal_data_fields/0"],
        ),
        // listed twice
        (
            json!({ "thin_fields": ["/id", "/id"] }),
            &["/thin_fields/1"],
        ),
        // a thin field holding personal data, at any depth
        (
            json!({ "thin_fields": ["/id", "/customer"], "personal_data_fields": ["/customer/email"] }),
            &["/thin_fields/1"],
        ),
        (
            json!({ "thin_fields": ["/customer/email"], "personal_data_fields": ["/customer"] }),
            &["/thin_fields/0"],
        ),
        (
            json!({ "thin_fields": (0..65).map(|i| format!("/f{i}")).collect::<Vec<_>>() }),
            &["/thin_fields"],
        ),
    ];
    for (lists, fields) in cases {
        let mut body = lists.clone();
        body["schema"] = customer_schema();
        let r = h.put("/v1/event-types/order.created", &key, body).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(r.error_fields(), *fields, "{lists}");
    }
    // A permissive schema declares no field.
    let r = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": {}, "thin_fields": ["/id"] }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    // Changing the thin fields opens a version; the first keeps its own.
    let body = |thin: &[&str]| json!({ "schema": customer_schema(), "thin_fields": thin });
    h.put("/v1/event-types/order.created", &key, body(&["/id"]))
        .await
        .expect(StatusCode::CREATED);
    let et = h
        .put(
            "/v1/event-types/order.created",
            &key,
            body(&["/id", "/customer/id"]),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(et["current_version"], 2);
    assert_eq!(et["versions"][0]["thin_fields"], json!(["/id"]));
}

fn order_schema() -> Value {
    json!({
        "type": "object",
        "required": ["order_id", "total"],
        "properties": {
            "order_id": { "type": "integer" },
            "total": { "type": "number", "minimum": 0 },
            "items": { "type": "array", "items": { "type": "string" } }
        }
    })
}

#[tokio::test]
async fn the_sample_must_match_the_schema() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let r = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": order_schema(), "sample": { "order_id": "x", "items": [1] } }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
    let mut fields = r.error_fields();
    fields.sort();
    assert!(
        fields.contains(&"/sample/order_id".to_string()),
        "{fields:?}"
    );
    assert!(
        fields.contains(&"/sample/items/0".to_string()),
        "{fields:?}"
    );
    assert!(
        fields.contains(&"/sample".to_string()),
        "missing `total`: {fields:?}"
    );
    h.get("/v1/event-types/order.created", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");

    let sample = json!({ "order_id": 1, "total": 9.5 });
    let et = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": order_schema(), "sample": sample }),
        )
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(et["versions"][0]["sample"], sample);
}

#[tokio::test]
async fn a_schema_change_opens_a_new_version() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let v1 = json!({ "type": "object", "required": ["order_id"] });
    let et = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": v1, "description": "one" }),
        )
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(et["current_version"], 1);
    assert_eq!(et["versions"].as_array().unwrap().len(), 1);

    // The same schema again: an update in place, still version 1.
    let et = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": v1, "description": "one, again" }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(et["current_version"], 1);
    assert_eq!(et["description"], "one, again");

    // A publish against version 1 (this also caches the event type for the
    // publish path; the put below must take effect at once all the same).
    let before = h
        .publish(
            &key,
            json!({ "type": "order.created", "data": { "order_id": 1 } }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(before["type_version"], 1);

    let v2 = json!({ "type": "object", "required": ["order_id", "currency"] });
    let et = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": v2 }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(et["current_version"], 2, "{et}");
    let versions = et["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["version"], 1);
    assert_eq!(versions[0]["schema"], v1);
    assert_eq!(versions[1]["version"], 2);
    assert_eq!(versions[1]["schema"], v2);
    let read = h
        .get("/v1/event-types/order.created", &key)
        .await
        .expect(StatusCode::OK);
    // The PUT answer is the event type with its warnings.
    let mut put_answer = et.clone();
    assert_eq!(put_answer["warnings"], serde_json::json!([]));
    put_answer.as_object_mut().unwrap().remove("warnings");
    assert_eq!(read, put_answer);

    // Publishing validates against version 2 and records it.
    let r = h
        .publish(
            &key,
            json!({ "type": "order.created", "data": { "order_id": 1 } }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
    let ok = h
        .publish(
            &key,
            json!({ "type": "order.created", "data": { "order_id": 1, "currency": "EUR" } }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(ok["type_version"], 2);
}

/// A local listener standing in for the remote host: after the request, its
/// backlog must be empty, which proves no connection was attempted (a fetch
/// would have to connect before the response could be produced).
struct Trap(TcpListener);

impl Trap {
    fn new() -> Trap {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        Trap(l)
    }
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.0.local_addr().unwrap())
    }
    #[track_caller]
    fn assert_untouched(&self) {
        match self.0.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Ok((_, from)) => panic!("the server connected to the $ref host (from {from})"),
            Err(e) => panic!("accept failed: {e}"),
        }
    }
}

#[tokio::test]
async fn remote_refs_are_refused_and_never_fetched() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let trap = Trap::new();
    let schemas = [
        json!({ "$ref": "https://example.com/x.json" }),
        json!({ "$ref": trap.url("/x.json") }),
        json!({ "type": "object", "properties": { "a": { "$ref": trap.url("/a.json#/defs/a") } } }),
        json!({ "allOf": [{ "$ref": trap.url("/b.json") }] }),
        json!({ "$id": trap.url("/root.json"), "$ref": "other.json" }),
    ];
    for schema in schemas {
        let r = h
            .put(
                "/v1/event-types/order.created",
                &key,
                json!({ "schema": schema }),
            )
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_schema");
        trap.assert_untouched();
    }
    // A remote `$schema` (meta-schema) is not fetched either, whatever the answer.
    let r = h
        .put(
            "/v1/event-types/order.created",
            &key,
            json!({ "schema": { "$schema": trap.url("/meta.json"), "type": "object" } }),
        )
        .await;
    assert!(!r.status.is_server_error(), "{} {}", r.status, r.text());
    trap.assert_untouched();
    // Local references keep working.
    h.put(
        "/v1/event-types/order.updated",
        &key,
        json!({ "schema": {
            "$defs": { "id": { "type": "integer" } },
            "type": "object",
            "properties": { "order_id": { "$ref": "#/$defs/id" } }
        }, "sample": { "order_id": 3 } }),
    )
    .await
    .expect(StatusCode::CREATED);
    h.publish(
        &key,
        json!({ "type": "order.updated", "data": { "order_id": "x" } }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
}

#[tokio::test]
async fn documents_nested_too_deep_are_refused_and_responses_stay_readable() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let nested = |depth: usize| {
        let mut v = json!({"type": "object"});
        for _ in 1..depth {
            v = json!({ "allOf": [v] });
        }
        v
    };
    // 64 levels: accepted, and the response (which embeds it) parses with
    // serde_json's default recursion limit.
    let ok = h
        .put(
            "/v1/event-types/deep.created",
            &key,
            json!({ "schema": nested(32) }),
        )
        .await;
    assert_eq!(ok.status, StatusCode::CREATED, "{}", ok.text());
    ok.json();
    let r = h
        .put(
            "/v1/event-types/deep.created",
            &key,
            json!({ "schema": nested(60) }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(r.error_fields(), vec!["/schema".to_string()]);
    // A later, ordinary update still answers with JSON any client can read.
    let again = h
        .put(
            "/v1/event-types/deep.created",
            &key,
            json!({ "schema": {"type": "object"} }),
        )
        .await;
    again.json();
    let mut data = json!(1);
    for _ in 0..65 {
        data = json!([data]);
    }
    h.publish(&key, json!({"type": "deep.created", "data": data}))
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
}

#[tokio::test]
async fn operational_event_types_are_built_in_and_reserved() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let list = h.get("/v1/event-types", &key).await.expect(StatusCode::OK);
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for op in relay_core::operational::all() {
        assert!(names.contains(&op), "{op} is in every catalog");
        let one = h
            .get(&format!("/v1/event-types/{op}"), &key)
            .await
            .expect(StatusCode::OK);
        assert!(one["versions"][0]["sample"].is_object());
        assert!(
            !one["versions"][0]["thin_fields"]
                .as_array()
                .unwrap()
                .is_empty(),
            "{one}"
        );
        h.put(
            &format!("/v1/event-types/{op}"),
            &key,
            json!({ "schema": {"type": "object"} }),
        )
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "reserved_event_type");
        h.publish(&key, json!({ "type": op, "data": {} }))
            .await
            .problem(StatusCode::UNPROCESSABLE_ENTITY, "reserved_event_type");
    }
    // The tenant's own consumer's endpoints may subscribe to them by name.
    let own = h
        .post(
            "/v1/consumers",
            &key,
            json!({"external_id": "ourselves", "kind": "tenant"}),
        )
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(own["kind"], "tenant");
    let ops = [
        "webhook.attempt_exhausted",
        "webhook_endpoint.failure_warned",
    ];
    let ep = h
        .post("/v1/endpoints", &key, endpoint_body(&id_of(&own), &ops))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(ep["event_types"].as_array().unwrap().len(), 2);
    // One tenant consumer per environment.
    h.post(
        "/v1/consumers",
        &key,
        json!({"external_id": "ourselves-2", "kind": "tenant"}),
    )
    .await
    .problem(StatusCode::CONFLICT, "tenant_consumer_exists");
    // A customer's endpoint may not, on create or update; `*` is allowed
    // and does not include them.
    let c = h.consumer(&key, "acme").await;
    let customer = h
        .get(&format!("/v1/consumers/{c}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(customer["kind"], "customer");
    for op in relay_core::operational::all() {
        h.post("/v1/endpoints", &key, endpoint_body(&c, &["*", op]))
            .await
            .problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                "operational_event_type_reserved",
            );
    }
    let all = h
        .post("/v1/endpoints", &key, endpoint_body(&c, &["*"]))
        .await
        .expect(StatusCode::CREATED);
    h.patch(
        &format!("/v1/endpoints/{}", id_of(&all)),
        &key,
        json!({"event_types": ["*", "webhook_endpoint.disabled"]}),
    )
    .await
    .problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "operational_event_type_reserved",
    );
    // A consumer's kind is fixed at creation.
    h.patch(
        &format!("/v1/consumers/{c}"),
        &key,
        json!({"kind": "tenant"}),
    )
    .await
    .any_problem();
}

#[tokio::test]
async fn a_thin_payload_over_20_kb_is_reported() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let schema = json!({ "type": "object", "properties": { "id": {}, "blob": {} } });
    let body = |thin: &[&str]| {
        json!({
            "schema": schema,
            "sample": { "id": "o1", "blob": "x".repeat(20_001) },
            "thin_fields": thin,
        })
    };
    let small = h
        .put("/v1/event-types/doc.uploaded", &key, body(&["/id"]))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(small["warnings"], json!([]));
    let big = h
        .put(
            "/v1/event-types/doc.uploaded",
            &key,
            body(&["/id", "/blob"]),
        )
        .await
        .expect(StatusCode::OK);
    assert!(
        big["warnings"][0].as_str().unwrap().contains("20 kB"),
        "{big}"
    );
}
