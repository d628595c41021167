//! Credentials stay where they belong (issue #39, section 5): a header
//! that carries credentials is a secret reference, never a literal stored
//! in clear and shown in reads; credentials bound to an endpoint's host do
//! not follow a new host; every change of an endpoint's URL,
//! subscriptions, credentials and state is audited with its actor.

mod common;

use axum::http::{Method, StatusCode};
use common::*;
use relay_core::model::Environment;
use relay_destinations::Config;
use relay_destinations::https::HttpsHeader;
use relay_store::Scope;
use serde_json::{Value, json};

const TOKEN: &str = "Bearer hunter2-never-shown";

fn https(headers: Value) -> Value {
    json!({"kind": "https", "url": GOOD_URL, "headers": headers})
}

fn body(consumer: &str, destination: Value) -> Value {
    json!({
        "consumer_id": consumer,
        "destination": destination,
        "event_types": ["order.shipped"],
    })
}

struct World {
    h: Harness,
    tenant: String,
    key: String,
    consumer: String,
}

async fn world() -> World {
    let h = Harness::new().await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    h.put("/v1/secrets/hooks-token", &key, json!({ "value": TOKEN }))
        .await
        .expect(StatusCode::CREATED);
    World {
        h,
        tenant,
        key,
        consumer,
    }
}

#[track_caller]
fn no_token(r: &Resp) {
    assert!(!r.text().contains("hunter2"), "{}", r.text());
}

/// The attacker reads the endpoint (through the API or the portal) to
/// learn a credential the tenant typed as a literal header: such a header
/// is refused at create and update, with a stable code; as a secret
/// reference it is accepted and shown as the reference.
#[tokio::test]
async fn a_credential_header_is_accepted_only_as_a_secret_reference() {
    let w = world().await;
    for name in [
        "Authorization",
        "authorization",
        "Cookie",
        "X-Api-Key",
        "X-Auth-Token",
        "Api-Key",
    ] {
        let r =
            w.h.post(
                "/v1/endpoints",
                &w.key,
                body(
                    &w.consumer,
                    https(json!([{ "name": name, "value": TOKEN }])),
                ),
            )
            .await;
        no_token(&r);
        let p = r.problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "credential_header_literal",
        );
        assert_eq!(p["errors"][0]["field"], "/destination/headers", "{p}");
    }
    let created =
        w.h.post(
            "/v1/endpoints",
            &w.key,
            body(
                &w.consumer,
                https(json!([
                    { "name": "Authorization", "secret": "secret:hooks-token" },
                    { "name": "X-Tenant", "value": "acme" },
                ])),
            ),
        )
        .await
        .expect(StatusCode::CREATED);
    let id = id_of(&created);
    assert_eq!(
        created["destination"]["headers"][0]["secret"],
        "secret:hooks-token"
    );
    let r =
        w.h.patch(
            &format!("/v1/endpoints/{id}"),
            &w.key,
            json!({ "destination": https(json!([{ "name": "Authorization", "value": TOKEN }])) }),
        )
        .await;
    no_token(&r);
    r.problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "credential_header_literal",
    );
}

/// A literal credential header stored before the rule (written here
/// through the store, as an older Relay did) keeps being what it was, but
/// no read shows its value: the API's, the list, the portal's.
#[tokio::test]
async fn a_stored_literal_credential_is_never_shown() {
    let w = world().await;
    let created = w.h.endpoint(&w.key, &w.consumer, &["order.shipped"]).await;
    let id = id_of(&created);
    let scope = Scope {
        tenant_id: w.tenant.clone(),
        environment: Environment::Live,
    };
    let store = &w.h.state.store;
    let mut e = relay_store::conformance::get_endpoint(&**store, &scope, &id)
        .await
        .unwrap()
        .unwrap();
    let Ok(Config::Https(mut h)) = Config::try_from(&e.destination) else {
        unreachable!()
    };
    h.headers.push(HttpsHeader {
        name: "Authorization".into(),
        value: Some(TOKEN.into()),
        secret: None,
    });
    e.destination = Config::Https(h).into();
    relay_store::conformance::update_endpoint(&**store, &scope, &e, &[])
        .await
        .unwrap();

    let portal =
        w.h.post(
            "/v1/portal-tokens",
            &w.key,
            json!({ "consumer_id": w.consumer }),
        )
        .await
        .expect(StatusCode::CREATED)["token"]
            .as_str()
            .unwrap()
            .to_string();
    for (path, token) in [
        (format!("/v1/endpoints/{id}"), &w.key),
        ("/v1/endpoints".to_string(), &w.key),
        (format!("/v1/portal/endpoints/{id}"), &portal),
        ("/v1/portal/endpoints".to_string(), &portal),
    ] {
        let r = w.h.get(&path, token).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text());
        no_token(&r);
        assert!(r.text().contains("[redacted]"), "{path}: {}", r.text());
    }
    // What is stored is unchanged (it is still sent).
    let stored = relay_store::conformance::get_endpoint(&**store, &scope, &id)
        .await
        .unwrap()
        .unwrap();
    let Ok(Config::Https(h)) = Config::try_from(&stored.destination) else {
        unreachable!()
    };
    assert_eq!(h.headers[0].value.as_deref(), Some(TOKEN));
}

