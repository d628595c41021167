//! `Destination`'s OpenAPI schema, derived from the kinds' configuration
//! types (`relay-core/src/model/destination_schema.rs`), against the types
//! themselves: every kind's example is accepted, unknown fields and values
//! of the wrong type are refused at every level, and whatever the schema
//! accepts the API's deserialization accepts too (the schema may be
//! stricter: bounds are checked at registration, not by serde).

use relay_core::model::{Destination, S3_MAX_BYTES, S3_MAX_EVENTS, S3_MAX_WAIT_SECONDS};
use serde_json::{Map, Value, json};
use utoipa::PartialSchema;

/// The derived schema, as the OpenAPI document carries it.
fn derived() -> Value {
    serde_json::to_value(Destination::schema()).unwrap()
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).expect("the schema compiles")
}

fn serde_accepts(value: &Value) -> bool {
    serde_json::from_value::<Destination>(value.clone()).is_ok()
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
        json!({"kind": "redis_stream", "host": "redis.internal", "port": 6380, "tls": true,
            "database": 2, "stream": "events", "max_len": 1000, "username": "relay",
            "password": "secret:redis", "content_mode": "binary",
            "wait_aof": {"local": 0, "replicas": 1, "timeout_ms": 500}}),
        json!({"kind": "redis_stream", "host": "redis.internal", "stream": "events"}),
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
    let schema = derived();
    let members = schema["oneOf"].as_array().expect("a oneOf");
    let mut titles: Vec<&str> = members
        .iter()
        .map(|m| m["title"].as_str().unwrap())
        .collect();
    for member in members {
        let kind = &member["title"];
        assert_eq!(
            member["properties"]["kind"],
            json!({"type": "string", "enum": [kind]})
        );
        assert_eq!(member["required"][0], "kind", "{kind}: `kind` is required");
        assert!(schema.get("allOf").is_none());
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
    for m in members {
        closed(m, m["title"].as_str().unwrap(), &mut faults);
    }
    assert!(faults.is_empty(), "{faults:#?}");
    // Every kind is there once, and an example of each says which.
    let mut kinds: Vec<String> = examples()
        .iter()
        .map(|e| {
            let d: Destination = serde_json::from_value(e.clone()).unwrap();
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
        let d: Destination =
            serde_json::from_value(example.clone()).expect("an example deserializes");
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
    let schema = derived();
    let s3 = schema["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["title"] == "s3")
        .unwrap();
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

// ---------------------------------------------------------------------------
// Migration (issue 41): the derived schema says what the hand-written one
// said. The hand-written schema, as it was in `model/destination.rs` and
// `model/object_storage.rs`, is kept here only until this has passed once.

/// The hand-written schema (was `model/destination.rs`).
fn hand_written() -> Value {
    let schema = serde_json::json!({
        "description": "Where an endpoint's messages go, by `kind`. New kinds (brokers, queues, object storage) are new variants; the endpoint object keeps its shape.",
        "oneOf": [{
            "type": "object",
            "title": "https",
            "description": "An HTTPS URL that receives each message as a signed POST.",
            "properties": {
                "kind": {"type": "string", "enum": ["https"]},
                "url": {"type": "string"},
                "auth": {
                    "type": ["object", "null"],
                    "description": "Client authentication besides the signature; `null` or absent: none. See docs/destinations.md.",
                    "properties": {
                        "client_certificate": {
                            "type": ["object", "null"],
                            "description": "Mutual TLS: the certificate chain and private key Relay presents when the receiver asks for a client certificate. Both are secret references, never the PEM itself; at registration they must resolve, the chain must be PEM certificates (leaf first), the key an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC) matching the leaf.",
                            "properties": {
                                "chain": {
                                    "type": "string",
                                    "pattern": "^(secret:|env:|file:/)",
                                    "description": "A secret reference to the PEM certificate chain, the leaf first."
                                },
                                "key": {
                                    "type": "string",
                                    "pattern": "^(secret:|env:|file:/)",
                                    "description": "A secret reference to the leaf's PEM private key."
                                }
                            },
                            "required": ["chain", "key"],
                            "additionalProperties": false
                        },
                        "oauth2": {
                            "type": ["object", "null"],
                            "description": "OAuth 2.0 client credentials (RFC 6749 section 4.4): Relay fetches a token from `token_url` (through the outbound guard, like the endpoint), caches it until shortly before it expires, and sends `Authorization: Bearer <token>` with every request; a `401` from the endpoint fetches a new token and tries once more in the same attempt. Cannot be combined with a custom `Authorization` header.",
                            "properties": {
                                "token_url": {"type": "string", "maxLength": 2048, "description": "The token endpoint: `https://`, a port the operator allows, no credentials in it."},
                                "client_id": {"type": "string", "minLength": 1, "maxLength": 256, "description": "Printable ASCII (RFC 6749 VSCHAR)."},
                                "client_secret": {
                                    "type": "string",
                                    "pattern": "^(secret:|env:|file:/)",
                                    "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the client secret, never the secret itself. See docs/secrets.md."
                                },
                                "scopes": {"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": 128}, "description": "Scope tokens (RFC 6749 NQCHAR, no spaces), sent space-separated as `scope`; default none."},
                                "audience": {"type": ["string", "null"], "minLength": 1, "maxLength": 512, "description": "Sent as the `audience` parameter when set (printable ASCII)."},
                                "method": {"type": "string", "enum": ["client_secret_basic", "client_secret_post"], "description": "`client_secret_basic` (default): HTTP Basic with the form-urlencoded id and secret; `client_secret_post`: both in the form body."}
                            },
                            "required": ["token_url", "client_id", "client_secret"],
                            "additionalProperties": false
                        }
                    },
                    "additionalProperties": false
                },
                "headers": {
                    "type": "array",
                    "maxItems": 10,
                    "description": "Static headers sent with every request, in order. Each has a `name` (an HTTP token, at most 256 bytes, unique ignoring case) and exactly one of `value` (printable ASCII, at most 1024 bytes, no leading or trailing space) or `secret` (a secret reference to the value, which must satisfy the same rule once resolved). They cannot set `Host`, `Content-Type`, `Content-Length`, `Content-Encoding`, hop-by-hop headers (`Connection`, `Transfer-Encoding`, `TE`, `Trailer`, `Upgrade`, `Keep-Alive`, `Expect`, `Proxy-*`), the Standard Webhooks headers (`webhook-*`) or Relay's own (`relay-*`). Absent when empty.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "minLength": 1, "maxLength": 256},
                            "value": {"type": "string", "maxLength": 1024},
                            "secret": {
                                "type": "string",
                                "pattern": "^(secret:|env:|file:/)",
                                "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the header's value, never the value itself. See docs/secrets.md."
                            }
                        },
                        "required": ["name"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["kind", "url"],
            "additionalProperties": false
        }, {
            "type": "object",
            "title": "redis_stream",
            "description": "A Redis stream: each message is one entry added with XADD (the CloudEvent in the `body` field, structured or binary by `content_mode`, the Standard Webhooks values in their own fields); the entry id Redis answers is the acknowledgement. See docs/destinations.md for what Redis durability means.",
            "properties": {
                "kind": {"type": "string", "enum": ["redis_stream"]},
                "host": {"type": "string", "description": "A host name or IP address, checked by the outbound guard at registration and at every connect."},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 6379; the operator's `allow_ports` must include it."},
                "tls": {"type": "boolean", "description": "Connect with TLS (default false)."},
                "database": {"type": ["integer", "null"], "minimum": 0, "maximum": 15, "description": "SELECT this database first (default: none, database 0)."},
                "stream": {"type": "string", "minLength": 1, "maxLength": 256, "description": "The stream key."},
                "max_len": {"type": ["integer", "null"], "minimum": 1, "description": "Trim with `MAXLEN ~ max_len` on each XADD."},
                "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON in `body`; `binary`: `data` in `body` and each context attribute in a field `ce-<name>`."},
                "wait_aof": {
                    "type": ["object", "null"],
                    "description": "Send `WAITAOF local replicas timeout_ms` after each XADD (Redis 7.2+) and count the delivery only when the server confirms the fsyncs asked for; fewer is retried, a server without WAITAOF (or `local: 1` with `appendonly no`) dead-letters the message as `invalid_destination`. Default: none (the XADD reply alone).",
                    "properties": {
                        "local": {"type": "integer", "enum": [0, 1], "description": "1 (default): the server's own AOF must be fsynced."},
                        "replicas": {"type": "integer", "minimum": 0, "description": "Replicas whose AOF must be fsynced (default 0)."},
                        "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 60000, "description": "How long the server waits (default 1000)."}
                    },
                    "additionalProperties": false
                },
                "username": {"type": ["string", "null"], "description": "The ACL user (Redis 6+) to `AUTH` as; needs `password`."},
                "password": {
                    "type": ["string", "null"],
                    "pattern": "^(secret:|env:|file:/)",
                    "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never the password itself: Relay sends `AUTH [username] password` on every new connection. See docs/secrets.md."
                }
            },
            "required": ["kind", "host", "stream"],
            "additionalProperties": false
        }, {
            "type": "object",
            "title": "nats_jetstream",
            "description": "A NATS JetStream subject: each message is one JetStream publish (the CloudEvent structured or binary by `content_mode`, the Standard Webhooks values as NATS headers, `Nats-Msg-Id` the event id); the PubAck naming the stream and sequence is the acknowledgement. See docs/destinations.md.",
            "properties": {
                "kind": {"type": "string", "enum": ["nats_jetstream"]},
                "host": {"type": "string", "description": "A host name or IP address, checked by the outbound guard at registration and at every connect."},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 4222; the operator's `allow_ports` must include it."},
                "tls": {"type": "boolean", "description": "Upgrade to TLS after the server's INFO (default false)."},
                "subject": {"type": "string", "minLength": 1, "maxLength": 256, "description": "The subject published to: dot-separated tokens, each a literal (printable ASCII without `*`, `>`, `{`, `}`) or a whole-token placeholder `{event_type}`, `{environment}`, `{ordering_key}` (the event's ordering key, else its subject, as one token: bytes a token may not hold written `%XX`; `_` when it has neither); the first token does not start with `$`."},
                "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON as the payload (`content-type: application/cloudevents+json`); `binary`: `data` as the payload and each context attribute as a header `ce-<name>` (the CloudEvents NATS binding; values percent-encoded), `content-type` = `datacontenttype`."},
                "stream": {"type": ["string", "null"], "minLength": 1, "maxLength": 256, "description": "The stream the subject must be bound to (sent as `Nats-Expected-Stream`); a publish that lands elsewhere is refused."},
                "username": {"type": ["string", "null"], "description": "The NATS user to connect as; needs `password`."},
                "password": {
                    "type": ["string", "null"],
                    "pattern": "^(secret:|env:|file:/)",
                    "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the user's password, never the password itself. See docs/secrets.md."
                },
                "token": {
                    "type": ["string", "null"],
                    "pattern": "^(secret:|env:|file:/)",
                    "description": "A secret reference to an authentication token (instead of `username` and `password`), never the token itself."
                }
            },
            "required": ["kind", "host", "subject"],
            "additionalProperties": false
        }, {
            "type": "object",
            "title": "rabbitmq",
            "description": "A RabbitMQ (AMQP 0-9-1) exchange: each message is one persistent publish with `mandatory` set, on a channel in confirm mode; the broker's `basic.ack` of that publish is the acknowledgement, a `basic.nack` a failure, a `basic.return` (unroutable) not a success. The Standard Webhooks values are message headers. See docs/destinations.md.",
            "properties": {
                "kind": {"type": "string", "enum": ["rabbitmq"]},
                "host": {"type": "string", "description": "A host name or IP address, checked by the outbound guard at registration and at every connect."},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 5672; the operator's `allow_ports` must include it."},
                "tls": {"type": "boolean", "description": "Connect with TLS (default false; usually port 5671)."},
                "virtual_host": {"type": "string", "minLength": 1, "maxLength": 255, "description": "Default `/`."},
                "exchange": {"type": "string", "maxLength": 255, "description": "The exchange published to; `\"\"` is the default exchange (the routing key names a queue)."},
                "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON as the body (`application/cloudevents+json`); `binary`: `data` as the body, `content-type` = `datacontenttype`, and each other context attribute as a header `cloudEvents_<name>` (the CloudEvents AMQP binding)."},
                "routing_key": {"type": "string", "description": "The routing key, a template: `{event_type}` (the event type), `{environment}` (`live` or `test`) and `{ordering_key}` (the event's ordering key, else its subject) are filled in per message, `{{` and `}}` are literal braces; at most 255 bytes once filled in. Default `{event_type}`."},
                "username": {"type": ["string", "null"], "description": "The user to log in as (PLAIN); needs `password`. Both `null`: the broker's default `guest`/`guest`."},
                "password": {
                    "type": ["string", "null"],
                    "pattern": "^(secret:|env:|file:/)",
                    "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never the password itself; needs `username`. See docs/secrets.md."
                }
            },
            "required": ["kind", "host", "exchange"],
            "additionalProperties": false
        }, {
            "type": "object",
            "title": "mqtt",
            "description": "An MQTT topic (MQTT 5 or 3.1.1): each message is one QoS 1 PUBLISH; the broker's PUBACK of that very packet identifier is the acknowledgement (MQTT 5: a reason code of 0x80 or more is a failure; 0x10 \"no matching subscribers\" is a success). MQTT 5 carries the Standard Webhooks values as user properties; MQTT 3.1.1 has no properties and carries no signature. See docs/destinations.md.",
            "properties": {
                "kind": {"type": "string", "enum": ["mqtt"]},
                "host": {"type": "string", "description": "A host name or IP address, checked by the outbound guard at registration and at every connect."},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 1883; with TLS usually 8883. The operator's `allow_ports` must include it."},
                "tls": {"type": "boolean", "description": "Connect with TLS (default false)."},
                "topic": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "The topic published to, a template: `{event_type}`, `{environment}` (`live` or `test`) and `{ordering_key}` (the event's ordering key, else its subject) are filled in per message, `{{` and `}}` are literal braces. No wildcards (`+`, `#`), no NUL, not starting with `$`."},
                "protocol_version": {"type": "string", "enum": ["5", "3.1.1"], "description": "Default `5`. MQTT 3.1.1 allows only `structured` content mode and carries no signature values (no properties)."},
                "client_id": {"type": ["string", "null"], "minLength": 1, "maxLength": 128, "description": "The connection's client identifier (printable ASCII without spaces); `null` (default): `relay` and 18 random hex digits, new per connection. Two connections with one identifier take each other over: leave it `null` when several Relay processes deliver."},
                "username": {"type": ["string", "null"], "minLength": 1, "maxLength": 256, "description": "The user name sent in CONNECT."},
                "password": {
                    "type": ["string", "null"],
                    "pattern": "^(secret:|env:|file:/)",
                    "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never the password itself; needs `username`. See docs/secrets.md."
                },
                "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON as the payload (MQTT 5: content type `application/cloudevents+json`); `binary` (MQTT 5 only): `data` as the payload, the content type property = `datacontenttype`, and each other context attribute as a user property of its own name (the CloudEvents MQTT binding)."}
            },
            "required": ["kind", "host", "topic"],
            "additionalProperties": false
        }, {
            "type": "object",
            "title": "kafka",
            "description": "A Kafka topic: each message is one record keyed by the message's ordering key (so one key's events go to one partition), produced with `acks=all` by an idempotent producer; the delivery report of that record is the acknowledgement. The Standard Webhooks values are record headers. Every broker the cluster advertises is checked by the outbound guard. See docs/destinations.md.",
            "properties": {
                "kind": {"type": "string", "enum": ["kafka"]},
                "bootstrap": {
                    "type": "array", "minItems": 1, "maxItems": 16,
                    "description": "The bootstrap brokers, checked by the outbound guard at registration and at every connect, as is every broker the cluster's metadata advertises.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "host": {"type": "string", "description": "A host name or IP address."},
                            "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "Default 9092; the operator's `allow_ports` must include it (and every advertised broker's port)."}
                        },
                        "required": ["host"],
                        "additionalProperties": false
                    }
                },
                "topic": {"type": "string", "minLength": 1, "maxLength": 249, "pattern": "^[A-Za-z0-9._-]+$", "description": "The topic every record goes to (not `.` or `..`)."},
                "content_mode": {"type": "string", "enum": ["structured", "binary"], "description": "`structured` (default): the CloudEvents JSON as the value (`content-type: application/cloudevents+json; charset=UTF-8`); `binary`: `data` as the value, `content-type` = `datacontenttype`, and each other context attribute as a header `ce_<name>` (the CloudEvents Kafka binding)."},
                "tls": {"type": "boolean", "description": "Connect with TLS (default false)."},
                "client_certificate": {"type": "string", "pattern": "^(secret:|env:|file:/)", "description": "With `tls`: the client certificate (PEM, its chain after it) presented in the handshake, as a secret reference. Needs `client_key`."},
                "client_key": {"type": "string", "pattern": "^(secret:|env:|file:/)", "description": "The client certificate's private key (PEM), as a secret reference, never the key itself. Needs `client_certificate`."},
                "sasl": {
                    "type": ["object", "null"],
                    "description": "SASL authentication (default none).",
                    "properties": {
                        "mechanism": {"type": "string", "enum": ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]},
                        "username": {"type": "string", "minLength": 1, "maxLength": 256},
                        "password": {"type": "string", "pattern": "^(secret:|env:|file:/)", "description": "A secret reference (`secret:NAME`, `env:NAME` or `file:/path`), never the password itself. See docs/secrets.md."}
                    },
                    "required": ["mechanism", "username", "password"],
                    "additionalProperties": false
                }
            },
            "required": ["kind", "bootstrap", "topic"],
            "additionalProperties": false
        }]
    });
    let mut schema = schema;
    schema["oneOf"]
        .as_array_mut()
        .unwrap()
        .push(hand_written_s3());
    schema
}

