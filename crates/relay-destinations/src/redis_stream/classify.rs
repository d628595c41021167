//! The Redis Streams kind's classification of one `XADD` into a
//! [`Verdict`], pure and table-tested.
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | an entry id | delivered | — |
//! | connect, dns, timeout, tls, blocked_address | retried | the transport kind |
//! | the connection broke or the reply broke RESP | retried | `protocol` |
//! | a target the guard now refuses (port, address rules) | dead-lettered, `invalid_destination` | — |
//! | `-NOAUTH`, `-WRONGPASS`, `-NOPERM` | retried | `auth_refused` |
//! | `-OOM`, `-BUSY`, `-LOADING`, `-MASTERDOWN`, `-READONLY`, `-TRYAGAIN`, `-CLUSTERDOWN`, `-MOVED`, `-ASK`, any other code | retried | `unavailable` |
//! | `-WRONGTYPE` (the key holds something other than a stream) | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `-ERR …` (the server refused this command: syntax, limits) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | with `wait_aof`: `WAITAOF` confirmed all the fsyncs asked for | delivered | — |
//! | with `wait_aof`: fewer fsyncs than asked before its timeout | retried | `unavailable` |
//! | with `wait_aof`: `-ERR` to `WAITAOF` (no such command before Redis 7.2; `local: 1` with `appendonly no`; a replica) | dead-lettered, `invalid_destination` (the configuration cannot work with this server) | — |
//! | with `wait_aof`: another error to `WAITAOF` | as the same error to `XADD` | |
//!
//! Redis answers an `XADD` only after the entry is in memory: that is the
//! acknowledgement (with AOF on, it is also in the AOF's buffer; see
//! `docs/destinations.md` on durability).

use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::transport_error;

/// What one `XADD` came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer<'a> {
    /// Redis answered the entry's id.
    Added,
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// An error reply: its first word (`OOM`, `WRONGTYPE`, …).
    Refused(&'a str),
    /// Added, but `WAITAOF` confirmed fewer fsyncs than asked.
    Unconfirmed,
    /// Added, but `WAITAOF` got an error reply: its first word.
    AofRefused(&'a str),
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer<'_>) -> Verdict {
    let retry = |code| Verdict::Retry {
        code,
        not_before: None,
    };
    let rejected = |refusal| Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(refusal),
    };
    match *answer {
        Answer::Added => Verdict::Delivered,
        Answer::Failed(kind) => match transport_error(kind) {
            Some(e) => retry(FailureCode::Transport(e)),
            None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        },
        Answer::Unconfirmed => retry(FailureCode::Refused(Refusal::Unavailable)),
        Answer::AofRefused("ERR") => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        Answer::AofRefused(code) | Answer::Refused(code) => match code {
            "NOAUTH" | "WRONGPASS" | "NOPERM" => retry(FailureCode::Refused(Refusal::AuthRefused)),
            "WRONGTYPE" => rejected(Refusal::UnknownTarget),
            "ERR" => rejected(Refusal::Rejected),
            _ => retry(FailureCode::Refused(Refusal::Unavailable)),
        },
    }
}

/// The first word of an error reply.
pub fn error_code(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use relay_core::outcome::TransportError;

    use super::*;

    #[test]
    fn the_table() {
        let retry = |code| Verdict::Retry {
            code,
            not_before: None,
        };
        let rejected = |r| Verdict::Rejected {
            reason: DeadLetterReason::RejectedByDestination,
            code: FailureCode::Refused(r),
        };
        let cases: Vec<(Answer<'static>, Verdict)> = vec![
            (Answer::Added, Verdict::Delivered),
            (
                Answer::Failed(ErrorKind::Connect),
                retry(FailureCode::Transport(TransportError::Connect)),
            ),
            (
                Answer::Failed(ErrorKind::Timeout),
                retry(FailureCode::Transport(TransportError::Timeout)),
            ),
            (
                Answer::Failed(ErrorKind::Protocol),
                retry(FailureCode::Transport(TransportError::Protocol)),
            ),
            (
                Answer::Failed(ErrorKind::BlockedAddress),
                retry(FailureCode::Transport(TransportError::BlockedAddress)),
            ),
            (
                Answer::Failed(ErrorKind::PortNotAllowed),
                Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            ),
            (
                Answer::Refused("NOAUTH"),
                retry(FailureCode::Refused(Refusal::AuthRefused)),
            ),
            (
                Answer::Refused("WRONGPASS"),
                retry(FailureCode::Refused(Refusal::AuthRefused)),
            ),
            (
                Answer::Refused("NOPERM"),
                retry(FailureCode::Refused(Refusal::AuthRefused)),
            ),
            (
                Answer::Refused("OOM"),
                retry(FailureCode::Refused(Refusal::Unavailable)),
            ),
            (
                Answer::Refused("LOADING"),
                retry(FailureCode::Refused(Refusal::Unavailable)),
            ),
            (
                Answer::Refused("READONLY"),
                retry(FailureCode::Refused(Refusal::Unavailable)),
            ),
            (
                Answer::Refused("MOVED"),
                retry(FailureCode::Refused(Refusal::Unavailable)),
            ),
            (
                Answer::Refused("SOMETHINGNEW"),
                retry(FailureCode::Refused(Refusal::Unavailable)),
            ),
            (
                Answer::Refused("WRONGTYPE"),
                rejected(Refusal::UnknownTarget),
            ),
            (Answer::Refused("ERR"), rejected(Refusal::Rejected)),
            (
                Answer::Unconfirmed,
                retry(FailureCode::Refused(Refusal::Unavailable)),
            ),
            (
                Answer::AofRefused("ERR"),
                Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            ),
            (
                Answer::AofRefused("NOPERM"),
                retry(FailureCode::Refused(Refusal::AuthRefused)),
            ),
            (
                Answer::AofRefused("LOADING"),
                retry(FailureCode::Refused(Refusal::Unavailable)),
            ),
        ];
        for (answer, expected) in cases {
            assert_eq!(classify(&answer), expected, "{answer:?}");
        }
        for kind in ErrorKind::ALL {
            let v = classify(&Answer::Failed(kind));
            assert_eq!(
                matches!(v, Verdict::DeadLetter(_)),
                kind.is_refused_target(),
                "{kind}"
            );
        }
    }

    #[test]
    fn error_codes_are_the_first_word() {
        assert_eq!(error_code("WRONGTYPE Operation against a key"), "WRONGTYPE");
        assert_eq!(error_code("OOM command not allowed"), "OOM");
        assert_eq!(error_code(""), "");
    }
}
