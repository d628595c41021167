//! Tenant secrets through the API (`/v1/secrets`): write-only values that
//! no answer, audit entry or listing shows; stable problem codes; one
//! tenant and environment each; checked at endpoint registration.

mod common;

use axum::http::StatusCode;
use common::{Harness, Resp};
use serde_json::{Value, json};

const VALUE: &str = "s3cr3t-V4lue-never-shown";

fn redis(password: &str) -> Value {
    json!({
        "kind": "redis_stream", "host": "receiver.test", "port": 8443,
        "stream": "orders", "password": password,
    })
}

fn endpoint_body(consumer: &str, destination: Value) -> Value {
    json!({
        "consumer_id": consumer,
        "destination": destination,
        "event_types": ["order.created"],
    })
}

#[track_caller]
fn no_value(r: &Resp) {
    assert!(
        !r.text().contains(VALUE) && !format!("{:?}", r.headers).contains(VALUE),
        "the value in an answer: {}",
        r.text()
    );
}

#[tokio::test]
async fn a_secret_is_written_replaced_listed_and_deleted_without_its_value() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;

    let r = h
        .put("/v1/secrets/redis-pw", &key, json!({ "value": VALUE }))
        .await;
    no_value(&r);
    let created = r.expect(StatusCode::CREATED);
    assert_eq!(created["name"], "redis-pw");
    assert_eq!(created["created_at"], created["updated_at"]);
    assert_eq!(
        created.as_object().unwrap().len(),
        3,
        "name and times only: {created}"
    );

    h.clock.advance_millis(5_000);
    let r = h
        .put(
            "/v1/secrets/redis-pw",
            &key,
            json!({ "value": format!("{VALUE}-2") }),
        )
        .await;
    no_value(&r);
    let replaced = r.expect(StatusCode::OK);
    assert_eq!(replaced["created_at"], created["created_at"]);
    assert_ne!(replaced["updated_at"], created["updated_at"]);

    let r = h.get("/v1/secrets/redis-pw", &key).await;
    no_value(&r);
    assert_eq!(r.expect(StatusCode::OK), replaced);
    h.put("/v1/secrets/a.token", &key, json!({ "value": VALUE }))
        .await
        .expect(StatusCode::CREATED);
    let r = h.get("/v1/secrets?limit=1", &key).await;
    no_value(&r);
    let first = r.expect(StatusCode::OK);
    assert_eq!(first["data"][0]["name"], "a.token");
    let after = first["next_after"].as_str().expect("a next page");
    let rest = h
        .get(&format!("/v1/secrets?limit=1&after={after}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(rest["data"][0]["name"], "redis-pw");
    assert_eq!(rest["next_after"], Value::Null);

    h.delete("/v1/secrets/redis-pw", &key)
        .await
        .expect(StatusCode::NO_CONTENT);
    h.get("/v1/secrets/redis-pw", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "secret_not_found");
    h.delete("/v1/secrets/redis-pw", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "secret_not_found");

    // Audited by name, never with the value.
    let r = h.get("/v1/audit-log", &key).await;
    no_value(&r);
    let audit = r.expect(StatusCode::OK);
    let entries: Vec<(&str, &str)> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["action"].as_str().unwrap(), a["target"].as_str().unwrap()))
        .collect();
    assert_eq!(
        entries,
        [
            ("secret.created", "redis-pw"),
            ("secret.updated", "redis-pw"),
            ("secret.created", "a.token"),
            ("secret.deleted", "redis-pw"),
        ]
    );
    assert!(!audit.to_string().contains("-2"));
}