/// The hand-written `s3` member (was `model/object_storage.rs`).
fn hand_written_s3() -> serde_json::Value {
    let reference = |what: &str| {
        serde_json::json!({
            "type": "string",
            "pattern": "^(secret:|env:|file:/)",
            "description": format!("A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the {what}, never the value itself. See docs/destinations.md.")
        })
    };
    let mut token =
        reference("session token (temporary credentials), sent as `x-amz-security-token`");
    token["type"] = serde_json::json!(["string", "null"]);
    serde_json::json!({
        "type": "object",
        "title": "s3",
        "description": "A bucket of an S3-compatible object storage service. Messages are written in batches (by count, size or time) as JSON Lines of CloudEvents structured JSON, one object per batch named after the batch id, so rewriting a batch writes the same bytes to the same object; the object write acknowledgement (`200` with an ETag) is the success of every message of the batch. The object is signed as a whole (Standard Webhooks values in its metadata). See docs/destinations.md.",
        "properties": {
            "kind": {"type": "string", "enum": ["s3"]},
            "bucket": {"type": "string", "minLength": 3, "maxLength": 63, "description": "The bucket: lower-case letters, digits, `.` and `-`, starting and ending with a letter or digit, not an IP address."},
            "prefix": {"type": "string", "maxLength": 512, "description": "Prepended to every object name (default empty), e.g. `relay/orders/`: S3's safe characters `A-Z a-z 0-9 ! - _ . * ' ( ) /` and `=`; not starting with `/`, no empty, `.` or `..` segment."},
            "region": {"type": "string", "minLength": 1, "maxLength": 64, "description": "The region requests are signed for (AWS Signature Version 4): lower-case letters, digits and `-` (e.g. `eu-west-1`; `us-east-1` for most other services, `auto` for R2)."},
            "endpoint_url": {"type": ["string", "null"], "description": "The service's `https://` URL without a path (e.g. `https://minio.internal.example:9000`); `null` (default): AWS S3, `https://s3.<region>.amazonaws.com`. Checked by the outbound guard at registration and at every connection; redirects are never followed."},
            "addressing": {"type": "string", "enum": ["path", "virtual_host"], "description": "`path` (default): `https://host/bucket/key`, answered by every S3-compatible service; `virtual_host`: `https://bucket.host/key` (the bucket must then be a single DNS label, without `.`)."},
            "access_key_id": reference("access key id"),
            "secret_access_key": reference("secret access key"),
            "session_token": token,
            "batch": {
                "type": "object",
                "description": "A batch is closed and written once it holds `max_events` events or `max_bytes` bytes of JSON Lines, or its first event has waited `max_wait_seconds`.",
                "properties": {
                    "max_events": {"type": "integer", "minimum": S3_MAX_EVENTS.0, "maximum": S3_MAX_EVENTS.1, "description": "Default 500."},
                    "max_bytes": {"type": "integer", "minimum": S3_MAX_BYTES.0, "maximum": S3_MAX_BYTES.1, "description": "Bytes of JSON Lines before compression; default 4194304 (4 MiB)."},
                    "max_wait_seconds": {"type": "integer", "minimum": S3_MAX_WAIT_SECONDS.0, "maximum": S3_MAX_WAIT_SECONDS.1, "description": "Default 10."}
                },
                "additionalProperties": false
            },
            "compression": {"type": "string", "enum": ["none", "gzip"], "description": "`none` (default): `<batch id>.jsonl`, `application/x-ndjson`; `gzip`: `<batch id>.jsonl.gz`, `application/gzip`."}
        },
        "required": ["kind", "bucket", "region", "access_key_id", "secret_access_key"],
        "additionalProperties": false
    })
}

