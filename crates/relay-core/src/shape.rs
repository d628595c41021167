//! Thin events and snapshots: which fields of an event's `data` an endpoint
//! receives.
//!
//! An event type's version names its **thin fields** (identifiers, always
//! sent) and its **personal-data fields**; an endpoint's version adds an
//! **allow list** (its snapshot fields). What an endpoint receives is the
//! [`project`]ion of the event's `data` onto the union of the two, a pure
//! function of the stored bytes and the immutable versions, so every attempt,
//! resend, recovery and replay of a message sends the same bytes.
//!
//! Fields are named by [`FieldPath`]s: JSON Pointers (RFC 6901) through
//! object members. A path that meets an array applies to each of its
//! elements (`/lines/sku` selects `sku` of every line), so the pointer never
//! names an index. [`check_in_schema`] checks a path against an event type
//! version's JSON Schema (through `properties`, `items`, local `$ref`s and
//! `allOf`/`anyOf`/`oneOf`), so a typo is refused when the list is set rather
//! than silently sending nothing.

use std::fmt;

use crate::time::Timestamp;

/// The most fields a list (thin fields, personal-data fields, allow list) holds.
pub const MAX_FIELDS: usize = 64;
/// The longest field path, in bytes.
pub const MAX_PATH_BYTES: usize = 512;
/// The deepest field path, in members.
pub const MAX_DEPTH: usize = 16;
/// The size a thin payload should stay under (the reference: "under 20 kB");
/// a bigger one is reported, never refused.
pub const THIN_TARGET_BYTES: usize = 20_000;

/// A field of an event's `data`: a JSON Pointer through object members,
/// such as `/customer/id`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath {
    text: String,
    tokens: Vec<String>,
}

/// Why a text is not a field path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("`{0}` is not a JSON Pointer to a field (such as /customer/email)")]
    NotPointer(String),
    #[error("`{0}` has a `~` not followed by 0 or 1")]
    Escape(String),
    #[error("`{0}` names an empty member")]
    EmptyMember(String),
    #[error("a field path is at most {MAX_PATH_BYTES} bytes and {MAX_DEPTH} members deep")]
    TooLong,
}

impl FieldPath {
    /// Parses a JSON Pointer naming a field (`/a/b`, with `~0` for `~` and
    /// `~1` for `/`). The root (`""`) and empty members (`/a//b`) are refused.
    pub fn parse(text: &str) -> Result<Self, PathError> {
        if text.len() > MAX_PATH_BYTES {
            return Err(PathError::TooLong);
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(PathError::NotPointer(text.to_string()));
        };
        let mut tokens = Vec::new();
        for raw in rest.split('/') {
            if raw.is_empty() {
                return Err(PathError::EmptyMember(text.to_string()));
            }
            let mut token = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                match c {
                    '~' => match chars.next() {
                        Some('0') => token.push('~'),
                        Some('1') => token.push('/'),
                        _ => return Err(PathError::Escape(text.to_string())),
                    },
                    c => token.push(c),
                }
            }
            tokens.push(token);
        }
        if tokens.len() > MAX_DEPTH {
            return Err(PathError::TooLong);
        }
        Ok(FieldPath {
            text: text.to_string(),
            tokens,
        })
    }

    /// The pointer as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The member names, unescaped.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// Whether `other` is this field or inside it (`/customer` contains
    /// `/customer/email`).
    pub fn contains(&self, other: &FieldPath) -> bool {
        other.tokens.starts_with(&self.tokens)
    }

    /// Whether sending one of the two sends some of the other.
    pub fn overlaps(&self, other: &FieldPath) -> bool {
        self.contains(other) || other.contains(self)
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a list of field paths was refused; `index` is the entry's position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("at most {MAX_FIELDS} fields")]
    TooMany,
    #[error("{error}")]
    Path { index: usize, error: PathError },
    #[error("`{path}` is listed twice")]
    Duplicate { index: usize, path: String },
    #[error("`*` (every field) stands alone in an allow list")]
    Everything { index: usize },
}

impl ListError {
    /// The entry the error is about, when it is about one.
    pub fn index(&self) -> Option<usize> {
        match self {
            ListError::TooMany => None,
            ListError::Path { index, .. }
            | ListError::Duplicate { index, .. }
            | ListError::Everything { index } => Some(*index),
        }
    }
}

