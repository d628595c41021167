//! The Service Bus kind's classification of one send into a [`Verdict`],
//! pure and table-tested, by the HTTP status of Service Bus's REST send
//! (its documented answers, and those its gateway gives besides).
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | `201 Created` | delivered | — |
//! | any other `2xx` (not the acknowledgement) | retried | `protocol` |
//! | `401` (a key, a token or a rule without `Send`: the credentials can be fixed; with Entra after the one new token the attempt fetches) | retried | `auth_refused` |
//! | `403` whose detail says the message is too large | dead-lettered, `rejected_by_destination` | `rejected` |
//! | any other `403` (the entity's quota is exceeded: it is full until its consumers drain it) | retried, not before a `Retry-After` | `unavailable` |
//! | `404`, `410` (the entity does not exist) | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `413` (the message is too large) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `408`, `429`, `500`, `503` (`ServerBusy`), any `5xx` | retried, not before a `Retry-After` | `unavailable` |
//! | `3xx` (redirects are not followed: another endpoint) | retried (the endpoint can be fixed) | `rejected` |
//! | `400` (a `SessionId` an entity without sessions refuses, or none where it needs one) and any other `4xx` | dead-lettered, `rejected_by_destination` | `rejected` |
//! | connect, dns, timeout, tls, blocked_address; the connection broke, or the service broke HTTP | retried | the transport kind |
//! | a target the guard now refuses (scheme, port, address rules); a configuration that makes no URL | dead-lettered, `invalid_destination` | — |
//! | the Entra token could not be had | as the HTTPS kind's token failures ([`crate::https::classify`]): retried, `token_…` | `token_…` |

use relay_core::outcome::{FailureCode, Refusal, TokenFailure, TransportError, Verdict};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::https::classify::{Exchange, MAX_RETRY_AFTER_SECONDS, classify as https_classify};
use crate::transport_error;

/// What one send came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// An answer: its status, whether its detail says the message is too
    /// large, a `Retry-After` in seconds.
    Status {
        status: u16,
        too_large: bool,
        retry_after: Option<u64>,
    },
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// No request can be made from the configuration.
    Unaddressable,
    /// No Entra token: how, and the error kind when the token endpoint
    /// gave no answer.
    TokenFailed {
        failure: TokenFailure,
        transport: Option<ErrorKind>,
    },
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer, now: Timestamp) -> Verdict {
    let retry = |refusal, after: Option<u64>| Verdict::Retry {
        code: FailureCode::Refused(refusal),
        not_before: after.map(|s| now.plus_seconds(s.min(MAX_RETRY_AFTER_SECONDS) as i64)),
    };
    let rejected = |refusal| Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(refusal),
    };
    match *answer {
        Answer::Status {
            status,
            too_large,
            retry_after,
        } => match status {
            201 => Verdict::Delivered,
            200..=299 => Verdict::Retry {
                code: FailureCode::Transport(TransportError::Protocol),
                not_before: None,
            },
            401 => retry(Refusal::AuthRefused, None),
            403 if too_large => rejected(Refusal::Rejected),
            403 => retry(Refusal::Unavailable, retry_after),
            404 | 410 => rejected(Refusal::UnknownTarget),
            413 => rejected(Refusal::Rejected),
            408 | 429 | 500..=599 => retry(Refusal::Unavailable, retry_after),
            300..=399 => retry(Refusal::Rejected, None),
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

    fn status(status: u16) -> Answer {
        Answer::Status {
            status,
            too_large: false,
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
        let protocol = Verdict::Retry {
            code: FailureCode::Transport(TransportError::Protocol),
            not_before: None,
        };
        let cases: Vec<(Answer, Verdict)> = vec![
            (status(201), Verdict::Delivered),
            (status(200), protocol.clone()),
            (status(202), protocol.clone()),
            (status(204), protocol),
            (status(401), retry(Refusal::AuthRefused)),
            (status(403), retry(Refusal::Unavailable)),
            (
                Answer::Status {
                    status: 403,
                    too_large: true,
                    retry_after: None,
                },
                rejected(Refusal::Rejected),
            ),
            (status(404), rejected(Refusal::UnknownTarget)),
            (status(410), rejected(Refusal::UnknownTarget)),
            (status(413), rejected(Refusal::Rejected)),
            (status(408), retry(Refusal::Unavailable)),
            (status(429), retry(Refusal::Unavailable)),
            (status(500), retry(Refusal::Unavailable)),
            (status(503), retry(Refusal::Unavailable)),
            (status(504), retry(Refusal::Unavailable)),
            (status(301), retry(Refusal::Rejected)),
            (status(307), retry(Refusal::Rejected)),
            (status(400), rejected(Refusal::Rejected)),
            (status(409), rejected(Refusal::Rejected)),
            (status(100), rejected(Refusal::Rejected)),
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

    /// `ServerBusy` (`503`), throttling (`429`) and a full entity (`403`)
    /// wait for the answer's `Retry-After`, at most the HTTPS kind's cap.
    #[test]
    fn busy_waits_for_retry_after() {
        for s in [503, 429, 403] {
            assert_eq!(
                classify(
                    &Answer::Status {
                        status: s,
                        too_large: false,
                        retry_after: Some(10),
                    },
                    NOW
                ),
                Verdict::Retry {
                    code: FailureCode::Refused(Refusal::Unavailable),
                    not_before: Some(NOW.plus_seconds(10)),
                },
                "{s}"
            );
        }
        let capped = classify(
            &Answer::Status {
                status: 503,
                too_large: false,
                retry_after: Some(u64::MAX),
            },
            NOW,
        );
        assert_eq!(
            capped,
            Verdict::Retry {
                code: FailureCode::Refused(Refusal::Unavailable),
                not_before: Some(NOW.plus_seconds(MAX_RETRY_AFTER_SECONDS as i64)),
            }
        );
    }

    /// An Entra token failure is the HTTPS kind's: retried with its
    /// `token_…` code; a token URL the guard now refuses is an invalid
    /// destination.
    #[test]
    fn token_failures_are_the_https_kinds() {
        for (failure, transport) in [
            (TokenFailure::Unreachable, Some(ErrorKind::Connect)),
            (TokenFailure::OAuth(OAuthError::InvalidClient), None),
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
}
