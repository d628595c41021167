//! Inbound provider webhooks, the pure part: how each provider signs its
//! webhooks, where its event id comes from, its replay window, and how its
//! body becomes ledger entries.
//!
//! Nothing here touches the network, the disk, a clock or randomness: the
//! caller passes the raw request (URL, headers, body bytes), the source's
//! secrets and `now`. Every comparison of a signature is constant-time.
//!
//! - [`Preset`]: the providers Relay knows, with [`Options`] per source.
//! - [`verify`]: the verdict on one request, at receipt time: the provider
//!   event id that deduplicates it, or a [`Refusal`] with a stable code.
//! - [`events`]: what a verified receipt puts in the ledger ([`LedgerEvent`]).
//! - [`model`]: sources, receipts and ledger entries as the API shows them.
//! - [`bucket`]: a source's rate limit (a token bucket).
//!
//! One module per scheme: [`standard`] (Standard Webhooks, Relay's own `v1`
//! and `v1a` included), [`stripe`], [`github`], [`twilio`], [`sendgrid`],
//! [`mailgun`], [`generic`] (a configurable HMAC preset).

use std::fmt;

use relay_core::time::Timestamp;
use serde::{Deserialize, Serialize};

pub mod bucket;
pub mod generic;
pub mod github;
mod json;
mod mac;
pub mod mailgun;
pub mod model;
mod options;
pub mod sendgrid;
pub mod standard;
pub mod stripe;
pub mod twilio;

pub use options::{GenericOptions, HmacAlgorithm, Locator, Options, SignatureEncoding};

/// Replay window of the schemes that sign a timestamp, either side of now.
pub const DEFAULT_TOLERANCE_SECONDS: i64 = 300;
/// The longest replay window a source may choose.
pub const MAX_TOLERANCE_SECONDS: i64 = 86_400;
/// The longest provider event id kept (longer ones are refused).
pub const MAX_EVENT_ID_LEN: usize = 255;

/// The providers Relay verifies, by the name the API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// Standard Webhooks (`webhook-id`, `webhook-timestamp`,
    /// `webhook-signature`): every compatible provider, and Relay's own
    /// `v1` (HMAC) and `v1a` (Ed25519) profile.
    StandardWebhooks,
    Stripe,
    Github,
    Twilio,
    /// SendGrid's signed event webhook (ECDSA P-256).
    Sendgrid,
    Mailgun,
    /// HMAC over the raw body, configured by [`GenericOptions`].
    GenericHmac,
}

impl Preset {
    pub const ALL: [Preset; 7] = [
        Preset::StandardWebhooks,
        Preset::Stripe,
        Preset::Github,
        Preset::Twilio,
        Preset::Sendgrid,
        Preset::Mailgun,
        Preset::GenericHmac,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Preset::StandardWebhooks => "standard_webhooks",
            Preset::Stripe => "stripe",
            Preset::Github => "github",
            Preset::Twilio => "twilio",
            Preset::Sendgrid => "sendgrid",
            Preset::Mailgun => "mailgun",
            Preset::GenericHmac => "generic_hmac",
        }
    }

    pub fn parse(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The request headers a receipt keeps (lowercase): those the verdict
    /// and the ledger entry are made from, so a receipt can be reprocessed.
    pub fn kept_headers(self, options: &Options) -> Vec<String> {
        let fixed: &[&str] = match self {
            Preset::StandardWebhooks => &["webhook-id", "webhook-timestamp", "content-type"],
            Preset::Stripe => &["content-type"],
            Preset::Github => &[
                "x-github-delivery",
                "x-github-event",
                "x-github-hook-id",
                "content-type",
            ],
            Preset::Twilio => &["i-twilio-idempotency-token", "content-type"],
            Preset::Sendgrid => &["x-twilio-email-event-webhook-timestamp", "content-type"],
            Preset::Mailgun => &["content-type"],
            Preset::GenericHmac => &["content-type"],
        };
        let mut out: Vec<String> = fixed.iter().map(|s| (*s).to_owned()).collect();
        if let Some(g) = &options.generic {
            for locator in [Some(&g.event_id), g.event_type.as_ref()]
                .into_iter()
                .flatten()
            {
                if let Locator::Header(name) = locator {
                    out.push(name.to_ascii_lowercase());
                }
            }
        }
        out
    }

    /// Checks a source's secret for this preset (at creation and rotation).
    pub fn check_secret(self, secret: &str) -> Result<(), &'static str> {
        if secret.is_empty() || secret.len() > 4096 {
            return Err("the secret must have 1 to 4096 characters");
        }
        match self {
            Preset::StandardWebhooks => standard::parse_key(secret).map(|_| ()),
            Preset::Sendgrid => sendgrid::parse_public_key(secret).map(|_| ()),
            _ => Ok(()),
        }
    }
}

