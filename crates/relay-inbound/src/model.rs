//! The inbound objects as the API shows them and the store keeps them:
//! sources, receipts and ledger entries. No secret is in any of them: a
//! source says only whether its secret is a sealed value or a reference.

use relay_core::model::Environment;
use relay_core::time::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{Options, Preset};

/// Requests per second a source accepts by default (a token bucket as deep as one second).
pub const DEFAULT_RATE_LIMIT_PER_SECOND: u32 = 100;
pub const MAX_RATE_LIMIT_PER_SECOND: u32 = 10_000;
/// Largest raw body a source accepts by default; larger answers `413`.
pub const DEFAULT_MAX_BODY_BYTES: u32 = 256 * 1024;
pub const MAX_BODY_BYTES: u32 = 1024 * 1024;
/// Rejected receipts kept per source (the oldest go first).
pub const REJECTED_KEPT_PER_SOURCE: i64 = 100;
/// Bytes of a rejected request's body kept for diagnosis.
pub const REJECTED_BODY_KEPT_BYTES: usize = 8 * 1024;

/// Where a source's secret is: a sealed value written through the API, or
/// a secret reference (`relay_core::secret`). Named `SourceSecret` in the
/// API's document (`SecretInfo` there is a tenant secret's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = SourceSecret)]
pub struct SecretInfo {
    /// `value` (written once, sealed, never shown) or `reference`.
    pub kind: String,
    /// The reference (`secret:NAME`, `env:NAME`, `file:/path`) when `kind`
    /// is `reference`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
}

/// An inbound source: where one provider's webhooks for one tenant arrive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InboundSource {
    /// The source's id (`ins_…`).
    pub id: String,
    /// The environment it is in (the API key's).
    pub environment: Environment,
    /// A name for people (`Stripe payments`).
    pub name: String,
    /// The provider's signature scheme; fixed at creation.
    pub preset: Preset,
    /// The provider as the ledger and deduplication name it (default: the preset).
    pub provider: String,
    /// The preset's options (replay window, Twilio's signed URL, the generic HMAC scheme).
    pub options: Options,
    /// Where the signing secret is; never the secret itself.
    pub secret: SecretInfo,
    /// While set, the secret before the last rotation still verifies, until then.
    pub previous_secret_expires_at: Option<Timestamp>,
    /// Requests per second accepted (a token bucket as deep as one second,
    /// per node); beyond it `429`. Default 100, at most 10,000.
    pub rate_limit_per_second: u32,
    /// The largest body accepted, in bytes; larger answers `413`. Default
    /// 262,144 (256 KiB), at most 1,048,576.
    pub max_body_bytes: u32,
    /// The path to give the provider, below this installation's public URL:
    /// `/inbound/<token>`, the token 128 random bits (unguessable).
    pub path: String,
    /// The URL to give the provider, when Relay knows its public URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

impl InboundSource {
    pub fn path_of(token: &str) -> String {
        format!("/inbound/{token}")
    }
}

/// A source's secret as stored: never in an API answer.
#[derive(Clone, PartialEq, Eq)]
pub enum StoredSecret {
    /// `rk1:…`, sealed under the master key, bound to the source id.
    Sealed(String),
    /// A secret reference (`secret:NAME`, `env:NAME`, `file:/path`),
    /// resolved at every receipt.
    Reference(String),
}

impl std::fmt::Debug for StoredSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoredSecret::Sealed(_) => f.write_str("Sealed(<redacted>)"),
            StoredSecret::Reference(r) => write!(f, "Reference({r})"),
        }
    }
}

impl StoredSecret {
    pub fn info(&self) -> SecretInfo {
        match self {
            StoredSecret::Sealed(_) => SecretInfo {
                kind: "value".into(),
                reference: None,
            },
            StoredSecret::Reference(r) => SecretInfo {
                kind: "reference".into(),
                reference: Some(r.clone()),
            },
        }
    }
}

/// A source with its secrets, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRecord {
    pub source: InboundSource,
    pub tenant_id: String,
    pub secret: StoredSecret,
    /// The secret before the last rotation, and until when it verifies.
    pub previous: Option<(StoredSecret, Timestamp)>,
}

/// What the signature check said of a received request: `verified`, or
/// `rejected` (kept for diagnosis, never processed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Verified,
    Rejected,
}

impl Verdict {
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::Rejected => "rejected",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "verified" => Some(Verdict::Verified),
            "rejected" => Some(Verdict::Rejected),
            _ => None,
        }
    }
}

