//! The SQS kind's classification of one `SendMessage` into a [`Verdict`],
//! pure and table-tested. An error's code is SQS's documented one (the
//! `x-amzn-query-error` header's) or the JSON protocol's `__type` name;
//! both spellings are in the table.
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | `200` with a `MessageId`, and the MD5 digests of body and attributes equal to what was sent | delivered | — |
//! | `200` without a `MessageId`, or a digest that differs (the message was changed on the way or is not the one stored) | retried | `protocol` |
//! | connect, dns, timeout, tls, blocked_address | retried | the transport kind |
//! | the connection broke, or the service broke HTTP | retried | `protocol` |
//! | a target the guard now refuses (scheme, port, address rules); a queue URL that makes no request | dead-lettered, `invalid_destination` | — |
//! | a body SQS cannot carry (not UTF-8, or a character outside SQS's set) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `InvalidClientTokenId`, `SignatureDoesNotMatch`, `UnrecognizedClientException`, `IncompleteSignature`, `MissingAuthenticationToken`, `InvalidSecurity`, `ExpiredToken`, `RequestExpired` (clock skew), `401` | retried (the credentials can be fixed) | `auth_refused` |
//! | `AccessDenied`, `AccessDeniedException`, any other `403` (the identity may not `sqs:SendMessage` to the queue: a policy no retry of this message changes) | dead-lettered, `rejected_by_destination` | `auth_refused` |
//! | `AWS.SimpleQueueService.NonExistentQueue`, `QueueDoesNotExist`, `AWS.SimpleQueueService.QueueDeletedRecently` | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `KmsAccessDenied`, `KMS.AccessDeniedException` (the queue's key refuses SQS) | retried (the key's policy can be fixed) | `auth_refused` |
//! | `KmsDisabled`, `KmsInvalidState`, `KmsInvalidKeyUsage`, `KmsNotFound`, `KmsOptInRequired` and their `KMS.*Exception` spellings (the queue's key cannot encrypt) | retried (the key can be fixed) | `rejected` |
//! | `KmsThrottled`, `KMS.ThrottlingException`, `ThrottlingException`, `RequestThrottled`, `ServiceUnavailable`, `InternalFailure`, `InternalError`, `408`, `429`, `5xx` | retried, not before a `Retry-After` | `unavailable` |
//! | `3xx` (redirects are not followed: another region or endpoint) | retried (the endpoint can be fixed) | `rejected` |
//! | `InvalidParameterValue`, `InvalidMessageContents`, `InvalidAttributeName`, `InvalidAttributeValue`, `MissingParameter`, `UnsupportedOperation`, any other `4xx`, any other status | dead-lettered, `rejected_by_destination` | `rejected` |

use relay_core::outcome::{Refusal, Verdict};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::aws::classify::{by_status, rejected, retry, unanswered, unconfirmed};

/// What one `SendMessage` came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer<'a> {
    /// `200`: whether it has a `MessageId` and the digests SQS answered
    /// are those of what was sent.
    Sent { digests_match: bool },
    /// Any other answer: the status, the error code when there is one, a
    /// `Retry-After` in seconds.
    Status {
        status: u16,
        code: Option<&'a str>,
        retry_after: Option<u64>,
    },
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// No request can be made from the queue URL.
    Unaddressable,
    /// The body is nothing SQS can carry.
    Unsendable,
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer<'_>, now: Timestamp) -> Verdict {
    let retry = |refusal, after| retry(refusal, after, now);
    match *answer {
        Answer::Sent {
            digests_match: true,
        } => Verdict::Delivered,
        Answer::Sent {
            digests_match: false,
        } => unconfirmed(),
        Answer::Status {
            status,
            code,
            retry_after,
        } => match code.unwrap_or("") {
            "InvalidClientTokenId"
            | "SignatureDoesNotMatch"
            | "UnrecognizedClientException"
            | "IncompleteSignature"
            | "MissingAuthenticationToken"
            | "InvalidSecurity"
            | "AWS.SimpleQueueService.InvalidSecurity"
            | "ExpiredToken"
            | "ExpiredTokenException"
            | "RequestExpired" => retry(Refusal::AuthRefused, None),
            "AccessDenied" | "AccessDeniedException" => rejected(Refusal::AuthRefused),
            "AWS.SimpleQueueService.NonExistentQueue"
            | "QueueDoesNotExist"
            | "AWS.SimpleQueueService.QueueDeletedRecently"
            | "QueueDeletedRecently" => rejected(Refusal::UnknownTarget),
            "KmsAccessDenied" | "KMS.AccessDeniedException" => retry(Refusal::AuthRefused, None),
            "KmsDisabled"
            | "KMS.DisabledException"
            | "KmsInvalidState"
            | "KMS.InvalidStateException"
            | "KmsInvalidKeyUsage"
            | "KMS.InvalidKeyUsageException"
            | "KmsNotFound"
            | "KMS.NotFoundException"
            | "KmsOptInRequired"
            | "KMS.OptInRequired" => retry(Refusal::Rejected, None),
            "KmsThrottled"
            | "KMS.ThrottlingException"
            | "ThrottlingException"
            | "RequestThrottled"
            | "AWS.SimpleQueueService.RequestThrottled"
            | "ServiceUnavailable"
            | "InternalFailure"
            | "InternalError" => retry(Refusal::Unavailable, retry_after),
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
        let protocol = unconfirmed();
        let cases: Vec<(Answer<'static>, Verdict)> = vec![
            (
                Answer::Sent {
                    digests_match: true,
                },
                Verdict::Delivered,
            ),
            (
                Answer::Sent {
                    digests_match: false,
                },
                protocol.clone(),
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
                status(400, Some("ExpiredToken")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(403, Some("RequestExpired")),
                retry(Refusal::AuthRefused),
            ),
            (
                status(400, Some("UnrecognizedClientException")),
                retry(Refusal::AuthRefused),
            ),
            (status(401, None), retry(Refusal::AuthRefused)),
            (
                status(403, Some("AccessDenied")),
                rejected(Refusal::AuthRefused),
            ),
            (
                status(400, Some("AccessDeniedException")),
                rejected(Refusal::AuthRefused),
            ),
            (status(403, None), rejected(Refusal::AuthRefused)),
            (
                status(400, Some("AWS.SimpleQueueService.NonExistentQueue")),
                rejected(Refusal::UnknownTarget),
            ),
            (
                status(400, Some("QueueDoesNotExist")),
                rejected(Refusal::UnknownTarget),
            ),
            (
                status(400, Some("KmsAccessDenied")),
                retry(Refusal::AuthRefused),
            ),
            (status(400, Some("KmsDisabled")), retry(Refusal::Rejected)),
            (
                status(400, Some("KMS.NotFoundException")),
                retry(Refusal::Rejected),
            ),
            (
                status(400, Some("KmsThrottled")),
                retry(Refusal::Unavailable),
            ),
            (
                status(400, Some("ThrottlingException")),
                retry(Refusal::Unavailable),
            ),
            (
                status(400, Some("RequestThrottled")),
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
                status(400, Some("InvalidParameterValue")),
                rejected(Refusal::Rejected),
            ),
            (
                status(400, Some("InvalidMessageContents")),
                rejected(Refusal::Rejected),
            ),
            (
                status(400, Some("SomethingNew")),
                rejected(Refusal::Rejected),
            ),
            (status(404, None), rejected(Refusal::Rejected)),
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

    #[test]
    fn throttling_waits_for_retry_after() {
        assert_eq!(
            classify(
                &Answer::Status {
                    status: 503,
                    code: Some("ServiceUnavailable"),
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
