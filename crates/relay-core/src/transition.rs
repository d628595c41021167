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

use std::fmt;

use crate::model::MessageState;
use crate::response::Outcome;
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
    /// The destination refused the message itself (for queue and storage destinations).
    RejectedByDestination,
}

impl DeadLetterReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            DeadLetterReason::EndpointRemoved => "endpoint_removed",
            DeadLetterReason::InvalidDestination => "invalid_destination",
            DeadLetterReason::PayloadTooLarge => "payload_too_large",
            DeadLetterReason::RejectedByDestination => "rejected_by_destination",
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
    match event {
        MessageEvent::Claim if from == S::Scheduled => Ok(S::InFlight),
        MessageEvent::Complete(outcome) if from == S::InFlight => Ok(match outcome {
            Outcome::Delivered => S::Delivered,
            Outcome::Retry { .. } | Outcome::Deferred { .. } => S::Scheduled,
            Outcome::Exhausted { .. } => S::Exhausted,
            Outcome::Permanent { .. } => S::FailedPermanent,
        }),
        MessageEvent::LeaseExpired if from == S::InFlight => Ok(S::Scheduled),
        MessageEvent::Hold(_) if from == S::Scheduled => Ok(S::Held),
        MessageEvent::Release if from == S::Held => Ok(S::Scheduled),
        MessageEvent::Cancel if live || from == S::InFlight => Ok(S::Cancelled),
        // From in_flight too: the worker holding the lease finds the TTL or
        // the window passed and ends the message instead of attempting it.
        MessageEvent::TtlExpired if live || from == S::InFlight => Ok(S::Expired),
        MessageEvent::WindowExceeded if live || from == S::InFlight => Ok(S::WindowExceeded),
        MessageEvent::DeadLetter(_) if live || from == S::InFlight => Ok(S::DeadLettered),
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
    use crate::response::{FailureCode, PermanentReason};
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
    ]
}

