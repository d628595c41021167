use super::*;

const ID: &str = "msg_01JC8ZQ4Z8Y3V6X7W5T2R1P0NM";
const NOW: Timestamp = Timestamp::from_millis(1_700_000_000_000);

fn ctx(schedule: &RetrySchedule, attempts_used: u32, deferrals_used: u32) -> AttemptContext<'_> {
    AttemptContext {
        schedule,
        message_id: ID,
        attempts_used,
        deferrals_used,
        now: NOW,
    }
}

fn retry_verdict(not_before: Option<Timestamp>) -> Verdict {
    Verdict::Retry {
        code: FailureCode::Transport(TransportError::Connect),
        not_before,
    }
}

#[test]
fn retries_follow_the_schedule_and_exhaust_on_the_last_attempt() {
    let s = RetrySchedule::reference();
    let code = FailureCode::Transport(TransportError::Connect);
    for used in 0..10u32 {
        let expected = match next_attempt_at(&s, ID, used + 1, NOW) {
            Some(next_attempt_at) => Outcome::Retry {
                error_code: code,
                next_attempt_at,
            },
            None => Outcome::Exhausted { error_code: code },
        };
        assert_eq!(
            resolve(retry_verdict(None), &ctx(&s, used, 0)),
            Resolved::Complete(expected.clone()),
            "attempts_used {used}"
        );
        assert_eq!(expected.as_str() == "exhausted", used == 9);
    }
    // More attempts used than the schedule has: exhausted, never a panic.
    assert!(matches!(
        resolve(retry_verdict(None), &ctx(&s, u32::MAX, 0)),
        Resolved::Complete(Outcome::Exhausted { .. })
    ));
}

#[test]
fn an_earliest_time_defers_three_times_then_counts() {
    let s = RetrySchedule::reference();
    let code = FailureCode::Transport(TransportError::Connect);
    let later = NOW.plus_seconds(7_200);
    for deferrals in 0..=5u32 {
        let expected = if deferrals < MAX_DEFERRALS {
            Outcome::Deferred {
                error_code: code,
                until: later,
            }
        } else {
            Outcome::Retry {
                error_code: code,
                next_attempt_at: later,
            }
        };
        assert_eq!(
            resolve(retry_verdict(Some(later)), &ctx(&s, 2, deferrals)),
            Resolved::Complete(expected)
        );
    }
    // On the last attempt a deferral still does not exhaust; after three it does.
    assert!(matches!(
        resolve(retry_verdict(Some(later)), &ctx(&s, 9, 2)),
        Resolved::Complete(Outcome::Deferred { .. })
    ));
    assert!(matches!(
        resolve(retry_verdict(Some(later)), &ctx(&s, 9, 3)),
        Resolved::Complete(Outcome::Exhausted { .. })
    ));
    // An earliest time before the schedule's: the schedule's time applies.
    let sched = next_attempt_at(&s, ID, 3, NOW).expect("attempt 4 exists");
    assert_eq!(
        resolve(retry_verdict(Some(NOW)), &ctx(&s, 2, 0)),
        Resolved::Complete(Outcome::Deferred {
            error_code: code,
            until: sched
        })
    );
}

#[test]
fn permanent_and_dead_letter_verdicts_pass_through() {
    let s = RetrySchedule::reference();
    let c = ctx(&s, 9, 3);
    assert_eq!(
        resolve(Verdict::Delivered, &c),
        Resolved::Complete(Outcome::Delivered)
    );
    let permanent = Verdict::Permanent {
        reason: PermanentReason::RejectedByEndpoint,
        code: FailureCode::HttpStatus(400),
        disable_endpoint: false,
        health_warning: None,
    };
    assert_eq!(
        resolve(permanent, &c),
        Resolved::Complete(Outcome::Permanent {
            reason: PermanentReason::RejectedByEndpoint,
            error_code: FailureCode::HttpStatus(400),
            disable_endpoint: false,
            health_warning: None,
        })
    );
    assert_eq!(
        resolve(
            Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            &c
        ),
        Resolved::DeadLetter(DeadLetterReason::InvalidDestination)
    );
}

