use relay_core::outcome::TransportError;

use super::*;

fn retry(code: FailureCode) -> Verdict {
    Verdict::Retry {
        code,
        not_before: None,
    }
}

fn refused(r: Refusal) -> Verdict {
    retry(FailureCode::Refused(r))
}

fn rejected(r: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(r),
    }
}

fn api(code: u16, err_code: u32) -> Answer<'static> {
    Answer::Api { code, err_code }
}

#[test]
fn the_table() {
    let cases: Vec<(Answer<'static>, Verdict)> = vec![
        (Answer::Acked, Verdict::Delivered),
        (
            Answer::Failed(ErrorKind::Connect),
            retry(FailureCode::Transport(TransportError::Connect)),
        ),
        (
            Answer::Failed(ErrorKind::Timeout),
            retry(FailureCode::Transport(TransportError::Timeout)),
        ),
        (
            Answer::Failed(ErrorKind::Tls),
            retry(FailureCode::Transport(TransportError::Tls)),
        ),
        (
            Answer::Failed(ErrorKind::Protocol),
            retry(FailureCode::Transport(TransportError::Protocol)),
        ),
        (
            Answer::Failed(ErrorKind::BlockedAddress),
            retry(FailureCode::Transport(TransportError::BlockedAddress)),
        ),
        (
            Answer::Failed(ErrorKind::PortNotAllowed),
            Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        ),
        // Authentication and authorization: fixable, so retried.
        (
            Answer::Server("Authorization Violation"),
            refused(Refusal::AuthRefused),
        ),
        (
            Answer::Server("Authentication Timeout"),
            refused(Refusal::AuthRefused),
        ),
        (
            Answer::Server("User Authentication Expired"),
            refused(Refusal::AuthRefused),
        ),
        (
            Answer::Server("Permissions Violation for Publish to \"orders.x\""),
            refused(Refusal::AuthRefused),
        ),
        // No stream bound to the subject.
        (Answer::Status(503), refused(Refusal::UnknownTarget)),
        (Answer::Status(408), refused(Refusal::Unavailable)),
        // Too large: for the server, for the stream, or not sent at all.
        (
            Answer::Server("Maximum Payload Violation"),
            rejected(Refusal::TooLarge),
        ),
        (api(400, 10054), rejected(Refusal::TooLarge)),
        (
            Answer::TooLarge,
            Verdict::DeadLetter(DeadLetterReason::PayloadOverLimit),
        ),
        // The stream.
        (api(404, 10059), rejected(Refusal::UnknownTarget)),
        (api(400, 10060), rejected(Refusal::UnknownTarget)),
        // Full (discard new), storage, resources: retried.
        (api(503, 10077), refused(Refusal::Unavailable)),
        (api(503, 10023), refused(Refusal::Unavailable)),
        (api(503, 99999), refused(Refusal::Unavailable)),
        (api(500, 10001), refused(Refusal::Unavailable)),
        // Another refusal of this message.
        (api(400, 10071), rejected(Refusal::Rejected)),
        (Answer::BadHeader, rejected(Refusal::Rejected)),
        // Other server errors (the connection is rebuilt).
        (
            Answer::Server("Maximum Connections Exceeded"),
            refused(Refusal::Unavailable),
        ),
        (
            Answer::Server("Stale Connection"),
            refused(Refusal::Unavailable),
        ),
    ];
    for (answer, expected) in cases {
        assert_eq!(classify(&answer), expected, "{answer:?}");
    }
}

#[test]
fn only_a_refused_target_is_dead_lettered() {
    for kind in ErrorKind::ALL {
        let v = classify(&Answer::Failed(kind));
        assert_eq!(
            matches!(v, Verdict::DeadLetter(_)),
            kind.is_refused_target(),
            "{kind}"
        );
    }
}
