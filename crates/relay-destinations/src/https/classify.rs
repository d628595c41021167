//! The HTTPS kind's classification of one attempt into a [`Verdict`].
//!
//! This is the reference's "Response handling" table and the `Retry-After`
//! rule of its "Retry schedule" section, as one pure function, [`classify`]
//! (the schedule, exhaustion and the deferral count are applied to the
//! verdict by [`relay_core::outcome::resolve`], the same for every kind):
//!
//! | Result | Outcome |
//! |---|---|
//! | 2xx | [`relay_core::outcome::Outcome::Delivered`] |
//! | 3xx | permanent, `redirect_not_followed`, with a `HealthWarning`; redirects are never followed |
//! | 410 | permanent, `endpoint_gone`, and the endpoint is disabled at once |
//! | 401, 407, 409, 429, 5xx | retried |
//! | other 4xx | permanent, `rejected_by_endpoint` |
//! | connect, dns, timeout, tls, blocked_address, protocol errors | retried |
//! | a target the guard now refuses (invalid URL, scheme, port, credentials) | dead-lettered, `invalid_destination` |
//! | `webhook-delivery: abort-message` on a non-2xx response | permanent, `aborted_by_consumer` |
//! | 1xx or a status outside 100..=599 | retried as a protocol error (`invalid_status`) |
//! | OAuth 2.0 token endpoint unreachable (connect, dns, timeout, tls, blocked address, protocol) | retried, `token_unreachable` |
//! | token endpoint answers 5xx, 408 or 429 without an OAuth error code | retried, `token_http_<status>` |
//! | token endpoint answers an OAuth error (`invalid_client`, `unauthorized_client`, `invalid_scope`, …), a 3xx or another 4xx, or no usable token | retried, `token_<error>` / `token_http_<status>` / `token_invalid_response`, with a `HealthWarning` (the configuration needs a fix, as an endpoint's 401 does) |
//! | a token URL the guard now refuses | dead-lettered, `invalid_destination` |
//!
//! A retried failure becomes `Outcome::Retry` at the schedule's next time,
//! or `Outcome::Exhausted` when the schedule has no attempt left.
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
//! While the message has used fewer than [`relay_core::outcome::MAX_DEFERRALS`] deferrals, such a
//! response is `Outcome::Deferred`: it does not use up an attempt (so even a
//! 429 on the last attempt is deferred rather than exhausted). From the fourth
//! on, it is an ordinary retry that counts, still at the later of the two
//! times, and can exhaust the schedule. A missing or unparsable `Retry-After`
//! makes 429/503 ordinary retries.

use std::time::{Duration, UNIX_EPOCH};

use relay_core::outcome::{
    FailureCode, HealthWarning, MAX_LOCATION_CHARS, PermanentReason, TokenFailure, Verdict,
};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_net::ErrorKind;

pub use crate::transport_error;

/// The longest `Retry-After` honoured (24 h, the longest reference wait). A
/// consumer cannot park a message for longer than this with one response.
pub const MAX_RETRY_AFTER_SECONDS: u64 = 86_400;

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
pub enum Exchange<'a> {
    /// An HTTP response with this status code.
    Response {
        status: u16,
        headers: ResponseHeaders<'a>,
    },
    /// No usable response: the guard's or the connection's error kind.
    Failed(ErrorKind),
    /// The OAuth 2.0 token could not be fetched (the endpoint was not
    /// tried): how, and the error kind when the token endpoint gave no answer.
    TokenFailed {
        failure: TokenFailure,
        transport: Option<ErrorKind>,
    },
}

/// Classifies one attempt. See the module documentation for the rules.
pub fn classify(result: &Exchange<'_>, now: Timestamp) -> Verdict {
    let retry = |code, not_before| Verdict::Retry { code, not_before };
    let (status, headers) = match *result {
        Exchange::Failed(kind) => {
            return match transport_error(kind) {
                Some(e) => retry(FailureCode::Transport(e), None),
                None => Verdict::DeadLetter(DeadLetterReason::InvalidDestination),
            };
        }
        Exchange::Response { status, headers } => (status, headers),
        Exchange::TokenFailed { failure, transport } => {
            if transport.is_some_and(|k| transport_error(k).is_none()) {
                return Verdict::DeadLetter(DeadLetterReason::InvalidDestination);
            }
            return retry(FailureCode::Token(failure), None);
        }
    };
    let code = if (200..=599).contains(&status) {
        FailureCode::HttpStatus(status)
    } else {
        FailureCode::InvalidStatus
    };
    let permanent = |reason, disable_endpoint, health_warning| Verdict::Permanent {
        reason,
        code,
        disable_endpoint,
        health_warning,
    };
    match status {
        200..=299 => Verdict::Delivered,
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
            let retry_after = headers.retry_after.and_then(|v| parse_retry_after(v, now));
            retry(code, retry_after)
        }
        401 | 407 | 409 | 500..=599 => retry(code, None),
        400..=499 => permanent(PermanentReason::RejectedByEndpoint, false, None),
        _ => retry(code, None),
    }
}

/// The health warning an attempt's result calls for beside its verdict:
/// a token endpoint that refused the client's credentials or request (an
/// OAuth error code, a 3xx or a 4xx other than 408 and 429, or an answer without a
/// usable token). Redirect warnings come with their permanent verdict.
pub fn health_warning(result: &Exchange<'_>) -> Option<HealthWarning> {
    match *result {
        Exchange::TokenFailed { failure, .. } => match failure {
            TokenFailure::OAuth(_) | TokenFailure::InvalidResponse => {
                Some(HealthWarning::TokenRefused { failure })
            }
            TokenFailure::HttpStatus(s) if (300..=499).contains(&s) && s != 408 && s != 429 => {
                Some(HealthWarning::TokenRefused { failure })
            }
            TokenFailure::HttpStatus(_) | TokenFailure::Unreachable => None,
        },
        _ => None,
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
mod tests;
