//! What the API accepts is deliverable.
//!
//! The checks a publish and a consumer go through so that an accepted event
//! can always be enveloped and sent: each calls the rule of
//! `relay_core::attributes` that the envelope builder calls, and answers a
//! problem with a stable code instead of a `202` that the engine would later
//! dead-letter.
//!
//! | Refusal | Status | `code` | field |
//! |---|---|---|---|
//! | `subject` empty, over 1024 bytes or with a control character | 422 | `validation_failed` | `/subject` |
//! | `source` not a URI-reference of at most 512 bytes | 422 | `invalid_source` | `/source` |
//! | no `source`, and `/consumers/{external_id}` is not one | 422 | `invalid_source` | `/external_id` |
//! | `time` not RFC 3339 | 422 | `invalid_time` | `/time` |
//! | `time` before 1970 or more than 5 minutes ahead | 422 | `time_out_of_range` | `/time` |
//! | the delivered body could exceed the delivery limit | 413 | `envelope_too_large` | `/data` |
//! | an A2A update whose `data` is not a valid `StreamResponse` of its type | 422 | `a2a_invalid_update` | the member at fault |
//! | an A2A update for no `consumer_id` (it would reach every A2A endpoint's task) | 422 | `a2a_consumer_required` | `/consumer_id` |
//! | an A2A update with an `ordering_key` other than its task id | 422 | `a2a_ordering_key_mismatch` | `/ordering_key` |

use axum::http::StatusCode;
use relay_core::attributes::{self, MAX_SOURCE_LEN};
use relay_core::envelope::{Envelope, EnvelopeError};
use relay_core::time::Timestamp;

use crate::error::{ApiError, FieldError};

/// A publish's `subject`.
pub fn subject(subject: Option<&str>) -> Result<(), ApiError> {
    match subject.map(attributes::subject) {
        Some(Err(e)) => Err(ApiError::invalid(
            "validation_failed",
            "/subject",
            match e {
                EnvelopeError::Empty { .. } => "must not be empty".to_string(),
                EnvelopeError::TooLong { max, .. } => format!("must be 1 to {max} bytes"),
                EnvelopeError::ControlCharacter { .. } => {
                    "must not contain control characters (U+0000–U+001F, U+007F–U+009F)".into()
                }
                other => other.to_string(),
            },
        )),
        _ => Ok(()),
    }
}

fn why_not_a_source(e: EnvelopeError) -> String {
    match e {
        EnvelopeError::Empty { .. } => "is empty".to_string(),
        EnvelopeError::TooLong { max, .. } => format!("is longer than {max} bytes"),
        EnvelopeError::ControlCharacter { .. } => "contains a control character".into(),
        _ => "is not a URI reference (RFC 3986)".into(),
    }
}

fn source_message(e: EnvelopeError) -> String {
    format!(
        "{}; the CloudEvents `source` must be a URI reference of at most {MAX_SOURCE_LEN} bytes, \
         such as https://shop.example/merchants/42 or /consumers/acme (other characters percent-encoded)",
        why_not_a_source(e)
    )
}

/// A consumer's explicit `source`.
pub fn source(source: &str) -> Result<(), ApiError> {
    attributes::source(source)
        .map_err(|e| ApiError::invalid("invalid_source", "/source", source_message(e)))
}

/// The source of a new consumer: the one given, or the default derived from
/// its `external_id`, which must then make a valid source too.
pub fn consumer_source(external_id: &str, given: Option<String>) -> Result<String, ApiError> {
    if let Some(s) = given {
        source(&s)?;
        return Ok(s);
    }
    let derived = attributes::default_source(external_id);
    attributes::source(&derived).map_err(|e| {
        ApiError::invalid(
            "invalid_source",
            "/external_id",
            format!(
                "without a `source`, the consumer's source would be `{derived}`, which {}; \
                 give a `source`, or an external_id without `|`",
                why_not_a_source(e)
            ),
        )
    })?;
    Ok(derived)
}

/// A publish's `time`: RFC 3339 within the bounds of
/// [`attributes::event_time`]; `now` when absent.
pub fn event_time(time: Option<&str>, now: Timestamp) -> Result<Timestamp, ApiError> {
    let Some(text) = time else {
        return Ok(now);
    };
    let t = Timestamp::parse_rfc3339(text).ok_or_else(|| {
        ApiError::invalid(
            "invalid_time",
            "/time",
            "must be an RFC 3339 date-time with an offset, such as 2026-01-31T12:00:00Z",
        )
    })?;
    attributes::event_time(t, now)
        .map_err(|m| ApiError::invalid("time_out_of_range", "/time", m))?;
    Ok(t)
}

/// Refuses an event whose delivered body could be larger than `limit` (the
/// engine's delivery limit), for any consumer.
pub fn envelope_fits(envelope: &Envelope<'_>, limit: usize) -> Result<(), ApiError> {
    let bound = attributes::delivered_len_bound(envelope).map_err(|e| {
        // Every attribute was checked before; this is a bug, not the client's.
        tracing::error!(error = %e, "a checked publish cannot be enveloped");
        ApiError::internal()
    })?;
    if bound <= limit {
        return Ok(());
    }
    let data_len = envelope.data.map_or(0, |d| d.get().len());
    let overhead = bound - data_len;
    let message = format!(
        "the delivered CloudEvent could be {bound} bytes, over the delivery limit of {limit} bytes \
         (max_request_bytes); its attributes take up to {overhead} bytes, so `data` can be at most {} bytes here",
        limit.saturating_sub(overhead)
    );
    Err(ApiError {
        errors: vec![FieldError {
            field: "/data".into(),
            message: message.clone(),
        }],
        ..ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "envelope_too_large", message)
    })
}

/// An A2A update (`relay_core::a2a`): its `data` is the `StreamResponse`
/// delivered byte for byte, so it is checked as one now; it is addressed to
/// one consumer (the task's: its endpoints are the task's push
/// configurations, docs/a2a.md); its ordering key is its task id. Returns
/// that key.
pub fn a2a_update(
    event_type: &str,
    data: &serde_json::Value,
    consumer_id: Option<&str>,
    ordering_key: Option<String>,
) -> Result<String, ApiError> {
    let update = relay_core::a2a::check(event_type, data).map_err(|e| {
        ApiError::invalid(
            "a2a_invalid_update",
            &e.pointer,
            format!("not a valid A2A StreamResponse: {}", e.message),
        )
    })?;
    if consumer_id.is_none() {
        return Err(ApiError::invalid(
            "a2a_consumer_required",
            "/consumer_id",
            "an A2A update is for one task's consumer, whose endpoints are the task's push \
             configurations: give its `consumer_id`",
        ));
    }
    match ordering_key {
        Some(k) if k != update.task_id => Err(ApiError::invalid(
            "a2a_ordering_key_mismatch",
            "/ordering_key",
            format!(
                "an A2A update's ordering key is its task id, `{}`; leave `ordering_key` out",
                update.task_id
            ),
        )),
        _ => Ok(update.task_id),
    }
}
