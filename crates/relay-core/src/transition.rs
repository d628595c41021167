//! Message state transitions, as pure functions.
//!
//! [`transition`] is the state machine over [`MessageState`]: it says which
//! state an event leads to, or that the event is illegal in that state.
//! [`apply`] does the same over a message's whole [`Progress`] (counters,
//! next attempt time, error code, terminal reason), which is what the store
//! persists. `docs/state-machine.md` draws the machine; a test here checks the
//! drawing against [`transition`], so the two cannot drift apart.
//!
//! Rules that are not obvious from the table:
//!
//! - An attempt runs only in `in_flight` (scheduled attempts) or under the
//!   message's lease without a state change (manual resends). Either way at most
//!   one attempt per message runs at a time: [`MessageEvent::ManualResend`] is
//!   illegal while `in_flight`, and the dispatcher must not claim a message
//!   whose lease is live.
//! - A lease that expires puts the message back to `scheduled`, due at once;
//!   the lost attempt does not count (its result is unknown; at-least-once).
//! - `cancel` and `dead_letter` also apply to `in_flight`: the running
//!   attempt's completion then arrives for a message that is no longer
//!   `in_flight` and is rejected as stale (the store's conditional completion).
//! - A manual resend (reference "Recovery") is legal in every state but
//!   `in_flight` and changes nothing by itself. Its completion: success makes
//!   the message `delivered` (pending automatic attempts are cancelled); any
//!   failure leaves the message exactly as it was (the schedule continues
//!   unchanged, the attempt does not count, and a terminal message keeps its
//!   terminal state).
//! - `restart` (bulk retry and `recover`) starts the schedule again for a
//!   terminal message other than `delivered` and `expired` (an expired event's
//!   time-to-live has passed; delivering it late would break that promise).
//!   The engine holds the restarted message if its endpoint is not active.
//! - `blocked` is where a message of an endpoint that delivers in order
//!   waits for its turn ([`crate::ordering`]): it is published there, or
//!   queued there ([`MessageEvent::Queue`]) right after a restart, when an
//!   earlier message with its ordering key has not ended; it leaves by
//!   [`MessageEvent::Promote`] once that one ended, or ends itself (cancel,
//!   time-to-live, dead letter, a manual success). Pause and resume do not
//!   move it: only the head of its key is held.

use std::fmt;

use crate::model::MessageState;
use crate::outcome::Outcome;
use crate::time::Timestamp;

/// Why a message is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HoldReason {
    EndpointPaused,
    EndpointDisabled,
    CircuitOpen,
}

impl HoldReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            HoldReason::EndpointPaused => "endpoint_paused",
            HoldReason::EndpointDisabled => "endpoint_disabled",
            HoldReason::CircuitOpen => "circuit_open",
        }
    }
}

/// Why no attempt could be made (`dead_lettered`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeadLetterReason {
    EndpointRemoved,
    InvalidDestination,
    PayloadTooLarge,
    /// The destination refused the message itself (a broker, stream, queue
    /// or object store; an HTTPS endpoint's refusal is `failed_permanent`):
    /// the attempt was made and is recorded.
    RejectedByDestination,
    /// Over the destination kind's message size (its limits:
    /// `relay_destinations::Capacity`), found before any attempt.
    PayloadOverLimit,
    /// The routing key or topic filled in for the message is longer than
    /// the destination kind carries, found before any attempt.
    AddressTooLong,
    /// The event is not meant for the endpoint's consumer
    /// (`crate::audience`): a message created before the rule held, or
    /// whose event type's audience was narrowed since.
    NotAddressed,
}

impl DeadLetterReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            DeadLetterReason::EndpointRemoved => "endpoint_removed",
            DeadLetterReason::InvalidDestination => "invalid_destination",
            DeadLetterReason::PayloadTooLarge => "payload_too_large",
            DeadLetterReason::RejectedByDestination => "rejected_by_destination",
            DeadLetterReason::PayloadOverLimit => "payload_over_limit",
            DeadLetterReason::AddressTooLong => "address_too_long",
            DeadLetterReason::NotAddressed => "not_addressed",
        }
    }
}

