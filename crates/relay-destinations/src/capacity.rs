//! What a destination kind can carry, as data, and the pure rules that
//! apply it: before an attempt ([`fits`]: a message the kind cannot carry
//! is dead-lettered unsent) and at registration ([`warning`]: the
//! endpoint cannot carry the largest body Relay may deliver).
//!
//! Each kind states its limits in its folder (`<kind>/limits.rs`), behind
//! [`crate::Kind::capacity`]; where a limit is the peer's setting, the
//! figure is its documented default (the peer's actual setting, where the
//! protocol announces it, is checked again while delivering).

use relay_core::transition::DeadLetterReason;

/// What one destination kind (as configured) can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// The largest message, in bytes, as the kind counts it
    /// ([`crate::Kind::message_bytes`]: the body, plus the key and headers
    /// where the peer counts them). `None`: no limit below Relay's own
    /// delivery limit.
    pub max_message_bytes: Option<u64>,
    /// What the kind calls a message's address (`routing_key`, `topic`)
    /// and its longest length in bytes, when the address is filled in per
    /// message. `None`: fixed at registration (and checked there).
    pub max_address: Option<(&'static str, usize)>,
    /// Where the size limit comes from, for the docs and warnings (`AMQP`,
    /// `librdkafka's message.max.bytes default`, …).
    pub source: &'static str,
}

impl Capacity {
    /// No limit of the kind's own.
    pub const UNLIMITED: Capacity = Capacity {
        max_message_bytes: None,
        max_address: None,
        source: "",
    };
}

/// Why a prepared message cannot be carried by its endpoint's kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfit {
    /// The message is `size` bytes, over the kind's `max`.
    TooLarge { size: u64, max: u64 },
    /// The filled-in address (`name`) is `len` bytes, over `max`.
    AddressTooLong {
        name: &'static str,
        len: usize,
        max: usize,
    },
    /// An A2A push endpoint's message of another task than the endpoint's
    /// ([`crate::Kind::admits`]): never sent to it.
    OtherTask,
}

impl Unfit {
    /// The message's `terminal_reason`.
    pub const fn reason(&self) -> DeadLetterReason {
        match self {
            Unfit::TooLarge { .. } => DeadLetterReason::PayloadOverLimit,
            Unfit::AddressTooLong { .. } => DeadLetterReason::AddressTooLong,
            Unfit::OtherTask => DeadLetterReason::NotAddressed,
        }
    }
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfit::TooLarge { size, max } => write!(
                f,
                "the message is {size} bytes, more than the destination's {max}"
            ),
            Unfit::AddressTooLong { name, len, max } => write!(
                f,
                "the {name} is {len} bytes, more than the destination's {max}"
            ),
            Unfit::OtherTask => write!(
                f,
                "the update is of another A2A task than the endpoint's (its ordering key is the task id)"
            ),
        }
    }
}

/// Whether a message of `size` bytes with the filled-in address of
/// `address_len` bytes (if the kind has one) fits `capacity`. Pure.
pub fn fits(capacity: &Capacity, size: u64, address_len: Option<usize>) -> Result<(), Unfit> {
    if let (Some((name, max)), Some(len)) = (capacity.max_address, address_len)
        && len > max
    {
        return Err(Unfit::AddressTooLong { name, len, max });
    }
    match capacity.max_message_bytes {
        Some(max) if size > max => Err(Unfit::TooLarge { size, max }),
        _ => Ok(()),
    }
}

/// Room left beside the body for what the kind sends with it (key,
/// headers, signatures) when judging at registration, where no message
/// is at hand: a body of the delivery limit plus this must fit.
pub const HEADROOM_BYTES: u64 = 4 * 1024;

/// The registration warning for an endpoint whose kind cannot carry the
/// largest body Relay may deliver (`largest_body`: the delivery limit),
/// with room for what goes beside it; `None` when it can.
pub fn warning(capacity: &Capacity, largest_body: u64) -> Option<String> {
    let max = capacity.max_message_bytes?;
    let needed = largest_body.saturating_add(HEADROOM_BYTES);
    (needed > max).then(|| {
        format!(
            "the destination carries messages of at most {max} bytes ({}), less than the {largest_body}-byte bodies Relay may deliver with their headers; a larger message is dead-lettered unsent (`payload_over_limit`)",
            capacity.source
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIND: Capacity = Capacity {
        max_message_bytes: Some(1_000),
        max_address: Some(("routing_key", 255)),
        source: "test",
    };

    #[test]
    fn a_message_fits_up_to_each_limit_and_not_past_it() {
        type Case = (Capacity, u64, Option<usize>, Result<(), Unfit>);
        let cases: &[Case] = &[
            (KIND, 0, None, Ok(())),
            (KIND, 1_000, Some(255), Ok(())),
            (
                KIND,
                1_001,
                Some(10),
                Err(Unfit::TooLarge {
                    size: 1_001,
                    max: 1_000,
                }),
            ),
            (
                KIND,
                10,
                Some(256),
                Err(Unfit::AddressTooLong {
                    name: "routing_key",
                    len: 256,
                    max: 255,
                }),
            ),
            // The address is judged first: it is the configuration's doing.
            (
                KIND,
                5_000,
                Some(300),
                Err(Unfit::AddressTooLong {
                    name: "routing_key",
                    len: 300,
                    max: 255,
                }),
            ),
            (Capacity::UNLIMITED, u64::MAX, Some(usize::MAX), Ok(())),
        ];
        for (capacity, size, address, want) in cases {
            assert_eq!(
                &fits(capacity, *size, *address),
                want,
                "{capacity:?} {size} {address:?}"
            );
        }
        assert_eq!(
            Unfit::TooLarge { size: 2, max: 1 }.reason().as_str(),
            "payload_over_limit"
        );
        assert_eq!(
            Unfit::AddressTooLong {
                name: "topic",
                len: 2,
                max: 1
            }
            .reason()
            .as_str(),
            "address_too_long"
        );
    }

    #[test]
    fn registration_warns_only_when_the_largest_body_cannot_fit() {
        let limit = 1_048_576;
        assert_eq!(warning(&Capacity::UNLIMITED, limit), None);
        let roomy = Capacity {
            max_message_bytes: Some(limit + HEADROOM_BYTES),
            ..KIND
        };
        assert_eq!(warning(&roomy, limit), None);
        let tight = Capacity {
            max_message_bytes: Some(1_000_000),
            source: "librdkafka's message.max.bytes default",
            ..KIND
        };
        let w = warning(&tight, limit).expect("a warning");
        assert!(w.contains("1000000 bytes"), "{w}");
        assert!(w.contains("message.max.bytes"), "{w}");
        assert!(w.contains("payload_over_limit"), "{w}");
        // A lower delivery limit fits again.
        assert_eq!(warning(&tight, 512 * 1024), None);
    }
}

#[cfg(test)]
mod kinds;
