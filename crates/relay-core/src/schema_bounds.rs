//! Bounds on a tenant's JSON Schema, checked before anything walks or
//! compiles it.
//!
//! A schema is a program Relay runs on every publish, written by a tenant
//! who may be hostile. A few hundred bytes whose `allOf`/`anyOf`/`oneOf`
//! branches and `$ref`s lead to the same subschemas again and again cost
//! exponential time to validate with, or to walk naively. [`check`] refuses,
//! in time linear in the schema's size:
//!
//! - a schema over [`MAX_SCHEMA_BYTES`] or nested deeper than
//!   [`MAX_SCHEMA_DEPTH`];
//! - a `$ref` that does not name a place inside the schema (`#/$defs/x`,
//!   `#anchor`, the schema's own `$id`), and an `$id` inside it (an embedded
//!   resource would make `#/…` pointers mean something else below it);
//! - a loop of `$ref`s and branches that never descends into the data
//!   (`{"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}}`): validation
//!   would never end;
//! - a schema whose [`Cost::per_value`] is over [`MAX_COST_PER_VALUE`].
//!
//! **The cost model.** Validation applies subschemas to the values of an
//! instance. At one value, a subschema applies itself and its *in-place*
//! subschemas (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
//! `dependentSchemas`, `$ref`, `$dynamicRef`, `$recursiveRef`), each as often
//! as a route of such keywords reaches it; it passes *descending* subschemas
//! (`properties`, `items`, `additionalProperties`, …) on to the value's
//! members. `width(s, d)` bounds the weighted number of subschema
//! applications at any one value `d` members below the value `s` is applied
//! to: for the members a named keyword (`properties`, `prefixItems`) reaches,
//! only the costliest name counts (a member has one name), while keywords
//! that reach any member (`patternProperties`, `additionalProperties`,
//! `items`, …) all count. A subschema's weight is 1 plus the size of what its
//! own keywords compare (`enum` values, `required` names, `properties`
//! entries, …). Then no value of an instance at most
//! [`crate::validate::MAX_JSON_DEPTH`] deep costs more than
//! `per_value = max over d of width(root, d)`, and validating an instance
//! of `n` values costs at most `n × per_value`: the bound the API uses to
//! refuse a publish that would cost too much ([`publish_cost`]).

use std::collections::HashMap;

use serde_json::Value;

use crate::validate::MAX_JSON_DEPTH;

/// The largest schema accepted, in bytes of compact JSON.
pub const MAX_SCHEMA_BYTES: usize = 256 * 1024;
/// The deepest nesting of arrays and objects in a schema.
pub const MAX_SCHEMA_DEPTH: usize = MAX_JSON_DEPTH;
/// The most a schema may cost at one value of an instance (see the module's
/// cost model): real schemas cost tens to a few hundred.
pub const MAX_COST_PER_VALUE: u64 = 10_000;
/// The most one validation may cost (`values × per_value`): a few hundred
/// milliseconds of one core at worst.
pub const MAX_VALIDATION_COST: u64 = 20_000_000;

/// What a schema that passed [`check`] costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// The most validation costs at one value of an instance.
    pub per_value: u64,
}

/// Why a schema was refused. [`BoundsError::code`] is the API's stable code;
/// [`BoundsError::at`] the JSON Pointer (inside the schema) of the place at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoundsError {
    #[error("the schema is {bytes} bytes; at most {MAX_SCHEMA_BYTES} are accepted")]
    TooLarge { bytes: usize },
    #[error("the schema is nested {depth} levels deep; at most {MAX_SCHEMA_DEPTH} are accepted")]
    TooDeep { depth: usize },
    #[error(
        "`$ref` `{reference}` does not name a place inside this schema: Relay accepts references to `#/…` (a JSON Pointer into the schema), `#anchor` and the schema's own `$id`, never a fetch"
    )]
    UnresolvedRef { at: String, reference: String },
    #[error(
        "an `$id` inside the schema (an embedded resource) is not accepted: put its definitions under `$defs` and refer to them with `#/$defs/…`"
    )]
    EmbeddedId { at: String },
    #[error(
        "`$ref`s and `allOf`/`anyOf`/`oneOf`/`not`/`if` branches lead from here back here without descending into the data: validation would never end"
    )]
    RefLoop { at: String },
    #[error(
        "validating one value through this schema can apply up to {cost} (weighted) subschemas, over the {MAX_COST_PER_VALUE} accepted: its `$ref`s and `allOf`/`anyOf`/`oneOf` branches reach the same subschemas many times over"
    )]
    TooCostly { cost: u64 },
}

