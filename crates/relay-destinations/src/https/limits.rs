//! What an HTTPS endpoint can carry: no limit of the kind's own; Relay's
//! delivery limit (`[limits] max_request_bytes`) is the only one.

use crate::Capacity;

pub const CAPACITY: Capacity = Capacity::UNLIMITED;
