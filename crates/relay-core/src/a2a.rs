//! A2A push notifications (the A2A protocol, v1.0, its section 4.3): the
//! rules of what Relay sends to an agent's client as a task's push
//! notification. Pure; `docs/a2a.md` is the user's view.
//!
//! A tenant (an agent framework) publishes a task's updates as events of
//! two reserved type names, [`STATUS_UPDATE`] and [`ARTIFACT_UPDATE`],
//! whose `data` is the A2A `StreamResponse` JSON Relay delivers byte for
//! byte: `{"statusUpdate": TaskStatusUpdateEvent}` or `{"artifactUpdate":
//! TaskArtifactUpdateEvent}`, in the spec's JSON form (ProtoJSON: member
//! names in lowerCamelCase, enums by their full names, `TASK_STATE_WORKING`).
//! [`check`] is the publish-time rule that makes an accepted update
//! deliverable as a valid `StreamResponse`: the members the spec defines
//! and no other, every member the spec marks REQUIRED present and not
//! empty, each value of its type. It is a strict subset of what the spec's
//! parsers accept (`scripts/judges/a2a_judge.py` parses every delivered
//! body with the `a2a-sdk` package's own types, unknown fields refused):
//! only the canonical lowerCamelCase names, no `null`s, base64 with
//! padding, a `Part` with exactly one content member.

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::time::Timestamp;

/// The event type of a task's status update (`statusUpdate`).
pub const STATUS_UPDATE: &str = "a2a.task.status_updated";
/// The event type of a task's artifact update (`artifactUpdate`).
pub const ARTIFACT_UPDATE: &str = "a2a.task.artifact_updated";
/// Both A2A update types: what an A2A push endpoint may subscribe to.
pub const TYPES: [&str; 2] = [STATUS_UPDATE, ARTIFACT_UPDATE];
/// The `content-type` of a push notification (the spec's media type).
pub const CONTENT_TYPE: &str = "application/a2a+json";
/// The header that carries the push configuration's `token`.
pub const TOKEN_HEADER: &str = "x-a2a-notification-token";
/// The longest task id: it is the update's ordering key.
pub const MAX_TASK_ID: usize = 255;

/// Whether `event_type` is one of the A2A update types.
pub fn is_update_type(event_type: &str) -> bool {
    TYPES.contains(&event_type)
}

/// A task's state (`TaskState`, by its JSON name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    Submitted,
    Working,
    Completed,
    Failed,
    Canceled,
    InputRequired,
    Rejected,
    AuthRequired,
}

impl TaskState {
    /// The state named `name` (`TASK_STATE_…`); `None` for an unknown name
    /// and for `TASK_STATE_UNSPECIFIED`, which no update may carry.
    pub fn parse(name: &str) -> Option<TaskState> {
        Some(match name {
            "TASK_STATE_SUBMITTED" => TaskState::Submitted,
            "TASK_STATE_WORKING" => TaskState::Working,
            "TASK_STATE_COMPLETED" => TaskState::Completed,
            "TASK_STATE_FAILED" => TaskState::Failed,
            "TASK_STATE_CANCELED" => TaskState::Canceled,
            "TASK_STATE_INPUT_REQUIRED" => TaskState::InputRequired,
            "TASK_STATE_REJECTED" => TaskState::Rejected,
            "TASK_STATE_AUTH_REQUIRED" => TaskState::AuthRequired,
            _ => return None,
        })
    }

    /// Whether the task ends in this state (completed, failed, canceled,
    /// rejected).
    pub const fn is_final(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }
}

/// What an accepted update says of its task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    /// `taskId`: the update's ordering key.
    pub task_id: String,
    /// `contextId`.
    pub context_id: String,
    /// The new state, for a status update; `None` for an artifact update.
    pub state: Option<TaskState>,
}

/// Why `data` is not a valid update: the JSON pointer of the member at
/// fault (from `/data`) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub pointer: String,
    pub message: String,
}

type Checked<T> = Result<T, Invalid>;

fn invalid<T>(at: &str, message: impl Into<String>) -> Checked<T> {
    Err(Invalid {
        pointer: at.to_string(),
        message: message.into(),
    })
}

/// Checks the `data` of an event of `event_type` (one of [`TYPES`]) as the
/// `StreamResponse` it will be delivered as; see the module's rules.
pub fn check(event_type: &str, data: &Value) -> Checked<Update> {
    let member = match event_type {
        STATUS_UPDATE => "statusUpdate",
        ARTIFACT_UPDATE => "artifactUpdate",
        other => return invalid("/type", format!("`{other}` is not an A2A update type")),
    };
    let top = object(data, "/data", &[member])?;
    let Some(inner) = top.get(member) else {
        return invalid(
            "/data",
            format!(
                "a `{event_type}` event's data is a StreamResponse with one member, `{member}`"
            ),
        );
    };
    let at = format!("/data/{member}");
    if member == "statusUpdate" {
        status_update(inner, &at)
    } else {
        artifact_update(inner, &at)
    }
}

