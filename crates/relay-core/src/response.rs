//! Classification of one delivery attempt into an [`Outcome`].
//!
//! This is the reference's "Response handling" table and the `Retry-After`
//! rule of its "Retry schedule" section, as one pure function, [`classify`]:
//!
//! | Result | Outcome |
//! |---|---|
//! | 2xx | [`Outcome::Delivered`] |
//! | 3xx | permanent, `redirect_not_followed`, with a [`HealthWarning`]; redirects are never followed |
//! | 410 | permanent, `endpoint_gone`, and the endpoint is disabled at once |
//! | 401, 407, 409, 429, 5xx | retried |
//! | other 4xx | permanent, `rejected_by_endpoint` |
//! | connect, dns, timeout, tls, blocked_address, protocol errors | retried |
//! | `webhook-delivery: abort-message` on a non-2xx response | permanent, `aborted_by_consumer` |
//! | 1xx or a status outside 100..=599 | retried as a protocol error (`invalid_status`) |
//!
//! A retried failure becomes [`Outcome::Retry`] at the schedule's next time,
//! or [`Outcome::Exhausted`] when the schedule has no attempt left.
//!
//! # Precedence
//!
//! - **2xx wins over an abort.** The reference calls the header a way to
//!   "stop retries"; a 2xx has none left to stop, and the consumer accepted the
//!   event, so the message is `delivered` and the header is ignored.
//! - **410 wins over an abort**: the message is permanently failed either way,
//!   and 410 also disables the endpoint, which the abort header must not be
//!   able to prevent.
//! - **An abort wins over every other status** (3xx, 4xx, 5xx, 429 with
//!   `Retry-After`): the consumer said explicitly not to try again.
//!
//! # `Retry-After` deferrals
//!
//! On 429 and 503 with a usable `Retry-After` (delay-seconds, or an HTTP date
//! in any of the three formats HTTP allows), the next attempt is at the later
//! of the schedule's next time and the `Retry-After` time. The schedule's next
//! time is the one the failure would get as an ordinary retry; when that was
//! the last attempt, only `Retry-After` counts. `Retry-After` is honoured up to
//! [`MAX_RETRY_AFTER_SECONDS`] from now; a date in the past counts as now.
//!
//! While the message has used fewer than [`MAX_DEFERRALS`] deferrals, such a
//! response is [`Outcome::Deferred`]: it does not use up an attempt (so even a
//! 429 on the last attempt is deferred rather than exhausted). From the fourth
//! on, it is an ordinary retry that counts, still at the later of the two
//! times, and can exhaust the schedule. A missing or unparsable `Retry-After`
//! makes 429/503 ordinary retries.

use std::fmt;
use std::time::{Duration, UNIX_EPOCH};

use crate::retry::{RetrySchedule, next_attempt_at};
use crate::time::Timestamp;

/// `Retry-After` deferrals that do not use up an attempt, per message.
pub const MAX_DEFERRALS: u32 = 3;

/// The longest `Retry-After` honoured (24 h, the longest reference wait). A
/// consumer cannot park a message for longer than this with one response.
pub const MAX_RETRY_AFTER_SECONDS: u64 = 86_400;

/// How an attempt failed without a usable HTTP response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportError {
    /// The TCP connection could not be made (refused, reset, unreachable).
    Connect,
    /// The host name did not resolve.
    Dns,
    /// The connect or the whole-request timeout passed.
    Timeout,
    /// The TLS handshake failed (certificate, protocol, SNI).
    Tls,
    /// The outbound guard refused every address the name resolved to.
    BlockedAddress,
    /// The peer broke HTTP (malformed response, closed mid-response).
    Protocol,
}

impl TransportError {
    pub const ALL: [TransportError; 6] = [
        TransportError::Connect,
        TransportError::Dns,
        TransportError::Timeout,
        TransportError::Tls,
        TransportError::BlockedAddress,
        TransportError::Protocol,
    ];

    /// The stable `error_kind` recorded on the attempt.
    pub const fn as_str(self) -> &'static str {
        match self {
            TransportError::Connect => "connect",
            TransportError::Dns => "dns",
            TransportError::Timeout => "timeout",
            TransportError::Tls => "tls",
            TransportError::BlockedAddress => "blocked_address",
            TransportError::Protocol => "protocol",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.as_str() == s)
    }
}

/// The response headers that matter for classification, already picked out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResponseHeaders<'a> {
    /// `Retry-After`.
    pub retry_after: Option<&'a str>,
    /// `webhook-delivery`.
    pub webhook_delivery: Option<&'a str>,
    /// `Location`, kept for the redirect health warning.
    pub location: Option<&'a str>,
}

