//! Google Cloud Pub/Sub: each message is one `topics.publish` of one
//! Pub/Sub message over the REST API, with an OAuth 2.0 access token got
//! with a service account's key; Pub/Sub's `200` with the one message id
//! it assigned is the acknowledgement.
//!
//! - config: [`PubsubDestination`] (topic, endpoint, the key as a secret
//!   reference, the token URL, `ordered`, content mode);
//! - validation: the fields' rules ([`config::check`]: the topic's name,
//!   `https://`, a Google host's shape, ordering's regional endpoint), the
//!   guard's registration check of the endpoint and the token URL
//!   ([`relay_net::Guard::check_url`]), and once the reference resolves,
//!   the key ([`key::ServiceAccount::parse`]; its `token_uri` must be the
//!   configured token URL, so a key cannot send its assertion to a host
//!   the guard did not check at registration);
//! - client: the shared pooled [`HttpsClient`] (the guard checks every
//!   connection, the token endpoint's too; redirects are never followed)
//!   and the endpoint's token cache ([`TokenSource`] with the JWT bearer
//!   grant, [`key::JwtBearer`]: one fetch for concurrent misses, reused
//!   until shortly before it expires by the engine's clock), or, with
//!   `workload_identity`, the installation's shared one ([`crate::gcp`]: the
//!   metadata server's tokens, when the operator allows the topic's
//!   project);
//! - deliver: the token (a failed fetch ends the attempt), then one `POST
//!   {endpoint}/v1/{topic}:publish` of `{"messages": [{data, attributes,
//!   orderingKey}]}` ([`wire`]); a `401` forgets the token, fetches one new
//!   token and publishes once more, in the same attempt;
//! - classify: [`classify::classify`];
//! - record: the address, the topic, the message id, or the status and
//!   the `google.rpc.Status` name and message (`detail`), and what
//!   happened to the token (`detail.oauth2`).

mod destination;
pub use destination::*;
pub mod classify;
pub mod config;
pub mod key;
pub mod limits;
pub mod wire;

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;
use relay_core::model::ContentMode;
use relay_core::outcome::{HealthWarning, Verdict};
use relay_core::secret::{SecretRef, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{
    ErrorKind, Guard, GuardError, HeaderName, HeaderValue, HttpsClient, Limits, Response,
};
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::Answer;
use self::key::{JwtBearer, ServiceAccount};
use crate::https::TokenUse;
use crate::https::oauth2::TokenError;
use crate::https::oauth2::source::TokenSource;
use crate::{Invalid, Kind, Prepared, Record, Shared, Tenancy, hosts};

/// The Google Cloud Pub/Sub kind.
pub struct Pubsub;

/// An endpoint's client. Its `Debug` names the topic and the account,
/// never the key or a token.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    https: HttpsClient,
    config: PubsubDestination,
    /// The publish URL (`None`: the configuration makes none).
    url: Option<String>,
    /// The endpoint's own token cache (its key's), the installation's
    /// shared one, or why the installation's identity is not offered.
    tokens: Result<TokenSource, &'static str>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("topic", &self.inner.config.topic)
            .field("endpoint", &self.inner.config.endpoint)
            .field("tokens", &self.inner.tokens)
            .finish_non_exhaustive()
    }
}

/// The result of one publish.
#[derive(Debug)]
pub struct Sent {
    pub topic: String,
    pub result: Result<Response, Failure>,
    /// What the attempt did with its token, when it had one.
    pub token: Option<TokenUse>,
}

