//! The projection of an event's `data` onto field paths, and the removal
//! of fields from it: both copy every kept value byte for byte, in `data`'s
//! own order.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::FieldPath;

/// The fields selected at one level of `data`.
#[derive(Debug, Default)]
struct Selection<'a> {
    /// Member name → everything below it (`None`) or a narrower selection.
    members: Vec<(&'a str, Option<Selection<'a>>)>,
}

impl<'a> Selection<'a> {
    fn of(paths: &[&'a FieldPath]) -> Self {
        let mut root = Selection::default();
        for p in paths {
            root.add(&p.tokens);
        }
        root
    }

    fn add(&mut self, tokens: &'a [String]) {
        let Some((first, rest)) = tokens.split_first() else {
            return;
        };
        let slot = match self.members.iter().position(|(name, _)| *name == first) {
            Some(i) => &mut self.members[i].1,
            None => {
                self.members.push((first, Some(Selection::default())));
                &mut self.members.last_mut().expect("just pushed").1
            }
        };
        if rest.is_empty() {
            // The whole member: anything narrower listed with it adds nothing.
            *slot = None;
        } else if let Some(sub) = slot {
            sub.add(rest);
        }
    }

    fn get(&self, name: &str) -> Option<&Option<Selection<'a>>> {
        self.members
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| s)
    }
}

/// The projection of `data` (an event's stored JSON) onto `fields`: an
/// object holding only the selected members, in `data`'s own order, each
/// selected value copied byte for byte. A path through an array applies to
/// every element that is an object (or an array, again), and elements
/// that are neither hold no field and are left out; a member whose value
/// holds nothing selected is left out; `data` that is not an object
/// projects to `{}`. Deterministic (the same bytes and fields give the same
/// bytes), and never longer than `data`, so a payload accepted at publish
/// fits the delivery limit whatever the endpoint's shape.
pub fn project(data: &str, fields: &[&FieldPath]) -> Result<String, serde_json::Error> {
    let selection = Selection::of(fields);
    let mut out = String::with_capacity(data.len().min(4096));
    let raw: &RawValue = serde_json::from_str(data)?;
    if !project_object(raw, &selection, &mut out)? {
        out.clear();
        out.push_str("{}");
    }
    Ok(out)
}

/// Writes the projection of `raw` if it is an object; `false` if it is not.
fn project_object(
    raw: &RawValue,
    selection: &Selection<'_>,
    out: &mut String,
) -> Result<bool, serde_json::Error> {
    if !raw.get().starts_with('{') {
        return Ok(false);
    }
    let Members(members) = serde_json::from_str(raw.get())?;
    out.push('{');
    let mut first = true;
    for (name, value) in members {
        let Some(sel) = selection.get(&name) else {
            continue;
        };
        let mark = out.len();
        if !first {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(name.as_ref())?);
        out.push(':');
        let written = match sel {
            None => {
                out.push_str(value.get());
                true
            }
            Some(sub) => project_nested(value, sub, out)?,
        };
        if written {
            first = false;
        } else {
            out.truncate(mark);
        }
    }
    out.push('}');
    Ok(true)
}

/// Writes the projection of a member's value under a narrower selection:
/// an object's selected members, or each element of an array; `false` (and
/// nothing written) when the value holds nothing selected.
fn project_nested(
    raw: &RawValue,
    selection: &Selection<'_>,
    out: &mut String,
) -> Result<bool, serde_json::Error> {
    let text = raw.get();
    if text.starts_with('{') {
        let mark = out.len();
        project_object(raw, selection, out)?;
        if &out[mark..] == "{}" {
            out.truncate(mark);
            return Ok(false);
        }
        Ok(true)
    } else if text.starts_with('[') {
        project_elements(raw, selection, out)?;
        Ok(true)
    } else {
        Ok(false)
    }
}

/// The elements of an array: each object's projection (`{}` when nothing
/// in it is selected), each nested array's; an element that is neither
/// holds no field and is left out. The result is never longer than `raw`.
fn project_elements(
    raw: &RawValue,
    selection: &Selection<'_>,
    out: &mut String,
) -> Result<(), serde_json::Error> {
    let elements: Vec<&RawValue> = serde_json::from_str(raw.get())?;
    out.push('[');
    let mut first = true;
    for element in elements {
        let text = element.get();
        if !(text.starts_with('{') || text.starts_with('[')) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        if text.starts_with('{') {
            project_object(element, selection, out)?;
        } else {
            project_elements(element, selection, out)?;
        }
    }
    out.push(']');
    Ok(())
}

/// An object's members in document order, values unparsed.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(Key(name)) = map.next_key::<Key<'de>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    members.push((name, value));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(MembersVisitor)
    }
}

/// `data` without the members `fields` name (through arrays, per element);
/// everything kept is copied byte for byte. `data` that is not an object or
/// array is returned as it is.
pub fn omit(data: &str, fields: &[&FieldPath]) -> Result<String, serde_json::Error> {
    let selection = Selection::of(fields);
    let raw: &RawValue = serde_json::from_str(data)?;
    let mut out = String::with_capacity(data.len());
    omit_value(raw, &selection, &mut out)?;
    Ok(out)
}

fn omit_value(
    raw: &RawValue,
    selection: &Selection<'_>,
    out: &mut String,
) -> Result<(), serde_json::Error> {
    let text = raw.get();
    if selection.members.is_empty() {
        out.push_str(text);
    } else if text.starts_with('{') {
        let Members(members) = serde_json::from_str(text)?;
        out.push('{');
        let mut first = true;
        for (name, value) in members {
            let sel = selection.get(&name);
            if let Some(None) = sel {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&serde_json::to_string(name.as_ref())?);
            out.push(':');
            match sel {
                Some(Some(sub)) => omit_value(value, sub, out)?,
                _ => out.push_str(value.get()),
            }
        }
        out.push('}');
    } else if text.starts_with('[') {
        let elements: Vec<&RawValue> = serde_json::from_str(text)?;
        out.push('[');
        for (i, element) in elements.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            omit_value(element, selection, out)?;
        }
        out.push(']');
    } else {
        out.push_str(text);
    }
    Ok(())
}