impl BoundsError {
    /// The stable problem code.
    pub fn code(&self) -> &'static str {
        match self {
            BoundsError::TooLarge { .. } => "schema_too_large",
            // Codes the API answered before these bounds existed.
            BoundsError::TooDeep { .. } => "validation_failed",
            BoundsError::UnresolvedRef { .. } | BoundsError::EmbeddedId { .. } => "invalid_schema",
            BoundsError::RefLoop { .. } | BoundsError::TooCostly { .. } => "schema_too_complex",
        }
    }

    /// The JSON Pointer inside the schema of the place at fault (`""` for
    /// the whole schema).
    pub fn at(&self) -> &str {
        match self {
            BoundsError::TooLarge { .. }
            | BoundsError::TooDeep { .. }
            | BoundsError::TooCostly { .. } => "",
            BoundsError::UnresolvedRef { at, .. }
            | BoundsError::EmbeddedId { at }
            | BoundsError::RefLoop { at } => at,
        }
    }
}

/// Checks `schema` against every bound, in time linear in its size (the
/// size and depth first, before anything else looks inside it).
pub fn check(schema: &Value) -> Result<Cost, BoundsError> {
    let depth = crate::validate::json_depth(schema);
    if depth > MAX_SCHEMA_DEPTH {
        return Err(BoundsError::TooDeep { depth });
    }
    let bytes = compact_len(schema);
    if bytes > MAX_SCHEMA_BYTES {
        return Err(BoundsError::TooLarge { bytes });
    }
    let graph = Graph::build(schema)?;
    graph.cost()
}

/// What validating an instance of `values` values costs with a schema of
/// `cost`, or `Err` with that figure when it is over [`MAX_VALIDATION_COST`].
pub fn publish_cost(cost: Cost, values: usize) -> Result<u64, u64> {
    let total = cost.per_value.saturating_mul(values as u64);
    if total > MAX_VALIDATION_COST {
        Err(total)
    } else {
        Ok(total)
    }
}

/// The number of values in `value` (itself, and every member and element,
/// recursively).
pub fn count_values(value: &Value) -> usize {
    let mut count = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
}

/// The length of `value` as compact JSON, without building the text.
fn compact_len(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Counter(0);
    // Writing to a counter cannot fail, and the value is nested no deeper
    // than MAX_SCHEMA_DEPTH here.
    let _ = serde_json::to_writer(&mut c, value);
    c.0
}

