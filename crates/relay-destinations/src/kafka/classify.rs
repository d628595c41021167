//! The Kafka kind's classification of one record's delivery report into a
//! [`Verdict`], pure and table-tested (`classify/tests.rs`).
//!
//! librdkafka retries what Kafka calls retriable itself (the idempotent
//! producer keeps order and drops duplicates across those retries) until
//! the record's `message.timeout.ms`, the attempt's timeout; what reaches
//! the report is final for the attempt:
//!
//! | Report | Verdict | `error_code` |
//! |---|---|---|
//! | no error | delivered | — |
//! | `_MSG_TIMED_OUT` (no broker took it in time), after the guard refused a broker's address | as the guard's kind: retried, or dead-lettered `invalid_destination` for a refused port or URL | the transport kind |
//! | `_MSG_TIMED_OUT` after a broker could not be reached | retried | `connect`, `dns`, `tls` |
//! | `_MSG_TIMED_OUT` after the cluster refused the client (`_AUTHENTICATION` to the error callback: a SASL exchange failed; the record is reported as that refusal, `kafka::timed_out`) | retried, as `_AUTHENTICATION` | `auth_refused` |
//! | `_MSG_TIMED_OUT` otherwise (a broker that does not answer) | retried | `timeout` |
//! | `_TRANSPORT`, `_ALL_BROKERS_DOWN` | retried | `connect` |
//! | `_RESOLVE` | retried | `dns` |
//! | `_SSL` | retried | `tls` |
//! | `_AUTHENTICATION`, `TOPIC_AUTHORIZATION_FAILED` (29), `CLUSTER_AUTHORIZATION_FAILED` (31), `UNSUPPORTED_SASL_MECHANISM` (33), `ILLEGAL_SASL_STATE` (34), `TRANSACTIONAL_ID_AUTHORIZATION_FAILED` (53), `SASL_AUTHENTICATION_FAILED` (58) | retried (credentials and ACLs can be fixed, as an HTTPS 401) | `auth_refused` |
//! | `MSG_SIZE_TOO_LARGE` (10), `RECORD_LIST_TOO_LARGE` (18), `INVALID_MSG_SIZE` (4), librdkafka's own size check (`MSG_SIZE_TOO_LARGE` at produce: a record the engine's check before the attempt, `kafka/limits.rs`, let through) | dead-lettered, `rejected_by_destination` | `message_too_large` |
//! | `UNKNOWN_TOPIC_OR_PART` (3), `TOPIC_EXCEPTION` (17, an invalid name), `UNKNOWN_TOPIC_ID` (100), `_UNKNOWN_TOPIC`, `_UNKNOWN_PARTITION` | dead-lettered, `rejected_by_destination` | `unknown_target` |
//! | `INVALID_MSG` (2, corrupt), `INVALID_TIMESTAMP` (32), `INVALID_REQUIRED_ACKS` (21), `INVALID_REQUEST` (42), `UNSUPPORTED_FOR_MESSAGE_FORMAT` (43), `POLICY_VIOLATION` (44), `INVALID_RECORD` (87), `_INVALID_ARG`, `_BAD_MSG` | dead-lettered, `rejected_by_destination` | `rejected` |
//! | `_QUEUE_FULL`, `_FATAL`, `_PURGE_QUEUE`, `_PURGE_INFLIGHT`, `_DESTROY` (the client is being rebuilt), `LEADER_NOT_AVAILABLE` (5), `NOT_LEADER_FOR_PARTITION` (6), `REQUEST_TIMED_OUT` (7), `NOT_ENOUGH_REPLICAS` (19, 20), `KAFKA_STORAGE_ERROR` (56), `THROTTLING_QUOTA_EXCEEDED` (89), the idempotence errors (45, 47, 59, 90), any other code | retried | `unavailable` |

use relay_core::outcome::{FailureCode, Refusal, TransportError, Verdict};
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use crate::transport_error;

