//! One endpoint's OAuth 2.0 tokens: fetched through the guarded client,
//! cached until shortly before they expire ([`super::refresh_at`], by the
//! engine's clock), one fetch for any number of concurrent misses, and
//! invalidated when the endpoint answers `401` to the token.
//!
//! How a token is asked for is the [`Grant`]: HTTPS's client credentials
//! ([`ClientCredentials`]), Google's JWT bearer assertion signed with a
//! service account's key (`pubsub/key.rs`), each posted to its token
//! endpoint through the guarded client; or any other [`Fetcher`] (the
//! installation's Google workload identity, `gcp.rs`, asks
//! the metadata server through the operator client). The cache is the
//! same for all.
//!
//! The single flight: a miss joins the fetch in progress, or starts one (a
//! `OnceCell` every joiner awaits). The fetch that completes stores its
//! token and ends the flight; its result, token or failure, is every
//! joiner's. A fetch abandoned half-way (its attempt cancelled) is taken
//! over by the next joiner. The next miss after a failure starts a new fetch.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::https::OAuth2ClientCredentials;
use bytes::Bytes;
use relay_core::secret::SecretValue;
use relay_core::time::{Clock, Timestamp};
use relay_net::{HeaderName, HeaderValue, HttpsClient, Limits};
use tokio::sync::OnceCell;

use super::{MAX_ANSWER_BYTES, TokenError, read_answer, refresh_at, token_request};

/// One token request, ready to send. No `Debug`: it is credentials.
pub struct TokenRequest {
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub body: Bytes,
    /// What is cut out of any text of the answer that is kept (the client
    /// secret, the assertion).
    pub secret: SecretValue,
}

/// How an endpoint asks its token endpoint for a token. Its `Debug` shows
/// no credential.
pub trait Grant: std::fmt::Debug + Send + Sync + 'static {
    /// The token endpoint's URL (checked by the guard at every connection).
    fn token_url(&self) -> &str;
    /// The request made at `now` (the machine's clock: an assertion's
    /// times are judged by the token endpoint's), or why none can be made.
    fn request(&self, now: Timestamp) -> Result<TokenRequest, TokenError>;
}

/// OAuth 2.0 client credentials (RFC 6749 §4.4): HTTPS endpoints' grant.
pub struct ClientCredentials {
    pub config: OAuth2ClientCredentials,
    pub secret: SecretValue,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("token_url", &self.config.token_url)
            .field("client_id", &self.config.client_id)
            .field("method", &self.config.method)
            .finish_non_exhaustive()
    }
}

impl Grant for ClientCredentials {
    fn token_url(&self) -> &str {
        &self.config.token_url
    }

    fn request(&self, _now: Timestamp) -> Result<TokenRequest, TokenError> {
        let secret = self.secret.expose();
        let (headers, body) = token_request(&self.config, secret);
        Ok(TokenRequest {
            headers,
            body,
            secret: SecretValue::new(secret.to_vec()),
        })
    }
}

/// How a token is fetched, when it is not a grant posted to a token
/// endpoint through the guarded client. Its `Debug` shows no credential.
pub trait Fetcher: std::fmt::Debug + Send + Sync + 'static {
    /// One fetch within `limits`.
    fn fetch(&self, limits: Limits) -> Fetching<'_>;
}

/// A fetch in progress.
pub type Fetching<'a> = Pin<Box<dyn Future<Output = Result<super::Token, TokenError>> + Send + 'a>>;

/// A grant posted to its token endpoint through the guarded client.
struct Posted {
    grant: Box<dyn Grant>,
    client: HttpsClient,
}

impl std::fmt::Debug for Posted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.grant.fmt(f)
    }
}

impl Fetcher for Posted {
    fn fetch(&self, limits: Limits) -> Fetching<'_> {
        Box::pin(self.post(limits))
    }
}

