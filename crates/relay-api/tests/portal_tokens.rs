//! The embeddable portal's tokens and brand (issue 27): a token is shown
//! once, bounded in lifetime and origins, revoked one or all of a
//! consumer's; the brand is checked (nothing that could carry CSS or
//! script), per environment, inherited by sub-tenants. The consumer API's
//! scope table is in `portal.rs`.

mod common;

use axum::http::StatusCode;
use common::*;
use serde_json::{Value, json};

async fn mint(h: &Harness, key: &str, body: Value) -> Value {
    h.post("/v1/portal-tokens", key, body)
        .await
        .expect(StatusCode::CREATED)
}

#[tokio::test]
async fn tokens_are_shown_once_and_bounded() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("a", "live").await;
    let c = h.consumer(&key, "a1").await;
    let minted = mint(
        &h,
        &key,
        json!({ "consumer_id": c, "allowed_origins": ["https://app.example.com"] }),
    )
    .await;
    let token = minted["token"].as_str().unwrap();
    assert!(token.starts_with("rpt_") && token.len() == 52, "{minted}");
    assert_eq!(minted["url"], format!("/portal#token={token}"));
    assert!(
        minted["embed_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/live#token={token}")),
        "{minted}"
    );
    assert_eq!(minted["capabilities"], json!([]));
    assert_eq!(
        minted["expires_at"],
        json!(relay_core::time::Timestamp(T0.millis() + 3_600_000))
    );
    // Read back: never the token.
    let got = h
        .get(&format!("/v1/portal-tokens/{}", id_of(&minted)), &key)
        .await
        .expect(StatusCode::OK);
    assert!(!got.to_string().contains(token), "{got}");
    assert_eq!(got["revoked_at"], Value::Null);

    for (body, field) in [
        (
            json!({ "consumer_id": c, "lifetime_seconds": 59 }),
            "/lifetime_seconds",
        ),
        (
            json!({ "consumer_id": c, "lifetime_seconds": 86401 }),
            "/lifetime_seconds",
        ),
        (
            json!({ "consumer_id": c, "allowed_origins": ["https://a.com/x"] }),
            "/allowed_origins/0",
        ),
        (
            json!({ "consumer_id": c, "allowed_origins": ["https://a.com; frame-ancestors *"] }),
            "/allowed_origins/0",
        ),
    ] {
        let r = h.post("/v1/portal-tokens", &key, body).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(r.error_fields(), [field]);
    }
    h.post(
        "/v1/portal-tokens",
        &key,
        json!({ "consumer_id": c, "capabilities": ["admin"] }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    h.post(
        "/v1/portal-tokens",
        &key,
        json!({ "consumer_id": "con_missing" }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_reference");

    // Revoke all of a consumer's.
    mint(&h, &key, json!({ "consumer_id": c })).await;
    let r = h
        .post(
            "/v1/portal-tokens/revoke-all",
            &key,
            json!({ "consumer_id": c }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(r["revoked"], 2);
    h.get("/v1/portal/session", token)
        .await
        .problem(StatusCode::UNAUTHORIZED, "portal_token_revoked");
}

#[tokio::test]
async fn the_brand_is_checked_inherited_and_per_environment() {
    let h = Harness::new().await;
    let (parent, live) = h.tenant_with_key("acme", "live").await;
    let test = h.api_key(&parent, "test").await;
    let none = h
        .get("/v1/portal-brand", &live)
        .await
        .expect(StatusCode::OK);
    assert_eq!(none["tenant_id"], Value::Null);
    let brand = json!({
        "name": "Acme",
        "logo_url": "https://cdn.example.com/acme.png",
        "primary_color": "#0044cc",
        "background_color": "#fff",
        "text_color": "#111111",
        "font_family": "Inter, sans-serif",
        "theme": "dark",
        "embed_origins": ["https://app.acme.example"],
    });
    h.put("/v1/portal-brand", &live, brand.clone())
        .await
        .expect(StatusCode::OK);
    let got = h
        .get("/v1/portal-brand", &live)
        .await
        .expect(StatusCode::OK);
    assert_eq!(got["tenant_id"], parent.as_str());
    assert_eq!(got["brand"]["primary_color"], "#0044cc");
    // The test environment's portal is branded separately.
    let t = h
        .get("/v1/portal-brand", &test)
        .await
        .expect(StatusCode::OK);
    assert_eq!(t["tenant_id"], Value::Null);
    // A sub-tenant inherits it.
    let child = h
        .post(
            "/v1/tenants",
            OPERATOR,
            json!({ "name": "acme-eu", "parent_id": parent }),
        )
        .await
        .expect(StatusCode::CREATED);
    let child_key = h.api_key(&id_of(&child), "live").await;
    let inherited = h
        .get("/v1/portal-brand", &child_key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(inherited["tenant_id"], parent.as_str());
    assert_eq!(inherited["brand"]["name"], "Acme");
    for (bad, field) in [
        (json!({ "primary_color": "red;}" }), "/primary_color"),
        (json!({ "font_family": "x;}body{" }), "/font_family"),
        (json!({ "logo_url": "javascript:alert(1)" }), "/logo_url"),
        (json!({ "embed_origins": ["*"] }), "/embed_origins/0"),
    ] {
        let r = h.put("/v1/portal-brand", &live, bad).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(r.error_fields(), [field]);
    }
    // The session shows the brand, without the embedding origins.
    let c = h.consumer(&live, "a1").await;
    let t = mint(&h, &live, json!({ "consumer_id": c })).await;
    let s = h
        .get("/v1/portal/session", t["token"].as_str().unwrap())
        .await
        .expect(StatusCode::OK);
    assert_eq!(s["brand"]["name"], "Acme");
    assert_eq!(s["brand"]["embed_origins"], json!([]));
}

#[test]
fn stored_tokens_do_not_print_their_hash() {
    let t = relay_store::portal::NewPortalToken {
        token: relay_store::portal::PortalToken {
            id: "ptk_1".into(),
            tenant_id: "ten_1".into(),
            environment: relay_core::model::Environment::Live,
            consumer_id: "con_1".into(),
            capabilities: vec![],
            allowed_origins: vec![],
            created_at: T0,
            expires_at: T0,
            revoked_at: None,
        },
        token_hash: "a-secret-hash".into(),
    };
    assert!(!format!("{t:?}").contains("a-secret-hash"));
}