/// `schema` with what may differ without changing its meaning made equal:
/// descriptions compared with their whitespace collapsed (doc comments
/// break lines), numbers as floats (utoipa writes its implied `minimum: 0`
/// as `0.0`), `format` dropped (utoipa's `int32`/`int64` annotations), and
/// `local`'s `enum: [0, 1]` written as the bounds the derive gives it.
fn normalized(schema: &Value, derived: bool) -> Value {
    match schema {
        Value::Object(o) => {
            let mut out = serde_json::Map::new();
            for (k, v) in o {
                let v = match (k.as_str(), v) {
                    ("format", _) if derived => continue,
                    ("description", Value::String(s)) => {
                        json!(s.split_whitespace().collect::<Vec<_>>().join(" "))
                    }
                    _ => normalized(v, derived),
                };
                out.insert(k.clone(), v);
            }
            if !derived && out.get("enum") == Some(&json!([0.0, 1.0])) {
                out.remove("enum");
                out.insert("minimum".into(), json!(0.0));
                out.insert("maximum".into(), json!(1.0));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| normalized(v, derived)).collect()),
        Value::Number(n) => json!(n.as_f64().unwrap()),
        other => other.clone(),
    }
}

/// Where `old` and `new` differ, as JSON pointers.
fn differences(old: &Value, new: &Value, path: &str, out: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for k in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => differences(x, y, &format!("{path}/{k}"), out),
                    (x, y) => out.push(format!("{path}/{k}: {x:?} -> {y:?}")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(x, y, &format!("{path}/{i}"), out);
            }
        }
        (x, y) if x != y => out.push(format!("{path}: {x} -> {y}")),
        _ => {}
    }
}

