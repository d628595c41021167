//! The tenant's side of the embeddable portal (docs/portal.md): minting
//! and revoking portal tokens, and the portal's brand.
//!
//! A portal token (`rpt_…`, 192 random bits) is shown once, at minting;
//! only its SHA-256 is stored, like an API key's. It acts for one consumer
//! of the minting key's tenant and environment, for 60 s to 24 h, with the
//! capabilities it was given (none: read-only).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::id::IdKind;
use relay_core::time::Timestamp;
use relay_store::portal::{self, NewPortalToken, PortalToken};
use relay_store::{Commit, ExecutorExt as _, new_id};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::{TenantAuth, random_hex, token_digest_hex};
use crate::error::{ApiError, FieldError, Problem, or_not_found};
use crate::extract::JsonBody;

pub use super::portal_brand::*;

/// Shortest and longest lifetime of a portal token, in seconds.
pub const MIN_LIFETIME_SECONDS: u32 = 60;
pub const MAX_LIFETIME_SECONDS: u32 = 24 * 3600;
pub const DEFAULT_LIFETIME_SECONDS: u32 = 3600;
/// Most origins a token (or a brand) may list.
pub const MAX_ORIGINS: usize = 10;

/// What a portal token allows beyond reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Capability {
    /// Add, change, disable, enable and delete the consumer's endpoints.
    ManageEndpoints,
    /// Rotate an endpoint's signing key.
    RotateKeys,
    /// Resend a message, recover an endpoint's failed messages.
    Recover,
    /// Send a test event to an endpoint.
    SendTests,
}

impl Capability {
    pub const ALL: [Capability; 4] = [
        Capability::ManageEndpoints,
        Capability::RotateKeys,
        Capability::Recover,
        Capability::SendTests,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Capability::ManageEndpoints => "manage_endpoints",
            Capability::RotateKeys => "rotate_keys",
            Capability::Recover => "recover",
            Capability::SendTests => "send_tests",
        }
    }

    pub fn parse(s: &str) -> Option<Capability> {
        Capability::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// A new portal token: a prefix and 48 hex digits (192 bits).
pub fn new_portal_token() -> String {
    format!("rpt_{}", random_hex(24))
}

/// Whether `s` is a web origin Relay accepts in a token or a brand:
/// `https://host[:port]` (or `http://` for `localhost` and loopback
/// addresses, for development), lower case, no path, no wildcard. The
/// characters are a strict set because origins end up in a
/// `Content-Security-Policy` header.
pub fn valid_origin(s: &str) -> bool {
    let rest = if let Some(r) = s.strip_prefix("https://") {
        r
    } else if let Some(r) = s.strip_prefix("http://") {
        let host = r.rsplit_once(':').map_or(r, |(h, _)| h);
        if !(host == "localhost" || host == "127.0.0.1" || host == "[::1]") {
            return false;
        }
        r
    } else {
        return false;
    };
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (h, Some(p)),
        _ => (rest, None),
    };
    let host_ok = !host.is_empty()
        && host.len() <= 253
        && (host
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
            || host == "[::1]")
        && !host.starts_with('.')
        && !host.starts_with('-');
    let port_ok = port.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 5
            && p.bytes().all(|b| b.is_ascii_digit())
            && p.parse::<u32>().is_ok_and(|n| (1..=65535).contains(&n))
    });
    host_ok && port_ok
}

pub(crate) fn check_origins(origins: &[String], pointer: &str, errors: &mut Vec<FieldError>) {
    if origins.len() > MAX_ORIGINS {
        errors.push(FieldError {
            field: pointer.to_string(),
            message: format!("at most {MAX_ORIGINS} origins"),
        });
    }
    for (i, o) in origins.iter().enumerate() {
        if !valid_origin(o) {
            errors.push(FieldError {
                field: format!("{pointer}/{i}"),
                message: "must be an origin such as https://app.example.com (lower case, \
                          no path; http:// only for localhost)"
                    .into(),
            });
        }
    }
}

/// A portal token to mint: whose portal it opens, for how long, allowing what.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MintPortalToken {
    /// The consumer whose portal this opens.
    pub consumer_id: String,
    /// 60 to 86400 seconds (default 3600).
    #[schema(minimum = 60, maximum = 86400)]
    pub lifetime_seconds: Option<u32>,
    /// What the token allows beyond reading; absent or empty: read-only.
    #[serde(default)]
    pub capabilities: Vec<Capability>,
    /// Origins whose pages may use the token (embedded components call the
    /// API from them); Relay's own hosted page may always.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
}

/// A minted token: `token` is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct PortalTokenCreated {
    /// The token's id (`ptk_…`), to read or revoke it; not the token.
    pub id: String,
    /// `rpt_…`: pass it to the portal in the URL fragment or the component's
    /// `token` property, never in a query string.
    pub token: String,
    /// The consumer whose portal it opens.
    pub consumer_id: String,
    /// What it allows beyond reading (none: read-only).
    pub capabilities: Vec<Capability>,
    /// Origins whose pages may use it.
    pub allowed_origins: Vec<String>,
    /// When it was minted.
    pub created_at: Timestamp,
    /// When it stops working.
    pub expires_at: Timestamp,
    /// The hosted page, relative to Relay's address, with the token in the
    /// fragment (never sent to a server): to open in a browser tab.
    pub url: String,
    /// The same page for an iframe: framed only by the brand's `embed_origins`.
    pub embed_url: String,
}

