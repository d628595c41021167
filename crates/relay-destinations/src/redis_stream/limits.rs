//! What a Redis stream can carry: one entry's field is a bulk string, at
//! most `proto-max-bulk-len` (512 MB by default), far above Relay's
//! delivery limit; the stream key is fixed at registration.

use crate::Capacity;

pub const CAPACITY: Capacity = Capacity {
    max_message_bytes: Some(512 * 1024 * 1024),
    max_address: None,
    source: "Redis's proto-max-bulk-len default",
};