/// Parses a list of field paths: at most [`MAX_FIELDS`], each valid, none twice.
pub fn parse_list(list: &[String]) -> Result<Vec<FieldPath>, ListError> {
    if list.len() > MAX_FIELDS {
        return Err(ListError::TooMany);
    }
    let mut out: Vec<FieldPath> = Vec::with_capacity(list.len());
    for (index, text) in list.iter().enumerate() {
        let path = FieldPath::parse(text).map_err(|error| ListError::Path { index, error })?;
        if out.iter().any(|p| p.tokens == path.tokens) {
            return Err(ListError::Duplicate {
                index,
                path: text.clone(),
            });
        }
        out.push(path);
    }
    Ok(out)
}

/// How deep `$ref`s are followed before a path is declared absent (a
/// recursive schema ends here).
const MAX_REFS: usize = 32;

/// Whether `path` names a field the schema declares: every member is named
/// in a `properties` (through an array's `items`, local `$ref`s such as
/// `#/$defs/customer`, and any branch of `allOf`, `anyOf`, `oneOf`). A schema
/// that merely allows other members (`additionalProperties`) does not
/// declare them.
pub fn check_in_schema(schema: &serde_json::Value, path: &FieldPath) -> Result<(), String> {
    if declared(schema, schema, &path.tokens, MAX_REFS) {
        Ok(())
    } else {
        Err(format!(
            "`{path}` is not a field the event type's schema declares (through `properties`, `items`, `$ref`, `allOf`, `anyOf`, `oneOf`)"
        ))
    }
}

fn declared(
    root: &serde_json::Value,
    node: &serde_json::Value,
    tokens: &[String],
    refs: usize,
) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return true;
    };
    let Some(obj) = node.as_object() else {
        return false;
    };
    if let Some(r) = obj.get("$ref").and_then(|r| r.as_str())
        && refs > 0
        && let Some(target) = r
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
        && declared(root, target, tokens, refs - 1)
    {
        return true;
    }
    for combinator in ["allOf", "anyOf", "oneOf"] {
        if let Some(branches) = obj.get(combinator).and_then(|b| b.as_array())
            && branches.iter().any(|b| declared(root, b, tokens, refs))
        {
            return true;
        }
    }
    if let Some(member) = obj.get("properties").and_then(|p| p.get(first))
        && declared(root, member, rest, refs)
    {
        return true;
    }
    match obj.get("items") {
        Some(items) if items.is_object() => declared(root, items, tokens, refs),
        _ => false,
    }
}

/// The thin fields that are also personal data (`(thin, personal)` pairs):
/// a thin field is always sent, so none may overlap a personal-data field.
pub fn thin_personal_overlaps<'a>(
    thin: &'a [FieldPath],
    personal: &'a [FieldPath],
) -> Vec<(&'a FieldPath, &'a FieldPath)> {
    thin.iter()
        .flat_map(|t| {
            personal
                .iter()
                .filter(|p| t.overlaps(p))
                .map(move |p| (t, p))
        })
        .collect()
}

/// The personal-data fields an allow list would send, in the order of
/// `personal`: those inside an allowed field, or holding one.
pub fn personal_in_allow_list<'a>(
    allow: &[FieldPath],
    personal: &'a [FieldPath],
) -> Vec<&'a FieldPath> {
    personal
        .iter()
        .filter(|p| allow.iter().any(|a| a.overlaps(p)))
        .collect()
}

/// The allow list entry that stands for every field.
pub const EVERYTHING: &str = "*";

/// An endpoint version's allow list: fields added to the thin ones, or
/// every field (`["*"]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allow {
    Fields(Vec<FieldPath>),
    Everything,
}

impl Allow {
    /// Thin: no field beyond the thin ones.
    pub fn thin() -> Self {
        Allow::Fields(Vec::new())
    }
}

/// Parses an allow list: field paths as [`parse_list`], or `["*"]` alone.
pub fn parse_allow_list(list: &[String]) -> Result<Allow, ListError> {
    match list.iter().position(|f| f == EVERYTHING) {
        Some(_) if list.len() == 1 => Ok(Allow::Everything),
        Some(index) => Err(ListError::Everything { index }),
        None => parse_list(list).map(Allow::Fields),
    }
}

/// What one endpoint version sends of one event type version's `data`.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    /// The event type version's thin fields.
    pub thin: &'a [FieldPath],
    /// The event type version's personal-data fields.
    pub personal: &'a [FieldPath],
    /// The endpoint version's allow list.
    pub allow: &'a Allow,
    /// Whether the endpoint version chose to receive personal data.
    pub allow_personal_data: bool,
}

impl Plan<'_> {
    /// The personal-data fields this plan sends: none without
    /// `allow_personal_data`; with it, those the allow list reaches.
    pub fn personal_sent(&self) -> Vec<&FieldPath> {
        if !self.allow_personal_data {
            return Vec::new();
        }
        match self.allow {
            Allow::Everything => self.personal.iter().collect(),
            Allow::Fields(allow) => personal_in_allow_list(allow, self.personal),
        }
    }
}

