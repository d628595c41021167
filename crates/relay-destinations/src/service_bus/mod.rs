//! Azure Service Bus: each message is one send of Service Bus's REST API
//! (`POST https://{namespace}/{entity}/messages`) to a queue or a topic;
//! Service Bus's `201 Created` is the acknowledgement and nothing else is.
//!
//! - config: [`ServiceBusDestination`] (the namespace or an endpoint, the
//!   entity, the credentials: a shared access key as a secret reference,
//!   or Microsoft Entra client credentials; `sessions`, content mode, the
//!   entity's largest message);
//! - validation: the fields' rules ([`config::check`]: the namespace and
//!   its cloud, the entity's name, the credentials' fields, a connection
//!   string anywhere refused as `connection_string_refused`), the guard's
//!   registration check of the service's URL and the Entra token URL
//!   ([`relay_net::Guard::check_url`]), and once the references resolve,
//!   that the key is not a connection string either;
//! - client: the shared pooled [`HttpsClient`] (the guard checks every
//!   connection, the token endpoint's too; redirects are never followed)
//!   and the endpoint's credentials: its SAS token ([`sas::SasTokens`],
//!   made by the engine's clock, renewed before it expires) or its Entra
//!   token cache ([`TokenSource`] with the HTTPS kind's client
//!   credentials, scope [`config::ENTRA_SCOPE`]);
//! - deliver: one `POST` of the body with `BrokerProperties` (`MessageId`
//!   the event id, `Label` the event type, `SessionId` the ordering key
//!   when `sessions`) and the user properties as headers ([`wire`]); with
//!   Entra, a `401` forgets the token, fetches one new token and sends
//!   once more in the same attempt; with SAS, a `401` forgets the token so
//!   the next attempt signs a new one;
//! - classify: [`classify::classify`];
//! - record: the address, the entity, the message id and session id sent,
//!   the status and Service Bus's error detail (`detail`), how the
//!   attempt authenticated (`detail.auth`, `detail.oauth2`).

mod destination;
pub use destination::*;
pub mod classify;
pub mod config;
pub mod limits;
pub mod sas;
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
use self::sas::SasTokens;
use crate::https::oauth2::TokenError;
use crate::https::oauth2::source::TokenSource;
use crate::https::{ClientAuthMethod, OAuth2ClientCredentials, TokenUse};
use crate::{Invalid, Kind, Prepared, Record, Shared, hosts};

/// The Azure Service Bus kind. Its name is `azure_service_bus`: "service
/// bus" alone is a kind of product (an enterprise service bus) rather
/// than one, while `sqs` and `pubsub` are already one service's names.
pub struct ServiceBus;

/// How an endpoint's client authenticates.
enum Auth {
    Sas(SasTokens),
    Entra(TokenSource),
}

/// An endpoint's client. Its `Debug` names the entity and the rule or the
/// application, never a key, a secret or a token.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    https: HttpsClient,
    config: ServiceBusDestination,
    /// The send URL (`None`: the configuration makes none).
    url: Option<String>,
    auth: Auth,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Client");
        d.field("url", &self.inner.url);
        match &self.inner.auth {
            Auth::Sas(s) => d.field("sas", s),
            Auth::Entra(t) => d.field("entra", t),
        };
        d.finish_non_exhaustive()
    }
}

/// The result of one send.
#[derive(Debug)]
pub struct Sent {
    pub entity: String,
    /// The `MessageId` sent (the event id).
    pub message_id: String,
    /// The `SessionId` sent, when `sessions`.
    pub session_id: Option<String>,
    /// `sas` or `entra`.
    pub auth: &'static str,
    /// With SAS: whether the attempt signed a new token.
    pub sas_signed: Option<bool>,
    pub result: Result<Response, Failure>,
    /// With Entra: what the attempt did with its token, when it had one.
    pub token: Option<TokenUse>,
}

/// A send that got no answer, or was never made.
#[derive(Debug)]
pub enum Failure {
    /// The guard or the connection failed.
    Guard(GuardError),
    /// No request can be made from the configuration.
    Unaddressable(&'static str),
    /// The Entra token could not be had (`after_401`: the fetch after
    /// Service Bus refused the previous token).
    Token { error: TokenError, after_401: bool },
}

impl Client {
    /// The destination it sends to.
    pub fn config(&self) -> &ServiceBusDestination {
        &self.inner.config
    }

