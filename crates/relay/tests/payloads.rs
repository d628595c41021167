//! Thin events and snapshots end to end (issue 26): `relay serve` with real
//! HTTPS receivers. A thin endpoint receives the event type version's thin
//! fields only and never personal data; a snapshot endpoint its allow list
//! too; an endpoint keeps the shape of its version after the event type
//! gains a version, and after a second endpoint version opens, including
//! when a message of the first is resent; personal data needs the
//! endpoint's explicit choice.

mod harness;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use harness::{Settings, Sink, id_of, path_and_id, start, tenant};
use relay_receiver::{Behavior, Recorded};
use serde_json::{Value, json};

const TYPE: &str = "order.paid";

fn schema(with_account: bool) -> Value {
    let mut s = json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" },
            "customer": {
                "type": "object",
                "properties": { "id": {}, "email": {}, "name": {} }
            },
            "lines": { "type": "array", "items": {
                "type": "object", "properties": { "sku": {}, "price": {} }
            } },
            "total": { "type": "integer" }
        }
    });
    if with_account {
        s["properties"]["account"] = json!({ "type": "string" });
    }
    s
}

fn data(id: &str) -> Value {
    json!({
        "id": id,
        "account": "acct_9",
        "customer": { "id": "cus_1", "email": "ann@example.com", "name": "Ann" },
        "lines": [{ "sku": "A", "price": 5 }, { "sku": "B", "price": 7 }],
        "total": 12
    })
}

fn body_of(r: &Recorded) -> Value {
    serde_json::from_slice(&r.body).expect("a JSON body")
}

/// The deliveries to `path` of event `id`, oldest first.
fn deliveries<'a>(requests: &'a [Recorded], path: &str, id: &str) -> Vec<&'a Recorded> {
    requests
        .iter()
        .filter(|r| path_and_id(r).is_some_and(|(p, i)| p == path && i == id))
        .collect()
}