/// librdkafka's and Kafka's codes this classification names.
pub mod code {
    pub const MSG_TIMED_OUT: i32 = -192;
    pub const TRANSPORT: i32 = -195;
    pub const ALL_BROKERS_DOWN: i32 = -187;
    pub const RESOLVE: i32 = -193;
    pub const SSL: i32 = -181;
    pub const AUTHENTICATION: i32 = -169;
    pub const UNKNOWN_TOPIC: i32 = -188;
    pub const UNKNOWN_PARTITION: i32 = -190;
    pub const INVALID_ARG: i32 = -186;
    pub const BAD_MSG: i32 = -199;
    pub const QUEUE_FULL: i32 = -184;
    pub const FATAL: i32 = -150;
    pub const PURGE_QUEUE: i32 = -152;
    pub const PURGE_INFLIGHT: i32 = -151;
    pub const DESTROY: i32 = -197;
    pub const INVALID_MSG: i32 = 2;
    pub const UNKNOWN_TOPIC_OR_PART: i32 = 3;
    pub const INVALID_MSG_SIZE: i32 = 4;
    pub const LEADER_NOT_AVAILABLE: i32 = 5;
    pub const NOT_LEADER_FOR_PARTITION: i32 = 6;
    pub const REQUEST_TIMED_OUT: i32 = 7;
    pub const MSG_SIZE_TOO_LARGE: i32 = 10;
    pub const TOPIC_EXCEPTION: i32 = 17;
    pub const RECORD_LIST_TOO_LARGE: i32 = 18;
    pub const NOT_ENOUGH_REPLICAS: i32 = 19;
    pub const NOT_ENOUGH_REPLICAS_AFTER_APPEND: i32 = 20;
    pub const INVALID_REQUIRED_ACKS: i32 = 21;
    pub const TOPIC_AUTHORIZATION_FAILED: i32 = 29;
    pub const CLUSTER_AUTHORIZATION_FAILED: i32 = 31;
    pub const INVALID_TIMESTAMP: i32 = 32;
    pub const UNSUPPORTED_SASL_MECHANISM: i32 = 33;
    pub const ILLEGAL_SASL_STATE: i32 = 34;
    pub const INVALID_REQUEST: i32 = 42;
    pub const UNSUPPORTED_FOR_MESSAGE_FORMAT: i32 = 43;
    pub const POLICY_VIOLATION: i32 = 44;
    pub const OUT_OF_ORDER_SEQUENCE_NUMBER: i32 = 45;
    pub const INVALID_PRODUCER_EPOCH: i32 = 47;
    pub const TRANSACTIONAL_ID_AUTHORIZATION_FAILED: i32 = 53;
    pub const KAFKA_STORAGE_ERROR: i32 = 56;
    pub const SASL_AUTHENTICATION_FAILED: i32 = 58;
    pub const UNKNOWN_PRODUCER_ID: i32 = 59;
    pub const INVALID_RECORD: i32 = 87;
    pub const THROTTLING_QUOTA_EXCEEDED: i32 = 89;
    pub const PRODUCER_FENCED: i32 = 90;
    pub const UNKNOWN_TOPIC_ID: i32 = 100;
}

/// What one record came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The delivery report without an error.
    Acked,
    /// The report's (or `produceva`'s) error code, other than a timeout.
    Refused(i32),
    /// The record timed out in the client (`_MSG_TIMED_OUT`): no broker
    /// took it in time. With the failure noted meanwhile on the way to a
    /// broker (the guard's refusal, a connection that failed), if any.
    TimedOut(Option<ErrorKind>),
    /// Nothing was sent: the guard's or the client's kind.
    Failed(ErrorKind),
}

/// Classifies one attempt; see the module documentation.
pub fn classify(answer: &Answer) -> Verdict {
    let retry = |refusal| Verdict::Retry {
        code: FailureCode::Refused(refusal),
        not_before: None,
    };
    let transport = |e| Verdict::Retry {
        code: FailureCode::Transport(e),
        not_before: None,
    };
    let rejected = |refusal| Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(refusal),
    };
    let failed = |kind| match transport_error(kind) {
        Some(e) => transport(e),
        None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
    };
    use code::*;
    match *answer {
        Answer::Acked => Verdict::Delivered,
        Answer::Failed(kind) => failed(kind),
        Answer::TimedOut(Some(kind)) => failed(kind),
        Answer::TimedOut(None) => transport(TransportError::Timeout),
        Answer::Refused(c) => match c {
            MSG_TIMED_OUT => transport(TransportError::Timeout),
            TRANSPORT | ALL_BROKERS_DOWN => transport(TransportError::Connect),
            RESOLVE => transport(TransportError::Dns),
            SSL => transport(TransportError::Tls),
            AUTHENTICATION
            | TOPIC_AUTHORIZATION_FAILED
            | CLUSTER_AUTHORIZATION_FAILED
            | UNSUPPORTED_SASL_MECHANISM
            | ILLEGAL_SASL_STATE
            | TRANSACTIONAL_ID_AUTHORIZATION_FAILED
            | SASL_AUTHENTICATION_FAILED => retry(Refusal::AuthRefused),
            MSG_SIZE_TOO_LARGE | RECORD_LIST_TOO_LARGE | INVALID_MSG_SIZE => {
                rejected(Refusal::TooLarge)
            }
            UNKNOWN_TOPIC_OR_PART
            | TOPIC_EXCEPTION
            | UNKNOWN_TOPIC_ID
            | UNKNOWN_TOPIC
            | UNKNOWN_PARTITION => rejected(Refusal::UnknownTarget),
            INVALID_MSG
            | INVALID_TIMESTAMP
            | INVALID_REQUIRED_ACKS
            | INVALID_REQUEST
            | UNSUPPORTED_FOR_MESSAGE_FORMAT
            | POLICY_VIOLATION
            | INVALID_RECORD
            | INVALID_ARG
            | BAD_MSG => rejected(Refusal::Rejected),
            _ => retry(Refusal::Unavailable),
        },
    }
}

#[cfg(test)]
mod tests;
