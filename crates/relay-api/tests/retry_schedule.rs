//! A per-endpoint retry schedule is judged against the operator's bounds
//! when it is set, on create and on update, and refused then with the
//! broken bound's stable code; one accepted earlier is kept as it was
//! accepted when the bounds tighten later, never rewritten or replaced.

mod common;

use axum::http::StatusCode;
use common::*;
use relay_api::ApiSettings;
use relay_core::retry::ScheduleBounds;
use serde_json::json;

#[tokio::test]
async fn an_override_outside_the_bounds_is_refused_when_set_and_kept_when_not_touched() {
    // The operator's bounds today: waits of at least a minute.
    let h = Harness::with_settings(ApiSettings {
        retry_bounds: ScheduleBounds {
            min_wait_seconds: 60,
            ..ScheduleBounds::DEFAULT
        },
        ..ApiSettings::default()
    })
    .await;
    let (tenant_id, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    let mut body = endpoint_body(&c, &[]);
    body["retry_schedule_seconds"] = json!([10, 30]);
    let r = h.post("/v1/endpoints", &key, body).await;
    let problem = r.problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "retry_schedule_wait_below_minimum",
    );
    assert_eq!(r.content_type(), "application/problem+json");
    assert_eq!(r.error_fields(), vec!["/retry_schedule_seconds"]);
    assert!(
        problem["detail"].as_str().unwrap().contains("60 s"),
        "{problem}"
    );
    assert_eq!(
        h.get("/v1/endpoints", &key).await.expect(StatusCode::OK)["data"],
        json!([]),
        "nothing was created"
    );

    let mut body = endpoint_body(&c, &[]);
    body["retry_schedule_seconds"] = json!([60, 120]);
    let ep = h
        .post("/v1/endpoints", &key, body)
        .await
        .expect(StatusCode::CREATED);
    let id = id_of(&ep);
    let path = format!("/v1/endpoints/{id}");
    let r = h
        .patch(&path, &key, json!({ "retry_schedule_seconds": [60, 5] }))
        .await;
    r.problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "retry_schedule_wait_below_minimum",
    );
    let kept = h.get(&path, &key).await.expect(StatusCode::OK);
    assert_eq!(
        kept["retry_schedule_seconds"],
        json!([60, 120]),
        "unchanged"
    );

    // An override accepted under looser bounds (as stored before they
    // tightened) stays as it was accepted: an update that does not set it
    // is not refused for it, and it is not rewritten.
    let scope = relay_store::Scope {
        tenant_id,
        environment: relay_core::model::Environment::Live,
    };
    let mut endpoint = relay_store::conformance::get_endpoint(&*h.db.store, &scope, &id)
        .await
        .unwrap()
        .unwrap();
    endpoint.retry_schedule_seconds = Some(vec![10, 30]);
    relay_store::conformance::update_endpoint(&*h.db.store, &scope, &endpoint, &[])
        .await
        .unwrap();
    let updated = h
        .patch(&path, &key, json!({ "description": "renamed" }))
        .await
        .expect(StatusCode::OK);
    assert_eq!(updated["description"], "renamed");
    assert_eq!(updated["retry_schedule_seconds"], json!([10, 30]));
    // Setting it again is judged by today's bounds.
    h.patch(&path, &key, json!({ "retry_schedule_seconds": [10, 30] }))
        .await
        .problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "retry_schedule_wait_below_minimum",
        );
    // Several faults together are still listed together.
    let r = h
        .patch(
            &path,
            &key,
            json!({ "retry_schedule_seconds": [1], "max_concurrency": 0 }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(
        r.error_fields(),
        vec!["/retry_schedule_seconds", "/max_concurrency"]
    );
}
