//! The NATS JetStream kind's classification of one publish into a
//! [`Verdict`], pure and table-tested (`classify/tests.rs`).
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | a PubAck naming the stream and sequence (also `duplicate: true`) | delivered | — |
//! | connect, dns, timeout, tls, blocked_address | retried | the transport kind |
//! | the connection broke, or the server broke the protocol | retried | `protocol` |
//! | a target the guard now refuses (port, address rules) | dead-lettered, `invalid_destination` | — |
//! | `-ERR 'Authorization Violation'`, `Authentication …`, `User Authentication Expired`, `Permissions Violation …` | retried | `auth_refused` |
//! | no responders (status 503: no stream is bound to the subject, or JetStream has no leader for it yet) | retried | `unknown_target` |
//! | another status | retried | `unavailable` |
//! | JetStream error 10054 (larger than the stream's `max_msg_size`), `-ERR 'Maximum Payload Violation'` | dead-lettered, `rejected_by_destination` | `message_too_large` |
//! | larger than the server's `max_payload` (its `INFO`; not sent) | dead-lettered, `payload_over_limit` | — |
//! | JetStream error 10059 (stream not found), 10060 (the subject is bound to another stream than the expected one) | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | JetStream error 10077 (the store refused it: `maximum messages exceeded`, `maximum bytes exceeded` with `discard: new`, storage failures), 10023 (insufficient resources), any other error with code 503 | retried | `unavailable` |
//! | any other JetStream error with a 4xx code | dead-lettered, `rejected_by_destination` | `rejected` |
//! | any other JetStream error, any other `-ERR` | retried | `unavailable` |
//! | a header value NATS cannot carry (CR or LF) | dead-lettered, `rejected_by_destination` | `rejected` |
//!
//! JetStream answers the PubAck once the message is stored in the stream
//! (with file storage: written to the stream's files; with replicas: on a
//! quorum of them). A core publish without a PubAck never counts.

use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::transport_error;

#[cfg(test)]
mod tests;

/// What one publish came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer<'a> {
    /// A PubAck naming the stream and sequence.
    Acked,
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// A reply with a status header and no PubAck (503: no responders).
    Status(u16),
    /// A JetStream API error in the PubAck: its `code` and `err_code`.
    Api { code: u16, err_code: u32 },
    /// The server's `-ERR`, its text.
    Server(&'a str),
    /// Larger than the server's `max_payload`; not sent.
    TooLarge,
    /// A header value NATS cannot carry; not sent.
    BadHeader,
}

/// JetStream's `err_code`s that the table names.
pub mod err_code {
    pub const INSUFFICIENT_RESOURCES: u32 = 10023;
    pub const MESSAGE_TOO_LARGE: u32 = 10054;
    pub const STREAM_NOT_FOUND: u32 = 10059;
    pub const STREAM_MISMATCH: u32 = 10060;
    pub const STORE_FAILED: u32 = 10077;
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer<'_>) -> Verdict {
    let retry = |refusal| Verdict::Retry {
        code: FailureCode::Refused(refusal),
        not_before: None,
    };
    let rejected = |refusal| Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(refusal),
    };
    match *answer {
        Answer::Acked => Verdict::Delivered,
        Answer::Failed(kind) => match transport_error(kind) {
            Some(e) => Verdict::Retry {
                code: FailureCode::Transport(e),
                not_before: None,
            },
            None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        },
        Answer::Status(503) => retry(Refusal::UnknownTarget),
        Answer::Status(_) => retry(Refusal::Unavailable),
        Answer::Api { code, err_code } => match err_code {
            err_code::MESSAGE_TOO_LARGE => rejected(Refusal::TooLarge),
            err_code::STREAM_NOT_FOUND | err_code::STREAM_MISMATCH => {
                rejected(Refusal::UnknownTarget)
            }
            err_code::STORE_FAILED | err_code::INSUFFICIENT_RESOURCES => {
                retry(Refusal::Unavailable)
            }
            _ if (400..500).contains(&code) => rejected(Refusal::Rejected),
            _ => retry(Refusal::Unavailable),
        },
        Answer::Server(text) => {
            let t = text.to_ascii_lowercase();
            if t.starts_with("authorization violation")
                || t.starts_with("authentication")
                || t.starts_with("user authentication")
                || t.starts_with("permissions violation")
            {
                retry(Refusal::AuthRefused)
            } else if t.starts_with("maximum payload") {
                rejected(Refusal::TooLarge)
            } else {
                retry(Refusal::Unavailable)
            }
        }
        Answer::TooLarge => Verdict::DeadLetter(DeadLetterReason::PayloadOverLimit),
        Answer::BadHeader => rejected(Refusal::Rejected),
    }
}
