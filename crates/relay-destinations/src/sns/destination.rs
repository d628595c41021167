//! The Amazon SNS kind's configuration (see `docs/destinations.md`). Its
//! OpenAPI schema is derived from the types: their doc comments are the
//! API's descriptions. The rules of the fields are checked at registration
//! by the kind (`sns/config.rs`); the bounds are here so the schema and the
//! check say the same.

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::aws::Credentials;

/// An Amazon SNS topic, standard or FIFO (a topic ARN ending in `.fifo`):
/// each message is one `Publish`, signed with AWS Signature Version 4;
/// SNS's `200` with a `MessageId` is the acknowledgement (SNS answers no
/// digest of what it took). On a FIFO topic the event's ordering key is
/// the `MessageGroupId` and the event id the `MessageDeduplicationId`.
/// See docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SnsDestination {
    /// The topic's ARN, `arn:<partition>:sns:<region>:<account id>:<topic
    /// name>` (a FIFO topic's name ends in `.fifo`). Requests are signed
    /// for the ARN's region.
    #[schema(max_length = 1024)]
    pub topic_arn: String,
    /// The service's `https://` URL without a path (an SNS-compatible
    /// service, or a VPC endpoint); `null` (default): AWS SNS,
    /// `https://sns.<region>.amazonaws.com` of the ARN's region. An AWS
    /// host must be in the ARN's region. Checked by the outbound guard at
    /// registration and at every connection; redirects are never followed.
    #[serde(default)]
    #[schema(max_length = 2048)]
    pub endpoint_url: Option<String>,
    /// The credentials: `access_key_id`, `secret_access_key` and the
    /// optional `session_token`, each a secret reference (the AWS kinds'
    /// one type, [`crate::aws::Credentials`]).
    #[serde(flatten)]
    #[schema(inline)]
    pub credentials: Credentials,
    /// `structured` (default): the message is the CloudEvents JSON;
    /// `binary`: the message is the event's `data` and its context
    /// attributes are message attributes `ce-<name>` (at most ten
    /// attributes in all, as SQS's kind; see docs/destinations.md).
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
    /// The largest message the topic takes (its `MaximumMessageSize`),
    /// counted as SNS counts it: the message and every attribute's name,
    /// type and value. Default 262144 (256 KiB); at most 1048576 (1 MiB).
    #[serde(default = "default_max_message_bytes")]
    #[schema(default = default_max_message_bytes, minimum = 1024, maximum = 1048576)]
    pub max_message_bytes: u32,
}

/// The bounds of [`SnsDestination::max_message_bytes`], inclusive (SQS's).
pub const SNS_MAX_MESSAGE_BYTES: (u32, u32) = crate::sqs::SQS_MAX_MESSAGE_BYTES;

const fn default_max_message_bytes() -> u32 {
    256 * 1024
}

impl SnsDestination {
    /// Every secret reference, with the JSON pointer of its field.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        self.credentials.secret_refs()
    }

    /// Whether the topic is a FIFO topic (its name ends in `.fifo`).
    pub fn is_fifo(&self) -> bool {
        self.topic_arn.ends_with(".fifo")
    }
}
