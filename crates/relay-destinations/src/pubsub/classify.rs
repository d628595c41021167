//! The Pub/Sub kind's classification of one publish into a [`Verdict`],
//! pure and table-tested: by the HTTP status and the answer's
//! `google.rpc.Status` name (`error.status`), which names the cause
//! better than the status (Pub/Sub's 400 is `INVALID_ARGUMENT` or
//! `FAILED_PRECONDITION`).
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | `200` with exactly one id in `messageIds` | delivered | — |
//! | `200` without it (no list, none, several) | retried | `protocol` |
//! | `UNAUTHENTICATED`, `401` (after the one new token the attempt fetches: the account's key or the token endpoint can be fixed) | retried | `auth_refused` |
//! | `PERMISSION_DENIED`, any other `403` (the account may not publish to the topic: IAM no retry of this message changes) | dead-lettered, `rejected_by_destination` | `auth_refused` |
//! | `NOT_FOUND` (the topic does not exist) | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `FAILED_PRECONDITION` (the topic's encryption key or schema settings refuse it: they can be fixed) | retried | `rejected` |
//! | `UNAVAILABLE`, `RESOURCE_EXHAUSTED`, `DEADLINE_EXCEEDED`, `INTERNAL`, `ABORTED`, `CANCELLED`, `UNKNOWN`, `408`, `429`, `5xx` | retried, not before a `Retry-After` | `unavailable` |
//! | `3xx` (redirects are not followed: another endpoint) | retried (the endpoint can be fixed) | `rejected` |
//! | `INVALID_ARGUMENT`, `OUT_OF_RANGE`, `ALREADY_EXISTS`, `UNIMPLEMENTED`, any other `4xx`, any other status | dead-lettered, `rejected_by_destination` | `rejected` |
//! | connect, dns, timeout, tls, blocked_address; the connection broke, or the service broke HTTP | retried | the transport kind |
//! | a target the guard now refuses (scheme, port, address rules); a configuration that makes no URL | dead-lettered, `invalid_destination` | — |
//! | attributes Pub/Sub cannot carry (more than 100, a name over 256 or a value over 1024 bytes) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `workload_identity` on an installation that no longer offers it for the topic's project (registration refuses it; the operator changed `[gcp]` later) | retried (the operator can restore it) | `auth_refused` |
//! | the access token could not be had | as the HTTPS kind's token failures ([`crate::https::classify`]): retried, `token_…` | `token_…` |

use relay_core::outcome::{FailureCode, Refusal, TokenFailure, TransportError, Verdict};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::https::classify::{Exchange, MAX_RETRY_AFTER_SECONDS, classify as https_classify};
use crate::transport_error;

/// What one publish came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer<'a> {
    /// `200`: whether it has exactly one message id.
    Published { one_id: bool },
    /// Any other answer: the status, the `google.rpc.Status` name when
    /// there is one, a `Retry-After` in seconds.
    Status {
        status: u16,
        rpc: Option<&'a str>,
        retry_after: Option<u64>,
    },
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// No request can be made from the configuration.
    Unaddressable,
    /// Attributes Pub/Sub cannot carry.
    Unsendable,
    /// The installation's identity is not offered for the topic.
    NoIdentity,
    /// No access token: how, and the error kind when the token endpoint
    /// gave no answer.
    TokenFailed {
        failure: TokenFailure,
        transport: Option<ErrorKind>,
    },
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer<'_>, now: Timestamp) -> Verdict {
    let retry = |refusal, after: Option<u64>| Verdict::Retry {
        code: FailureCode::Refused(refusal),
        not_before: after.map(|s| now.plus_seconds(s.min(MAX_RETRY_AFTER_SECONDS) as i64)),
    };
    let rejected = |refusal| Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(refusal),
    };
    match *answer {
        Answer::Published { one_id: true } => Verdict::Delivered,
        Answer::Published { one_id: false } => Verdict::Retry {
            code: FailureCode::Transport(TransportError::Protocol),
            not_before: None,
        },
        Answer::Status {
            status,
            rpc,
            retry_after,
        } => match rpc.unwrap_or("") {
            "UNAUTHENTICATED" => retry(Refusal::AuthRefused, None),
            "PERMISSION_DENIED" => rejected(Refusal::AuthRefused),
            "NOT_FOUND" => rejected(Refusal::UnknownTarget),
            "FAILED_PRECONDITION" => retry(Refusal::Rejected, None),
            "UNAVAILABLE" | "RESOURCE_EXHAUSTED" | "DEADLINE_EXCEEDED" | "INTERNAL" | "ABORTED"
            | "CANCELLED" | "UNKNOWN" => retry(Refusal::Unavailable, retry_after),
            "INVALID_ARGUMENT" | "OUT_OF_RANGE" | "ALREADY_EXISTS" | "UNIMPLEMENTED" => {
                rejected(Refusal::Rejected)
            }
            _ => match status {
                401 => retry(Refusal::AuthRefused, None),
                403 => rejected(Refusal::AuthRefused),
                408 | 429 | 500..=599 => retry(Refusal::Unavailable, retry_after),
                300..=399 => retry(Refusal::Rejected, None),
                _ => rejected(Refusal::Rejected),
            },
        },
        Answer::Failed(kind) => match transport_error(kind) {
            Some(e) => Verdict::Retry {
                code: FailureCode::Transport(e),
                not_before: None,
            },
            None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        },
        Answer::Unaddressable => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        Answer::Unsendable => rejected(Refusal::Rejected),
        Answer::NoIdentity => retry(Refusal::AuthRefused, None),
        Answer::TokenFailed { failure, transport } => {
            https_classify(&Exchange::TokenFailed { failure, transport }, now)
        }
    }
}

