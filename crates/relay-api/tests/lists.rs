//! Every list is paginated with a maximum page (issue 39, section 3): each
//! operation of the API description that answers a list (`data`) takes
//! `limit` (at most 250) and `after`, refuses a larger page with
//! `400 invalid_query`, and the lists that used to be read whole (event
//! types, the portal's event types, attempts, API keys, endpoint versions,
//! signing keys) page through everything, each item once.

mod common;

use axum::http::StatusCode;
use common::*;
use serde_json::{Value, json};

/// The operations whose answer is a list, from the API description:
/// (path, security scheme).
fn list_operations() -> Vec<(String, String)> {
    let doc = relay_api::openapi::document();
    let resolve = |schema: &Value| -> Value {
        match schema["$ref"].as_str() {
            Some(r) => doc
                .pointer(r.trim_start_matches('#'))
                .cloned()
                .unwrap_or(Value::Null),
            None => schema.clone(),
        }
    };
    let mut out = Vec::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        let Some(get) = ops.get("get") else { continue };
        let schema = resolve(&get["responses"]["200"]["content"]["application/json"]["schema"]);
        if schema["properties"]["data"]["type"] != "array" {
            continue;
        }
        let scheme = get["security"][0]
            .as_object()
            .and_then(|s| s.keys().next().cloned())
            .unwrap_or_default();
        out.push((path.clone(), scheme));
    }
    out
}

#[test]
fn every_list_in_the_api_description_takes_a_bounded_page() {
    let doc = relay_api::openapi::document();
    let lists = list_operations();
    assert!(lists.len() >= 20, "{lists:?}");
    for (path, _) in &lists {
        let params = doc["paths"][path]["get"]["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let param = |name: &str| {
            params
                .iter()
                .find(|p| p["name"] == name && p["in"] == "query")
        };
        let limit = param("limit").unwrap_or_else(|| panic!("{path} has no `limit`"));
        assert!(
            limit["schema"]["maximum"]
                .as_u64()
                .is_some_and(|m| m <= 250),
            "{path}: `limit` has no maximum of at most 250: {limit}"
        );
        assert!(param("after").is_some(), "{path} has no `after`");
    }
}

/// A tenant with an endpoint that has a message, and a portal token for its
/// consumer: enough to reach every list.
struct World {
    h: Harness,
    tenant_id: String,
    key: String,
    portal: String,
    endpoint_id: String,
    message_id: String,
}

async fn world() -> World {
    let h = Harness::new().await;
    let (tenant_id, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "c1").await;
    let endpoint_id = id_of(&h.endpoint(&key, &consumer, &["order.created"]).await);
    h.publish(&key, json!({"type": "order.created", "data": {}}))
        .await
        .expect(StatusCode::ACCEPTED);
    let messages = h.get("/v1/messages", &key).await.expect(StatusCode::OK);
    let message_id = id_of(&messages["data"][0]);
    let portal = h
        .post("/v1/portal-tokens", &key, json!({"consumer_id": consumer}))
        .await
        .expect(StatusCode::CREATED)["token"]
        .as_str()
        .unwrap()
        .to_string();
    World {
        h,
        tenant_id,
        key,
        portal,
        endpoint_id,
        message_id,
    }
}

impl World {
    /// `path` with its `{id}` filled in, and the token its scheme needs.
    fn reach(&self, path: &str, scheme: &str) -> (String, String) {
        let id = if path.starts_with("/v1/tenants/{id}") {
            &self.tenant_id
        } else if path.starts_with("/v1/endpoints/{id}")
            || path.starts_with("/v1/portal/endpoints/{id}")
        {
            &self.endpoint_id
        } else if path.starts_with("/v1/messages/{id}")
            || path.starts_with("/v1/portal/messages/{id}")
        {
            &self.message_id
        } else {
            assert!(!path.contains('{'), "no id known for {path}: add one here");
            ""
        };
        let token = match scheme {
            "operator_token" => OPERATOR,
            "api_key" => &self.key,
            "portal_token" => &self.portal,
            other => panic!("{path}: unknown security scheme {other}"),
        };
        (path.replace("{id}", id), token.to_string())
    }
}

#[tokio::test]
async fn every_list_refuses_a_page_over_the_maximum() {
    let w = world().await;
    for (path, scheme) in list_operations() {
        let (url, token) = w.reach(&path, &scheme);
        let ok = w.h.get(&format!("{url}?limit=250"), &token).await;
        assert_eq!(ok.status, StatusCode::OK, "{url}: {}", ok.text());
        assert!(ok.json()["data"].is_array(), "{url}");
        for limit in ["251", "1000000", "0"] {
            w.h.get(&format!("{url}?limit={limit}"), &token)
                .await
                .problem(StatusCode::BAD_REQUEST, "invalid_query");
        }
    }
}