/// Creates an endpoint with credentials bound to its host: a secret
/// header and an OAuth 2.0 client whose token the endpoint sends.
async fn endpoint_with_credentials(w: &World) -> String {
    w.h.put(
        "/v1/secrets/oauth-client",
        &w.key,
        json!({ "value": "client-secret" }),
    )
    .await
    .expect(StatusCode::CREATED);
    let destination = json!({
        "kind": "https",
        "url": GOOD_URL,
        "headers": [{ "name": "X-Api-Key", "secret": "secret:hooks-token" }],
        "auth": { "oauth2": {
            "token_url": "https://receiver.test:8443/token",
            "client_id": "relay",
            "client_secret": "secret:oauth-client",
        } },
    });
    id_of(
        &w.h.post("/v1/endpoints", &w.key, body(&w.consumer, destination))
            .await
            .expect(StatusCode::CREATED),
    )
}

/// The attacker holds a portal token (a customer, or whoever stole it)
/// and points the endpoint at a host of its own, so that the tenant's
/// credentials for the customer's receiver are sent there. Refused with
/// `credentials_not_restated`, nothing changes; a new path on the same
/// host keeps them.
#[tokio::test]
async fn a_portal_token_cannot_move_credentials_to_another_host() {
    let w = world().await;
    let id = endpoint_with_credentials(&w).await;
    let portal =
        w.h.post(
            "/v1/portal-tokens",
            &w.key,
            json!({ "consumer_id": w.consumer, "capabilities": ["manage_endpoints"] }),
        )
        .await
        .expect(StatusCode::CREATED)["token"]
            .as_str()
            .unwrap()
            .to_string();
    let before =
        w.h.get(&format!("/v1/endpoints/{id}"), &w.key)
            .await
            .expect(StatusCode::OK);
    // Another host (the same address, named otherwise), another port.
    for url in ["https://127.0.0.1:8443/hook", "https://receiver.test/hook"] {
        w.h.send(
            Method::PATCH,
            &format!("/v1/portal/endpoints/{id}"),
            Some(&portal),
            json!({ "url": url }).to_string(),
        )
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "credentials_not_restated");
    }
    let after =
        w.h.get(&format!("/v1/endpoints/{id}"), &w.key)
            .await
            .expect(StatusCode::OK);
    assert_eq!(after, before, "nothing changed");
    // The same host, another path: the credentials stay.
    let moved =
        w.h.send(
            Method::PATCH,
            &format!("/v1/portal/endpoints/{id}"),
            Some(&portal),
            json!({ "url": "https://receiver.test:8443/other" }).to_string(),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(
        moved["destination"]["url"],
        "https://receiver.test:8443/other"
    );
    assert_eq!(
        moved["destination"]["headers"],
        before["destination"]["headers"]
    );
    assert_eq!(moved["destination"]["auth"], before["destination"]["auth"]);
}