    /// Sends `m`: see the module documentation.
    pub async fn send(&self, m: &Prepared, limits: Limits) -> Sent {
        let c = &self.inner.config;
        let session_id = if c.sessions {
            wire::session_id(m)
        } else {
            None
        };
        let mut sent = Sent {
            entity: c.entity.clone(),
            message_id: m.webhook_id.clone(),
            session_id,
            auth: match self.inner.auth {
                Auth::Sas(_) => "sas",
                Auth::Entra(_) => "entra",
            },
            sas_signed: None,
            result: Err(Failure::Unaddressable(
                "the namespace or endpoint and the entity make no URL",
            )),
            token: None,
        };
        let Some(url) = &self.inner.url else {
            return sent;
        };
        let headers = request_headers(m, sent.session_id.as_deref());
        match &self.inner.auth {
            Auth::Sas(tokens) => {
                let (authorization, signed) = tokens.authorization();
                sent.sas_signed = Some(signed);
                let result = self
                    .post(url, headers, m.body.clone(), &authorization, limits)
                    .await;
                if matches!(&result, Ok(r) if r.status.as_u16() == 401) {
                    tokens.invalidate();
                }
                sent.result = result.map_err(Failure::Guard);
            }
            Auth::Entra(tokens) => {
                self.send_with_entra(tokens, url, headers, m, limits, &mut sent)
                    .await;
            }
        }
        sent
    }

    async fn send_with_entra(
        &self,
        tokens: &TokenSource,
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
        m: &Prepared,
        limits: Limits,
        sent: &mut Sent,
    ) {
        // One deadline for the whole attempt, token fetches and the second
        // send included.
        let deadline = std::time::Instant::now() + limits.total_timeout;
        let left = || Limits {
            total_timeout: deadline.saturating_duration_since(std::time::Instant::now()),
            ..limits
        };
        let (bearer, fetched) = match tokens.bearer(left()).await {
            Ok(b) => b,
            Err(error) => {
                sent.result = Err(Failure::Token {
                    error,
                    after_401: false,
                });
                return;
            }
        };
        let result = self
            .post(
                url,
                headers.clone(),
                m.body.clone(),
                &bearer.authorization,
                left(),
            )
            .await;
        if !matches!(&result, Ok(r) if r.status.as_u16() == 401) {
            sent.token = Some(TokenUse {
                fetched,
                retried_with_new_token: false,
            });
            sent.result = result.map_err(Failure::Guard);
            return;
        }
        // Service Bus refused the token: forget it, fetch one new token (or
        // take the one a concurrent attempt fetched meanwhile), once more.
        tokens.invalidate(bearer.generation);
        match tokens.bearer(left()).await {
            Ok((renewed, _)) => {
                sent.token = Some(TokenUse {
                    fetched: true,
                    retried_with_new_token: true,
                });
                sent.result = self
                    .post(url, headers, m.body.clone(), &renewed.authorization, left())
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
    }

    /// One `POST` with `authorization`; the credential is cut out of what
    /// is kept of the answer.
    async fn post(
        &self,
        url: &str,
        mut headers: Vec<(HeaderName, HeaderValue)>,
        body: Bytes,
        authorization: &HeaderValue,
        limits: Limits,
    ) -> Result<Response, GuardError> {
        headers.push((
            HeaderName::from_static("authorization"),
            authorization.clone(),
        ));
        let mut result = self.inner.https.post_url(url, headers, body, limits).await;
        if let Ok(response) = &mut result {
            let value = authorization.as_bytes();
            response.body_prefix = crate::https::redact(&response.body_prefix, value);
            for prefix in [&b"Bearer "[..], &b"SharedAccessSignature "[..]] {
                if let Some(token) = value.strip_prefix(prefix) {
                    response.body_prefix = crate::https::redact(&response.body_prefix, token);
                }
            }
        }
        result
    }
}

/// The request's headers but `Authorization`: `Content-Type`,
/// `BrokerProperties` and one per user property (a name that is not a
/// header name, or a value that is not a header value, is left out: the
/// binding's names and [`wire::header_value`]'s values always are).
fn request_headers(m: &Prepared, session: Option<&str>) -> Vec<(HeaderName, HeaderValue)> {
    let mut headers = vec![
        (
            HeaderName::from_static("content-type"),
            HeaderValue::from_static(m.content_type),
        ),
        (
            HeaderName::from_static("brokerproperties"),
            HeaderValue::from_str(&wire::broker_properties(m, session))
                .unwrap_or_else(|_| HeaderValue::from_static("{}")),
        ),
    ];
    for (name, value) in wire::properties(m) {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&wire::header_value(&value)),
        ) {
            headers.push((n, v));
        }
    }
    headers
}

/// The credentials' secret out of `secrets`: the SAS key or the client
/// secret; a value that is a whole connection string is refused.
fn credential(
    c: &ServiceBusDestination,
    secrets: &Secrets,
) -> Result<relay_core::secret::SecretValue, CredentialError> {
    let reference = match &c.auth {
        ServiceBusAuth::Sas(s) => &s.key,
        ServiceBusAuth::Entra(e) => &e.client_secret,
    };
    let value = secrets
        .require(reference)
        .map_err(CredentialError::Unresolved)?;
    let text = value.expose_str().unwrap_or_default();
    if config::looks_like_connection_string(text) {
        return Err(CredentialError::ConnectionString);
    }
    if value.expose().is_empty() {
        return Err(CredentialError::Empty);
    }
    Ok(value.clone())
}

enum CredentialError {
    Unresolved(Unresolved),
    ConnectionString,
    Empty,
}

fn secret_pointer(c: &ServiceBusDestination) -> &'static str {
    match c.auth {
        ServiceBusAuth::Sas(_) => "/destination/auth/sas/key",
        ServiceBusAuth::Entra(_) => "/destination/auth/entra/client_secret",
    }
}

