//! [`Config`] and [`Destination`], the kind's typed configuration and the
//! generic JSON form the API and the store hold: reading one from the
//! other, and the API's reading of a request's `destination`, with the
//! errors serde gave when the configuration was an internally tagged enum
//! (`unknown variant`, `missing field`, `unknown field`, …), so the API's
//! `422`s are unchanged.

use relay_core::model::Destination;
use serde::de::{Error as _, Unexpected};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Config;

/// What serde names a destination that is not an object.
const EXPECTED: &str = "internally tagged enum Destination";

/// The destination of kind `name` with configuration `config`: `kind`
/// first, then the configuration's fields, as serde wrote an internally
/// tagged enum.
pub(crate) fn tagged(name: &'static str, config: &impl Serialize) -> Destination {
    let fields = serde_json::to_string(config).expect("a configuration serializes");
    let json = match fields.strip_prefix('{') {
        Some("}") => format!(r#"{{"kind":"{name}"}}"#),
        Some(rest) => format!(r#"{{"kind":"{name}",{rest}"#),
        None => unreachable!("a configuration serializes as an object"),
    };
    Destination::from_json(json).expect("an object with a kind")
}

impl TryFrom<&Destination> for Config {
    type Error = serde_json::Error;

    /// Reads the destination as its kind's configuration: `Err` when the
    /// kind is unknown or the configuration does not parse.
    fn try_from(destination: &Destination) -> Result<Config, serde_json::Error> {
        let mut members: Map<String, Value> = serde_json::from_str(destination.json())?;
        members.remove("kind");
        Config::parse(destination.kind(), members)
    }
}

impl From<&Config> for Destination {
    fn from(config: &Config) -> Destination {
        config.to_destination()
    }
}

impl From<Config> for Destination {
    fn from(config: Config) -> Destination {
        config.to_destination()
    }
}

/// A request's `destination`: any JSON object, read by the kind its `kind`
/// names.
impl<'de> Deserialize<'de> for Config {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let Value::Object(mut members) = value else {
            return Err(D::Error::invalid_type(unexpected(&value), &EXPECTED));
        };
        let kind = match members.remove("kind") {
            Some(Value::String(kind)) => kind,
            Some(other) => {
                return Err(D::Error::invalid_type(
                    unexpected(&other),
                    &"variant identifier",
                ));
            }
            None => return Err(D::Error::missing_field("kind")),
        };
        Config::parse(&kind, members).map_err(D::Error::custom)
    }
}

impl Serialize for Config {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_destination().serialize(serializer)
    }
}

/// What serde calls a JSON value in an error.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (_, Some(i), _) => Unexpected::Signed(i),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}
