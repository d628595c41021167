//! The Amazon SQS kind's configuration (see `docs/destinations.md`). Its
//! OpenAPI schema is derived from the types: their doc comments are the
//! API's descriptions. The rules of the fields are checked at registration
//! by the kind (`sqs/config.rs`); the bounds are here so the schema and the
//! check say the same.

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::aws::Credentials;

/// An Amazon SQS queue, standard or FIFO (a queue URL ending in `.fifo`):
/// each message is one `SendMessage`, signed with AWS Signature Version 4;
/// SQS's `200` with a `MessageId` and the MD5 digests of what it stored
/// (checked against what was sent) is the acknowledgement. On a FIFO queue
/// the event's ordering key is the `MessageGroupId` and the event id the
/// `MessageDeduplicationId`. See docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SqsDestination {
    /// The queue's URL, as SQS gives it:
    /// `https://sqs.<region>.amazonaws.com/<account id>/<queue name>`
    /// (a FIFO queue's name ends in `.fifo`). Checked by the outbound guard
    /// at registration and at every connection; redirects are never
    /// followed.
    #[schema(max_length = 2048)]
    pub queue_url: String,
    /// The region requests are signed for (e.g. `eu-west-1`); on an
    /// `amazonaws.com` host it must be the host's own.
    #[schema(min_length = 1, max_length = 64)]
    pub region: String,
    /// The credentials: `access_key_id`, `secret_access_key` and the
    /// optional `session_token`, each a secret reference (the AWS kinds'
    /// one type, [`crate::aws::Credentials`]).
    #[serde(flatten)]
    #[schema(inline)]
    pub credentials: Credentials,
    /// `structured` (default): the body is the CloudEvents JSON; `binary`:
    /// the body is the event's `data` and its context attributes are
    /// message attributes `ce-<name>` (at most ten attributes in all; see
    /// docs/destinations.md for which carry what).
    #[serde(default)]
    #[schema(default = ContentMode::default, inline)]
    pub content_mode: ContentMode,
    /// The largest message the queue takes (its `MaximumMessageSize`),
    /// counted as SQS counts it: the body and every attribute's name, type
    /// and value. Default 262144 (256 KiB); at most 1048576 (1 MiB).
    #[serde(default = "default_max_message_bytes")]
    #[schema(default = default_max_message_bytes, minimum = 1024, maximum = 1048576)]
    pub max_message_bytes: u32,
}

/// The bounds of [`SqsDestination::max_message_bytes`], inclusive.
pub const SQS_MAX_MESSAGE_BYTES: (u32, u32) = (1024, 1024 * 1024);

const fn default_max_message_bytes() -> u32 {
    256 * 1024
}

impl SqsDestination {
    /// Every secret reference, with the JSON pointer of its field.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        self.credentials.secret_refs()
    }

    /// Whether the queue is a FIFO queue (its name ends in `.fifo`).
    pub fn is_fifo(&self) -> bool {
        self.queue_url.trim_end_matches('/').ends_with(".fifo")
    }
}
