//! Where an endpoint's messages go: [`Destination`], the one form every
//! kind's configuration takes outside its kind, and [`ContentMode`], how a
//! message carries its CloudEvent. relay-core names no kind: each kind's
//! configuration type, its rules and its OpenAPI schema are in its folder
//! of `relay-destinations` (`relay_destinations::Config`, parsed from a
//! `Destination` once per endpoint version).

use std::sync::Arc;

use serde::de::Error as _;
use serde_json::value::RawValue;

use super::*;

/// An endpoint's destination: its `kind` and that kind's configuration, the
/// JSON object the API takes and returns and the store keeps
/// (`{"kind": "https", "url": …}`), kept as that object's text. Only its
/// kind knows its fields: `relay_destinations::Config::try_from` reads it
/// (refusing an unknown kind or a configuration that does not parse), and
/// a `Config` converts back into the canonical text, fields in the kind's
/// order after `kind`. Cloning shares the text.
///
/// It deserializes from JSON text only (serde_json's deserializers: the
/// request body, the stored column), keeping the text as it is. Two
/// destinations are equal when their JSON values are (the order of the
/// members aside).
///
/// Its OpenAPI schema here is only the shape every kind shares (an object
/// with a `kind`); the API's document replaces it with the `oneOf` of the
/// kinds' derived schemas (`relay_destinations::components`).
#[derive(Clone)]
pub struct Destination {
    kind: Arc<str>,
    json: Arc<RawValue>,
}

/// The one member every kind's configuration has.
#[derive(Deserialize)]
struct Tag<'a> {
    #[serde(borrow)]
    kind: std::borrow::Cow<'a, str>,
}

impl Destination {
    /// A destination from the JSON text of its object: `Err` when the text
    /// is not a JSON object with a string `kind`. The rest is its kind's to
    /// check.
    pub fn from_json(json: String) -> Result<Destination, serde_json::Error> {
        Destination::from_raw(RawValue::from_string(json)?)
    }

    fn from_raw(json: Box<RawValue>) -> Result<Destination, serde_json::Error> {
        let kind: Tag<'_> = serde_json::from_str(json.get())?;
        Ok(Destination {
            kind: Arc::from(kind.kind.as_ref()),
            json: Arc::from(json),
        })
    }

    /// The kind's name, the object's `kind` (`https`, `kafka`, …).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The JSON text of the whole object, `kind` included.
    pub fn json(&self) -> &str {
        self.json.get()
    }
}

impl std::fmt::Debug for Destination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Destination")
            .field(&self.json.get())
            .finish()
    }
}

impl PartialEq for Destination {
    fn eq(&self, other: &Destination) -> bool {
        if self.json.get() == other.json.get() {
            return true;
        }
        let value = |d: &Destination| serde_json::from_str::<serde_json::Value>(d.json.get()).ok();
        self.kind == other.kind && value(self).is_some_and(|v| Some(v) == value(other))
    }
}

impl Serialize for Destination {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Destination {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Box::<RawValue>::deserialize(deserializer)?;
        Destination::from_raw(json).map_err(D::Error::custom)
    }
}

impl utoipa::PartialSchema for Destination {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .description(Some(
                "Where an endpoint's messages go, by `kind` (the API's document lists the kinds).",
            ))
            .property("kind", ObjectBuilder::new().schema_type(Type::String))
            .required("kind")
            .into()
    }
}

impl ToSchema for Destination {}

/// What an endpoint's deliveries are, whatever carries them: CloudEvents
/// (every kind's, the default), or A2A push notifications (an HTTPS
/// endpoint with `a2a_push`: the event's data, an A2A `StreamResponse`,
/// as the body; `crate::a2a`, docs/a2a.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    #[default]
    CloudEvents,
    A2aPush,
}

/// How a message carries its CloudEvent (the CloudEvents protocol bindings'
/// two content modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum ContentMode {
    /// The whole event as one `application/cloudevents+json` body (the
    /// default): the signature covers every attribute and the data.
    #[default]
    Structured,
    /// `data` is the body (`application/json`); the context attributes are
    /// headers or properties named by the kind's binding. The signature
    /// covers the body, so the attributes are not signed.
    Binary,
}

impl ContentMode {
    pub const fn as_str(self) -> &'static str {
        match self {
            ContentMode::Structured => "structured",
            ContentMode::Binary => "binary",
        }
    }
}
