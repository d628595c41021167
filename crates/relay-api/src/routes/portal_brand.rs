//! The portal's brand (docs/portal.md): the tenant's colours, logo and
//! theme, set by the tenant API and inherited by sub-tenants; moved out of
//! `portal_tokens.rs` (which re-exports it) to keep that file short.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use relay_store::portal;
use relay_store::{Commit, ExecutorExt as _};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, FieldError, Problem};
use crate::extract::OptionalJsonBody;
use crate::routes::portal_tokens::check_origins;

/// The light or dark theme, or the viewer's preference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    Light,
    Dark,
    #[default]
    Auto,
}

/// The tenant's brand for its portal, applied through CSS custom
/// properties (`--relay-primary`, …; docs/portal.md). A host page may
/// override any of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PortalBrand {
    /// Shown in the portal's header (at most 100 characters).
    pub name: Option<String>,
    /// An `https://` image URL (at most 2000 characters).
    pub logo_url: Option<String>,
    /// Colours as `#rgb` or `#rrggbb`.
    pub primary_color: Option<String>,
    /// The page's background colour, `#rgb` or `#rrggbb`.
    pub background_color: Option<String>,
    /// The text colour, `#rgb` or `#rrggbb`.
    pub text_color: Option<String>,
    /// A CSS font family list of installed or host-loaded fonts, e.g.
    /// `Inter, sans-serif` (letters, digits, spaces, commas, hyphens).
    pub font_family: Option<String>,
    /// `light`, `dark` or `auto` (the viewer's preference, the default).
    #[serde(default)]
    pub theme: Theme,
    /// Origins whose pages may frame the hosted page
    /// (`/portal/{tenant id}/{environment}`); without any, it refuses every frame.
    #[serde(default)]
    pub embed_origins: Vec<String>,
}

fn valid_color(s: &str) -> bool {
    let Some(hex) = s.strip_prefix('#') else {
        return false;
    };
    (hex.len() == 3 || hex.len() == 6) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

impl PortalBrand {
    pub(crate) fn check(&self) -> Result<(), ApiError> {
        let mut errors = Vec::new();
        let mut field = |f: &str, m: &str| {
            errors.push(FieldError {
                field: f.to_string(),
                message: m.to_string(),
            })
        };
        if self.name.as_ref().is_some_and(|n| n.chars().count() > 100) {
            field("/name", "at most 100 characters");
        }
        if let Some(u) = &self.logo_url
            && (u.len() > 2000
                || !u.starts_with("https://")
                || u.bytes()
                    .any(|b| b.is_ascii_control() || b == b' ' || b == b'"' || b == b'\''))
        {
            field(
                "/logo_url",
                "must be an https:// URL of at most 2000 characters",
            );
        }
        for (name, v) in [
            ("/primary_color", &self.primary_color),
            ("/background_color", &self.background_color),
            ("/text_color", &self.text_color),
        ] {
            if v.as_ref().is_some_and(|c| !valid_color(c)) {
                field(name, "must be #rgb or #rrggbb");
            }
        }
        if self.font_family.as_ref().is_some_and(|f| {
            f.len() > 100
                || f.trim().is_empty()
                || !f
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b" ,-".contains(&b))
        }) {
            field(
                "/font_family",
                "letters, digits, spaces, commas and hyphens, at most 100 characters",
            );
        }
        check_origins(&self.embed_origins, "/embed_origins", &mut errors);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::fields(errors))
        }
    }
}

/// The brand a tenant's portal shows.
#[derive(Debug, Serialize, ToSchema)]
pub struct PortalBrandOut {
    /// The brand (Relay's defaults when none is set).
    pub brand: PortalBrand,
    /// Whose brand it is: this tenant's, its parent's (inherited), or
    /// `null` (none set: Relay's defaults).
    pub tenant_id: Option<String>,
}

/// The scope's effective brand: its own, else its tenant's nearest
/// ancestor's in the same environment.
pub async fn effective_brand(
    state: &AppState,
    scope: &relay_store::Scope,
) -> Result<PortalBrandOut, ApiError> {
    let scope = scope.clone();
    let effective = state
        .store
        .read(move |mut x| Box::pin(async move { portal::effective_brand(&mut x, &scope).await }))
        .await?;
    Ok(match effective {
        Some((owner, value)) => PortalBrandOut {
            // A stored brand was checked when it was put; one that no longer
            // reads is shown as the defaults rather than failing the portal.
            brand: serde_json::from_value(value).unwrap_or_default(),
            tenant_id: Some(owner),
        },
        None => PortalBrandOut {
            brand: PortalBrand::default(),
            tenant_id: None,
        },
    })
}

/// Set the portal's brand
///
/// Sets the tenant's brand for its portal in the key's environment (name,
/// logo, colours, font, theme, and the origins that may frame the hosted
/// page), replacing the whole of the previous one; an empty body resets it
/// to the defaults. Sub-tenants without a brand of their own inherit it.
///
/// Tenant API key. Refused with `422` `validation_failed` (a colour that is
/// not `#rgb` or `#rrggbb`, a logo URL that is not `https://`, a font list
/// with other characters, a bad origin).
#[utoipa::path(operation_id = "portal_brand.put", put, path = "/v1/portal-brand", tag = "portal-tokens",
    request_body = Option<PortalBrand>,
    responses((status = 200, body = PortalBrandOut), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn put_brand(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    OptionalJsonBody(body): OptionalJsonBody<PortalBrand>,
) -> Result<Json<PortalBrandOut>, ApiError> {
    body.check()?;
    let value = serde_json::to_value(&body).map_err(|_| ApiError::internal())?;
    let (scope, now) = (auth.scope.clone(), state.clock.now());
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { portal::put_brand(&mut x, &scope, &value, now).await })
        })
        .await?;
    Ok(Json(PortalBrandOut {
        brand: body,
        tenant_id: Some(auth.scope.tenant_id),
    }))
}

/// Get the portal's brand
///
/// Returns the brand the tenant's portal shows: its own, else its nearest
/// ancestor's, else Relay's defaults (`tenant_id` says whose). Tenant API
/// key.
#[utoipa::path(operation_id = "portal_brand.get", get, path = "/v1/portal-brand", tag = "portal-tokens",
    responses((status = 200, body = PortalBrandOut)),
    security(("api_key" = [])))]
pub async fn get_brand(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
) -> Result<Json<PortalBrandOut>, ApiError> {
    Ok(Json(effective_brand(&state, &auth.scope).await?))
}