impl<'a> ResponseHeaders<'a> {
    /// Picks the relevant headers out of name/value pairs (names compared
    /// case-insensitively; the first occurrence of each wins).
    pub fn from_pairs(pairs: &'a [(String, String)]) -> Self {
        let find = |name: &str| {
            pairs
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        ResponseHeaders {
            retry_after: find("retry-after"),
            webhook_delivery: find("webhook-delivery"),
            location: find("location"),
        }
    }

    /// True when `webhook-delivery` carries the token `abort-message`
    /// (case-insensitive, as one element of a comma-separated list).
    pub fn aborts_message(&self) -> bool {
        self.webhook_delivery.is_some_and(|v| {
            v.split(',')
                .any(|token| token.trim().eq_ignore_ascii_case("abort-message"))
        })
    }
}

/// What came back from one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptResult<'a> {
    /// An HTTP response with this status code.
    Response {
        status: u16,
        headers: ResponseHeaders<'a>,
    },
    /// No usable response.
    NoResponse(TransportError),
}

/// Where the message stands when its attempt finished.
#[derive(Debug, Clone, Copy)]
pub struct AttemptContext<'a> {
    pub schedule: &'a RetrySchedule,
    pub message_id: &'a str,
    /// Attempts that counted against the schedule before this one.
    pub attempts_used: u32,
    /// `Retry-After` deferrals used before this one.
    pub deferrals_used: u32,
    /// When the attempt finished.
    pub now: Timestamp,
}

/// Why an attempt failed, as recorded in `last_error_code`: `http_<status>`
/// for a response, the transport error kind otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureCode {
    HttpStatus(u16),
    /// A status outside 200..=599 that HTTP does not allow as a final answer.
    InvalidStatus(u16),
    Transport(TransportError),
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCode::HttpStatus(s) => write!(f, "http_{s}"),
            FailureCode::InvalidStatus(_) => f.write_str("invalid_status"),
            FailureCode::Transport(e) => f.write_str(e.as_str()),
        }
    }
}

/// Why a message failed permanently (`terminal_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PermanentReason {
    /// A 3xx: redirects are not followed.
    RedirectNotFollowed,
    /// A 410: the endpoint is gone.
    EndpointGone,
    /// A 4xx other than 401, 407, 409, 410, 429.
    RejectedByEndpoint,
    /// `webhook-delivery: abort-message`.
    AbortedByConsumer,
}

impl PermanentReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            PermanentReason::RedirectNotFollowed => "redirect_not_followed",
            PermanentReason::EndpointGone => "endpoint_gone",
            PermanentReason::RejectedByEndpoint => "rejected_by_endpoint",
            PermanentReason::AbortedByConsumer => "aborted_by_consumer",
        }
    }
}

/// Something about the endpoint the tenant should be told, beyond this message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HealthWarning {
    /// The endpoint answered with a redirect, which Relay does not follow.
    RedirectNotFollowed {
        status: u16,
        /// The `Location` it pointed to, at most [`MAX_LOCATION_CHARS`] characters.
        location: Option<String>,
    },
}

/// The longest `Location` kept in a health warning.
pub const MAX_LOCATION_CHARS: usize = 2_048;

impl HealthWarning {
    pub const fn code(&self) -> &'static str {
        match self {
            HealthWarning::RedirectNotFollowed { .. } => "redirect_not_followed",
        }
    }
}

/// What to do with a message after one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// 2xx: done.
    Delivered,
    /// A retried failure that used up an attempt; try again at `next_attempt_at`.
    Retry {
        error_code: FailureCode,
        next_attempt_at: Timestamp,
    },
    /// A `Retry-After` deferral: try again at `until`; no attempt was used up,
    /// one deferral was.
    Deferred {
        error_code: FailureCode,
        until: Timestamp,
    },
    /// A retried failure on the schedule's last attempt.
    Exhausted { error_code: FailureCode },
    /// Not retried.
    Permanent {
        reason: PermanentReason,
        error_code: FailureCode,
        /// Disable the endpoint at once (410).
        disable_endpoint: bool,
        health_warning: Option<HealthWarning>,
    },
}

