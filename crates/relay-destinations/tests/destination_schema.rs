//! `Destination`'s OpenAPI schema, derived from the kinds' configuration
//! types (`relay-destinations/src/schema.rs`), against the types
//! themselves: every kind's example is accepted, unknown fields and values
//! of the wrong type are refused at every level, whatever the schema
//! accepts the API's deserialization accepts too (the schema may be
//! stricter: bounds are checked at registration, not by serde), and the
//! schema's defaults are what deserialization fills in.

use relay_destinations::Config;
use relay_destinations::s3::{S3_MAX_BYTES, S3_MAX_EVENTS, S3_MAX_WAIT_SECONDS};
use relay_destinations::service_bus::SERVICE_BUS_MAX_MESSAGE_BYTES;
use relay_destinations::sns::SNS_MAX_MESSAGE_BYTES;
use relay_destinations::sqs::SQS_MAX_MESSAGE_BYTES;
use serde_json::{Map, Value, json};

/// The derived components, by name, as the OpenAPI document carries them.
fn components() -> Map<String, Value> {
    relay_destinations::components()
        .into_iter()
        .map(|(name, schema)| (name, serde_json::to_value(schema).unwrap()))
        .collect()
}

/// `Destination`'s schema, its references resolving as in the document.
fn derived() -> Value {
    json!({
        "$ref": "#/components/schemas/Destination",
        "components": {"schemas": components()},
    })
}

/// The kinds' schemas, in `Destination`'s order.
fn members() -> Vec<Value> {
    let components = components();
    components["Destination"]["oneOf"]
        .as_array()
        .expect("a oneOf")
        .iter()
        .map(|m| {
            let name = m["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
                .expect("a member is a reference");
            components[name].clone()
        })
        .collect()
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).expect("the schema compiles")
}

fn serde_accepts(value: &Value) -> bool {
    serde_json::from_value::<Config>(value.clone()).is_ok()
}