/// A source's secret (an HMAC key, an auth token or a public key). `Debug` is redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct SourceSecret(String);

impl SourceSecret {
    pub fn new(value: impl Into<String>) -> Self {
        SourceSecret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SourceSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SourceSecret(<redacted>)")
    }
}

/// One request as the provider sent it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The URL the provider addressed (scheme, host, path and query), as it
    /// signed it (Twilio signs it).
    pub url: &'a str,
    /// Header names in any case; values as received (not UTF-8: absent).
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

impl Request<'_> {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn require(&self, name: &'static str) -> Result<&str, Refusal> {
        match self.header(name) {
            Some(v) if !v.is_empty() => Ok(v),
            _ => Err(Refusal::MissingHeader(name)),
        }
    }
}

/// A request that verified: the id that deduplicates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub event_id: String,
}

/// Why a request was refused; [`Refusal::code`] is stable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the request has no {0} header")]
    MissingHeader(&'static str),
    #[error("the signature is malformed")]
    MalformedSignature,
    #[error("the signed timestamp is not a whole number of unix seconds")]
    InvalidTimestamp,
    #[error("the signed timestamp is outside the source's replay window")]
    TimestampOutOfTolerance,
    #[error("no signature matched the source's secret")]
    NoMatchingSignature,
    #[error("the body is not what the provider sends: {0}")]
    MalformedBody(&'static str),
    #[error("the request carries no provider event id ({0})")]
    MissingEventId(&'static str),
    #[error("the source's configuration cannot verify: {0}")]
    Misconfigured(&'static str),
}

impl Refusal {
    pub const fn code(&self) -> &'static str {
        match self {
            Refusal::MissingHeader(_) => "signature_missing",
            Refusal::MalformedSignature => "signature_malformed",
            Refusal::InvalidTimestamp => "signature_invalid_timestamp",
            Refusal::TimestampOutOfTolerance => "signature_timestamp_out_of_tolerance",
            Refusal::NoMatchingSignature => "signature_no_match",
            Refusal::MalformedBody(_) => "body_malformed",
            Refusal::MissingEventId(_) => "event_id_missing",
            Refusal::Misconfigured(_) => "source_misconfigured",
        }
    }
}

/// Verifies `request` for a source of `preset`: with any of `secrets` (the
/// current one first, then those still in their rotation overlap), within
/// the preset's replay window around `now` where the scheme signs a time.
pub fn verify(
    preset: Preset,
    options: &Options,
    secrets: &[SourceSecret],
    request: &Request<'_>,
    now: Timestamp,
) -> Result<Verified, Refusal> {
    let tolerance = options
        .tolerance_seconds
        .unwrap_or(DEFAULT_TOLERANCE_SECONDS);
    let verified = match preset {
        Preset::StandardWebhooks => standard::verify(secrets, request, now, tolerance),
        Preset::Stripe => stripe::verify(secrets, request, now, tolerance),
        Preset::Github => github::verify(secrets, request),
        Preset::Twilio => twilio::verify(secrets, request, options.signed_url.as_deref()),
        Preset::Sendgrid => sendgrid::verify(secrets, request, now, tolerance),
        Preset::Mailgun => mailgun::verify(secrets, request, now, tolerance),
        Preset::GenericHmac => match &options.generic {
            Some(g) => generic::verify(g, secrets, request),
            None => Err(Refusal::Misconfigured(
                "the generic_hmac preset needs its options",
            )),
        },
    }?;
    if verified.event_id.is_empty() || verified.event_id.len() > MAX_EVENT_ID_LEN {
        return Err(Refusal::MissingEventId("empty or longer than 255 bytes"));
    }
    Ok(verified)
}

/// One provider event as the ledger records it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LedgerEvent {
    pub provider_event_id: String,
    /// The event type as the provider names it.
    pub event_type: String,
    /// When the provider says the event happened, where it says so.
    pub occurred_at: Option<Timestamp>,
    /// Normalized fields, where the preset knows them (delivery reports, bounces).
    pub message_id: Option<String>,
    pub recipient: Option<String>,
    pub status: Option<String>,
}

/// What a verified receipt puts in the ledger: one event for most
/// providers, one per element of a SendGrid batch.
pub fn events(
    preset: Preset,
    options: &Options,
    receipt_event_id: &str,
    request: &Request<'_>,
) -> Result<Vec<LedgerEvent>, Refusal> {
    let mut out = match preset {
        Preset::StandardWebhooks => standard::events(receipt_event_id, request),
        Preset::Stripe => stripe::events(receipt_event_id, request),
        Preset::Github => github::events(receipt_event_id, request),
        Preset::Twilio => twilio::events(receipt_event_id, request),
        Preset::Sendgrid => sendgrid::events(receipt_event_id, request),
        Preset::Mailgun => mailgun::events(receipt_event_id, request),
        Preset::GenericHmac => match &options.generic {
            Some(g) => generic::events(g, receipt_event_id, request),
            None => Err(Refusal::Misconfigured(
                "the generic_hmac preset needs its options",
            )),
        },
    }?;
    for e in &mut out {
        truncate(&mut e.event_type, 255);
        for f in [&mut e.message_id, &mut e.recipient, &mut e.status]
            .into_iter()
            .flatten()
        {
            truncate(f, 512);
        }
    }
    out.retain(|e| {
        !e.provider_event_id.is_empty() && e.provider_event_id.len() <= MAX_EVENT_ID_LEN
    });
    Ok(out)
}

fn truncate(s: &mut String, max: usize) {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
}

/// Parses unix seconds as sent in a header or a field.
fn unix_seconds(s: &str) -> Result<i64, Refusal> {
    if s.is_empty() || s.len() > 12 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Refusal::InvalidTimestamp);
    }
    s.parse().map_err(|_| Refusal::InvalidTimestamp)
}

