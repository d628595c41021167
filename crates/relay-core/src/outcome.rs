//! What an attempt means for its message, for every destination kind.
//!
//! Each destination kind classifies its own result (for HTTPS, the
//! reference's response table in `relay-destinations/src/https/classify.rs`)
//! into a [`Verdict`]: delivered, retry (with an optional earliest time the
//! destination asked for), permanent with a reason (HTTPS), rejected by the
//! destination (a broker's or object store's refusal: dead-lettered, the
//! attempt counted), or dead-lettered with a reason. [`resolve`] turns a verdict into the message's [`Outcome`] by the
//! rules that are the same for every kind: the retry schedule, exhaustion on
//! its last attempt, and deferrals.
//!
//! # Deferrals
//!
//! A retry that names an earliest time (HTTPS: `Retry-After` on 429 and 503)
//! is tried again at the later of the schedule's next time and that time.
//! The schedule's next time is the one the failure would get as an ordinary
//! retry; when that was the last attempt, only the earliest time counts.
//! While the message has used fewer than [`MAX_DEFERRALS`] deferrals, it is
//! [`Outcome::Deferred`]: it does not use up an attempt (so even the last
//! attempt is deferred rather than exhausted). From the fourth on, it is an
//! ordinary retry that counts, still at the later of the two times, and can
//! exhaust the schedule.

use std::fmt;

use crate::retry::{RetrySchedule, next_attempt_at};
use crate::time::Timestamp;
use crate::transition::DeadLetterReason;

mod token;
pub use token::{OAuthError, TokenFailure};

/// Deferrals that do not use up an attempt, per message.
pub const MAX_DEFERRALS: u32 = 3;

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

/// Why an attempt failed, as recorded in the attempt's `error_code` and the
/// message's `last_error_code`: `http_<status>` for a response, the
/// transport error kind otherwise. [`FailureCode::parse`] reads back what
/// `Display` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureCode {
    HttpStatus(u16),
    /// A status outside 200..=599 that HTTP does not allow as a final answer
    /// (the status itself is in the attempt's detail).
    InvalidStatus,
    Transport(TransportError),
    /// A broker's or queue's refusal (no HTTP status to name it).
    Refused(Refusal),
    /// A secret reference of the endpoint's destination did not resolve
    /// (a tenant secret deleted, an environment variable unset, a file
    /// unreadable, or a value the destination cannot use): nothing was sent.
    SecretUnresolved,
    /// The OAuth 2.0 token the request needed could not be fetched (the
    /// endpoint itself was not tried).
    Token(TokenFailure),
}

/// How a broker, stream or queue refused a message, for every such kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The credentials were refused (retried: they can be fixed).
    AuthRefused,
    /// The destination cannot take it now (out of memory, loading, busy, read-only replica).
    Unavailable,
    /// A negative acknowledgement.
    Nack,
    /// Nothing would receive it (an unroutable publish).
    Unroutable,
    /// Larger than the destination accepts.
    TooLarge,
    /// The stream, exchange, topic or queue does not exist or is of another type.
    UnknownTarget,
    /// Refused for another reason the destination named.
    Rejected,
}

impl Refusal {
    pub const ALL: [Refusal; 7] = [
        Refusal::AuthRefused,
        Refusal::Unavailable,
        Refusal::Nack,
        Refusal::Unroutable,
        Refusal::TooLarge,
        Refusal::UnknownTarget,
        Refusal::Rejected,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Refusal::AuthRefused => "auth_refused",
            Refusal::Unavailable => "unavailable",
            Refusal::Nack => "nack",
            Refusal::Unroutable => "unroutable",
            Refusal::TooLarge => "message_too_large",
            Refusal::UnknownTarget => "unknown_target",
            Refusal::Rejected => "rejected",
        }
    }
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCode::HttpStatus(s) => write!(f, "http_{s}"),
            FailureCode::InvalidStatus => f.write_str("invalid_status"),
            FailureCode::SecretUnresolved => f.write_str("secret_unresolved"),
            FailureCode::Refused(r) => f.write_str(r.as_str()),
            FailureCode::Transport(e) => f.write_str(e.as_str()),
            FailureCode::Token(t) => t.fmt(f),
        }
    }
}

