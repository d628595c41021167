//! [`Client`]: every request goes through [`Client::send`], with the retry
//! policy, the timeout, the request id and the typed errors.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST, USER_AGENT as USER_AGENT_HEADER};
use http::{HeaderName, HeaderValue, Request};
use http_body_util::Full;

use crate::retry::{
    Backoff, RETRY_STATUSES, SystemTimer, Timer, jitter, parse_retry_after, random_id,
};
use crate::transport::{Transport, pem_certificates};
use crate::{Error, Operation, Page, Pager, Problem};

/// `relay-sdk-rust/<version>`: the `User-Agent` of every request.
pub const USER_AGENT: &str = concat!("relay-sdk-rust/", env!("CARGO_PKG_VERSION"));

/// A client of Relay's API with one tenant API key (`rk_live_…`). Cheap to
/// clone (the clones share their connections).
///
/// Retried: `429` and `503` (Relay refused before doing anything) on any
/// request, waiting `Retry-After` when given (up to
/// [`ClientBuilder::max_retry_wait`]; longer, the error is returned at once)
/// and otherwise a capped exponential backoff with full jitter; a failed
/// connection or a timeout only for requests safe to repeat (`GET`, `PUT`,
/// `DELETE`, and a publish, whose event id is kept across its retries).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    base_url: String,
    authorization: HeaderValue,
    transport: Transport,
    timeout: Duration,
    max_retries: u32,
    backoff: Backoff,
    max_retry_wait: Duration,
    timer: Arc<dyn Timer>,
}

impl fmt::Debug for Client {
    /// The base URL and the settings; never the API key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base_url)
            .field("api_key", &"***")
            .field("timeout", &self.inner.timeout)
            .field("max_retries", &self.inner.max_retries)
            .finish_non_exhaustive()
    }
}

/// How to build a [`Client`]; [`Client::builder`].
pub struct ClientBuilder {
    base_url: String,
    api_key: String,
    timeout: Duration,
    max_retries: u32,
    backoff: Backoff,
    max_retry_wait: Duration,
    ca_pem: Vec<Vec<u8>>,
    timer: Arc<dyn Timer>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &"***")
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// The time one attempt may take, connecting included (30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Retries after the first attempt (3).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// The backoff without `Retry-After`: full jitter up to
    /// `min(cap, base * 2^attempt)` (0.5 s, 30 s).
    pub fn backoff(mut self, base: Duration, cap: Duration) -> Self {
        self.backoff = Backoff { base, cap };
        self
    }

    /// The longest `Retry-After` waited for (60 s); a longer one returns
    /// the error at once.
    pub fn max_retry_wait(mut self, wait: Duration) -> Self {
        self.max_retry_wait = wait;
        self
    }

    /// Trusts the CA certificates of a PEM text besides the web PKI roots
    /// (a private CA, a test's).
    pub fn add_ca_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.ca_pem.push(pem.into());
        self
    }

    /// The clock and the waits between retries (tests).
    pub fn timer(mut self, timer: Arc<dyn Timer>) -> Self {
        self.timer = timer;
        self
    }

    pub fn build(self) -> Result<Client, Error> {
        let mut roots = Vec::new();
        for pem in &self.ca_pem {
            roots.extend(pem_certificates(pem)?);
        }
        let mut authorization = HeaderValue::try_from(format!("Bearer {}", self.api_key))
            .map_err(|_| Error::Config("the API key is not header text".into()))?;
        authorization.set_sensitive(true);
        Ok(Client {
            inner: Arc::new(Inner {
                transport: Transport::new(&self.base_url, roots)?,
                base_url: self.base_url,
                authorization,
                timeout: self.timeout,
                max_retries: self.max_retries,
                backoff: self.backoff,
                max_retry_wait: self.max_retry_wait,
                timer: self.timer,
            }),
        })
    }
}

