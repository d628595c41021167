//! Ordered delivery per key, the pure rules (`docs/delivery.md`, "Ordered
//! delivery"). An endpoint whose `ordering` is `per_key` attempts the
//! messages that share an ordering key one at a time, in publish order: a
//! message waits `blocked` until every earlier message of its key has
//! ended (any terminal state), then is promoted to `scheduled`. Messages
//! of other keys, and messages without a key, proceed in parallel within
//! the endpoint's limits.
//!
//! The key is the message's own (`Message::ordering_key`), fixed when the
//! message is made: the event's `ordering_key`, else its `subject`. A
//! producer that needs another key per message (A2A push: the task id)
//! sets the event's `ordering_key`. The store keeps the rule
//! transactionally (`relay_store::ordering`); these functions say what it
//! writes.

use crate::lifecycle::settle;
use crate::model::{DeliveryOrder, EndpointState, MessageState};
use crate::transition::{MessageEvent, transition};

/// The ordering key of a new message for an endpoint delivering in
/// `order`: the event's `ordering_key`, else its `subject`; `None` when the
/// endpoint keeps no order or the event has neither (such a message is
/// never blocked).
pub fn key<'a>(
    order: DeliveryOrder,
    ordering_key: Option<&'a str>,
    subject: Option<&'a str>,
) -> Option<&'a str> {
    match order {
        DeliveryOrder::None => None,
        DeliveryOrder::PerKey => ordering_key.or(subject),
    }
}

/// The state a new message starts in: `initial` (its endpoint's:
/// `scheduled`, or `held` while paused or disabled) when it has no key or
/// nothing earlier of its key is still live, else `blocked`.
pub fn entry_state(initial: MessageState, keyed: bool, earlier_live: bool) -> MessageState {
    if keyed && earlier_live {
        MessageState::Blocked
    } else {
        initial
    }
}

/// The state a message restarted by `recover` or bulk retry lands in: it
/// re-enters at the tail of its key, so it waits (`queue`) when anything
/// of its key is still live, else it is `restarted` (the restart's state).
pub fn restarted_state(restarted: MessageState, keyed: bool, earlier_live: bool) -> MessageState {
    if keyed && earlier_live {
        transition(restarted, &MessageEvent::Queue).unwrap_or(restarted)
    } else {
        restarted
    }
}

/// The state a blocked message is promoted to when the message before it
/// ended: `scheduled`, due at once, or `held` while its endpoint is paused
/// or disabled (its turn came; the endpoint's pause still holds it).
pub fn promoted_state(endpoint: EndpointState) -> MessageState {
    let next =
        transition(MessageState::Blocked, &MessageEvent::Promote).unwrap_or(MessageState::Blocked);
    settle(endpoint, next)
}

/// Whether the end of a message in state `to` lets the next message of its
/// key go: every terminal state does (delivered, or ended in any other
/// way by the rules of the schedule).
pub const fn releases_next(to: MessageState) -> bool {
    to.is_terminal()
}

/// Checks a receiver's arrivals of one key against publish order: each
/// arrival's publish position (its `seq`, or the index it was published
/// at) must be at least the highest seen before it: a message may arrive
/// again (at-least-once: a repeat of one already seen), never ahead of one
/// published before it. Returns the first arrival out of order, as (its
/// index in `arrivals`, its position, the highest position before it).
pub fn first_out_of_order(arrivals: &[i64]) -> Option<(usize, i64, i64)> {
    let mut highest: Option<i64> = None;
    let mut seen = std::collections::HashSet::new();
    for (i, &p) in arrivals.iter().enumerate() {
        if let Some(h) = highest
            && p < h
            && !seen.contains(&p)
        {
            return Some((i, p, h));
        }
        seen.insert(p);
        highest = Some(highest.map_or(p, |h: i64| h.max(p)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use MessageState as S;

    #[test]
    fn the_key_is_the_ordering_key_else_the_subject() {
        let cases = [
            (DeliveryOrder::None, Some("k"), Some("s"), None),
            (DeliveryOrder::None, None, None, None),
            (DeliveryOrder::PerKey, Some("k"), Some("s"), Some("k")),
            (DeliveryOrder::PerKey, None, Some("s"), Some("s")),
            (DeliveryOrder::PerKey, Some("k"), None, Some("k")),
            (DeliveryOrder::PerKey, None, None, None),
        ];
        for (order, k, s, want) in cases {
            assert_eq!(key(order, k, s), want, "{order:?} {k:?} {s:?}");
        }
    }

    #[test]
    fn a_new_message_waits_only_behind_a_live_message_of_its_key() {
        let cases = [
            (S::Scheduled, false, false, S::Scheduled),
            (S::Scheduled, false, true, S::Scheduled),
            (S::Scheduled, true, false, S::Scheduled),
            (S::Scheduled, true, true, S::Blocked),
            (S::Held, true, false, S::Held),
            (S::Held, true, true, S::Blocked),
            (S::Held, false, true, S::Held),
        ];
        for (initial, keyed, earlier, want) in cases {
            assert_eq!(entry_state(initial, keyed, earlier), want);
        }
    }

    #[test]
    fn a_restart_reenters_at_the_tail() {
        assert_eq!(restarted_state(S::Scheduled, true, true), S::Blocked);
        assert_eq!(restarted_state(S::Scheduled, true, false), S::Scheduled);
        assert_eq!(restarted_state(S::Scheduled, false, true), S::Scheduled);
    }

    #[test]
    fn promotion_is_due_at_once_or_held_by_the_endpoint() {
        assert_eq!(promoted_state(EndpointState::Active), S::Scheduled);
        assert_eq!(promoted_state(EndpointState::Paused), S::Held);
        assert_eq!(promoted_state(EndpointState::Disabled), S::Held);
    }

    #[test]
    fn every_terminal_state_releases_the_next_and_no_live_one_does() {
        for s in MessageState::ALL {
            let want = !matches!(s, S::Scheduled | S::InFlight | S::Held | S::Blocked);
            assert_eq!(releases_next(s), want, "{}", s.as_str());
        }
    }

    #[test]
    fn arrivals_out_of_order_are_found_and_repeats_are_not() {
        type Case<'a> = (&'a [i64], Option<(usize, i64, i64)>);
        let cases: [Case<'_>; 6] = [
            (&[], None),
            (&[1, 2, 3], None),
            (&[1, 2, 2, 3], None),
            (&[1, 2, 1, 3], None),
            (&[1, 3, 2], Some((2, 2, 3))),
            (&[2, 1], Some((1, 1, 2))),
        ];
        for (arrivals, want) in cases {
            assert_eq!(first_out_of_order(arrivals), want, "{arrivals:?}");
        }
    }
}
