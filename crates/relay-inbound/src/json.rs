//! Small readers of provider JSON bodies.

use relay_core::time::Timestamp;
use serde_json::Value;

use crate::{Refusal, Request};

pub(crate) fn body(request: &Request<'_>) -> Result<Value, Refusal> {
    serde_json::from_slice(request.body).map_err(|_| Refusal::MalformedBody("not JSON"))
}

/// The string (or number, as text) at `pointer`.
pub(crate) fn text(v: &Value, pointer: &str) -> Option<String> {
    match v.pointer(pointer)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Unix seconds (integer or fractional) at `pointer`.
pub(crate) fn unix_time(v: &Value, pointer: &str) -> Option<Timestamp> {
    let n = v.pointer(pointer)?;
    let secs = match n {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.parse::<f64>().ok()?,
        _ => return None,
    };
    if !(0.0..1.0e11).contains(&secs) {
        return None;
    }
    Some(Timestamp::from_millis((secs * 1000.0) as i64))
}