/// Every kind with every field set, and with only its required fields.
fn examples() -> Vec<Value> {
    vec![
        json!({"kind": "https", "url": "https://hooks.example/in",
            "auth": {
                "client_certificate": {"chain": "secret:chain", "key": "file:/run/hooks.key"},
                "oauth2": {"token_url": "https://auth.example/token", "client_id": "relay",
                    "client_secret": "env:OAUTH", "scopes": ["read", "write"],
                    "audience": "api", "method": "client_secret_post"}},
            "headers": [{"name": "X-Team", "value": "core"}, {"name": "X-Key", "secret": "secret:hdr"}]}),
        json!({"kind": "https", "url": "https://hooks.example/in"}),
        json!({"kind": "https", "url": "https://client.example/push", "a2a_push": {
            "task_id": "task-1", "token": "secret:tok",
            "authentication": {"scheme": "Bearer", "credentials": "secret:cred"}}}),
        json!({"kind": "https", "url": "https://client.example/push", "a2a_push": {"task_id": "t"}}),
        json!({"kind": "https", "url": "https://hooks.example/in", "auth": {"oauth2": {
            "token_url": "https://auth.example/token", "client_id": "relay", "client_secret": "env:OAUTH"}}}),
        json!({"kind": "redis_stream", "host": "redis.internal", "port": 6380, "tls": true,
            "database": 2, "stream": "events", "max_len": 1000, "username": "relay",
            "password": "secret:redis", "content_mode": "binary",
            "wait_aof": {"local": 0, "replicas": 1, "timeout_ms": 500}}),
        json!({"kind": "redis_stream", "host": "redis.internal", "stream": "events"}),
        json!({"kind": "redis_stream", "host": "redis.internal", "stream": "events", "wait_aof": {}}),
        json!({"kind": "nats_jetstream", "host": "nats.internal", "port": 4223, "tls": true,
            "subject": "orders.{event_type}", "stream": "ORDERS", "username": "relay",
            "password": "secret:nats", "token": "env:NATS_TOKEN", "content_mode": "binary"}),
        json!({"kind": "nats_jetstream", "host": "nats.internal", "subject": "orders"}),
        json!({"kind": "rabbitmq", "host": "mq.internal", "port": 5671, "tls": true,
            "virtual_host": "/prod", "exchange": "events", "routing_key": "{event_type}.{environment}",
            "username": "relay", "password": "secret:amqp", "content_mode": "binary"}),
        json!({"kind": "rabbitmq", "host": "mq.internal", "exchange": ""}),
        json!({"kind": "mqtt", "host": "mqtt.internal", "port": 8883, "tls": true,
            "topic": "relay/{event_type}", "protocol_version": "3.1.1", "client_id": "relay-1",
            "username": "relay", "password": "secret:mqtt", "content_mode": "structured"}),
        json!({"kind": "mqtt", "host": "mqtt.internal", "topic": "relay"}),
        json!({"kind": "kafka", "bootstrap": [{"host": "k1.internal", "port": 9093}, {"host": "k2.internal"}],
            "topic": "orders.v1", "content_mode": "binary", "tls": true,
            "client_certificate": "secret:kc", "client_key": "secret:kk",
            "sasl": {"mechanism": "SCRAM-SHA-512", "username": "relay", "password": "secret:sasl"}}),
        json!({"kind": "kafka", "bootstrap": [{"host": "k1.internal"}], "topic": "orders"}),
        json!({"kind": "s3", "bucket": "relay-archive", "prefix": "relay/orders/", "region": "eu-west-1",
            "endpoint_url": "https://minio.internal.example:9000", "addressing": "virtual_host",
            "access_key_id": "secret:ak", "secret_access_key": "secret:sk", "session_token": "env:TOKEN",
            "batch": {"max_events": 100, "max_bytes": 2048, "max_wait_seconds": 5}, "compression": "gzip"}),
        json!({"kind": "s3", "bucket": "relay-archive", "region": "eu-west-1",
            "access_key_id": "secret:ak", "secret_access_key": "secret:sk"}),
        json!({"kind": "sqs", "queue_url": "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo",
            "region": "eu-west-1", "access_key_id": "secret:ak", "secret_access_key": "secret:sk",
            "session_token": "env:TOKEN", "content_mode": "binary", "max_message_bytes": 1048576}),
        json!({"kind": "sqs", "queue_url": "https://sqs.eu-west-1.amazonaws.com/123456789012/orders",
            "region": "eu-west-1", "access_key_id": "secret:ak", "secret_access_key": "secret:sk"}),
        json!({"kind": "pubsub", "topic": "projects/acme-prod/topics/orders",
            "endpoint": "https://europe-west1-pubsub.googleapis.com", "service_account_key": "secret:gcp",
            "token_url": "https://oauth2.googleapis.com/token", "ordered": true, "content_mode": "binary"}),
        json!({"kind": "pubsub", "topic": "projects/acme-prod/topics/orders",
            "service_account_key": "file:/run/secrets/gcp.json"}),
        json!({"kind": "sns", "topic_arn": "arn:aws:sns:eu-west-1:123456789012:orders.fifo",
            "endpoint_url": "https://sns.eu-west-1.amazonaws.com", "access_key_id": "secret:ak",
            "secret_access_key": "secret:sk", "session_token": "env:TOKEN", "content_mode": "binary",
            "max_message_bytes": 1048576}),
        json!({"kind": "sns", "topic_arn": "arn:aws:sns:eu-west-1:123456789012:orders",
            "access_key_id": "secret:ak", "secret_access_key": "secret:sk"}),
        json!({"kind": "eventbridge", "event_bus": "arn:aws:events:eu-west-1:123456789012:event-bus/orders",
            "region": "eu-west-1", "endpoint_url": "https://events.eu-west-1.amazonaws.com",
            "source": "com.acme.orders", "detail_type": "Order Shipped", "access_key_id": "secret:ak",
            "secret_access_key": "secret:sk", "session_token": "env:TOKEN"}),
        json!({"kind": "eventbridge", "event_bus": "default", "region": "eu-west-1",
            "source": "com.acme.orders", "role_arn": "arn:aws:iam::123456789012:role/relay"}),
        json!({"kind": "azure_service_bus", "namespace": "acme-prod.servicebus.windows.net",
            "entity": "orders", "auth": {"sas": {"key_name": "RootManageSharedAccessKey", "key": "secret:sb"}},
            "sessions": true, "content_mode": "binary", "max_message_bytes": 104857600}),
        json!({"kind": "azure_service_bus", "endpoint": "https://sb.internal.example:8443",
            "entity": "sales/orders", "auth": {"entra": {"tenant_id": "contoso.onmicrosoft.com",
            "client_id": "app", "client_secret": "env:SB_SECRET",
            "token_url": "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token"}}}),
    ]
}

