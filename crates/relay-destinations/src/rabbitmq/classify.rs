//! The RabbitMQ kind's classification of one publish into a [`Verdict`],
//! pure and table-tested (`classify/tests.rs`).
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | `basic.ack` of the publish's delivery tag | delivered | — |
//! | connect, dns, timeout, tls, blocked_address | retried | the transport kind |
//! | the connection broke, or the broker broke AMQP | retried | `protocol` |
//! | a target the guard now refuses (port, address rules) | dead-lettered, `invalid_destination` | — |
//! | the routing key, expanded, is longer than 255 bytes (the engine's check before the attempt, `limits.rs`, dead-letters it unsent as `address_too_long` first) | dead-lettered, `invalid_destination` | — |
//! | `basic.nack` | retried | `nack` |
//! | `basic.return` `312 NO_ROUTE` (or `313 NO_CONSUMERS`), then the ack | dead-lettered, `rejected_by_destination` | `unroutable` |
//! | `basic.return` `311 CONTENT_TOO_LARGE` | dead-lettered, `rejected_by_destination` | `message_too_large` |
//! | close `403 ACCESS_REFUSED` (login or permissions), `530 NOT_ALLOWED` (virtual host) | retried | `auth_refused` |
//! | close `404 NOT_FOUND` (no such exchange) | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | close `311`, or `406`/`501` saying the message or frame is too large | dead-lettered, `rejected_by_destination` | `message_too_large` |
//! | close `406 PRECONDITION_FAILED` (other) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | close `320 CONNECTION_FORCED`, `405`, `506 RESOURCE_ERROR`, `541 INTERNAL_ERROR`, any other code | retried | `unavailable` |
//!
//! Credentials refused are retried, as an HTTPS 401 is: they can be fixed
//! without touching the message, and the endpoint's health shows the code.

use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use super::wire::reply;
use crate::transport_error;

/// What one publish came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer<'a> {
    /// The broker acknowledged the publish's delivery tag.
    Acked,
    /// `basic.nack` of the delivery tag.
    Nacked,
    /// `basic.return` with this reply code, then the ack.
    Returned(u16),
    /// The broker closed the channel or connection with this reply code
    /// and text.
    Closed(u16, &'a str),
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// The message could not be addressed (routing key too long).
    Unaddressable,
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
        Answer::Nacked => retry(Refusal::Nack),
        Answer::Returned(reply::CONTENT_TOO_LARGE) => rejected(Refusal::TooLarge),
        Answer::Returned(_) => rejected(Refusal::Unroutable),
        Answer::Failed(kind) => match transport_error(kind) {
            Some(e) => Verdict::Retry {
                code: FailureCode::Transport(e),
                not_before: None,
            },
            None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        },
        Answer::Unaddressable => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        Answer::Closed(code, text) => match code {
            reply::ACCESS_REFUSED | reply::NOT_ALLOWED => retry(Refusal::AuthRefused),
            reply::NOT_FOUND => rejected(Refusal::UnknownTarget),
            reply::CONTENT_TOO_LARGE => rejected(Refusal::TooLarge),
            reply::PRECONDITION_FAILED | reply::FRAME_ERROR if says_too_large(text) => {
                rejected(Refusal::TooLarge)
            }
            reply::PRECONDITION_FAILED => rejected(Refusal::Rejected),
            _ => retry(Refusal::Unavailable),
        },
    }
}

/// Whether a close's text says the message or a frame was too large
/// (RabbitMQ: "message size … is larger than configured max size", "frame
/// size … exceeds …").
fn says_too_large(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("larger than") || t.contains("too large") || t.contains("exceeds")
}

#[cfg(test)]
mod tests;
