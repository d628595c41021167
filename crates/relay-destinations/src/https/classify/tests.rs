use relay_core::outcome::{
    AttemptContext, MAX_DEFERRALS, Outcome, Resolved, TransportError, resolve,
};
use relay_core::retry::{RetrySchedule, next_attempt_at};

use super::*;

/// The classification with the schedule applied, as the engine does.
fn classify_at(result: &Exchange<'_>, ctx: &AttemptContext<'_>) -> Outcome {
    match resolve(classify(result, ctx.now), ctx) {
        Resolved::Complete(outcome) => outcome,
        Resolved::DeadLetter(reason) => panic!("dead-lettered: {reason:?}"),
    }
}

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

fn response(status: u16) -> Exchange<'static> {
    Exchange::Response {
        status,
        headers: ResponseHeaders::default(),
    }
}

fn with(status: u16, headers: ResponseHeaders<'static>) -> Exchange<'static> {
    Exchange::Response { status, headers }
}

/// The kind of outcome for every status code, attempt 1 of the reference schedule.
#[test]
fn every_status_code_is_classified_per_the_reference_table() {
    let s = RetrySchedule::reference();
    let c = ctx(&s, 0, 0);
    for status in 0..=1_000u16 {
        let outcome = classify_at(&response(status), &c);
        let expected = match status {
            200..=299 => "delivered",
            300..=399 | 400 | 402..=406 | 408 | 410..=428 | 430..=499 => "permanent",
            401 | 407 | 409 | 429 | 500..=599 => "retry",
            _ => "retry", // 0..=199 and 600.. are protocol errors
        };
        assert_eq!(outcome.as_str(), expected, "status {status}");
    }
}

#[test]
fn permanent_failures_carry_their_reason_and_effects() {
    let s = RetrySchedule::reference();
    let c = ctx(&s, 0, 0);
    let location = ResponseHeaders {
        location: Some("https://elsewhere.example/hook"),
        ..Default::default()
    };
    let cases: Vec<(Exchange<'static>, Outcome)> = vec![
        (
            with(301, location),
            Outcome::Permanent {
                reason: PermanentReason::RedirectNotFollowed,
                error_code: FailureCode::HttpStatus(301),
                disable_endpoint: false,
                health_warning: Some(HealthWarning::RedirectNotFollowed {
                    status: 301,
                    location: Some("https://elsewhere.example/hook".into()),
                }),
            },
        ),
        (
            response(307),
            Outcome::Permanent {
                reason: PermanentReason::RedirectNotFollowed,
                error_code: FailureCode::HttpStatus(307),
                disable_endpoint: false,
                health_warning: Some(HealthWarning::RedirectNotFollowed {
                    status: 307,
                    location: None,
                }),
            },
        ),
        (
            response(410),
            Outcome::Permanent {
                reason: PermanentReason::EndpointGone,
                error_code: FailureCode::HttpStatus(410),
                disable_endpoint: true,
                health_warning: None,
            },
        ),
        (
            response(404),
            Outcome::Permanent {
                reason: PermanentReason::RejectedByEndpoint,
                error_code: FailureCode::HttpStatus(404),
                disable_endpoint: false,
                health_warning: None,
            },
        ),
        (
            response(400),
            Outcome::Permanent {
                reason: PermanentReason::RejectedByEndpoint,
                error_code: FailureCode::HttpStatus(400),
                disable_endpoint: false,
                health_warning: None,
            },
        ),
    ];
    for (result, expected) in cases {
        assert_eq!(classify_at(&result, &c), expected, "{result:?}");
    }
}

#[test]
fn only_a_410_disables_the_endpoint_and_only_a_3xx_warns() {
    let s = RetrySchedule::reference();
    let c = ctx(&s, 0, 0);
    for status in 0..=999u16 {
        if let Outcome::Permanent {
            disable_endpoint,
            health_warning,
            ..
        } = classify_at(&response(status), &c)
        {
            assert_eq!(disable_endpoint, status == 410, "{status}");
            assert_eq!(
                health_warning.is_some(),
                (300..=399).contains(&status),
                "{status}"
            );
        }
    }
}

#[test]
fn transport_errors_are_retried_with_their_kind_as_code() {
    let s = RetrySchedule::reference();
    let c = ctx(&s, 1, 0);
    for kind in ErrorKind::ALL {
        let Some(e) = transport_error(kind) else {
            // The guard refused the target itself: nothing to retry.
            assert!(kind.is_refused_target(), "{kind}");
            assert_eq!(
                classify(&Exchange::Failed(kind), NOW),
                Verdict::DeadLetter(DeadLetterReason::InvalidDestination)
            );
            continue;
        };
        assert!(!kind.is_refused_target(), "{kind}");
        let outcome = classify_at(&Exchange::Failed(kind), &c);
        let expected_at = next_attempt_at(&s, ID, 2, NOW);
        assert_eq!(
            Some(outcome.clone()),
            expected_at.map(|next_attempt_at| Outcome::Retry {
                error_code: FailureCode::Transport(e),
                next_attempt_at
            })
        );
        assert_eq!(
            outcome.error_code().map(|c| c.to_string()).as_deref(),
            Some(e.as_str())
        );
    }
}

#[test]
fn failure_codes_are_stable_strings() {
    assert_eq!(FailureCode::HttpStatus(503).to_string(), "http_503");
    assert_eq!(FailureCode::InvalidStatus.to_string(), "invalid_status");
    assert_eq!(
        FailureCode::Transport(TransportError::BlockedAddress).to_string(),
        "blocked_address"
    );
    assert_eq!(
        classify_at(&response(600), &ctx(&RetrySchedule::reference(), 0, 0)).error_code(),
        Some(FailureCode::InvalidStatus)
    );
}

#[test]
fn retries_follow_the_schedule_and_exhaust_on_the_last_attempt() {
    let s = RetrySchedule::reference();
    for used in 0..10u32 {
        let outcome = classify_at(&response(500), &ctx(&s, used, 0));
        let expected = match next_attempt_at(&s, ID, used + 1, NOW) {
            Some(next_attempt_at) => Outcome::Retry {
                error_code: FailureCode::HttpStatus(500),
                next_attempt_at,
            },
            None => Outcome::Exhausted {
                error_code: FailureCode::HttpStatus(500),
            },
        };
        assert_eq!(outcome, expected, "attempts_used {used}");
        assert_eq!(outcome.as_str() == "exhausted", used == 9);
        assert!(outcome.uses_attempt());
    }
    // Bad input (more attempts used than the schedule has) exhausts, never panics.
    assert_eq!(
        classify_at(&response(500), &ctx(&s, u32::MAX, 0)).as_str(),
        "exhausted"
    );
}

#[test]
fn abort_header_precedence() {
    let s = RetrySchedule::reference();
    let c = ctx(&s, 0, 0);
    let abort = ResponseHeaders {
        webhook_delivery: Some("abort-message"),
        retry_after: Some("60"),
        location: Some("https://x.example"),
    };
    let aborted = |status| Outcome::Permanent {
        reason: PermanentReason::AbortedByConsumer,
        error_code: FailureCode::HttpStatus(status),
        disable_endpoint: false,
        health_warning: None,
    };
    assert_eq!(
        classify_at(&with(200, abort), &c),
        Outcome::Delivered,
        "2xx wins"
    );
    assert_eq!(
        classify_at(&with(204, abort), &c),
        Outcome::Delivered,
        "2xx wins"
    );
    assert!(
        matches!(
            classify_at(&with(410, abort), &c),
            Outcome::Permanent {
                reason: PermanentReason::EndpointGone,
                disable_endpoint: true,
                ..
            }
        ),
        "410 still disables"
    );
    for status in [302, 400, 401, 404, 409, 429, 500, 503, 599] {
        assert_eq!(
            classify_at(&with(status, abort), &c),
            aborted(status),
            "{status}"
        );
    }
    // The last attempt too: abort, not exhausted.
    assert_eq!(classify_at(&with(500, abort), &ctx(&s, 9, 0)), aborted(500));
}

#[test]
fn abort_header_matching() {
    let h = |v: &'static str| ResponseHeaders {
        webhook_delivery: Some(v),
        ..Default::default()
    };
    assert!(h("abort-message").aborts_message());
    assert!(h(" Abort-Message ").aborts_message());
    assert!(h("foo, abort-message").aborts_message());
    assert!(!h("abort").aborts_message());
    assert!(!h("abort-messages").aborts_message());
    assert!(!h("").aborts_message());
    assert!(!ResponseHeaders::default().aborts_message());
}