#[tokio::test]
async fn bad_names_and_values_are_refused_with_stable_codes() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    for name in [
        "-lead",
        "has%20space",
        &"n".repeat(65),
        "a%2Fb",
        "caf%C3%A9",
    ] {
        let path = format!("/v1/secrets/{name}");
        let r = h.put(&path, &key, json!({ "value": VALUE })).await;
        no_value(&r);
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_secret_name");
        h.get(&path, &key)
            .await
            .problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_secret_name");
        h.delete(&path, &key)
            .await
            .problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_secret_name");
    }
    h.put("/v1/secrets/ok", &key, json!({ "value": "" }))
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_secret_value");
    let big = "x".repeat(64 * 1024 + 1);
    let r = h.put("/v1/secrets/ok", &key, json!({ "value": big })).await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "secret_too_large");
    assert!(!r.text().contains(&big));
    h.put(
        "/v1/secrets/ok",
        &key,
        json!({ "value": "x".repeat(64 * 1024) }),
    )
    .await
    .expect(StatusCode::CREATED);
    // A misspelled field or a value of another type names the field only.
    let r = h
        .put("/v1/secrets/ok", &key, json!({ "valeu": VALUE }))
        .await;
    no_value(&r);
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    h.put("/v1/secrets/ok", &key, json!({ "value": 42 }))
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    // Nothing of this was stored.
    let list = h.get("/v1/secrets", &key).await.expect(StatusCode::OK);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    // The operator token is not a tenant key.
    h.put(
        "/v1/secrets/ok",
        common::OPERATOR,
        json!({ "value": VALUE }),
    )
    .await
    .problem(StatusCode::FORBIDDEN, "forbidden");
    h.send(
        axum::http::Method::GET,
        "/v1/secrets",
        None,
        axum::body::Body::empty(),
    )
    .await
    .problem(StatusCode::UNAUTHORIZED, "unauthorized");
}

#[tokio::test]
async fn a_secret_belongs_to_one_tenant_and_environment() {
    let h = Harness::new().await;
    let (tenant, live) = h.tenant_with_key("acme", "live").await;
    let test = h.api_key(&tenant, "test").await;
    let (_, other) = h.tenant_with_key("globex", "live").await;
    h.put("/v1/secrets/redis-pw", &live, json!({ "value": VALUE }))
        .await
        .expect(StatusCode::CREATED);
    for key in [&test, &other] {
        h.get("/v1/secrets/redis-pw", key)
            .await
            .problem(StatusCode::NOT_FOUND, "secret_not_found");
        let list = h.get("/v1/secrets", key).await.expect(StatusCode::OK);
        assert_eq!(list["data"], json!([]));
        h.delete("/v1/secrets/redis-pw", key)
            .await
            .problem(StatusCode::NOT_FOUND, "secret_not_found");
        // Its endpoints cannot name another scope's secret either.
        h.open_event_type(key, "order.created").await;
        let consumer = h.consumer(key, "c").await;
        h.post(
            "/v1/endpoints",
            key,
            endpoint_body(&consumer, redis("secret:redis-pw")),
        )
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "secret_not_found");
    }
    // The same name in the test environment is another secret.
    h.put("/v1/secrets/redis-pw", &test, json!({ "value": "other" }))
        .await
        .expect(StatusCode::CREATED);
    h.get("/v1/secrets/redis-pw", &live)
        .await
        .expect(StatusCode::OK);
}

#[tokio::test]
async fn endpoints_resolve_their_references_at_registration() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "c").await;

    let r = h
        .post(
            "/v1/endpoints",
            &key,
            endpoint_body(&consumer, redis("secret:redis-pw")),
        )
        .await;
    let problem = r.problem(StatusCode::UNPROCESSABLE_ENTITY, "secret_not_found");
    assert_eq!(problem["errors"][0]["field"], "/destination/password");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("secret:redis-pw")
    );

    h.put("/v1/secrets/redis-pw", &key, json!({ "value": VALUE }))
        .await
        .expect(StatusCode::CREATED);
    let r = h
        .post(
            "/v1/endpoints",
            &key,
            endpoint_body(&consumer, redis("secret:redis-pw")),
        )
        .await;
    no_value(&r);
    let endpoint = r.expect(StatusCode::CREATED);
    assert_eq!(endpoint["destination"]["password"], "secret:redis-pw");
    let id = endpoint["id"].as_str().unwrap().to_string();
    let r = h.get(&format!("/v1/endpoints/{id}"), &key).await;
    no_value(&r);

    // An update is checked the same way.
    let r = h
        .patch(
            &format!("/v1/endpoints/{id}"),
            &key,
            json!({ "destination": redis("secret:missing") }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "secret_not_found");

    // A secret an endpoint names is not deleted from under it.
    let r = h.delete("/v1/secrets/redis-pw", &key).await;
    let problem = r.problem(StatusCode::CONFLICT, "secret_in_use");
    assert!(problem["detail"].as_str().unwrap().contains(&id));
    h.delete(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::NO_CONTENT);
    h.delete("/v1/secrets/redis-pw", &key)
        .await
        .expect(StatusCode::NO_CONTENT);

    // `env:` and `file:` are refused unless the operator allows them.
    for (reference, code) in [
        ("env:REDIS_PW", "secret_env_not_allowed"),
        ("file:/run/secrets/redis", "secret_file_not_allowed"),
    ] {
        h.post(
            "/v1/endpoints",
            &key,
            endpoint_body(&consumer, redis(reference)),
        )
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, code);
    }
}

