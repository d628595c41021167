//! What a change of an endpoint carries besides its new settings: its
//! precondition (`If-Match` against the endpoint's revision, answered as
//! the `ETag` of reads), where its credentials are bound (the hosts they
//! are sent to), and its audit entry.
//!
//! - **Conditional.** An endpoint's `ETag` is `"<revision>"`; the revision
//!   counts every change of the endpoint (settings, state, keys). `PATCH`
//!   with `If-Match` applies only while the endpoint is still at a revision
//!   it names (`412 precondition_failed` otherwise), and every update is a
//!   compare-and-set on the revision the handler read
//!   (`relay_store::endpoints::update`).
//! - **Credentials stay with their host.** A destination's credentials (its
//!   secret references: secret headers, OAuth 2.0 client, client
//!   certificate, broker passwords, object storage keys, and any literal
//!   credential header stored before those were refused) are bound to the
//!   hosts they are sent to (`relay_destinations::credential_hosts`). The
//!   API's `PATCH` replaces a destination whole, so what the request does
//!   not restate is dropped (with a warning when the host changed); the
//!   portal, which cannot restate them, refuses a new host with
//!   `422 credentials_not_restated`.
//! - **Audited.** A change of the URL, the subscriptions, the credentials
//!   or the payload settings writes `endpoint.updated` with what changed,
//!   in the change's transaction ([`updated_entry`]).

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use relay_core::model::{Destination, Endpoint};
use relay_destinations::Config;
use relay_net::Guard;

use crate::error::ApiError;

/// The `ETag` of an endpoint at `revision`.
pub fn etag(revision: i64) -> String {
    format!("\"{revision}\"")
}

/// The answer's headers for an endpoint: its `ETag`.
pub fn etag_headers(e: &Endpoint) -> HeaderMap {
    let mut h = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&etag(e.revision)) {
        h.insert(header::ETAG, v);
    }
    h
}

/// A request's `If-Match` (RFC 9110 §13.1.1): `*`, or the entity tags it
/// lists, compared strongly (a weak tag `W/"…"` never matches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IfMatch {
    Any,
    Tags(Vec<String>),
}

impl IfMatch {
    /// The request's `If-Match`, if it has one. Several header lines are
    /// one list.
    pub fn from_headers(headers: &HeaderMap) -> Result<Option<IfMatch>, ApiError> {
        let mut tags = Vec::new();
        let mut any = false;
        let mut present = false;
        for v in headers.get_all(header::IF_MATCH) {
            present = true;
            let text = v.to_str().map_err(|_| {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "invalid_if_match",
                    "If-Match is `*` or a list of entity tags such as \"3\"",
                )
            })?;
            for t in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                if t == "*" {
                    any = true;
                } else {
                    tags.push(t.to_string());
                }
            }
        }
        Ok(present.then_some(if any {
            IfMatch::Any
        } else {
            IfMatch::Tags(tags)
        }))
    }

    /// Whether an endpoint at `revision` satisfies it.
    pub fn matches(&self, revision: i64) -> bool {
        match self {
            IfMatch::Any => true,
            IfMatch::Tags(tags) => {
                let current = etag(revision);
                tags.contains(&current)
            }
        }
    }
}

/// `412`: the endpoint is no longer at a revision `If-Match` names.
pub fn precondition_failed(current: i64) -> ApiError {
    ApiError::new(
        StatusCode::PRECONDITION_FAILED,
        "precondition_failed",
        format!(
            "the endpoint changed since it was read (it is now at ETag {}); read it again and decide from what it is now",
            etag(current)
        ),
    )
}

/// `409`: the endpoint kept changing while the request ran.
pub fn changed_concurrently() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        "endpoint_changed",
        "the endpoint changed while this request ran; read it and try again",
    )
}

/// A destination's credentials, named and never valued: each secret
/// reference with its pointer, and each literal credential header stored
/// before those were refused (by name).
pub fn credentials(d: &Destination) -> Vec<String> {
    let Some(config) = config(d) else {
        return Vec::new();
    };
    let mut out: Vec<String> = config
        .secret_refs()
        .into_iter()
        .map(|(pointer, r)| format!("{pointer}: {r}"))
        .collect();
    out.extend(
        relay_destinations::literal_credentials(&config)
            .into_iter()
            .map(|(pointer, name)| format!("{pointer}: {name} (literal)")),
    );
    out
}