#[test]
fn headers_are_found_case_insensitively() {
    let pairs = vec![
        ("Content-Type".to_string(), "text/plain".to_string()),
        ("RETRY-AFTER".to_string(), "120".to_string()),
        ("Webhook-Delivery".to_string(), "abort-message".to_string()),
        ("location".to_string(), "/x".to_string()),
        ("retry-after".to_string(), "5".to_string()),
    ];
    let h = ResponseHeaders::from_pairs(&pairs);
    assert_eq!(h.retry_after, Some("120"));
    assert_eq!(h.webhook_delivery, Some("abort-message"));
    assert_eq!(h.location, Some("/x"));
    assert_eq!(ResponseHeaders::from_pairs(&[]), ResponseHeaders::default());
}

#[test]
fn retry_after_parsing() {
    let day = Some(NOW.plus_seconds(86_400));
    let cases: &[(&str, Option<Timestamp>)] = &[
        ("0", Some(NOW)),
        ("120", Some(NOW.plus_seconds(120))),
        (" 120 ", Some(NOW.plus_seconds(120))),
        ("86400", day),
        ("86401", day),
        ("99999999999999999999999999", day),
        ("-5", None),
        ("1.5", None),
        ("", None),
        ("soon", None),
        ("120s", None),
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        ("Tue, 14 Nov 2023 22:15:20 GMT", Some(NOW.plus_seconds(120))),
        (
            "Tuesday, 14-Nov-23 22:15:20 GMT",
            Some(NOW.plus_seconds(120)),
        ),
        ("Tue Nov 14 22:15:20 2023", Some(NOW.plus_seconds(120))),
        ("Tue, 14 Nov 2023 22:13:19 GMT", Some(NOW)),
        ("Thu, 01 Jan 1970 00:00:00 GMT", Some(NOW)),
        ("Tue, 14 Nov 2024 22:13:20 GMT", None), // wrong weekday
        ("Wed, 15 Nov 2023 22:13:20 GMT", day),
        ("Fri, 31 Dec 9999 23:59:59 GMT", day),
        ("Tue, 14 Nov 2023 22:15:20 UTC", None),
    ];
    for (value, expected) in cases {
        assert_eq!(parse_retry_after(value, NOW), *expected, "{value:?}");
    }
    assert_eq!(format_http_date(NOW), "Tue, 14 Nov 2023 22:13:20 GMT");
    assert_eq!(
        format_http_date(Timestamp::from_millis(-1)),
        "Thu, 01 Jan 1970 00:00:00 GMT"
    );
    assert_eq!(
        format_http_date(Timestamp::from_millis(i64::MAX)),
        "Fri, 31 Dec 9999 23:59:59 GMT"
    );
    assert_eq!(
        parse_retry_after(&format_http_date(NOW.plus_seconds(60)), NOW),
        Some(NOW.plus_seconds(60))
    );
}

