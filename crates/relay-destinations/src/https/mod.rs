//! HTTPS webhooks: a signed `POST` of the CloudEvents body to the
//! endpoint's URL through the guarded, pooled client of `relay-net`.
//!
//! - config: [`HttpsDestination`] (URL, custom headers,
//!   `auth`: a client certificate for mutual TLS, OAuth 2.0 client
//!   credentials, or both);
//! - validation: the custom headers ([`headers::check`]), the client
//!   credentials ([`oauth2::check`]) and the guard's registration check of
//!   the URL and the token URL ([`relay_net::Guard::check_url`]: scheme,
//!   port, credentials, every address the name resolves to); once the
//!   secret references resolve, the client certificate and key
//!   ([`mtls::check`]);
//! - client: the shared pooled [`HttpsClient`] (with the endpoint's client
//!   identity, [`HttpsClient::with_identity`], when it has one), the URL,
//!   which the guard checks again at every connection, the custom headers
//!   with their secret references resolved (marked sensitive; never in
//!   `Debug`), and the endpoint's token cache
//!   ([`oauth2::source::TokenSource`], fetching through the same client, so
//!   a token endpoint that asks for the client certificate gets it);
//! - deliver: the token when the endpoint has OAuth 2.0 (a failed fetch
//!   ends the attempt), then one `POST` with the Standard Webhooks headers,
//!   the custom ones and the bearer token; a `401` to the token forgets it,
//!   fetches one new token and posts once more, in the same attempt;
//! - classify: [`classify`], the reference's response table and the token
//!   failures;
//! - the A2A push profile ([`a2a`], `a2a_push`): the body is the event's
//!   data, an A2A `StreamResponse`, as `application/a2a+json`, with the
//!   config's `Authorization` and notification token; an update of another
//!   task is never sent ([`Kind::admits`]);
//! - record: the address used, the status code and the first 8 kB of the
//!   response (`detail`), and what happened to the token (`detail.oauth2`).

pub mod a2a;
pub mod auth;
mod destination;
pub use a2a::{A2aAuthentication, A2aPush};
pub use auth::*;
pub use destination::*;
pub mod classify;
pub mod headers;
pub mod limits;
pub mod mtls;
pub mod oauth2;
pub mod ownership;
pub mod portal;

use std::collections::BTreeSet;

use relay_core::outcome::{HealthWarning, Verdict};
use relay_core::secret::SecretRef;
use relay_core::time::Timestamp;
use relay_net::{Guard, GuardError, HeaderName, HeaderValue, HttpsClient, Limits, Response};
use utoipa::PartialSchema as _;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use self::classify::{Exchange, ResponseHeaders};
use self::oauth2::TokenError;
use self::oauth2::source::TokenSource;
use crate::{Invalid, Kind, Prepared, Record, Shared, Unfit, hosts};
use relay_core::model::{ContentMode, Profile};

/// The `content-type` of the body.
pub use relay_core::envelope::CONTENT_TYPE;

/// The HTTPS kind.
pub struct Https;

/// An endpoint's built HTTPS client. Its `Debug` names the custom headers,
/// never their values, and the client certificate by its fingerprint,
/// never its key.
#[derive(Clone)]
pub struct Client {
    client: HttpsClient,
    url: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    /// The endpoint's OAuth 2.0 tokens, when it has client credentials.
    oauth2: Option<TokenSource>,
    /// The body's `content-type`: CloudEvents, or the A2A profile's.
    content_type: &'static str,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Client")
            .field("url", &self.url)
            .field("headers", &names)
            .field(
                "client_certificate",
                &self.client.identity().map(|i| i.fingerprint_hex()),
            )
            .field("oauth2", &self.oauth2)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// The client certificate presented in the TLS handshake, if any.
    pub fn identity(&self) -> Option<&relay_net::ClientIdentity> {
        self.client.identity()
    }
}

/// The result of one attempt.
#[derive(Debug)]
pub enum Result {
    /// The `POST` was made: its answer or how it failed, and what happened
    /// to the OAuth 2.0 token (`None` without OAuth 2.0).
    Posted {
        result: std::result::Result<Response, GuardError>,
        token: Option<TokenUse>,
    },
    /// The OAuth 2.0 token could not be had, so the endpoint was not
    /// tried (`after_401`: the fetch after the endpoint refused the
    /// previous token).
    TokenFailed { error: TokenError, after_401: bool },
}