/// `d` read as its kind's configuration; `None` when it does not read (a
/// stored destination this Relay's kinds do not take): then the API names
/// no credentials or hosts of it.
pub fn config(d: &Destination) -> Option<Config> {
    Config::try_from(d).ok()
}

/// Where `d`'s messages go, in one line for the audit log
/// ([`relay_destinations::describe`]); its kind when it does not read.
pub fn describe(d: &Destination) -> String {
    config(d).map_or_else(
        || d.kind().to_string(),
        |c| relay_destinations::describe(&c),
    )
}

/// Whether the change from `before` to `after` moves the destination to
/// another host while `before` had credentials.
pub fn host_changed_with_credentials(
    before: &Destination,
    after: &Destination,
    guard: &Guard,
) -> bool {
    let hosts =
        |d: &Destination| config(d).map(|c| relay_destinations::credential_hosts(&c, guard));
    !credentials(before).is_empty() && hosts(before) != hosts(after)
}

/// The warning of an update that moved the destination to another host and
/// left out some of the credentials it had (they are gone).
pub fn dropped_warning(before: &Destination, after: &Destination, guard: &Guard) -> Option<String> {
    if !host_changed_with_credentials(before, after, guard) {
        return None;
    }
    let kept = credentials(after);
    let dropped: Vec<String> = credentials(before)
        .into_iter()
        .filter(|c| !kept.contains(c))
        .collect();
    (!dropped.is_empty()).then(|| {
        format!(
            "credentials_dropped: the destination moved to another host, and the credentials this request did not restate were removed ({})",
            dropped.join(", ")
        )
    })
}

/// `422 credentials_not_restated`: the portal cannot restate credentials,
/// so it cannot move them to another host.
pub fn not_restated() -> ApiError {
    ApiError::invalid(
        "credentials_not_restated",
        "/url",
        "this endpoint's credentials (secret headers, client authentication) were set by the tenant for its current host and do not follow it to another; ask them to change the URL",
    )
}

/// The parameters of `endpoint.updated` for the change from `before` to
/// `after`, when it changes what the audit log follows: the destination
/// (its URL, its credentials, anything else of it), the subscriptions or
/// the payload settings. `None` when it changes none of them.
pub fn updated_entry(before: &Endpoint, after: &Endpoint) -> Option<serde_json::Value> {
    use serde_json::json;
    let mut p = serde_json::Map::new();
    let (from, to) = (describe(&before.destination), describe(&after.destination));
    if from != to {
        p.insert("url".into(), json!({ "from": from, "to": to }));
    }
    let (from, to) = (
        credentials(&before.destination),
        credentials(&after.destination),
    );
    if from != to {
        p.insert("credentials".into(), json!({ "from": from, "to": to }));
    }
    if before.destination != after.destination {
        p.insert("destination_changed".into(), true.into());
    }
    if before.event_types != after.event_types {
        p.insert(
            "event_types".into(),
            json!({ "from": before.event_types, "to": after.event_types }),
        );
    }
    if before.ordering != after.ordering {
        p.insert(
            "ordering".into(),
            json!({ "from": before.ordering.as_str(), "to": after.ordering.as_str() }),
        );
    }
    if before.verify_ownership != after.verify_ownership {
        p.insert(
            "verify_ownership".into(),
            json!({ "from": before.verify_ownership, "to": after.verify_ownership }),
        );
    }
    if before.payload_changed(after) {
        p.insert(
            "payload".into(),
            json!({
                "version": { "from": before.version, "to": after.version },
                "snapshot_fields": after.snapshot_fields,
                "allow_personal_data": after.allow_personal_data,
                "event_type_versions": after.event_type_versions,
            }),
        );
    }
    (!p.is_empty()).then_some(serde_json::Value::Object(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_match_compares_strongly_and_takes_lists_and_star() {
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::IF_MATCH, HeaderValue::from_str(v).unwrap());
            IfMatch::from_headers(&h).unwrap().unwrap()
        };
        assert!(IfMatch::from_headers(&HeaderMap::new()).unwrap().is_none());
        assert!(with("\"3\"").matches(3));
        assert!(!with("\"3\"").matches(4));
        assert!(with("\"1\", \"3\"").matches(3));
        assert!(with("*").matches(9));
        assert!(!with("W/\"3\"").matches(3), "weak tags never match");
        assert!(!with("3").matches(3), "a tag is quoted");
        assert_eq!(etag(12), "\"12\"");
    }
}