impl Outcome {
    /// The attempt record's `outcome`: `delivered`, `retry`, `deferred`,
    /// `exhausted` or `permanent`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Outcome::Delivered => "delivered",
            Outcome::Retry { .. } => "retry",
            Outcome::Deferred { .. } => "deferred",
            Outcome::Exhausted { .. } => "exhausted",
            Outcome::Permanent { .. } => "permanent",
        }
    }

    /// Whether the attempt counts against the schedule (everything but a deferral).
    pub const fn uses_attempt(&self) -> bool {
        !matches!(self, Outcome::Deferred { .. })
    }

    /// Whether the attempt used one of the message's deferrals.
    pub const fn uses_deferral(&self) -> bool {
        matches!(self, Outcome::Deferred { .. })
    }

    /// Whether this is a success.
    pub const fn is_success(&self) -> bool {
        matches!(self, Outcome::Delivered)
    }

    /// The failure code, for `last_error_code`; `None` on success.
    pub const fn error_code(&self) -> Option<FailureCode> {
        match self {
            Outcome::Delivered => None,
            Outcome::Retry { error_code, .. }
            | Outcome::Deferred { error_code, .. }
            | Outcome::Exhausted { error_code }
            | Outcome::Permanent { error_code, .. } => Some(*error_code),
        }
    }
}

/// Classifies one attempt. See the module documentation for the rules.
pub fn classify(result: &AttemptResult<'_>, ctx: &AttemptContext<'_>) -> Outcome {
    let (status, headers) = match *result {
        AttemptResult::NoResponse(e) => return retry(FailureCode::Transport(e), None, ctx),
        AttemptResult::Response { status, headers } => (status, headers),
    };
    let code = if (200..=599).contains(&status) {
        FailureCode::HttpStatus(status)
    } else {
        FailureCode::InvalidStatus(status)
    };
    let permanent = |reason, disable_endpoint, health_warning| Outcome::Permanent {
        reason,
        error_code: code,
        disable_endpoint,
        health_warning,
    };
    match status {
        200..=299 => Outcome::Delivered,
        410 => permanent(PermanentReason::EndpointGone, true, None),
        _ if headers.aborts_message() => permanent(PermanentReason::AbortedByConsumer, false, None),
        300..=399 => permanent(
            PermanentReason::RedirectNotFollowed,
            false,
            Some(HealthWarning::RedirectNotFollowed {
                status,
                location: headers
                    .location
                    .map(|l| l.chars().take(MAX_LOCATION_CHARS).collect()),
            }),
        ),
        429 | 503 => {
            let retry_after = headers
                .retry_after
                .and_then(|v| parse_retry_after(v, ctx.now));
            retry(code, retry_after, ctx)
        }
        401 | 407 | 409 | 500..=599 => retry(code, None, ctx),
        400..=499 => permanent(PermanentReason::RejectedByEndpoint, false, None),
        _ => retry(code, None, ctx),
    }
}

/// A retried failure, with the time `Retry-After` asks for when there is one.
fn retry(
    error_code: FailureCode,
    retry_after: Option<Timestamp>,
    ctx: &AttemptContext<'_>,
) -> Outcome {
    let scheduled = ctx
        .attempts_used
        .checked_add(1)
        .and_then(|used| next_attempt_at(ctx.schedule, ctx.message_id, used, ctx.now));
    match retry_after {
        Some(after) if ctx.deferrals_used < MAX_DEFERRALS => Outcome::Deferred {
            error_code,
            until: scheduled.map_or(after, |s| s.max(after)),
        },
        Some(after) => match scheduled {
            Some(s) => Outcome::Retry {
                error_code,
                next_attempt_at: s.max(after),
            },
            None => Outcome::Exhausted { error_code },
        },
        None => match scheduled {
            Some(next_attempt_at) => Outcome::Retry {
                error_code,
                next_attempt_at,
            },
            None => Outcome::Exhausted { error_code },
        },
    }
}

/// Parses a `Retry-After` value (delay-seconds or an HTTP date) into the time
/// it names, capped at [`MAX_RETRY_AFTER_SECONDS`] from `now`. A date in the
/// past gives `now`. `None` when the value is neither form.
pub fn parse_retry_after(value: &str, now: Timestamp) -> Option<Timestamp> {
    let value = value.trim();
    let cap = now.plus_seconds(MAX_RETRY_AFTER_SECONDS as i64);
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Any run of digits is valid; a huge one is simply capped.
        let seconds = value
            .parse::<u64>()
            .unwrap_or(u64::MAX)
            .min(MAX_RETRY_AFTER_SECONDS);
        return Some(now.plus_seconds(seconds as i64));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    let millis = match date.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(_) => return Some(now),
    };
    Some(Timestamp::from_millis(millis).clamp(now, cap))
}

