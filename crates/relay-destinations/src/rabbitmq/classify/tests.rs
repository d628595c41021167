use relay_core::outcome::TransportError;

use super::*;

fn retry(code: FailureCode) -> Verdict {
    Verdict::Retry {
        code,
        not_before: None,
    }
}

fn rejected(r: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(r),
    }
}

#[test]
fn the_table() {
    let cases: Vec<(Answer<'static>, Verdict)> = vec![
        (Answer::Acked, Verdict::Delivered),
        (Answer::Nacked, retry(FailureCode::Refused(Refusal::Nack))),
        (Answer::Returned(312), rejected(Refusal::Unroutable)),
        (Answer::Returned(313), rejected(Refusal::Unroutable)),
        (Answer::Returned(311), rejected(Refusal::TooLarge)),
        (
            Answer::Failed(ErrorKind::Connect),
            retry(FailureCode::Transport(TransportError::Connect)),
        ),
        (
            Answer::Failed(ErrorKind::Timeout),
            retry(FailureCode::Transport(TransportError::Timeout)),
        ),
        (
            Answer::Failed(ErrorKind::Protocol),
            retry(FailureCode::Transport(TransportError::Protocol)),
        ),
        (
            Answer::Failed(ErrorKind::Tls),
            retry(FailureCode::Transport(TransportError::Tls)),
        ),
        (
            Answer::Failed(ErrorKind::PortNotAllowed),
            Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        ),
        (
            Answer::Unaddressable,
            Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        ),
        (
            Answer::Closed(403, "ACCESS_REFUSED - Login was refused"),
            retry(FailureCode::Refused(Refusal::AuthRefused)),
        ),
        (
            Answer::Closed(530, "NOT_ALLOWED - vhost nope not found"),
            retry(FailureCode::Refused(Refusal::AuthRefused)),
        ),
        (
            Answer::Closed(404, "NOT_FOUND - no exchange 'x' in vhost '/'"),
            rejected(Refusal::UnknownTarget),
        ),
        (Answer::Closed(311, ""), rejected(Refusal::TooLarge)),
        (
            Answer::Closed(
                406,
                "PRECONDITION_FAILED - message size 200 is larger than configured max size 100",
            ),
            rejected(Refusal::TooLarge),
        ),
        (
            Answer::Closed(501, "FRAME_ERROR - frame size 9000 exceeds frame max 4096"),
            rejected(Refusal::TooLarge),
        ),
        (
            Answer::Closed(406, "PRECONDITION_FAILED - invalid expiration"),
            rejected(Refusal::Rejected),
        ),
        (
            Answer::Closed(501, "FRAME_ERROR - bad frame"),
            retry(FailureCode::Refused(Refusal::Unavailable)),
        ),
        (
            Answer::Closed(320, "CONNECTION_FORCED - broker forced connection closure"),
            retry(FailureCode::Refused(Refusal::Unavailable)),
        ),
        (
            Answer::Closed(541, "INTERNAL_ERROR"),
            retry(FailureCode::Refused(Refusal::Unavailable)),
        ),
        (
            Answer::Closed(506, "RESOURCE_ERROR"),
            retry(FailureCode::Refused(Refusal::Unavailable)),
        ),
        (
            Answer::Closed(999, "something new"),
            retry(FailureCode::Refused(Refusal::Unavailable)),
        ),
    ];
    for (answer, expected) in cases {
        assert_eq!(classify(&answer), expected, "{answer:?}");
    }
}

#[test]
fn only_a_target_the_guard_refuses_is_dead_lettered() {
    for kind in ErrorKind::ALL {
        let v = classify(&Answer::Failed(kind));
        assert_eq!(
            matches!(v, Verdict::DeadLetter(_)),
            kind.is_refused_target(),
            "{kind}"
        );
    }
}
