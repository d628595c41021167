use proptest::prelude::*;
use serde_json::json;

use super::*;

fn path(p: &str) -> FieldPath {
    FieldPath::parse(p).unwrap()
}

fn proj(data: &str, fields: &[&str]) -> String {
    let paths: Vec<FieldPath> = fields.iter().map(|f| path(f)).collect();
    let refs: Vec<&FieldPath> = paths.iter().collect();
    project(data, &refs).unwrap()
}

#[test]
fn field_paths_parse() {
    let cases: &[(&str, Result<&[&str], &str>)] = &[
        ("/id", Ok(&["id"])),
        ("/customer/id", Ok(&["customer", "id"])),
        ("/a~1b/c~0d", Ok(&["a/b", "c~d"])),
        ("/ünï", Ok(&["ünï"])),
        ("id", Err("not a JSON Pointer")),
        ("", Err("not a JSON Pointer")),
        ("/", Err("empty member")),
        ("/a//b", Err("empty member")),
        ("/a/", Err("empty member")),
        ("/a~2", Err("`~` not followed")),
        ("/a~", Err("`~` not followed")),
    ];
    for (text, want) in cases {
        match (FieldPath::parse(text), want) {
            (Ok(p), Ok(tokens)) => {
                assert_eq!(p.tokens(), *tokens, "{text}");
                assert_eq!(p.as_str(), *text);
            }
            (Err(e), Err(msg)) => assert!(e.to_string().contains(msg), "{text}: {e}"),
            (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
        }
    }
    assert_eq!(
        FieldPath::parse(&"/a".repeat(MAX_DEPTH + 1)),
        Err(PathError::TooLong)
    );
    assert!(FieldPath::parse(&"/a".repeat(MAX_DEPTH)).is_ok());
    assert_eq!(
        FieldPath::parse(&format!("/{}", "x".repeat(MAX_PATH_BYTES))),
        Err(PathError::TooLong)
    );
}

#[test]
fn containment_and_overlap() {
    assert!(path("/customer").contains(&path("/customer/email")));
    assert!(path("/customer").contains(&path("/customer")));
    assert!(!path("/customer/email").contains(&path("/customer")));
    assert!(path("/customer/email").overlaps(&path("/customer")));
    assert!(!path("/customer").overlaps(&path("/customers")));
    assert!(!path("/customer/id").overlaps(&path("/customer/email")));
}

#[test]
fn lists_parse() {
    let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(parse_list(&list(&["/a", "/b/c"])).unwrap().len(), 2);
    assert!(parse_list(&[]).unwrap().is_empty());
    let e = parse_list(&list(&["/a", "b"])).unwrap_err();
    assert_eq!(e.index(), Some(1));
    let e = parse_list(&list(&["/a", "/b", "/a"])).unwrap_err();
    assert_eq!(
        e,
        ListError::Duplicate {
            index: 2,
            path: "/a".into()
        }
    );
    // `~1` and `/` name different members; the same member twice is refused
    // whatever its spelling.
    assert!(parse_list(&list(&["/a~1b", "/a/b"])).is_ok());
    let too_many: Vec<String> = (0..=MAX_FIELDS).map(|i| format!("/f{i}")).collect();
    assert_eq!(parse_list(&too_many).unwrap_err(), ListError::TooMany);
    assert!(parse_list(&too_many[..MAX_FIELDS]).is_ok());
}

#[test]
fn paths_are_checked_against_the_schema() {
    let schema = json!({
        "type": "object",
        "$defs": {
            "customer": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "email": {"type": "string"}}
            },
            "node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}
        },
        "properties": {
            "id": {"type": "string"},
            "customer": {"$ref": "#/$defs/customer"},
            "lines": {"type": "array", "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}
            }},
            "payment": {"oneOf": [
                {"type": "object", "properties": {"card": {"type": "object", "properties": {"last4": {}}}}},
                {"type": "object", "properties": {"iban": {"type": "string"}}}
            ]},
            "meta": {"allOf": [{"properties": {"source": {}}}]},
            "free": {"type": "object", "additionalProperties": true},
            "list": {"type": "object", "properties": {"x~y": {}, "a/b": {}}},
            "chain": {"$ref": "#/$defs/node"}
        }
    });
    let ok = [
        "/id",
        "/customer",
        "/customer/email",
        "/lines",
        "/lines/sku",
        "/payment/card/last4",
        "/payment/iban",
        "/meta/source",
        "/free",
        "/list/x~0y",
        "/list/a~1b",
        "/chain/next/next/next",
    ];
    for p in ok {
        assert!(check_in_schema(&schema, &path(p)).is_ok(), "{p}");
    }
    let refused = [
        "/ID",
        "/customer/phone",
        "/lines/0",
        "/lines/sku/x",
        "/payment/card/number",
        "/free/anything",
        "/list/x~1y",
        "/nope",
    ];
    for p in refused {
        let e = check_in_schema(&schema, &path(p)).unwrap_err();
        assert!(e.contains(p), "{p}: {e}");
    }
    // A schema without properties declares nothing; a recursive `$ref`
    // without properties ends.
    assert!(check_in_schema(&json!(true), &path("/a")).is_err());
    assert!(check_in_schema(&json!({"$ref": "#"}), &path("/a")).is_err());
}