/// The reference's "Terminal states": a destination that refused the
/// message itself (a broker's nack-for-good, an unroutable publish, an S3
/// 4xx that will not change) ends it `dead_lettered`, not
/// `failed_permanent`; the attempt on the wire still counts and keeps its
/// code.
#[test]
fn a_refusal_by_the_destination_is_dead_lettered_with_its_code() {
    let s = RetrySchedule::reference();
    for used in [0, 3, 9] {
        let c = ctx(&s, used, 0);
        let verdict = Verdict::Rejected {
            reason: DeadLetterReason::RejectedByDestination,
            code: FailureCode::Refused(Refusal::Unroutable),
        };
        let outcome = match resolve(verdict, &c) {
            Resolved::Complete(o) => o,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            outcome,
            Outcome::DeadLettered {
                reason: DeadLetterReason::RejectedByDestination,
                error_code: FailureCode::Refused(Refusal::Unroutable),
            }
        );
        assert_eq!(outcome.as_str(), "dead_lettered");
        assert_eq!(AttemptOutcome::from(&outcome), AttemptOutcome::DeadLettered);
        assert!(outcome.uses_attempt());
        assert!(!outcome.is_success());
        assert_eq!(
            outcome.error_code(),
            Some(FailureCode::Refused(Refusal::Unroutable))
        );
    }
}

#[test]
fn codes_and_outcomes_are_stable_strings_that_read_back() {
    let mut codes = vec![
        FailureCode::HttpStatus(200),
        FailureCode::HttpStatus(503),
        FailureCode::HttpStatus(599),
        FailureCode::InvalidStatus,
        FailureCode::SecretUnresolved,
    ];
    codes.extend(TransportError::ALL.map(FailureCode::Transport));
    codes.extend(Refusal::ALL.map(FailureCode::Refused));
    codes.extend(
        [
            TokenFailure::Unreachable,
            TokenFailure::HttpStatus(503),
            TokenFailure::HttpStatus(404),
            TokenFailure::InvalidResponse,
        ]
        .map(FailureCode::Token),
    );
    codes.extend(OAuthError::ALL.map(|e| FailureCode::Token(TokenFailure::OAuth(e))));
    for code in codes {
        assert_eq!(FailureCode::parse(&code.to_string()), Some(code), "{code}");
        let json = serde_json::to_string(&code).unwrap();
        assert_eq!(serde_json::from_str::<FailureCode>(&json).unwrap(), code);
    }
    assert_eq!(FailureCode::HttpStatus(503).to_string(), "http_503");
    assert_eq!(
        FailureCode::Transport(TransportError::BlockedAddress).to_string(),
        "blocked_address"
    );
    assert_eq!(
        FailureCode::Token(TokenFailure::OAuth(OAuthError::InvalidClient)).to_string(),
        "token_invalid_client"
    );
    assert_eq!(
        FailureCode::Token(TokenFailure::HttpStatus(502)).to_string(),
        "token_http_502"
    );
    assert_eq!(
        OAuthError::from_code("invalid_scope"),
        OAuthError::InvalidScope
    );
    assert_eq!(OAuthError::from_code("other_error"), OAuthError::Other);
    assert_eq!(OAuthError::from_code("slow_down"), OAuthError::Other);
    for bad in [
        "http_999",
        "http_",
        "http_abc",
        "nope",
        "",
        "token_",
        "token_http_99",
        "token_slow_down",
    ] {
        assert_eq!(FailureCode::parse(bad), None, "{bad}");
    }
    for o in AttemptOutcome::ALL {
        assert_eq!(AttemptOutcome::parse(o.as_str()), Some(o));
        assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
    }
    assert_eq!(TransportError::parse("nope"), None);
}