/// Something that happens to a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageEvent {
    /// A worker leases a due message to attempt it.
    Claim,
    /// The leased (scheduled) attempt finished with this outcome.
    Complete(Outcome),
    /// The lease ran out before the attempt completed (worker died or hung).
    LeaseExpired,
    /// The endpoint was paused or disabled, or its circuit opened.
    Hold(HoldReason),
    /// The endpoint is active again, or its circuit half-opened.
    Release,
    /// The tenant or an operator cancelled the pending attempts.
    Cancel,
    /// The event's delivery time-to-live passed.
    TtlExpired,
    /// The attempts can no longer fit in the delivery window.
    WindowExceeded,
    /// No attempt can be made.
    DeadLetter(DeadLetterReason),
    /// A manual resend is about to make one attempt (under the lease).
    ManualResend,
    /// The manual attempt finished with this outcome.
    CompleteManual(Outcome),
    /// Bulk retry or `recover`: start the schedule again.
    Restart,
    /// An ordered endpoint's message restarted behind earlier messages of
    /// its ordering key that have not ended: it waits for its turn.
    Queue,
    /// The message before it with its ordering key ended: its turn came.
    Promote,
}

/// The kind of a [`MessageEvent`], without its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    Claim,
    Complete,
    LeaseExpired,
    Hold,
    Release,
    Cancel,
    TtlExpired,
    WindowExceeded,
    DeadLetter,
    ManualResend,
    CompleteManual,
    Restart,
    Queue,
    Promote,
}

impl EventKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            EventKind::Claim => "claim",
            EventKind::Complete => "complete",
            EventKind::LeaseExpired => "lease_expired",
            EventKind::Hold => "hold",
            EventKind::Release => "release",
            EventKind::Cancel => "cancel",
            EventKind::TtlExpired => "ttl_expired",
            EventKind::WindowExceeded => "window_exceeded",
            EventKind::DeadLetter => "dead_letter",
            EventKind::ManualResend => "manual_resend",
            EventKind::CompleteManual => "complete_manual",
            EventKind::Restart => "restart",
            EventKind::Queue => "queue",
            EventKind::Promote => "promote",
        }
    }
}

impl MessageEvent {
    pub const fn kind(&self) -> EventKind {
        match self {
            MessageEvent::Claim => EventKind::Claim,
            MessageEvent::Complete(_) => EventKind::Complete,
            MessageEvent::LeaseExpired => EventKind::LeaseExpired,
            MessageEvent::Hold(_) => EventKind::Hold,
            MessageEvent::Release => EventKind::Release,
            MessageEvent::Cancel => EventKind::Cancel,
            MessageEvent::TtlExpired => EventKind::TtlExpired,
            MessageEvent::WindowExceeded => EventKind::WindowExceeded,
            MessageEvent::DeadLetter(_) => EventKind::DeadLetter,
            MessageEvent::ManualResend => EventKind::ManualResend,
            MessageEvent::CompleteManual(_) => EventKind::CompleteManual,
            MessageEvent::Restart => EventKind::Restart,
            MessageEvent::Queue => EventKind::Queue,
            MessageEvent::Promote => EventKind::Promote,
        }
    }
}

/// An event that is not allowed in the message's current state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("`{}` is not allowed for a message that is `{}`", .event.as_str(), .from.as_str())]
pub struct IllegalTransition {
    pub from: MessageState,
    pub event: EventKind,
}

impl IllegalTransition {
    /// A stable, machine-readable code.
    pub const fn code(&self) -> &'static str {
        match self.event {
            // A completion or lease expiry for a message that is no longer in flight.
            EventKind::Complete | EventKind::LeaseExpired => "stale_completion",
            EventKind::ManualResend | EventKind::CompleteManual
                if matches!(self.from, MessageState::InFlight) =>
            {
                "attempt_in_flight"
            }
            _ => "illegal_transition",
        }
    }
}