/// A portal token as listed: never the token itself.
#[derive(Debug, Serialize, ToSchema)]
pub struct PortalTokenOut {
    /// The token's id (`ptk_…`).
    pub id: String,
    /// The consumer whose portal it opens.
    pub consumer_id: String,
    /// What it allows beyond reading (none: read-only).
    pub capabilities: Vec<Capability>,
    /// Origins whose pages may use it.
    pub allowed_origins: Vec<String>,
    /// When it was minted.
    pub created_at: Timestamp,
    /// When it stops working.
    pub expires_at: Timestamp,
    /// When it was revoked; `null` unless it was.
    pub revoked_at: Option<Timestamp>,
}

pub fn capabilities_of(t: &PortalToken) -> Vec<Capability> {
    t.capabilities
        .iter()
        .filter_map(|c| Capability::parse(c))
        .collect()
}

/// Mint a portal token
///
/// Mints a token (`rpt_…`) that opens the embeddable portal for one
/// consumer of the key's tenant and environment, for 60 s to 24 h (default
/// one hour), read-only or with `capabilities` (manage endpoints, rotate
/// keys, recover, send tests). The token is in this answer only, with the
/// hosted page's `url` and `embed_url` carrying it in the fragment. Pass it
/// to the portal, never in a query string. Audited as
/// `portal_token.created`.
///
/// Tenant API key. Refused with `422` `validation_failed` (a lifetime
/// outside 60 to 86,400 s, more than 10 origins or one that is not an
/// origin) or `unknown_reference` (no such consumer).
#[utoipa::path(operation_id = "portal_tokens.create", post, path = "/v1/portal-tokens", tag = "portal-tokens",
    request_body = MintPortalToken,
    responses((status = 201, body = PortalTokenCreated), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    JsonBody(body): JsonBody<MintPortalToken>,
) -> Result<(StatusCode, Json<PortalTokenCreated>), ApiError> {
    let lifetime = body.lifetime_seconds.unwrap_or(DEFAULT_LIFETIME_SECONDS);
    let mut errors = Vec::new();
    if !(MIN_LIFETIME_SECONDS..=MAX_LIFETIME_SECONDS).contains(&lifetime) {
        errors.push(FieldError {
            field: "/lifetime_seconds".into(),
            message: format!(
                "must be between {MIN_LIFETIME_SECONDS} and {MAX_LIFETIME_SECONDS} seconds"
            ),
        });
    }
    check_origins(&body.allowed_origins, "/allowed_origins", &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    let mut capabilities = Vec::new();
    for c in body.capabilities {
        if !capabilities.contains(&c) {
            capabilities.push(c);
        }
    }
    let mut origins: Vec<String> = Vec::new();
    for o in body.allowed_origins {
        if !origins.contains(&o) {
            origins.push(o);
        }
    }
    let now = state.clock.now();
    let secret = new_portal_token();
    let token = PortalToken {
        id: new_id(IdKind::PortalToken, now),
        tenant_id: auth.scope.tenant_id.clone(),
        environment: auth.scope.environment,
        consumer_id: body.consumer_id,
        capabilities: capabilities
            .iter()
            .map(|c| c.as_str().to_string())
            .collect(),
        allowed_origins: origins.clone(),
        created_at: now,
        expires_at: now.plus_seconds(i64::from(lifetime)),
        revoked_at: None,
    };
    let audit = super::audit::entry(
        &auth,
        "portal_token.created",
        &token.id,
        serde_json::json!({
            "consumer_id": token.consumer_id,
            "capabilities": token.capabilities,
            "allowed_origins": token.allowed_origins,
            "expires_at": token.expires_at,
        }),
        now,
    );
    let new = NewPortalToken {
        token: token.clone(),
        token_hash: token_digest_hex(&secret),
    };
    let scope = auth.scope.clone();
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { portal::create_token(&mut x, &scope, &new, &audit).await })
        })
        .await
        .map_err(|e| match e {
            relay_store::StoreError::MissingReference(_) => ApiError::invalid(
                "unknown_reference",
                "/consumer_id",
                "no consumer with this id in this environment",
            ),
            other => other.into(),
        })?;
    Ok((
        StatusCode::CREATED,
        Json(PortalTokenCreated {
            url: format!("/portal#token={secret}"),
            embed_url: format!(
                "/portal/{}/{}#token={secret}",
                token.tenant_id,
                token.environment.as_str()
            ),
            id: token.id,
            token: secret,
            consumer_id: token.consumer_id,
            capabilities,
            allowed_origins: origins,
            created_at: token.created_at,
            expires_at: token.expires_at,
        }),
    ))
}

