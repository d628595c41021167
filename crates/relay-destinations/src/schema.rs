//! `Destination`'s OpenAPI schema, composed from the schemas the kinds'
//! configurations derive ([`crate::Kind::schema`]): one source, the types.
//!
//! Each configuration derives `utoipa::ToSchema`: its doc comments are the
//! descriptions, its `#[schema(...)]` attributes the bounds, patterns,
//! nullability and defaults (a default names the function serde's
//! `default = "..."` calls, or the enum's `Default`),
//! `deny_unknown_fields` the closed object (`additionalProperties: false`).
//! Each becomes a component of the API's document, named after its type
//! (`HttpsDestination`), with the `kind` tag added as a required property
//! (`enum: [name]`) and the name as its `title`; `Destination` is the
//! `oneOf` of references to them with a `discriminator` on `kind`, so a
//! client generator makes one type per kind and picks it by `kind`. Not
//! utoipa's derive for the enum itself: it puts the variant's closed object
//! and the tag side by side in an `allOf`, which no value satisfies.
//!
//! Nested types are inlined (`#[schema(inline)]`), and the wrappers the
//! derive puts around an inlined schema are folded into it:
//! `allOf: [schema, {type: "object", description}]` (a field's description
//! on an inlined type; for an enum, a string, no value satisfies it) and
//! `oneOf: [schema, {type: "null"}]` (an `Option`) become the schema
//! itself, with the field's description, and with `null` in its `type`;
//! `allOf` of objects (a `#[serde(flatten)]` field's type beside the
//! struct's own fields) becomes one object.

use serde_json::{Map, Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

const DESCRIPTION: &str = "Where an endpoint's messages go, by `kind`. New kinds (brokers, queues, object storage) are new variants; the endpoint object keeps its shape.";

/// The components of the API's document that describe a destination, by
/// name: `Destination` first (the `oneOf` of the kinds of the `kinds!`
/// list with its `discriminator`; a test-only kind has none), then each
/// kind's tagged configuration (`HttpsDestination`, …) in the list's order.
/// The API's document puts `Destination` in place of relay-core's generic
/// one.
pub fn components() -> Vec<(String, RefOr<Schema>)> {
    let kinds: Vec<(&str, &str, Value)> = crate::schemas()
        .into_iter()
        .map(|(kind, component, schema)| (kind, component, tagged(kind, schema)))
        .collect();
    let reference = |component: &str| format!("#/components/schemas/{component}");
    let members: Vec<Value> = kinds
        .iter()
        .map(|(_, component, _)| json!({"$ref": reference(component)}))
        .collect();
    let mapping: Map<String, Value> = kinds
        .iter()
        .map(|(kind, component, _)| (kind.to_string(), json!(reference(component))))
        .collect();
    let destination = json!({
        "description": DESCRIPTION,
        "oneOf": members,
        "discriminator": {"propertyName": "kind", "mapping": mapping},
    });
    let schema = |value: Value| -> RefOr<Schema> {
        serde_json::from_value(value).expect("a destination schema is a valid schema")
    };
    std::iter::once(("Destination".to_string(), schema(destination)))
        .chain(
            kinds
                .into_iter()
                .map(|(_, component, member)| (component.to_string(), schema(member))),
        )
        .collect()
}

/// One kind's member of the `oneOf`: its derived object schema, wrappers
/// folded, with the required `kind` property and a `title`.
fn tagged(kind: &str, schema: RefOr<Schema>) -> Value {
    let mut schema = serde_json::to_value(schema).expect("a schema serializes");
    fold_wrappers(&mut schema);
    let Value::Object(object) = &mut schema else {
        unreachable!("a derived struct schema is an object")
    };
    object.insert("title".into(), json!(kind));
    let properties = object.entry("properties").or_insert_with(|| json!({}));
    properties["kind"] = json!({
        "type": "string",
        "enum": [kind],
        "description": format!("The destination's kind: `{kind}`."),
    });
    match object.get_mut("required").and_then(Value::as_array_mut) {
        Some(required) => required.insert(0, json!("kind")),
        None => {
            object.insert("required".into(), json!(["kind"]));
        }
    }
    schema
}

/// Keywords that only annotate (assert nothing): what the derive puts
/// beside an inlined schema.
const ANNOTATIONS: [&str; 3] = ["description", "title", "default"];

/// Folds, bottom-up, every wrapper the derive put around an inlined schema
/// (see the module's documentation) into the schema it wraps.
fn fold_wrappers(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(fold_wrappers),
        Value::Object(map) => {
            map.values_mut().for_each(fold_wrappers);
            if let Some(folded) = folded(map) {
                *value = folded;
            }
        }
        _ => {}
    }
}

