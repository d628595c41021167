use serde_json::{Value, json};

use super::*;

/// `n` definitions, each applying the next one twice; the last is a string.
fn doubling_chain(n: usize, combinator: &str) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({combinator: [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert(format!("d{n}"), json!({"type": "string"}));
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

/// The attacker's schemas, each a few hundred bytes, refused in linear time
/// with the code the API answers; and schemas real tenants write, accepted
/// with a small cost.
#[test]
fn schemas_are_bounded() {
    let self_loop = json!({
        "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}},
        "$ref": "#/$defs/a"
    });
    // Two definitions that apply each other, with no data in between.
    let mutual = json!({
        "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}},
        "$ref": "#/$defs/a"
    });
    // Each level of the data applies the whole schema twice.
    let per_level = json!({
        "$defs": {"a": {"properties": {"x": {"$ref": "#"}}}},
        "allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]
    });
    let wide_items = json!({
        "$defs": {"a": {"items": {"$ref": "#"}}},
        "anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]
    });
    let dynamic = json!({
        "$dynamicAnchor": "node",
        "anyOf": [{"$dynamicRef": "#node"}]
    });
    // A binary tree: two recursive references, but each member has one name.
    let tree = json!({
        "$defs": {"node": {
            "type": "object",
            "required": ["value"],
            "properties": {
                "value": {"type": "integer"},
                "left": {"$ref": "#/$defs/node"},
                "right": {"$ref": "#/$defs/node"}
            }
        }},
        "$ref": "#/$defs/node"
    });
    let order = json!({
        "type": "object",
        "required": ["id", "customer"],
        "$defs": {
            "money": {"type": "object", "properties": {"amount": {"type": "integer"}, "currency": {"enum": ["EUR", "USD", "GBP"]}}},
            "customer": {"$anchor": "customer", "type": "object", "properties": {"id": {"type": "string", "pattern": "^cus_"}, "email": {"type": "string", "format": "email"}}}
        },
        "properties": {
            "id": {"type": "string"},
            "customer": {"$ref": "#customer"},
            "total": {"$ref": "#/%24defs/money"},
            "lines": {"type": "array", "items": {"type": "object", "properties": {
                "sku": {"type": "string"}, "price": {"$ref": "#/$defs/money"}
            }}},
            "payment": {"oneOf": [
                {"type": "object", "properties": {"card": {"type": "string"}}},
                {"type": "object", "properties": {"iban": {"type": "string"}}}
            ]}
        },
        "additionalProperties": false
    });
    let deep = (0..=MAX_SCHEMA_DEPTH).fold(json!({}), |s, _| json!({"not": s}));
    let large = json!({"enum": ["x".repeat(MAX_SCHEMA_BYTES)]});
    type Case = (&'static str, Value, Result<u64, &'static str>);
    let cases: Vec<Case> = vec![
        ("self loop", self_loop, Err("schema_too_complex")),
        ("mutual loop", mutual, Err("schema_too_complex")),
        ("dynamic loop", dynamic, Err("schema_too_complex")),
        (
            "anyOf chain",
            doubling_chain(20, "anyOf"),
            Err("schema_too_complex"),
        ),
        (
            "allOf chain",
            doubling_chain(20, "allOf"),
            Err("schema_too_complex"),
        ),
        (
            "oneOf chain",
            doubling_chain(20, "oneOf"),
            Err("schema_too_complex"),
        ),
        ("twice per level", per_level, Err("schema_too_complex")),
        (
            "three times per element",
            wide_items,
            Err("schema_too_complex"),
        ),
        (
            "remote",
            json!({"$ref": "https://example.com/s.json"}),
            Err("invalid_schema"),
        ),
        (
            "missing pointer",
            json!({"$ref": "#/$defs/nope"}),
            Err("invalid_schema"),
        ),
        (
            "missing anchor",
            json!({"$ref": "#nope"}),
            Err("invalid_schema"),
        ),
        (
            "embedded resource",
            json!({"$defs": {"a": {"$id": "https://example.com/a"}}, "$ref": "#/$defs/a"}),
            Err("invalid_schema"),
        ),
        ("too deep", deep, Err("validation_failed")),
        ("too large", large, Err("schema_too_large")),
        // d3 = 2 (itself, `type`); d(i) = 3 + 2 × (2 + d(i+1)) (itself, `anyOf`
        // with its two entries, two `$ref` subschemas); the root is 2 + d0.
        ("short chain", doubling_chain(3, "anyOf"), Ok(67)),
        // The root (2) and the node (1 + type + required + 3 properties).
        ("tree", tree, Ok(9)),
        (
            "self reference is skipped",
            json!({"$ref": "#", "type": "object"}),
            Ok(3),
        ),
        (
            "own $id",
            json!({"$id": "https://example.com/order.json", "$defs": {"a": {}}, "properties": {"a": {"$ref": "order.json#/$defs/a"}}}),
            Ok(3),
        ),
        ("order", order, Ok(0)),
        ("true", json!(true), Ok(1)),
    ];
    for (name, schema, want) in cases {
        let bytes = schema.to_string().len();
        let started = std::time::Instant::now();
        let got = check(&schema);
        let took = started.elapsed();
        assert!(
            took < std::time::Duration::from_millis(500),
            "{name}: took {took:?}"
        );
        match (got, want) {
            (Ok(cost), Ok(0)) => assert!((1..=200).contains(&cost.per_value), "{name}: {cost:?}"),
            (Ok(cost), Ok(per_value)) => assert_eq!(cost.per_value, per_value, "{name}"),
            (Err(e), Err(code)) => {
                assert_eq!(e.code(), code, "{name}: {e}");
                if code != "schema_too_large" {
                    assert!(bytes < 1500, "{name}: the attack is a small schema");
                }
            }
            (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn errors_point_at_the_place_at_fault() {
    let e = check(&json!({"properties": {"a": {"$ref": "#/nope"}}})).unwrap_err();
    assert_eq!(e.at(), "/properties/a/$ref");
    let e = check(&json!({
        "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}},
        "$ref": "#/$defs/a"
    }))
    .unwrap_err();
    assert_eq!(e.code(), "schema_too_complex");
    assert!(e.at().starts_with("/$defs/a"), "{}", e.at());
}

#[test]
fn validation_cost_is_values_times_the_cost_per_value() {
    assert_eq!(count_values(&json!({"a": [1, 2, {"b": null}]})), 6);
    let cost = Cost { per_value: 100 };
    assert_eq!(publish_cost(cost, 1000), Ok(100_000));
    let over = (MAX_VALIDATION_COST / 100 + 1) as usize;
    assert!(publish_cost(cost, over).is_err());
    assert!(
        publish_cost(
            Cost {
                per_value: u64::MAX
            },
            2
        )
        .is_err()
    );
}