/// What an attempt did with its OAuth 2.0 token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenUse {
    /// A token was fetched for this attempt (else the cached one was used).
    pub fetched: bool,
    /// The endpoint answered `401`, a new token was fetched and the `POST`
    /// made once more: the result is the second one's.
    pub retried_with_new_token: bool,
}

impl Result {
    /// The exchange [`classify`] judges.
    fn exchange<'a>(&self, pairs: &'a mut Vec<(String, String)>) -> Exchange<'a> {
        match self {
            Result::Posted {
                result: Ok(response),
                ..
            } => {
                *pairs = response
                    .headers
                    .iter()
                    .filter_map(|(n, v)| {
                        Some((n.as_str().to_string(), v.to_str().ok()?.to_string()))
                    })
                    .collect();
                Exchange::Response {
                    status: response.status.as_u16(),
                    headers: ResponseHeaders::from_pairs(pairs),
                }
            }
            Result::Posted { result: Err(e), .. } => Exchange::Failed(e.kind()),
            Result::TokenFailed { error, .. } => Exchange::TokenFailed {
                failure: error.failure,
                transport: error.kind,
            },
        }
    }

    /// The health warning the result calls for beside its verdict
    /// ([`classify::health_warning`]).
    pub fn health_warning(&self) -> Option<HealthWarning> {
        let mut pairs = Vec::new();
        classify::health_warning(&self.exchange(&mut pairs))
    }
}

impl Kind for Https {
    const NAME: &'static str = "https";
    type Config = HttpsDestination;
    type Client = Client;
    type Result = Result;

    fn schema() -> Option<RefOr<Schema>> {
        Some(HttpsDestination::schema())
    }

    fn secret_refs(config: &HttpsDestination) -> Vec<(&'static str, &SecretRef)> {
        config
            .headers
            .iter()
            .filter_map(|h| h.secret.as_ref())
            .map(|s| ("/destination/headers", s))
            .chain(config.auth.iter().flat_map(HttpsAuth::secret_refs))
            .chain(a2a::secret_refs(config))
            .collect()
    }

    fn capacity(_config: &HttpsDestination) -> crate::Capacity {
        limits::CAPACITY
    }

    fn check_values(
        config: &HttpsDestination,
        secrets: &relay_core::secret::Secrets,
    ) -> std::result::Result<(), Invalid> {
        mtls::check(config, secrets)?;
        a2a::check_values(config, secrets)
    }

    fn content_mode(config: &HttpsDestination) -> ContentMode {
        // The A2A profile's body is the event's data (the StreamResponse),
        // not a CloudEvent.
        match config.a2a_push {
            Some(_) => ContentMode::Binary,
            None => ContentMode::Structured,
        }
    }

    fn profile(config: &HttpsDestination) -> Profile {
        match config.a2a_push {
            Some(_) => Profile::A2aPush,
            None => Profile::CloudEvents,
        }
    }

    fn admits(config: &HttpsDestination, message: &Prepared) -> std::result::Result<(), Unfit> {
        match &config.a2a_push {
            Some(a2a) if message.ordering_key.as_deref() != Some(a2a.task_id.as_str()) => {
                Err(Unfit::OtherTask)
            }
            _ => Ok(()),
        }
    }

    fn credential_hosts(config: &HttpsDestination, guard: &Guard) -> BTreeSet<String> {
        std::iter::once(hosts::origin(guard, &config.url))
            .chain(
                config
                    .auth
                    .iter()
                    .filter_map(|a| a.oauth2.as_ref())
                    .map(|o| hosts::origin(guard, &o.token_url)),
            )
            .collect()
    }

    fn describe(config: &HttpsDestination) -> String {
        config.url.clone()
    }

    fn literal_credentials(config: &HttpsDestination) -> Vec<(&'static str, &str)> {
        config
            .headers
            .iter()
            .filter(|h| h.value.is_some() && headers::carries_credentials(&h.name))
            .map(|h| ("/destination/headers", h.name.as_str()))
            .collect()
    }

    fn redact(config: &mut HttpsDestination) {
        headers::redact_literal_credentials(&mut config.headers);
    }

    fn health_warning(result: &Result) -> Option<HealthWarning> {
        result.health_warning()
    }

