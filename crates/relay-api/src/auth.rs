//! Who is calling.
//!
//! `Authorization: Bearer <token>` carries one of:
//! - the **operator token**: manages tenants and their API keys; compared by
//!   SHA-256 digest in constant time, only the digest is kept;
//! - a **tenant API key** (`rk_live_…`, `rk_test_…`): looked up by the SHA-256
//!   of the whole key; grants one tenant and one environment ([`Scope`]).
//!
//! A missing or unknown token is `401`; a valid token used on the other kind
//! of route is `403`. Keys are 192 bits of randomness, so a plain SHA-256 is
//! the right hash (no password stretching needed) and allows an index lookup.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use relay_core::model::Environment;
use relay_store::{ExecutorExt as _, Scope};
use sha2::{Digest, Sha256};

use crate::AppState;
use crate::error::ApiError;

/// SHA-256 of a token, as stored.
pub fn token_digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

pub fn token_digest_hex(token: &str) -> String {
    hex::encode(token_digest(token))
}

/// `n` random bytes, hex-encoded.
pub fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).expect("the operating system's random source is unavailable");
    hex::encode(bytes)
}

/// A new tenant API key for `environment`: `rk_<env>_<48 hex digits>`.
pub fn new_api_key(environment: Environment) -> String {
    format!("rk_{}_{}", environment.as_str(), random_hex(24))
}

/// A new operator token: `rop_<48 hex digits>`.
pub fn new_operator_token() -> String {
    format!("rop_{}", random_hex(24))
}

/// The visible prefix kept to recognise a key in listings.
pub fn key_prefix(key: &str) -> String {
    key.chars().take(12).collect()
}

fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b.iter()) {
        diff |= x ^ y;
    }
    diff == 0
}

/// Whether `headers` carry `Authorization: Bearer <token>` whose SHA-256 is
/// `digest` (compared in constant time).
pub(crate) fn bearer_matches(headers: &axum::http::HeaderMap, digest: &[u8; 32]) -> bool {
    headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .is_some_and(|token| !token.is_empty() && constant_time_eq(&token_digest(token), digest))
}

fn bearer(parts: &Parts) -> Result<&str, ApiError> {
    let value = parts
        .headers
        .get(AUTHORIZATION)
        .ok_or_else(|| ApiError::unauthorized("missing Authorization: Bearer <token> header"))?;
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("the Authorization header is not valid text"))?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .ok_or_else(|| ApiError::unauthorized("the Authorization header must be `Bearer <token>`"))?
        .trim();
    if token.is_empty() {
        return Err(ApiError::unauthorized("the bearer token is empty"));
    }
    Ok(token)
}

fn is_operator(state: &AppState, token: &str) -> bool {
    constant_time_eq(&token_digest(token), &state.operator_token_sha256)
}

/// The caller holds the operator token.
pub struct OperatorAuth;

impl FromRequestParts<Arc<AppState>> for OperatorAuth {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, ApiError> {
        let token = bearer(parts)?;
        if is_operator(state, token) {
            return Ok(OperatorAuth);
        }
        if token.starts_with("rk_") && active_key(state, token).await?.is_some() {
            return Err(ApiError::forbidden(
                "tenant API keys cannot manage tenants; use the operator token",
            ));
        }
        Err(ApiError::unauthorized("unknown or revoked token"))
    }
}

/// The active API key `token` names, from the short-lived cache when it
/// was looked up within the last second (see [`crate::cache`]).
async fn active_key(
    state: &AppState,
    token: &str,
) -> Result<Option<relay_core::model::ApiKey>, ApiError> {
    let digest = token_digest_hex(token);
    if let Some(key) = state.api_keys.get(&digest) {
        return Ok(Some(key));
    }
    let hash = digest.clone();
    let key = state
        .store
        .read(move |mut x| {
            Box::pin(async move { relay_store::tenants::find_api_key(&mut x, &hash).await })
        })
        .await?;
    if let Some(k) = &key {
        state.api_keys.insert(digest, k.clone());
    }
    Ok(key)
}

/// The caller holds an active API key of one tenant and environment.
pub struct TenantAuth {
    pub scope: Scope,
    pub key_id: String,
}

impl FromRequestParts<Arc<AppState>> for TenantAuth {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, ApiError> {
        let token = bearer(parts)?;
        if token.starts_with("rk_")
            && let Some(key) = active_key(state, token).await?
        {
            return Ok(TenantAuth {
                scope: Scope {
                    tenant_id: key.tenant_id,
                    environment: key.environment,
                },
                key_id: key.id,
            });
        }
        if is_operator(state, token) {
            return Err(ApiError::forbidden(
                "the operator token manages tenants only; use a tenant API key here",
            ));
        }
        Err(ApiError::unauthorized("unknown or revoked token"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_carry_their_environment_and_enough_randomness() {
        let k = new_api_key(Environment::Live);
        assert!(k.starts_with("rk_live_"));
        assert_eq!(k.len(), "rk_live_".len() + 48);
        assert_ne!(k, new_api_key(Environment::Live));
        assert_eq!(key_prefix(&k).len(), 12);
        assert!(new_api_key(Environment::Test).starts_with("rk_test_"));
    }

    #[test]
    fn digests_compare_in_full() {
        let a = token_digest("a");
        let mut b = a;
        assert!(constant_time_eq(&a, &b));
        b[31] ^= 1;
        assert!(!constant_time_eq(&a, &b));
    }
}
