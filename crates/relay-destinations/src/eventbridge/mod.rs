//! Amazon EventBridge: each message is one entry of one `PutEvents` over
//! EventBridge's JSON protocol, signed with AWS Signature Version 4
//! ([`crate::aws`]); EventBridge's `200` whose entry has an `EventId` is
//! the acknowledgement, and an entry with an `ErrorCode` is that message's
//! failed attempt, classified by the code.
//!
//! - config: [`EventBridgeDestination`] (the bus's name or ARN, region,
//!   optional service URL, `Source`, optional `DetailType`, the AWS kinds'
//!   credentials: keys as secret references, or a role);
//! - validation: the fields' rules ([`config::check`]: the bus's shape, the
//!   region against the ARN and an AWS host, `https://`, the `Source` and
//!   `DetailType` EventBridge takes) and the guard's registration check of
//!   the service URL ([`relay_net::Guard::check_url`]); a role is assumed
//!   once ([`Kind::check_access`]);
//! - client: the shared pooled [`HttpsClient`] (the guard checks every
//!   connection; redirects are never followed) with the endpoint's signer
//!   ([`aws::identity::Signer`]: keys, or the role's temporary credentials);
//! - deliver: one signed `POST` of `AWSEvents.PutEvents` with one entry
//!   ([`wire::entry`]): `Detail` the CloudEvent (structured mode only:
//!   EventBridge carries no attributes, so a binary binding has nowhere to
//!   put the context), `DetailType` the event type (or the configured one),
//!   `Time` the event's time, `TraceHeader` the event's `traceparent` as
//!   X-Ray's. Relay sends one entry per request, as the SQS and SNS kinds
//!   send one message: nothing is batched;
//! - classify: [`classify::classify`];
//! - record: the address, the bus, the `EventId`, or the entry's or the
//!   request's error code and message (`detail`).
//!
//! EventBridge parses and re-serializes `Detail`: what a rule's target
//! receives is the same JSON, not the same bytes, so no Standard Webhooks
//! signature can be verified there (see docs/destinations.md).

mod destination;
pub use destination::*;
pub mod classify;
pub mod config;
pub mod limits;
pub mod wire;

use std::collections::BTreeSet;
use std::sync::Arc;

use relay_core::outcome::Verdict;
use relay_core::secret::{SecretRef, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{Guard, HttpsClient, Limits, Response};
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::Answer;
use crate::{Invalid, Kind, Prepared, Record, Shared, Tenancy, aws, hosts};

/// The Amazon EventBridge kind.
pub struct EventBridge;

/// The service name requests are signed for.
pub const SERVICE: &str = "events";

/// An endpoint's client. Its `Debug` names the bus, never a credential.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    https: HttpsClient,
    config: EventBridgeDestination,
    signer: aws::identity::Signer,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("event_bus", &self.inner.config.event_bus)
            .finish_non_exhaustive()
    }
}

/// The result of one `PutEvents`.
#[derive(Debug)]
pub struct Put {
    pub event_bus: String,
    pub result: Result<Response, Failure>,
}

pub use crate::aws::Failure;

impl Client {
    /// The destination it puts events on.
    pub fn config(&self) -> &EventBridgeDestination {
        &self.inner.config
    }

    /// Puts `m` on the bus (one signed `PutEvents` of one entry, at the
    /// machine's clock, which the service compares with its own). What the
    /// service answered has every credential value redacted.
    pub async fn put(&self, m: &Prepared, limits: Limits) -> Put {
        let c = &self.inner.config;
        let mut put = Put {
            event_bus: c.event_bus.clone(),
            result: Err(Failure::Unsendable("the body is not a JSON object")),
        };
        let Some(entry) = wire::entry(m, &c.event_bus, &c.source, c.detail_type.as_deref()) else {
            return put;
        };
        let body = wire::request(&[entry]);
        put.result = self.post(wire::TARGET, body, aws::now(), limits).await;
        put
    }