/// Keywords whose value is one subschema applied to the same value.
const IN_PLACE_ONE: &[&str] = &["not", "if", "then", "else", "contentSchema"];
/// Keywords whose value is an array of subschemas applied to the same value.
const IN_PLACE_ARRAY: &[&str] = &["allOf", "anyOf", "oneOf"];
/// Keywords whose value maps names to subschemas applied to the same value.
const IN_PLACE_MAP: &[&str] = &["dependentSchemas", "dependencies"];
/// Keywords whose value is one subschema applied to any member or element.
const ANY_ONE: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "additionalItems",
    "unevaluatedItems",
    "contains",
];
/// Keywords that hold definitions or annotations: never applied by
/// themselves, so they weigh nothing (a `$ref` into them is followed).
const INERT: &[&str] = &[
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$comment",
    "$vocabulary",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// One subschema: its weight and where its keywords lead.
#[derive(Default)]
struct Node {
    pointer: String,
    weight: u64,
    /// Subschemas applied to the same value (with repetition).
    in_place: Vec<usize>,
    /// Subschemas applied to the member or element of one name or index.
    named: Vec<usize>,
    /// Subschemas applied to any member or element.
    any: Vec<usize>,
}

struct Graph {
    nodes: Vec<Node>,
}

/// A JSON Pointer token (RFC 6901).
fn token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Percent-decodes a URI fragment (`%24defs` → `$defs`); `None` when the
/// result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (
                (bytes[i + 1] as char).to_digit(16),
                (bytes[i + 2] as char).to_digit(16),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The size of what a keyword's value holds: the number of JSON values in it.
fn weight_of(value: &Value) -> u64 {
    crate::schema_bounds::count_values(value) as u64
}

struct Builder<'a> {
    root: &'a Value,
    root_id: Option<&'a str>,
    ids: HashMap<usize, usize>,
    nodes: Vec<Node>,
    /// Subschemas found but not yet read.
    pending: Vec<(usize, &'a Value)>,
    /// `$anchor`/`$dynamicAnchor` names and the subschemas that carry them.
    anchors: HashMap<String, Vec<usize>>,
    dynamic_anchors: HashMap<String, Vec<usize>>,
    recursive_anchors: Vec<usize>,
    /// Subschemas with a reference to resolve once every anchor is known:
    /// (node, keyword, reference).
    refs: Vec<(usize, &'static str, &'a str)>,
    legacy_ids: bool,
}

impl<'a> Builder<'a> {
    /// The node of `value`, read later if it is new.
    fn node(&mut self, value: &'a Value, pointer: String) -> usize {
        let key = std::ptr::from_ref(value) as usize;
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            pointer,
            ..Node::default()
        });
        self.ids.insert(key, id);
        self.pending.push((id, value));
        id
    }

    fn read(&mut self, id: usize, value: &'a Value) -> Result<(), BoundsError> {
        let Some(obj) = value.as_object() else {
            self.nodes[id].weight = 1;
            return Ok(());
        };
        let here = self.nodes[id].pointer.clone();
        let at = |k: &str| format!("{here}/{}", token(k));
        let mut weight: u64 = 1;
        let mut in_place = Vec::new();
        let mut named = Vec::new();
        let mut any = Vec::new();
        for (k, v) in obj {
            let k = k.as_str();
            let is_schema = |v: &Value| v.is_object() || v.is_boolean();
            if IN_PLACE_ONE.contains(&k) && is_schema(v) {
                in_place.push(self.node(v, at(k)));
                weight += 1;
            } else if IN_PLACE_ARRAY.contains(&k) && v.is_array() {
                for (i, b) in v.as_array().into_iter().flatten().enumerate() {
                    in_place.push(self.node(b, format!("{}/{i}", at(k))));
                }
                weight += v.as_array().map_or(1, |a| a.len() as u64);
            } else if IN_PLACE_MAP.contains(&k) && v.is_object() {
                for (name, s) in v.as_object().into_iter().flatten() {
                    if is_schema(s) {
                        in_place.push(self.node(s, format!("{}/{}", at(k), token(name))));
                        weight += 1;
                    } else {
                        // `dependencies` may hold arrays of names.
                        weight += weight_of(s);
                    }
                }
            } else if k == "properties" && v.is_object() {
                for (name, s) in v.as_object().into_iter().flatten() {
                    named.push(self.node(s, format!("{}/{}", at(k), token(name))));
                }
                weight += v.as_object().map_or(1, |m| m.len() as u64);
            } else if k == "patternProperties" && v.is_object() {
                for (name, s) in v.as_object().into_iter().flatten() {
                    any.push(self.node(s, format!("{}/{}", at(k), token(name))));
                }
                weight += v.as_object().map_or(1, |m| m.len() as u64);
            } else if (k == "prefixItems" || k == "items") && v.is_array() {
                for (i, s) in v.as_array().into_iter().flatten().enumerate() {
                    named.push(self.node(s, format!("{}/{i}", at(k))));
                }
                weight += v.as_array().map_or(1, |a| a.len() as u64);
            } else if (k == "items" || ANY_ONE.contains(&k)) && is_schema(v) {
                any.push(self.node(v, at(k)));
                weight += 1;
            } else if let ("$ref" | "$dynamicRef" | "$recursiveRef", Some(r)) = (k, v.as_str()) {
                let keyword = match k {
                    "$ref" => "$ref",
                    "$dynamicRef" => "$dynamicRef",
                    _ => "$recursiveRef",
                };
                self.refs.push((id, keyword, r));
                weight += 1;
            } else if k == "$anchor" && v.is_string() {
                let name = v.as_str().unwrap_or_default().to_string();
                self.anchors.entry(name).or_default().push(id);
            } else if k == "$dynamicAnchor" && v.is_string() {
                let name = v.as_str().unwrap_or_default().to_string();
                self.anchors.entry(name.clone()).or_default().push(id);
                self.dynamic_anchors.entry(name).or_default().push(id);
            } else if k == "$recursiveAnchor" && v == &Value::Bool(true) {
                self.recursive_anchors.push(id);
            } else if k == "$id" || (k == "id" && self.legacy_ids) {
                let Some(text) = v.as_str() else { continue };
                // Before 2019-09, `"$id": "#name"` names an anchor.
                if let Some(name) = text.strip_prefix('#')
                    && !name.is_empty()
                    && !name.starts_with('/')
                {
                    self.anchors.entry(name.to_string()).or_default().push(id);
                } else if !std::ptr::eq(value, self.root) {
                    return Err(BoundsError::EmbeddedId { at: at(k) });
                }
            } else if (k == "$defs" || k == "definitions") && v.is_object() {
                // Read for their anchors; applied only through a reference.
                for (name, s) in v.as_object().into_iter().flatten() {
                    self.node(s, format!("{}/{}", at(k), token(name)));
                }
            } else if !INERT.contains(&k) {
                weight += weight_of(v);
            }
        }
        let node = &mut self.nodes[id];
        node.weight = weight;
        node.in_place = in_place;
        node.named = named;
        node.any = any;
        Ok(())
    }

    /// Reads every subschema reachable from the root.
    fn drain(&mut self) -> Result<(), BoundsError> {
        while let Some((id, value)) = self.pending.pop() {
            self.read(id, value)?;
        }
        Ok(())
    }

    /// The subschemas `reference` names (several when an anchor name is
    /// used more than once).
    fn resolve(&mut self, at: &str, reference: &str) -> Result<Vec<usize>, BoundsError> {
        let unresolved = || BoundsError::UnresolvedRef {
            at: at.to_string(),
            reference: reference.to_string(),
        };
        let (base, fragment) = match reference.split_once('#') {
            Some((b, f)) => (b, f),
            None => (reference, ""),
        };
        if !base.is_empty() {
            // Only the schema's own `$id`, absolute or by its last segments.
            let own = self
                .root_id
                .map(|id| id.split('#').next().unwrap_or_default())
                .filter(|id| !id.is_empty());
            match own {
                Some(id) if id == base || id.ends_with(&format!("/{base}")) => {}
                _ => return Err(unresolved()),
            }
        }
        let fragment = percent_decode(fragment).ok_or_else(unresolved)?;
        if fragment.is_empty() || fragment.starts_with('/') {
            let target = self.root.pointer(&fragment).ok_or_else(unresolved)?;
            let id = self.node(target, fragment);
            self.drain()?;
            return Ok(vec![id]);
        }
        match self.anchors.get(&fragment) {
            Some(targets) => Ok(targets.clone()),
            None => Err(unresolved()),
        }
    }
}

