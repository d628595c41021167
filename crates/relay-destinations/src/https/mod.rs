//! HTTPS webhooks: a signed `POST` of the CloudEvents body to the
//! endpoint's URL through the guarded, pooled client of `relay-net`.
//!
//! - config: [`relay_core::model::HttpsDestination`] (URL, custom headers,
//!   `auth`: a client certificate for mutual TLS);
//! - validation: the custom headers ([`headers::check`]) and the guard's
//!   registration check of the URL ([`relay_net::Guard::check_url`]:
//!   scheme, port, credentials, every address the name resolves to); once
//!   the secret references resolve, the client certificate and key
//!   ([`mtls::check`]);
//! - client: the shared pooled [`HttpsClient`] (with the endpoint's client
//!   identity, [`HttpsClient::with_identity`], when it has one), the URL,
//!   which the guard checks again at every connection, and the custom
//!   headers with their secret references resolved (marked sensitive;
//!   never in `Debug`);
//! - deliver: one `POST` with the Standard Webhooks headers and the custom ones;
//! - classify: [`classify`], the reference's response table;
//! - record: the address used, the status code and the first 8 kB of the
//!   response (`detail`).

pub mod classify;
pub mod headers;
pub mod mtls;

use relay_core::model::HttpsDestination;
use relay_core::outcome::Verdict;
use relay_core::time::Timestamp;
use relay_net::{Guard, GuardError, HeaderName, HeaderValue, HttpsClient, Limits, Response};

use self::classify::{Exchange, ResponseHeaders};
use crate::{Invalid, Kind, Prepared, Record, Shared};

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
            .finish_non_exhaustive()
    }
}

impl Client {
    /// The client certificate presented in the TLS handshake, if any.
    pub fn identity(&self) -> Option<&relay_net::ClientIdentity> {
        self.client.identity()
    }
}

/// The result of one `POST`.
pub type Result = std::result::Result<Response, GuardError>;

impl Kind for Https {
    const NAME: &'static str = "https";
    type Config = HttpsDestination;
    type Client = Client;
    type Result = Result;

    async fn validate(
        config: &HttpsDestination,
        guard: &Guard,
    ) -> std::result::Result<(), Invalid> {
        headers::check(&config.headers)?;
        guard
            .check_url(&config.url)
            .await
            .map(drop)
            .map_err(|rejection| Invalid {
                code: rejection.code(),
                pointer: "/destination/url",
                message: rejection.to_string(),
            })
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
        let client = match mtls::identity(config, secrets)? {
            Some(identity) => shared.https.with_identity(&identity),
            None => shared.https.clone(),
        };
        Ok(Client {
            client,
            url: config.url.clone(),
            headers: built,
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Result {
        let mut headers: Vec<(HeaderName, HeaderValue)> =
            Vec::with_capacity(6 + client.headers.len());
        let mut header = |name: &'static str, value: &str| {
            if let Ok(v) = HeaderValue::from_str(value) {
                headers.push((HeaderName::from_static(name), v));
            }
        };
        header("content-type", CONTENT_TYPE);
        header("webhook-id", &message.webhook_id);
        header("webhook-timestamp", &message.webhook_timestamp);
        header("webhook-signature", &message.webhook_signature);
        header("relay-event-type", &message.event_type);
        header("relay-attempt", &message.attempt_number.to_string());
        headers.extend(client.headers.iter().cloned());
        let mut result = client
            .client
            .post_url(&client.url, headers, message.body.clone(), limits)
            .await;
        // A receiver that echoes its request puts no secret in the record.
        if let Ok(response) = &mut result {
            for (_, v) in client.headers.iter().filter(|(_, v)| v.is_sensitive()) {
                response.body_prefix = redact(&response.body_prefix, v.as_bytes());
            }
        }
        result
    }

    fn classify(result: &Result, now: Timestamp) -> Verdict {
        match result {
            Ok(response) => {
                let pairs: Vec<(String, String)> = response
                    .headers
                    .iter()
                    .filter_map(|(n, v)| {
                        Some((n.as_str().to_string(), v.to_str().ok()?.to_string()))
                    })
                    .collect();
                classify::classify(
                    &Exchange::Response {
                        status: response.status.as_u16(),
                        headers: ResponseHeaders::from_pairs(&pairs),
                    },
                    now,
                )
            }
            Err(e) => classify::classify(&Exchange::Failed(e.kind()), now),
        }
    }

    fn record(result: &Result) -> Record {
        match result {
            Ok(response) => Record {
                destination: Some(response.remote_addr),
                error: None,
                detail: serde_json::json!({
                    "status_code": response.status.as_u16(),
                    "response_body": String::from_utf8_lossy(&response.body_prefix),
                }),
            },
            Err(e) => Record {
                destination: e.remote_addr(),
                error: Some((e.kind(), e.to_string())),
                detail: serde_json::json!({}),
            },
        }
    }
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
