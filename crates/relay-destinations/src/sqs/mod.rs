//! Amazon SQS, standard and FIFO queues: each message is one
//! `SendMessage` over SQS's JSON protocol, signed with AWS Signature
//! Version 4 ([`crate::aws`]); SQS's `200` with a `MessageId`, whose MD5
//! digests of the body and the attributes equal those of what was sent,
//! is the acknowledgement.
//!
//! - config: [`SqsDestination`] (queue URL, region, credentials as secret
//!   references, content mode, the queue's largest message);
//! - validation: the fields' rules ([`config::check`]: the queue URL's
//!   shape, `https://`, the region of an AWS host) and the guard's
//!   registration check of the service URL ([`relay_net::Guard::check_url`]:
//!   port, every address the name resolves to);
//! - client: the shared pooled [`HttpsClient`] (the guard checks every
//!   connection; redirects are never followed) with the resolved
//!   credentials ([`aws::Keys`], never in `Debug`);
//! - deliver: one signed `POST` of `AmazonSQS.SendMessage` to the queue's
//!   service; the body is the CloudEvent (structured) or its data (binary),
//!   the message attributes the Standard Webhooks values and the binding's
//!   ([`wire::attributes`], at most ten); on a FIFO queue the
//!   `MessageGroupId` is the ordering key and the `MessageDeduplicationId`
//!   the event id ([`wire::fifo_ids`]);
//! - classify: [`classify::classify`];
//! - record: the address, the queue, the `MessageId` (and FIFO sequence
//!   number), or the status and SQS's error code and message (`detail`).

mod destination;
pub use destination::*;
pub mod classify;
pub mod config;
pub mod limits;
pub mod wire;

use std::collections::BTreeSet;
use std::sync::Arc;

use relay_core::model::ContentMode;
use relay_core::outcome::Verdict;
use relay_core::secret::{SecretRef, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{Guard, HttpsClient, Limits, Response};
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::Answer;
use crate::{Invalid, Kind, Prepared, Record, Shared, Tenancy, aws, hosts};

/// The Amazon SQS kind.
pub struct Sqs;

/// The service name requests are signed for.
pub const SERVICE: &str = "sqs";

/// An endpoint's client. Its `Debug` names the queue, never a credential.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    https: HttpsClient,
    config: SqsDestination,
    signer: aws::identity::Signer,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("queue_url", &self.inner.config.queue_url)
            .finish_non_exhaustive()
    }
}

/// The result of one `SendMessage`.
#[derive(Debug)]
pub struct Sent {
    pub queue_url: String,
    /// The digests expected of the answer: the body's and, when the
    /// message had attributes, theirs.
    pub md5_of_body: String,
    pub md5_of_attributes: Option<String>,
    pub result: Result<Response, Failure>,
}

pub use crate::aws::Failure;

impl Client {
    /// The destination it sends to.
    pub fn config(&self) -> &SqsDestination {
        &self.inner.config
    }

    /// Sends `m` (one signed `SendMessage`, at the machine's clock, which
    /// the service compares with its own). What the service answered has
    /// every credential value redacted.
    pub async fn send(&self, m: &Prepared, limits: Limits) -> Sent {
        let c = &self.inner.config;
        let attributes = wire::attributes(m);
        let mut sent = Sent {
            queue_url: c.queue_url.clone(),
            md5_of_body: String::new(),
            md5_of_attributes: (!attributes.is_empty())
                .then(|| wire::md5_of_attributes(&attributes)),
            result: Err(Failure::Unsendable(
                "the body is not UTF-8 of the characters SQS takes",
            )),
        };
        let Some(body) = wire::valid_body(&m.body) else {
            return sent;
        };
        sent.md5_of_body = wire::md5_of_body(body);
        let fifo = c.is_fifo().then(|| wire::fifo_ids(m));
        let request = wire::request(&c.queue_url, body, &attributes, fifo.as_ref());
        sent.result = self.post(wire::TARGET, request, aws::now(), limits).await;
        sent
    }

    /// A signed `POST` of one JSON-protocol action (`AmazonSQS.<Action>`)
    /// to the queue's service, signed at `now`.
    pub async fn post(
        &self,
        target: &str,
        body: Vec<u8>,
        now: Timestamp,
        limits: Limits,
    ) -> Result<Response, Failure> {
        let c = &self.inner.config;
        let Some(url) = config::service_url(c) else {
            return Err(Failure::Unaddressable(
                "the queue URL makes no service URL".into(),
            ));
        };
        let keys = self
            .inner
            .signer
            .keys(limits)
            .await
            .map_err(Failure::Credentials)?;
        aws::post(
            &self.inner.https,
            &url,
            &[
                ("content-type", wire::CONTENT_TYPE),
                ("x-amz-target", target),
            ],
            body,
            &keys,
            now,
            &c.region,
            SERVICE,
            limits,
        )
        .await
    }
}

/// SQS's answer to a send, read.
fn read(response: &Response) -> wire::Answer {
    let query_error = response
        .headers
        .get("x-amzn-query-error")
        .and_then(|v| v.to_str().ok());
    wire::answer(&response.body_prefix, query_error)
}