impl Graph {
    fn build(root: &Value) -> Result<Graph, BoundsError> {
        let root_id = root.get("$id").and_then(Value::as_str);
        let legacy_ids = root
            .get("$schema")
            .and_then(Value::as_str)
            .is_some_and(|s| s.contains("draft-04") || s.contains("draft-03"));
        let mut b = Builder {
            root,
            root_id,
            ids: HashMap::new(),
            nodes: Vec::new(),
            pending: Vec::new(),
            anchors: HashMap::new(),
            dynamic_anchors: HashMap::new(),
            recursive_anchors: Vec::new(),
            refs: Vec::new(),
            legacy_ids,
        };
        b.node(root, String::new());
        b.drain()?;
        // References resolve once every anchor reachable so far is known;
        // a pointer may reach new subschemas (and their references) too.
        let mut done = 0;
        while done < b.refs.len() {
            let (id, keyword, reference) = b.refs[done];
            done += 1;
            let at = format!("{}/{keyword}", b.nodes[id].pointer);
            let mut targets = match keyword {
                "$recursiveRef" => {
                    let mut t = b.resolve(&at, reference)?;
                    t.extend(b.recursive_anchors.iter().copied());
                    t
                }
                "$dynamicRef" => {
                    let mut t = b.resolve(&at, reference)?;
                    let name = reference.rsplit_once('#').map_or("", |(_, f)| f);
                    if let Some(d) = b.dynamic_anchors.get(name) {
                        t.extend(d.iter().copied());
                    }
                    t
                }
                _ => b.resolve(&at, reference)?,
            };
            // The validator skips an empty `$ref` and one to the subschema
            // that holds it (they would only loop).
            if keyword == "$ref" {
                if reference.is_empty() {
                    targets.clear();
                }
                targets.retain(|t| *t != id);
            }
            b.nodes[id].in_place.append(&mut targets);
        }
        Ok(Graph { nodes: b.nodes })
    }

