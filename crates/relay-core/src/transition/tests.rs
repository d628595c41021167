use super::*;
use crate::outcome::{FailureCode, HealthWarning, PermanentReason, TransportError};

/// Every (state, event) pair. Columns are the states in `MessageState::ALL`
/// order; `-` is illegal, `=` keeps the state.
#[rustfmt::skip]
const TABLE: &[(&str, [&str; 11])] = &[
    //                             sched   inflt   held    dlvd    fperm   exhst   exprd   windw   dead    cancl   blckd
    ("claim",                      ["inflt", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("complete(delivered)",        ["-",    "dlvd",  "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("complete(retry)",            ["-",    "sched", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("complete(deferred)",         ["-",    "sched", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("complete(exhausted)",        ["-",    "exhst", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("complete(permanent)",        ["-",    "fperm", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("complete(dead_lettered)",    ["-",    "dead",  "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("lease_expired",              ["-",    "sched", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("hold",                       ["held", "-",     "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("release",                    ["-",    "-",     "sched", "-",   "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("cancel",                     ["cancl", "cancl", "cancl", "-",  "-",    "-",    "-",    "-",    "-",    "-", "cancl"]),
    ("ttl_expired",                ["exprd", "exprd", "exprd", "-",  "-",    "-",    "-",    "-",    "-",    "-", "exprd"]),
    ("window_exceeded",            ["windw", "windw", "windw", "-",  "-",    "-",    "-",    "-",    "-",    "-", "-"]),
    ("dead_letter",                ["dead", "dead",  "dead", "-",    "-",    "-",    "-",    "-",    "-",    "-", "dead"]),
    ("manual_resend",              ["=",    "-",     "=",    "=",    "=",    "=",    "=",    "=",    "=",    "=", "="]),
    ("complete_manual(delivered)", ["dlvd", "-",     "dlvd", "dlvd", "dlvd", "dlvd", "dlvd", "dlvd", "dlvd", "dlvd", "dlvd"]),
    ("complete_manual(failed)",    ["=",    "-",     "=",    "=",    "=",    "=",    "=",    "=",    "=",    "=", "="]),
    ("restart",                    ["-",    "-",     "-",    "-",    "sched", "sched", "-",  "sched", "sched", "sched", "-"]),
    ("queue",                      ["blckd", "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-"   ]),
    ("promote",                    ["-",    "-",     "-",    "-",    "-",    "-",    "-",    "-",    "-",    "-",    "sched"]),
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
        "blckd" => S::Blocked,
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
        DeadLetterReason::PayloadOverLimit,
        DeadLetterReason::AddressTooLong,
        DeadLetterReason::NotAddressed,
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
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/state-machine.md");
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

/// A refusal by the destination (`Outcome::DeadLettered`) ends a claimed
/// message `dead_lettered` with its reason, counting the attempt and
/// keeping its code; a manual attempt refused changes nothing (rules 8, 9).
#[test]
fn a_refused_attempt_dead_letters_and_counts() {
    use crate::outcome::Refusal;
    let refused = Outcome::DeadLettered {
        reason: DeadLetterReason::RejectedByDestination,
        error_code: FailureCode::Refused(Refusal::Nack),
    };
    let now = Timestamp::from_millis(5);
    let p = Progress {
        state: MessageState::InFlight,
        attempts_used: 2,
        deferrals_used: 1,
        next_attempt_at: Some(Timestamp::from_millis(1)),
        last_error_code: None,
        terminal_reason: None,
    };
    let next = apply(&p, &MessageEvent::Complete(refused.clone()), now).unwrap();
    assert_eq!(next.state, MessageState::DeadLettered);
    assert_eq!(next.attempts_used, 3);
    assert_eq!(next.deferrals_used, 1);
    assert_eq!(next.last_error_code.as_deref(), Some("nack"));
    assert_eq!(
        next.terminal_reason.as_deref(),
        Some("rejected_by_destination")
    );
    for state in [
        MessageState::Scheduled,
        MessageState::Held,
        MessageState::Exhausted,
    ] {
        let p = Progress { state, ..p.clone() };
        let next = apply(&p, &MessageEvent::CompleteManual(refused.clone()), now).unwrap();
        assert_eq!(next, p, "{state:?}");
    }
}
