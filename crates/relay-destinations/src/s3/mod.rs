//! S3-compatible object storage: a batch of messages is one object, JSON
//! Lines of CloudEvents structured JSON, written with one signed `PUT`; the
//! service's `200` with the object's ETag is the acknowledgement.
//!
//! - config: [`crate::s3::S3Destination`] (bucket, prefix, region,
//!   service URL and addressing, credentials as secret references, batch
//!   limits, compression);
//! - validation: the fields' rules ([`config::check`]) and the guard's
//!   registration check of the URL requests go to
//!   ([`relay_net::Guard::check_url`]: `https://` only, port, every address
//!   the name resolves to);
//! - client: the shared pooled [`HttpsClient`] (the guard checks every
//!   connection; redirects are never followed) with the resolved
//!   credentials ([`SecretValue`]s, never in `Debug`);
//! - deliver: one `PUT` of a batch's object, signed with AWS Signature
//!   Version 4 ([`sigv4`], checked against AWS's published vectors). The
//!   [`Prepared`] it is given is the **batch**: `body` the object's exact
//!   bytes, `webhook_id` the batch id, `webhook_timestamp` the batch's
//!   time and `webhook_signature` the Standard Webhooks signature over the
//!   object's bytes; the object's name derives from the batch id and time
//!   alone ([`config::object_key`]), so every write of a batch writes the
//!   same bytes to the same object. The three signature values travel as
//!   the object's metadata (`x-amz-meta-webhook-id`, `-timestamp`,
//!   `-signature`);
//! - classify: [`classify::classify`];
//! - record: the address, the bucket, the object key, the ETag, or the
//!   status and S3's error code and message (`detail`).

mod destination;
pub use destination::*;
pub mod batch;
pub mod classify;
pub mod config;
pub mod limits;
/// Moved to the shared AWS module (S3 and SQS sign alike).
pub use crate::aws::sigv4;

use std::collections::BTreeSet;
use std::sync::Arc;

use relay_core::outcome::Verdict;
use relay_core::secret::SecretRef;
use relay_core::secret::{SecretValue, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{ErrorKind, Guard, GuardError, HttpsClient, Limits, Method, Response};
use sha2::{Digest, Sha256};
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::Answer;
use crate::{Invalid, Kind, Prepared, Record, Shared, aws, hosts};

/// The object storage kind.
pub struct S3;

/// The service name requests are signed for.
pub const SERVICE: &str = "s3";

/// An endpoint's client. Its `Debug` names the bucket, never a credential.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    https: HttpsClient,
    config: S3Destination,
    keys: aws::Keys,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("bucket", &self.inner.config.bucket)
            .field("service", &self.inner.config.service_url())
            .finish_non_exhaustive()
    }
}

/// The result of one write.
#[derive(Debug)]
pub struct Written {
    pub bucket: String,
    /// The object's name.
    pub key: String,
    pub result: Result<Response, Failure>,
}

/// A write that got no answer.
#[derive(Debug)]
pub enum Failure {
    /// The guard or the connection failed.
    Guard(GuardError),
    /// No object URL can be made from the configuration.
    Unaddressable(String),
}

/// A batch's object as it is written, the same at every write of the
/// batch: its name, bytes, type and signature values (sent as the object's
/// metadata `x-amz-meta-webhook-id`, `-timestamp`, `-signature`).
#[derive(Debug, Clone)]
pub struct Object<'a> {
    pub key: &'a str,
    pub bytes: bytes::Bytes,
    pub content_type: &'a str,
    pub batch_id: &'a str,
    pub webhook_timestamp: &'a str,
    pub webhook_signature: &'a str,
}

impl Client {
    /// The destination it writes to.
    pub fn config(&self) -> &S3Destination {
        &self.inner.config
    }

    /// Writes `object` (one signed `PUT`, at the machine's clock, which
    /// the service compares with its own). What the service answered has
    /// every credential value redacted.
    pub async fn write(&self, object: &Object<'_>, limits: Limits) -> Written {
        let meta = [
            ("webhook-id", object.batch_id),
            ("webhook-timestamp", object.webhook_timestamp),
            ("webhook-signature", object.webhook_signature),
        ];
        let result = self
            .put(
                object.key,
                object.bytes.clone(),
                object.content_type,
                &meta,
                now(),
                limits,
            )
            .await;
        // A service that quotes a credential back puts none in the record.
        let result = result.map(|mut response| {
            for secret in self.secrets() {
                response.body_prefix = crate::https::redact(&response.body_prefix, secret);
            }
            response
        });
        Written {
            bucket: self.inner.config.bucket.clone(),
            key: object.key.to_string(),
            result,
        }
    }