/// Follows `next_after` through a list; returns each page's `data`.
async fn pages(h: &Harness, path: &str, token: &str, limit: u32) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..50 {
        let url = match &after {
            Some(a) => format!("{path}?limit={limit}&after={a}"),
            None => format!("{path}?limit={limit}"),
        };
        let page = h.get(&url, token).await.expect(StatusCode::OK);
        let data = page["data"].as_array().unwrap().clone();
        out.push(data);
        match page["next_after"].as_str() {
            Some(a) => after = Some(a.to_string()),
            None => return out,
        }
    }
    panic!("{path}: more than 50 pages");
}

#[tokio::test]
async fn the_lists_that_were_read_whole_page_through_everything() {
    let w = world().await;
    let h = &w.h;
    // Event types: Relay's operational types first, on the first page only.
    for name in [
        "a.created",
        "b.created",
        "c.created",
        "d.created",
        "e.created",
    ] {
        h.open_event_type(&w.key, name).await;
    }
    let built_ins = relay_core::operational::all().count();
    let got = pages(h, "/v1/event-types", &w.key, 2).await;
    let sizes: Vec<usize> = got.iter().map(Vec::len).collect();
    assert_eq!(sizes, vec![built_ins + 2, 2, 2], "{got:?}");
    let mut names: Vec<&str> = got
        .iter()
        .flatten()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let total = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), total, "each type once");
    assert_eq!(total, built_ins + 6);
    // The portal: the same catalog, without Relay's operational types for a
    // customer's consumer.
    let got = pages(h, "/v1/portal/event-types", &w.portal, 4).await;
    let names: Vec<&str> = got
        .iter()
        .flatten()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "a.created",
            "b.created",
            "c.created",
            "d.created",
            "e.created",
            "order.created"
        ]
    );

    // API keys.
    for _ in 0..3 {
        h.api_key(&w.tenant_id, "test").await;
    }
    let path = format!("/v1/tenants/{}/api-keys", w.tenant_id);
    let got = pages(h, &path, OPERATOR, 3).await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), vec![3, 1]);

    // Endpoint versions: each change of the payload settings opens one.
    for fields in [["/a"], ["/b"], ["/c"]] {
        h.patch(
            &format!("/v1/endpoints/{}", w.endpoint_id),
            &w.key,
            json!({"snapshot_fields": fields}),
        )
        .await
        .expect(StatusCode::OK);
    }
    let path = format!("/v1/endpoints/{}/versions", w.endpoint_id);
    let got = pages(h, &path, &w.key, 3).await;
    let versions: Vec<Vec<i64>> = got
        .iter()
        .map(|p| p.iter().map(|v| v["version"].as_i64().unwrap()).collect())
        .collect();
    assert_eq!(versions, vec![vec![1, 2, 3], vec![4]]);
    h.get(&format!("{path}?after=x"), &w.key)
        .await
        .problem(StatusCode::BAD_REQUEST, "invalid_query");

    // Signing keys, newest first.
    for _ in 0..2 {
        h.post(
            &format!("/v1/endpoints/{}/rotate-key", w.endpoint_id),
            &w.key,
            json!({}),
        )
        .await
        .expect(StatusCode::OK);
    }
    let path = format!("/v1/endpoints/{}/signing-keys", w.endpoint_id);
    let got = pages(h, &path, &w.key, 2).await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 1]);
    let created: Vec<relay_core::time::Timestamp> = got
        .iter()
        .flatten()
        .map(|k| serde_json::from_value(k["created_at"].clone()).unwrap())
        .collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "{created:?}");

    // Attempts: a resend records one more each time.
    for _ in 0..3 {
        let r = h
            .post(
                &format!("/v1/messages/{}/resend", w.message_id),
                &w.key,
                json!({}),
            )
            .await;
        assert!(r.status.is_success(), "{}", r.text());
    }
    let path = format!("/v1/messages/{}/attempts", w.message_id);
    let all = pages(h, &path, &w.key, 250).await.concat();
    assert!(all.len() >= 3, "{all:?}");
    let got = pages(h, &path, &w.key, 1).await;
    assert_eq!(got.concat(), all, "the same attempts, a page at a time");
}
