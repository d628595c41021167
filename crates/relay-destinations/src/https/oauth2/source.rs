//! One endpoint's OAuth 2.0 tokens: fetched through the guarded client,
//! cached until shortly before they expire ([`super::refresh_at`], by the
//! engine's clock), one fetch for any number of concurrent misses, and
//! invalidated when the endpoint answers `401` to the token.
//!
//! The single flight: a miss joins the fetch in progress, or starts one (a
//! `OnceCell` every joiner awaits). The fetch that completes stores its
//! token and ends the flight; its result, token or failure, is every
//! joiner's. A fetch abandoned half-way (its attempt cancelled) is taken
//! over by the next joiner. The next miss after a failure starts a new fetch.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::https::OAuth2ClientCredentials;
use relay_core::secret::SecretValue;
use relay_core::time::{Clock, Timestamp};
use relay_net::{HeaderValue, HttpsClient, Limits};
use tokio::sync::OnceCell;

use super::{MAX_ANSWER_BYTES, TokenError, read_answer, refresh_at, token_request};

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
    config: OAuth2ClientCredentials,
    secret: SecretValue,
    client: HttpsClient,
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
            .field("token_url", &self.inner.config.token_url)
            .field("client_id", &self.inner.config.client_id)
            .field("method", &self.inner.config.method)
            .finish_non_exhaustive()
    }
}

impl TokenSource {
    pub fn new(
        config: OAuth2ClientCredentials,
        secret: SecretValue,
        client: HttpsClient,
        clock: Arc<dyn Clock>,
    ) -> TokenSource {
        TokenSource {
            inner: Arc::new(Inner {
                config,
                secret,
                client,
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
        let result = self.fetch(limits).await;
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

    /// One token request through the guarded client (the guard checks the
    /// token URL and pins the verified address; redirects are answers, not
    /// followed; at most [`MAX_ANSWER_BYTES`] are read within `limits`).
    async fn fetch(&self, limits: Limits) -> Result<super::Token, TokenError> {
        let secret = self.inner.secret.expose();
        let (headers, body) = token_request(&self.inner.config, secret);
        let limits = Limits {
            max_response_body: MAX_ANSWER_BYTES,
            ..limits
        };
        match self
            .inner
            .client
            .post_url(&self.inner.config.token_url, headers, body, limits)
            .await
        {
            Err(e) => Err(TokenError::transport(
                e.kind(),
                format!("token endpoint: {e}"),
                e.remote_addr(),
            )),
            Ok(r) => read_answer(r.status.as_u16(), &r.body_prefix, r.truncated, secret).map_err(
                |mut e| {
                    e.addr = Some(r.remote_addr);
                    e
                },
            ),
        }
    }
}
