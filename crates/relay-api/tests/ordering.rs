//! Ordered delivery's endpoint setting (issue 46 §1): `ordering` is `none`
//! by default, `per_key` on request, changed by `PATCH` (audited), and any
//! other value is refused as `validation_failed` naming `/ordering`.

mod common;

use axum::http::StatusCode;
use common::*;
use serde_json::json;

#[tokio::test]
async fn ordering_defaults_to_none_is_set_patched_and_validated() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    let plain = h
        .post("/v1/endpoints", &key, endpoint_body(&c, &[]))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(plain["ordering"], "none");
    let mut body = endpoint_body(&c, &[]);
    body["ordering"] = json!("per_key");
    let ordered = h
        .post("/v1/endpoints", &key, body)
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(ordered["ordering"], "per_key");
    let id = ordered["id"].as_str().unwrap();
    let read = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(read["ordering"], "per_key");
    let patched = h
        .patch(
            &format!("/v1/endpoints/{id}"),
            &key,
            json!({ "ordering": "none" }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(patched["ordering"], "none");
    for bad in [json!("sorted"), json!(1), json!(null)] {
        let mut body = endpoint_body(&c, &[]);
        body["ordering"] = bad.clone();
        let r = h.post("/v1/endpoints", &key, body).await;
        if bad.is_null() {
            // `null` is "not given": the default.
            assert_eq!(r.expect(StatusCode::CREATED)["ordering"], "none");
            continue;
        }
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(r.error_fields(), vec!["/ordering".to_string()], "{bad}");
        let r = h
            .patch(
                &format!("/v1/endpoints/{id}"),
                &key,
                json!({ "ordering": bad }),
            )
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    }
}