#[test]
fn the_request_body_never_shows_its_value_in_debug() {
    let body: relay_api::routes::secrets::PutSecretBody =
        serde_json::from_value(json!({ "value": VALUE })).unwrap();
    assert!(!format!("{body:?}").contains(VALUE));
}

/// The attacker: tenant B names the environment variable and the file the
/// operator granted tenant A (`[[secrets.grants]]`), to have their values
/// sent to its own server. Refused at registration with the stable codes,
/// for endpoints and inbound sources alike; A's own use is accepted.
#[tokio::test]
async fn env_and_file_references_reach_only_the_tenant_granted_them() {
    let h = Harness::new().await;
    let (a, a_key) = h.tenant_with_key("a", "live").await;
    let (_, b_key) = h.tenant_with_key("b", "live").await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), VALUE).unwrap();
    let mut engine = relay_engine::EngineConfig::new("api-test");
    engine.secrets = relay_core::secret::SecretPolicy::default().grant(
        a,
        relay_core::secret::SecretGrant {
            env_prefixes: vec!["PAT".into()],
            file_dirs: vec![dir.path().display().to_string()],
        },
    );
    let Harness { db, .. } = h;
    let h = Harness::build(
        db,
        relay_api::ApiSettings::default(),
        common::guard(),
        engine,
    )
    .await;
    let file = format!("file:{}/token", dir.path().display());
    for (key, name) in [(&a_key, "a-1"), (&b_key, "b-1")] {
        h.open_event_type(key, "order.created").await;
        h.consumer(key, name).await;
    }
    let consumer_of = |key: &str| {
        let key = key.to_string();
        let h = &h;
        async move {
            h.get("/v1/consumers", &key).await.expect(StatusCode::OK)["data"][0]["id"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    let (a_consumer, b_consumer) = (consumer_of(&a_key).await, consumer_of(&b_key).await);
    for reference in ["env:PATH", file.as_str()] {
        let r = h
            .post(
                "/v1/endpoints",
                &a_key,
                endpoint_body(&a_consumer, redis(reference)),
            )
            .await;
        no_value(&r);
        r.expect(StatusCode::CREATED);
    }
    let mut answers = String::new();
    for (reference, code) in [
        ("env:PATH", "secret_env_not_allowed"),
        (file.as_str(), "secret_file_not_allowed"),
    ] {
        let r = h
            .post(
                "/v1/endpoints",
                &b_key,
                endpoint_body(&b_consumer, redis(reference)),
            )
            .await;
        answers.push_str(&r.text());
        let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(p["errors"][0]["field"], "/destination/password", "{p}");
        assert!(p["detail"].as_str().unwrap().contains("granted"), "{p}");
        let r = h
            .post(
                "/v1/inbound-sources",
                &b_key,
                json!({"name": "x", "preset": "standard_webhooks", "secret_ref": reference}),
            )
            .await;
        answers.push_str(&r.text());
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
    }
    assert!(!answers.contains(VALUE), "{answers}");
}