/// An HTTP date (IMF-fixdate) for `t`, e.g. for tests and receivers. Times
/// outside 1970..=9999 are clamped to that range.
pub fn format_http_date(t: Timestamp) -> String {
    // httpdate cannot format the year 10000 or later.
    const LAST_MILLI_OF_9999: i64 = 253_402_300_799_999;
    let millis = u64::try_from(t.millis().clamp(0, LAST_MILLI_OF_9999)).unwrap_or(0);
    httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_millis(millis))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "msg_01JC8ZQ4Z8Y3V6X7W5T2R1P0NM";
    const NOW: Timestamp = Timestamp::from_millis(1_700_000_000_000);

    fn ctx(
        schedule: &RetrySchedule,
        attempts_used: u32,
        deferrals_used: u32,
    ) -> AttemptContext<'_> {
        AttemptContext {
            schedule,
            message_id: ID,
            attempts_used,
            deferrals_used,
            now: NOW,
        }
    }

    fn response(status: u16) -> AttemptResult<'static> {
        AttemptResult::Response {
            status,
            headers: ResponseHeaders::default(),
        }
    }

    fn with(status: u16, headers: ResponseHeaders<'static>) -> AttemptResult<'static> {
        AttemptResult::Response { status, headers }
    }

    /// The kind of outcome for every status code, attempt 1 of the reference schedule.
    #[test]
    fn every_status_code_is_classified_per_the_reference_table() {
        let s = RetrySchedule::reference();
        let c = ctx(&s, 0, 0);
        for status in 0..=1_000u16 {
            let outcome = classify(&response(status), &c);
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
        let cases: Vec<(AttemptResult<'static>, Outcome)> = vec![
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
            assert_eq!(classify(&result, &c), expected, "{result:?}");
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
            } = classify(&response(status), &c)
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
        for e in TransportError::ALL {
            let outcome = classify(&AttemptResult::NoResponse(e), &c);
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
            assert_eq!(TransportError::parse(e.as_str()), Some(e));
        }
        assert_eq!(TransportError::parse("nope"), None);
    }

    #[test]
    fn failure_codes_are_stable_strings() {
        assert_eq!(FailureCode::HttpStatus(503).to_string(), "http_503");
        assert_eq!(
            FailureCode::InvalidStatus(999).to_string(),
            "invalid_status"
        );
        assert_eq!(
            FailureCode::Transport(TransportError::BlockedAddress).to_string(),
            "blocked_address"
        );
        assert_eq!(
            classify(&response(600), &ctx(&RetrySchedule::reference(), 0, 0)).error_code(),
            Some(FailureCode::InvalidStatus(600))
        );
    }

    #[test]
    fn retries_follow_the_schedule_and_exhaust_on_the_last_attempt() {
        let s = RetrySchedule::reference();
        for used in 0..10u32 {
            let outcome = classify(&response(500), &ctx(&s, used, 0));
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
            classify(&response(500), &ctx(&s, u32::MAX, 0)).as_str(),
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
            classify(&with(200, abort), &c),
            Outcome::Delivered,
            "2xx wins"
        );
        assert_eq!(
            classify(&with(204, abort), &c),
            Outcome::Delivered,
            "2xx wins"
        );
        assert!(
            matches!(
                classify(&with(410, abort), &c),
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
                classify(&with(status, abort), &c),
                aborted(status),
                "{status}"
            );
        }
        // The last attempt too: abort, not exhausted.
        assert_eq!(classify(&with(500, abort), &ctx(&s, 9, 0)), aborted(500));
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
                classify(&with(status, ra("7200")), &c),
                Outcome::Deferred {
                    error_code: code,
                    until: NOW.plus_seconds(7_200)
                }
            );
            // Retry-After 10 s is earlier than the schedule: the schedule's time applies.
            let outcome = classify(&with(status, ra("10")), &c);
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
                classify(&with(status, ra("60")), &ctx(&s, 9, 2)),
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
            let outcome = classify(&with(429, h), &ctx(&s, 2, deferrals));
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
            classify(&with(429, h), &ctx(&s, 9, 3)),
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
                Some(classify(&with(status, h), &c)),
                sched.map(|next_attempt_at| Outcome::Retry {
                    error_code: FailureCode::HttpStatus(status),
                    next_attempt_at
                }),
                "{status} {value:?}"
            );
        }
        // 429 without Retry-After is an ordinary retry.
        assert_eq!(classify(&response(429), &c).as_str(), "retry");
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
        } = classify(&with(308, h), &ctx(&RetrySchedule::reference(), 0, 0))
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
            let outcome = classify(&AttemptResult::Response { status, headers }, &c);
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
}