    /// A signed `POST` of one JSON-protocol action (`AWSEvents.<Action>`)
    /// to the service's root, signed at `now` for the region.
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
                "the region or the endpoint URL makes no service URL".into(),
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

impl Kind for EventBridge {
    const NAME: &'static str = "eventbridge";
    type Config = EventBridgeDestination;
    type Client = Client;
    type Result = Put;

    fn schema() -> Option<RefOr<Schema>> {
        Some(EventBridgeDestination::schema())
    }

    fn secret_refs(config: &EventBridgeDestination) -> Vec<(&'static str, &SecretRef)> {
        config.secret_refs()
    }

    fn capacity(config: &EventBridgeDestination) -> crate::Capacity {
        limits::capacity(config)
    }

    /// The entry as EventBridge counts it: `Time`, `Source`, `DetailType`
    /// and `Detail` (the body).
    fn message_bytes(config: &EventBridgeDestination, message: &Prepared) -> u64 {
        let detail_type = config.detail_type.as_deref().unwrap_or(&message.event_type);
        limits::entry_bytes(&config.source, detail_type, &message.body)
    }

    fn credential_hosts(c: &EventBridgeDestination, guard: &Guard) -> BTreeSet<String> {
        [hosts::origin(
            guard,
            &config::service_url(c).unwrap_or_else(|| c.region.clone()),
        )]
        .into()
    }

    fn describe(c: &EventBridgeDestination) -> String {
        format!("{} in {}", c.event_bus, c.region)
    }

    async fn validate(config: &EventBridgeDestination, guard: &Guard) -> Result<(), Invalid> {
        config::check(config)?;
        let url = config::service_url(config).unwrap_or_default();
        let pointer = if config.endpoint_url.is_some() {
            "/destination/endpoint_url"
        } else {
            "/destination/region"
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
        config: &EventBridgeDestination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> Result<Client, Unresolved> {
        Self::build_for(config, shared, secrets, Tenancy::default())
    }

    fn build_for(
        config: &EventBridgeDestination,
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
        config: &EventBridgeDestination,
        shared: &Shared,
        tenancy: Tenancy<'_>,
    ) -> Result<(), Invalid> {
        config
            .credentials
            .check_access(&config.region, shared, tenancy)
            .await
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Put {
        client.put(message, limits).await
    }

    fn classify(put: &Put, now: Timestamp) -> Verdict {
        classify_put(put, now)
    }

    fn record(put: &Put) -> Record {
        let mut detail = serde_json::json!({"event_bus": put.event_bus});
        match &put.result {
            Ok(response) => {
                let a = wire::answer(&response.body_prefix);
                detail["status_code"] = response.status.as_u16().into();
                let entry = a.entries.first();
                if response.status.is_success() {
                    let id = entry.and_then(|e| e.event_id.clone());
                    detail["event_id"] = id.clone().into();
                    if let Some(e) = entry.filter(|e| e.error_code.is_some()) {
                        detail["error"] = serde_json::json!({
                            "code": e.error_code, "message": e.error_message, "entry": 0,
                        });
                    } else if id.is_none() {
                        detail["error"] = serde_json::json!({
                            "code": "unconfirmed",
                            "message": "the answer has no entry with an EventId",
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

/// Classifies `put` at `now` (the answer read once, borrowed by the table).
fn classify_put(put: &Put, now: Timestamp) -> Verdict {
    let response = match &put.result {
        Ok(response) => response,
        Err(Failure::Guard(e)) => return classify::classify(&Answer::Failed(e.kind()), now),
        Err(Failure::Unaddressable(_)) => return classify::classify(&Answer::Unaddressable, now),
        Err(Failure::Unsendable(_)) => return classify::classify(&Answer::Unsendable, now),
        Err(Failure::Credentials(e)) => return aws::identity::classify_failure(e),
    };
    let a = wire::answer(&response.body_prefix);
    let status = response.status.as_u16();
    if status == 200 {
        let answer = match a.entries.first() {
            None => Answer::NoEntry,
            Some(e) if e.error_code.is_none() && e.event_id.is_some() => Answer::Accepted,
            Some(e) => Answer::EntryFailed {
                code: e.error_code.as_deref().unwrap_or(""),
            },
        };
        return classify::classify(&answer, now);
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