impl Kind for Sqs {
    const NAME: &'static str = "sqs";
    type Config = SqsDestination;
    type Client = Client;
    type Result = Sent;

    fn schema() -> Option<RefOr<Schema>> {
        Some(SqsDestination::schema())
    }

    fn secret_refs(config: &SqsDestination) -> Vec<(&'static str, &SecretRef)> {
        config.secret_refs()
    }

    fn content_mode(config: &SqsDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut SqsDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(config: &SqsDestination) -> crate::Capacity {
        limits::capacity(config)
    }

    /// The body and every attribute's name, type and value, as SQS counts.
    fn message_bytes(_config: &SqsDestination, message: &Prepared) -> u64 {
        message.body.len() as u64 + wire::attributes_bytes(&wire::attributes(message))
    }

    fn credential_hosts(c: &SqsDestination, guard: &Guard) -> BTreeSet<String> {
        [hosts::origin(
            guard,
            &config::service_url(c).unwrap_or_else(|| c.queue_url.clone()),
        )]
        .into()
    }

    fn describe(c: &SqsDestination) -> String {
        c.queue_url.clone()
    }

    async fn validate(config: &SqsDestination, guard: &Guard) -> Result<(), Invalid> {
        config::check(config)?;
        let url = config::service_url(config).unwrap_or_default();
        guard
            .check_url(&url)
            .await
            .map(drop)
            .map_err(|rejection| Invalid {
                code: rejection.code(),
                pointer: "/destination/queue_url",
                message: rejection.to_string(),
            })
    }

    /// Without a tenant: keys only (a role names no `ExternalId` here).
    fn build(
        config: &SqsDestination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> Result<Client, Unresolved> {
        Self::build_for(config, shared, secrets, Tenancy::default())
    }

    fn build_for(
        config: &SqsDestination,
        shared: &Shared,
        secrets: &Secrets,
        tenancy: Tenancy<'_>,
    ) -> Result<Client, Unresolved> {
        let signer = config
            .credentials
            .signer(secrets, &config.region, shared, tenancy)?;
        Ok(Client {
            inner: Arc::new(Inner {
                https: shared.https.clone(),
                config: config.clone(),
                signer,
            }),
        })
    }

    /// A role is assumed once with the tenant's `ExternalId`.
    async fn check_access(
        config: &SqsDestination,
        shared: &Shared,
        tenancy: Tenancy<'_>,
    ) -> Result<(), Invalid> {
        config
            .credentials
            .check_access(&config.region, shared, tenancy)
            .await
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Sent {
        client.send(message, limits).await
    }

    fn classify(sent: &Sent, now: Timestamp) -> Verdict {
        classify_sent(sent, now)
    }

    fn record(sent: &Sent) -> Record {
        let mut detail = serde_json::json!({"queue_url": sent.queue_url});
        match &sent.result {
            Ok(response) => {
                let a = read(response);
                detail["status_code"] = response.status.as_u16().into();
                if response.status.is_success() {
                    detail["message_id"] = a.message_id.clone().into();
                    if let Some(n) = a.sequence_number {
                        detail["sequence_number"] = n.into();
                    }
                    if a.message_id.is_none() || !digests_match(sent, &read(response)) {
                        detail["error"] = serde_json::json!({
                            "code": "unconfirmed",
                            "message": "the answer has no MessageId, or MD5 digests other than those of what was sent",
                        });
                    }
                } else {
                    detail["error"] =
                        serde_json::json!({"code": a.error_code, "message": a.error_message});
                }
                Record {
                    destination: Some(response.remote_addr),
                    error: None,
                    detail,
                }
            }
            Err(failure) => failure.record(detail),
        }
    }
}

/// Whether SQS's digests are those of what was sent (an attribute digest
/// is required exactly when attributes were sent).
fn digests_match(sent: &Sent, a: &wire::Answer) -> bool {
    a.md5_of_body.as_deref() == Some(sent.md5_of_body.as_str())
        && a.md5_of_attributes == sent.md5_of_attributes
}

/// Classifies `sent` at `now` (the answer read once, borrowed by the
/// table).
fn classify_sent(sent: &Sent, now: Timestamp) -> Verdict {
    let response = match &sent.result {
        Ok(response) => response,
        Err(Failure::Guard(e)) => return classify::classify(&Answer::Failed(e.kind()), now),
        Err(Failure::Unaddressable(_)) => return classify::classify(&Answer::Unaddressable, now),
        Err(Failure::Unsendable(_)) => return classify::classify(&Answer::Unsendable, now),
        Err(Failure::Credentials(e)) => return aws::identity::classify_failure(e),
    };
    let a = read(response);
    let status = response.status.as_u16();
    if status == 200 {
        return classify::classify(
            &Answer::Sent {
                digests_match: a.message_id.is_some() && digests_match(sent, &a),
            },
            now,
        );
    }
    let retry_after = aws::retry_after(response);
    classify::classify(
        &Answer::Status {
            status,
            code: a.error_code.as_deref(),
            retry_after,
        },
        now,
    )
}

#[cfg(test)]
mod tests;