#[test]
fn retry_after_on_429_and_503_defers_without_using_an_attempt() {
    let s = RetrySchedule::reference();
    let ra = |v: &'static str| ResponseHeaders {
        retry_after: Some(v),
        ..Default::default()
    };
    for status in [429u16, 503] {
        let code = FailureCode::HttpStatus(status);
        // After attempt 3 the schedule waits ~30 min; Retry-After 2 h is later.
        let c = ctx(&s, 2, 0);
        let sched = next_attempt_at(&s, ID, 3, NOW);
        assert_eq!(
            classify_at(&with(status, ra("7200")), &c),
            Outcome::Deferred {
                error_code: code,
                until: NOW.plus_seconds(7_200)
            }
        );
        // Retry-After 10 s is earlier than the schedule: the schedule's time applies.
        let outcome = classify_at(&with(status, ra("10")), &c);
        assert_eq!(
            Some(outcome.clone()),
            sched.map(|until| Outcome::Deferred {
                error_code: code,
                until
            })
        );
        assert!(!outcome.uses_attempt() && outcome.uses_deferral());
        // On the last attempt a deferral still does not exhaust.
        assert_eq!(
            classify_at(&with(status, ra("60")), &ctx(&s, 9, 2)),
            Outcome::Deferred {
                error_code: code,
                until: NOW.plus_seconds(60)
            }
        );
    }
}

#[test]
fn after_three_deferrals_retry_after_counts_as_an_ordinary_retry() {
    let s = RetrySchedule::reference();
    let h = ResponseHeaders {
        retry_after: Some("7200"),
        ..Default::default()
    };
    let code = FailureCode::HttpStatus(429);
    for deferrals in 0..=5u32 {
        let outcome = classify_at(&with(429, h), &ctx(&s, 2, deferrals));
        let expected = if deferrals < MAX_DEFERRALS {
            Outcome::Deferred {
                error_code: code,
                until: NOW.plus_seconds(7_200),
            }
        } else {
            // Still the later of schedule (~30 min) and Retry-After (2 h), but counted.
            Outcome::Retry {
                error_code: code,
                next_attempt_at: NOW.plus_seconds(7_200),
            }
        };
        assert_eq!(outcome, expected, "deferrals_used {deferrals}");
    }
    assert_eq!(
        classify_at(&with(429, h), &ctx(&s, 9, 3)),
        Outcome::Exhausted { error_code: code }
    );
}