#[cfg(test)]
mod tests {
    use relay_core::outcome::OAuthError;

    use super::*;

    const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

    fn status(status: u16, rpc: Option<&'static str>) -> Answer<'static> {
        Answer::Status {
            status,
            rpc,
            retry_after: None,
        }
    }

    #[test]
    fn the_table() {
        let retry = |r| Verdict::Retry {
            code: FailureCode::Refused(r),
            not_before: None,
        };
        let rejected = |r| Verdict::Rejected {
            reason: DeadLetterReason::RejectedByDestination,
            code: FailureCode::Refused(r),
        };
        let cases: Vec<(Answer<'static>, Verdict)> = vec![
            (Answer::Published { one_id: true }, Verdict::Delivered),
            (
                Answer::Published { one_id: false },
                Verdict::Retry {
                    code: FailureCode::Transport(TransportError::Protocol),
                    not_before: None,
                },
            ),
            (
                status(401, Some("UNAUTHENTICATED")),
                retry(Refusal::AuthRefused),
            ),
            (status(401, None), retry(Refusal::AuthRefused)),
            (
                status(403, Some("PERMISSION_DENIED")),
                rejected(Refusal::AuthRefused),
            ),
            (status(403, None), rejected(Refusal::AuthRefused)),
            (
                status(404, Some("NOT_FOUND")),
                rejected(Refusal::UnknownTarget),
            ),
            (status(404, None), rejected(Refusal::Rejected)),
            (
                status(400, Some("FAILED_PRECONDITION")),
                retry(Refusal::Rejected),
            ),
            (
                status(503, Some("UNAVAILABLE")),
                retry(Refusal::Unavailable),
            ),
            (
                status(429, Some("RESOURCE_EXHAUSTED")),
                retry(Refusal::Unavailable),
            ),
            (
                status(504, Some("DEADLINE_EXCEEDED")),
                retry(Refusal::Unavailable),
            ),
            (status(500, Some("INTERNAL")), retry(Refusal::Unavailable)),
            (status(409, Some("ABORTED")), retry(Refusal::Unavailable)),
            (status(499, Some("CANCELLED")), retry(Refusal::Unavailable)),
            (status(500, Some("UNKNOWN")), retry(Refusal::Unavailable)),
            (status(502, None), retry(Refusal::Unavailable)),
            (status(429, None), retry(Refusal::Unavailable)),
            (status(408, None), retry(Refusal::Unavailable)),
            (status(301, None), retry(Refusal::Rejected)),
            (
                status(400, Some("INVALID_ARGUMENT")),
                rejected(Refusal::Rejected),
            ),
            (
                status(400, Some("OUT_OF_RANGE")),
                rejected(Refusal::Rejected),
            ),
            (
                status(501, Some("UNIMPLEMENTED")),
                rejected(Refusal::Rejected),
            ),
            (
                status(400, Some("SOMETHING_NEW")),
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
                Answer::Failed(ErrorKind::Http),
                Verdict::Retry {
                    code: FailureCode::Transport(TransportError::Protocol),
                    not_before: None,
                },
            ),
            (
                Answer::Failed(ErrorKind::PortNotAllowed),
                Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            ),
            (
                Answer::Unaddressable,
                Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            ),
            (Answer::Unsendable, rejected(Refusal::Rejected)),
            (Answer::NoIdentity, retry(Refusal::AuthRefused)),
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

    /// A token failure is the HTTPS kind's: retried with its `token_…`
    /// code; a token URL the guard now refuses is an invalid destination.
    #[test]
    fn token_failures_are_retried() {
        for (failure, transport) in [
            (TokenFailure::Unreachable, Some(ErrorKind::Connect)),
            (TokenFailure::OAuth(OAuthError::InvalidGrant), None),
            (TokenFailure::HttpStatus(503), None),
            (TokenFailure::InvalidResponse, None),
        ] {
            let v = classify(&Answer::TokenFailed { failure, transport }, NOW);
            assert!(
                matches!(v, Verdict::Retry { code: FailureCode::Token(f), .. } if f == failure),
                "{failure:?}: {v:?}"
            );
        }
        assert_eq!(
            classify(
                &Answer::TokenFailed {
                    failure: TokenFailure::Unreachable,
                    transport: Some(ErrorKind::SchemeNotAllowed),
                },
                NOW
            ),
            Verdict::DeadLetter(DeadLetterReason::InvalidDestination)
        );
    }

    #[test]
    fn throttling_waits_for_retry_after() {
        assert_eq!(
            classify(
                &Answer::Status {
                    status: 429,
                    rpc: Some("RESOURCE_EXHAUSTED"),
                    retry_after: Some(30),
                },
                NOW
            ),
            Verdict::Retry {
                code: FailureCode::Refused(Refusal::Unavailable),
                not_before: Some(NOW.plus_seconds(30)),
            }
        );
    }
}
