//! A real OAuth 2.0 token endpoint (RFC 6749 §4.4, client credentials) and
//! bearer-token checks, for tests of clients that authenticate with it.
//!
//! An [`OAuthIssuer`] holds one client's id and secret and the tokens it
//! issued. A [`Receiver`](crate::Receiver) serves its token endpoint at a
//! path ([`Receiver::serve_token_endpoint`](crate::Receiver::serve_token_endpoint))
//! and/or requires its tokens on every other request
//! ([`Receiver::require_bearer`](crate::Receiver::require_bearer): a missing,
//! unknown or revoked token gets `401`). Two receivers may share one
//! issuer, so the token endpoint can be stopped while the webhook receiver
//! stays up.
//!
//! The token endpoint accepts `client_secret_basic` (the id and secret each
//! form-urlencoded, then base64, RFC 6749 §2.3.1) and `client_secret_post`,
//! never both at once; it counts requests, issues tokens with a settable
//! `expires_in`, and can be told to refuse (`invalid_client`, any error
//! code) or to fail with a status.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use hyper::header::HeaderMap;

use crate::behavior::Reply;
use crate::receiver::lock;

/// What one token request was, as the issuer saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRequest {
    /// `client_secret_basic`, `client_secret_post`, or `none`.
    pub method: &'static str,
    /// The `grant_type` sent.
    pub grant_type: Option<String>,
    /// The `scope` sent.
    pub scope: Option<String>,
    /// The `audience` sent.
    pub audience: Option<String>,
    /// Whether the client authenticated.
    pub authenticated: bool,
}

#[derive(Debug, Default)]
struct State {
    client_secret: String,
    expires_in: Option<u64>,
    refuse: Option<(u16, String)>,
    fail_status: Option<u16>,
    valid: HashSet<String>,
    all: Vec<String>,
    requests: Vec<TokenRequest>,
}

/// One OAuth 2.0 client and the tokens issued to it. Share it with `Arc`.
#[derive(Debug)]
pub struct OAuthIssuer {
    client_id: String,
    issued: AtomicU64,
    nonce: u64,
    state: Mutex<State>,
}

impl OAuthIssuer {
    /// An issuer for one client; tokens live `expires_in` seconds (as the
    /// answer says; the issuer itself accepts them until revoked).
    pub fn new(client_id: &str, client_secret: &str, expires_in: Option<u64>) -> Arc<OAuthIssuer> {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0);
        Arc::new(OAuthIssuer {
            client_id: client_id.to_string(),
            issued: AtomicU64::new(0),
            nonce: h.finish(),
            state: Mutex::new(State {
                client_secret: client_secret.to_string(),
                expires_in,
                ..State::default()
            }),
        })
    }

    /// The client's secret from now on (a rotation at the authorization
    /// server): requests with the old one get `invalid_client`.
    pub fn set_client_secret(&self, client_secret: &str) {
        lock(&self.state).client_secret = client_secret.to_string();
    }

    /// The `expires_in` of the tokens issued from now on.
    pub fn set_expires_in(&self, expires_in: Option<u64>) {
        lock(&self.state).expires_in = expires_in;
    }

    /// From now on, answer token requests with this OAuth error (`None`:
    /// issue tokens again), e.g. `(401, "invalid_client")`.
    pub fn refuse(&self, error: Option<(u16, &str)>) {
        lock(&self.state).refuse = error.map(|(s, e)| (s, e.to_string()));
    }

    /// From now on, answer token requests with this bare status (`None`: normally).
    pub fn fail_with_status(&self, status: Option<u16>) {
        lock(&self.state).fail_status = status;
    }

    /// Forgets every token issued so far: presenting one gets `401`.
    pub fn revoke_all(&self) {
        lock(&self.state).valid.clear();
    }

    /// Token requests received.
    pub fn token_requests(&self) -> u64 {
        lock(&self.state).requests.len() as u64
    }

    /// The token requests received, in order.
    pub fn requests(&self) -> Vec<TokenRequest> {
        lock(&self.state).requests.clone()
    }

    /// Tokens issued.
    pub fn issued(&self) -> u64 {
        self.issued.load(Ordering::Relaxed)
    }

    /// Every token issued, revoked or not, oldest first (for tests proving
    /// a token never shows where it must not).
    pub fn issued_tokens(&self) -> Vec<String> {
        lock(&self.state).all.clone()
    }

    /// Whether `headers` carry `Authorization: Bearer <a valid token>`.
    pub fn bearer_valid(&self, headers: &HeaderMap) -> bool {
        let token = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        token.is_some_and(|t| lock(&self.state).valid.contains(t))
    }

    /// The answer to one token request.
    pub(crate) fn answer(&self, method: &str, headers: &HeaderMap, body: &[u8]) -> Reply {
        let form: Vec<(String, String)> = form_urlencoded::parse(body).into_owned().collect();
        let field = |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let basic = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Basic "))
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .and_then(|raw| String::from_utf8(raw).ok())
            .and_then(|pair| {
                let (id, secret) = pair.split_once(':')?;
                let decode = |s: &str| -> String {
                    form_urlencoded::parse(format!("x={s}").as_bytes())
                        .next()
                        .map(|(_, v)| v.into_owned())
                        .unwrap_or_default()
                };
                Some((decode(id), decode(secret)))
            });
        let posted = field("client_secret").map(|s| (field("client_id").unwrap_or_default(), s));
        let (auth_method, credentials) = match (basic, posted) {
            (Some(b), None) => ("client_secret_basic", Some(b)),
            (None, Some(p)) => ("client_secret_post", Some(p)),
            (Some(_), Some(_)) => ("both", None),
            (None, None) => ("none", None),
        };
        let mut state = lock(&self.state);
        let authenticated = credentials
            .as_ref()
            .is_some_and(|(id, s)| *id == self.client_id && *s == state.client_secret);
        state.requests.push(TokenRequest {
            method: auth_method,
            grant_type: field("grant_type"),
            scope: field("scope"),
            audience: field("audience"),
            authenticated,
        });
        let error = |status: u16, code: &str, description: &str| {
            Reply::new(status)
                .with_header("content-type", "application/json")
                .with_header("cache-control", "no-store")
                .with_body(
                    serde_json::json!({"error": code, "error_description": description})
                        .to_string(),
                )
        };
        if let Some(status) = state.fail_status {
            return Reply::new(status).with_body("token endpoint unavailable");
        }
        if let Some((status, code)) = &state.refuse {
            return error(*status, code, "refused by the test issuer");
        }
        if method != "POST" {
            return error(400, "invalid_request", "the token endpoint takes POST");
        }
        if auth_method == "both" {
            return error(
                400,
                "invalid_request",
                "more than one client authentication method",
            );
        }
        if !authenticated {
            return error(401, "invalid_client", "client authentication failed")
                .with_header("www-authenticate", "Basic realm=\"token\"");
        }
        if field("grant_type").as_deref() != Some("client_credentials") {
            return error(400, "unsupported_grant_type", "only client_credentials");
        }
        let n = self.issued.fetch_add(1, Ordering::Relaxed);
        let token = format!("at-{:016x}-{n}", self.nonce);
        state.valid.insert(token.clone());
        state.all.push(token.clone());
        let mut answer = serde_json::json!({"access_token": token, "token_type": "Bearer"});
        if let Some(e) = state.expires_in {
            answer["expires_in"] = e.into();
        }
        Reply::new(200)
            .with_header("content-type", "application/json")
            .with_header("cache-control", "no-store")
            .with_body(answer.to_string())
    }
}
