//! The OpenAPI document as the SDK clients and the reference read it
//! (issue 44 §1): every operation has a stable `operationId` that reads as
//! a call (`events.publish`), a summary and a description; every schema,
//! field and parameter is described; every body, sent or answered, has an
//! example, and every example in the document validates against its
//! schema; the `webhooks` section describes what Relay sends.
//!
//! `scripts/checks/openapi.sh` adds the independent check that the document
//! is valid OpenAPI (openapi-spec-validator) and true (schemathesis).

use std::collections::BTreeMap;

use serde_json::{Value, json};

fn doc() -> Value {
    relay_api::openapi::document()
}

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// Every operation, `paths` and `webhooks`, as (where, operation): where is
/// `GET /v1/events/{id}` or `webhook message`.
fn operations(doc: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    for (section, label) in [("paths", ""), ("webhooks", "webhook ")] {
        for (path, item) in doc[section].as_object().into_iter().flatten() {
            for method in METHODS {
                if let Some(op) = item.get(method) {
                    let at = if label.is_empty() {
                        format!("{} {path}", method.to_uppercase())
                    } else {
                        format!("{label}{path} ({method})")
                    };
                    out.push((at, op));
                }
            }
        }
    }
    out
}

/// Every operation's `operationId`, by method and path: the names the SDK
/// clients are generated with. Changing one breaks every client that calls
/// it; add new ones, never rename.
const OPERATION_IDS: &[(&str, &str)] = &[
    ("GET /v1/audit-log", "audit_log.list"),
    ("GET /v1/aws/external-id", "endpoints.get_aws_external_id"),
    ("GET /v1/consumers", "consumers.list"),
    ("POST /v1/consumers", "consumers.create"),
    ("DELETE /v1/consumers/{id}", "consumers.delete"),
    ("GET /v1/consumers/{id}", "consumers.get"),
    ("PATCH /v1/consumers/{id}", "consumers.update"),
    ("GET /v1/endpoints", "endpoints.list"),
    ("POST /v1/endpoints", "endpoints.create"),
    ("DELETE /v1/endpoints/{id}", "endpoints.delete"),
    ("GET /v1/endpoints/{id}", "endpoints.get"),
    ("PATCH /v1/endpoints/{id}", "endpoints.update"),
    ("POST /v1/endpoints/{id}/disable", "endpoints.disable"),
    ("POST /v1/endpoints/{id}/enable", "endpoints.enable"),
    ("GET /v1/endpoints/{id}/health", "endpoints.get_health"),
    (
        "POST /v1/endpoints/{id}/verify-ownership",
        "endpoints.verify_ownership",
    ),
    ("GET /v1/endpoints/{id}/missed", "endpoints.list_missed"),
    ("POST /v1/endpoints/{id}/pause", "endpoints.pause"),
    ("POST /v1/endpoints/{id}/recover", "endpoints.recover"),
    ("POST /v1/endpoints/{id}/replay", "endpoints.replay"),
    ("POST /v1/endpoints/{id}/resume", "endpoints.resume"),
    ("POST /v1/endpoints/{id}/rotate-key", "endpoints.rotate_key"),
    (
        "GET /v1/endpoints/{id}/signing-keys",
        "endpoints.signing_keys.list",
    ),
    ("POST /v1/endpoints/{id}/test", "endpoints.send_test"),
    ("GET /v1/endpoints/{id}/versions", "endpoints.versions.list"),
    ("GET /v1/event-types", "event_types.list"),
    ("GET /v1/event-types/{name}", "event_types.get"),
    ("PUT /v1/event-types/{name}", "event_types.put"),
    ("POST /v1/events", "events.publish"),
    ("GET /v1/events/{id}", "events.get"),
    ("GET /v1/inbound-receipts", "inbound_receipts.list"),
    ("GET /v1/inbound-receipts/{id}", "inbound_receipts.get"),
    (
        "POST /v1/inbound-receipts/{id}/reprocess",
        "inbound_receipts.reprocess",
    ),
    ("GET /v1/inbound-sources", "inbound_sources.list"),
    ("POST /v1/inbound-sources", "inbound_sources.create"),
    ("DELETE /v1/inbound-sources/{id}", "inbound_sources.delete"),
    ("GET /v1/inbound-sources/{id}", "inbound_sources.get"),
    ("PATCH /v1/inbound-sources/{id}", "inbound_sources.update"),
    (
        "POST /v1/inbound-sources/{id}/rotate-secret",
        "inbound_sources.rotate_secret",
    ),
    ("GET /v1/jobs/{id}", "jobs.get"),
    ("GET /v1/ledger", "ledger.list"),
    ("GET /v1/messages", "messages.list"),
    ("POST /v1/messages/retry", "messages.retry"),
    ("GET /v1/messages/{id}", "messages.get"),
    ("GET /v1/messages/{id}/attempts", "messages.attempts.list"),
    ("POST /v1/messages/{id}/cancel", "messages.cancel"),
    ("POST /v1/messages/{id}/resend", "messages.resend"),
    ("POST /v1/workflow-steps", "workflow_steps.create"),
    ("GET /v1/workflow-steps/{step_key}", "workflow_steps.get"),
    ("GET /v1/portal-brand", "portal_brand.get"),
    ("PUT /v1/portal-brand", "portal_brand.put"),
    ("POST /v1/portal-tokens", "portal_tokens.create"),
    (
        "POST /v1/portal-tokens/revoke-all",
        "portal_tokens.revoke_all",
    ),
    ("DELETE /v1/portal-tokens/{id}", "portal_tokens.revoke"),
    ("GET /v1/portal-tokens/{id}", "portal_tokens.get"),
    ("GET /v1/portal/endpoints", "portal.endpoints.list"),
    ("POST /v1/portal/endpoints", "portal.endpoints.create"),
    (
        "DELETE /v1/portal/endpoints/{id}",
        "portal.endpoints.delete",
    ),
    ("GET /v1/portal/endpoints/{id}", "portal.endpoints.get"),
    ("PATCH /v1/portal/endpoints/{id}", "portal.endpoints.update"),
    (
        "POST /v1/portal/endpoints/{id}/disable",
        "portal.endpoints.disable",
    ),
    (
        "POST /v1/portal/endpoints/{id}/enable",
        "portal.endpoints.enable",
    ),
    (
        "GET /v1/portal/endpoints/{id}/failed",
        "portal.endpoints.list_failed",
    ),
    (
        "GET /v1/portal/endpoints/{id}/health",
        "portal.endpoints.get_health",
    ),
    (
        "GET /v1/portal/endpoints/{id}/messages",
        "portal.endpoints.list_messages",
    ),
    (
        "POST /v1/portal/endpoints/{id}/recover",
        "portal.endpoints.recover",
    ),
    (
        "POST /v1/portal/endpoints/{id}/rotate-key",
        "portal.endpoints.rotate_key",
    ),
    (
        "GET /v1/portal/endpoints/{id}/signing-keys",
        "portal.endpoints.signing_keys.list",
    ),
    (
        "POST /v1/portal/endpoints/{id}/test",
        "portal.endpoints.send_test",
    ),
    ("GET /v1/portal/event-types", "portal.event_types.list"),
    ("GET /v1/portal/messages/{id}", "portal.messages.get"),
    (
        "GET /v1/portal/messages/{id}/attempts",
        "portal.messages.attempts.list",
    ),
    (
        "POST /v1/portal/messages/{id}/resend",
        "portal.messages.resend",
    ),
    ("GET /v1/portal/session", "portal.get_session"),
    ("GET /v1/secrets", "secrets.list"),
    ("DELETE /v1/secrets/{name}", "secrets.delete"),
    ("GET /v1/secrets/{name}", "secrets.get"),
    ("PUT /v1/secrets/{name}", "secrets.put"),
    ("GET /v1/tenants", "tenants.list"),
    ("POST /v1/tenants", "tenants.create"),
    ("GET /v1/tenants/{id}", "tenants.get"),
    ("GET /v1/tenants/{id}/api-keys", "tenants.api_keys.list"),
    ("POST /v1/tenants/{id}/api-keys", "tenants.api_keys.create"),
    (
        "DELETE /v1/tenants/{id}/api-keys/{key_id}",
        "tenants.api_keys.revoke",
    ),
    (
        "POST /v1/tenants/{id}/system-events",
        "tenants.system_events.publish",
    ),
    ("webhook message (post)", "webhooks.message"),
];

