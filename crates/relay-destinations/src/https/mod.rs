//! HTTPS webhooks: a signed `POST` of the CloudEvents body to the
//! endpoint's URL through the guarded, pooled client of `relay-net`.
//!
//! - config: [`relay_core::model::HttpsDestination`] (URL; `auth` must be
//!   `null` until client authentication lands);
//! - validation: the guard's registration check of the URL
//!   ([`relay_net::Guard::check_url`]: scheme, port, credentials, every
//!   address the name resolves to);
//! - client: the shared pooled [`HttpsClient`] and the URL, which the guard
//!   checks again at every connection;
//! - deliver: one `POST` with the Standard Webhooks headers;
//! - classify: [`classify`], the reference's response table;
//! - record: the address used, the status code and the first 8 kB of the
//!   response (`detail`).

pub mod classify;

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

/// An endpoint's built HTTPS client.
#[derive(Clone)]
pub struct Client {
    client: HttpsClient,
    url: String,
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
        if config.auth.is_some() {
            return Err(Invalid {
                code: "not_supported",
                pointer: "/destination/auth",
                message: "client authentication (mTLS, OAuth 2.0) is not available yet; use null"
                    .into(),
            });
        }
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
        _secrets: &relay_core::secret::Secrets,
    ) -> std::result::Result<Client, relay_core::secret::Unresolved> {
        Ok(Client {
            client: shared.https.clone(),
            url: config.url.clone(),
        })
    }

    async fn deliver(client: &Client, message: &Prepared, limits: Limits) -> Result {
        let mut headers: Vec<(HeaderName, HeaderValue)> = Vec::with_capacity(6);
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
        client
            .client
            .post_url(&client.url, headers, message.body.clone(), limits)
            .await
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