/// The payload an endpoint version receives: the projection of `data` onto
/// the thin fields and the allow list (or all of `data` for `*`), without
/// the personal-data fields unless the endpoint version allows them. The
/// registration checks keep personal data out of a list without the flag;
/// removing it here as well keeps the promise if an event type's
/// personal-data fields were marked after the endpoint chose its list.
pub fn shape(data: &str, plan: &Plan<'_>) -> Result<String, serde_json::Error> {
    let kept = match plan.allow {
        Allow::Everything => data.to_string(),
        Allow::Fields(allow) => {
            let fields: Vec<&FieldPath> = plan.thin.iter().chain(allow).collect();
            project(data, &fields)?
        }
    };
    if plan.allow_personal_data || plan.personal.is_empty() {
        return Ok(kept);
    }
    let personal: Vec<&FieldPath> = plan.personal.iter().collect();
    omit(&kept, &personal)
}

/// The event type version that shapes an endpoint version's messages of
/// one event type: the version it pins, else the newest of `versions`
/// (`(version, created_at)`) created by the time the endpoint version
/// started, else the type's first. A function of immutable records, so a
/// message is shaped the same at every attempt; a later type version
/// reaches the endpoint only through a new endpoint version.
pub fn shaping_version(
    pinned: Option<i64>,
    versions: &[(i64, Timestamp)],
    started_at: Timestamp,
) -> Option<i64> {
    if let Some(p) = pinned
        && versions.iter().any(|(v, _)| *v == p)
    {
        return Some(p);
    }
    versions
        .iter()
        .filter(|(_, at)| *at <= started_at)
        .max_by_key(|(v, _)| *v)
        .or_else(|| versions.iter().min_by_key(|(v, _)| *v))
        .map(|(v, _)| *v)
}

/// One event type version's fields as stored (`thin_fields` and
/// `personal_data_fields` as registered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeFields {
    pub version: i64,
    pub created_at: Timestamp,
    pub thin_fields: Vec<String>,
    pub personal_data_fields: Vec<String>,
}

/// An endpoint version's shape for one event type, parsed once and reused
/// for every message it shapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The event type version that shapes the payload ([`shaping_version`]);
    /// `None` when the type has no version (nothing is thin then, and the
    /// data is sent whole).
    pub type_version: Option<i64>,
    pub thin: Vec<FieldPath>,
    pub personal: Vec<FieldPath>,
    pub allow: Allow,
    pub allow_personal_data: bool,
}

impl Shape {
    /// The shape an endpoint version (its allow list, its personal-data
    /// choice, the version it pins for this type, when it started) gives the
    /// event type whose versions are `types`. The lists were checked when
    /// they were registered; one that no longer parses is an error, never a
    /// payload with fields that were not meant to be there.
    pub fn resolve(
        snapshot_fields: &[String],
        allow_personal_data: bool,
        pinned: Option<i64>,
        started_at: Timestamp,
        types: &[TypeFields],
    ) -> Result<Shape, ListError> {
        let versions: Vec<(i64, Timestamp)> =
            types.iter().map(|t| (t.version, t.created_at)).collect();
        let type_version = shaping_version(pinned, &versions, started_at);
        let fields = types.iter().find(|t| Some(t.version) == type_version);
        let (thin, personal) = match fields {
            Some(t) => (
                parse_list(&t.thin_fields)?,
                parse_list(&t.personal_data_fields)?,
            ),
            None => (Vec::new(), Vec::new()),
        };
        // Thin by default only where the type version says what is thin: an
        // endpoint that chose nothing receives a type without thin fields
        // whole (minus personal data), never an empty `{}`.
        let allow = match parse_allow_list(snapshot_fields)? {
            Allow::Fields(chosen) if chosen.is_empty() && thin.is_empty() => Allow::Everything,
            allow => allow,
        };
        Ok(Shape {
            type_version,
            thin,
            personal,
            allow,
            allow_personal_data,
        })
    }

    pub fn plan(&self) -> Plan<'_> {
        Plan {
            thin: &self.thin,
            personal: &self.personal,
            allow: &self.allow,
            allow_personal_data: self.allow_personal_data,
        }
    }

    /// The payload of an event whose stored `data` is `data` ([`shape`]).
    pub fn apply(&self, data: &str) -> Result<String, serde_json::Error> {
        shape(data, &self.plan())
    }
}

mod project;
pub use project::{omit, project};

#[cfg(test)]
mod tests;