/// A publish that got no answer, or was never made.
#[derive(Debug)]
pub enum Failure {
    /// The guard or the connection failed.
    Guard(GuardError),
    /// No request can be made from the configuration.
    Unaddressable(&'static str),
    /// Attributes Pub/Sub cannot carry.
    Unsendable(&'static str),
    /// The access token could not be had (`after_401`: the fetch after
    /// Pub/Sub refused the previous token).
    Token { error: TokenError, after_401: bool },
    /// The installation's workload identity is not offered for the topic.
    NoIdentity(&'static str),
}

impl Client {
    /// The destination it publishes to.
    pub fn config(&self) -> &PubsubDestination {
        &self.inner.config
    }

    /// Publishes `m`: see the module documentation.
    pub async fn send(&self, m: &Prepared, limits: Limits) -> Sent {
        let c = &self.inner.config;
        let mut sent = Sent {
            topic: c.topic.clone(),
            result: Err(Failure::Unaddressable(
                "the endpoint and topic make no publish URL",
            )),
            token: None,
        };
        let Some(url) = &self.inner.url else {
            return sent;
        };
        let attributes = wire::attributes(m);
        if let Some(why) = wire::unsendable(&attributes) {
            sent.result = Err(Failure::Unsendable(why));
            return sent;
        }
        let key = if c.ordered {
            wire::ordering_key(m)
        } else {
            None
        };
        let body = Bytes::from(wire::request(&m.body, &attributes, key.as_deref()));
        // One deadline for the whole attempt, token fetches and the second
        // publish included.
        let deadline = std::time::Instant::now() + limits.total_timeout;
        let left = || Limits {
            total_timeout: deadline.saturating_duration_since(std::time::Instant::now()),
            ..limits
        };
        let tokens = match &self.inner.tokens {
            Ok(tokens) => tokens,
            Err(why) => {
                sent.result = Err(Failure::NoIdentity(why));
                return sent;
            }
        };
        let (bearer, fetched) = match tokens.bearer(left()).await {
            Ok(b) => b,
            Err(error) => {
                sent.result = Err(Failure::Token {
                    error,
                    after_401: false,
                });
                return sent;
            }
        };
        let result = self
            .post(url, body.clone(), &bearer.authorization, left())
            .await;
        if !matches!(&result, Ok(r) if r.status.as_u16() == 401) {
            sent.token = Some(TokenUse {
                fetched,
                retried_with_new_token: false,
            });
            sent.result = result.map_err(Failure::Guard);
            return sent;
        }
        // Pub/Sub refused the token: forget it, fetch one new token (or
        // take the one a concurrent attempt fetched meanwhile), once more.
        tokens.invalidate(bearer.generation);
        match tokens.bearer(left()).await {
            Ok((renewed, _)) => {
                sent.token = Some(TokenUse {
                    fetched: true,
                    retried_with_new_token: true,
                });
                sent.result = self
                    .post(url, body, &renewed.authorization, left())
                    .await
                    .map_err(Failure::Guard);
            }
            Err(error) => {
                sent.result = Err(Failure::Token {
                    error,
                    after_401: true,
                });
            }
        }
        sent
    }

    /// One `POST` of the publish request with the bearer token; the token
    /// is cut out of what is kept of the answer.
    async fn post(
        &self,
        url: &str,
        body: Bytes,
        authorization: &HeaderValue,
        limits: Limits,
    ) -> Result<Response, GuardError> {
        let headers = vec![
            (
                HeaderName::from_static("content-type"),
                HeaderValue::from_static("application/json"),
            ),
            (
                HeaderName::from_static("authorization"),
                authorization.clone(),
            ),
        ];
        let mut result = self.inner.https.post_url(url, headers, body, limits).await;
        if let Ok(response) = &mut result {
            let value = authorization.as_bytes();
            response.body_prefix = crate::https::redact(&response.body_prefix, value);
            if let Some(token) = value.strip_prefix(b"Bearer ") {
                response.body_prefix = crate::https::redact(&response.body_prefix, token);
            }
        }
        result
    }
}

/// The service account's key out of `secrets`, read, with its
/// `token_uri` (when it has one) equal to the configured token URL.
fn account(
    c: &PubsubDestination,
    key: &SecretRef,
    secrets: &Secrets,
) -> Result<ServiceAccount, AccountError> {
    let value = secrets.require(key).map_err(AccountError::Unresolved)?;
    let account = ServiceAccount::parse(value.expose()).map_err(AccountError::Unusable)?;
    if account
        .token_uri
        .as_deref()
        .is_some_and(|t| t != c.token_url)
    {
        return Err(AccountError::Unusable(
            "the key's `token_uri` is not the destination's `token_url`",
        ));
    }
    Ok(account)
}

enum AccountError {
    Unresolved(Unresolved),
    Unusable(&'static str),
}

/// Why a topic's project is not among those the operator allows.
const PROJECT_NOT_ALLOWED: &str = "the operator does not allow the installation's workload identity for this topic's project (`[gcp] projects`)";

/// The installation's shared token cache for `config`'s topic, or why it
/// is not offered.
fn workload_tokens(
    config: &PubsubDestination,
    tenancy: Tenancy<'_>,
) -> Result<TokenSource, &'static str> {
    let installation = tenancy.gcp.ok_or(crate::gcp::NO_WORKLOAD_IDENTITY)?;
    let project = config::topic(&config.topic).map(|t| t.project);
    if !project.is_some_and(|p| installation.allows(p)) {
        return Err(PROJECT_NOT_ALLOWED);
    }
    Ok(installation.tokens().clone())
}

fn one_id(a: &wire::Answer) -> bool {
    a.message_ids.as_ref().is_some_and(|ids| ids.len() == 1)
}

impl Kind for Pubsub {
    const NAME: &'static str = "pubsub";
    type Config = PubsubDestination;
    type Client = Client;
    type Result = Sent;

    fn schema() -> Option<RefOr<Schema>> {
        Some(PubsubDestination::schema())
    }

    fn secret_refs(config: &PubsubDestination) -> Vec<(&'static str, &SecretRef)> {
        config.secret_refs()
    }

    fn content_mode(config: &PubsubDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut PubsubDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(_config: &PubsubDestination) -> crate::Capacity {
        limits::CAPACITY
    }

    /// The publish request's share of the message, as sent: the data in
    /// base64, the attributes, the ordering key.
    fn message_bytes(config: &PubsubDestination, message: &Prepared) -> u64 {
        let key = config
            .ordered
            .then(|| wire::ordering_key(message))
            .flatten();
        wire::message_bytes(
            message.body.len(),
            &wire::attributes(message),
            key.as_deref(),
        )
    }

    fn credential_hosts(c: &PubsubDestination, guard: &Guard) -> BTreeSet<String> {
        [
            hosts::origin(guard, &c.endpoint),
            hosts::origin(guard, &c.token_url),
        ]
        .into()
    }

    fn describe(c: &PubsubDestination) -> String {
        format!("{} at {}", c.topic, c.endpoint)
    }

    async fn validate(config: &PubsubDestination, guard: &Guard) -> Result<(), Invalid> {
        config::check(config)?;
        guard
            .check_url(&config.endpoint)
            .await
            .map(drop)
            .map_err(|rejection| Invalid {
                code: rejection.code(),
                pointer: "/destination/endpoint",
                message: rejection.to_string(),
            })?;
        guard
            .check_url(&config.token_url)
            .await
            .map(drop)
            .map_err(|rejection| Invalid {
                code: rejection.code(),
                pointer: "/destination/token_url",
                message: format!("the token URL: {rejection}"),
            })
    }

    fn check_values(config: &PubsubDestination, secrets: &Secrets) -> Result<(), Invalid> {
        let Some(key) = &config.service_account_key else {
            return Ok(());
        };
        match account(config, key, secrets) {
            Ok(_) | Err(AccountError::Unresolved(_)) => Ok(()),
            Err(AccountError::Unusable(why)) => Err(Invalid {
                code: "invalid_service_account_key",
                pointer: "/destination/service_account_key",
                message: why.to_string(),
            }),
        }
    }

    fn build(
        config: &PubsubDestination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> Result<Client, Unresolved> {
        Self::build_for(config, shared, secrets, Tenancy::default())
    }

    fn build_for(
        config: &PubsubDestination,
        shared: &Shared,
        secrets: &Secrets,
        tenancy: Tenancy<'_>,
    ) -> Result<Client, Unresolved> {
        let tokens = match &config.service_account_key {
            Some(key) => {
                let account = match account(config, key, secrets) {
                    Ok(a) => a,
                    Err(AccountError::Unresolved(u)) => return Err(u),
                    // A value the destination cannot use is as good as
                    // none: the client is not built and the engine says so.
                    Err(AccountError::Unusable(_)) => return Err(Unresolved(key.clone())),
                };
                let grant = JwtBearer {
                    account: Arc::new(account),
                    token_url: config.token_url.clone(),
                };
                Ok(TokenSource::with_grant(
                    grant,
                    shared.https.clone(),
                    shared.clock.clone(),
                ))
            }
            None => workload_tokens(config, tenancy),
        };
        Ok(Client {
            inner: Arc::new(Inner {
                https: shared.https.clone(),
                config: config.clone(),
                url: config::publish_url(config),
                tokens,
            }),
        })
    }

    async fn check_access(
        config: &PubsubDestination,
        _shared: &Shared,
        tenancy: Tenancy<'_>,
    ) -> Result<(), Invalid> {
        if !config.workload_identity {
            return Ok(());
        }
        workload_tokens(config, tenancy).map(drop).map_err(|why| {
            let code = if tenancy.gcp.is_none() {
                "gcp_workload_identity_unavailable"
            } else {
                "project_not_allowed"
            };
            Invalid {
                code,
                pointer: "/destination/workload_identity",
                message: why.to_string(),
            }
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Sent {
        client.send(message, limits).await
    }

    fn classify(sent: &Sent, now: Timestamp) -> Verdict {
        classify_sent(sent, now)
    }

    fn health_warning(sent: &Sent) -> Option<HealthWarning> {
        match &sent.result {
            Err(Failure::Token { error, .. }) => crate::https::classify::health_warning(
                &crate::https::classify::Exchange::TokenFailed {
                    failure: error.failure,
                    transport: error.kind,
                },
            ),
            _ => None,
        }
    }

    fn record(sent: &Sent) -> Record {
        let mut detail = serde_json::json!({"topic": sent.topic});
        if let Some(t) = sent.token {
            detail["oauth2"] = serde_json::json!({
                "token_fetched": t.fetched,
                "retried_with_new_token": t.retried_with_new_token,
            });
        }
        match &sent.result {
            Ok(response) => {
                let a = wire::answer(&response.body_prefix);
                detail["status_code"] = response.status.as_u16().into();
                if response.status.as_u16() == 200 {
                    if one_id(&a) {
                        detail["message_id"] = a.message_ids.unwrap_or_default()[0].clone().into();
                    } else {
                        detail["error"] = serde_json::json!({
                            "code": "unconfirmed",
                            "message": "the answer has not exactly one message id",
                        });
                    }
                } else {
                    detail["error"] = serde_json::json!({"status": a.status, "message": a.message});
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
                detail,
            },
            Err(Failure::Unaddressable(reason)) => Record {
                destination: None,
                error: Some((ErrorKind::InvalidUrl, (*reason).to_string())),
                detail,
            },
            Err(Failure::NoIdentity(reason)) => {
                detail["error"] =
                    serde_json::json!({"code": "workload_identity_unavailable", "message": reason});
                Record {
                    destination: None,
                    error: None,
                    detail,
                }
            }
            Err(Failure::Unsendable(reason)) => {
                detail["error"] = serde_json::json!({"code": "unsendable", "message": reason});
                Record {
                    destination: None,
                    error: None,
                    detail,
                }
            }
            Err(Failure::Token { error, after_401 }) => {
                detail["oauth2"] = error.detail(*after_401);
                Record {
                    destination: error.addr,
                    error: error.kind.zip(error.text.clone()),
                    detail,
                }
            }
        }
    }
}

/// Classifies `sent` at `now` (the answer read once, borrowed by the
/// table).
fn classify_sent(sent: &Sent, now: Timestamp) -> Verdict {
    let response = match &sent.result {
        Ok(response) => response,
        Err(Failure::Guard(e)) => return classify::classify(&Answer::Failed(e.kind()), now),
        Err(Failure::Unaddressable(_)) => return classify::classify(&Answer::Unaddressable, now),
        Err(Failure::Unsendable(_)) => return classify::classify(&Answer::Unsendable, now),
        Err(Failure::NoIdentity(_)) => return classify::classify(&Answer::NoIdentity, now),
        Err(Failure::Token { error, .. }) => {
            return classify::classify(
                &Answer::TokenFailed {
                    failure: error.failure,
                    transport: error.kind,
                },
                now,
            );
        }
    };
    let a = wire::answer(&response.body_prefix);
    let status = response.status.as_u16();
    if status == 200 {
        return classify::classify(&Answer::Published { one_id: one_id(&a) }, now);
    }
    let retry_after = response
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    classify::classify(
        &Answer::Status {
            status,
            rpc: a.status.as_deref(),
            retry_after,
        },
        now,
    )
}

#[cfg(test)]
mod tests;