/// The mermaid `stateDiagram-v2` of [`transition`]: every edge that changes
/// the state, with the events that take it. Self-loops (manual resends and
/// their failed completions) are left out of the drawing.
pub fn mermaid_diagram() -> String {
    let events = representative_events();
    let mut out = String::from("stateDiagram-v2\n");
    out.push_str("    [*] --> scheduled : publish (endpoint active)\n");
    out.push_str("    [*] --> held : publish (endpoint paused or disabled)\n");
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
mod tests {
    use super::*;
    use crate::response::{FailureCode, HealthWarning, PermanentReason, TransportError};

    /// Every (state, event) pair. Columns are the states in `MessageState::ALL`
    /// order; `-` is illegal, `=` keeps the state.
    #[rustfmt::skip]
    const TABLE: &[(&str, [&str; 10])] = &[
        //                             sched   inflt   held    dlvd    fperm   exhst   exprd   windw   dead    cancl
        ("claim",                      ["inflt", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("complete(delivered)",        ["-",    "dlvd",  "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("complete(retry)",            ["-",    "sched", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("complete(deferred)",         ["-",    "sched", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("complete(exhausted)",        ["-",    "exhst", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("complete(permanent)",        ["-",    "fperm", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("lease_expired",              ["-",    "sched", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("hold",                       ["held", "-",     "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("release",                    ["-",    "-",     "sched", "-",   "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("cancel",                     ["cancl", "cancl", "cancl", "-",  "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("ttl_expired",                ["exprd", "exprd", "exprd", "-",  "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("window_exceeded",            ["windw", "windw", "windw", "-",  "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("dead_letter",                ["dead", "dead",  "dead", "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
        ("manual_resend",              ["=",    "-",     "=",    "=",    "=",    "=",    "=",    "=",    "=",    "="   ]),
        ("complete_manual(delivered)", ["dlvd", "-",     "dlvd", "dlvd", "dlvd", "dlvd", "dlvd", "dlvd", "dlvd", "dlvd"]),
        ("complete_manual(failed)",    ["=",    "-",     "=",    "=",    "=",    "=",    "=",    "=",    "=",    "="   ]),
        ("restart",                    ["-",    "-",     "-",    "-",    "sched", "sched", "-",  "sched", "sched", "sched"]),
    ];

    fn short(code: &str) -> Option<MessageState> {
        use MessageState as S;
        Some(match code {
            "sched" => S::Scheduled,
            "inflt" => S::InFlight,
            "held" => S::Held,
            "dlvd" => S::Delivered,
            "fperm" => S::FailedPermanent,
            "exhst" => S::Exhausted,
            "exprd" => S::Expired,
            "windw" => S::WindowExceeded,
            "dead" => S::DeadLettered,
            "cancl" => S::Cancelled,
            _ => return None,
        })
    }

    #[test]
    fn restartable_states_are_exactly_those_restart_accepts() {
        for state in MessageState::ALL {
            assert_eq!(
                RESTARTABLE.contains(&state),
                transition(state, &MessageEvent::Restart).is_ok(),
                "{}",
                state.as_str()
            );
        }
    }

    #[test]
    fn every_state_and_event_pair_is_in_the_table() {
        let events = representative_events();
        assert_eq!(events.len(), TABLE.len());
        for (event, (name, row)) in events.iter().zip(TABLE) {
            assert_eq!(&label(event), name);
            for (from, cell) in MessageState::ALL.into_iter().zip(row) {
                let expected = match *cell {
                    "-" => Err(IllegalTransition {
                        from,
                        event: event.kind(),
                    }),
                    "=" => Ok(from),
                    c => short(c).ok_or(IllegalTransition {
                        from,
                        event: event.kind(),
                    }),
                };
                assert!(*cell == "-" || expected.is_ok(), "bad cell {cell}");
                assert_eq!(
                    transition(from, event),
                    expected,
                    "{} + {name}",
                    from.as_str()
                );
            }
        }
    }

    #[test]
    fn outcome_details_do_not_change_the_state() {
        // Every permanent reason and every failure kind lands in the same place.
        let permanent = [
            PermanentReason::RedirectNotFollowed,
            PermanentReason::EndpointGone,
            PermanentReason::RejectedByEndpoint,
            PermanentReason::AbortedByConsumer,
        ];
        for reason in permanent {
            let e = MessageEvent::Complete(Outcome::Permanent {
                reason,
                error_code: FailureCode::HttpStatus(301),
                disable_endpoint: true,
                health_warning: Some(HealthWarning::RedirectNotFollowed {
                    status: 301,
                    location: None,
                }),
            });
            assert_eq!(
                transition(MessageState::InFlight, &e),
                Ok(MessageState::FailedPermanent)
            );
        }
        let failures = [
            Outcome::Exhausted {
                error_code: FailureCode::Transport(TransportError::Tls),
            },
            Outcome::Deferred {
                error_code: FailureCode::HttpStatus(503),
                until: Timestamp::from_millis(1),
            },
        ];
        for o in failures {
            for state in MessageState::ALL {
                if state != MessageState::InFlight {
                    assert_eq!(
                        transition(state, &MessageEvent::CompleteManual(o.clone())),
                        Ok(state)
                    );
                }
            }
        }
        for reason in [
            HoldReason::EndpointPaused,
            HoldReason::EndpointDisabled,
            HoldReason::CircuitOpen,
        ] {
            assert_eq!(
                transition(MessageState::Scheduled, &MessageEvent::Hold(reason)),
                Ok(MessageState::Held)
            );
        }
        for reason in [
            DeadLetterReason::EndpointRemoved,
            DeadLetterReason::InvalidDestination,
            DeadLetterReason::PayloadTooLarge,
            DeadLetterReason::RejectedByDestination,
        ] {
            assert_eq!(
                transition(MessageState::Held, &MessageEvent::DeadLetter(reason)),
                Ok(MessageState::DeadLettered)
            );
        }
    }

    #[test]
    fn terminal_states_are_left_only_by_restart_or_a_manual_success() {
        for from in MessageState::ALL.into_iter().filter(|s| s.is_terminal()) {
            for event in representative_events() {
                if let Ok(to) = transition(from, &event) {
                    let allowed = to == from
                        || matches!(event, MessageEvent::Restart)
                        || matches!(&event, MessageEvent::CompleteManual(o) if o.is_success());
                    assert!(allowed, "{} + {event} -> {}", from.as_str(), to.as_str());
                }
            }
        }
    }

    #[test]
    fn error_codes() {
        let stale = transition(
            MessageState::Cancelled,
            &MessageEvent::Complete(Outcome::Delivered),
        );
        assert_eq!(stale.map_err(|e| e.code()), Err("stale_completion"));
        let busy = transition(MessageState::InFlight, &MessageEvent::ManualResend);
        assert_eq!(busy.map_err(|e| e.code()), Err("attempt_in_flight"));
        let e = transition(MessageState::Delivered, &MessageEvent::Cancel);
        assert_eq!(e.map_err(|e| e.code()), Err("illegal_transition"));
        assert_eq!(
            e.map_err(|e| e.to_string()),
            Err("`cancel` is not allowed for a message that is `delivered`".to_string())
        );
    }

    const T0: Timestamp = Timestamp::from_millis(1_700_000_000_000);

    fn in_flight(attempts_used: u32) -> Progress {
        Progress {
            state: MessageState::InFlight,
            attempts_used,
            deferrals_used: 1,
            next_attempt_at: Some(T0),
            last_error_code: Some("http_500".into()),
            terminal_reason: None,
        }
    }

    #[test]
    fn new_messages_are_due_at_once() {
        let p = Progress::new(MessageState::Scheduled, T0);
        assert_eq!(p.next_attempt_at, Some(T0));
        assert_eq!((p.attempts_used, p.deferrals_used), (0, 0));
        let claimed = apply(&p, &MessageEvent::Claim, T0);
        assert_eq!(claimed.map(|c| c.state), Ok(MessageState::InFlight));
    }

    #[test]
    fn completions_update_counters_and_times() {
        let later = T0.plus_seconds(300);
        let now = T0.plus_seconds(1);
        let retry = Outcome::Retry {
            error_code: FailureCode::Transport(TransportError::Timeout),
            next_attempt_at: later,
        };
        let p = apply(&in_flight(2), &MessageEvent::Complete(retry), now);
        assert_eq!(
            p,
            Ok(Progress {
                state: MessageState::Scheduled,
                attempts_used: 3,
                deferrals_used: 1,
                next_attempt_at: Some(later),
                last_error_code: Some("timeout".into()),
                terminal_reason: None,
            })
        );
        let deferred = Outcome::Deferred {
            error_code: FailureCode::HttpStatus(429),
            until: later,
        };
        let p = apply(&in_flight(2), &MessageEvent::Complete(deferred), now);
        assert_eq!(
            p.map(|p| (
                p.state,
                p.attempts_used,
                p.deferrals_used,
                p.next_attempt_at
            )),
            Ok((MessageState::Scheduled, 2, 2, Some(later)))
        );
        let p = apply(
            &in_flight(2),
            &MessageEvent::Complete(Outcome::Delivered),
            now,
        );
        assert_eq!(
            p,
            Ok(Progress {
                state: MessageState::Delivered,
                attempts_used: 3,
                deferrals_used: 1,
                next_attempt_at: None,
                last_error_code: Some("http_500".into()),
                terminal_reason: None,
            })
        );
        let exhausted = Outcome::Exhausted {
            error_code: FailureCode::HttpStatus(502),
        };
        let p = apply(&in_flight(9), &MessageEvent::Complete(exhausted), now);
        assert_eq!(
            p.map(|p| (
                p.state,
                p.attempts_used,
                p.next_attempt_at,
                p.last_error_code,
                p.terminal_reason
            )),
            Ok((
                MessageState::Exhausted,
                10,
                None,
                Some("http_502".into()),
                Some(REASON_EXHAUSTED.into())
            ))
        );
        let gone = Outcome::Permanent {
            reason: PermanentReason::EndpointGone,
            error_code: FailureCode::HttpStatus(410),
            disable_endpoint: true,
            health_warning: None,
        };
        let p = apply(&in_flight(0), &MessageEvent::Complete(gone), now);
        assert_eq!(
            p.map(|p| (p.state, p.attempts_used, p.terminal_reason)),
            Ok((
                MessageState::FailedPermanent,
                1,
                Some("endpoint_gone".into())
            ))
        );
    }

    #[test]
    fn lease_expiry_makes_the_message_due_at_once_without_counting() {
        let now = T0.plus_seconds(30);
        let p = apply(&in_flight(4), &MessageEvent::LeaseExpired, now);
        assert_eq!(
            p.map(|p| (p.state, p.attempts_used, p.next_attempt_at)),
            Ok((MessageState::Scheduled, 4, Some(now)))
        );
    }

    #[test]
    fn hold_and_release_keep_the_schedule() {
        let due = T0.plus_seconds(60);
        let p = Progress {
            next_attempt_at: Some(due),
            ..Progress::new(MessageState::Scheduled, T0)
        };
        let held = apply(&p, &MessageEvent::Hold(HoldReason::CircuitOpen), T0);
        assert_eq!(
            held.as_ref().map(|h| (h.state, h.next_attempt_at)),
            Ok((MessageState::Held, Some(due)))
        );
        let Ok(held) = held else { return };
        let released = apply(&held, &MessageEvent::Release, T0.plus_seconds(3_600));
        assert_eq!(
            released,
            Ok(Progress {
                state: MessageState::Scheduled,
                ..p.clone()
            })
        );
        // A held message with no time (should not happen) becomes due at release.
        let odd = Progress {
            next_attempt_at: None,
            ..held
        };
        let released = apply(&odd, &MessageEvent::Release, T0.plus_seconds(9));
        assert_eq!(
            released.map(|r| r.next_attempt_at),
            Ok(Some(T0.plus_seconds(9)))
        );
    }

    #[test]
    fn terminal_events_record_their_reason() {
        let p = Progress::new(MessageState::Held, T0);
        let cases = [
            (MessageEvent::Cancel, MessageState::Cancelled, "cancelled"),
            (
                MessageEvent::TtlExpired,
                MessageState::Expired,
                "ttl_expired",
            ),
            (
                MessageEvent::WindowExceeded,
                MessageState::WindowExceeded,
                "window_exceeded",
            ),
            (
                MessageEvent::DeadLetter(DeadLetterReason::PayloadTooLarge),
                MessageState::DeadLettered,
                "payload_too_large",
            ),
            (
                MessageEvent::DeadLetter(DeadLetterReason::InvalidDestination),
                MessageState::DeadLettered,
                "invalid_destination",
            ),
        ];
        for (event, state, reason) in cases {
            let got = apply(&p, &event, T0);
            assert_eq!(
                got.map(|g| (g.state, g.next_attempt_at, g.terminal_reason)),
                Ok((state, None, Some(reason.to_string()))),
                "{event}"
            );
        }
    }

    #[test]
    fn manual_resend_during_the_schedule() {
        let due = T0.plus_seconds(1_800);
        let p = Progress {
            state: MessageState::Scheduled,
            attempts_used: 3,
            deferrals_used: 0,
            next_attempt_at: Some(due),
            last_error_code: Some("http_503".into()),
            terminal_reason: None,
        };
        assert_eq!(apply(&p, &MessageEvent::ManualResend, T0), Ok(p.clone()));
        // Failure: nothing changes, the attempt does not count.
        let failed = Outcome::Retry {
            error_code: FailureCode::HttpStatus(500),
            next_attempt_at: T0.plus_seconds(5),
        };
        assert_eq!(
            apply(&p, &MessageEvent::CompleteManual(failed), T0),
            Ok(p.clone())
        );
        let aborted = Outcome::Permanent {
            reason: PermanentReason::AbortedByConsumer,
            error_code: FailureCode::HttpStatus(400),
            disable_endpoint: false,
            health_warning: None,
        };
        assert_eq!(
            apply(&p, &MessageEvent::CompleteManual(aborted), T0),
            Ok(p.clone())
        );
        // Success: delivered, the pending attempts are gone.
        let ok = apply(&p, &MessageEvent::CompleteManual(Outcome::Delivered), T0);
        assert_eq!(
            ok.map(|o| (o.state, o.next_attempt_at, o.attempts_used)),
            Ok((MessageState::Delivered, None, 3))
        );
        // Not while a scheduled attempt runs.
        let busy = Progress {
            state: MessageState::InFlight,
            ..p
        };
        assert_eq!(
            apply(&busy, &MessageEvent::ManualResend, T0).map_err(|e| e.code()),
            Err("attempt_in_flight")
        );
    }

    #[test]
    fn manual_resend_of_a_terminal_message() {
        let p = Progress {
            state: MessageState::Exhausted,
            attempts_used: 10,
            deferrals_used: 0,
            next_attempt_at: None,
            last_error_code: Some("http_500".into()),
            terminal_reason: Some(REASON_EXHAUSTED.into()),
        };
        let failed = Outcome::Exhausted {
            error_code: FailureCode::HttpStatus(500),
        };
        assert_eq!(
            apply(&p, &MessageEvent::CompleteManual(failed), T0),
            Ok(p.clone())
        );
        let ok = apply(&p, &MessageEvent::CompleteManual(Outcome::Delivered), T0);
        assert_eq!(
            ok.map(|o| (o.state, o.terminal_reason)),
            Ok((MessageState::Delivered, None))
        );
    }

    #[test]
    fn restart_starts_the_schedule_again() {
        let p = Progress {
            state: MessageState::Exhausted,
            attempts_used: 10,
            deferrals_used: 3,
            next_attempt_at: None,
            last_error_code: Some("http_500".into()),
            terminal_reason: Some(REASON_EXHAUSTED.into()),
        };
        let now = T0.plus_seconds(86_400);
        assert_eq!(
            apply(&p, &MessageEvent::Restart, now),
            Ok(Progress {
                state: MessageState::Scheduled,
                attempts_used: 0,
                deferrals_used: 0,
                next_attempt_at: Some(now),
                last_error_code: Some("http_500".into()),
                terminal_reason: None,
            })
        );
        let expired = Progress {
            state: MessageState::Expired,
            ..p
        };
        assert!(apply(&expired, &MessageEvent::Restart, now).is_err());
    }

    #[test]
    fn illegal_events_leave_no_partial_result() {
        for state in MessageState::ALL {
            let p = Progress {
                state,
                ..Progress::new(MessageState::Scheduled, T0)
            };
            for event in representative_events() {
                match (transition(state, &event), apply(&p, &event, T0)) {
                    (Ok(to), Ok(next)) => assert_eq!(next.state, to),
                    (Err(a), Err(b)) => assert_eq!(a, b),
                    (a, b) => panic!("transition {a:?} and apply {b:?} disagree"),
                }
            }
        }
    }

    #[test]
    fn the_state_machine_document_matches_the_code() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/state-machine.md");
        let doc = match std::fs::read_to_string(&path) {
            Ok(doc) => doc,
            Err(e) => panic!("cannot read {}: {e}", path.display()),
        };
        let expected = mermaid_diagram();
        assert!(
            doc.contains(&format!("```mermaid\n{expected}```")),
            "docs/state-machine.md is out of date; its diagram must be exactly:\n```mermaid\n{expected}```"
        );
    }
}
