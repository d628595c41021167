//! Every answer carries `x-request-id` (issue 44 §2: the SDKs' typed errors
//! carry it, so a support request can name the request): the caller's own
//! when it is a short token, else one Relay makes. A caller cannot use the
//! header to write into Relay's logs or answers: a value with line breaks,
//! spaces or control characters, or a long one, is replaced, never echoed.

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::Harness;

async fn get_with(h: &Harness, path: &str, request_id: Option<&[u8]>) -> common::Resp {
    let mut req = Request::builder()
        .method(Method::GET)
        .uri(path)
        .header("authorization", format!("Bearer {}", common::OPERATOR));
    if let Some(id) = request_id {
        req = req.header(
            "x-request-id",
            axum::http::HeaderValue::from_bytes(id).unwrap(),
        );
    }
    h.request(req.body(Body::empty()).unwrap()).await
}

fn answered(r: &common::Resp) -> String {
    r.headers
        .get("x-request-id")
        .unwrap_or_else(|| panic!("no x-request-id on a {} answer", r.status))
        .to_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn every_answer_names_its_request() {
    let h = Harness::new().await;
    // Relay's own, different for each request, on a success and a problem.
    let ok = get_with(&h, "/v1/tenants", None).await;
    assert_eq!(ok.status, StatusCode::OK);
    let missing = get_with(&h, "/v1/tenants/ten_nope", None).await;
    missing.any_problem();
    let (a, b) = (answered(&ok), answered(&missing));
    assert!(a.starts_with("req_") && b.starts_with("req_"), "{a} {b}");
    assert_ne!(a, b);
    // A 404 outside the API and an unauthenticated call too.
    let lost = h
        .request(
            Request::builder()
                .uri("/nowhere")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert!(answered(&lost).starts_with("req_"));
    // The caller's own, echoed.
    let mine = get_with(&h, "/v1/tenants", Some(b"req_0b5e.client-42:retry_1")).await;
    assert_eq!(answered(&mine), "req_0b5e.client-42:retry_1");
}

#[tokio::test]
async fn a_request_id_that_could_forge_a_log_line_is_replaced() {
    let h = Harness::new().await;
    let long = vec![b'a'; 129];
    for hostile in [
        &b"abc\tdef"[..],
        b"abc def",
        b"x\" injected=\"1",
        b"\xff\xfe",
        b"",
        &long,
    ] {
        let r = get_with(&h, "/v1/tenants", Some(hostile)).await;
        let id = answered(&r);
        assert!(
            id.starts_with("req_") && id.as_bytes() != hostile,
            "{:?} came back as {id:?}",
            String::from_utf8_lossy(hostile)
        );
    }
    // The longest accepted is 128 characters.
    let most = vec![b'a'; 128];
    let r = get_with(&h, "/v1/tenants", Some(&most)).await;
    assert_eq!(answered(&r).as_bytes(), &most[..]);
}
