//! What a Service Bus entity can carry: one message of at most the
//! configuration's `max_message_bytes` (256 KiB by default, the Standard
//! tier's largest; Premium takes up to 100 MiB), counted as Service Bus
//! counts it: the body, the broker properties and every user property
//! ([`crate::Kind::message_bytes`]). The entity is fixed at registration.

use crate::Capacity;
use crate::service_bus::ServiceBusDestination;

pub fn capacity(c: &ServiceBusDestination) -> Capacity {
    Capacity {
        max_message_bytes: Some(u64::from(c.max_message_bytes)),
        max_address: None,
        source: "the entity's largest message (body and properties)",
    }
}
