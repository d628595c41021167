//! The portal's hosted page and its ES modules (docs/portal.md).
//!
//! The UI is plain ES modules kept in the repository's `portal/` folder
//! and compiled into the binary (`include_str!`): running Relay needs no
//! JavaScript toolchain, and what a release serves is what its sources say.
//!
//! - `GET /portal`: the page for a browser tab; refuses every frame
//!   (`frame-ancestors 'none'`).
//! - `GET /portal/{tenant id}/{environment}`: the page for an iframe;
//!   framed only by the origins of the tenant's brand (`embed_origins`,
//!   its own or inherited), `'none'` without any. The token is in the
//!   fragment, which never reaches the server, so the policy comes from the
//!   tenant's settings, named by the non-secret tenant id in the path.
//! - `GET /portal/assets/{file}`: the modules, with CORS open so a
//!   tenant's own page may import the components.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use relay_core::model::Environment;
use relay_store::Scope;

use super::portal_tokens::effective_brand;
use crate::AppState;
use crate::error::ApiError;

const INDEX: &str = include_str!("../../../../portal/index.html");

/// The modules served under `/portal/assets/`.
pub const ASSETS: [(&str, &str); 6] = [
    (
        "relay-portal.js",
        include_str!("../../../../portal/relay-portal.js"),
    ),
    ("api.js", include_str!("../../../../portal/api.js")),
    ("dom.js", include_str!("../../../../portal/dom.js")),
    ("theme.js", include_str!("../../../../portal/theme.js")),
    (
        "verify-examples.js",
        include_str!("../../../../portal/verify-examples.js"),
    ),
    ("hosted.js", include_str!("../../../../portal/hosted.js")),
];

/// The hosted page's `Content-Security-Policy`, framed by `ancestors`
/// (origins checked by `portal_tokens::valid_origin`) or by none.
pub fn page_policy(ancestors: &[String]) -> String {
    let frame = if ancestors.is_empty() {
        "'none'".to_string()
    } else {
        ancestors.join(" ")
    };
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' https: data:; connect-src 'self'; base-uri 'none'; \
         form-action 'none'; frame-ancestors {frame}"
    )
}

fn page(ancestors: &[String]) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&page_policy(ancestors)) {
        headers.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    if ancestors.is_empty() {
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    (headers, INDEX).into_response()
}

pub async fn hosted() -> Response {
    page(&[])
}

pub async fn embedded(
    State(state): State<Arc<AppState>>,
    Path((tenant_id, environment)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let environment =
        Environment::parse(&environment).ok_or_else(|| ApiError::not_found("portal"))?;
    let scope = Scope {
        tenant_id,
        environment,
    };
    let brand = effective_brand(&state, &scope).await?.brand;
    // Checked when the brand was put; checked again, since they go into a header.
    let origins: Vec<String> = brand
        .embed_origins
        .into_iter()
        .filter(|o| super::portal_tokens::valid_origin(o))
        .collect();
    Ok(page(&origins))
}

pub async fn asset(Path(file): Path<String>) -> Result<Response, ApiError> {
    let (_, body) = ASSETS
        .iter()
        .find(|(name, _)| *name == file)
        .ok_or_else(|| ApiError::not_found("file"))?;
    let headers = [
        (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
        (header::CACHE_CONTROL, "no-cache"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
    ];
    Ok((headers, *body).into_response())
}

/// The page's routes.
pub fn routes() -> axum::Router<Arc<AppState>> {
    use axum::routing::get;
    axum::Router::new()
        .route("/portal", get(hosted))
        .route("/portal/assets/{file}", get(asset))
        .route("/portal/{tenant_id}/{environment}", get(embedded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_frames_only_the_given_origins() {
        assert!(page_policy(&[]).ends_with("frame-ancestors 'none'"));
        let p = page_policy(&["https://a.example".into(), "https://b.example:8443".into()]);
        assert!(p.ends_with("frame-ancestors https://a.example https://b.example:8443"));
        assert!(p.contains("script-src 'self';"));
    }

    #[test]
    fn every_module_the_page_imports_is_served() {
        for (_, body) in ASSETS {
            for line in body.lines() {
                let line = line.trim();
                if let Some(rest) = line.strip_prefix("import ")
                    && let Some(start) = rest.find("\"./")
                {
                    let name = &rest[start + 3..];
                    let name = &name[..name.find('"').unwrap_or(name.len())];
                    assert!(
                        ASSETS.iter().any(|(n, _)| *n == name),
                        "`{name}` is imported but not served"
                    );
                }
            }
        }
    }
}