fn status_update(v: &Value, at: &str) -> Checked<Update> {
    let m = object(v, at, &["taskId", "contextId", "status", "metadata"])?;
    let (task_id, context_id) = ids(m, at)?;
    let status_at = format!("{at}/status");
    let status = object(
        required(m, at, "status")?,
        &status_at,
        &["state", "message", "timestamp"],
    )?;
    let state_at = format!("{status_at}/state");
    let name = string(required(status, &status_at, "state")?, &state_at)?;
    let Some(state) = TaskState::parse(name) else {
        return invalid(
            &state_at,
            format!("`{name}` is not a task state (TASK_STATE_SUBMITTED, TASK_STATE_WORKING, …)"),
        );
    };
    if let Some(msg) = status.get("message") {
        message(msg, &format!("{status_at}/message"), &task_id, &context_id)?;
    }
    if let Some(t) = status.get("timestamp") {
        timestamp(t, &format!("{status_at}/timestamp"))?;
    }
    optional_struct(m, at, "metadata")?;
    Ok(Update {
        task_id,
        context_id,
        state: Some(state),
    })
}

fn artifact_update(v: &Value, at: &str) -> Checked<Update> {
    let m = object(
        v,
        at,
        &[
            "taskId",
            "contextId",
            "artifact",
            "append",
            "lastChunk",
            "metadata",
        ],
    )?;
    let (task_id, context_id) = ids(m, at)?;
    artifact(required(m, at, "artifact")?, &format!("{at}/artifact"))?;
    for flag in ["append", "lastChunk"] {
        if let Some(b) = m.get(flag)
            && !b.is_boolean()
        {
            return invalid(&format!("{at}/{flag}"), "must be true or false");
        }
    }
    optional_struct(m, at, "metadata")?;
    Ok(Update {
        task_id,
        context_id,
        state: None,
    })
}

/// `taskId` (at most [`MAX_TASK_ID`] bytes) and `contextId`, both required.
fn ids(m: &Map<String, Value>, at: &str) -> Checked<(String, String)> {
    let task_at = format!("{at}/taskId");
    let task_id = non_empty(required(m, at, "taskId")?, &task_at)?;
    if task_id.len() > MAX_TASK_ID || task_id.chars().any(char::is_control) {
        return invalid(
            &task_at,
            format!(
                "must be 1 to {MAX_TASK_ID} bytes without control characters (it is the ordering key)"
            ),
        );
    }
    let context_id = non_empty(required(m, at, "contextId")?, &format!("{at}/contextId"))?;
    Ok((task_id.to_string(), context_id.to_string()))
}

fn message(v: &Value, at: &str, task_id: &str, context_id: &str) -> Checked<()> {
    let m = object(
        v,
        at,
        &[
            "messageId",
            "contextId",
            "taskId",
            "role",
            "parts",
            "metadata",
            "extensions",
            "referenceTaskIds",
        ],
    )?;
    non_empty(required(m, at, "messageId")?, &format!("{at}/messageId"))?;
    for (key, expected) in [("taskId", task_id), ("contextId", context_id)] {
        if let Some(v) = m.get(key) {
            let key_at = format!("{at}/{key}");
            if string(v, &key_at)? != expected {
                return invalid(
                    &key_at,
                    format!("must be the update's own `{key}`, `{expected}`"),
                );
            }
        }
    }
    let role_at = format!("{at}/role");
    let role = string(required(m, at, "role")?, &role_at)?;
    if !matches!(role, "ROLE_USER" | "ROLE_AGENT") {
        return invalid(&role_at, "must be ROLE_USER or ROLE_AGENT");
    }
    parts(required(m, at, "parts")?, &format!("{at}/parts"))?;
    optional_struct(m, at, "metadata")?;
    optional_strings(m, at, "extensions")?;
    optional_strings(m, at, "referenceTaskIds")
}

fn artifact(v: &Value, at: &str) -> Checked<()> {
    let m = object(
        v,
        at,
        &[
            "artifactId",
            "name",
            "description",
            "parts",
            "metadata",
            "extensions",
        ],
    )?;
    non_empty(required(m, at, "artifactId")?, &format!("{at}/artifactId"))?;
    for key in ["name", "description"] {
        if let Some(v) = m.get(key) {
            string(v, &format!("{at}/{key}"))?;
        }
    }
    parts(required(m, at, "parts")?, &format!("{at}/parts"))?;
    optional_struct(m, at, "metadata")?;
    optional_strings(m, at, "extensions")
}