/// A value of another JSON type than `value`'s.
fn wrong_type(value: &Value) -> Value {
    match value {
        Value::String(_) => json!(12),
        Value::Number(_) => json!("12"),
        Value::Bool(_) => json!("true"),
        Value::Array(_) => json!("a"),
        // Not an array: serde reads a struct from a sequence of its fields.
        Value::Object(_) => json!(7),
        Value::Null => json!(false),
    }
}

/// One change to an example, and what it is.
struct Mutation {
    what: String,
    value: Value,
    /// An unknown field added, or a value of the wrong type.
    always_wrong: bool,
}

/// Every object of `example` (the root, nested objects, the first item of
/// an array of objects) changed in every way `changes` knows, one at a time.
fn mutations(example: &Value) -> Vec<Mutation> {
    let mut out = Vec::new();
    walk(example, &[], &mut out);
    out
}

fn at<'a>(root: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(root, |v, k| match v {
        Value::Array(items) => &mut items[k.parse::<usize>().unwrap()],
        _ => &mut v[k.as_str()],
    })
}

/// `root` with the object at `path` changed by `f`.
fn changed(root: &Value, path: &[String], f: impl FnOnce(&mut Map<String, Value>)) -> Value {
    let mut value = root.clone();
    if let Value::Object(o) = at(&mut value, path) {
        f(o);
    }
    value
}

fn walk(root: &Value, path: &[String], out: &mut Vec<Mutation>) {
    let here = at(&mut root.clone(), path).clone();
    let Value::Object(object) = &here else { return };
    let add = |out: &mut Vec<Mutation>, what: String, value: Value, always_wrong: bool| {
        out.push(Mutation {
            what: format!("/{}: {what}", path.join("/")),
            value,
            always_wrong,
        });
    };
    let mut nested = Vec::new();
    add(
        out,
        "an unknown field".into(),
        changed(root, path, |o| {
            o.insert("unknown".into(), json!(1));
        }),
        true,
    );
    for (key, value) in object {
        let set = |v: Value| {
            changed(root, path, |o| {
                o.insert(key.clone(), v);
            })
        };
        add(
            out,
            format!("{key} removed"),
            changed(root, path, |o| {
                o.remove(key);
            }),
            false,
        );
        add(
            out,
            format!("{key} of the wrong type"),
            set(wrong_type(value)),
            true,
        );
        add(out, format!("{key} null"), set(Value::Null), false);
        match value {
            Value::String(_) => {
                for s in [
                    "",
                    "x",
                    "plain-value",
                    "secret:x",
                    "env:X",
                    "file:/x",
                    "5",
                    "3.1.1",
                    "structured",
                    "binary",
                    "gzip",
                    "virtual_host",
                    "PLAIN",
                    "client_secret_basic",
                    "https",
                    "s3",
                    "bad topic",
                    "a.b",
                    "$SYS",
                ] {
                    add(out, format!("{key} = {s:?}"), set(json!(s)), false);
                }
                for n in [64, 129, 250, 256, 257, 513, 1025, 2049] {
                    add(
                        out,
                        format!("{key} of {n} bytes"),
                        set(json!("a".repeat(n))),
                        false,
                    );
                }
            }
            Value::Number(_) => {
                for n in [
                    json!(-1),
                    json!(0),
                    json!(1),
                    json!(2),
                    json!(15),
                    json!(16),
                    json!(30),
                    json!(31),
                    json!(1023),
                    json!(1024),
                    json!(10000),
                    json!(10001),
                    json!(60000),
                    json!(60001),
                    json!(65535),
                    json!(65536),
                    json!(16777216),
                    json!(16777217),
                    json!(1.5),
                ] {
                    add(out, format!("{key} = {n}"), set(n), false);
                }
            }
            Value::Array(items) => {
                add(out, format!("{key} empty"), set(json!([])), false);
                if let Some(first) = items.first() {
                    for n in [17, 40] {
                        add(
                            out,
                            format!("{key} of {n}"),
                            set(json!(vec![first.clone(); n])),
                            false,
                        );
                    }
                    add(
                        out,
                        format!("{key} with a wrong item"),
                        set(json!([wrong_type(first)])),
                        true,
                    );
                    if first.is_object() {
                        nested.push(vec![key.clone(), "0".into()]);
                    }
                }
            }
            Value::Object(_) => nested.push(vec![key.clone()]),
            _ => {}
        }
    }
    for tail in nested {
        let inner: Vec<String> = path.iter().cloned().chain(tail).collect();
        walk(root, &inner, out);
    }
}

