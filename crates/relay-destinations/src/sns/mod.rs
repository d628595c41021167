//! Amazon SNS, standard and FIFO topics: each message is one `Publish`
//! over SNS's query protocol, signed with AWS Signature Version 4
//! ([`crate::aws`]); SNS's `200` with a `MessageId` is the
//! acknowledgement. SNS returns no digest of what it took (SQS's kind
//! checks MD5s; there is nothing to check here).
//!
//! - config: [`SnsDestination`] (topic ARN, optional service URL, the AWS
//!   kinds' credentials as secret references, content mode, the topic's
//!   largest message);
//! - validation: the fields' rules ([`config::check`]: the ARN's shape,
//!   `https://`, an AWS host in the ARN's region) and the guard's
//!   registration check of the service URL ([`relay_net::Guard::check_url`]:
//!   port, every address the name resolves to);
//! - client: the shared pooled [`HttpsClient`] (the guard checks every
//!   connection; redirects are never followed) with the resolved
//!   credentials ([`aws::Keys`], never in `Debug`);
//! - deliver: one signed `POST` of `Action=Publish` to the service's root;
//!   the message is the CloudEvent (structured) or its data (binary), the
//!   message attributes SQS's kind's ([`crate::aws::message`], at most
//!   ten); on a FIFO topic the `MessageGroupId` is the ordering key and the
//!   `MessageDeduplicationId` the event id;
//! - classify: [`classify::classify`];
//! - record: the address, the topic, the `MessageId` (and FIFO sequence
//!   number), or the status and SNS's error code and message (`detail`).

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

/// The Amazon SNS kind.
pub struct Sns;

/// The service name requests are signed for.
pub const SERVICE: &str = "sns";

/// An endpoint's client. Its `Debug` names the topic, never a credential.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    https: HttpsClient,
    config: SnsDestination,
    signer: aws::identity::Signer,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("topic_arn", &self.inner.config.topic_arn)
            .finish_non_exhaustive()
    }
}

/// The result of one `Publish`.
#[derive(Debug)]
pub struct Published {
    pub topic_arn: String,
    pub result: Result<Response, Failure>,
}

pub use crate::aws::Failure;

impl Client {
    /// The destination it publishes to.
    pub fn config(&self) -> &SnsDestination {
        &self.inner.config
    }

    /// Publishes `m` (one signed `Publish`, at the machine's clock, which
    /// the service compares with its own). What the service answered has
    /// every credential value redacted.
    pub async fn publish(&self, m: &Prepared, limits: Limits) -> Published {
        let c = &self.inner.config;
        let mut published = Published {
            topic_arn: c.topic_arn.clone(),
            result: Err(Failure::Unsendable("the message is not UTF-8, or empty")),
        };
        let Some(message) = wire::valid_message(&m.body) else {
            return published;
        };
        let fifo = c.is_fifo().then(|| wire::fifo_ids(m));
        let body = wire::request(&c.topic_arn, message, &wire::attributes(m), fifo.as_ref());
        published.result = self.post(body, aws::now(), limits).await;
        published
    }