impl Posted {
    /// One token request through the guarded client (the guard checks the
    /// token URL and pins the verified address; redirects are answers, not
    /// followed; at most [`MAX_ANSWER_BYTES`] are read within `limits`).
    async fn post(&self, limits: Limits) -> Result<super::Token, TokenError> {
        let request = self.grant.request(crate::aws::now())?;
        let limits = Limits {
            max_response_body: MAX_ANSWER_BYTES,
            ..limits
        };
        match self
            .client
            .post_url(
                self.grant.token_url(),
                request.headers,
                request.body,
                limits,
            )
            .await
        {
            Err(e) => Err(TokenError::transport(
                e.kind(),
                format!("token endpoint: {e}"),
                e.remote_addr(),
            )),
            Ok(r) => read_answer(
                r.status.as_u16(),
                &r.body_prefix,
                r.truncated,
                request.secret.expose(),
            )
            .map_err(|mut e| {
                e.addr = Some(r.remote_addr);
                e
            }),
        }
    }
}

type Flight = Arc<OnceCell<Result<Bearer, TokenError>>>;

/// A token ready to send: the `Authorization` value (sensitive) and the
/// generation that names it for [`TokenSource::invalidate`].
#[derive(Clone)]
pub struct Bearer {
    pub authorization: HeaderValue,
    pub generation: u64,
    refresh_at: Timestamp,
}

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bearer")
            .field("generation", &self.generation)
            .field("refresh_at", &self.refresh_at)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct State {
    token: Option<Bearer>,
    flight: Option<Flight>,
    generation: u64,
}

struct Inner {
    fetcher: Box<dyn Fetcher>,
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
}

/// The token cache of one endpoint's built client. Clones share it.
#[derive(Clone)]
pub struct TokenSource {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSource")
            .field("fetcher", &self.inner.fetcher)
            .finish_non_exhaustive()
    }
}

impl TokenSource {
    /// The client credentials' token cache (HTTPS).
    pub fn new(
        config: OAuth2ClientCredentials,
        secret: SecretValue,
        client: HttpsClient,
        clock: Arc<dyn Clock>,
    ) -> TokenSource {
        TokenSource::with_grant(ClientCredentials { config, secret }, client, clock)
    }

    /// The token cache of any grant.
    pub fn with_grant(
        grant: impl Grant,
        client: HttpsClient,
        clock: Arc<dyn Clock>,
    ) -> TokenSource {
        TokenSource::with_fetcher(
            Posted {
                grant: Box::new(grant),
                client,
            },
            clock,
        )
    }

    /// The token cache of any fetcher.
    pub fn with_fetcher(fetcher: impl Fetcher, clock: Arc<dyn Clock>) -> TokenSource {
        TokenSource {
            inner: Arc::new(Inner {
                fetcher: Box::new(fetcher),
                clock,
                state: Mutex::new(State::default()),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A token: the cached one while it is fresh, else the result of one
    /// fetch shared by every concurrent miss. The flag says whether this
    /// call waited for a fetch.
    pub async fn bearer(&self, limits: Limits) -> Result<(Bearer, bool), TokenError> {
        let now = self.inner.clock.now();
        let flight = {
            let mut state = self.state();
            if let Some(t) = &state.token
                && now < t.refresh_at
            {
                return Ok((t.clone(), false));
            }
            state
                .flight
                .get_or_insert_with(|| Arc::new(OnceCell::new()))
                .clone()
        };
        let result = flight
            .get_or_init(|| self.fetch_and_store(limits, flight.clone()))
            .await;
        result.clone().map(|b| (b, true))
    }

    /// Forgets the token of `generation` (the endpoint refused it), unless
    /// a newer one replaced it already.
    pub fn invalidate(&self, generation: u64) {
        let mut state = self.state();
        if state
            .token
            .as_ref()
            .is_some_and(|t| t.generation == generation)
        {
            state.token = None;
        }
    }

    async fn fetch_and_store(&self, limits: Limits, flight: Flight) -> Result<Bearer, TokenError> {
        let fetched_at = self.inner.clock.now();
        let result = self.inner.fetcher.fetch(limits).await;
        let mut state = self.state();
        if state
            .flight
            .as_ref()
            .is_some_and(|f| Arc::ptr_eq(f, &flight))
        {
            state.flight = None;
        }
        let token = result?;
        state.generation += 1;
        let bearer = Bearer {
            authorization: token.authorization,
            generation: state.generation,
            refresh_at: refresh_at(fetched_at, token.expires_in),
        };
        state.token = Some(bearer.clone());
        Ok(bearer)
    }
}