impl Client {
    /// A client of the Relay at `base_url` (`https://relay.example`) with a
    /// tenant API key.
    pub fn builder(base_url: impl Into<String>, api_key: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            api_key: api_key.into(),
            timeout: Duration::from_secs(30),
            max_retries: 3,
            backoff: Backoff {
                base: Duration::from_millis(500),
                cap: Duration::from_secs(30),
            },
            max_retry_wait: Duration::from_secs(60),
            ca_pem: Vec::new(),
            timer: Arc::new(SystemTimer),
        }
    }

    /// A client with the default settings.
    pub fn new(base_url: impl Into<String>, api_key: impl Into<String>) -> Result<Client, Error> {
        Client::builder(base_url, api_key).build()
    }

    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    /// Sends any operation (a builder of [`crate::api`], or one made with
    /// [`Operation::new`]) and reads its success answer, with this client's
    /// retries, timeout and typed errors.
    pub async fn send<T>(&self, op: Operation<T>) -> Result<T, Error> {
        let inner = &self.inner;
        let body = match op.body() {
            None => Bytes::new(),
            Some(Ok(body)) => Bytes::from(body.clone()),
            Some(Err(e)) => return Err(Error::Request(format!("the body: {e}"))),
        };
        let mut attempt = 0;
        loop {
            let request_id = random_id("req_");
            let request = self.request(&op, body.clone(), &request_id)?;
            let answer = match tokio::time::timeout(
                inner.timeout,
                inner.transport.round_trip(request),
            )
            .await
            {
                Ok(Ok(answer)) => answer,
                failed => {
                    if op.is_safe() && attempt < inner.max_retries {
                        inner
                            .timer
                            .sleep(inner.backoff.wait(attempt, jitter()))
                            .await;
                        attempt += 1;
                        continue;
                    }
                    return Err(match failed {
                        Ok(Err(message)) => Error::Connection {
                            message,
                            request_id,
                        },
                        _ => Error::Timeout {
                            timeout: inner.timeout,
                            request_id,
                        },
                    });
                }
            };
            let answered_id = answer
                .headers
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
                .unwrap_or(request_id);
            if (200..300).contains(&answer.status) {
                return op.decode(&answer.body).map_err(|e| Error::Decode {
                    message: e.to_string(),
                    request_id: answered_id,
                });
            }
            let retry_after = answer
                .headers
                .get(http::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| parse_retry_after(v, inner.timer.now()));
            if RETRY_STATUSES.contains(&answer.status) && attempt < inner.max_retries {
                let wait = retry_after.unwrap_or_else(|| inner.backoff.wait(attempt, jitter()));
                if wait <= inner.max_retry_wait {
                    inner.timer.sleep(wait).await;
                    attempt += 1;
                    continue;
                }
            }
            return Err(Error::Problem(Box::new(Problem::from_answer(
                answer.status,
                &answer.body,
                Some(answered_id),
                retry_after,
            ))));
        }
    }

    /// Every item of any list operation, fetching pages as it goes.
    pub fn paginate<T>(&self, op: Operation<Page<T>>) -> Pager<T> {
        Pager::new(self.clone(), op)
    }

    fn request<T>(
        &self,
        op: &Operation<T>,
        body: Bytes,
        request_id: &str,
    ) -> Result<Request<Full<Bytes>>, Error> {
        let inner = &self.inner;
        let uri = format!("{}{}", inner.transport.base_path, op.path_and_query());
        let mut builder = Request::builder()
            .method(op.method().clone())
            .uri(uri)
            .header(HOST, inner.transport.authority())
            .header(AUTHORIZATION, inner.authorization.clone())
            .header(USER_AGENT_HEADER, USER_AGENT)
            .header(ACCEPT, "application/json")
            .header("x-request-id", request_id);
        if op.body().is_some() {
            builder = builder.header(CONTENT_TYPE, "application/json");
        }
        for (name, value) in op.headers() {
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|_| Error::Request(format!("header {name}: not header text")))?;
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| Error::Request(format!("header {name}: not a header name")))?;
            builder = builder.header(name, value);
        }
        builder
            .body(Full::new(body))
            .map_err(|e| Error::Request(e.to_string()))
    }
}