    async fn validate(
        config: &HttpsDestination,
        guard: &Guard,
    ) -> std::result::Result<(), Invalid> {
        headers::check(&config.headers)?;
        a2a::check(config)?;
        let oauth2 = config.auth.as_ref().and_then(|a| a.oauth2.as_ref());
        if let Some(o) = oauth2 {
            oauth2::check(o, &config.headers)?;
        }
        guard
            .check_url(&config.url)
            .await
            .map(drop)
            .map_err(|rejection| Invalid {
                code: rejection.code(),
                pointer: "/destination/url",
                message: rejection.to_string(),
            })?;
        if let Some(o) = oauth2 {
            guard
                .check_url(&o.token_url)
                .await
                .map(drop)
                .map_err(|rejection| Invalid {
                    code: rejection.code(),
                    pointer: "/destination/auth/oauth2/token_url",
                    message: format!("the token URL: {rejection}"),
                })?;
        }
        Ok(())
    }

    fn build(
        config: &HttpsDestination,
        shared: &Shared,
        secrets: &relay_core::secret::Secrets,
    ) -> std::result::Result<Client, relay_core::secret::Unresolved> {
        let mut built = Vec::with_capacity(config.headers.len());
        for h in &config.headers {
            // Checked at registration ([`headers::check`]).
            let Ok(name) = HeaderName::from_bytes(h.name.as_bytes()) else {
                continue;
            };
            let value = match (&h.value, &h.secret) {
                (_, Some(reference)) => {
                    let secret = secrets.require(reference)?;
                    // A resolved value that is no header value is as good
                    // as none: the client is not built and the engine says so.
                    if !headers::valid_value(secret.expose()) {
                        return Err(relay_core::secret::Unresolved(reference.clone()));
                    }
                    let Ok(mut v) = HeaderValue::from_bytes(secret.expose()) else {
                        return Err(relay_core::secret::Unresolved(reference.clone()));
                    };
                    v.set_sensitive(true);
                    v
                }
                (Some(value), None) => match HeaderValue::from_str(value) {
                    Ok(v) => v,
                    Err(_) => continue,
                },
                (None, None) => continue,
            };
            built.push((name, value));
        }
        built.extend(a2a::request_headers(config, secrets)?);
        let client = match mtls::identity(config, secrets)? {
            Some(identity) => shared.https.with_identity(&identity),
            None => shared.https.clone(),
        };
        let oauth2 = match config.auth.as_ref().and_then(|a| a.oauth2.as_ref()) {
            Some(o) => Some(TokenSource::new(
                o.clone(),
                secrets.require(&o.client_secret)?.clone(),
                client.clone(),
                shared.clock.clone(),
            )),
            None => None,
        };
        Ok(Client {
            client,
            url: config.url.clone(),
            headers: built,
            oauth2,
            content_type: match config.a2a_push {
                Some(_) => relay_core::a2a::CONTENT_TYPE,
                None => CONTENT_TYPE,
            },
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Result {
        let Some(source) = &client.oauth2 else {
            return Result::Posted {
                result: post(client, message, limits, None).await,
                token: None,
            };
        };
        // One deadline for the whole attempt, token fetches and the second
        // `POST` included: an attempt never outlasts `total_timeout` (and so
        // its lease) however many exchanges it makes.
        let deadline = std::time::Instant::now() + limits.total_timeout;
        let left = || Limits {
            total_timeout: deadline.saturating_duration_since(std::time::Instant::now()),
            ..limits
        };
        let (bearer, fetched) = match source.bearer(left()).await {
            Ok(b) => b,
            Err(error) => {
                return Result::TokenFailed {
                    error,
                    after_401: false,
                };
            }
        };
        let result = post(client, message, left(), Some(&bearer.authorization)).await;
        if !matches!(&result, Ok(r) if r.status.as_u16() == 401) {
            return Result::Posted {
                result,
                token: Some(TokenUse {
                    fetched,
                    retried_with_new_token: false,
                }),
            };
        }
        // The endpoint refused the token: forget it, fetch one new token
        // (or take the one a concurrent attempt fetched meanwhile) and try
        // once more.
        source.invalidate(bearer.generation);
        match source.bearer(left()).await {
            Ok((renewed, _)) => Result::Posted {
                result: post(client, message, left(), Some(&renewed.authorization)).await,
                token: Some(TokenUse {
                    fetched: true,
                    retried_with_new_token: true,
                }),
            },
            Err(error) => Result::TokenFailed {
                error,
                after_401: true,
            },
        }
    }

    fn classify(result: &Result, now: Timestamp) -> Verdict {
        let mut pairs = Vec::new();
        classify::classify(&result.exchange(&mut pairs), now)
    }

    fn record(result: &Result) -> Record {
        match result {
            Result::Posted {
                result: Ok(response),
                token,
            } => {
                let mut fields = serde_json::Map::new();
                fields.insert("status_code".into(), response.status.as_u16().into());
                relay_core::model::body_detail(&response.body_prefix, &mut fields);
                let mut detail = serde_json::Value::Object(fields);
                if let Some(t) = token {
                    detail["oauth2"] = serde_json::json!({
                        "token_fetched": t.fetched,
                        "retried_with_new_token": t.retried_with_new_token,
                    });
                }
                Record {
                    destination: Some(response.remote_addr),
                    error: None,
                    detail,
                }
            }
            Result::Posted {
                result: Err(e),
                token,
            } => Record {
                destination: e.remote_addr(),
                error: Some((e.kind(), e.to_string())),
                detail: match token {
                    Some(t) => serde_json::json!({"oauth2": {
                        "token_fetched": t.fetched,
                        "retried_with_new_token": t.retried_with_new_token,
                    }}),
                    None => serde_json::json!({}),
                },
            },
            Result::TokenFailed { error, after_401 } => Record {
                destination: error.addr,
                error: error.kind.zip(error.text.clone()),
                detail: serde_json::json!({"oauth2": error.detail(*after_401)}),
            },
        }
    }
}

/// One `POST` of the message, with the bearer token when there is one.
async fn post(
    client: &Client,
    message: &Prepared,
    limits: Limits,
    authorization: Option<&HeaderValue>,
) -> std::result::Result<Response, GuardError> {
    let mut headers: Vec<(HeaderName, HeaderValue)> = Vec::with_capacity(7 + client.headers.len());
    let mut header = |name: &'static str, value: &str| {
        if let Ok(v) = HeaderValue::from_str(value) {
            headers.push((HeaderName::from_static(name), v));
        }
    };
    header("content-type", client.content_type);
    header("webhook-id", &message.webhook_id);
    header("webhook-timestamp", &message.webhook_timestamp);
    header("webhook-signature", &message.webhook_signature);
    header("relay-event-type", &message.event_type);
    header("relay-attempt", &message.attempt_number.to_string());
    if let Some(t) = &message.traceparent {
        header("traceparent", t);
    }
    headers.extend(client.headers.iter().cloned());
    if let Some(a) = authorization {
        headers.push((HeaderName::from_static("authorization"), a.clone()));
    }
    let mut result = client
        .client
        .post_url(&client.url, headers, message.body.clone(), limits)
        .await;
    // A receiver that echoes its request puts no secret in the record.
    if let Ok(response) = &mut result {
        let sensitive = client
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v))
            .chain(authorization.map(|v| ("authorization", v)))
            .filter(|(_, v)| v.is_sensitive());
        for (name, v) in sensitive {
            response.body_prefix = redact(&response.body_prefix, v.as_bytes());
            // The credentials alone, as a receiver may echo them without
            // their scheme (`Bearer `, or the A2A profile's own).
            if name == "authorization"
                && let Some(at) = v.as_bytes().iter().position(|b| *b == b' ')
            {
                response.body_prefix = redact(&response.body_prefix, &v.as_bytes()[at + 1..]);
            }
        }
    }
    result
}

/// `body` with every occurrence of `secret` replaced by `[redacted]`.
pub(crate) fn redact(body: &bytes::Bytes, secret: &[u8]) -> bytes::Bytes {
    if secret.is_empty() || !body.windows(secret.len()).any(|w| w == secret) {
        return body.clone();
    }
    let mut out = Vec::with_capacity(body.len());
    let mut rest: &[u8] = body;
    while let Some(at) = rest.windows(secret.len()).position(|w| w == secret) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(b"[redacted]");
        rest = &rest[at + secret.len()..];
    }
    out.extend_from_slice(rest);
    out.into()
}

#[cfg(test)]
mod tests {
    #[test]
    fn redact_replaces_every_occurrence() {
        let r = |b: &str, s: &str| super::redact(&bytes::Bytes::from(b.to_string()), s.as_bytes());
        assert_eq!(r("a TOK b TOK", "TOK"), "a [redacted] b [redacted]");
        assert_eq!(r("nothing", "TOK"), "nothing");
        assert_eq!(r("TOKTOK", "TOK"), "[redacted][redacted]");
        assert_eq!(r("x", ""), "x");
    }
}
