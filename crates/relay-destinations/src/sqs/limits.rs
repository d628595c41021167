//! What an SQS queue can carry: one message of at most the queue's
//! `MaximumMessageSize` (the configuration's `max_message_bytes`: 256 KiB
//! by default, at most 1 MiB), counted as SQS counts it: the body and
//! every message attribute's name, type and value
//! ([`crate::Kind::message_bytes`]). The queue is fixed at registration.

use crate::Capacity;
use crate::sqs::SqsDestination;

pub fn capacity(c: &SqsDestination) -> Capacity {
    Capacity {
        max_message_bytes: Some(u64::from(c.max_message_bytes)),
        max_address: None,
        source: "the queue's MaximumMessageSize (body and attributes)",
    }
}