/// The state `event` leads to from `from`.
pub fn transition(
    from: MessageState,
    event: &MessageEvent,
) -> Result<MessageState, IllegalTransition> {
    use MessageState as S;
    let illegal = Err(IllegalTransition {
        from,
        event: event.kind(),
    });
    let live = matches!(from, S::Scheduled | S::Held);
    // A blocked message can end without its turn: cancelled, expired, dead
    // lettered (its endpoint removed), or delivered by a manual attempt.
    let waiting = live || from == S::Blocked;
    match event {
        MessageEvent::Claim if from == S::Scheduled => Ok(S::InFlight),
        MessageEvent::Complete(outcome) if from == S::InFlight => Ok(match outcome {
            Outcome::Delivered => S::Delivered,
            Outcome::Retry { .. } | Outcome::Deferred { .. } => S::Scheduled,
            Outcome::Exhausted { .. } => S::Exhausted,
            Outcome::Permanent { .. } => S::FailedPermanent,
            Outcome::DeadLettered { .. } => S::DeadLettered,
        }),
        MessageEvent::LeaseExpired if from == S::InFlight => Ok(S::Scheduled),
        MessageEvent::Hold(_) if from == S::Scheduled => Ok(S::Held),
        MessageEvent::Release if from == S::Held => Ok(S::Scheduled),
        MessageEvent::Cancel if waiting || from == S::InFlight => Ok(S::Cancelled),
        // From in_flight too: the worker holding the lease finds the TTL or
        // the window passed and ends the message instead of attempting it.
        MessageEvent::TtlExpired if waiting || from == S::InFlight => Ok(S::Expired),
        MessageEvent::WindowExceeded if live || from == S::InFlight => Ok(S::WindowExceeded),
        MessageEvent::DeadLetter(_) if waiting || from == S::InFlight => Ok(S::DeadLettered),
        MessageEvent::ManualResend if from != S::InFlight => Ok(from),
        MessageEvent::CompleteManual(outcome) if from != S::InFlight => {
            Ok(if outcome.is_success() {
                S::Delivered
            } else {
                from
            })
        }
        MessageEvent::Restart
            if from.is_terminal() && !matches!(from, S::Delivered | S::Expired) =>
        {
            Ok(S::Scheduled)
        }
        MessageEvent::Queue if from == S::Scheduled => Ok(S::Blocked),
        MessageEvent::Promote if from == S::Blocked => Ok(S::Scheduled),
        _ => illegal,
    }
}

/// Where a message stands: the columns a transition changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub state: MessageState,
    /// Attempts that counted against the schedule.
    pub attempts_used: u32,
    /// `Retry-After` deferrals used.
    pub deferrals_used: u32,
    /// When the next scheduled attempt is due; `None` in terminal states.
    pub next_attempt_at: Option<Timestamp>,
    pub last_error_code: Option<String>,
    /// Why a terminal message other than `delivered` ended (`None` otherwise).
    pub terminal_reason: Option<String>,
}

impl Progress {
    /// A new message: `scheduled` (or `held`, per the endpoint) and due at `now`.
    pub fn new(initial: MessageState, now: Timestamp) -> Self {
        Progress {
            state: initial,
            attempts_used: 0,
            deferrals_used: 0,
            next_attempt_at: Some(now),
            last_error_code: None,
            terminal_reason: None,
        }
    }

    fn terminal(&self, state: MessageState, reason: Option<&str>) -> Self {
        Progress {
            state,
            next_attempt_at: None,
            terminal_reason: reason.map(str::to_owned),
            ..self.clone()
        }
    }
}

