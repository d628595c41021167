//! The EventBridge kind's classification of one `PutEvents` into a
//! [`Verdict`], pure and table-tested. A `200` is not yet an
//! acknowledgement: its entry (Relay sends one) has an `EventId`, or an
//! `ErrorCode` that fails that message. A request's error code is the JSON
//! protocol's `__type` name (or the XML `<Code>` of a refusal answered
//! before the action).
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | `200` whose entry has an `EventId` | delivered | — |
//! | `200` whose entry failed with `InternalFailure` or `ThrottlingException` (EventBridge's retryable entry errors) | retried | `unavailable` |
//! | `200` whose entry failed with `AccessDeniedException`, `NotAuthorizedForSourceException`, `NotAuthorizedForDetailTypeException` (a policy no retry of this message changes) | dead-lettered, `rejected_by_destination` | `auth_refused` |
//! | `200` whose entry failed with `InvalidArgument`, `MalformedDetail`, `InvalidAccountIdException`, `RedactionFailure`, or any other code (EventBridge's non-retryable entry errors) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `200` without an entry, or one with neither id nor error | retried | `protocol` |
//! | connect, dns, timeout, tls, blocked_address | retried | the transport kind |
//! | the connection broke, or the service broke HTTP | retried | `protocol` |
//! | a target the guard now refuses (scheme, port, address rules); a configuration that makes no request | dead-lettered, `invalid_destination` | — |
//! | a body that is no JSON object (never, for a structured CloudEvent) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `InvalidClientTokenId`, `UnrecognizedClientException`, `SignatureDoesNotMatch`, `InvalidSignatureException`, `IncompleteSignature`, `MissingAuthenticationToken`, `ExpiredToken`, `ExpiredTokenException`, `RequestExpired` (clock skew), `401` | retried (the credentials can be fixed) | `auth_refused` |
//! | `AccessDenied`, `AccessDeniedException`, any other `403` (the identity may not `events:PutEvents` on the bus) | dead-lettered, `rejected_by_destination` | `auth_refused` |
//! | `ResourceNotFoundException` (no such bus) | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `ThrottlingException`, `Throttling`, `InternalException`, `InternalFailure`, `ServiceUnavailable`, `408`, `429`, `5xx` | retried, not before a `Retry-After` | `unavailable` |
//! | `3xx` (redirects are not followed: another region or endpoint) | retried (the endpoint can be fixed) | `rejected` |
//! | `ValidationException`, `InvalidParameterValue`, any other `4xx`, any other status | dead-lettered, `rejected_by_destination` | `rejected` |

use relay_core::outcome::{Refusal, Verdict};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::aws::classify::{by_status, rejected, retry, unanswered, unconfirmed};

/// What one `PutEvents` came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer<'a> {
    /// `200` whose entry has an `EventId`.
    Accepted,
    /// `200` whose entry failed: its `ErrorCode` (empty when it has none
    /// but no `EventId` either).
    EntryFailed { code: &'a str },
    /// `200` without an entry.
    NoEntry,
    /// Any other answer: the status, the error code when there is one, a
    /// `Retry-After` in seconds.
    Status {
        status: u16,
        code: Option<&'a str>,
        retry_after: Option<u64>,
    },
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// No request can be made from the configuration.
    Unaddressable,
    /// The message is nothing EventBridge can carry.
    Unsendable,
}

/// The verdict of one failed entry, by its `ErrorCode`.
pub fn entry_failed(code: &str, now: Timestamp) -> Verdict {
    match code {
        "InternalFailure" | "ThrottlingException" => retry(Refusal::Unavailable, None, now),
        "AccessDeniedException"
        | "NotAuthorizedForSourceException"
        | "NotAuthorizedForDetailTypeException" => rejected(Refusal::AuthRefused),
        "" => unconfirmed(),
        _ => rejected(Refusal::Rejected),
    }
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer<'_>, now: Timestamp) -> Verdict {
    let retry = |refusal, after| retry(refusal, after, now);
    match *answer {
        Answer::Accepted => Verdict::Delivered,
        Answer::EntryFailed { code } => entry_failed(code, now),
        Answer::NoEntry => unconfirmed(),
        Answer::Status {
            status,
            code,
            retry_after,
        } => match code.unwrap_or("") {
            "InvalidClientTokenId"
            | "UnrecognizedClientException"
            | "SignatureDoesNotMatch"
            | "InvalidSignatureException"
            | "IncompleteSignature"
            | "MissingAuthenticationToken"
            | "ExpiredToken"
            | "ExpiredTokenException"
            | "RequestExpired" => retry(Refusal::AuthRefused, None),
            "AccessDenied" | "AccessDeniedException" => rejected(Refusal::AuthRefused),
            "ResourceNotFoundException" => rejected(Refusal::UnknownTarget),
            "ThrottlingException"
            | "Throttling"
            | "InternalException"
            | "InternalFailure"
            | "ServiceUnavailable" => retry(Refusal::Unavailable, retry_after),
            _ => by_status(status, retry_after, now),
        },
        Answer::Failed(kind) => unanswered(kind),
        Answer::Unaddressable => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        Answer::Unsendable => rejected(Refusal::Rejected),
    }
}