    /// Every credential value, for redacting a service's text.
    fn secrets(&self) -> impl Iterator<Item = &[u8]> {
        self.inner.keys.values().map(SecretValue::expose)
    }

    /// `PUT`s `body` as `key`, signed at `now` (the machine's clock: the
    /// service compares it with its own), with the object metadata `meta`
    /// (`x-amz-meta-<name>`).
    pub async fn put(
        &self,
        key: &str,
        body: bytes::Bytes,
        content_type: &str,
        meta: &[(&str, &str)],
        now: Timestamp,
        limits: Limits,
    ) -> Result<Response, Failure> {
        let c = &self.inner.config;
        let Some((url, path)) = config::object_url(c, key) else {
            return Err(Failure::Unaddressable(
                "the service URL makes no object URL".into(),
            ));
        };
        self.signed_put(&url, &path, body, content_type, meta, now, limits)
            .await
    }

    /// Makes the bucket (S3's `CreateBucket`, a `PUT` of the bucket with
    /// no body: the region's default location). Relay never calls it on
    /// a delivery path; `relay bench s3` makes its own bucket with it.
    pub async fn create_bucket(&self, limits: Limits) -> Result<Response, Failure> {
        let Some((url, path)) = config::bucket_url(&self.inner.config) else {
            return Err(Failure::Unaddressable(
                "the service URL makes no bucket URL".into(),
            ));
        };
        let empty = bytes::Bytes::new();
        self.signed_put(
            &url,
            &path,
            empty,
            "application/octet-stream",
            &[],
            now(),
            limits,
        )
        .await
    }

    /// A `PUT` of `body` to `url`, whose signed path is `path`.
    #[allow(clippy::too_many_arguments)]
    async fn signed_put(
        &self,
        url: &str,
        path: &str,
        body: bytes::Bytes,
        content_type: &str,
        meta: &[(&str, &str)],
        now: Timestamp,
        limits: Limits,
    ) -> Result<Response, Failure> {
        let c = &self.inner.config;
        let checked = self
            .inner
            .https
            .guard()
            .parse_url(url)
            .map_err(|e| Failure::Guard(GuardError::Rejected(e)))?;
        let host = checked.host_header();
        let payload = hex::encode(Sha256::digest(&body));
        let meta_names: Vec<String> = meta
            .iter()
            .map(|(n, _)| format!("x-amz-meta-{n}"))
            .collect();
        let mut signed: Vec<(&str, &str)> = vec![
            ("content-type", content_type),
            ("x-amz-content-sha256", &payload),
        ];
        for (name, (_, value)) in meta_names.iter().zip(meta) {
            signed.push((name, value));
        }
        let headers = aws::signed_headers(
            &aws::Unsigned {
                method: "PUT",
                path,
                host: &host,
                headers: &signed,
                payload_sha256: &payload,
            },
            &self.inner.keys,
            now,
            &c.region,
            SERVICE,
        )
        .map_err(Failure::Unaddressable)?;
        self.inner
            .https
            .send(Method::PUT, &checked, headers, body, limits)
            .await
            .map_err(Failure::Guard)
    }
}

fn now() -> Timestamp {
    aws::now()
}

/// The answer's S3 error `Code` and `Message`, when the body has them.
fn s3_error(response: &Response) -> (Option<String>, Option<String>) {
    let body = String::from_utf8_lossy(&response.body_prefix);
    (
        classify::element(&body, "Code").map(str::to_string),
        classify::element(&body, "Message").map(str::to_string),
    )
}

impl Kind for S3 {
    const NAME: &'static str = "s3";
    type Config = S3Destination;
    type Client = Client;
    type Result = Written;

    fn schema() -> Option<RefOr<Schema>> {
        Some(S3Destination::schema())
    }

