//! The SNS kind's classification of one `Publish` into a [`Verdict`],
//! pure and table-tested. An error's code is the `<Code>` of SNS's XML
//! answer (the query protocol's; SNS's documented codes, and the ones AWS's
//! front end answers before SNS is reached).
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | `200` with a `MessageId` (SNS answers no digest: the id is the whole acknowledgement) | delivered | — |
//! | `200` without a `MessageId` | retried | `protocol` |
//! | connect, dns, timeout, tls, blocked_address | retried | the transport kind |
//! | the connection broke, or the service broke HTTP | retried | `protocol` |
//! | a target the guard now refuses (scheme, port, address rules); a configuration that makes no request | dead-lettered, `invalid_destination` | — |
//! | a message SNS cannot carry (not UTF-8, empty) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `InvalidClientTokenId`, `SignatureDoesNotMatch`, `IncompleteSignature`, `MissingAuthenticationToken`, `InvalidSecurity`, `ExpiredToken`, `RequestExpired` (clock skew), `401` | retried (the credentials can be fixed) | `auth_refused` |
//! | `AuthorizationError`, `AccessDenied`, `AccessDeniedException`, any other `403` (the identity may not `sns:Publish` to the topic: a policy no retry of this message changes) | dead-lettered, `rejected_by_destination` | `auth_refused` |
//! | `NotFound`, `404` (no such topic) | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `KMSAccessDenied` (the topic's key refuses SNS) | retried (the key's policy can be fixed) | `auth_refused` |
//! | `KMSDisabled`, `KMSInvalidState`, `KMSNotFound`, `KMSOptInRequired` (the topic's key cannot encrypt) | retried (the key can be fixed) | `rejected` |
//! | `Throttled`, `Throttling`, `ThrottlingException`, `KMSThrottling`, `ServiceUnavailable`, `InternalError`, `InternalFailure`, `408`, `429`, `5xx` | retried, not before a `Retry-After` | `unavailable` |
//! | `3xx` (redirects are not followed: another region or endpoint) | retried (the endpoint can be fixed) | `rejected` |
//! | `InvalidParameter`, `ParameterValueInvalid`, `ValidationException`, `MissingParameter`, `EndpointDisabled`, any other `4xx`, any other status | dead-lettered, `rejected_by_destination` | `rejected` |

use relay_core::outcome::{Refusal, Verdict};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::aws::classify::{by_status, rejected, retry, unanswered, unconfirmed};

/// What one `Publish` came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer<'a> {
    /// `200`: whether it has a `MessageId`.
    Published { message_id: bool },
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
    /// The message is nothing SNS can carry.
    Unsendable,
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer<'_>, now: Timestamp) -> Verdict {
    let retry = |refusal, after| retry(refusal, after, now);
    match *answer {
        Answer::Published { message_id: true } => Verdict::Delivered,
        Answer::Published { message_id: false } => unconfirmed(),
        Answer::Status {
            status,
            code,
            retry_after,
        } => match code.unwrap_or("") {
            "InvalidClientTokenId"
            | "SignatureDoesNotMatch"
            | "IncompleteSignature"
            | "MissingAuthenticationToken"
            | "InvalidSecurity"
            | "ExpiredToken"
            | "RequestExpired" => retry(Refusal::AuthRefused, None),
            "AuthorizationError" | "AccessDenied" | "AccessDeniedException" => {
                rejected(Refusal::AuthRefused)
            }
            "NotFound" => rejected(Refusal::UnknownTarget),
            "KMSAccessDenied" => retry(Refusal::AuthRefused, None),
            "KMSDisabled" | "KMSInvalidState" | "KMSNotFound" | "KMSOptInRequired" => {
                retry(Refusal::Rejected, None)
            }
            "Throttled"
            | "Throttling"
            | "ThrottlingException"
            | "KMSThrottling"
            | "ServiceUnavailable"
            | "InternalError"
            | "InternalFailure" => retry(Refusal::Unavailable, retry_after),
            _ if status == 404 => rejected(Refusal::UnknownTarget),
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

    #[test]
    fn the_table() {
        let retry = |r| retry(r, None, NOW);
        let cases: Vec<(Answer<'static>, Verdict)> = vec![
            (Answer::Published { message_id: true }, Verdict::Delivered),
            (
                Answer::Published { message_id: false },
                Verdict::Retry {
                    code: FailureCode::Transport(TransportError::Protocol),
                    not_before: None,
                },
            ),
            (
                status(403, Some("SignatureDoesNotMatch")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(403, Some("InvalidClientTokenId")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(403, Some("InvalidSecurity")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(403, Some("ExpiredToken")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(400, Some("RequestExpired")),
                retry(Refusal::AuthRefused),
            ),
            (status(401, None), retry(Refusal::AuthRefused)),
            (
                status(403, Some("AuthorizationError")),
                rejected(Refusal::AuthRefused),
            ),
            (
                status(403, Some("AccessDenied")),
                rejected(Refusal::AuthRefused),
            ),
            (status(403, None), rejected(Refusal::AuthRefused)),
            (
                status(404, Some("NotFound")),
                rejected(Refusal::UnknownTarget),
            ),
            (status(404, None), rejected(Refusal::UnknownTarget)),
            (
                status(400, Some("KMSAccessDenied")),
                retry(Refusal::AuthRefused),
            ),
            (status(400, Some("KMSDisabled")), retry(Refusal::Rejected)),
            (
                status(403, Some("KMSOptInRequired")),
                retry(Refusal::Rejected),
            ),
            (status(429, Some("Throttled")), retry(Refusal::Unavailable)),
            (status(400, Some("Throttling")), retry(Refusal::Unavailable)),
            (
                status(400, Some("KMSThrottling")),
                retry(Refusal::Unavailable),
            ),
            (
                status(500, Some("InternalError")),
                retry(Refusal::Unavailable),
            ),
            (status(503, None), retry(Refusal::Unavailable)),
            (status(429, None), retry(Refusal::Unavailable)),
            (status(408, None), retry(Refusal::Unavailable)),
            (status(301, None), retry(Refusal::Rejected)),
            (
                status(400, Some("InvalidParameter")),
                rejected(Refusal::Rejected),
            ),
            (
                status(400, Some("ParameterValueInvalid")),
                rejected(Refusal::Rejected),
            ),
            (
                status(400, Some("MissingParameter")),
                rejected(Refusal::Rejected),
            ),
            (
                status(400, Some("SomethingNew")),
                rejected(Refusal::Rejected),
            ),
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