impl FailureCode {
    /// The code from its stable string (`http_503`, `invalid_status`, `timeout`, …).
    pub fn parse(s: &str) -> Option<Self> {
        if s == "invalid_status" {
            return Some(FailureCode::InvalidStatus);
        }
        if s == "secret_unresolved" {
            return Some(FailureCode::SecretUnresolved);
        }
        if let Some(status) = s.strip_prefix("http_") {
            let status: u16 = status.parse().ok()?;
            return (200..=599)
                .contains(&status)
                .then_some(FailureCode::HttpStatus(status));
        }
        if let Some(r) = Refusal::ALL.into_iter().find(|r| r.as_str() == s) {
            return Some(FailureCode::Refused(r));
        }
        if let Some(t) = TokenFailure::parse(s) {
            return Some(FailureCode::Token(t));
        }
        TransportError::parse(s).map(FailureCode::Transport)
    }
}

impl serde::Serialize for FailureCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for FailureCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        FailureCode::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown failure code {s:?}")))
    }
}

impl utoipa::PartialSchema for FailureCode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some(
                "Why the attempt failed: `http_<status>` for an HTTP answer, `invalid_status`, \
                 a transport kind (`connect`, `dns`, `timeout`, `tls`, `blocked_address`, `protocol`), \
                 a destination's refusal (`auth_refused`, `unavailable`, `nack`, `unroutable`, \
                 `message_too_large`, `unknown_target`, `rejected`), `secret_unresolved` \
                 (a secret reference of the destination did not resolve; nothing was sent), \
                 or an OAuth 2.0 token fetch that failed (`token_unreachable`, \
                 `token_http_<status>`, `token_<OAuth error code>`, `token_invalid_response`; \
                 nothing was sent).",
            ))
            .into()
    }
}

impl utoipa::ToSchema for FailureCode {}

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
    /// The OAuth 2.0 token endpoint refused the endpoint's client
    /// credentials or its request (an OAuth error code, or a 4xx without
    /// one, or an answer without a token): the configuration needs a fix.
    TokenRefused {
        /// The failure, as its code says it.
        failure: TokenFailure,
    },
}

/// The longest `Location` kept in a health warning.
pub const MAX_LOCATION_CHARS: usize = 2_048;

impl HealthWarning {
    /// The endpoint warning it is written as.
    pub const fn kind(&self) -> crate::model::WarningKind {
        match self {
            HealthWarning::RedirectNotFollowed { .. } => {
                crate::model::WarningKind::RedirectNotFollowed
            }
            HealthWarning::TokenRefused { .. } => crate::model::WarningKind::OauthTokenRefused,
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
    /// The destination refused the message itself (a broker, stream,
    /// queue or object store; never an HTTPS answer, which is
    /// [`Outcome::Permanent`]): the reference's `dead_lettered`, "rejected
    /// by the destination". The attempt was made on the wire, so it counts
    /// and is recorded with its code; the message ends `dead_lettered`.
    DeadLettered {
        reason: DeadLetterReason,
        error_code: FailureCode,
    },
}

impl Outcome {
    /// The attempt record's `outcome`: `delivered`, `retry`, `deferred`,
    /// `exhausted`, `permanent` or `dead_lettered`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Outcome::Delivered => "delivered",
            Outcome::Retry { .. } => "retry",
            Outcome::Deferred { .. } => "deferred",
            Outcome::Exhausted { .. } => "exhausted",
            Outcome::Permanent { .. } => "permanent",
            Outcome::DeadLettered { .. } => "dead_lettered",
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
            | Outcome::Permanent { error_code, .. }
            | Outcome::DeadLettered { error_code, .. } => Some(*error_code),
        }
    }
}

