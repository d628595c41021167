//! The inbound source API's request bodies: a new source, its changes, a
//! secret rotation, and the write-only secret value they carry.

use relay_core::secret::SecretRef;
use relay_inbound::{Options, Preset};
use serde::Deserialize;
use utoipa::ToSchema;

/// A secret value in a request body: `Debug` never shows it.
#[derive(Deserialize)]
#[serde(transparent)]
pub struct WriteOnly(pub String);

impl std::fmt::Debug for WriteOnly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// A new inbound source: one provider's webhooks for the key's tenant and
/// environment, and the secret that verifies them.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateInboundSource {
    /// What the source is for, 1 to 200 characters.
    pub name: String,
    /// The provider's signature scheme; fixed for the source's life.
    pub preset: Preset,
    /// The provider as the ledger and deduplication name it (lowercase
    /// letters, digits, `_ . -`; default: the preset's name). Sources of
    /// one provider share its event ids: a repeat through either counts.
    pub provider: Option<String>,
    /// The provider's signing secret (an HMAC key, Twilio's auth token,
    /// SendGrid's public key, a Standard Webhooks `whsec_…`): written
    /// once, sealed at rest, never shown again. Give this or `secret_ref`.
    #[serde(default)]
    #[schema(value_type = Option<String>, write_only)]
    pub secret: Option<WriteOnly>,
    /// Instead of `secret`: where the secret is, as a secret reference
    /// (`secret:NAME` for a tenant secret, or `env:NAME`, `file:/path`
    /// where the operator allows them). It is resolved at every receipt,
    /// so a replaced tenant secret verifies from the next request.
    #[serde(default)]
    #[schema(value_type = Option<String>, example = "secret:stripe-signing")]
    pub secret_ref: Option<SecretRef>,
    /// The preset's options (replay window, Twilio's signed URL, the
    /// generic HMAC scheme); default: none.
    #[serde(default)]
    pub options: Option<Options>,
    /// Requests per second accepted (default 100, at most 10,000); more answer `429`.
    pub rate_limit_per_second: Option<u32>,
    /// Largest body accepted, in bytes (default 262,144, at most 1,048,576); larger answers `413`.
    pub max_body_bytes: Option<u32>,
}

/// Changes to an inbound source; absent fields stay as they are. The
/// preset, the provider and the path never change.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateInboundSource {
    /// What the source is for, 1 to 200 characters.
    pub name: Option<String>,
    /// Replaces the options as a whole.
    pub options: Option<Options>,
    /// Requests per second accepted, 1 to 10,000.
    pub rate_limit_per_second: Option<u32>,
    /// Largest body accepted, in bytes, 1 to 1,048,576.
    pub max_body_bytes: Option<u32>,
}

/// A source's new secret, and how long the current one keeps verifying.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateInboundSecret {
    /// The new secret (write-only, like at creation). Give this or `secret_ref`.
    #[serde(default)]
    #[schema(value_type = Option<String>, write_only)]
    pub secret: Option<WriteOnly>,
    /// Instead of `secret`: the new secret as a secret reference.
    #[serde(default)]
    #[schema(value_type = Option<String>, example = "secret:stripe-signing-2")]
    pub secret_ref: Option<SecretRef>,
    /// How long the current secret keeps verifying beside the new one,
    /// 0 to 168 hours (default 24): the time the provider takes to switch.
    pub overlap_hours: Option<u32>,
}
