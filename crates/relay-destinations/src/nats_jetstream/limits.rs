//! What a NATS JetStream subject can carry: the server's `max_payload`,
//! 1 MiB by default, which sits below Relay's delivery limit once the
//! headers are counted (registration warns). The server's own setting,
//! from its `INFO`, is checked again before each publish (a message over
//! it is dead-lettered `payload_over_limit`, not sent). A stream's
//! `max_msg_size` is not announced: the server's refusal of it is a
//! refusal by the destination.

use crate::Capacity;

/// The NATS server's default `max_payload`.
pub const DEFAULT_MAX_PAYLOAD: u64 = 1024 * 1024;

pub const CAPACITY: Capacity = Capacity {
    max_message_bytes: Some(DEFAULT_MAX_PAYLOAD),
    max_address: None,
    source: "the NATS server's max_payload default",
};