fn folded(map: &Map<String, Value>) -> Option<Value> {
    let only_annotations = |m: &Map<String, Value>, besides: &str| {
        m.keys()
            .all(|k| k == besides || ANNOTATIONS.contains(&k.as_str()))
    };
    let inline = |s: &Map<String, Value>| !s.contains_key("$ref");
    // The derive writes the field's annotations with an object builder,
    // hence its `type: "object"`, which is dropped with the wrapper.
    if let Some(Value::Array(items)) = map.get("allOf")
        && let [Value::Object(schema), Value::Object(annotations)] = items.as_slice()
        && map.len() == 1
        && inline(schema)
        && annotations.get("type").is_none_or(|t| t == "object")
        && only_annotations(annotations, "type")
    {
        let mut out = schema.clone();
        out.extend(
            annotations
                .iter()
                .filter(|(k, _)| *k != "type")
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        return Some(Value::Object(out));
    }
    // A `#[serde(flatten)]` field (the AWS kinds' `aws::Credentials`): the
    // derive writes `allOf` of the flattened type's object and the struct's
    // own (dropping `deny_unknown_fields`' `additionalProperties`), which
    // serde reads as one object whose `deny_unknown_fields` refuses what
    // neither knows. One closed object: their properties and required
    // fields together. (A configuration that did not deny unknown fields
    // would fail `destination_schema`'s test that serde refuses them.)
    if let Some(Value::Array(items)) = map.get("allOf")
        && items.len() >= 2
        && only_annotations(map, "allOf")
        && items.iter().all(|i| {
            i.as_object().is_some_and(|o| {
                inline(o)
                    && o.get("type").is_some_and(|t| t == "object")
                    && o.contains_key("properties")
            })
        })
    {
        return Some(merged(map, items));
    }
    if let Some(Value::Array(items)) = map.get("oneOf")
        && let [Value::Object(schema), null] = items.as_slice()
        && *null == json!({"type": "null"})
        && only_annotations(map, "oneOf")
        && inline(schema)
        && !schema.contains_key("enum")
        && let Some(Value::String(kind)) = schema.get("type")
    {
        let mut out = schema.clone();
        out.insert("type".into(), json!([kind, "null"]));
        out.extend(
            map.iter()
                .filter(|(k, _)| *k != "oneOf")
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        return Some(Value::Object(out));
    }
    None
}

/// The objects of a flattening `allOf` as one (see [`folded`]).
fn merged(map: &Map<String, Value>, items: &[Value]) -> Value {
    let mut out = Map::new();
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    for item in items.iter().filter_map(Value::as_object) {
        for (k, v) in item {
            match k.as_str() {
                "properties" => {
                    if let Value::Object(p) = v {
                        properties.extend(p.clone());
                    }
                }
                "required" => required.extend(v.as_array().cloned().unwrap_or_default()),
                "additionalProperties" => {}
                _ => {
                    out.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    out.insert("properties".into(), Value::Object(properties));
    out.insert("additionalProperties".into(), json!(false));
    if !required.is_empty() {
        out.insert("required".into(), Value::Array(required));
    }
    out.extend(
        map.iter()
            .filter(|(k, _)| *k != "allOf")
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    Value::Object(out)
}