fn check_window(sent: i64, now: Timestamp, tolerance: i64) -> Result<(), Refusal> {
    if sent.abs_diff(now.unix_seconds()) > tolerance.unsigned_abs() {
        Err(Refusal::TimestampOutOfTolerance)
    } else {
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod testdata {
    //! Reads the providers' vectors kept in the repository's `testdata/inbound/`.
    use serde_json::Value;

    pub fn load(name: &str) -> Value {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata")
            .join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => panic!("{} is missing ({e})", path.display()),
        };
        match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => panic!("{} is not JSON: {e}", path.display()),
        }
    }

    pub fn s<'a>(v: &'a Value, name: &str) -> &'a str {
        match v.get(name).and_then(Value::as_str) {
            Some(s) => s,
            None => panic!("field {name} missing in {v}"),
        }
    }

    pub fn i(v: &Value, name: &str) -> i64 {
        match v.get(name).and_then(Value::as_i64) {
            Some(n) => n,
            None => panic!("field {name} missing in {v}"),
        }
    }

    pub fn arr<'a>(v: &'a Value, name: &str) -> &'a Vec<Value> {
        match v.get(name).and_then(Value::as_array) {
            Some(a) if !a.is_empty() => a,
            _ => panic!("array {name} missing in {v}"),
        }
    }

    pub fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    /// `body` with one byte changed.
    pub fn tampered(body: &[u8]) -> Vec<u8> {
        let mut b = body.to_vec();
        let i = b.len() / 2;
        b[i] ^= 0x01;
        b
    }
}