    /// The in-place edges in an order where every subschema comes after
    /// those it applies in place, or the loop that prevents one.
    fn order(&self) -> Result<Vec<usize>, BoundsError> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let mut mark = vec![Mark::New; self.nodes.len()];
        let mut order = Vec::with_capacity(self.nodes.len());
        for start in 0..self.nodes.len() {
            if mark[start] != Mark::New {
                continue;
            }
            // (node, next edge to follow)
            let mut stack = vec![(start, 0usize)];
            mark[start] = Mark::Open;
            while let Some((n, edge)) = stack.last_mut() {
                let n = *n;
                if let Some(&next) = self.nodes[n].in_place.get(*edge) {
                    *edge += 1;
                    match mark[next] {
                        Mark::New => {
                            mark[next] = Mark::Open;
                            stack.push((next, 0));
                        }
                        Mark::Open => {
                            return Err(BoundsError::RefLoop {
                                at: self.nodes[next].pointer.clone(),
                            });
                        }
                        Mark::Done => {}
                    }
                } else {
                    mark[n] = Mark::Done;
                    order.push(n);
                    stack.pop();
                }
            }
        }
        Ok(order)
    }

    /// `max over d of width(root, d)` (see the module's cost model), level
    /// by level: each level is one pass over the in-place edges in order.
    fn cost(&self) -> Result<Cost, BoundsError> {
        let order = self.order()?;
        let n = self.nodes.len();
        let mut below = vec![0u64; n]; // width(s, d - 1)
        let mut level = vec![0u64; n]; // width(s, d)
        let mut per_value = 0u64;
        for d in 0..=MAX_JSON_DEPTH {
            for &s in &order {
                let node = &self.nodes[s];
                let own = if d == 0 {
                    node.weight
                } else {
                    let named = node.named.iter().map(|&c| below[c]).max().unwrap_or(0);
                    node.any
                        .iter()
                        .fold(named, |sum, &c| sum.saturating_add(below[c]))
                };
                level[s] = node
                    .in_place
                    .iter()
                    .fold(own, |sum, &c| sum.saturating_add(level[c]));
            }
            per_value = per_value.max(level[0]);
            if per_value > MAX_COST_PER_VALUE {
                return Err(BoundsError::TooCostly { cost: per_value });
            }
            std::mem::swap(&mut below, &mut level);
        }
        Ok(Cost { per_value })
    }
}

#[cfg(test)]
mod tests;
