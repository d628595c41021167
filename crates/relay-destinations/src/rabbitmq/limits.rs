//! What a RabbitMQ exchange can carry: a routing key is an AMQP short
//! string (255 bytes), filled in per message from its template; a
//! message is at most the broker's `max_message_size` (16 MiB by default
//! since RabbitMQ 4.0).

use super::routing::{MAX_ROUTING_KEY, Template};
use crate::{Capacity, Prepared};

pub const CAPACITY: Capacity = Capacity {
    max_message_bytes: Some(16 * 1024 * 1024),
    max_address: Some(("routing_key", MAX_ROUTING_KEY)),
    source: "RabbitMQ's max_message_size default",
};

/// The length of the routing key filled in for `message`.
pub fn routing_key_len(template: &str, message: &Prepared) -> Option<usize> {
    let t = Template::parse(template).ok()?;
    Some(
        t.expand(
            &message.event_type,
            message.environment.as_str(),
            message.ordering_key.as_deref().unwrap_or_default(),
        )
        .len(),
    )
}