/// Get a portal token
///
/// Returns what a portal token allows and until when; never the token
/// itself. Tenant API key; `404` for a token of another tenant or
/// environment.
#[utoipa::path(operation_id = "portal_tokens.get", get, path = "/v1/portal-tokens/{id}", tag = "portal-tokens",
    params(("id" = String, Path, description = "The portal token's id.")),
    responses((status = 200, body = PortalTokenOut), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<PortalTokenOut>, ApiError> {
    let scope = auth.scope.clone();
    let t = state
        .store
        .read(move |mut x| Box::pin(async move { portal::get_token(&mut x, &scope, &id).await }))
        .await?
        .ok_or_else(|| ApiError::not_found("portal token"))?;
    Ok(Json(PortalTokenOut {
        capabilities: capabilities_of(&t),
        id: t.id,
        consumer_id: t.consumer_id,
        allowed_origins: t.allowed_origins,
        created_at: t.created_at,
        expires_at: t.expires_at,
        revoked_at: t.revoked_at,
    }))
}

/// Revoke a portal token
///
/// Revokes the token: the portal refuses it (`401`) from now on. Revoking a
/// revoked token changes nothing. Audited as `portal_token.revoked`. Tenant
/// API key; `404` for an unknown token.
#[utoipa::path(operation_id = "portal_tokens.revoke", delete, path = "/v1/portal-tokens/{id}", tag = "portal-tokens",
    params(("id" = String, Path, description = "The portal token's id.")),
    responses((status = 204), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn revoke(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let now = state.clock.now();
    let audit = super::audit::entry(
        &auth,
        "portal_token.revoked",
        &id,
        serde_json::json!({}),
        now,
    );
    let scope = auth.scope.clone();
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { portal::revoke_token(&mut x, &scope, &id, now, &audit).await })
        })
        .await
        .map_err(or_not_found("portal token"))?;
    Ok(StatusCode::NO_CONTENT)
}

/// Whose portal tokens to revoke.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevokeAll {
    /// The consumer whose every token is revoked.
    pub consumer_id: String,
}

/// How many tokens a revoke-all revoked.
#[derive(Debug, Serialize, ToSchema)]
pub struct RevokedAll {
    /// Tokens revoked now (those revoked earlier are not counted).
    pub revoked: u64,
}

/// Revoke every portal token of a consumer
///
/// Revokes all of the consumer's portal tokens at once (a leaked link, an
/// offboarded customer) and says how many were still active. Audited as
/// `portal_tokens.revoked`. Tenant API key; `404` for an unknown consumer.
#[utoipa::path(operation_id = "portal_tokens.revoke_all", post, path = "/v1/portal-tokens/revoke-all", tag = "portal-tokens",
    request_body = RevokeAll,
    responses((status = 200, body = RevokedAll), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn revoke_all(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    JsonBody(body): JsonBody<RevokeAll>,
) -> Result<Json<RevokedAll>, ApiError> {
    if super::consumers::find(&*state.store, &auth.scope, &body.consumer_id)
        .await?
        .is_none()
    {
        return Err(ApiError::not_found("consumer"));
    }
    let now = state.clock.now();
    let audit = super::audit::entry(
        &auth,
        "portal_tokens.revoked",
        &body.consumer_id,
        serde_json::json!({}),
        now,
    );
    let (scope, consumer_id) = (auth.scope.clone(), body.consumer_id.clone());
    let revoked = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                portal::revoke_consumer_tokens(&mut x, &scope, &consumer_id, now, &audit).await
            })
        })
        .await?;
    Ok(Json(RevokedAll { revoked }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_strict() {
        for ok in [
            "https://app.example.com",
            "https://app.example.com:8443",
            "http://localhost:3000",
            "http://127.0.0.1:41234",
            "http://[::1]:8080",
        ] {
            assert!(valid_origin(ok), "{ok}");
        }
        for bad in [
            "https://app.example.com/",
            "https://app.example.com/path",
            "http://app.example.com",
            "https://*.example.com",
            "https://App.example.com",
            "https://a.com; script-src *",
            "https://a.com 'unsafe-inline'",
            "https://",
            "https://a.com:",
            "https://a.com:99999",
            "ftp://a.com",
            "javascript:alert(1)",
            "",
        ] {
            assert!(!valid_origin(bad), "{bad}");
        }
    }

    #[test]
    fn tokens_are_random_and_prefixed() {
        let t = new_portal_token();
        assert!(t.starts_with("rpt_"));
        assert_eq!(t.len(), 4 + 48);
        assert_ne!(t, new_portal_token());
    }

    #[test]
    fn brands_refuse_what_could_inject_css() {
        let bad = PortalBrand {
            primary_color: Some("red;}body{display:none".into()),
            font_family: Some("x;}".into()),
            logo_url: Some("javascript:alert(1)".into()),
            ..Default::default()
        };
        assert!(bad.check().is_err());
        let good = PortalBrand {
            name: Some("Acme".into()),
            primary_color: Some("#0044cc".into()),
            font_family: Some("Inter, sans-serif".into()),
            logo_url: Some("https://cdn.example.com/logo.png".into()),
            theme: Theme::Dark,
            ..Default::default()
        };
        assert!(good.check().is_ok());
    }
}