fn entra_config(c: &ServiceBusDestination, e: &EntraCredentials) -> OAuth2ClientCredentials {
    OAuth2ClientCredentials {
        token_url: config::token_url(c, e),
        client_id: e.client_id.clone(),
        client_secret: e.client_secret.clone(),
        scopes: vec![config::ENTRA_SCOPE.to_string()],
        audience: None,
        method: ClientAuthMethod::ClientSecretPost,
    }
}

impl Kind for ServiceBus {
    const NAME: &'static str = "azure_service_bus";
    type Config = ServiceBusDestination;
    type Client = Client;
    type Result = Sent;

    fn schema() -> Option<RefOr<Schema>> {
        Some(ServiceBusDestination::schema())
    }

    fn secret_refs(config: &ServiceBusDestination) -> Vec<(&'static str, &SecretRef)> {
        config.secret_refs()
    }

    fn content_mode(config: &ServiceBusDestination) -> ContentMode {
        config.content_mode
    }

    fn set_content_mode(config: &mut ServiceBusDestination, mode: ContentMode) -> bool {
        config.content_mode = mode;
        true
    }

    fn capacity(config: &ServiceBusDestination) -> crate::Capacity {
        limits::capacity(config)
    }

    /// The message as Service Bus counts it: the body, the broker
    /// properties, the user properties.
    fn message_bytes(config: &ServiceBusDestination, message: &Prepared) -> u64 {
        let session = config.sessions.then(|| wire::session_id(message)).flatten();
        wire::message_bytes(
            message.body.len(),
            &wire::broker_properties(message, session.as_deref()),
            &wire::properties(message),
        )
    }