/// `<resource>.<verb>`, each part lower-case words joined by `_`:
/// `^[a-z_]+(\.[a-z_]+)+$`.
fn reads_as_a_call(id: &str) -> bool {
    let parts: Vec<&str> = id.split('.').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
}

#[test]
fn operation_ids_are_stable_unique_and_read_as_calls() {
    assert!(reads_as_a_call("tenants.api_keys.create"));
    for bad in [
        "events_publish",
        "events.",
        ".get",
        "Events.get",
        "events.get2",
    ] {
        assert!(!reads_as_a_call(bad), "{bad}");
    }
    let doc = doc();
    let mut faults = Vec::new();
    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    let mut found: Vec<(String, String)> = Vec::new();
    for (at, op) in operations(&doc) {
        let Some(id) = op["operationId"].as_str() else {
            faults.push(format!("{at}: no operationId"));
            continue;
        };
        if !reads_as_a_call(id) {
            faults.push(format!("{at}: `{id}` is not `<resource>.<verb>`"));
        }
        if let Some(other) = seen.insert(id, at.clone()) {
            faults.push(format!("{at}: `{id}` is also {other}'s"));
        }
        found.push((at, id.to_string()));
    }
    let expected: Vec<(String, String)> = OPERATION_IDS
        .iter()
        .map(|(at, id)| (at.to_string(), id.to_string()))
        .collect();
    found.sort();
    let mut sorted = expected.clone();
    sorted.sort();
    for (at, id) in &found {
        if !sorted.iter().any(|(a, i)| a == at && i == id) {
            faults.push(format!(
                "{at}: `{id}` is not in OPERATION_IDS (a new operation: add it; a renamed one: rename it back)"
            ));
        }
    }
    for (at, id) in &sorted {
        if !found.iter().any(|(a, i)| a == at && i == id) {
            faults.push(format!("{at}: `{id}` is gone from the document"));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_operation_has_a_summary_and_a_description() {
    let doc = doc();
    let mut faults = Vec::new();
    let ops = operations(&doc);
    for (at, op) in &ops {
        let summary = op["summary"].as_str().unwrap_or_default();
        let description = op["description"].as_str().unwrap_or_default();
        if summary.trim().is_empty() {
            faults.push(format!("{at}: no summary"));
        } else if summary.chars().count() > 80 || summary.contains('\n') {
            faults.push(format!(
                "{at}: the summary is not one line of at most 80 characters: {summary:?}"
            ));
        } else if summary.ends_with('.') || !summary.starts_with(|c: char| c.is_uppercase()) {
            faults.push(format!(
                "{at}: a summary starts with a capital and ends with no period: {summary:?}"
            ));
        }
        if description.trim().is_empty() {
            faults.push(format!("{at}: no description"));
        } else if description.trim() == summary.trim() {
            faults.push(format!("{at}: the description only repeats the summary"));
        }
        for tag in op["tags"].as_array().into_iter().flatten() {
            let declared = doc["tags"].as_array().into_iter().flatten().any(|t| {
                t["name"] == *tag && t["description"].as_str().is_some_and(|d| !d.is_empty())
            });
            if !declared {
                faults.push(format!(
                    "{at}: the tag {tag} is not declared with a description"
                ));
            }
        }
    }
    assert!(ops.len() >= 80, "only {} operations", ops.len());
    assert!(
        faults.is_empty(),
        "{} faults:\n{}",
        faults.len(),
        faults.join("\n")
    );
}

/// Whether a property's schema carries its own description (beside a
/// `$ref`, or on the `$ref` member of an `Option`'s `oneOf`).
fn described(schema: &Value) -> bool {
    let has = |s: &Value| {
        s["description"]
            .as_str()
            .is_some_and(|d| !d.trim().is_empty())
    };
    has(schema)
        || ["oneOf", "anyOf", "allOf"]
            .iter()
            .any(|k| schema[*k].as_array().into_iter().flatten().any(has))
}

/// Every property under `schema` (nested objects, array items, members of
/// `oneOf`/`allOf`/`anyOf`) without a description, as `where.name`.
fn undescribed_fields(schema: &Value, at: &str, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match key.as_str() {
                    "properties" => {
                        for (name, property) in value.as_object().into_iter().flatten() {
                            let here = format!("{at}.{name}");
                            if !described(property) {
                                out.push(here.clone());
                            }
                            undescribed_fields(property, &here, out);
                        }
                    }
                    // Values, not schemas.
                    "examples" | "example" | "default" | "enum" | "const" => {}
                    _ => undescribed_fields(value, at, out),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                undescribed_fields(item, at, out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_schema_field_and_parameter_is_described() {
    let doc = doc();
    let mut faults = Vec::new();
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    let mut fields = Vec::new();
    for (name, schema) in schemas {
        if !described(schema) {
            faults.push(format!("schema {name}: no description"));
        }
        undescribed_fields(schema, name, &mut fields);
    }
    for (at, op) in operations(&doc) {
        for parameter in op["parameters"].as_array().into_iter().flatten() {
            if parameter["description"]
                .as_str()
                .is_none_or(|d| d.trim().is_empty())
            {
                faults.push(format!(
                    "{at}: parameter `{}` has no description",
                    parameter["name"]
                ));
            }
        }
        // Schemas written inline in the operation.
        undescribed_fields(&op["requestBody"], &at, &mut fields);
        undescribed_fields(&op["responses"], &at, &mut fields);
    }
    faults.extend(
        fields
            .into_iter()
            .map(|f| format!("field {f}: no description")),
    );
    assert!(
        faults.is_empty(),
        "{} faults:\n{}",
        faults.len(),
        faults.join("\n")
    );
}

/// The schema a `$ref` names (through chains of them), or the schema itself.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        Some(name) => resolve(doc, &doc["components"]["schemas"][name]),
        None => schema,
    }
}

fn has_example(doc: &Value, media: &Value) -> bool {
    let schema = resolve(doc, &media["schema"]);
    media.get("example").is_some()
        || media["examples"].as_object().is_some_and(|e| !e.is_empty())
        || schema["examples"].as_array().is_some_and(|e| !e.is_empty())
        || schema.get("example").is_some()
}

#[test]
fn every_body_has_an_example() {
    let doc = doc();
    let mut faults = Vec::new();
    let mut bodies = 0;
    for (at, op) in operations(&doc) {
        let request = op["requestBody"]["content"]
            .as_object()
            .into_iter()
            .flatten();
        let answers = op["responses"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(status, _)| status.starts_with('2'))
            .flat_map(|(status, r)| {
                r["content"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(move |(t, m)| (format!("{status} {t}"), m))
            });
        for (what, media) in request
            .map(|(t, m)| (format!("request {t}"), m))
            .chain(answers)
        {
            bodies += 1;
            if !has_example(&doc, media) {
                faults.push(format!("{at}: {what} has no example"));
            }
        }
    }
    assert!(bodies >= 100, "only {bodies} bodies");
    assert!(
        faults.is_empty(),
        "{} faults:\n{}",
        faults.len(),
        faults.join("\n")
    );
}

/// Every (where, schema, example) of the document: `examples` and `example`
/// of schemas, anywhere; `example` and `examples` of media types and
/// parameters against their schema.
fn examples<'a>(value: &'a Value, at: String, out: &mut Vec<(String, &'a Value, &'a Value)>) {
    match value {
        Value::Object(map) => {
            let is_schema = !map.contains_key("content")
                && !map.contains_key("schema")
                && !map.contains_key("in");
            if let Some(schema) = map.get("schema") {
                if let Some(e) = map.get("example") {
                    out.push((format!("{at}/example"), schema, e));
                }
                for (name, e) in map
                    .get("examples")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    out.push((format!("{at}/examples/{name}"), schema, &e["value"]));
                }
            } else if is_schema {
                if let Some(e) = map.get("example") {
                    out.push((format!("{at}/example"), value, e));
                }
                for (i, e) in map
                    .get("examples")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    out.push((format!("{at}/examples/{i}"), value, e));
                }
            }
            for (key, v) in map {
                if matches!(
                    key.as_str(),
                    "examples" | "example" | "default" | "enum" | "const"
                ) {
                    continue;
                }
                examples(v, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                examples(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_example_validates_against_its_schema() {
    let doc = doc();
    let mut found = Vec::new();
    examples(&doc, String::new(), &mut found);
    let mut faults = Vec::new();
    for (at, schema, example) in &found {
        // The schema, with the document's components beside it so that its
        // `$ref`s resolve (OpenAPI 3.1 schemas are JSON Schema 2020-12).
        let root = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "allOf": [schema],
            "components": doc["components"],
        });
        let validator = match jsonschema::options()
            .should_validate_formats(true)
            .build(&root)
        {
            Ok(v) => v,
            Err(e) => {
                faults.push(format!("{at}: the schema does not compile: {e}"));
                continue;
            }
        };
        let errors: Vec<String> = validator
            .iter_errors(example)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        if !errors.is_empty() {
            faults.push(format!("{at}: {}", errors.join("; ")));
        }
    }
    assert!(found.len() >= 60, "only {} examples", found.len());
    assert!(
        faults.is_empty(),
        "{} faults:\n{}",
        faults.len(),
        faults.join("\n")
    );
    // Each check sees an example that is wrong.
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&json!({"type": "string", "format": "date-time"}))
        .unwrap();
    assert!(!validator.is_valid(&json!("yesterday")));
}

#[test]
fn the_destination_kinds_are_told_apart_by_kind() {
    let doc = doc();
    let destination = &doc["components"]["schemas"]["Destination"];
    assert_eq!(destination["discriminator"]["propertyName"], "kind");
    let mapping = destination["discriminator"]["mapping"]
        .as_object()
        .expect("a mapping");
    let members = destination["oneOf"].as_array().expect("a oneOf");
    assert_eq!(mapping.len(), members.len());
    for (kind, reference) in mapping {
        assert!(members.iter().any(|m| m["$ref"] == *reference), "{kind}");
        // A mapping value is a reference, as a `$ref` is.
        let name = reference
            .as_str()
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
            .expect("a schema reference");
        let schema = &doc["components"]["schemas"][name];
        assert_eq!(
            schema["properties"]["kind"]["enum"],
            json!([kind]),
            "{kind}"
        );
    }
}

#[test]
fn the_webhooks_describe_what_relay_sends() {
    let doc = doc();
    let post = &doc["webhooks"]["message"]["post"];
    assert!(post.is_object(), "no `webhooks.message.post`");
    let headers: Vec<&str> = post["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["in"] == "header")
        .filter_map(|p| p["name"].as_str())
        .collect();
    for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        assert!(
            headers.contains(&name),
            "{name} is not described: {headers:?}"
        );
    }
    let body = &post["requestBody"]["content"]["application/cloudevents+json"];
    assert!(body["schema"].is_object(), "the envelope is not described");
    assert!(
        post["responses"]
            .as_object()
            .is_some_and(|r| r.keys().any(|s| s.starts_with('2'))),
        "the expected 2xx answer is not described"
    );
}
