//! Naming and shape rules for API input.
//!
//! Each function returns `Ok` or a sentence saying what is wrong; the API turns
//! that sentence into a field error. Kept here, pure, so the rules are tested
//! as tables and shared by every entry point (API, CLI, portal).

/// Past participles that do not end in `-ed`, accepted as the verb of an event name.
const IRREGULAR_PAST: &[&str] = &[
    "arisen",
    "become",
    "begun",
    "bitten",
    "blown",
    "born",
    "bought",
    "bound",
    "broken",
    "brought",
    "built",
    "caught",
    "chosen",
    "come",
    "cut",
    "done",
    "drawn",
    "driven",
    "eaten",
    "fallen",
    "felt",
    "forbidden",
    "forgotten",
    "found",
    "frozen",
    "given",
    "gone",
    "got",
    "gotten",
    "grown",
    "held",
    "hidden",
    "hit",
    "hung",
    "kept",
    "known",
    "laid",
    "led",
    "left",
    "lent",
    "let",
    "lost",
    "made",
    "meant",
    "met",
    "overridden",
    "paid",
    "put",
    "quit",
    "read",
    "rebuilt",
    "redone",
    "remade",
    "rerun",
    "resent",
    "reset",
    "rewritten",
    "ridden",
    "risen",
    "run",
    "said",
    "seen",
    "sent",
    "set",
    "shown",
    "shut",
    "sold",
    "spent",
    "split",
    "spoken",
    "spun",
    "stolen",
    "struck",
    "stuck",
    "swept",
    "taken",
    "taught",
    "thrown",
    "told",
    "torn",
    "undone",
    "upheld",
    "withdrawn",
    "won",
    "worn",
    "written",
];

/// Event type names follow `noun.verb_past`: two or more lowercase
/// `snake_case` segments joined by dots, the last ending in a past participle
/// (`order.shipped`, `webhook.attempt_exhausted`, `message.read`).
pub fn event_type_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 128 {
        return Err("must be 1 to 128 characters".into());
    }
    let segments: Vec<&str> = name.split('.').collect();
    if segments.len() < 2 {
        return Err("must follow noun.verb_past, for example order.shipped".into());
    }
    for seg in &segments {
        let ok = seg.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && seg
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            && !seg.ends_with('_')
            && !seg.contains("__");
        if !ok {
            return Err(format!(
                "segment `{seg}` must be lowercase snake_case starting with a letter"
            ));
        }
    }
    let verb = segments[segments.len() - 1];
    let last_word = verb.rsplit('_').next().unwrap_or(verb);
    if !(last_word.ends_with("ed") || IRREGULAR_PAST.contains(&last_word)) {
        return Err(format!(
            "the last segment `{verb}` must end in a past participle (noun.verb_past), for example order.shipped"
        ));
    }
    Ok(())
}

/// A subscription entry is an event type name or the explicit wildcard `*`.
pub fn subscription_entry(entry: &str) -> Result<(), String> {
    if entry == "*" {
        return Ok(());
    }
    event_type_name(entry)
}

/// Client-chosen ids (event ids, external ids): 1–255 visible ASCII
/// characters from `A-Z a-z 0-9 _ - . : / @ |`.
pub fn client_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > 255 {
        return Err("must be 1 to 255 characters".into());
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"_-.:/@|".contains(&b))
    {
        return Err("may contain only letters, digits and _ - . : / @ |".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_type_names() {
        let cases: &[(&str, bool)] = &[
            ("order.shipped", true),
            ("webhook.attempt_exhausted", true),
            ("webhook_endpoint.disabled", true),
            ("notification.render_failed", true),
            ("message.read", true),
            ("invoice.paid", true),
            ("email.sent", true),
            ("shop.order.created", true),
            ("order2.updated", true),
            ("order", false),
            ("order.ship", false),
            ("Order.shipped", false),
            ("order.Shipped", false),
            ("order..shipped", false),
            (".shipped", false),
            ("order.shipped.", false),
            ("order-x.shipped", false),
            ("order._shipped", false),
            ("order.shipped_", false),
            ("order.ship__ped", false),
            ("1order.shipped", false),
            ("", false),
            ("order.shipped ", false),
        ];
        for (name, ok) in cases {
            assert_eq!(event_type_name(name).is_ok(), *ok, "{name}");
        }
        assert!(event_type_name(&format!("a.{}ed", "x".repeat(130))).is_err());
    }

    #[test]
    fn subscriptions_accept_the_explicit_wildcard_only() {
        assert!(subscription_entry("*").is_ok());
        assert!(subscription_entry("order.*").is_err());
        assert!(subscription_entry("order.shipped").is_ok());
    }

    #[test]
    fn client_ids() {
        for ok in ["evt_1", "a", "order:42/v1", "x@y|z"] {
            assert!(client_id(ok).is_ok(), "{ok}");
        }
        for bad in ["", "has space", "tab\t", "ümlaut", &"x".repeat(256)] {
            assert!(client_id(bad).is_err(), "{bad}");
        }
    }
}

/// The deepest nesting of arrays and objects Relay accepts in a schema, a
/// sample or a payload. Deeper documents are refused: they serve no real use,
/// cost recursion in every parser, and would make Relay's own responses (which
/// embed them a few levels down) unreadable to clients with common limits.
pub const MAX_JSON_DEPTH: usize = 64;

/// The nesting depth of `value` (a scalar is 0, `[]` and `{}` are 1).
pub fn json_depth(value: &serde_json::Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => {
                deepest = deepest.max(depth + 1);
                stack.extend(items.iter().map(|i| (i, depth + 1)));
            }
            serde_json::Value::Object(map) => {
                deepest = deepest.max(depth + 1);
                stack.extend(map.values().map(|i| (i, depth + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// Refuses documents nested deeper than [`MAX_JSON_DEPTH`].
pub fn json_nesting(value: &serde_json::Value) -> Result<(), String> {
    let depth = json_depth(value);
    if depth > MAX_JSON_DEPTH {
        return Err(format!(
            "is nested {depth} levels deep; at most {MAX_JSON_DEPTH} are accepted"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod depth_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_counts_arrays_and_objects() {
        assert_eq!(json_depth(&json!(1)), 0);
        assert_eq!(json_depth(&json!([])), 1);
        assert_eq!(json_depth(&json!({"a": [1, {"b": []}]})), 4);
        let mut deep = json!(0);
        for _ in 0..MAX_JSON_DEPTH {
            deep = json!([deep]);
        }
        assert!(json_nesting(&deep).is_ok());
        assert!(json_nesting(&json!([deep])).is_err());
    }
}