#[test]
fn every_kind_has_one_tagged_closed_member() {
    let components = components();
    let destination = &components["Destination"];
    let members = members();
    let mut titles: Vec<&str> = members
        .iter()
        .map(|m| m["title"].as_str().unwrap())
        .collect();
    let mapping = destination["discriminator"]["mapping"]
        .as_object()
        .expect("a discriminator mapping");
    assert_eq!(destination["discriminator"]["propertyName"], "kind");
    assert_eq!(mapping.len(), members.len());
    for (member, reference) in members.iter().zip(destination["oneOf"].as_array().unwrap()) {
        let kind = &member["title"];
        assert_eq!(
            member["properties"]["kind"]["enum"],
            json!([kind]),
            "{kind}: `kind` is its name"
        );
        assert_eq!(member["properties"]["kind"]["type"], "string");
        assert_eq!(member["required"][0], "kind", "{kind}: `kind` is required");
        assert_eq!(
            mapping[kind.as_str().unwrap()],
            reference["$ref"],
            "{kind}: the discriminator maps it to its member"
        );
        assert!(destination.get("allOf").is_none());
    }
    // Every object of the schema is closed, and no wrapper is left.
    fn closed(v: &Value, path: &str, faults: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if o.contains_key("properties")
                    && o.get("additionalProperties") != Some(&json!(false))
                {
                    faults.push(format!("{path} is open"));
                }
                if o.contains_key("allOf") || o.contains_key("$ref") {
                    faults.push(format!("{path} is a wrapper or a reference"));
                }
                for (k, v) in o {
                    closed(v, &format!("{path}/{k}"), faults);
                }
            }
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, v)| closed(v, &format!("{path}/{i}"), faults)),
            _ => {}
        }
    }
    let mut faults = Vec::new();
    for m in &members {
        closed(m, m["title"].as_str().unwrap(), &mut faults);
    }
    assert!(faults.is_empty(), "{faults:#?}");
    // Every kind is there once, and an example of each says which.
    let mut kinds: Vec<String> = examples()
        .iter()
        .map(|e| {
            let d: Config = serde_json::from_value(e.clone()).unwrap();
            assert_eq!(e["kind"], d.kind());
            d.kind().to_string()
        })
        .collect();
    kinds.dedup();
    titles.sort();
    kinds.sort();
    assert_eq!(titles, kinds);
}

#[test]
fn every_example_and_its_serialized_form_is_accepted() {
    let v = validator(&derived());
    for example in examples() {
        let d: Config = serde_json::from_value(example.clone()).expect("an example deserializes");
        let written = serde_json::to_value(&d).unwrap();
        for value in [&example, &written] {
            let errors: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{value}: {errors:?}");
        }
    }
}

