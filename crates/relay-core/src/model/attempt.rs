//! What an attempt records: its trigger, its record, and the response body
//! as the API shows it.

use super::*;

/// What started an attempt: `scheduled` (the retry schedule), `manual` (a
/// resend or a test send), or `probe` (a half-open circuit's trial attempt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AttemptTrigger {
    Scheduled,
    Manual,
    Probe,
}

impl AttemptTrigger {
    pub const fn as_str(self) -> &'static str {
        match self {
            AttemptTrigger::Scheduled => "scheduled",
            AttemptTrigger::Manual => "manual",
            AttemptTrigger::Probe => "probe",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "scheduled" => Some(AttemptTrigger::Scheduled),
            "manual" => Some(AttemptTrigger::Manual),
            "probe" => Some(AttemptTrigger::Probe),
            _ => None,
        }
    }
}

/// The record of one try at delivering a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Attempt {
    /// The attempt's id (`atm_…`).
    pub id: String,
    /// The message attempted.
    pub message_id: String,
    /// The endpoint it was sent to.
    pub endpoint_id: String,
    /// 1-based position in the message's attempts.
    pub number: i64,
    /// What started it.
    pub trigger: AttemptTrigger,
    /// When it started.
    pub started_at: Timestamp,
    /// How long it took, in milliseconds, until the answer or the failure.
    pub duration_ms: i64,
    /// The address the delivery actually went to (or last tried).
    pub destination_ip: Option<String>,
    /// HTTPS: the response's status code (from `detail`; `null` for other kinds).
    pub status_code: Option<i64>,
    /// The guard's or the connection's kind of failure without a usable
    /// answer (`connect`, `timeout`, `tls`, `blocked_address`, `invalid_url`, …).
    #[schema(value_type = Option<String>)]
    pub error_kind: Option<AttemptErrorKind>,
    /// Why the attempt failed: `http_<status>`, `invalid_status`, or a
    /// transport kind; `null` on success and when the message was
    /// dead-lettered without an answer.
    #[schema(value_type = Option<String>)]
    pub error_code: Option<crate::outcome::FailureCode>,
    /// Hex SHA-256 of the exact body sent.
    pub body_sha256: String,
    /// The `webhook-signature` sent (HTTPS header, broker property).
    pub signature: String,
    /// HTTPS: the first 8 kB of the response body, byte for byte: as text
    /// when they are valid UTF-8, else base64 (`response_body_encoding`
    /// says which; from `detail`; `null` for other kinds).
    pub response_body: Option<String>,
    /// How `response_body` is written: `utf8` (the bytes are the text) or
    /// `base64` (the bytes were not valid UTF-8); `null` with no body.
    pub response_body_encoding: Option<BodyEncoding>,
    /// What the attempt meant for its message.
    pub outcome: crate::outcome::AttemptOutcome,
    /// What the destination kind answered, its own shape: HTTPS
    /// `{"status_code", "response_body"}`; a broker, what it acknowledged.
    #[schema(value_type = Object)]
    pub detail: serde_json::Value,
}

/// How a kept response body is written in an attempt record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BodyEncoding {
    /// The bytes are valid UTF-8 and written as that text.
    Utf8,
    /// The bytes are not valid UTF-8 and written in base64 (standard alphabet, padded).
    Base64,
}

impl BodyEncoding {
    pub const fn as_str(self) -> &'static str {
        match self {
            BodyEncoding::Utf8 => "utf8",
            BodyEncoding::Base64 => "base64",
        }
    }
}

/// A response body prefix as an attempt's `detail` keeps it, losslessly:
/// `response_body` with the text when the bytes are valid UTF-8, else with
/// their base64 and `response_body_encoding: "base64"`.
pub fn body_detail(bytes: &[u8], detail: &mut serde_json::Map<String, serde_json::Value>) {
    use base64::Engine as _;
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            detail.insert("response_body".into(), text.into());
        }
        Err(_) => {
            detail.insert(
                "response_body".into(),
                base64::engine::general_purpose::STANDARD
                    .encode(bytes)
                    .into(),
            );
            detail.insert(
                "response_body_encoding".into(),
                BodyEncoding::Base64.as_str().into(),
            );
        }
    }
}

/// The HTTPS fields of an attempt's wire format, `status_code`,
/// `response_body` and its encoding, read from its `detail` (absent for
/// other kinds).
pub fn https_fields(
    detail: &serde_json::Value,
) -> (Option<i64>, Option<String>, Option<BodyEncoding>) {
    let body = detail
        .get("response_body")
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let encoding = body.as_ref().map(|_| {
        match detail
            .get("response_body_encoding")
            .and_then(|v| v.as_str())
        {
            Some("base64") => BodyEncoding::Base64,
            _ => BodyEncoding::Utf8,
        }
    });
    (
        detail.get("status_code").and_then(|v| v.as_i64()),
        body,
        encoding,
    )
}