/// Where a receipt is in its processing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptState {
    /// Waiting for (another) processing attempt.
    Pending,
    /// Leased by a processor.
    Processing,
    /// In the ledger.
    Processed,
    /// Gave up after its attempts; reprocess it to try again.
    Failed,
    /// Refused at receipt time: kept for diagnosis, never processed.
    Rejected,
}

impl ReceiptState {
    pub const fn as_str(self) -> &'static str {
        match self {
            ReceiptState::Pending => "pending",
            ReceiptState::Processing => "processing",
            ReceiptState::Processed => "processed",
            ReceiptState::Failed => "failed",
            ReceiptState::Rejected => "rejected",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [
            ReceiptState::Pending,
            ReceiptState::Processing,
            ReceiptState::Processed,
            ReceiptState::Failed,
            ReceiptState::Rejected,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
    }
}

/// One request a source received, with its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Receipt {
    /// The receipt's id (`rcp_…`).
    pub id: String,
    /// The source that received it.
    pub source_id: String,
    /// The provider, as the source names it.
    pub provider: String,
    /// The source's preset, which verified it.
    pub preset: Preset,
    /// The provider's id of the event (verified receipts only).
    pub provider_event_id: Option<String>,
    /// Whether the signature verified.
    pub verdict: Verdict,
    /// Why it was rejected (a stable code), when it was.
    pub refusal: Option<String>,
    /// Where it is in its processing.
    pub state: ReceiptState,
    /// How many times the provider sent this event (1, plus each duplicate).
    pub received_count: i64,
    /// Processing attempts made (at most 5 before `failed`).
    pub attempts: i64,
    /// The code of the last processing failure, if any.
    pub last_error: Option<String>,
    /// The headers kept with the body (those the verdict and the ledger use).
    #[schema(value_type = Object)]
    pub headers: std::collections::BTreeMap<String, String>,
    /// The raw body, base64 (a rejected receipt keeps its first 8 KiB).
    pub body_base64: String,
    /// When it first arrived.
    pub received_at: Timestamp,
    /// When the provider last sent it (a duplicate counts).
    pub last_received_at: Timestamp,
    /// When its events were written to the ledger; `null` until then.
    pub processed_at: Option<Timestamp>,
}

/// A receipt as processing needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptWork {
    pub receipt: Receipt,
    pub tenant_id: String,
    pub environment: Environment,
    pub options: Options,
    pub body: Vec<u8>,
    /// The lease's version: completion applies only while it holds.
    pub lease: String,
}

/// One verified provider event in the append-only ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LedgerEntry {
    /// The entry's id (`led_…`).
    pub id: String,
    /// The source that received the event.
    pub source_id: String,
    /// The provider, as the source names it.
    pub provider: String,
    /// The event type as the provider names it.
    pub event_type: String,
    /// The provider's id of the event.
    pub provider_event_id: String,
    /// When the event happened, where the provider says.
    pub occurred_at: Option<Timestamp>,
    /// When Relay received the request that carried it.
    pub received_at: Timestamp,
    /// The receipt it was read from.
    pub receipt_id: String,
    /// The provider's message id, where the preset knows it (delivery
    /// reports, bounces).
    pub message_id: Option<String>,
    /// The recipient, where the preset knows it.
    pub recipient: Option<String>,
    /// The delivery status the provider reports (`delivered`, `bounce`, …),
    /// where the preset knows it.
    pub status: Option<String>,
    /// When the entry was written.
    pub recorded_at: Timestamp,
}

/// The backoff before processing attempt `attempt` (1-based) is retried,
/// or `None` once [`MAX_PROCESSING_ATTEMPTS`] are used.
pub fn processing_backoff_seconds(attempt: i64) -> Option<i64> {
    (attempt < MAX_PROCESSING_ATTEMPTS).then(|| 5i64.saturating_mul(1 << attempt.clamp(0, 10)))
}

/// Attempts at processing a receipt before it is left `failed`.
pub const MAX_PROCESSING_ATTEMPTS: i64 = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_then_stops() {
        assert_eq!(processing_backoff_seconds(1), Some(10));
        assert_eq!(processing_backoff_seconds(4), Some(80));
        assert_eq!(processing_backoff_seconds(5), None);
        let stored = StoredSecret::Sealed("rk1:secretstuff".into());
        assert!(!format!("{stored:?}").contains("secretstuff"));
    }
}
