//! `Destination`'s OpenAPI schema, composed from the schemas the kinds'
//! configurations derive ([`crate::Kind::schema`]): one source, the types.
//!
//! Each configuration derives `utoipa::ToSchema`: its doc comments are the
//! descriptions, its `#[schema(...)]` attributes the bounds, patterns,
//! nullability and defaults (a default names the function serde's
//! `default = "..."` calls, or the enum's `Default`),
//! `deny_unknown_fields` the closed object (`additionalProperties: false`). Each becomes one member of a `oneOf`,
//! with the `kind` tag added as a required property (`enum: [name]`) and the
//! name as its `title`. Not utoipa's derive for the enum itself: it puts the
//! variant's closed object and the tag side by side in an `allOf`, which no
//! value satisfies. No `discriminator`: the members are inline, and a
//! discriminator's mapping can only name schemas by reference.
//!
//! Nested types are inlined (`#[schema(inline)]`), and the wrappers the
//! derive puts around an inlined schema are folded into it:
//! `allOf: [schema, {type: "object", description}]` (a field's description
//! on an inlined type; for an enum, a string, no value satisfies it) and
//! `oneOf: [schema, {type: "null"}]` (an `Option`) become the schema
//! itself, with the field's description, and with `null` in its `type`.

use serde_json::{Map, Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

const DESCRIPTION: &str = "Where an endpoint's messages go, by `kind`. New kinds (brokers, queues, object storage) are new variants; the endpoint object keeps its shape.";

/// `Destination`'s schema: a `oneOf` of the kinds of the `kinds!` list
/// (each [`crate::Kind::schema`], a test-only kind has none), each tagged.
/// The API's document puts it in place of relay-core's generic one.
pub fn schema() -> RefOr<Schema> {
    let members: Vec<Value> = crate::schemas()
        .into_iter()
        .map(|(kind, schema)| tagged(kind, schema))
        .collect();
    let schema = json!({"description": DESCRIPTION, "oneOf": members});
    serde_json::from_value(schema).expect("the Destination schema is a valid schema")
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
    properties["kind"] = json!({"type": "string", "enum": [kind]});
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
