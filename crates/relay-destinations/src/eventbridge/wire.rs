//! EventBridge's `PutEvents` over its JSON protocol
//! (`AWSEvents.PutEvents`, `application/x-amz-json-1.1`), pure: the
//! request's one entry (the CloudEvent as `Detail`, the event's time as
//! `Time`, its `traceparent` as an X-Ray `TraceHeader`), and the reading of
//! the answer, whose entry carries the `EventId` or that entry's
//! `ErrorCode`. It opens nothing.

use serde::Deserialize;

use crate::Prepared;
use crate::eventbridge::limits::MAX_TRACE_HEADER;

/// The request's `X-Amz-Target`.
pub const TARGET: &str = "AWSEvents.PutEvents";
/// The request's `Content-Type`.
pub const CONTENT_TYPE: &str = "application/x-amz-json-1.1";

/// The body as a `Detail`: UTF-8 text of one JSON object (a structured
/// CloudEvent always is; anything else is never sent).
pub fn valid_detail(body: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(body).ok()?;
    let object = text.trim_start().starts_with('{')
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
    object.then_some(text)
}

/// The CloudEvent's `time` in unix seconds (EventBridge's `Time`, which
/// the JSON protocol carries as a number; EventBridge keeps seconds).
pub fn event_time(detail: &str) -> Option<i64> {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        time: Option<std::borrow::Cow<'a, str>>,
    }
    let head: Head<'_> = serde_json::from_str(detail).ok()?;
    let t = relay_core::time::Timestamp::parse_rfc3339(&head.time?)?;
    Some(t.millis().div_euclid(1000))
}

/// A W3C `traceparent` (`00-<trace id>-<parent id>-<flags>`) as the X-Ray
/// trace header EventBridge propagates (`Root=1-<first 8 hex of the trace
/// id>-<its other 24>;Parent=<parent id>;Sampled=<0|1>`, AWS X-Ray's
/// mapping of W3C ids); `None` for anything else.
pub fn trace_header(traceparent: &str) -> Option<String> {
    let parts: Vec<&str> = traceparent.split('-').collect();
    let [version, trace, parent, flags] = parts.as_slice() else {
        return None;
    };
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    let zero = |s: &str| s.bytes().all(|b| b == b'0');
    if *version != "00" || !hex(trace, 32) || !hex(parent, 16) || !hex(flags, 2) {
        return None;
    }
    if zero(trace) || zero(parent) {
        return None;
    }
    let sampled = u8::from_str_radix(flags, 16).ok()? & 1;
    let (trace, parent) = (trace.to_ascii_lowercase(), parent.to_ascii_lowercase());
    let header = format!(
        "Root=1-{}-{};Parent={parent};Sampled={sampled}",
        &trace[..8],
        &trace[8..],
    );
    (header.len() <= MAX_TRACE_HEADER).then_some(header)
}

/// One entry as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    pub event_bus: &'a str,
    pub source: &'a str,
    pub detail_type: &'a str,
    pub detail: &'a str,
    pub time: Option<i64>,
    pub trace_header: Option<String>,
}

/// The entry of `m` for a bus, a source and a detail type (the event's
/// type unless `detail_type` names one); `None` when the body is no
/// `Detail` ([`valid_detail`]).
pub fn entry<'a>(
    m: &'a Prepared,
    event_bus: &'a str,
    source: &'a str,
    detail_type: Option<&'a str>,
) -> Option<Entry<'a>> {
    let detail = valid_detail(&m.body)?;
    Some(Entry {
        event_bus,
        source,
        detail_type: detail_type.unwrap_or(&m.event_type),
        detail,
        time: event_time(detail),
        trace_header: m.traceparent.as_deref().and_then(trace_header),
    })
}

/// The `PutEvents` request's JSON of `entries` (Relay sends one).
pub fn request(entries: &[Entry<'_>]) -> Vec<u8> {
    let entries: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| {
            let mut v = serde_json::json!({
                "EventBusName": e.event_bus,
                "Source": e.source,
                "DetailType": e.detail_type,
                "Detail": e.detail,
            });
            if let Some(t) = e.time {
                v["Time"] = t.into();
            }
            if let Some(h) = &e.trace_header {
                v["TraceHeader"] = h.as_str().into();
            }
            v
        })
        .collect();
    serde_json::json!({ "Entries": entries })
        .to_string()
        .into_bytes()
}

/// One entry of the answer: its `EventId`, or its error.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryResult {
    pub event_id: Option<String>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
}

/// What EventBridge answered, read from its JSON.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    /// `FailedEntryCount` of a `200`.
    pub failed_entry_count: Option<u64>,
    /// `Entries`, in the order of the request's.
    pub entries: Vec<EntryResult>,
    /// A request's error: the JSON `__type`'s name after `#`
    /// (`ResourceNotFoundException`), else an XML `<Code>` (an
    /// authentication refusal answered before the action is reached).
    pub error_code: Option<String>,
    pub error_message: Option<String>,
}

/// Reads an answer's body.
pub fn answer(body: &[u8]) -> Answer {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let xml = if v.is_object() {
        ""
    } else {
        std::str::from_utf8(body).unwrap_or("")
    };
    let element = |name| crate::s3::classify::element(xml, name).map(str::to_string);
    let text = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let from_type = text(&v, "__type").map(|t| match t.rsplit_once('#') {
        Some((_, name)) => name.to_string(),
        None => t,
    });
    let entries = v
        .get("Entries")
        .and_then(|e| e.as_array())
        .map(|all| {
            all.iter()
                .map(|e| EntryResult {
                    event_id: text(e, "EventId"),
                    error_code: text(e, "ErrorCode"),
                    error_message: text(e, "ErrorMessage"),
                })
                .collect()
        })
        .unwrap_or_default();
    Answer {
        failed_entry_count: v.get("FailedEntryCount").and_then(|n| n.as_u64()),
        entries,
        error_code: from_type
            .or_else(|| text(&v, "code"))
            .or_else(|| element("Code")),
        error_message: text(&v, "message")
            .or_else(|| text(&v, "Message"))
            .or_else(|| element("Message")),
    }
}

#[cfg(test)]
mod tests;