#[test]
fn thin_fields_are_never_personal() {
    let thin = [path("/id"), path("/customer")];
    let personal = [path("/customer/email"), path("/phone")];
    let overlaps = thin_personal_overlaps(&thin, &personal);
    assert_eq!(overlaps, vec![(&thin[1], &personal[0])]);
    assert!(thin_personal_overlaps(&[path("/id")], &personal).is_empty());
}

#[test]
fn allow_lists_name_the_personal_data_they_send() {
    let personal = [
        path("/customer/email"),
        path("/phone"),
        path("/address/street"),
    ];
    let cases: &[(&[&str], &[&str])] = &[
        (&[], &[]),
        (&["/total"], &[]),
        (&["/customer"], &["/customer/email"]),
        (&["/customer/email/domain"], &["/customer/email"]),
        (&["/phone", "/address"], &["/phone", "/address/street"]),
        (&["/customer/id", "/phones"], &[]),
    ];
    for (allow, want) in cases {
        let allow: Vec<FieldPath> = allow.iter().map(|p| path(p)).collect();
        let got: Vec<&str> = personal_in_allow_list(&allow, &personal)
            .into_iter()
            .map(FieldPath::as_str)
            .collect();
        assert_eq!(&got, want, "{allow:?}");
    }
}

#[test]
fn projection_table() {
    let data = r#"{"id":"ord_1","customer":{"id":"cus_9","email":"a@example.com","name":"Ann"},"total":{"amount":1250,"currency":"EUR"},"lines":[{"sku":"A","qty":1},{"sku":"B","qty":2},"x",[{"sku":"C"}]],"note":null}"#;
    let cases: &[(&[&str], &str)] = &[
        (&[], "{}"),
        (&["/id"], r#"{"id":"ord_1"}"#),
        // data's order, not the list's
        (
            &["/total", "/id"],
            r#"{"id":"ord_1","total":{"amount":1250,"currency":"EUR"}}"#,
        ),
        (&["/customer/id"], r#"{"customer":{"id":"cus_9"}}"#),
        (
            &["/customer/name", "/customer/id"],
            r#"{"customer":{"id":"cus_9","name":"Ann"}}"#,
        ),
        // a whole member wins over a narrower path, in either order
        (
            &["/customer/id", "/customer"],
            r#"{"customer":{"id":"cus_9","email":"a@example.com","name":"Ann"}}"#,
        ),
        (
            &["/customer", "/customer/id"],
            r#"{"customer":{"id":"cus_9","email":"a@example.com","name":"Ann"}}"#,
        ),
        // arrays: per element; elements without fields left out
        (
            &["/lines/sku"],
            r#"{"lines":[{"sku":"A"},{"sku":"B"},[{"sku":"C"}]]}"#,
        ),
        (&["/lines/nope"], r#"{"lines":[{},{},[{}]]}"#),
        // absent members, and members with nothing selected, are left out
        (&["/missing"], "{}"),
        (&["/customer/phone"], "{}"),
        (&["/id/deeper"], "{}"),
        (&["/note"], r#"{"note":null}"#),
        (&["/note/x"], "{}"),
    ];
    for (fields, want) in cases {
        assert_eq!(proj(data, fields), *want, "{fields:?}");
    }
}

#[test]
fn projection_keeps_bytes() {
    // Values are copied byte for byte: number spellings, escapes, spacing
    // inside a selected value.
    let data = "{ \"n\" : 1.50e2 , \"s\":\"caf\\u00e9 \\\"q\\\"\", \"o\": {\"k\" : [1, 2]} }";
    assert_eq!(
        proj(data, &["/n", "/s", "/o"]),
        "{\"n\":1.50e2,\"s\":\"caf\\u00e9 \\\"q\\\"\",\"o\":{\"k\" : [1, 2]}}"
    );
    // Escaped member names are matched unescaped.
    assert_eq!(
        proj(r#"{"a\/b":1,"c\u0064":2}"#, &["/a~1b", "/cd"]),
        r#"{"a/b":1,"cd":2}"#
    );
    // Duplicate members are kept as they come.
    assert_eq!(proj(r#"{"a":1,"a":2}"#, &["/a"]), r#"{"a":1,"a":2}"#);
}

#[test]
fn non_objects_project_to_an_empty_object() {
    for data in ["[1,2]", "\"s\"", "3", "null", "true"] {
        assert_eq!(proj(data, &["/a"]), "{}", "{data}");
    }
    assert!(project("{", &[]).is_err());
}

#[test]
fn omission_table() {
    let data = r#"{"id":"o1","customer":{"id":"c1","email":"a@x","tags":[{"email":"b@x","k":1},2]},"email":"top"}"#;
    let cases: &[(&[&str], &str)] = &[
        (&[], data),
        (
            &["/email"],
            r#"{"id":"o1","customer":{"id":"c1","email":"a@x","tags":[{"email":"b@x","k":1},2]}}"#,
        ),
        (
            &["/customer/email"],
            r#"{"id":"o1","customer":{"id":"c1","tags":[{"email":"b@x","k":1},2]},"email":"top"}"#,
        ),
        (
            &["/customer/tags/email"],
            r#"{"id":"o1","customer":{"id":"c1","email":"a@x","tags":[{"k":1},2]},"email":"top"}"#,
        ),
        (&["/customer"], r#"{"id":"o1","email":"top"}"#),
        (
            &["/missing", "/id/deeper"],
            r#"{"id":"o1","customer":{"id":"c1","email":"a@x","tags":[{"email":"b@x","k":1},2]},"email":"top"}"#,
        ),
    ];
    for (fields, want) in cases {
        let paths: Vec<FieldPath> = fields.iter().map(|f| path(f)).collect();
        let refs: Vec<&FieldPath> = paths.iter().collect();
        assert_eq!(omit(data, &refs).unwrap(), *want, "{fields:?}");
    }
    // Kept values keep their bytes.
    assert_eq!(
        omit("{\"a\" : 1.0e1, \"b\": 2}", &[&path("/b")]).unwrap(),
        "{\"a\":1.0e1}"
    );
    assert_eq!(omit("[1]", &[&path("/a")]).unwrap(), "[1]");
}

#[test]
fn allow_lists_parse() {
    let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(parse_allow_list(&[]).unwrap(), Allow::thin());
    assert_eq!(parse_allow_list(&list(&["*"])).unwrap(), Allow::Everything);
    assert_eq!(
        parse_allow_list(&list(&["/a", "*"])).unwrap_err(),
        ListError::Everything { index: 1 }
    );
    assert_eq!(
        parse_allow_list(&list(&["/a"])).unwrap(),
        Allow::Fields(vec![path("/a")])
    );
    assert_eq!(
        parse_allow_list(&list(&["a"])).unwrap_err().index(),
        Some(0)
    );
}

#[test]
fn shaping_table() {
    let data = r#"{"id":"o1","customer":{"id":"c1","email":"a@x","name":"Ann"},"total":5}"#;
    let thin = [path("/id"), path("/customer/id")];
    let personal = [path("/customer/email"), path("/customer/name")];
    let fields = |v: &[&str]| Allow::Fields(v.iter().map(|p| path(p)).collect());
    let cases: &[(Allow, bool, &str, &[&str])] = &[
        // thin: identifiers only
        (
            Allow::thin(),
            false,
            r#"{"id":"o1","customer":{"id":"c1"}}"#,
            &[],
        ),
        (
            fields(&["/total"]),
            false,
            r#"{"id":"o1","customer":{"id":"c1"},"total":5}"#,
            &[],
        ),
        // personal data in the list is removed without the flag …
        (
            fields(&["/customer"]),
            false,
            r#"{"id":"o1","customer":{"id":"c1"}}"#,
            &[],
        ),
        (
            Allow::Everything,
            false,
            r#"{"id":"o1","customer":{"id":"c1"},"total":5}"#,
            &[],
        ),
        // … and sent with it
        (
            fields(&["/customer/email"]),
            true,
            r#"{"id":"o1","customer":{"id":"c1","email":"a@x"}}"#,
            &["/customer/email"],
        ),
        (
            Allow::Everything,
            true,
            data,
            &["/customer/email", "/customer/name"],
        ),
        // the flag alone sends nothing more
        (
            Allow::thin(),
            true,
            r#"{"id":"o1","customer":{"id":"c1"}}"#,
            &[],
        ),
    ];
    for (allow, allow_personal_data, want, sent) in cases {
        let plan = Plan {
            thin: &thin,
            personal: &personal,
            allow,
            allow_personal_data: *allow_personal_data,
        };
        assert_eq!(
            shape(data, &plan).unwrap(),
            *want,
            "{allow:?} {allow_personal_data}"
        );
        let got: Vec<&str> = plan
            .personal_sent()
            .into_iter()
            .map(FieldPath::as_str)
            .collect();
        assert_eq!(&got, sent, "{allow:?} {allow_personal_data}");
    }
    // Everything sends data as it is, whatever it is.
    let everything = Plan {
        thin: &thin,
        personal: &[],
        allow: &Allow::Everything,
        allow_personal_data: false,
    };
    assert_eq!(shape("[1, 2]", &everything).unwrap(), "[1, 2]");
}

#[test]
fn shaping_versions() {
    use crate::time::Timestamp as T;
    let versions = [(1, T(100)), (2, T(200)), (3, T(300))];
    let cases: &[(Option<i64>, i64, Option<i64>)] = &[
        (None, 250, Some(2)),
        (None, 200, Some(2)),
        (None, 1_000, Some(3)),
        // the endpoint version is older than the type: its first version
        (None, 50, Some(1)),
        (Some(3), 50, Some(3)),
        (Some(1), 1_000, Some(1)),
        // a pin that names no version falls back to the rule
        (Some(9), 250, Some(2)),
    ];
    for (pinned, started, want) in cases {
        assert_eq!(
            shaping_version(*pinned, &versions, T(*started)),
            *want,
            "{pinned:?} {started}"
        );
    }
    assert_eq!(shaping_version(None, &[], T(1)), None);
}

#[test]
fn shapes_resolve_from_stored_versions() {
    use crate::time::Timestamp as T;
    let types = vec![
        TypeFields {
            version: 1,
            created_at: T(100),
            thin_fields: vec!["/id".into()],
            personal_data_fields: vec!["/email".into()],
        },
        TypeFields {
            version: 2,
            created_at: T(200),
            thin_fields: vec!["/id".into(), "/account".into()],
            personal_data_fields: vec![],
        },
    ];
    let data = r#"{"id":1,"account":"a","email":"e@x","total":3}"#;
    // An endpoint version started before v2 keeps v1's shape …
    let v1 = Shape::resolve(&[], false, None, T(150), &types).unwrap();
    assert_eq!(v1.type_version, Some(1));
    assert_eq!(v1.apply(data).unwrap(), r#"{"id":1}"#);
    // … one started after takes v2's, and a pin wins over the time.
    let v2 = Shape::resolve(&["/total".into()], false, None, T(250), &types).unwrap();
    assert_eq!(v2.type_version, Some(2));
    assert_eq!(
        v2.apply(data).unwrap(),
        r#"{"id":1,"account":"a","total":3}"#
    );
    let pinned = Shape::resolve(&["*".into()], false, Some(1), T(250), &types).unwrap();
    assert_eq!(
        pinned.apply(data).unwrap(),
        r#"{"id":1,"account":"a","total":3}"#
    );
    let pinned = Shape::resolve(&["*".into()], true, Some(1), T(250), &types).unwrap();
    assert_eq!(pinned.apply(data).unwrap(), data);
    // No version: nothing is thin, so an endpoint that chose nothing gets
    // the data whole.
    let none = Shape::resolve(&[], false, None, T(1), &[]).unwrap();
    assert_eq!(
        (none.type_version, none.apply(data).unwrap().as_str()),
        (None, data)
    );
    // A version without thin fields: sent whole, minus its personal data
    // unless the endpoint chose to receive it; a chosen list still projects.
    let plain = vec![TypeFields {
        version: 1,
        created_at: T(100),
        thin_fields: vec![],
        personal_data_fields: vec!["/email".into()],
    }];
    let whole = Shape::resolve(&[], false, None, T(150), &plain).unwrap();
    assert_eq!(
        whole.apply(data).unwrap(),
        r#"{"id":1,"account":"a","total":3}"#
    );
    let opted = Shape::resolve(&[], true, None, T(150), &plain).unwrap();
    assert_eq!(opted.apply(data).unwrap(), data);
    let chosen = Shape::resolve(&["/total".into()], false, None, T(150), &plain).unwrap();
    assert_eq!(chosen.apply(data).unwrap(), r#"{"total":3}"#);
    // A stored list that no longer parses is an error.
    let mut bad = types.clone();
    bad[0].thin_fields = vec!["id".into()];
    assert!(Shape::resolve(&[], false, Some(1), T(1), &bad).is_err());
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i32>().prop_map(serde_json::Value::from),
        "[a-c]{0,3}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::btree_map("[a-c]", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_path() -> impl Strategy<Value = FieldPath> {
    prop::collection::vec("[a-c]", 1..4).prop_map(|t| path(&format!("/{}", t.join("/"))))
}

/// What the projection must hold, computed on parsed values: every selected
/// leaf present in `data` is in the projection with the same value, and
/// nothing unselected is.
fn selected(value: &serde_json::Value, tokens: &[String]) -> Vec<serde_json::Value> {
    match (tokens.split_first(), value) {
        (None, v) => vec![v.clone()],
        (Some((first, rest)), serde_json::Value::Object(m)) => {
            m.get(first).map(|v| selected(v, rest)).unwrap_or_default()
        }
        (Some(_), serde_json::Value::Array(items)) => {
            items.iter().flat_map(|i| selected(i, tokens)).collect()
        }
        _ => vec![],
    }
}

proptest! {
    #[test]
    fn projection_is_valid_json_and_deterministic(data in arb_json(), fields in prop::collection::vec(arb_path(), 0..4)) {
        let text = serde_json::to_string(&data).unwrap();
        let refs: Vec<&FieldPath> = fields.iter().collect();
        let once = project(&text, &refs).unwrap();
        prop_assert_eq!(&once, &project(&text, &refs).unwrap());
        let parsed: serde_json::Value = serde_json::from_str(&once).unwrap();
        prop_assert!(parsed.is_object());
        prop_assert!(once.len() <= text.len().max(2), "{} longer than {}", once, text);
        // Projecting again onto the same fields changes nothing.
        prop_assert_eq!(&project(&once, &refs).unwrap(), &once);
        // Every selected value present in data is in the projection.
        if data.is_object() {
            for f in &fields {
                prop_assert_eq!(selected(&parsed, f.tokens()), selected(&data, f.tokens()), "{}", f);
            }
        }
        // Nothing is there that no field selects: every leaf path of the
        // projection lies on some field's path.
        fn leaves(v: &serde_json::Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
            match v {
                serde_json::Value::Object(m) if !m.is_empty() => {
                    for (k, x) in m { at.push(k.clone()); leaves(x, at, out); at.pop(); }
                }
                serde_json::Value::Array(items) => for x in items { leaves(x, at, out) },
                _ => out.push(at.clone()),
            }
        }
        let mut found = Vec::new();
        leaves(&parsed, &mut Vec::new(), &mut found);
        for leaf in found {
            if leaf.is_empty() { continue; }
            prop_assert!(
                fields.iter().any(|f| f.tokens().starts_with(&leaf) || leaf.starts_with(f.tokens())),
                "{:?} not selected", leaf
            );
        }
    }
}
