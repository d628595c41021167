//! The ownership challenge of an HTTPS endpoint (`relay_core::ownership`,
//! `docs/security.md`, "Proof of endpoint ownership"): one `OPTIONS` to the
//! endpoint's URL through the guarded client, with the handshake's origin,
//! the signature headers the engine made over an empty body, the
//! endpoint's custom headers and its OAuth 2.0 token when it has one (a
//! gateway in front of the receiver asks for them as for any delivery).
//! No payload is sent. The answer is judged by
//! [`relay_core::ownership::judge`]; nothing of its body is kept.

use relay_core::ownership::{ALLOWED_ORIGIN, Failure, MAX_ANSWER_BYTES, REQUEST_ORIGIN, judge};
use relay_net::{GuardError, HeaderName, HeaderValue, Limits, Method};

use super::Client;

/// What the engine sends: the challenge (as `webhook-id`), its timestamp
/// and signature, and the origin that asks.
#[derive(Debug, Clone, Copy)]
pub struct Challenge<'a> {
    pub webhook_id: &'a str,
    pub webhook_timestamp: &'a str,
    pub webhook_signature: &'a str,
    pub origin: &'a str,
}

impl Client {
    /// Sends the challenge and judges the answer: `Ok` when the receiver
    /// proved ownership.
    pub async fn challenge(
        &self,
        challenge: &Challenge<'_>,
        limits: Limits,
    ) -> Result<(), Failure> {
        let mut headers: Vec<(HeaderName, HeaderValue)> =
            Vec::with_capacity(5 + self.headers.len());
        for (name, value) in [
            (REQUEST_ORIGIN, challenge.origin),
            ("webhook-id", challenge.webhook_id),
            ("webhook-timestamp", challenge.webhook_timestamp),
            ("webhook-signature", challenge.webhook_signature),
        ] {
            let value = HeaderValue::from_str(value).map_err(|_| {
                Failure::new("unavailable", format!("the {name} header cannot be sent"))
            })?;
            headers.push((HeaderName::from_static(name), value));
        }
        headers.extend(self.headers.iter().cloned());
        if let Some(source) = &self.oauth2 {
            let (bearer, _) = source.bearer(limits).await.map_err(|e| {
                Failure::new(
                    "unreachable",
                    format!("the OAuth 2.0 token could not be had: {}", e.failure),
                )
            })?;
            headers.push((
                HeaderName::from_static("authorization"),
                bearer.authorization.clone(),
            ));
        }
        let url = self
            .client
            .guard()
            .parse_url(&self.url)
            .map_err(|rejection| Failure::new("refused", rejection.to_string()))?;
        let response = self
            .client
            .send(Method::OPTIONS, &url, headers, bytes::Bytes::new(), limits)
            .await
            .map_err(|e| match e {
                GuardError::Rejected(rejection) => Failure::new("refused", rejection.to_string()),
                other => Failure::new("unreachable", other.to_string()),
            })?;
        let allowed = response
            .headers
            .get(ALLOWED_ORIGIN)
            .map(|v| v.to_str().unwrap_or("\u{fffd}"));
        let body = &response.body_prefix[..response.body_prefix.len().min(MAX_ANSWER_BYTES)];
        judge(
            response.status.as_u16(),
            allowed,
            body,
            challenge.webhook_id,
            challenge.origin,
        )
    }
}
