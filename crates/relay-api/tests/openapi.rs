//! OpenAPI drift (issue 2, item 8): the committed `docs/openapi.json` must
//! equal the document generated from the handlers, the router must serve that
//! same document at `/openapi.json`, and every operation the document lists
//! must exist in the router.
//!
//! To refresh the committed file: `cargo run -p relay -- openapi > docs/openapi.json`
//! (or run this test once with `RELAY_BLESS=1`).

mod common;

use std::path::PathBuf;

use axum::body::Body;
use axum::http::{Method, StatusCode};
use common::*;
use serde_json::Value;

const REFRESH: &str =
    "run `cargo run -p relay -- openapi > docs/openapi.json` and commit the result";

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

#[test]
fn the_committed_document_matches_the_code() {
    let path = committed_path();
    let generated = relay_api::openapi::document_text();
    if std::env::var_os("RELAY_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("write docs/openapi.json");
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}; {REFRESH}", path.display()));
    if committed != generated {
        let first_difference = committed
            .lines()
            .zip(generated.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| {
                format!(
                    "first difference at line {}:\n  committed: {a}\n  generated: {b}",
                    i + 1
                )
            })
            .unwrap_or_else(|| "one is a prefix of the other".to_string());
        panic!("docs/openapi.json has drifted from the code; {REFRESH}.\n{first_difference}");
    }
}

#[tokio::test]
async fn the_router_serves_the_document() {
    let h = Harness::new().await;
    // No token needed.
    let r = h
        .send(Method::GET, "/openapi.json", None, Body::empty())
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.content_type().starts_with("application/json"),
        "{}",
        r.content_type()
    );
    let served: Value = r.json();
    assert_eq!(served, relay_api::openapi::document());
    let committed: Value = serde_json::from_str(
        &std::fs::read_to_string(committed_path()).expect("docs/openapi.json"),
    )
    .expect("docs/openapi.json is JSON");
    assert_eq!(served, committed, "{REFRESH}");
}

#[tokio::test]
async fn every_documented_operation_is_routed() {
    let h = Harness::new().await;
    let doc = relay_api::openapi::document();
    let paths = doc["paths"].as_object().expect("paths");
    assert!(paths.len() >= 15, "suspiciously few paths: {}", paths.len());
    for (path, item) in paths {
        let concrete = path
            .replace("{name}", "order.created")
            .replace("{key_id}", "key_x")
            .replace("{id}", "x");
        for (method, op) in item.as_object().expect("path item") {
            let m = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
            let r = h.send(m.clone(), &concrete, None, "{}").await;
            // Every documented operation needs a token: an existing route says 401,
            // a missing one would say 404 `no such path` or 405.
            r.problem(StatusCode::UNAUTHORIZED, "unauthorized");
            assert!(
                op["security"].as_array().is_some_and(|s| !s.is_empty()),
                "{method} {path} documents no security requirement"
            );
            assert!(
                op["responses"].as_object().is_some_and(|r| !r.is_empty()),
                "{method} {path} documents no responses"
            );
        }
    }
}

/// Every operation of the document, as (method, path, operation).
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            out.push((method.to_uppercase(), path.clone(), op.clone()));
        }
    }
    out
}

/// The `{name}`s of a path template.
fn template_names(path: &str) -> Vec<String> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name.to_string()))
        .collect()
}

/// The component a `$ref` names, or the schema itself.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r
                .strip_prefix("#/components/schemas/")
                .expect("a schema $ref");
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

