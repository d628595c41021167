//! What a Kafka topic can carry: librdkafka refuses a record larger than
//! its `message.max.bytes` (1,000,000 bytes by default, below Relay's
//! 1 MiB delivery limit: registration warns), counting the value, the key
//! and the headers; the broker's own `message.max.bytes` (1 MiB by
//! default) and a topic's `max.message.bytes` are not known before the
//! attempt, and their refusal is a refusal by the destination. The topic
//! is fixed at registration.

use crate::{Capacity, Prepared};

/// librdkafka's default `message.max.bytes`.
pub const MESSAGE_MAX_BYTES: u64 = 1_000_000;

pub const CAPACITY: Capacity = Capacity {
    max_message_bytes: Some(MESSAGE_MAX_BYTES),
    max_address: None,
    source: "librdkafka's message.max.bytes default",
};

/// The bytes of `message`'s record as librdkafka counts them: value, key
/// and headers (names and values).
pub fn record_bytes(message: &Prepared) -> u64 {
    let headers: usize = super::headers(message)
        .iter()
        .map(|(n, v)| n.as_bytes().len() + v.len())
        .sum();
    let key = message.ordering_key.as_deref().map_or(0, str::len);
    (message.body.len() + key + headers) as u64
}
