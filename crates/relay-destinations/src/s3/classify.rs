//! The object storage kind's classification of one object write into a
//! [`Verdict`], pure and table-tested (`classify/tests.rs`).
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | `2xx` to the `PUT` (the object is stored; the ETag is recorded) | delivered | — |
//! | connect, dns, timeout, tls, blocked_address | retried | the transport kind |
//! | the connection broke, or the service broke HTTP | retried | `protocol` |
//! | a target the guard now refuses (scheme, port, address rules); a service URL that makes no object URL | dead-lettered, `invalid_destination` | — |
//! | `403` (`AccessDenied`, `InvalidAccessKeyId`, `SignatureDoesNotMatch`, `RequestTimeTooSkewed`, …), `400 ExpiredToken`, `400 InvalidToken`, `401` | retried | `auth_refused` |
//! | `400 AuthorizationHeaderMalformed` (the bucket is in another region), `301` (`PermanentRedirect`: another region or endpoint; redirects are not followed) | retried (the endpoint can be fixed) | `rejected` |
//! | `404` (`NoSuchBucket`) | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `400 EntityTooLarge`, `413` | dead-lettered, `rejected_by_destination` | `message_too_large` |
//! | `400 RequestTimeout`, `307` (`TemporaryRedirect` while a bucket's name propagates), `408`, `409` (`OperationAborted`), `429`, `5xx` (`SlowDown`, `InternalError`, `ServiceUnavailable`) | retried, not before a `Retry-After` | `unavailable` |
//! | any other `4xx` (`InvalidArgument`, `BadDigest`, `XAmzContentSHA256Mismatch`, …), any other status | dead-lettered, `rejected_by_destination` | `rejected` |
//!
//! Credentials refused are retried, as an HTTPS 401 is: they can be fixed
//! without touching the message, and the endpoint's health shows the code.

use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::transport_error;

#[cfg(test)]
mod tests;

/// What one object write came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer<'a> {
    /// The service answered: the status, S3's error `Code` when the body
    /// had one, and a `Retry-After` in seconds.
    Status {
        status: u16,
        code: Option<&'a str>,
        retry_after: Option<u64>,
    },
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// The object's URL cannot be made from the configuration.
    Unaddressable,
}

/// Classifies one write; see the module documentation.
pub fn classify(answer: &Answer<'_>, now: Timestamp) -> Verdict {
    let retry = |refusal, after: Option<u64>| Verdict::Retry {
        code: FailureCode::Refused(refusal),
        not_before: after.map(|s| now.plus_seconds(i64::try_from(s).unwrap_or(i64::MAX))),
    };
    let rejected = |refusal| Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(refusal),
    };
    match *answer {
        Answer::Status {
            status,
            code,
            retry_after,
        } => match (status, code.unwrap_or("")) {
            (200..=299, _) => Verdict::Delivered,
            (403 | 401, _) | (400, "ExpiredToken" | "InvalidToken" | "TokenRefreshRequired") => {
                retry(Refusal::AuthRefused, None)
            }
            (400, "AuthorizationHeaderMalformed") | (301, _) => retry(Refusal::Rejected, None),
            (404, _) => rejected(Refusal::UnknownTarget),
            (400, "EntityTooLarge") | (413, _) => rejected(Refusal::TooLarge),
            (400, "RequestTimeout") | (307 | 408 | 409 | 429, _) | (500..=599, _) => {
                retry(Refusal::Unavailable, retry_after)
            }
            _ => rejected(Refusal::Rejected),
        },
        Answer::Failed(kind) => match transport_error(kind) {
            Some(e) => Verdict::Retry {
                code: FailureCode::Transport(e),
                not_before: None,
            },
            None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        },
        Answer::Unaddressable => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
    }
}

/// The text of the first `<name>…</name>` element of an S3 error body.
pub fn element<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = body.find(&open)? + open.len();
    let end = body[start..].find(&close)? + start;
    Some(&body[start..end])
}
