//! What an SNS topic can carry: one message of at most the topic's
//! `MaximumMessageSize` (the configuration's `max_message_bytes`: 256 KiB
//! by default, at most 1 MiB), counted as SNS counts it: the message and
//! every message attribute's name, type and value
//! ([`crate::Kind::message_bytes`]). The topic is fixed at registration.

use crate::Capacity;
use crate::sns::SnsDestination;

pub fn capacity(c: &SnsDestination) -> Capacity {
    Capacity {
        max_message_bytes: Some(u64::from(c.max_message_bytes)),
        max_address: None,
        source: "the topic's MaximumMessageSize (message and attributes)",
    }
}
