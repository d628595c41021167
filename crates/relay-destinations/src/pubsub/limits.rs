//! What a Pub/Sub topic can carry, Google's quotas kept as data: one
//! publish request of at most 10 MB (counted here as sent: the data in
//! base64, the attributes' names and values and the ordering key,
//! [`crate::Kind::message_bytes`]); at most 100 attributes, a name of at
//! most 256 bytes, a value of at most 1024; an ordering key of at most
//! 1024 bytes (a longer one is sent as its SHA-256, `wire::ordering_key`).
//! The topic is fixed at registration.

use crate::Capacity;

/// The largest publish request.
pub const MAX_REQUEST_BYTES: u64 = 10_000_000;
/// The most attributes on one message.
pub const MAX_ATTRIBUTES: usize = 100;
/// The longest attribute name, in bytes.
pub const MAX_ATTRIBUTE_NAME: usize = 256;
/// The longest attribute value, in bytes.
pub const MAX_ATTRIBUTE_VALUE: usize = 1024;
/// The longest ordering key, in bytes.
pub const MAX_ORDERING_KEY: usize = 1024;

pub const CAPACITY: Capacity = Capacity {
    max_message_bytes: Some(MAX_REQUEST_BYTES),
    max_address: None,
    source: "Pub/Sub's publish request (data as base64, attributes, ordering key)",
};
