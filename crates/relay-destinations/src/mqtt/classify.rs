//! The MQTT kind's classification of one publish into a [`Verdict`], pure
//! and table-tested (`classify/tests.rs`).
//!
//! | Result | Verdict | `error_code` |
//! |---|---|---|
//! | `PUBACK` of the publish's packet identifier, reason 0x00 (success) or 0x10 (no matching subscribers: the broker accepted it) | delivered | — |
//! | connect, dns, timeout, tls, blocked_address | retried | the transport kind |
//! | the connection broke, or the broker broke MQTT (3.1.1 brokers close the connection to refuse) | retried | `protocol` |
//! | a target the guard now refuses (port, address rules) | dead-lettered, `invalid_destination` | — |
//! | the topic, filled in, is not a topic name (empty, wildcards, NUL, `$…`; too long is found before the attempt: `address_too_long`); binary mode with 3.1.1 | dead-lettered, `invalid_destination` | — |
//! | `PUBACK` 0x87 not authorized | retried | `auth_refused` |
//! | `PUBACK` 0x97 quota exceeded | retried | `unavailable` |
//! | `PUBACK` 0x90 topic name invalid | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `PUBACK` 0x95 packet too large | dead-lettered, `rejected_by_destination` | `message_too_large` |
//! | larger than the broker's Maximum Packet Size (`CONNACK`; not sent) | dead-lettered, `payload_over_limit` | — |
//! | `PUBACK` 0x99 payload format invalid | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `PUBACK` 0x80 unspecified, 0x83 implementation specific, 0x91 packet identifier in use, any other ≥ 0x80 | retried | `nack` |
//! | `CONNACK` bad user name or password, not authorized, banned, bad authentication method (5: 0x86, 0x87, 0x8A, 0x8C; 3.1.1: 4, 5) | retried | `auth_refused` |
//! | `CONNACK` unsupported protocol version, client identifier not valid (5: 0x84, 0x85, and a 3.1.1 broker's 1; 3.1.1: 1, 2) | retried (the endpoint can be fixed) | `rejected` |
//! | `CONNACK` server unavailable, busy, quota, rate, use another server, any other code | retried | `unavailable` |
//! | the broker takes no QoS 1 (`CONNACK` Maximum QoS 0) | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `DISCONNECT` 0x87 not authorized | retried | `auth_refused` |
//! | `DISCONNECT` 0x95 packet too large | retried (the `DISCONNECT` names no publish: every waiting one gets it) | `message_too_large` |
//! | `DISCONNECT` any other reason (shutting down, session taken over, …) | retried | `unavailable` |
//!
//! Credentials refused are retried, as an HTTPS 401 is: they can be fixed
//! without touching the message, and the endpoint's health shows the code.
//! MQTT 3.1.1 has no reason codes in `PUBACK`: a 3.1.1 broker that drops a
//! publish (an ACL, a size limit) still acknowledges it, so only MQTT 5
//! can report those refusals.

use crate::mqtt::MqttVersion;
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::transport_error;

#[cfg(test)]
mod tests;

/// MQTT 5 reason code 0x10: the broker accepted the publish and no
/// subscription matched it (a success: the broker took it).
pub const NO_MATCHING_SUBSCRIBERS: u8 = 0x10;

/// What one publish came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The `PUBACK` of the publish's identifier with a success code.
    Acked,
    /// A `PUBACK` with this reason code (≥ 0x80).
    PubAck(u8),
    /// A `CONNACK` with this non-zero code.
    ConnAck(MqttVersion, u8),
    /// The broker's `DISCONNECT` with this reason code.
    Disconnect(u8),
    /// Larger than the broker's Maximum Packet Size; not sent.
    TooLarge,
    /// The broker takes no QoS 1.
    NoQos1,
    /// No answer: the guard's or the connection's kind.
    Failed(ErrorKind),
    /// The message cannot be published as configured.
    Unaddressable,
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer) -> Verdict {
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
        Answer::PubAck(code) => match code {
            0x87 => retry(Refusal::AuthRefused),
            0x97 => retry(Refusal::Unavailable),
            0x90 => rejected(Refusal::UnknownTarget),
            0x95 => rejected(Refusal::TooLarge),
            0x99 => rejected(Refusal::Rejected),
            _ => retry(Refusal::Nack),
        },
        Answer::ConnAck(version, code) => match (version, code) {
            (MqttVersion::V5, 0x86 | 0x87 | 0x8A | 0x8C) | (MqttVersion::V311, 4 | 5) => {
                retry(Refusal::AuthRefused)
            }
            // 1: a 3.1.1 broker's answer to an MQTT 5 CONNECT.
            (MqttVersion::V5, 0x84 | 0x85 | 1) | (MqttVersion::V311, 1 | 2) => {
                retry(Refusal::Rejected)
            }
            _ => retry(Refusal::Unavailable),
        },
        Answer::Disconnect(0x87) => retry(Refusal::AuthRefused),
        Answer::Disconnect(0x95) => retry(Refusal::TooLarge),
        Answer::Disconnect(_) => retry(Refusal::Unavailable),
        Answer::TooLarge => Verdict::DeadLetter(DeadLetterReason::PayloadOverLimit),
        Answer::NoQos1 => rejected(Refusal::Rejected),
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

/// The name MQTT 5 gives a reason code of `PUBACK` or `DISCONNECT`
/// (§2.4), for the attempt record.
pub fn describe(code: u8) -> &'static str {
    match code {
        0x00 => "success",
        0x04 => "disconnect with will message",
        0x10 => "no matching subscribers",
        0x80 => "unspecified error",
        0x81 => "malformed packet",
        0x82 => "protocol error",
        0x83 => "implementation specific error",
        0x87 => "not authorized",
        0x89 => "server busy",
        0x8B => "server shutting down",
        0x8D => "keep alive timeout",
        0x8E => "session taken over",
        0x90 => "topic name invalid",
        0x91 => "packet identifier in use",
        0x93 => "receive maximum exceeded",
        0x95 => "packet too large",
        0x97 => "quota exceeded",
        0x98 => "administrative action",
        0x99 => "payload format invalid",
        0x9A => "retain not supported",
        0x9B => "QoS not supported",
        0x9C => "use another server",
        0x9D => "server moved",
        0x9F => "connection rate exceeded",
        _ => "unknown reason code",
    }
}

/// What a `CONNACK`'s code means in `version` (3.1.1 §3.2.2.3, 5 §3.2.2.2).
pub fn describe_connack(version: MqttVersion, code: u8) -> &'static str {
    match (version, code) {
        (MqttVersion::V311, 0) | (MqttVersion::V5, 0) => "accepted",
        (MqttVersion::V311, 1) => "unacceptable protocol version",
        (MqttVersion::V5, 1) => "unacceptable protocol version (a broker without MQTT 5)",
        (MqttVersion::V311, 2) => "identifier rejected",
        (MqttVersion::V311, 3) => "server unavailable",
        (MqttVersion::V311, 4) => "bad user name or password",
        (MqttVersion::V311, 5) => "not authorized",
        (MqttVersion::V5, 0x84) => "unsupported protocol version",
        (MqttVersion::V5, 0x85) => "client identifier not valid",
        (MqttVersion::V5, 0x86) => "bad user name or password",
        (MqttVersion::V5, 0x88) => "server unavailable",
        (MqttVersion::V5, 0x8A) => "banned",
        (MqttVersion::V5, 0x8C) => "bad authentication method",
        (MqttVersion::V5, c) => describe(c),
        _ => "unknown return code",
    }
}