/// The states bulk retry and `recover` restart (the [`MessageEvent::Restart`]
/// rule: failed terminal states, not `delivered` and not `expired`).
pub const RESTARTABLE: [MessageState; 5] = [
    MessageState::FailedPermanent,
    MessageState::Exhausted,
    MessageState::WindowExceeded,
    MessageState::DeadLettered,
    MessageState::Cancelled,
];

/// The `terminal_reason` of an exhausted message.
pub const REASON_EXHAUSTED: &str = "attempts_exhausted";
/// The `terminal_reason` of an expired message.
pub const REASON_EXPIRED: &str = "ttl_expired";
/// The `terminal_reason` of a message whose attempts did not fit in the window.
pub const REASON_WINDOW_EXCEEDED: &str = "window_exceeded";
/// The `terminal_reason` of a cancelled message.
pub const REASON_CANCELLED: &str = "cancelled";

/// Applies `event` at `now` to a message's progress.
///
/// The state follows [`transition`]; the other fields change as follows:
/// a completion that uses an attempt adds one to `attempts_used`, a deferral
/// adds one to `deferrals_used`; `next_attempt_at` is the outcome's time for a
/// retry or deferral, `now` after a lease expiry or restart, and `None` in
/// terminal states; `last_error_code` is the outcome's code after a failed
/// scheduled attempt; `terminal_reason` names why a terminal state other than
/// `delivered` was reached. A failed manual attempt changes nothing.
pub fn apply(
    progress: &Progress,
    event: &MessageEvent,
    now: Timestamp,
) -> Result<Progress, IllegalTransition> {
    let to = transition(progress.state, event)?;
    let p = progress;
    Ok(match event {
        MessageEvent::Claim => Progress {
            state: to,
            ..p.clone()
        },
        MessageEvent::Complete(outcome) => {
            let mut next = Progress {
                state: to,
                attempts_used: p
                    .attempts_used
                    .saturating_add(u32::from(outcome.uses_attempt())),
                deferrals_used: p
                    .deferrals_used
                    .saturating_add(u32::from(outcome.uses_deferral())),
                last_error_code: outcome
                    .error_code()
                    .map(|c| c.to_string())
                    .or_else(|| p.last_error_code.clone()),
                ..p.clone()
            };
            match outcome {
                Outcome::Delivered => next.terminal(to, None),
                Outcome::Retry {
                    next_attempt_at, ..
                } => {
                    next.next_attempt_at = Some(*next_attempt_at);
                    next
                }
                Outcome::Deferred { until, .. } => {
                    next.next_attempt_at = Some(*until);
                    next
                }
                Outcome::Exhausted { .. } => next.terminal(to, Some(REASON_EXHAUSTED)),
                Outcome::Permanent { reason, .. } => next.terminal(to, Some(reason.as_str())),
                Outcome::DeadLettered { reason, .. } => next.terminal(to, Some(reason.as_str())),
            }
        }
        MessageEvent::LeaseExpired => Progress {
            state: to,
            next_attempt_at: Some(now),
            ..p.clone()
        },
        MessageEvent::Hold(_) => Progress {
            state: to,
            ..p.clone()
        },
        MessageEvent::Release => Progress {
            state: to,
            next_attempt_at: Some(p.next_attempt_at.unwrap_or(now)),
            ..p.clone()
        },
        MessageEvent::Cancel => p.terminal(to, Some(REASON_CANCELLED)),
        MessageEvent::TtlExpired => p.terminal(to, Some(REASON_EXPIRED)),
        MessageEvent::WindowExceeded => p.terminal(to, Some(REASON_WINDOW_EXCEEDED)),
        MessageEvent::DeadLetter(reason) => p.terminal(to, Some(reason.as_str())),
        MessageEvent::ManualResend => p.clone(),
        MessageEvent::CompleteManual(outcome) => {
            if outcome.is_success() {
                p.terminal(to, None)
            } else {
                p.clone()
            }
        }
        MessageEvent::Restart => Progress {
            state: to,
            attempts_used: 0,
            deferrals_used: 0,
            next_attempt_at: Some(now),
            last_error_code: p.last_error_code.clone(),
            terminal_reason: None,
        },
        MessageEvent::Queue => Progress {
            state: to,
            ..p.clone()
        },
        // Due at once: its turn came (held instead while the endpoint is
        // paused or disabled, `crate::lifecycle::settle`).
        MessageEvent::Promote => Progress {
            state: to,
            next_attempt_at: Some(now),
            ..p.clone()
        },
    })
}