#[test]
fn endpoints_receive_the_shape_of_their_version() {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay = start(&Settings::new(dir.path(), &sink));
    let t = tenant(&relay.url, "shapes");
    let api = &t.api;
    let put_type = |with_account: bool, thin: &[&str]| {
        let (status, body) = api
            .try_call(
                "PUT",
                &format!("/v1/event-types/{TYPE}"),
                Some(&json!({
                    "schema": schema(with_account),
                    "thin_fields": thin,
                    "personal_data_fields": ["/customer/email", "/customer/name"],
                })),
            )
            .unwrap();
        assert!(status == 200 || status == 201, "{status} {body}");
        body
    };
    put_type(false, &["/id", "/customer/id"]);
    let endpoint = |path: &str, extra: Value| {
        let mut body = json!({
            "consumer_id": t.consumer_id,
            "destination": { "kind": "https", "url": sink.receiver.url(path) },
            "event_types": [TYPE],
        });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        api.try_call("POST", "/v1/endpoints", Some(&body)).unwrap()
    };

    // Thin by default; a snapshot adds its fields.
    let (s, thin) = endpoint("/thin", json!({}));
    assert_eq!(s, 201, "{thin}");
    assert_eq!(thin["version"], 1);
    let (s, snap) = endpoint(
        "/snap",
        json!({ "snapshot_fields": ["/total", "/lines/sku"] }),
    );
    assert_eq!(s, 201, "{snap}");
    // Personal data only by explicit choice, and then with a warning.
    let (s, refused) = endpoint("/pii", json!({ "snapshot_fields": ["/customer"] }));
    assert_eq!(s, 422, "{refused}");
    assert_eq!(refused["code"], "personal_data_not_allowed", "{refused}");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("/customer/email")
    );
    let (s, pii) = endpoint(
        "/pii",
        json!({ "snapshot_fields": ["/customer"], "allow_personal_data": true }),
    );
    assert_eq!(s, 201, "{pii}");
    let warnings = pii["warnings"].to_string();
    assert!(
        warnings.contains("personal data") && warnings.contains("/customer/email"),
        "{pii}"
    );
    let (s, all_fields) = endpoint("/all", json!({ "snapshot_fields": ["*"] }));
    assert_eq!(s, 201, "{all_fields}");
    assert!(
        all_fields["warnings"].to_string().contains("every field"),
        "{all_fields}"
    );

    let publish = |id: &str| {
        api.expect(
            "POST",
            "/v1/events",
            Some(
                &json!({ "id": id, "type": TYPE, "subject": "order/1", "data": data(id),
                          "consumer_id": t.consumer_id }),
            ),
            202,
        );
    };
    let wait = |wanted: &[(&str, &str)]| -> Vec<Recorded> {
        let wanted: HashSet<(String, String)> = wanted
            .iter()
            .map(|(p, i)| (p.to_string(), i.to_string()))
            .collect();
        sink.wait_for_all(
            &wanted,
            path_and_id,
            Instant::now() + Duration::from_secs(30),
        )
        .unwrap_or_else(|e| panic!("deliveries missing: {e}\n{}", relay.log_tail(20)))
    };

    // Event type v1 without `account`: the data carries it, no one thin gets it.
    let mut data1 = data("o1");
    data1.as_object_mut().unwrap().remove("account");
    api.expect(
        "POST",
        "/v1/events",
        Some(
            &json!({ "id": "o1", "type": TYPE, "subject": "order/1", "data": data1,
                      "consumer_id": t.consumer_id }),
        ),
        202,
    );
    let got = wait(&[
        ("/thin", "o1"),
        ("/snap", "o1"),
        ("/pii", "o1"),
        ("/all", "o1"),
    ]);
    let first = |path: &str, id: &str| body_of(deliveries(&got, path, id)[0]);
    let thin1 = first("/thin", "o1");
    assert_eq!(
        thin1["data"],
        json!({ "id": "o1", "customer": { "id": "cus_1" } })
    );
    assert_eq!(thin1["endpointversion"], 1);
    assert!(
        thin1.get("dataschema").is_none(),
        "a projection names no schema of the catalog: {thin1}"
    );
    assert_eq!(
        first("/snap", "o1")["data"],
        json!({ "id": "o1", "customer": { "id": "cus_1" }, "lines": [{ "sku": "A" }, { "sku": "B" }], "total": 12 })
    );
    assert_eq!(
        first("/pii", "o1")["data"],
        json!({ "id": "o1", "customer": { "id": "cus_1", "email": "ann@example.com", "name": "Ann" } })
    );
    // `*` without the flag: everything but personal data.
    assert_eq!(
        first("/all", "o1")["data"],
        json!({ "id": "o1", "customer": { "id": "cus_1" }, "lines": [{ "sku": "A", "price": 5 }, { "sku": "B", "price": 7 }], "total": 12 })
    );

    // The event type gains a version whose thin fields add `account`: the
    // endpoints stay on v1's shape.
    let et = put_type(true, &["/id", "/customer/id", "/account"]);
    assert_eq!(et["current_version"], 2, "{et}");
    publish("o2");
    let got = wait(&[("/thin", "o2"), ("/snap", "o2")]);
    let thin2 = body_of(deliveries(&got, "/thin", "o2")[0]);
    assert_eq!(
        thin2["data"],
        json!({ "id": "o2", "customer": { "id": "cus_1" } })
    );
    assert!(thin2.get("dataschema").is_none(), "{thin2}");

    // A new allow list opens endpoint version 2, which takes the type's v2.
    let snap_id = id_of(&snap);
    let patched = api.expect(
        "PATCH",
        &format!("/v1/endpoints/{snap_id}"),
        Some(&json!({ "snapshot_fields": ["/total"] })),
        200,
    );
    assert_eq!(patched["version"], 2, "{patched}");
    let versions = api.get(&format!("/v1/endpoints/{snap_id}/versions"));
    assert_eq!(versions["data"].as_array().unwrap().len(), 2, "{versions}");
    assert_eq!(
        versions["data"][0]["snapshot_fields"],
        json!(["/total", "/lines/sku"])
    );
    assert_eq!(versions["data"][1]["snapshot_fields"], json!(["/total"]));
    // A change that is not about the payload opens no version.
    let same = api.expect(
        "PATCH",
        &format!("/v1/endpoints/{snap_id}"),
        Some(&json!({ "description": "orders" })),
        200,
    );
    assert_eq!(same["version"], 2);
    publish("o3");
    let got = wait(&[("/snap", "o3"), ("/thin", "o3")]);
    let snap3 = body_of(deliveries(&got, "/snap", "o3")[0]);
    assert_eq!(
        snap3["data"],
        json!({ "id": "o3", "account": "acct_9", "customer": { "id": "cus_1" }, "total": 12 })
    );
    assert_eq!(snap3["endpointversion"], 2);
    assert!(snap3.get("dataschema").is_none(), "{snap3}");

    // A message of version 1, resent now, is shaped as it was.
    // (Its completions are written after the deliveries arrived: wait for them.)
    let completed = |endpoint_id: &str, events: &[&str]| -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let all = api.list_all(&format!("/v1/messages?endpoint_id={endpoint_id}"));
            let done = events.iter().all(|e| {
                all.iter()
                    .any(|m| m["event_id"] == *e && m["state"] == "delivered")
            });
            if done {
                return all;
            }
            assert!(Instant::now() < deadline, "not completed: {all:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let messages = completed(&snap_id, &["o1", "o2", "o3"]);
    let m1 = messages
        .iter()
        .find(|m| m["event_id"] == "o1")
        .expect("o1's message");
    assert_eq!(m1["endpoint_version"], 1, "{m1}");
    // Beside it, the event type version that shaped what was sent: v1,
    // recorded when o1 was delivered, and still v1 now that the type has v2.
    assert_eq!(m1["event_type_version"], 1, "{m1}");
    let m3 = messages
        .iter()
        .find(|m| m["event_id"] == "o3")
        .expect("o3's message");
    assert_eq!(m3["endpoint_version"], 2, "{m3}");
    assert_eq!(m3["event_type_version"], 2, "{m3}");
    // o2 was published as v2, but the thin endpoint's version shapes it by v1.
    let thin_id = id_of(&thin);
    let thin2_message = completed(&thin_id, &["o2"])
        .into_iter()
        .find(|m| m["event_id"] == "o2")
        .expect("o2's message");
    assert_eq!(thin2_message["event_type_version"], 1, "{thin2_message}");
    assert_eq!(
        api.get(&format!("/v1/messages/{}", id_of(&thin2_message)))["event_type_version"],
        1
    );
    api.expect(
        "POST",
        &format!("/v1/messages/{}/resend", id_of(m1)),
        None,
        200,
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let resent = loop {
        let all = sink.receiver.requests();
        let d = deliveries(&all, "/snap", "o1");
        if d.len() >= 2 {
            break body_of(d[1]);
        }
        assert!(Instant::now() < deadline, "the resend did not arrive");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(resent["data"], first("/snap", "o1")["data"]);
    assert_eq!(resent["endpointversion"], 1);

    // Personal data never reached the thin or the snapshot endpoint.
    for r in sink.receiver.requests() {
        let text = String::from_utf8_lossy(&r.body);
        if r.path != "/pii" {
            assert!(!text.contains("ann@example.com"), "{} got {text}", r.path);
            assert!(!text.contains("\"Ann\""), "{} got {text}", r.path);
        }
    }
    // The portal shows the consumer, even with a read-only token, each
    // message's payload exactly as its endpoint received it: the `data`
    // that was signed and sent, nothing more.
    let token = api.expect(
        "POST",
        "/v1/portal-tokens",
        Some(&json!({ "consumer_id": t.consumer_id })),
        201,
    )["token"]
        .as_str()
        .unwrap()
        .to_string();
    let portal = harness::Api::new(&relay.url, &token);
    let all = sink.receiver.requests();
    let mut compared = 0;
    for endpoint in [&thin, &snap, &pii, &all_fields] {
        let endpoint_id = id_of(endpoint);
        for m in api.list_all(&format!("/v1/messages?endpoint_id={endpoint_id}")) {
            let event = m["event_id"].as_str().unwrap();
            let path = endpoint["destination"]["url"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .map(|p| format!("/{p}"))
                .unwrap();
            let Some(sent) = deliveries(&all, &path, event).first().map(|r| body_of(r)) else {
                continue;
            };
            let shown = portal.get(&format!("/v1/portal/messages/{}", id_of(&m)));
            assert_eq!(
                shown["event"]["data"], sent["data"],
                "{path} {event}: {shown}"
            );
            // The versions that shaped it, beside it.
            assert_eq!(
                shown["endpoint_version"], sent["endpointversion"],
                "{shown}"
            );
            if m["state"] == "delivered" {
                assert!(m["event_type_version"].is_i64(), "{m}");
                assert_eq!(
                    shown["event_type_version"], m["event_type_version"],
                    "{shown}"
                );
            }
            compared += 1;
        }
    }
    assert!(compared >= 8, "{compared} messages compared");
    // The full event is one authorized read away.
    let full = api.get("/v1/events/o1");
    assert_eq!(full["data"]["customer"]["email"], "ann@example.com");
    relay.assert_no_panic();
}

#[test]
fn system_events_reach_only_the_tenants_own_endpoints_that_name_them_thin() {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay = start(&Settings::new(dir.path(), &sink));
    let t = tenant(&relay.url, "system");
    let op = relay.operator();
    let tenant_id = op
        .list_all("/v1/tenants")
        .iter()
        .find(|x| x["name"] == "system")
        .map(id_of)
        .expect("the tenant");
    let own = t.api.expect(
        "POST",
        "/v1/consumers",
        Some(&json!({ "external_id": "ourselves", "kind": "tenant" })),
        201,
    );
    let endpoint = |consumer: &str, path: &str, types: Value| {
        t.api.expect(
            "POST",
            "/v1/endpoints",
            Some(&json!({
                "consumer_id": consumer,
                "destination": { "kind": "https", "url": sink.receiver.url(path) },
                "event_types": types,
            })),
            201,
        )
    };
    endpoint(&id_of(&own), "/named", json!(["email.bounced"]));
    endpoint(&id_of(&own), "/wildcard", json!(["*"]));
    let customer = t.endpoint(&sink.receiver.url("/customer"), "v1a");
    let _ = customer;

    let path = format!("/v1/tenants/{tenant_id}/system-events");
    let sample = relay_core::operational::definition("email.bounced")
        .unwrap()
        .sample;
    let published = op.expect(
        "POST",
        &path,
        Some(&json!({ "environment": "live", "id": "sys_1", "type": "email.bounced", "data": sample })),
        202,
    );
    assert_eq!(published["messages_created"], 1, "{published}");
    // Bad input: a type that is not a system one, a webhook operation
    // (Relay publishes those itself), a payload against the schema.
    for (body, code) in [
        (
            json!({ "environment": "live", "type": "order.paid", "data": {} }),
            "unknown_system_event_type",
        ),
        (
            json!({ "environment": "live", "type": "webhook.attempt_exhausted", "data": {} }),
            "unknown_system_event_type",
        ),
        (
            json!({ "environment": "live", "type": "email.bounced", "data": { "bounce_type": "lost" } }),
            "schema_violation",
        ),
    ] {
        let (status, answer) = op.try_call("POST", &path, Some(&body)).unwrap();
        assert_eq!(
            (status, answer["code"].as_str()),
            (422, Some(code)),
            "{answer}"
        );
    }
    let wanted: HashSet<(String, String)> = [("/named".to_string(), "sys_1".to_string())].into();
    let got = sink
        .wait_for_all(
            &wanted,
            path_and_id,
            Instant::now() + Duration::from_secs(30),
        )
        .unwrap_or_else(|e| panic!("{e}\n{}", relay.log_tail(20)));
    let ce = body_of(deliveries(&got, "/named", "sys_1")[0]);
    assert_eq!(ce["type"], "email.bounced");
    assert!(
        ce.get("dataschema").is_none(),
        "thin: a projection names no schema: {ce}"
    );
    assert_eq!(
        ce["data"],
        json!({ "notification_id": "ntf_1", "delivery_id": "dlv_1",
                "recipient_external_id": "user_42", "workflow_key": "order-updates",
                "bounce_type": "hard" }),
        "thin: the ids and the bounce type, no address"
    );
    // Only the endpoint that names it has a message: not the tenant's `*`,
    // not a customer's.
    let event = t.api.get("/v1/events/sys_1");
    assert_eq!(event["messages"].as_array().unwrap().len(), 1, "{event}");
    relay.assert_no_panic();
}

/// Issue 40, point 1: a tenant's event type without thin fields reaches an
/// endpoint that chose nothing whole (minus personal data), never as `{}`;
/// and `dataschema`, when present, names a schema of the catalog that the
/// delivered `data` satisfies, for every shape.
#[test]
fn every_delivered_payload_satisfies_the_schema_its_dataschema_names() {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay = start(&Settings::new(dir.path(), &sink));
    let t = tenant(&relay.url, "schemas");
    let api = &t.api;
    // Strict: every field required, nothing else allowed, so a projection
    // can never pass for the whole.
    let strict = json!({
        "type": "object",
        "required": ["id", "email", "total"],
        "additionalProperties": false,
        "properties": {
            "id": { "type": "string" },
            "email": { "type": "string" },
            "total": { "type": "integer" }
        }
    });
    let types = [
        ("open.made", json!([]), json!([])),
        ("plain.made", json!([]), json!(["/email"])),
        ("thin.made", json!(["/id"]), json!(["/email"])),
    ];
    for (name, thin, personal) in &types {
        let (status, body) = api
            .try_call(
                "PUT",
                &format!("/v1/event-types/{name}"),
                Some(&json!({
                    "schema": strict, "thin_fields": thin, "personal_data_fields": personal,
                })),
            )
            .unwrap();
        assert!(status == 200 || status == 201, "{status} {body}");
    }
    let shapes = [
        ("/default", json!({})),
        ("/pii", json!({ "allow_personal_data": true })),
        ("/snap", json!({ "snapshot_fields": ["/total"] })),
        ("/all", json!({ "snapshot_fields": ["*"] })),
        (
            "/allpii",
            json!({ "snapshot_fields": ["*"], "allow_personal_data": true }),
        ),
    ];
    for (path, extra) in &shapes {
        let mut body = json!({
            "consumer_id": t.consumer_id,
            "destination": { "kind": "https", "url": sink.receiver.url(path) },
            "event_types": types.iter().map(|t| t.0).collect::<Vec<_>>(),
        });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (s, e) = api.try_call("POST", "/v1/endpoints", Some(&body)).unwrap();
        assert_eq!(s, 201, "{e}");
    }
    let data = json!({ "id": "x1", "email": "ann@example.com", "total": 3 });
    for (name, _, _) in &types {
        api.expect(
            "POST",
            "/v1/events",
            Some(&json!({
                "id": format!("ev_{name}"), "type": name, "data": data,
                "consumer_id": t.consumer_id,
            })),
            202,
        );
    }
    let wanted: HashSet<(String, String)> = shapes
        .iter()
        .flat_map(|(p, _)| {
            types
                .iter()
                .map(move |(n, _, _)| (p.to_string(), format!("ev_{n}")))
        })
        .collect();
    let got = sink
        .wait_for_all(
            &wanted,
            path_and_id,
            Instant::now() + Duration::from_secs(30),
        )
        .unwrap_or_else(|e| panic!("deliveries missing: {e}\n{}", relay.log_tail(20)));
    let seen = |path: &str, name: &str| -> Value {
        let ce = body_of(deliveries(&got, path, &format!("ev_{name}"))[0]);
        match ce.get("dataschema").and_then(Value::as_str) {
            Some(uri) => {
                let (type_name, version) = uri
                    .strip_prefix("urn:relay:event-type:")
                    .and_then(|r| r.rsplit_once(":v"))
                    .unwrap_or_else(|| panic!("an unknown dataschema {uri}"));
                let et = api.get(&format!("/v1/event-types/{type_name}"));
                let schema = et["versions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|v| {
                        v["version"].as_i64().map(|n| n.to_string()).as_deref() == Some(version)
                    })
                    .unwrap_or_else(|| panic!("{uri} is not in the catalog: {et}"))["schema"]
                    .clone();
                let validator = jsonschema::validator_for(&schema).unwrap();
                assert!(
                    validator.is_valid(&ce["data"]),
                    "{path} {name}: the data does not satisfy {uri}: {ce}"
                );
                json!({ "schema": uri, "data": ce["data"] })
            }
            None => json!({ "schema": null, "data": ce["data"] }),
        }
    };
    let named = |name: &str| format!("urn:relay:event-type:{name}:v1");
    // No thin fields, no personal data: the endpoint that chose nothing gets
    // the whole payload (the README's quickstart case), with its schema.
    assert_eq!(
        seen("/default", "open.made"),
        json!({ "schema": named("open.made"), "data": data })
    );
    // No thin fields: whole minus personal data, which no schema names.
    assert_eq!(
        seen("/default", "plain.made"),
        json!({ "schema": null, "data": { "id": "x1", "total": 3 } })
    );
    assert_eq!(
        seen("/pii", "plain.made"),
        json!({ "schema": named("plain.made"), "data": data })
    );
    // Thin fields: thin by default.
    assert_eq!(
        seen("/default", "thin.made"),
        json!({ "schema": null, "data": { "id": "x1" } })
    );
    assert_eq!(
        seen("/pii", "thin.made"),
        json!({ "schema": null, "data": { "id": "x1" } })
    );
    for name in ["open.made", "plain.made"] {
        assert_eq!(
            seen("/snap", name),
            json!({ "schema": null, "data": { "total": 3 } }),
            "{name}"
        );
    }
    assert_eq!(
        seen("/snap", "thin.made"),
        json!({ "schema": null, "data": { "id": "x1", "total": 3 } })
    );
    assert_eq!(
        seen("/all", "thin.made"),
        json!({ "schema": null, "data": { "id": "x1", "total": 3 } })
    );
    assert_eq!(
        seen("/all", "open.made"),
        json!({ "schema": named("open.made"), "data": data })
    );
    for name in ["open.made", "plain.made", "thin.made"] {
        assert_eq!(
            seen("/allpii", name),
            json!({ "schema": named(name), "data": data }),
            "{name}"
        );
    }
    relay.assert_no_panic();
}
