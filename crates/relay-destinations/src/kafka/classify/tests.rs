use relay_core::outcome::{FailureCode, Refusal, TransportError, Verdict};
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use super::code::*;
use super::{Answer, classify};

fn retry(r: Refusal) -> Verdict {
    Verdict::Retry {
        code: FailureCode::Refused(r),
        not_before: None,
    }
}

fn transport(e: TransportError) -> Verdict {
    Verdict::Retry {
        code: FailureCode::Transport(e),
        not_before: None,
    }
}

fn refused(r: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(r),
    }
}

/// The module documentation's table, row by row.
#[test]
fn the_table() {
    let dead = Verdict::DeadLetter(DeadLetterReason::InvalidDestination);
    let cases: Vec<(Answer, Verdict)> = vec![
        (Answer::Acked, Verdict::Delivered),
        // Timed out in the client, with and without a cause.
        (
            Answer::TimedOut(Some(ErrorKind::BlockedAddress)),
            transport(TransportError::BlockedAddress),
        ),
        (
            Answer::TimedOut(Some(ErrorKind::PortNotAllowed)),
            dead.clone(),
        ),
        (Answer::TimedOut(Some(ErrorKind::InvalidUrl)), dead.clone()),
        (
            Answer::TimedOut(Some(ErrorKind::Connect)),
            transport(TransportError::Connect),
        ),
        (
            Answer::TimedOut(Some(ErrorKind::Dns)),
            transport(TransportError::Dns),
        ),
        (
            Answer::TimedOut(Some(ErrorKind::Tls)),
            transport(TransportError::Tls),
        ),
        (Answer::TimedOut(None), transport(TransportError::Timeout)),
        (
            Answer::Refused(MSG_TIMED_OUT),
            transport(TransportError::Timeout),
        ),
        // Nothing sent.
        (
            Answer::Failed(ErrorKind::Connect),
            transport(TransportError::Connect),
        ),
        (Answer::Failed(ErrorKind::PortNotAllowed), dead),
        // Transport codes.
        (
            Answer::Refused(TRANSPORT),
            transport(TransportError::Connect),
        ),
        (
            Answer::Refused(ALL_BROKERS_DOWN),
            transport(TransportError::Connect),
        ),
        (Answer::Refused(RESOLVE), transport(TransportError::Dns)),
        (Answer::Refused(SSL), transport(TransportError::Tls)),
    ];
    let auth = [
        AUTHENTICATION,
        TOPIC_AUTHORIZATION_FAILED,
        CLUSTER_AUTHORIZATION_FAILED,
        UNSUPPORTED_SASL_MECHANISM,
        ILLEGAL_SASL_STATE,
        TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
        SASL_AUTHENTICATION_FAILED,
    ];
    let too_large = [MSG_SIZE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_MSG_SIZE];
    let unknown = [
        UNKNOWN_TOPIC_OR_PART,
        TOPIC_EXCEPTION,
        UNKNOWN_TOPIC_ID,
        UNKNOWN_TOPIC,
        UNKNOWN_PARTITION,
    ];
    let rejected = [
        INVALID_MSG,
        INVALID_TIMESTAMP,
        INVALID_REQUIRED_ACKS,
        INVALID_REQUEST,
        UNSUPPORTED_FOR_MESSAGE_FORMAT,
        POLICY_VIOLATION,
        INVALID_RECORD,
        INVALID_ARG,
        BAD_MSG,
    ];
    let unavailable = [
        QUEUE_FULL,
        FATAL,
        PURGE_QUEUE,
        PURGE_INFLIGHT,
        DESTROY,
        LEADER_NOT_AVAILABLE,
        NOT_LEADER_FOR_PARTITION,
        REQUEST_TIMED_OUT,
        NOT_ENOUGH_REPLICAS,
        NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        KAFKA_STORAGE_ERROR,
        THROTTLING_QUOTA_EXCEEDED,
        OUT_OF_ORDER_SEQUENCE_NUMBER,
        INVALID_PRODUCER_EPOCH,
        UNKNOWN_PRODUCER_ID,
        PRODUCER_FENCED,
        -1,
        1000,
    ];
    let mut all = cases;
    all.extend(auth.map(|c| (Answer::Refused(c), retry(Refusal::AuthRefused))));
    all.extend(too_large.map(|c| (Answer::Refused(c), refused(Refusal::TooLarge))));
    all.extend(unknown.map(|c| (Answer::Refused(c), refused(Refusal::UnknownTarget))));
    all.extend(rejected.map(|c| (Answer::Refused(c), refused(Refusal::Rejected))));
    all.extend(unavailable.map(|c| (Answer::Refused(c), retry(Refusal::Unavailable))));
    for (answer, want) in all {
        assert_eq!(classify(&answer), want, "{answer:?}");
    }
}
