//! What an S3 bucket can carry: one object of at most 5 GiB (a single
//! `PUT`); a batch closes by size long before that. The object's name is
//! made by Relay.

use crate::Capacity;

pub const CAPACITY: Capacity = Capacity {
    max_message_bytes: Some(5 * 1024 * 1024 * 1024),
    max_address: None,
    source: "S3's largest single PUT",
};