/// Through the API a destination is replaced whole: moved to another host
/// without restating its credentials, it has none (with a warning that
/// says so); restating them keeps them.
#[tokio::test]
async fn an_api_change_of_host_keeps_only_the_credentials_it_restates() {
    let w = world().await;
    let id = endpoint_with_credentials(&w).await;
    let moved =
        w.h.patch(
            &format!("/v1/endpoints/{id}"),
            &w.key,
            json!({ "destination": {"kind": "https", "url": "https://127.0.0.1:8443/hook"} }),
        )
        .await
        .expect(StatusCode::OK);
    assert!(moved["destination"].get("headers").is_none(), "{moved}");
    assert!(moved["destination"]["auth"].is_null(), "{moved}");
    let warnings = moved["warnings"].to_string();
    assert!(warnings.contains("credentials_dropped"), "{warnings}");
    assert!(warnings.contains("secret:hooks-token"), "{warnings}");
    let restated =
        w.h.patch(
            &format!("/v1/endpoints/{id}"),
            &w.key,
            json!({ "destination": {
                "kind": "https", "url": GOOD_URL,
                "headers": [{ "name": "X-Api-Key", "secret": "secret:hooks-token" }],
            } }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(
        restated["destination"]["headers"][0]["secret"],
        "secret:hooks-token"
    );
    assert!(
        !restated["warnings"]
            .to_string()
            .contains("credentials_dropped")
    );
}

/// The audit log's entries for `target`, oldest first: (actor, action, parameters).
async fn audit_of(w: &World, target: &str) -> Vec<(String, String, Value)> {
    let log =
        w.h.get("/v1/audit-log?limit=250", &w.key)
            .await
            .expect(StatusCode::OK);
    log["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["target"] == target)
        .map(|e| {
            (
                e["actor"].as_str().unwrap().to_string(),
                e["action"].as_str().unwrap().to_string(),
                e["parameters"].clone(),
            )
        })
        .collect()
}

/// Every change of an endpoint's URL, subscriptions, credentials and
/// state is in the audit log with its actor: the API key, or the portal
/// token (`portal:<consumer>:<token id>`); and nothing of a value.
#[tokio::test]
async fn changes_of_url_subscriptions_credentials_and_state_are_audited_with_their_actor() {
    let w = world().await;
    let id = endpoint_with_credentials(&w).await;
    let key_id =
        w.h.get("/v1/audit-log?limit=250", &w.key)
            .await
            .expect(StatusCode::OK)["data"][0]["actor"]
            .as_str()
            .unwrap()
            .to_string();
    w.h.patch(
        &format!("/v1/endpoints/{id}"),
        &w.key,
        json!({
            "destination": {"kind": "https", "url": "https://127.0.0.1:8443/hook"},
            "event_types": ["order.shipped", "order.created"],
        }),
    )
    .await
    .expect(StatusCode::OK);
    w.h.post(&format!("/v1/endpoints/{id}/pause"), &w.key, json!({}))
        .await
        .expect(StatusCode::OK);
    let minted =
        w.h.post(
            "/v1/portal-tokens",
            &w.key,
            json!({ "consumer_id": w.consumer, "capabilities": ["manage_endpoints"] }),
        )
        .await
        .expect(StatusCode::CREATED);
    let portal = minted["token"].as_str().unwrap().to_string();
    w.h.send(
        Method::PATCH,
        &format!("/v1/portal/endpoints/{id}"),
        Some(&portal),
        json!({ "url": "https://receiver.test:8443/portal", "event_types": ["order.created"] })
            .to_string(),
    )
    .await
    .expect(StatusCode::OK);
    w.h.send(
        Method::POST,
        &format!("/v1/portal/endpoints/{id}/disable"),
        Some(&portal),
        "",
    )
    .await
    .expect(StatusCode::OK);

    let entries = audit_of(&w, &id).await;
    let text = serde_json::to_string(&entries).unwrap();
    assert!(
        !text.contains("hunter2") && !text.contains("client-secret"),
        "{text}"
    );
    let actions: Vec<(&str, &str)> = entries
        .iter()
        .map(|(actor, action, _)| (actor.as_str(), action.as_str()))
        .collect();
    let portal_actor = format!("portal:{}:{}", w.consumer, id_of(&minted));
    assert_eq!(
        actions,
        [
            (key_id.as_str(), "endpoint.created"),
            (key_id.as_str(), "endpoint.updated"),
            (key_id.as_str(), "endpoint.paused"),
            (portal_actor.as_str(), "endpoint.updated"),
            (portal_actor.as_str(), "endpoint.disabled"),
        ],
        "{text}"
    );
    let created = &entries[0].2;
    assert_eq!(created["url"], GOOD_URL, "{created}");
    assert_eq!(
        created["credentials"],
        json!([
            "/destination/headers: secret:hooks-token",
            "/destination/auth/oauth2/client_secret: secret:oauth-client"
        ])
    );
    let updated = &entries[1].2;
    assert_eq!(
        updated["url"],
        json!({ "from": GOOD_URL, "to": "https://127.0.0.1:8443/hook" })
    );
    assert_eq!(updated["credentials"]["to"], json!([]), "{updated}");
    assert_eq!(
        updated["event_types"],
        json!({ "from": ["order.shipped"], "to": ["order.shipped", "order.created"] })
    );
    let by_portal = &entries[3].2;
    assert_eq!(
        by_portal["url"]["to"], "https://receiver.test:8443/portal",
        "{by_portal}"
    );
    assert_eq!(by_portal["event_types"]["to"], json!(["order.created"]));
}