/// What one attempt meant for its message: `delivered`, `retry`,
/// `deferred` (a retry the destination timed, which used no attempt),
/// `exhausted` (a retry on the schedule's last attempt), `permanent`, or
/// `dead_lettered` (the destination refused the message, or is no longer
/// acceptable).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AttemptOutcome {
    Delivered,
    Retry,
    Deferred,
    Exhausted,
    Permanent,
    DeadLettered,
}

impl AttemptOutcome {
    pub const ALL: [AttemptOutcome; 6] = [
        AttemptOutcome::Delivered,
        AttemptOutcome::Retry,
        AttemptOutcome::Deferred,
        AttemptOutcome::Exhausted,
        AttemptOutcome::Permanent,
        AttemptOutcome::DeadLettered,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            AttemptOutcome::Delivered => "delivered",
            AttemptOutcome::Retry => "retry",
            AttemptOutcome::Deferred => "deferred",
            AttemptOutcome::Exhausted => "exhausted",
            AttemptOutcome::Permanent => "permanent",
            AttemptOutcome::DeadLettered => "dead_lettered",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_str() == s)
    }
}

impl From<&Outcome> for AttemptOutcome {
    fn from(o: &Outcome) -> Self {
        match o {
            Outcome::Delivered => AttemptOutcome::Delivered,
            Outcome::Retry { .. } => AttemptOutcome::Retry,
            Outcome::Deferred { .. } => AttemptOutcome::Deferred,
            Outcome::Exhausted { .. } => AttemptOutcome::Exhausted,
            Outcome::Permanent { .. } => AttemptOutcome::Permanent,
            Outcome::DeadLettered { .. } => AttemptOutcome::DeadLettered,
        }
    }
}

/// What one destination kind's classification says of one attempt, before
/// the schedule is applied ([`resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The destination took responsibility for the message.
    Delivered,
    /// A failure worth retrying. `not_before`: the earliest time the
    /// destination asked for (a deferral while deferrals remain).
    Retry {
        code: FailureCode,
        not_before: Option<Timestamp>,
    },
    /// A failure no retry can fix.
    Permanent {
        reason: PermanentReason,
        code: FailureCode,
        /// Disable the endpoint at once (HTTPS: 410).
        disable_endpoint: bool,
        health_warning: Option<HealthWarning>,
    },
    /// The destination refused the message itself, on the wire (a broker,
    /// stream, queue or object store: a refusal no retry changes). The
    /// message ends `dead_lettered` with `reason` (the reference's
    /// "rejected by the destination"); the attempt counts and keeps `code`.
    Rejected {
        reason: DeadLetterReason,
        code: FailureCode,
    },
    /// No attempt can succeed with this destination as it is configured.
    DeadLetter(DeadLetterReason),
}

/// A verdict with the schedule applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The attempt completes the message's step with this outcome.
    Complete(Outcome),
    /// The message is dead-lettered.
    DeadLetter(DeadLetterReason),
}

/// Applies the schedule and the deferral rule to a kind's verdict.
pub fn resolve(verdict: Verdict, ctx: &AttemptContext<'_>) -> Resolved {
    Resolved::Complete(match verdict {
        Verdict::Delivered => Outcome::Delivered,
        Verdict::Retry { code, not_before } => retry(code, not_before, ctx),
        Verdict::Permanent {
            reason,
            code,
            disable_endpoint,
            health_warning,
        } => Outcome::Permanent {
            reason,
            error_code: code,
            disable_endpoint,
            health_warning,
        },
        Verdict::Rejected { reason, code } => Outcome::DeadLettered {
            reason,
            error_code: code,
        },
        Verdict::DeadLetter(reason) => return Resolved::DeadLetter(reason),
    })
}

/// A retried failure, with the earliest time the destination asked for.
fn retry(
    error_code: FailureCode,
    not_before: Option<Timestamp>,
    ctx: &AttemptContext<'_>,
) -> Outcome {
    let scheduled = ctx
        .attempts_used
        .checked_add(1)
        .and_then(|used| next_attempt_at(ctx.schedule, ctx.message_id, used, ctx.now));
    match not_before {
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

#[cfg(test)]
mod tests;
