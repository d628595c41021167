//! What the AWS message kinds' classifications (`sqs/classify.rs`,
//! `sns/classify.rs`) share: the verdicts they give, an answer whose code
//! the kind's table does not name judged by its status, and no answer.
//! Each kind's table of codes is its own.

use relay_core::outcome::{FailureCode, Refusal, TransportError, Verdict};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::transport_error;

/// Retried with `refusal`, not before `after` seconds from `now` when
/// given (a `Retry-After`).
pub fn retry(refusal: Refusal, after: Option<u64>, now: Timestamp) -> Verdict {
    Verdict::Retry {
        code: FailureCode::Refused(refusal),
        not_before: after.map(|s| now.plus_seconds(i64::try_from(s).unwrap_or(i64::MAX))),
    }
}

/// Dead-lettered, `rejected_by_destination`, with `refusal`.
pub fn rejected(refusal: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(refusal),
    }
}

/// A `200` that does not acknowledge (no id, or digests that differ):
/// retried, `protocol`.
pub fn unconfirmed() -> Verdict {
    Verdict::Retry {
        code: FailureCode::Transport(TransportError::Protocol),
        not_before: None,
    }
}

/// An answer whose code the kind's table does not name: `401` retried
/// (`auth_refused`), `403` dead-lettered (`auth_refused`), `408`, `429`
/// and `5xx` retried not before a `Retry-After` (`unavailable`), `3xx`
/// retried (`rejected`: redirects are not followed, the endpoint can be
/// fixed), anything else dead-lettered (`rejected`).
pub fn by_status(status: u16, retry_after: Option<u64>, now: Timestamp) -> Verdict {
    match status {
        401 => retry(Refusal::AuthRefused, None, now),
        403 => rejected(Refusal::AuthRefused),
        408 | 429 | 500..=599 => retry(Refusal::Unavailable, retry_after, now),
        300..=399 => retry(Refusal::Rejected, None, now),
        _ => rejected(Refusal::Rejected),
    }
}

/// No answer: a transport failure is retried; a target the guard refuses
/// (nothing was tried) is dead-lettered, `invalid_destination`.
pub fn unanswered(kind: ErrorKind) -> Verdict {
    match transport_error(kind) {
        Some(e) => Verdict::Retry {
            code: FailureCode::Transport(e),
            not_before: None,
        },
        None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

    #[test]
    fn statuses() {
        for (status, expected) in [
            (401, retry(Refusal::AuthRefused, None, NOW)),
            (403, rejected(Refusal::AuthRefused)),
            (408, retry(Refusal::Unavailable, Some(7), NOW)),
            (429, retry(Refusal::Unavailable, Some(7), NOW)),
            (503, retry(Refusal::Unavailable, Some(7), NOW)),
            (301, retry(Refusal::Rejected, None, NOW)),
            (400, rejected(Refusal::Rejected)),
            (404, rejected(Refusal::Rejected)),
        ] {
            assert_eq!(by_status(status, Some(7), NOW), expected, "{status}");
        }
        assert_eq!(
            retry(Refusal::Unavailable, Some(30), NOW),
            Verdict::Retry {
                code: FailureCode::Refused(Refusal::Unavailable),
                not_before: Some(NOW.plus_seconds(30)),
            }
        );
        for kind in ErrorKind::ALL {
            assert_eq!(
                matches!(unanswered(kind), Verdict::DeadLetter(_)),
                kind.is_refused_target(),
                "{kind}"
            );
        }
    }
}
