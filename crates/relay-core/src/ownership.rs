//! Proof of endpoint ownership: before the first delivery to a new host,
//! the receiver proves that it wants the traffic (`docs/security.md`,
//! "Proof of endpoint ownership").
//!
//! Relay sends the receiver a challenge: `OPTIONS <endpoint URL>` with the
//! CloudEvents Web Hook handshake's `WebHook-Request-Origin`, and the
//! Standard Webhooks headers signing an empty body with the endpoint's
//! keys, whose `webhook-id` is the challenge (unguessable, fresh each
//! time). The receiver, having checked the signature as it checks every
//! delivery's, proves ownership by answering `2xx` with the challenge as
//! the whole body (surrounding white space ignored). A
//! `WebHook-Allowed-Origin` in the answer, when there is one, must be the
//! origin sent or `*`. Redirects are never followed.
//!
//! This module holds the pure parts: the judgement of an answer
//! ([`judge`]), the challenge's id ([`challenge_id`]) and the schedule of
//! the challenges of an endpoint that has not proven it yet
//! ([`next_check_in_seconds`]).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The header naming who asks (the CloudEvents Web Hook specification).
pub const REQUEST_ORIGIN: &str = "webhook-request-origin";
/// The receiver's answer naming whom it accepts traffic from.
pub const ALLOWED_ORIGIN: &str = "webhook-allowed-origin";
/// The longest answer body read: a challenge is 32 characters.
pub const MAX_ANSWER_BYTES: usize = 1024;
/// The prefix of a challenge.
pub const CHALLENGE_PREFIX: &str = "chal_";

/// Why a receiver has not proven ownership: a stable `code` and a message
/// for people. Never holds the receiver's answer body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Failure {
    /// `unreachable` (no answer: connection, TLS, time-out), `refused`
    /// (the outbound rules refuse the address), `redirect` (a `3xx`; never
    /// followed), `status` (another non-`2xx` answer), `no_echo` (a `2xx`
    /// without the challenge as its body), `origin_refused` (a
    /// `WebHook-Allowed-Origin` naming another origin), `unavailable` (the
    /// endpoint's keys or settings could not be read now).
    pub code: String,
    /// What happened, for people.
    pub message: String,
}

impl Failure {
    pub fn new(code: &str, message: impl Into<String>) -> Failure {
        Failure {
            code: code.into(),
            message: message.into(),
        }
    }
}

/// A challenge id from 128 random bits: `chal_` and 26 base32 characters.
pub fn challenge_id(random: u128) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
    let mut out = String::with_capacity(CHALLENGE_PREFIX.len() + 26);
    out.push_str(CHALLENGE_PREFIX);
    for i in (0..26).rev() {
        let index = ((random >> (i * 5)) & 31) as usize;
        out.push(ALPHABET[index] as char);
    }
    out
}

/// Whether the receiver's answer proves ownership: `status`, its
/// `WebHook-Allowed-Origin` (if any) and the first bytes of its body, for
/// the `challenge` sent on behalf of `origin`.
pub fn judge(
    status: u16,
    allowed_origin: Option<&str>,
    body: &[u8],
    challenge: &str,
    origin: &str,
) -> Result<(), Failure> {
    if (300..400).contains(&status) {
        return Err(Failure::new(
            "redirect",
            format!("the receiver answered {status}; redirects are not followed"),
        ));
    }
    if !(200..300).contains(&status) {
        return Err(Failure::new(
            "status",
            format!("the receiver answered {status}, not 2xx"),
        ));
    }
    if let Some(allowed) = allowed_origin {
        let allowed = allowed.trim();
        if allowed != "*" && !allowed.eq_ignore_ascii_case(origin) {
            return Err(Failure::new(
                "origin_refused",
                format!("WebHook-Allowed-Origin names another origin, not `{origin}`"),
            ));
        }
    }
    let echoed = std::str::from_utf8(body).map(str::trim) == Ok(challenge);
    if !echoed {
        return Err(Failure::new(
            "no_echo",
            "the answer's body is not the challenge (the request's webhook-id)",
        ));
    }
    Ok(())
}

/// Seconds until the next challenge of an endpoint that has failed
/// `checks` of them: 1 minute, 5, 30, 2 hours, 6, then once a day.
pub const fn next_check_in_seconds(checks: u32) -> i64 {
    match checks {
        0 | 1 => 60,
        2 => 5 * 60,
        3 => 30 * 60,
        4 => 2 * 3600,
        5 => 6 * 3600,
        _ => 24 * 3600,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHALLENGE: &str = "chal_0123456789abcdefghjkmnpqrs";
    const ORIGIN: &str = "relay.example";

    #[test]
    fn an_answer_proves_ownership_only_with_the_challenge_as_its_body() {
        let echo = CHALLENGE.as_bytes();
        /// Status, `WebHook-Allowed-Origin`, body, the failure's code.
        type Row<'a> = (u16, Option<&'a str>, &'a [u8], Option<&'a str>);
        let table: [Row; 14] = [
            (200, None, echo, None),
            (204, None, echo, None),
            (200, None, b"  chal_0123456789abcdefghjkmnpqrs\n", None),
            (200, Some("*"), echo, None),
            (200, Some("Relay.Example"), echo, None),
            (200, Some("other.example"), echo, Some("origin_refused")),
            // An echo server answers with the request, not the challenge.
            (
                200,
                None,
                b"{\"webhook-id\":\"chal_0123456789abcdefghjkmnpqrs\"}",
                Some("no_echo"),
            ),
            (200, None, b"", Some("no_echo")),
            (
                200,
                None,
                b"chal_0123456789abcdefghjkmnpqrt",
                Some("no_echo"),
            ),
            (200, None, &[0xff, 0xfe], Some("no_echo")),
            (301, None, echo, Some("redirect")),
            (307, None, echo, Some("redirect")),
            (404, None, echo, Some("status")),
            (500, Some("*"), echo, Some("status")),
        ];
        for (status, allowed, body, want) in table {
            let got = judge(status, allowed, body, CHALLENGE, ORIGIN);
            assert_eq!(
                got.as_ref().err().map(|f| f.code.as_str()),
                want,
                "{status} {allowed:?} {:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_failure_never_holds_the_answer() {
        let marker = b"SECRET-MARKER-IN-BODY";
        for status in [200, 302, 500] {
            let failure = judge(status, None, marker, CHALLENGE, ORIGIN).unwrap_err();
            assert!(!failure.message.contains("SECRET-MARKER"), "{failure:?}");
        }
    }

    #[test]
    fn challenges_are_fresh_and_well_formed() {
        let a = challenge_id(0);
        let b = challenge_id(u128::MAX);
        let c = challenge_id(0x1234_5678_9abc_def0_1234_5678_9abc_def0);
        for id in [&a, &b, &c] {
            assert_eq!(id.len(), 31, "{id}");
            assert!(id.starts_with(CHALLENGE_PREFIX));
            assert!(id[5..].bytes().all(|b| b.is_ascii_alphanumeric()));
        }
        assert_ne!(a, b);
        assert_ne!(b, c);
    }

    #[test]
    fn challenges_back_off_to_once_a_day() {
        let waits: Vec<i64> = (0..9).map(next_check_in_seconds).collect();
        assert_eq!(waits, [60, 60, 300, 1800, 7200, 21600, 86400, 86400, 86400]);
    }
}