/// `parts`: at least one `Part`, each with exactly one content member
/// (`text`, `raw`, `url` or `data`).
fn parts(v: &Value, at: &str) -> Checked<()> {
    let Some(list) = v.as_array() else {
        return invalid(at, "must be an array of parts");
    };
    if list.is_empty() {
        return invalid(at, "must hold at least one part");
    }
    for (i, p) in list.iter().enumerate() {
        let p_at = format!("{at}/{i}");
        let m = object(
            p,
            &p_at,
            &[
                "text",
                "raw",
                "url",
                "data",
                "metadata",
                "filename",
                "mediaType",
            ],
        )?;
        let content: Vec<&str> = ["text", "raw", "url", "data"]
            .into_iter()
            .filter(|k| m.contains_key(*k))
            .collect();
        if content.len() != 1 {
            return invalid(
                &p_at,
                "a part has exactly one of `text`, `raw`, `url` and `data`",
            );
        }
        for key in ["text", "url", "filename", "mediaType"] {
            if let Some(v) = m.get(key) {
                string(v, &format!("{p_at}/{key}"))?;
            }
        }
        if let Some(raw) = m.get("raw") {
            let raw_at = format!("{p_at}/raw");
            if base64::engine::general_purpose::STANDARD
                .decode(string(raw, &raw_at)?)
                .is_err()
            {
                return invalid(&raw_at, "must be base64 (RFC 4648, with padding)");
            }
        }
        if m.get("data").is_some_and(Value::is_null) {
            return invalid(&format!("{p_at}/data"), "must not be null");
        }
        optional_struct(m, &p_at, "metadata")?;
    }
    Ok(())
}

/// An RFC 3339 date-time as the spec's `Timestamp` is written:
/// `2026-01-31T12:00:00Z`, with up to 9 fractional digits and `Z` or an
/// offset.
fn timestamp(v: &Value, at: &str) -> Checked<()> {
    let s = string(v, at)?;
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let mut ok = b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if ok {
        let mut rest = &s[19..];
        if let Some(frac) = rest.strip_prefix('.') {
            let n = frac.bytes().take_while(u8::is_ascii_digit).count();
            ok = (1..=9).contains(&n);
            rest = &frac[n..];
        }
        let rb = rest.as_bytes();
        ok = ok
            && (rest == "Z"
                || (rb.len() == 6
                    && matches!(rb[0], b'+' | b'-')
                    && rb[1..3].iter().all(u8::is_ascii_digit)
                    && rb[3] == b':'
                    && rb[4..6].iter().all(u8::is_ascii_digit)));
    }
    if ok && Timestamp::parse_rfc3339(s).is_some() {
        Ok(())
    } else {
        invalid(
            at,
            "must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z (upper-case `T`, seconds, `Z` or an offset)",
        )
    }
}

/// `v` as an object whose members are all among `allowed`.
fn object<'a>(v: &'a Value, at: &str, allowed: &[&str]) -> Checked<&'a Map<String, Value>> {
    let Some(m) = v.as_object() else {
        return invalid(at, "must be an object");
    };
    if let Some(k) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
        return invalid(
            &format!("{at}/{}", escape(k)),
            format!(
                "`{k}` is not a member here (allowed: {})",
                allowed.join(", ")
            ),
        );
    }
    Ok(m)
}

fn required<'a>(m: &'a Map<String, Value>, at: &str, key: &str) -> Checked<&'a Value> {
    match m.get(key) {
        Some(v) => Ok(v),
        None => invalid(&format!("{at}/{key}"), "is required"),
    }
}

fn string<'a>(v: &'a Value, at: &str) -> Checked<&'a str> {
    match v.as_str() {
        Some(s) => Ok(s),
        None => invalid(at, "must be a string"),
    }
}

fn non_empty<'a>(v: &'a Value, at: &str) -> Checked<&'a str> {
    match string(v, at)? {
        "" => invalid(at, "must not be empty"),
        s => Ok(s),
    }
}

/// An optional `google.protobuf.Struct`: a JSON object of any values.
fn optional_struct(m: &Map<String, Value>, at: &str, key: &str) -> Checked<()> {
    match m.get(key) {
        Some(v) if !v.is_object() => invalid(&format!("{at}/{key}"), "must be an object"),
        _ => Ok(()),
    }
}

fn optional_strings(m: &Map<String, Value>, at: &str, key: &str) -> Checked<()> {
    let Some(v) = m.get(key) else {
        return Ok(());
    };
    match v.as_array() {
        Some(list) if list.iter().all(Value::is_string) => Ok(()),
        _ => invalid(&format!("{at}/{key}"), "must be an array of strings"),
    }
}

/// `key` escaped as a JSON Pointer reference token (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests;
