//! What an MQTT broker can carry: a topic name of at most 1,024 bytes
//! (Relay's bound, [`MAX_TOPIC`]: MQTT allows 65,535, brokers often
//! fewer), filled in per message; a packet of at most 268,435,455 bytes
//! (the protocol's largest). A broker's own Maximum Packet Size (MQTT 5,
//! in `CONNACK`) is checked again before each publish (a message over it
//! is dead-lettered `payload_over_limit`, not sent).

use super::topic::{MAX_TOPIC, Template};
use crate::{Capacity, Prepared};

pub const CAPACITY: Capacity = Capacity {
    max_message_bytes: Some(268_435_455),
    max_address: Some(("topic", MAX_TOPIC)),
    source: "MQTT's largest packet",
};

/// The length of the topic filled in for `message` (what else makes it
/// no topic name, wildcards or NUL from an ordering key, is found by the
/// attempt: `invalid_destination`).
pub fn topic_len(template: &str, message: &Prepared) -> Option<usize> {
    let t = Template::parse(template).ok()?;
    Some(
        t.fill(
            &message.event_type,
            message.environment.as_str(),
            message.ordering_key.as_deref().unwrap_or_default(),
        )
        .len(),
    )
}