    fn credential_hosts(c: &ServiceBusDestination, guard: &Guard) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        if let Some(base) = config::base_url(c) {
            out.insert(hosts::origin(guard, &base));
        } else if let Some(ns) = c.namespace.as_deref().or(c.endpoint.as_deref()) {
            out.insert(ns.to_string());
        }
        if let ServiceBusAuth::Entra(e) = &c.auth {
            out.insert(hosts::origin(guard, &config::token_url(c, e)));
        }
        out
    }

    fn describe(c: &ServiceBusDestination) -> String {
        let at = c
            .namespace
            .as_deref()
            .or(c.endpoint.as_deref())
            .unwrap_or("");
        format!("{} at {at}", c.entity)
    }

    async fn validate(config: &ServiceBusDestination, guard: &Guard) -> Result<(), Invalid> {
        config::check(config)?;
        let (url, pointer) = match (&config.namespace, config::base_url(config)) {
            (Some(_), Some(base)) => (base, "/destination/namespace"),
            (_, Some(base)) => (base, "/destination/endpoint"),
            (_, None) => unreachable!("checked: a namespace or an endpoint makes a URL"),
        };
        guard
            .check_url(&url)
            .await
            .map(drop)
            .map_err(|rejection| Invalid {
                code: rejection.code(),
                pointer,
                message: rejection.to_string(),
            })?;
        if let ServiceBusAuth::Entra(e) = &config.auth {
            guard
                .check_url(&config::token_url(config, e))
                .await
                .map(drop)
                .map_err(|rejection| Invalid {
                    code: rejection.code(),
                    pointer: "/destination/auth/entra/token_url",
                    message: format!("the token URL: {rejection}"),
                })?;
        }
        Ok(())
    }

    fn check_values(config: &ServiceBusDestination, secrets: &Secrets) -> Result<(), Invalid> {
        match credential(config, secrets) {
            Ok(_) | Err(CredentialError::Unresolved(_)) => Ok(()),
            Err(CredentialError::ConnectionString) => {
                Err(config::connection_string_refused(secret_pointer(config)))
            }
            Err(CredentialError::Empty) => Err(Invalid {
                code: "empty_secret",
                pointer: secret_pointer(config),
                message: "the secret reference resolves to an empty value".into(),
            }),
        }
    }

    fn build(
        config: &ServiceBusDestination,
        shared: &Shared,
        secrets: &Secrets,
    ) -> Result<Client, Unresolved> {
        let secret = match credential(config, secrets) {
            Ok(v) => v,
            Err(CredentialError::Unresolved(u)) => return Err(u),
            // A value the destination cannot use is as good as none: the
            // client is not built and the engine says so.
            Err(CredentialError::ConnectionString | CredentialError::Empty) => {
                let (_, r) = config.secret_refs()[0];
                return Err(Unresolved(r.clone()));
            }
        };
        let auth = match &config.auth {
            ServiceBusAuth::Sas(s) => Auth::Sas(SasTokens::new(
                config::resource_uri(config).unwrap_or_default(),
                s.key_name.clone(),
                secret,
                shared.clock.clone(),
            )),
            ServiceBusAuth::Entra(e) => Auth::Entra(TokenSource::new(
                entra_config(config, e),
                secret,
                shared.https.clone(),
                shared.clock.clone(),
            )),
        };
        Ok(Client {
            inner: Arc::new(Inner {
                https: shared.https.clone(),
                config: config.clone(),
                url: config::send_url(config),
                auth,
            }),
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Sent {
        client.send(message, limits).await
    }

    fn classify(sent: &Sent, now: Timestamp) -> Verdict {
        classify::classify(&answer(sent), now)
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
        let mut detail = serde_json::json!({
            "entity": sent.entity,
            "message_id": sent.message_id,
            "auth": sent.auth,
        });
        if let Some(s) = &sent.session_id {
            detail["session_id"] = s.clone().into();
        }
        if let Some(signed) = sent.sas_signed {
            detail["sas_token_signed"] = signed.into();
        }
        if let Some(t) = sent.token {
            detail["oauth2"] = serde_json::json!({
                "token_fetched": t.fetched,
                "retried_with_new_token": t.retried_with_new_token,
            });
        }
        match &sent.result {
            Ok(response) => {
                detail["status_code"] = response.status.as_u16().into();
                if response.status.as_u16() != 201 {
                    detail["error"] = serde_json::json!({
                        "detail": wire::detail(&response.body_prefix),
                    });
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

/// What `sent` came to, for the table.
fn answer(sent: &Sent) -> Answer {
    match &sent.result {
        Ok(response) => Answer::Status {
            status: response.status.as_u16(),
            too_large: wire::says_too_large(wire::detail(&response.body_prefix).as_deref()),
            retry_after: response
                .headers
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok()),
        },
        Err(Failure::Guard(e)) => Answer::Failed(e.kind()),
        Err(Failure::Unaddressable(_)) => Answer::Unaddressable,
        Err(Failure::Token { error, .. }) => Answer::TokenFailed {
            failure: error.failure,
            transport: error.kind,
        },
    }
}

#[cfg(test)]
mod tests;
