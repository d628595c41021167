//! The Amazon EventBridge kind's configuration (see `docs/destinations.md`).
//! Its OpenAPI schema is derived from the types: their doc comments are the
//! API's descriptions. The rules of the fields are checked at registration
//! by the kind (`eventbridge/config.rs`); the bounds are here so the schema
//! and the check say the same.

use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::aws::Credentials;

/// An Amazon EventBridge event bus: each message is one entry of one
/// `PutEvents`, signed with AWS Signature Version 4. The entry's `Detail`
/// is the CloudEvent (structured mode only: EventBridge has no attributes
/// to carry a binary binding), its `DetailType` the event type, its
/// `Time` the event's time; EventBridge's `200` whose entry has an
/// `EventId` is the acknowledgement, and an entry with an `ErrorCode` is
/// that message's failure. EventBridge keeps no order. See
/// docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EventBridgeDestination {
    /// The event bus: its name (`default`, `orders`, a partner bus's
    /// `aws.partner/…`) or its ARN,
    /// `arn:<partition>:events:<region>:<account id>:event-bus/<name>`
    /// (in `region`).
    #[schema(min_length = 1, max_length = 1600)]
    pub event_bus: String,
    /// The region requests are signed for and sent to (e.g. `eu-west-1`).
    #[schema(min_length = 1, max_length = 64)]
    pub region: String,
    /// The service's `https://` URL without a path (an EventBridge-compatible
    /// service, or a VPC endpoint); `null` (default): AWS EventBridge,
    /// `https://events.<region>.amazonaws.com`. An AWS host must be in
    /// `region`. Checked by the outbound guard at registration and at every
    /// connection; redirects are never followed.
    #[serde(default)]
    #[schema(max_length = 2048)]
    pub endpoint_url: Option<String>,
    /// The entries' `Source`, which rules match on (e.g. `com.acme.orders`):
    /// 1 to 256 of `A-Z a-z 0-9 . - _ /`, not beginning with `aws.`
    /// (EventBridge keeps that prefix for AWS services).
    #[schema(min_length = 1, max_length = 256)]
    pub source: String,
    /// The entries' `DetailType`; `null` (default): each event's type
    /// (`order.shipped`). At most 128 characters, no control characters.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 128)]
    pub detail_type: Option<String>,
    /// The credentials: `access_key_id`, `secret_access_key` and the
    /// optional `session_token`, each a secret reference, or `role_arn`
    /// (the AWS kinds' one type, [`crate::aws::Credentials`]).
    #[serde(flatten)]
    #[schema(inline)]
    pub credentials: Credentials,
}

impl EventBridgeDestination {
    /// Every secret reference, with the JSON pointer of its field.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        self.credentials.secret_refs()
    }
}