#[test]
fn retry_after_is_ignored_on_other_statuses_and_when_unparsable() {
    let s = RetrySchedule::reference();
    let c = ctx(&s, 2, 0);
    let sched = next_attempt_at(&s, ID, 3, NOW);
    for (status, value) in [
        (500u16, "7200"),
        (502, "7200"),
        (401, "7200"),
        (429, "later"),
        (503, ""),
    ] {
        let h = ResponseHeaders {
            retry_after: Some(value),
            ..Default::default()
        };
        assert_eq!(
            Some(classify_at(&with(status, h), &c)),
            sched.map(|next_attempt_at| Outcome::Retry {
                error_code: FailureCode::HttpStatus(status),
                next_attempt_at
            }),
            "{status} {value:?}"
        );
    }
    // 429 without Retry-After is an ordinary retry.
    assert_eq!(classify_at(&response(429), &c).as_str(), "retry");
}

#[test]
fn long_redirect_locations_are_truncated() {
    let long: &'static str = Box::leak("x".repeat(10_000).into_boxed_str());
    let h = ResponseHeaders {
        location: Some(long),
        ..Default::default()
    };
    let Outcome::Permanent {
        health_warning:
            Some(HealthWarning::RedirectNotFollowed {
                location: Some(l), ..
            }),
        ..
    } = classify_at(&with(308, h), &ctx(&RetrySchedule::reference(), 0, 0))
    else {
        panic!("expected a redirect warning");
    };
    assert_eq!(l.len(), MAX_LOCATION_CHARS);
}

proptest::proptest! {
    #[test]
    fn any_response_is_classified_without_panicking(
        status in proptest::num::u16::ANY,
        retry_after in proptest::option::of("\\PC{0,40}"),
        delivery in proptest::option::of("\\PC{0,20}"),
        attempts_used in proptest::num::u32::ANY,
        deferrals_used in proptest::num::u32::ANY,
        now in -10_000_000_000_000i64..=10_000_000_000_000,
    ) {
        let s = RetrySchedule::reference();
        let headers = ResponseHeaders {
            retry_after: retry_after.as_deref(),
            webhook_delivery: delivery.as_deref(),
            location: None,
        };
        let c = AttemptContext { schedule: &s, message_id: ID, attempts_used, deferrals_used, now: Timestamp::from_millis(now) };
        let outcome = classify_at(&Exchange::Response { status, headers }, &c);
        match outcome {
            Outcome::Retry { next_attempt_at, .. } => proptest::prop_assert!(next_attempt_at >= c.now),
            Outcome::Deferred { until, .. } => {
                proptest::prop_assert!(until >= c.now);
                proptest::prop_assert!(deferrals_used < MAX_DEFERRALS);
            }
            _ => {}
        }
    }
}

/// A failed token fetch: the verdict and the health warning, per failure.
#[test]
fn token_failures_are_retried_and_a_refusal_warns() {
    use relay_core::outcome::{OAuthError, TokenFailure};
    let token = |failure, transport| Exchange::TokenFailed { failure, transport };
    let retry = |f| Verdict::Retry {
        code: FailureCode::Token(f),
        not_before: None,
    };
    let warn = |failure| Some(HealthWarning::TokenRefused { failure });
    let unreachable = TokenFailure::Unreachable;
    let mut cases: Vec<(Exchange<'static>, Verdict, Option<HealthWarning>)> = vec![];
    for kind in [
        ErrorKind::Connect,
        ErrorKind::Dns,
        ErrorKind::Timeout,
        ErrorKind::Tls,
        ErrorKind::BlockedAddress,
        ErrorKind::Http,
        ErrorKind::Protocol,
    ] {
        cases.push((token(unreachable, Some(kind)), retry(unreachable), None));
    }
    for kind in [
        ErrorKind::InvalidUrl,
        ErrorKind::SchemeNotAllowed,
        ErrorKind::CredentialsInUrl,
        ErrorKind::PortNotAllowed,
    ] {
        cases.push((
            token(unreachable, Some(kind)),
            Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            None,
        ));
    }
    for status in [500, 502, 503, 504, 408, 429] {
        let f = TokenFailure::HttpStatus(status);
        cases.push((token(f, None), retry(f), None));
    }
    for status in [301, 400, 401, 403, 404, 405] {
        let f = TokenFailure::HttpStatus(status);
        cases.push((token(f, None), retry(f), warn(f)));
    }
    for e in OAuthError::ALL {
        let f = TokenFailure::OAuth(e);
        cases.push((token(f, None), retry(f), warn(f)));
    }
    let f = TokenFailure::InvalidResponse;
    cases.push((token(f, None), retry(f), warn(f)));
    for (exchange, verdict, warning) in cases {
        assert_eq!(classify(&exchange, NOW), verdict, "{exchange:?}");
        assert_eq!(health_warning(&exchange), warning, "{exchange:?}");
    }
    // The endpoint's own answers warn only through their verdict.
    assert_eq!(health_warning(&response(401)), None);
    assert_eq!(health_warning(&response(302)), None);
    assert_eq!(health_warning(&Exchange::Failed(ErrorKind::Connect)), None);
}
