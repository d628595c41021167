//! The S3-compatible object storage destination's configuration (see
//! `docs/destinations.md`). Its OpenAPI schema is derived from the types:
//! their doc comments are the API's descriptions.
//!
//! Messages of such an endpoint are written in batches, as JSON Lines of
//! CloudEvents structured JSON, one object per batch whose name derives from
//! the batch id. The rules of the fields (bounds, names) are checked at
//! registration by the kind (`s3/config.rs`); the bounds are here
//! so the schema and the check say the same (the schema's attributes are
//! literals: `relay-destinations/tests/destination_schema.rs` checks they equal the
//! `S3_MAX_*` bounds).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use relay_core::secret::SecretRef;

/// A bucket of an S3-compatible object storage service. Messages are
/// written in batches (by count, size or time) as JSON Lines of CloudEvents
/// structured JSON, one object per batch named after the batch id, so
/// rewriting a batch writes the same bytes to the same object; the object
/// write acknowledgement (`200` with an ETag) is the success of every
/// message of the batch. The object is signed as a whole (Standard Webhooks
/// values in its metadata). See docs/destinations.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct S3Destination {
    /// The bucket: lower-case letters, digits, `.` and `-`, starting and
    /// ending with a letter or digit, not an IP address.
    #[schema(min_length = 3, max_length = 63)]
    pub bucket: String,
    /// Prepended to every object name (default empty), e.g.
    /// `relay/orders/`: S3's safe characters `A-Z a-z 0-9 ! - _ . * ' ( ) /`
    /// and `=`; not starting with `/`, no empty, `.` or `..` segment.
    #[serde(default)]
    #[schema(default = "", max_length = 512)]
    pub prefix: String,
    /// The region requests are signed for (AWS Signature Version 4):
    /// lower-case letters, digits and `-` (e.g. `eu-west-1`; `us-east-1` for
    /// most other services, `auto` for R2).
    #[schema(min_length = 1, max_length = 64)]
    pub region: String,
    /// The service's `https://` URL without a path (e.g.
    /// `https://minio.internal.example:9000`); `null` (default): AWS S3,
    /// `https://s3.<region>.amazonaws.com`. Checked by the outbound guard at
    /// registration and at every connection; redirects are never followed.
    #[serde(default)]
    pub endpoint_url: Option<String>,
    /// `path` (default): `https://host/bucket/key`, answered by every
    /// S3-compatible service; `virtual_host`: `https://bucket.host/key` (the
    /// bucket must then be a single DNS label, without `.`).
    #[serde(default)]
    #[schema(default = S3Addressing::default, inline)]
    pub addressing: S3Addressing,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// access key id, never the value itself. See docs/destinations.md.
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub access_key_id: SecretRef,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// secret access key, never the value itself. See docs/destinations.md.
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub secret_access_key: SecretRef,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// session token (temporary credentials), sent as `x-amz-security-token`,
    /// never the value itself. See docs/destinations.md.
    #[serde(default)]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub session_token: Option<SecretRef>,
    /// A batch is closed and written once it holds `max_events` events or
    /// `max_bytes` bytes of JSON Lines, or its first event has waited
    /// `max_wait_seconds`.
    #[serde(default)]
    #[schema(inline)]
    pub batch: S3Batch,
    /// `none` (default): `<batch id>.jsonl`, `application/x-ndjson`; `gzip`:
    /// `<batch id>.jsonl.gz`, `application/gzip`.
    #[serde(default)]
    #[schema(default = S3Compression::default, inline)]
    pub compression: S3Compression,
}

/// How the bucket is named in a request's URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum S3Addressing {
    #[default]
    Path,
    VirtualHost,
}

/// Whether objects are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum S3Compression {
    #[default]
    None,
    Gzip,
}

impl S3Compression {
    pub const fn as_str(self) -> &'static str {
        match self {
            S3Compression::None => "none",
            S3Compression::Gzip => "gzip",
        }
    }
}

/// A batch is closed, and written, as soon as it holds `max_events` events
/// or `max_bytes` bytes of JSON Lines, or its first event has waited
/// `max_wait_seconds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct S3Batch {
    /// Default 500.
    #[serde(default = "default_max_events")]
    #[schema(default = default_max_events, minimum = 1, maximum = 10000)]
    pub max_events: u32,
    /// Bytes of JSON Lines before compression; default 4194304 (4 MiB).
    #[serde(default = "default_max_bytes")]
    #[schema(default = default_max_bytes, minimum = 1024, maximum = 16777216)]
    pub max_bytes: u64,
    /// Default 10.
    #[serde(default = "default_max_wait_seconds")]
    #[schema(default = default_max_wait_seconds, minimum = 1, maximum = 30)]
    pub max_wait_seconds: u32,
}

impl Default for S3Batch {
    fn default() -> Self {
        S3Batch {
            max_events: default_max_events(),
            max_bytes: default_max_bytes(),
            max_wait_seconds: default_max_wait_seconds(),
        }
    }
}

/// The bounds of [`S3Batch`]'s fields, inclusive.
pub const S3_MAX_EVENTS: (u32, u32) = (1, 10_000);
/// 1 KiB to 16 MiB of JSON Lines (before compression).
pub const S3_MAX_BYTES: (u64, u64) = (1024, 16 * 1024 * 1024);
/// 1 to 30 seconds: well within a message's lease (60 s by default).
pub const S3_MAX_WAIT_SECONDS: (u32, u32) = (1, 30);

const fn default_max_events() -> u32 {
    500
}

const fn default_max_bytes() -> u64 {
    4 * 1024 * 1024
}

const fn default_max_wait_seconds() -> u32 {
    10
}

impl S3Destination {
    /// The service's URL: `endpoint_url`, else AWS S3's for the region.
    pub fn service_url(&self) -> String {
        match &self.endpoint_url {
            Some(url) => url.clone(),
            None => format!("https://s3.{}.amazonaws.com", self.region),
        }
    }

    /// Every secret reference, with the JSON pointer of its field.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        let mut refs = vec![
            ("/destination/access_key_id", &self.access_key_id),
            ("/destination/secret_access_key", &self.secret_access_key),
        ];
        if let Some(t) = &self.session_token {
            refs.push(("/destination/session_token", t));
        }
        refs
    }
}
