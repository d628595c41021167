//! The Google Cloud Pub/Sub kind's configuration (see
//! `docs/destinations.md`). Its OpenAPI schema is derived from the types:
//! their doc comments are the API's descriptions. The rules of the fields
//! are checked at registration by the kind (`pubsub/config.rs`).

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A Google Cloud Pub/Sub topic: each message is one `:publish` of one
/// Pub/Sub message (the body as its `data`, the signature values and the
/// binding's attributes as its `attributes`); Pub/Sub's `200` with the one
/// message id it assigned is the acknowledgement. Authenticated with a
/// service account's key (an RS256-signed JWT exchanged for an access
/// token, cached until shortly before it expires), or, where the operator
/// allows it, the installation's workload identity. See
/// docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PubsubDestination {
    /// The topic's resource name, `projects/<project id>/topics/<topic id>`.
    #[schema(max_length = 400)]
    pub topic: String,
    /// The service's endpoint: `https://pubsub.googleapis.com` (default,
    /// global) or a regional one, `https://<region>-pubsub.googleapis.com`
    /// (which `ordered` needs). Checked by the outbound guard at
    /// registration and at every connection; redirects are never followed.
    #[serde(default = "default_endpoint")]
    #[schema(default = default_endpoint, max_length = 2048)]
    pub endpoint: String,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to
    /// the service account's JSON key (`client_email`, `private_key`,
    /// `private_key_id`, `token_uri`), never the key itself. Give it, or
    /// `workload_identity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub service_account_key: Option<SecretRef>,
    /// `true` instead of a key: publish as the installation's own Google
    /// identity (the service account Relay's machine or pod runs as, from
    /// the metadata server), when the operator allows it for the topic's
    /// project (`[gcp] workload_identity` and `projects`; refused at
    /// registration otherwise). Default `false`.
    #[serde(default)]
    #[schema(default = false)]
    pub workload_identity: bool,
    /// Where the signed assertion is exchanged for an access token; the
    /// key's `token_uri` must be this URL. Checked by the outbound guard
    /// like the endpoint.
    #[serde(default = "default_token_url")]
    #[schema(default = default_token_url, max_length = 2048)]
    pub token_url: String,
    /// `true`: the event's ordering key (the one it was published with,
    /// else its subject) is the message's `orderingKey`, so a subscription
    /// with message ordering receives one key's messages in order. Pub/Sub
    /// orders only within a region: `true` needs a regional `endpoint`
    /// (refused at registration with the global one). Default `false`.
    #[serde(default)]
    #[schema(default = false)]
    pub ordered: bool,
    /// `structured` (default): the data is the CloudEvents JSON, attribute
    /// `Content-Type` `application/cloudevents+json`; `binary`: the data is
    /// the event's `data` and every context attribute is an attribute
    /// `ce-<name>` (the CloudEvents Pub/Sub binding).
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
}

/// The global endpoint.
pub const GLOBAL_ENDPOINT: &str = "https://pubsub.googleapis.com";

/// Google's token endpoint.
pub const GOOGLE_TOKEN_URL: &str = "https://oauth2.googleapis.com/token";

fn default_endpoint() -> String {
    GLOBAL_ENDPOINT.to_string()
}

fn default_token_url() -> String {
    GOOGLE_TOKEN_URL.to_string()
}

impl PubsubDestination {
    /// Every secret reference, with the JSON pointer of its field.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        self.service_account_key
            .iter()
            .map(|r| ("/destination/service_account_key", r))
            .collect()
    }
}