#[test]
fn the_derived_schema_says_what_the_hand_written_one_said() {
    let old = normalized(&hand_written(), false);
    let new = normalized(&derived(), true);
    let mut found = Vec::new();
    differences(&old, &new, "", &mut found);
    // The only differences: descriptions the types have and the hand-written
    // schema had not (items of arrays, an enum's own).
    let added_descriptions = [
        "/oneOf/0/properties/headers/items/description",
        "/oneOf/5/properties/bootstrap/items/description",
        "/oneOf/5/properties/sasl/properties/mechanism/description",
    ];
    let unexpected: Vec<&String> = found
        .iter()
        .filter(|d| {
            !added_descriptions
                .iter()
                .any(|a| d.starts_with(&format!("{a}: None -> Some")))
        })
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
}

#[test]
fn the_derived_and_hand_written_schemas_agree_on_every_case() {
    let old = validator(&hand_written());
    let new = validator(&derived());
    let mut faults = Vec::new();
    let mut cases = 0;
    for example in examples() {
        let d: Destination = serde_json::from_value(example.clone()).unwrap();
        let written = serde_json::to_value(&d).unwrap();
        let all = mutations(&example)
            .into_iter()
            .chain(mutations(&written))
            .map(|m| (m.what, m.value))
            .chain([
                ("as is".to_string(), example.clone()),
                ("as written".to_string(), written.clone()),
            ]);
        for (what, value) in all {
            cases += 1;
            let (o, n) = (old.is_valid(&value), new.is_valid(&value));
            if o != n {
                faults.push(format!(
                    "{}: {what}: hand-written {o}, derived {n}",
                    example["kind"]
                ));
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
    assert!(cases > 1000, "only {cases} cases");
}