/// The label of an event in the state diagram and the table test.
fn label(event: &MessageEvent) -> String {
    match event {
        MessageEvent::Complete(o) => format!("complete({})", o.as_str()),
        MessageEvent::CompleteManual(o) if o.is_success() => "complete_manual(delivered)".into(),
        MessageEvent::CompleteManual(_) => "complete_manual(failed)".into(),
        e => e.kind().as_str().into(),
    }
}

impl fmt::Display for MessageEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&label(self))
    }
}

/// One event of each kind (and of each outcome kind for completions), in a
/// fixed order: the rows of the table test and the labels of the diagram.
pub fn representative_events() -> Vec<MessageEvent> {
    use crate::outcome::{FailureCode, PermanentReason};
    let code = FailureCode::HttpStatus(500);
    let at = Timestamp::from_millis(0);
    vec![
        MessageEvent::Claim,
        MessageEvent::Complete(Outcome::Delivered),
        MessageEvent::Complete(Outcome::Retry {
            error_code: code,
            next_attempt_at: at,
        }),
        MessageEvent::Complete(Outcome::Deferred {
            error_code: FailureCode::HttpStatus(429),
            until: at,
        }),
        MessageEvent::Complete(Outcome::Exhausted { error_code: code }),
        MessageEvent::Complete(Outcome::Permanent {
            reason: PermanentReason::RejectedByEndpoint,
            error_code: FailureCode::HttpStatus(404),
            disable_endpoint: false,
            health_warning: None,
        }),
        MessageEvent::Complete(Outcome::DeadLettered {
            reason: DeadLetterReason::RejectedByDestination,
            error_code: FailureCode::Refused(crate::outcome::Refusal::Nack),
        }),
        MessageEvent::LeaseExpired,
        MessageEvent::Hold(HoldReason::EndpointPaused),
        MessageEvent::Release,
        MessageEvent::Cancel,
        MessageEvent::TtlExpired,
        MessageEvent::WindowExceeded,
        MessageEvent::DeadLetter(DeadLetterReason::EndpointRemoved),
        MessageEvent::ManualResend,
        MessageEvent::CompleteManual(Outcome::Delivered),
        MessageEvent::CompleteManual(Outcome::Retry {
            error_code: code,
            next_attempt_at: at,
        }),
        MessageEvent::Restart,
        MessageEvent::Queue,
        MessageEvent::Promote,
    ]
}

/// The mermaid `stateDiagram-v2` of [`transition`]: every edge that changes
/// the state, with the events that take it. Self-loops (manual resends and
/// their failed completions) are left out of the drawing.
pub fn mermaid_diagram() -> String {
    let events = representative_events();
    let mut out = String::from("stateDiagram-v2\n");
    out.push_str("    [*] --> scheduled : publish (endpoint active)\n");
    out.push_str("    [*] --> held : publish (endpoint paused, disabled or unverified)\n");
    out.push_str(
        "    [*] --> blocked : publish (ordered, an earlier message of its key not ended)\n",
    );
    for from in MessageState::ALL {
        for to in MessageState::ALL {
            if from == to {
                continue;
            }
            let labels: Vec<String> = events
                .iter()
                .filter(|e| transition(from, e) == Ok(to))
                .map(label)
                .collect();
            if !labels.is_empty() {
                out.push_str(&format!(
                    "    {} --> {} : {}\n",
                    from.as_str(),
                    to.as_str(),
                    labels.join(" / ")
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
