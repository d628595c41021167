//! The S3-compatible object storage destination's configuration (see
//! `Destination`'s schema and `docs/destinations.md`).
//!
//! Messages of such an endpoint are written in batches, as JSON Lines of
//! CloudEvents structured JSON, one object per batch whose name derives from
//! the batch id. The rules of the fields (bounds, names) are checked at
//! registration by the kind (`relay_destinations::s3`); the bounds are here
//! so the schema and the check say the same.

use serde::{Deserialize, Serialize};

use crate::secret::SecretRef;

/// A bucket of an S3-compatible service (AWS S3, MinIO, Ceph, R2, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct S3Destination {
    /// The bucket name (S3's rules: 3–63 of `a-z 0-9 . -`).
    pub bucket: String,
    /// Prepended to every object name (e.g. `relay/orders/`); empty: none.
    #[serde(default)]
    pub prefix: String,
    /// The region the requests are signed for (`us-east-1`, `auto`, …).
    pub region: String,
    /// The service's URL (`https://…`, no path); `null`: AWS S3 in
    /// `region`, `https://s3.<region>.amazonaws.com`. Checked by the
    /// outbound guard at registration and at every connection.
    #[serde(default)]
    pub endpoint_url: Option<String>,
    /// How the bucket is named in requests: `path` (the default,
    /// `https://host/bucket/key`, which every S3-compatible service
    /// answers) or `virtual_host` (`https://bucket.host/key`).
    #[serde(default)]
    pub addressing: S3Addressing,
    /// A reference to the access key id.
    pub access_key_id: SecretRef,
    /// A reference to the secret access key, never the key itself.
    pub secret_access_key: SecretRef,
    /// A reference to a session token (temporary credentials), sent as
    /// `x-amz-security-token`.
    #[serde(default)]
    pub session_token: Option<SecretRef>,
    /// When a batch is closed and written.
    #[serde(default)]
    pub batch: S3Batch,
    /// `none` (default) or `gzip`: the object is the gzip of the JSON Lines.
    #[serde(default)]
    pub compression: S3Compression,
}

/// How the bucket is named in a request's URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum S3Addressing {
    #[default]
    Path,
    VirtualHost,
}

/// Whether objects are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct S3Batch {
    #[serde(default = "default_max_events")]
    pub max_events: u32,
    #[serde(default = "default_max_bytes")]
    pub max_bytes: u64,
    #[serde(default = "default_max_wait_seconds")]
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

/// The `s3` entry of `Destination`'s OpenAPI schema.
pub(crate) fn schema() -> serde_json::Value {
    let reference = |what: &str| {
        serde_json::json!({
            "type": "string",
            "pattern": "^(secret:|env:|file:/)",
            "description": format!("A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the {what}, never the value itself. See docs/destinations.md.")
        })
    };
    let mut token =
        reference("session token (temporary credentials), sent as `x-amz-security-token`");
    token["type"] = serde_json::json!(["string", "null"]);
    serde_json::json!({
        "type": "object",
        "title": "s3",
        "description": "A bucket of an S3-compatible object storage service. Messages are written in batches (by count, size or time) as JSON Lines of CloudEvents structured JSON, one object per batch named after the batch id, so rewriting a batch writes the same bytes to the same object; the object write acknowledgement (`200` with an ETag) is the success of every message of the batch. The object is signed as a whole (Standard Webhooks values in its metadata). See docs/destinations.md.",
        "properties": {
            "kind": {"type": "string", "enum": ["s3"]},
            "bucket": {"type": "string", "minLength": 3, "maxLength": 63, "description": "The bucket: lower-case letters, digits, `.` and `-`, starting and ending with a letter or digit, not an IP address."},
            "prefix": {"type": "string", "maxLength": 512, "description": "Prepended to every object name (default empty), e.g. `relay/orders/`: S3's safe characters `A-Z a-z 0-9 ! - _ . * ' ( ) /` and `=`; not starting with `/`, no empty, `.` or `..` segment."},
            "region": {"type": "string", "minLength": 1, "maxLength": 64, "description": "The region requests are signed for (AWS Signature Version 4): lower-case letters, digits and `-` (e.g. `eu-west-1`; `us-east-1` for most other services, `auto` for R2)."},
            "endpoint_url": {"type": ["string", "null"], "description": "The service's `https://` URL without a path (e.g. `https://minio.internal.example:9000`); `null` (default): AWS S3, `https://s3.<region>.amazonaws.com`. Checked by the outbound guard at registration and at every connection; redirects are never followed."},
            "addressing": {"type": "string", "enum": ["path", "virtual_host"], "description": "`path` (default): `https://host/bucket/key`, answered by every S3-compatible service; `virtual_host`: `https://bucket.host/key` (the bucket must then be a single DNS label, without `.`)."},
            "access_key_id": reference("access key id"),
            "secret_access_key": reference("secret access key"),
            "session_token": token,
            "batch": {
                "type": "object",
                "description": "A batch is closed and written once it holds `max_events` events or `max_bytes` bytes of JSON Lines, or its first event has waited `max_wait_seconds`.",
                "properties": {
                    "max_events": {"type": "integer", "minimum": S3_MAX_EVENTS.0, "maximum": S3_MAX_EVENTS.1, "description": "Default 500."},
                    "max_bytes": {"type": "integer", "minimum": S3_MAX_BYTES.0, "maximum": S3_MAX_BYTES.1, "description": "Bytes of JSON Lines before compression; default 4194304 (4 MiB)."},
                    "max_wait_seconds": {"type": "integer", "minimum": S3_MAX_WAIT_SECONDS.0, "maximum": S3_MAX_WAIT_SECONDS.1, "description": "Default 10."}
                },
                "additionalProperties": false
            },
            "compression": {"type": "string", "enum": ["none", "gzip"], "description": "`none` (default): `<batch id>.jsonl`, `application/x-ndjson`; `gzip`: `<batch id>.jsonl.gz`, `application/gzip`."}
        },
        "required": ["kind", "bucket", "region", "access_key_id", "secret_access_key"],
        "additionalProperties": false
    })
}
