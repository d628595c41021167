use relay_core::outcome::TransportError;

use super::*;

const V5: MqttVersion = MqttVersion::V5;
const V3: MqttVersion = MqttVersion::V311;

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

#[test]
fn the_table() {
    let cases: Vec<(Answer, Verdict)> = vec![
        (Answer::Acked, Verdict::Delivered),
        (Answer::PubAck(0x87), refused(Refusal::AuthRefused)),
        (Answer::PubAck(0x97), refused(Refusal::Unavailable)),
        (Answer::PubAck(0x90), rejected(Refusal::UnknownTarget)),
        (Answer::PubAck(0x95), rejected(Refusal::TooLarge)),
        (Answer::PubAck(0x99), rejected(Refusal::Rejected)),
        (Answer::PubAck(0x80), refused(Refusal::Nack)),
        (Answer::PubAck(0x83), refused(Refusal::Nack)),
        (Answer::PubAck(0x91), refused(Refusal::Nack)),
        (Answer::PubAck(0xFF), refused(Refusal::Nack)),
        (Answer::ConnAck(V5, 0x86), refused(Refusal::AuthRefused)),
        (Answer::ConnAck(V5, 0x87), refused(Refusal::AuthRefused)),
        (Answer::ConnAck(V5, 0x8A), refused(Refusal::AuthRefused)),
        (Answer::ConnAck(V5, 0x8C), refused(Refusal::AuthRefused)),
        (Answer::ConnAck(V3, 4), refused(Refusal::AuthRefused)),
        (Answer::ConnAck(V3, 5), refused(Refusal::AuthRefused)),
        (Answer::ConnAck(V5, 0x84), refused(Refusal::Rejected)),
        (Answer::ConnAck(V5, 0x85), refused(Refusal::Rejected)),
        (Answer::ConnAck(V5, 1), refused(Refusal::Rejected)),
        (Answer::ConnAck(V3, 1), refused(Refusal::Rejected)),
        (Answer::ConnAck(V3, 2), refused(Refusal::Rejected)),
        (Answer::ConnAck(V3, 3), refused(Refusal::Unavailable)),
        (Answer::ConnAck(V5, 0x88), refused(Refusal::Unavailable)),
        (Answer::ConnAck(V5, 0x89), refused(Refusal::Unavailable)),
        (Answer::ConnAck(V5, 0x9F), refused(Refusal::Unavailable)),
        (Answer::ConnAck(V5, 0x9C), refused(Refusal::Unavailable)),
        (Answer::ConnAck(V5, 0x80), refused(Refusal::Unavailable)),
        (Answer::Disconnect(0x87), refused(Refusal::AuthRefused)),
        (Answer::Disconnect(0x95), refused(Refusal::TooLarge)),
        (Answer::Disconnect(0x8B), refused(Refusal::Unavailable)),
        (Answer::Disconnect(0x8E), refused(Refusal::Unavailable)),
        (Answer::Disconnect(0x93), refused(Refusal::Unavailable)),
        (
            Answer::TooLarge,
            Verdict::DeadLetter(DeadLetterReason::PayloadOverLimit),
        ),
        (Answer::NoQos1, rejected(Refusal::Rejected)),
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
    ];
    for (answer, expected) in cases {
        assert_eq!(classify(&answer), expected, "{answer:?}");
    }
}

#[test]
fn every_failing_puback_code_is_a_failure_and_every_success_code_is_not_a_refusal() {
    // MQTT 5 §3.4.2.1: below 0x80 is success (0x00, 0x10); the connection
    // reports those as `Acked`, never as a refusal.
    for code in 0x80..=0xFF {
        assert_ne!(
            classify(&Answer::PubAck(code)),
            Verdict::Delivered,
            "{code:#x}"
        );
    }
    assert_eq!(NO_MATCHING_SUBSCRIBERS, 0x10);
    assert_eq!(describe(NO_MATCHING_SUBSCRIBERS), "no matching subscribers");
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

#[test]
fn codes_are_named_for_the_record() {
    assert_eq!(describe(0x87), "not authorized");
    assert_eq!(describe_connack(V3, 5), "not authorized");
    assert_eq!(describe_connack(V5, 0x86), "bad user name or password");
    assert_eq!(describe_connack(V5, 0x87), "not authorized");
    assert_eq!(describe(0x42), "unknown reason code");
}