    /// A signed `POST` of one query-protocol action's form (`Action=…`)
    /// to the service's root, signed at `now` for the topic's region.
    pub async fn post(
        &self,
        form: Vec<u8>,
        now: Timestamp,
        limits: Limits,
    ) -> Result<Response, Failure> {
        let c = &self.inner.config;
        let (Some(url), Some(region)) = (config::service_url(c), config::region(c)) else {
            return Err(Failure::Unaddressable(
                "the topic ARN or the endpoint URL makes no service URL".into(),
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
            &[("content-type", wire::CONTENT_TYPE)],
            form,
            &keys,
            now,
            region,
            SERVICE,
            limits,
        )
        .await
    }
}

impl Kind for Sns {
    const NAME: &'static str = "sns";
    type Config = SnsDestination;
    type Client = Client;
    type Result = Published;

    fn schema() -> Option<RefOr<Schema>> {
        Some(SnsDestination::schema())
    }

    fn secret_refs(config: &SnsDestination) -> Vec<(&'static str, &SecretRef)> {
        config.secret_refs()
    }

    fn content_mode(config: &SnsDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut SnsDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(config: &SnsDestination) -> crate::Capacity {
        limits::capacity(config)
    }

    /// The message and every attribute's name, type and value, as SNS
    /// counts.
    fn message_bytes(_config: &SnsDestination, message: &Prepared) -> u64 {
        message.body.len() as u64 + wire::attributes_bytes(&wire::attributes(message))
    }

    fn credential_hosts(c: &SnsDestination, guard: &Guard) -> BTreeSet<String> {
        [hosts::origin(
            guard,
            &config::service_url(c).unwrap_or_else(|| c.topic_arn.clone()),
        )]
        .into()
    }

    fn describe(c: &SnsDestination) -> String {
        c.topic_arn.clone()
    }

    async fn validate(config: &SnsDestination, guard: &Guard) -> Result<(), Invalid> {
        config::check(config)?;
        let url = config::service_url(config).unwrap_or_default();
        let pointer = if config.endpoint_url.is_some() {
            "/destination/endpoint_url"
        } else {
            "/destination/topic_arn"
        };
        guard
            .check_url(&url)
            .await
            .map(drop)
            .map_err(|rejection| Invalid {
                code: rejection.code(),
                pointer,
                message: rejection.to_string(),
            })
    }

    /// Without a tenant: keys only (a role names no `ExternalId` here).
    fn build(
        config: &SnsDestination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> Result<Client, Unresolved> {
        Self::build_for(config, shared, secrets, Tenancy::default())
    }

    fn build_for(
        config: &SnsDestination,
        shared: &Shared,
        secrets: &Secrets,
        tenancy: Tenancy<'_>,
    ) -> Result<Client, Unresolved> {
        let signer = config.credentials.signer(
            secrets,
            config::region(config).unwrap_or("us-east-1"),
            shared,
            tenancy,
        )?;
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
        config: &SnsDestination,
        shared: &Shared,
        tenancy: Tenancy<'_>,
    ) -> Result<(), Invalid> {
        config
            .credentials
            .check_access(
                config::region(config).unwrap_or("us-east-1"),
                shared,
                tenancy,
            )
            .await
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Published {
        client.publish(message, limits).await
    }

    fn classify(published: &Published, now: Timestamp) -> Verdict {
        classify_published(published, now)
    }

    fn record(published: &Published) -> Record {
        let mut detail = serde_json::json!({"topic_arn": published.topic_arn});
        match &published.result {
            Ok(response) => {
                let a = wire::answer(&response.body_prefix);
                detail["status_code"] = response.status.as_u16().into();
                if response.status.is_success() {
                    detail["message_id"] = a.message_id.clone().into();
                    if let Some(n) = a.sequence_number {
                        detail["sequence_number"] = n.into();
                    }
                    if a.message_id.is_none() {
                        detail["error"] = serde_json::json!({
                            "code": "unconfirmed",
                            "message": "the answer has no MessageId",
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

/// Classifies `published` at `now` (the answer read once, borrowed by the
/// table).
fn classify_published(published: &Published, now: Timestamp) -> Verdict {
    let response = match &published.result {
        Ok(response) => response,
        Err(Failure::Guard(e)) => return classify::classify(&Answer::Failed(e.kind()), now),
        Err(Failure::Unaddressable(_)) => return classify::classify(&Answer::Unaddressable, now),
        Err(Failure::Unsendable(_)) => return classify::classify(&Answer::Unsendable, now),
        Err(Failure::Credentials(e)) => return aws::identity::classify_failure(e),
    };
    let a = wire::answer(&response.body_prefix);
    let status = response.status.as_u16();
    if status == 200 {
        return classify::classify(
            &Answer::Published {
                message_id: a.message_id.is_some(),
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
