//! The classification table of `classify.rs`, row by row.

use relay_core::outcome::{FailureCode, Refusal, TransportError, Verdict};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

use super::{Answer, classify, element};

const NOW: Timestamp = Timestamp::from_millis(1_700_000_000_000);

fn status(status: u16, code: Option<&str>) -> Verdict {
    classify(
        &Answer::Status {
            status,
            code,
            retry_after: None,
        },
        NOW,
    )
}

fn retried(refusal: Refusal) -> Verdict {
    Verdict::Retry {
        code: FailureCode::Refused(refusal),
        not_before: None,
    }
}

fn refused(refusal: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(refusal),
    }
}

#[test]
fn answers() {
    for (s, code, expected) in [
        (200, None, Verdict::Delivered),
        (204, None, Verdict::Delivered),
        (403, Some("AccessDenied"), retried(Refusal::AuthRefused)),
        (
            403,
            Some("InvalidAccessKeyId"),
            retried(Refusal::AuthRefused),
        ),
        (
            403,
            Some("SignatureDoesNotMatch"),
            retried(Refusal::AuthRefused),
        ),
        (
            403,
            Some("RequestTimeTooSkewed"),
            retried(Refusal::AuthRefused),
        ),
        (403, None, retried(Refusal::AuthRefused)),
        (401, None, retried(Refusal::AuthRefused)),
        (400, Some("ExpiredToken"), retried(Refusal::AuthRefused)),
        (400, Some("InvalidToken"), retried(Refusal::AuthRefused)),
        (
            400,
            Some("AuthorizationHeaderMalformed"),
            retried(Refusal::Rejected),
        ),
        (301, Some("PermanentRedirect"), retried(Refusal::Rejected)),
        (404, Some("NoSuchBucket"), refused(Refusal::UnknownTarget)),
        (404, None, refused(Refusal::UnknownTarget)),
        (400, Some("EntityTooLarge"), refused(Refusal::TooLarge)),
        (413, None, refused(Refusal::TooLarge)),
        (400, Some("RequestTimeout"), retried(Refusal::Unavailable)),
        (
            307,
            Some("TemporaryRedirect"),
            retried(Refusal::Unavailable),
        ),
        (408, None, retried(Refusal::Unavailable)),
        (409, Some("OperationAborted"), retried(Refusal::Unavailable)),
        (429, None, retried(Refusal::Unavailable)),
        (500, Some("InternalError"), retried(Refusal::Unavailable)),
        (503, Some("SlowDown"), retried(Refusal::Unavailable)),
        (
            503,
            Some("ServiceUnavailable"),
            retried(Refusal::Unavailable),
        ),
        (400, Some("InvalidArgument"), refused(Refusal::Rejected)),
        (400, Some("BadDigest"), refused(Refusal::Rejected)),
        (
            400,
            Some("XAmzContentSHA256Mismatch"),
            refused(Refusal::Rejected),
        ),
        (400, None, refused(Refusal::Rejected)),
        (405, Some("MethodNotAllowed"), refused(Refusal::Rejected)),
        (302, None, refused(Refusal::Rejected)),
        (100, None, refused(Refusal::Rejected)),
    ] {
        assert_eq!(status(s, code), expected, "{s} {code:?}");
    }
}

#[test]
fn retry_after_is_the_earliest_next_attempt() {
    let v = classify(
        &Answer::Status {
            status: 503,
            code: Some("SlowDown"),
            retry_after: Some(30),
        },
        NOW,
    );
    assert_eq!(
        v,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::Unavailable),
            not_before: Some(NOW.plus_seconds(30)),
        }
    );
}

#[test]
fn failures_without_an_answer() {
    for (kind, expected) in [
        (ErrorKind::Connect, Some(TransportError::Connect)),
        (ErrorKind::Dns, Some(TransportError::Dns)),
        (ErrorKind::Timeout, Some(TransportError::Timeout)),
        (ErrorKind::Tls, Some(TransportError::Tls)),
        (
            ErrorKind::BlockedAddress,
            Some(TransportError::BlockedAddress),
        ),
        (ErrorKind::Http, Some(TransportError::Protocol)),
        (ErrorKind::Protocol, Some(TransportError::Protocol)),
        (ErrorKind::PortNotAllowed, None),
        (ErrorKind::SchemeNotAllowed, None),
        (ErrorKind::InvalidUrl, None),
        (ErrorKind::CredentialsInUrl, None),
    ] {
        let v = classify(&Answer::Failed(kind), NOW);
        let want = match expected {
            Some(e) => Verdict::Retry {
                code: FailureCode::Transport(e),
                not_before: None,
            },
            None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
        };
        assert_eq!(v, want, "{kind:?}");
    }
    assert_eq!(
        classify(&Answer::Unaddressable, NOW),
        Verdict::DeadLetter(DeadLetterReason::InvalidDestination)
    );
}

#[test]
fn error_elements() {
    let body = "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>b</BucketName></Error>";
    assert_eq!(element(body, "Code"), Some("NoSuchBucket"));
    assert_eq!(
        element(body, "Message"),
        Some("The specified bucket does not exist")
    );
    assert_eq!(element(body, "RequestId"), None);
    assert_eq!(element("<Code>unterminated", "Code"), None);
    assert_eq!(element("", "Code"), None);
}