#[cfg(test)]
mod tests {
    use relay_core::outcome::{FailureCode, TransportError};

    use super::*;

    const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

    fn status(status: u16, code: Option<&'static str>) -> Answer<'static> {
        Answer::Status {
            status,
            code,
            retry_after: None,
        }
    }

    fn entry(code: &'static str) -> Answer<'static> {
        Answer::EntryFailed { code }
    }

    #[test]
    fn the_table() {
        let retry = |r| retry(r, None, NOW);
        let protocol = Verdict::Retry {
            code: FailureCode::Transport(TransportError::Protocol),
            not_before: None,
        };
        let cases: Vec<(Answer<'static>, Verdict)> = vec![
            (Answer::Accepted, Verdict::Delivered),
            (Answer::NoEntry, protocol.clone()),
            (entry(""), protocol),
            // The documented entry errors: retryable, then not.
            (entry("InternalFailure"), retry(Refusal::Unavailable)),
            (entry("ThrottlingException"), retry(Refusal::Unavailable)),
            (
                entry("AccessDeniedException"),
                rejected(Refusal::AuthRefused),
            ),
            (
                entry("NotAuthorizedForSourceException"),
                rejected(Refusal::AuthRefused),
            ),
            (
                entry("NotAuthorizedForDetailTypeException"),
                rejected(Refusal::AuthRefused),
            ),
            (
                entry("InvalidAccountIdException"),
                rejected(Refusal::Rejected),
            ),
            (entry("InvalidArgument"), rejected(Refusal::Rejected)),
            (entry("MalformedDetail"), rejected(Refusal::Rejected)),
            (entry("RedactionFailure"), rejected(Refusal::Rejected)),
            (entry("SomethingNew"), rejected(Refusal::Rejected)),
            // The request's errors.
            (
                status(400, Some("UnrecognizedClientException")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(403, Some("SignatureDoesNotMatch")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(400, Some("InvalidSignatureException")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(400, Some("ExpiredTokenException")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(400, Some("RequestExpired")),
                retry(Refusal::AuthRefused),
            ),
            (status(401, None), retry(Refusal::AuthRefused)),
            (
                status(400, Some("AccessDeniedException")),
                rejected(Refusal::AuthRefused),
            ),
            (
                status(403, Some("AccessDenied")),
                rejected(Refusal::AuthRefused),
            ),
            (status(403, None), rejected(Refusal::AuthRefused)),
            (
                status(400, Some("ResourceNotFoundException")),
                rejected(Refusal::UnknownTarget),
            ),
            (
                status(400, Some("ThrottlingException")),
                retry(Refusal::Unavailable),
            ),
            (
                status(500, Some("InternalException")),
                retry(Refusal::Unavailable),
            ),
            (status(503, None), retry(Refusal::Unavailable)),
            (status(429, None), retry(Refusal::Unavailable)),
            (status(408, None), retry(Refusal::Unavailable)),
            (status(301, None), retry(Refusal::Rejected)),
            (
                status(400, Some("ValidationException")),
                rejected(Refusal::Rejected),
            ),
            (status(400, None), rejected(Refusal::Rejected)),
            (
                Answer::Failed(ErrorKind::Timeout),
                Verdict::Retry {
                    code: FailureCode::Transport(TransportError::Timeout),
                    not_before: None,
                },
            ),
            (
                Answer::Failed(ErrorKind::SchemeNotAllowed),
                Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            ),
            (
                Answer::Unaddressable,
                Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            ),
            (Answer::Unsendable, rejected(Refusal::Rejected)),
        ];
        for (answer, expected) in cases {
            assert_eq!(classify(&answer, NOW), expected, "{answer:?}");
        }
        assert_eq!(
            classify(
                &Answer::Status {
                    status: 400,
                    code: Some("ThrottlingException"),
                    retry_after: Some(9),
                },
                NOW
            ),
            super::retry(Refusal::Unavailable, Some(9), NOW)
        );
        for kind in ErrorKind::ALL {
            let v = classify(&Answer::Failed(kind), NOW);
            assert_eq!(
                matches!(v, Verdict::DeadLetter(_)),
                kind.is_refused_target(),
                "{kind}"
            );
        }
    }
}