#[test]
fn unknown_fields_and_wrong_types_are_refused_at_every_level() {
    let v = validator(&derived());
    let mut faults = Vec::new();
    let mut refused = 0;
    for example in examples() {
        for m in mutations(&example).into_iter().filter(|m| m.always_wrong) {
            refused += 1;
            if v.is_valid(&m.value) {
                faults.push(format!("{}: {} accepted", example["kind"], m.what));
            }
            if serde_accepts(&m.value) {
                faults.push(format!("{}: {} deserializes", example["kind"], m.what));
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
    assert!(refused > 120, "only {refused} cases");
}

#[test]
fn what_the_schema_accepts_deserializes() {
    let v = validator(&derived());
    let mut faults = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for example in examples() {
        for m in mutations(&example) {
            if v.is_valid(&m.value) {
                accepted += 1;
                if !serde_accepts(&m.value) {
                    faults.push(format!(
                        "{}: {} is accepted by the schema only",
                        example["kind"], m.what
                    ));
                }
            } else {
                refused += 1;
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
    assert!(
        accepted > 300 && refused > 300,
        "{accepted} accepted, {refused} refused"
    );
}

#[test]
fn the_object_storage_bounds_are_the_checks_bounds() {
    let members = members();
    let s3 = members.iter().find(|m| m["title"] == "s3").unwrap();
    let batch = &s3["properties"]["batch"]["properties"];
    for (field, (min, max)) in [
        (
            "max_events",
            (u64::from(S3_MAX_EVENTS.0), u64::from(S3_MAX_EVENTS.1)),
        ),
        ("max_bytes", S3_MAX_BYTES),
        (
            "max_wait_seconds",
            (
                u64::from(S3_MAX_WAIT_SECONDS.0),
                u64::from(S3_MAX_WAIT_SECONDS.1),
            ),
        ),
    ] {
        assert_eq!(
            batch[field]["minimum"].as_f64(),
            Some(min as f64),
            "{field}"
        );
        assert_eq!(
            batch[field]["maximum"].as_f64(),
            Some(max as f64),
            "{field}"
        );
    }
}

#[test]
fn the_queue_size_bounds_are_the_checks_bounds() {
    let members = members();
    for (kind, (lo, hi)) in [
        ("sqs", SQS_MAX_MESSAGE_BYTES),
        ("sns", SNS_MAX_MESSAGE_BYTES),
    ] {
        let member = members.iter().find(|m| m["title"] == kind).unwrap();
        let field = &member["properties"]["max_message_bytes"];
        assert_eq!(field["minimum"].as_f64(), Some(f64::from(lo)), "{kind}");
        assert_eq!(field["maximum"].as_f64(), Some(f64::from(hi)), "{kind}");
    }
}

#[test]
fn the_service_bus_size_bounds_are_the_checks_bounds() {
    let members = members();
    let sb = members
        .iter()
        .find(|m| m["title"] == "azure_service_bus")
        .unwrap();
    let field = &sb["properties"]["max_message_bytes"];
    assert_eq!(
        field["minimum"].as_f64(),
        Some(f64::from(SERVICE_BUS_MAX_MESSAGE_BYTES.0))
    );
    assert_eq!(
        field["maximum"].as_f64(),
        Some(f64::from(SERVICE_BUS_MAX_MESSAGE_BYTES.1))
    );
}

/// Checks every `default` of `schema` against what deserializing `given`
/// wrote for a field `given` leaves out; the number of defaults checked.
fn defaults_hold(
    schema: &Value,
    given: &Value,
    written: &Value,
    path: &str,
    faults: &mut Vec<String>,
) -> usize {
    let mut checked = 0;
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let (g, w) = (&given[name.as_str()], &written[name.as_str()]);
        let here = format!("{path}/{name}");
        if let Some(default) = property.get("default")
            && g.is_null()
        {
            checked += 1;
            if w != default {
                faults.push(format!(
                    "{here}: the schema says {default}, serde gives {w}"
                ));
            }
        }
        if w.is_object() {
            checked += defaults_hold(property, g, w, &here, faults);
        }
        if let Some(items) = w.as_array() {
            for (i, item) in items.iter().enumerate() {
                checked += defaults_hold(
                    &property["items"],
                    &g[i],
                    item,
                    &format!("{here}/{i}"),
                    faults,
                );
            }
        }
    }
    checked
}

#[test]
fn the_schema_defaults_are_what_deserialization_fills_in() {
    let members = members();
    let mut faults = Vec::new();
    let mut checked = 0;
    for example in examples() {
        let d: Config = serde_json::from_value(example.clone()).unwrap();
        let written = serde_json::to_value(&d).unwrap();
        let member = members
            .iter()
            .find(|m| m["title"] == example["kind"])
            .unwrap();
        let kind = example["kind"].as_str().unwrap();
        checked += defaults_hold(member, &example, &written, kind, &mut faults);
    }
    assert!(faults.is_empty(), "{faults:#?}");
    assert!(checked >= 32, "only {checked} defaults checked");
}