    fn secret_refs(config: &S3Destination) -> Vec<(&'static str, &SecretRef)> {
        config.secret_refs()
    }

    fn capacity(_config: &S3Destination) -> crate::Capacity {
        limits::CAPACITY
    }

    fn credential_hosts(c: &S3Destination, guard: &Guard) -> BTreeSet<String> {
        [match &c.endpoint_url {
            Some(url) => hosts::origin(guard, url),
            None => format!("s3.{}.amazonaws.com", c.region),
        }]
        .into()
    }

    fn describe(c: &S3Destination) -> String {
        format!("s3://{}/{}", c.bucket, c.prefix)
    }

    async fn validate(config: &S3Destination, guard: &Guard) -> Result<(), Invalid> {
        config::check(config)?;
        let Some(url) = config::registration_url(config) else {
            return Err(Invalid {
                code: "invalid_url",
                pointer: "/destination/endpoint_url",
                message: "the service URL is `https://host[:port]`, without a path, query, fragment or user information".into(),
            });
        };
        guard
            .check_url(&url)
            .await
            .map(drop)
            .map_err(|rejection| Invalid {
                code: rejection.code(),
                pointer: "/destination/endpoint_url",
                message: rejection.to_string(),
            })
    }

    fn build(
        config: &S3Destination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> Result<Client, Unresolved> {
        let keys = aws::Keys::resolve(
            secrets,
            &config.access_key_id,
            &config.secret_access_key,
            config.session_token.as_ref(),
        )?;
        Ok(Client {
            inner: Arc::new(Inner {
                https: shared.https.clone(),
                config: config.clone(),
                keys,
            }),
        })
    }

    async fn deliver(client: &Client, batch: &Prepared, limits: Limits) -> Written {
        let c = client.config();
        let time = Timestamp::from_millis(
            batch
                .webhook_timestamp
                .parse::<i64>()
                .unwrap_or(0)
                .saturating_mul(1000),
        );
        let key = config::object_key(
            &c.prefix,
            &batch.webhook_id,
            &time.to_rfc3339(),
            c.compression,
        );
        client
            .write(
                &Object {
                    key: &key,
                    bytes: batch.body.clone(),
                    content_type: config::content_type(c.compression),
                    batch_id: &batch.webhook_id,
                    webhook_timestamp: &batch.webhook_timestamp,
                    webhook_signature: &batch.webhook_signature,
                },
                limits,
            )
            .await
    }

    fn classify(written: &Written, now: Timestamp) -> Verdict {
        match &written.result {
            Ok(response) => {
                let (code, _) = s3_error(response);
                let retry_after = response
                    .headers
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok());
                classify::classify(
                    &Answer::Status {
                        status: response.status.as_u16(),
                        code: code.as_deref(),
                        retry_after,
                    },
                    now,
                )
            }
            Err(Failure::Guard(e)) => classify::classify(&Answer::Failed(e.kind()), now),
            Err(Failure::Unaddressable(_)) => classify::classify(&Answer::Unaddressable, now),
        }
    }

    fn record(written: &Written) -> Record {
        match &written.result {
            Ok(response) => {
                let status = response.status.as_u16();
                let mut detail = serde_json::json!({
                    "bucket": written.bucket,
                    "key": written.key,
                    "status_code": status,
                });
                if response.status.is_success() {
                    detail["etag"] = response
                        .headers
                        .get("etag")
                        .and_then(|v| v.to_str().ok())
                        .map(|v| v.trim_matches('"').to_string())
                        .into();
                } else {
                    let (code, message) = s3_error(response);
                    detail["error"] = serde_json::json!({"code": code, "message": message});
                }
                Record {
                    destination: Some(response.remote_addr),
                    error: None,
                    detail,
                }
            }
            Err(Failure::Guard(e)) => Record {
                destination: e.remote_addr(),
                error: Some((e.kind(), e.to_string())),
                detail: serde_json::json!({"bucket": written.bucket, "key": written.key}),
            },
            Err(Failure::Unaddressable(reason)) => Record {
                destination: None,
                error: Some((ErrorKind::InvalidUrl, reason.clone())),
                detail: serde_json::json!({"bucket": written.bucket, "key": written.key}),
            },
        }
    }
}

#[cfg(test)]
mod tests;