#[test]
fn every_path_parameter_is_declared() {
    // Issue 21, part 7: client generators fail on a `{id}` the operation
    // does not declare. Declare it in the handler: `params(("id" = String, Path, ...))`.
    let doc = relay_api::openapi::document();
    let mut faults = Vec::new();
    for (method, path, op) in operations(&doc) {
        let declared: Vec<&Value> = op["parameters"]
            .as_array()
            .map(|p| p.iter().filter(|p| p["in"] == "path").collect())
            .unwrap_or_default();
        let names = template_names(&path);
        for name in &names {
            match declared.iter().find(|p| p["name"] == name.as_str()) {
                None => faults.push(format!("{method} {path}: `{name}` is not declared")),
                Some(p) => {
                    if p["required"] != true {
                        faults.push(format!("{method} {path}: `{name}` is not required"));
                    }
                    if p["schema"]["type"] != "string" {
                        faults.push(format!("{method} {path}: `{name}` has no string schema"));
                    }
                    if p["description"].as_str().is_none_or(str::is_empty) {
                        faults.push(format!("{method} {path}: `{name}` has no description"));
                    }
                }
            }
        }
        for p in &declared {
            let name = p["name"].as_str().unwrap_or_default();
            if !names.iter().any(|n| n == name) {
                faults.push(format!(
                    "{method} {path}: declares `{name}`, not in the path"
                ));
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_operation_declares_the_problems_it_can_answer() {
    // Issue 21, part 7: every status an operation can answer is declared,
    // and every error answer is `application/problem+json` with the
    // `Problem` schema. The common ones are added by `openapi.rs`; this test
    // restates when each applies.
    let doc = relay_api::openapi::document();
    let mut faults = Vec::new();
    for (method, path, op) in operations(&doc) {
        let responses = op["responses"].as_object().expect("responses");
        let has_params = op["parameters"].as_array().is_some_and(|p| !p.is_empty());
        let has_body = op.get("requestBody").is_some();
        let secured = op["security"].as_array().is_some_and(|s| !s.is_empty());
        let mut expected = vec!["500"];
        if has_params || has_body {
            expected.push("400");
        }
        if secured {
            expected.extend(["401", "403"]);
        }
        if path.contains('{') {
            expected.push("404");
        }
        if has_body {
            expected.extend(["413", "422"]);
        }
        for status in expected {
            if !responses.contains_key(status) {
                faults.push(format!("{method} {path}: {status} is not declared"));
            }
        }
        for (status, response) in responses {
            let response = match response["$ref"].as_str() {
                Some(r) => {
                    let name = r
                        .strip_prefix("#/components/responses/")
                        .expect("a response $ref");
                    &doc["components"]["responses"][name]
                }
                None => response,
            };
            if response["description"].as_str().is_none_or(str::is_empty) {
                faults.push(format!("{method} {path}: {status} has no description"));
            }
            if !(status.starts_with('4') || status.starts_with('5')) {
                continue;
            }
            let content = response["content"].as_object();
            let types: Vec<&String> = content.map(|c| c.keys().collect()).unwrap_or_default();
            if types != ["application/problem+json"] {
                faults.push(format!(
                    "{method} {path}: {status} is declared as {types:?}, not application/problem+json"
                ));
                continue;
            }
            let schema = &response["content"]["application/problem+json"]["schema"];
            if schema["$ref"] != "#/components/schemas/Problem" {
                faults.push(format!(
                    "{method} {path}: {status} is not a Problem: {schema}"
                ));
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn a_body_of_optional_fields_is_not_required() {
    // Issue 21, part 7: a body whose fields are all optional may be left
    // out (`extract::OptionalJsonBody`, `request_body = Option<T>`); one with
    // a required field is required. An optional body is absent, never `null`.
    let doc = relay_api::openapi::document();
    let mut faults = Vec::new();
    let mut optional = 0;
    for (method, path, op) in operations(&doc) {
        let Some(body) = op.get("requestBody") else {
            continue;
        };
        let schema = &body["content"]["application/json"]["schema"];
        if schema.get("oneOf").is_some() {
            faults.push(format!(
                "{method} {path}: the body schema is a oneOf: {schema}"
            ));
            continue;
        }
        let fields_required = resolve(&doc, schema)["required"]
            .as_array()
            .is_some_and(|r| !r.is_empty());
        let body_required = body["required"] == true;
        if fields_required != body_required {
            faults.push(format!(
                "{method} {path}: the body is {}required but its fields are {}",
                if body_required { "" } else { "not " },
                if fields_required {
                    "partly required"
                } else {
                    "all optional"
                },
            ));
        }
        if !body_required {
            optional += 1;
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    assert!(optional >= 5, "only {optional} optional bodies");
}
