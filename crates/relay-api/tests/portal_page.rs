//! The portal's hosted page and modules (issue 27): the page's
//! `Content-Security-Policy` (its frame-ancestors from the tenant's brand,
//! `'none'` otherwise), the modules served as JavaScript with CORS open, and
//! no token ever needed or accepted by the page itself.

mod common;

use axum::http::StatusCode;
use common::*;
use serde_json::json;

fn header<'a>(r: &'a Resp, name: &str) -> &'a str {
    r.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

#[tokio::test]
async fn the_tab_page_refuses_every_frame() {
    let h = Harness::new().await;
    let r = h.get("/portal", "").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(header(&r, "content-type").starts_with("text/html"));
    let csp = header(&r, "content-security-policy");
    assert!(csp.ends_with("frame-ancestors 'none'"), "{csp}");
    assert!(csp.contains("script-src 'self';"), "{csp}");
    assert_eq!(header(&r, "x-frame-options"), "DENY");
    assert_eq!(header(&r, "referrer-policy"), "no-referrer");
    assert!(r.text().contains("/portal/assets/hosted.js"));
}

#[tokio::test]
async fn the_embed_page_is_framed_by_the_brands_origins_only() {
    let h = Harness::new().await;
    let (tenant, live) = h.tenant_with_key("acme", "live").await;
    let embed = format!("/portal/{tenant}/live");
    // No brand yet: no frame.
    let r = h.get(&embed, "").await;
    assert!(header(&r, "content-security-policy").ends_with("frame-ancestors 'none'"));
    h.put(
        "/v1/portal-brand",
        &live,
        json!({ "embed_origins": ["https://app.acme.example", "http://localhost:3000"] }),
    )
    .await
    .expect(StatusCode::OK);
    let r = h.get(&embed, "").await;
    assert_eq!(r.status, StatusCode::OK);
    let csp = header(&r, "content-security-policy");
    assert!(
        csp.ends_with("frame-ancestors https://app.acme.example http://localhost:3000"),
        "{csp}"
    );
    assert!(r.headers.get("x-frame-options").is_none());
    // The test environment's page has its own brand (none): no frame.
    let r = h.get(&format!("/portal/{tenant}/test"), "").await;
    assert!(header(&r, "content-security-policy").ends_with("frame-ancestors 'none'"));
    // An unknown tenant: the page, framed by none.
    let r = h.get("/portal/ten_unknown/live", "").await;
    assert!(header(&r, "content-security-policy").ends_with("frame-ancestors 'none'"));
    h.get(&format!("/portal/{tenant}/staging"), "")
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn the_modules_are_served_as_javascript() {
    let h = Harness::new().await;
    for file in [
        "relay-portal.js",
        "api.js",
        "dom.js",
        "theme.js",
        "verify-examples.js",
        "hosted.js",
    ] {
        let r = h.get(&format!("/portal/assets/{file}"), "").await;
        assert_eq!(r.status, StatusCode::OK, "{file}");
        assert_eq!(header(&r, "content-type"), "text/javascript; charset=utf-8");
        assert_eq!(header(&r, "access-control-allow-origin"), "*");
        assert_eq!(header(&r, "x-content-type-options"), "nosniff");
        // The modules never put API answers into HTML.
        let text = r.text();
        for sink in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
        ] {
            assert!(!text.contains(sink), "{file} uses {sink}");
        }
    }
    h.get("/portal/assets/../Cargo.toml", "")
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    h.get("/portal/assets/nope.js", "")
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
}
