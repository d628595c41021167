//! Tenant and environment isolation (issue 2, item 6).
//!
//! A "victim" scope (tenant + environment) owns an event type, a consumer,
//! two endpoints, an event and its messages. An "attacker" key of another
//! tenant, or of the same tenant's other environment, walks a table of every
//! tenant route of the router: by-id reads and changes answer 404, lists never
//! contain the victim's objects, creations land in the attacker's own scope,
//! and afterwards every victim object reads back unchanged. A guard test
//! checks that the table covers every tenant route the OpenAPI document lists,
//! so a new route cannot skip this suite.

mod common;

use axum::http::{Method, StatusCode};
use common::*;
use serde_json::{Value, json};

/// What the victim owns.
struct Victim {
    key: String,
    consumer_id: String,
    external_id: String,
    endpoint_ids: Vec<String>,
    event_id: String,
    message_ids: Vec<String>,
    event_type: &'static str,
    job_id: String,
    portal_token_id: String,
    /// An inbound source, and a receipt of it in the ledger.
    source_id: String,
    receipt_id: String,
    /// A workflow step's key.
    step_key: String,
}

impl Victim {
    fn ids(&self) -> Vec<String> {
        let mut ids = vec![
            self.consumer_id.clone(),
            self.event_id.clone(),
            self.job_id.clone(),
            self.portal_token_id.clone(),
            self.source_id.clone(),
            self.receipt_id.clone(),
            self.step_key.clone(),
        ];
        ids.extend(self.endpoint_ids.iter().cloned());
        ids.extend(self.message_ids.iter().cloned());
        ids
    }

    /// The victim's view of all of its objects, to compare before and after.
    async fn snapshot(&self, h: &Harness) -> Vec<Value> {
        let mut paths = vec![
            format!("/v1/consumers/{}", self.consumer_id),
            format!("/v1/event-types/{}", self.event_type),
            format!("/v1/events/{}", self.event_id),
            format!("/v1/jobs/{}", self.job_id),
            "/v1/consumers".to_string(),
            "/v1/endpoints".to_string(),
            "/v1/event-types".to_string(),
            "/v1/messages".to_string(),
            format!("/v1/portal-tokens/{}", self.portal_token_id),
            "/v1/portal-brand".to_string(),
            format!("/v1/inbound-sources/{}", self.source_id),
            format!("/v1/inbound-receipts/{}", self.receipt_id),
            "/v1/inbound-sources".to_string(),
            "/v1/inbound-receipts".to_string(),
            "/v1/ledger".to_string(),
            "/v1/secrets".to_string(),
            "/v1/secrets/victim-secret".to_string(),
            format!("/v1/workflow-steps/{}", self.step_key),
        ];
        for e in &self.endpoint_ids {
            paths.push(format!("/v1/endpoints/{e}"));
            paths.push(format!("/v1/endpoints/{e}/signing-keys"));
            paths.push(format!("/v1/endpoints/{e}/missed"));
            paths.push("/v1/audit-log".to_string());
        }
        for m in &self.message_ids {
            paths.push(format!("/v1/messages/{m}"));
            paths.push(format!("/v1/messages/{m}/attempts"));
        }
        let mut out = Vec::new();
        for p in paths {
            out.push(
                json!({ "path": p, "body": h.get(&p, &self.key).await.expect(StatusCode::OK) }),
            );
        }
        out
    }
}

async fn victim(h: &Harness, key: String) -> Victim {
    let event_type = "order.shipped";
    h.event_type(
        &key,
        event_type,
        json!({ "type": "object", "required": ["order_id"] }),
    )
    .await;
    let external_id = "acme".to_string();
    let consumer_id = h.consumer(&key, &external_id).await;
    let e1 = id_of(&h.endpoint(&key, &consumer_id, &[event_type]).await);
    let e2 = id_of(&h.endpoint(&key, &consumer_id, &["*"]).await);
    let published = h
        .publish(
            &key,
            json!({ "id": "evt-shared-id", "type": event_type, "data": { "order_id": 1 } }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(published["messages_created"], 2);
    let event_id = id_of(&published);
    let messages = h
        .get(&format!("/v1/messages?event_id={event_id}"), &key)
        .await
        .expect(StatusCode::OK);
    let message_ids = ids_in(&messages);
    assert_eq!(message_ids.len(), 2);
    let job = h
        .post("/v1/messages/retry", &key, json!({ "state": "exhausted" }))
        .await
        .expect(StatusCode::ACCEPTED);
    h.put(
        "/v1/portal-brand",
        &key,
        json!({ "name": "Victim", "embed_origins": ["https://victim.example"] }),
    )
    .await
    .expect(StatusCode::OK);
    let portal_token = h
        .post(
            "/v1/portal-tokens",
            &key,
            json!({ "consumer_id": consumer_id, "capabilities": ["manage_endpoints"] }),
        )
        .await
        .expect(StatusCode::CREATED);
    let (source_id, receipt_id) = inbound(h, &key).await;
    h.put(
        "/v1/secrets/victim-secret",
        &key,
        json!({ "value": "victim-value" }),
    )
    .await
    .expect(StatusCode::CREATED);
    let step_key = "victim-workflow.step-1".to_string();
    h.post(
        "/v1/workflow-steps",
        &key,
        json!({ "step_key": step_key, "endpoint_id": e1,
                "event": { "type": event_type, "data": { "order_id": 3 } } }),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    Victim {
        step_key,
        portal_token_id: id_of(&portal_token),
        source_id,
        receipt_id,
        job_id: id_of(&job),
        key,
        consumer_id,
        external_id,
        endpoint_ids: vec![e1, e2],
        event_id,
        message_ids,
        event_type,
    }
}

const WHSEC: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// An inbound source, and one signed request to it, processed into the
/// ledger: (source id, receipt id).
async fn inbound(h: &Harness, key: &str) -> (String, String) {
    use relay_core::signature::{HmacSecret, SignedContent};
    use relay_core::time::Clock;
    let source = h
        .post(
            "/v1/inbound-sources",
            key,
            json!({ "name": "victim's", "preset": "standard_webhooks", "secret": WHSEC }),
        )
        .await
        .expect(StatusCode::CREATED);
    let body = json!({ "type": "email.delivered" }).to_string();
    let ts = h.clock.now().unix_seconds().to_string();
    let sig = HmacSecret::parse(WHSEC).unwrap().sign(&SignedContent {
        webhook_id: "msg_victim",
        webhook_timestamp: &ts,
        body: body.as_bytes(),
    });
    let req = axum::http::Request::builder()
        .method(Method::POST)
        .uri(source["path"].as_str().unwrap())
        .header("webhook-id", "msg_victim")
        .header("webhook-timestamp", ts)
        .header("webhook-signature", format!("v1,{sig}"))
        .body(axum::body::Body::from(body))
        .unwrap();
    let r = h.request(req).await.expect(StatusCode::OK);
    assert_eq!(h.dispatcher.process_receipts_once().await.unwrap(), 1);
    (
        id_of(&source),
        r["receipt_id"].as_str().unwrap().to_string(),
    )
}

/// What the attacker's request must get.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// 404 problem+json `not_found`.
    NotFound,
    /// 200, and none of the victim's ids in the body.
    ListWithoutVictim,
    /// This status; for a problem, this code; the victim's ids never appear.
    Status(StatusCode, Option<&'static str>),
}

struct Case {
    method: Method,
    /// The OpenAPI path template.
    template: &'static str,
    /// The concrete path.
    path: String,
    body: Option<Value>,
    expect: Expect,
}

fn cases(v: &Victim) -> Vec<Case> {
    use Expect::*;
    let c = &v.consumer_id;
    let e = &v.endpoint_ids[0];
    let ev = &v.event_id;
    let mut cases = Vec::new();
    let mut add = |method: Method,
                   template: &'static str,
                   path: String,
                   body: Option<Value>,
                   expect: Expect| {
        cases.push(Case {
            method,
            template,
            path,
            body,
            expect,
        })
    };
    // Consumers.
    add(
        Method::GET,
        "/v1/consumers/{id}",
        format!("/v1/consumers/{c}"),
        None,
        NotFound,
    );
    add(
        Method::PATCH,
        "/v1/consumers/{id}",
        format!("/v1/consumers/{c}"),
        Some(json!({ "name": "pwned", "source": "https://evil.example" })),
        NotFound,
    );
    add(
        Method::DELETE,
        "/v1/consumers/{id}",
        format!("/v1/consumers/{c}"),
        None,
        NotFound,
    );
    add(
        Method::GET,
        "/v1/consumers",
        "/v1/consumers".into(),
        None,
        ListWithoutVictim,
    );
    add(
        Method::GET,
        "/v1/consumers",
        "/v1/consumers?limit=250".into(),
        None,
        ListWithoutVictim,
    );
    // The victim's external_id is free in the attacker's scope.
    add(
        Method::POST,
        "/v1/consumers",
        "/v1/consumers".into(),
        Some(json!({ "external_id": v.external_id })),
        Status(StatusCode::CREATED, None),
    );
    // Endpoints.
    for e in &v.endpoint_ids {
        add(
            Method::GET,
            "/v1/endpoints/{id}",
            format!("/v1/endpoints/{e}"),
            None,
            NotFound,
        );
        add(
            Method::PATCH,
            "/v1/endpoints/{id}",
            format!("/v1/endpoints/{e}"),
            Some(json!({ "description": "pwned", "event_types": [] })),
            NotFound,
        );
    }
    add(
        Method::DELETE,
        "/v1/endpoints/{id}",
        format!("/v1/endpoints/{e}"),
        None,
        NotFound,
    );
    add(
        Method::GET,
        "/v1/endpoints",
        "/v1/endpoints".into(),
        None,
        ListWithoutVictim,
    );
    add(
        Method::GET,
        "/v1/endpoints",
        format!("/v1/endpoints?consumer_id={c}"),
        None,
        ListWithoutVictim,
    );
    // An endpoint cannot be attached to the victim's consumer.
    add(
        Method::POST,
        "/v1/endpoints",
        "/v1/endpoints".into(),
        Some(endpoint_body(c, &[])),
        Status(StatusCode::UNPROCESSABLE_ENTITY, Some("unknown_reference")),
    );
    // Event types.
    add(
        Method::GET,
        "/v1/event-types/{name}",
        format!("/v1/event-types/{}", v.event_type),
        None,
        NotFound,
    );
    add(
        Method::GET,
        "/v1/event-types",
        "/v1/event-types".into(),
        None,
        ListWithoutVictim,
    );
    // Events.
    add(
        Method::GET,
        "/v1/events/{id}",
        format!("/v1/events/{ev}"),
        None,
        NotFound,
    );
    // The victim's type is not in the attacker's catalog.
    add(
        Method::POST,
        "/v1/events",
        "/v1/events".into(),
        Some(json!({ "type": v.event_type, "data": { "order_id": 2 } })),
        Status(StatusCode::UNPROCESSABLE_ENTITY, Some("unknown_event_type")),
    );
    for e in &v.endpoint_ids {
        for action in ["pause", "resume", "enable", "disable"] {
            add(
                Method::POST,
                match action {
                    "pause" => "/v1/endpoints/{id}/pause",
                    "resume" => "/v1/endpoints/{id}/resume",
                    "enable" => "/v1/endpoints/{id}/enable",
                    _ => "/v1/endpoints/{id}/disable",
                },
                format!("/v1/endpoints/{e}/{action}"),
                None,
                NotFound,
            );
        }
        add(
            Method::POST,
            "/v1/endpoints/{id}/recover",
            format!("/v1/endpoints/{e}/recover"),
            Some(json!({ "since": "2027-01-01T00:00:00Z" })),
            NotFound,
        );
        add(
            Method::GET,
            "/v1/endpoints/{id}/health",
            format!("/v1/endpoints/{e}/health"),
            None,
            NotFound,
        );
        add(
            Method::POST,
            "/v1/endpoints/{id}/verify-ownership",
            format!("/v1/endpoints/{e}/verify-ownership"),
            Some(json!({})),
            NotFound,
        );
        add(
            Method::POST,
            "/v1/endpoints/{id}/test",
            format!("/v1/endpoints/{e}/test"),
            Some(json!({})),
            NotFound,
        );
        add(
            Method::POST,
            "/v1/endpoints/{id}/replay",
            format!("/v1/endpoints/{e}/replay"),
            Some(json!({ "since": "2027-01-01T00:00:00Z" })),
            NotFound,
        );
        add(
            Method::GET,
            "/v1/endpoints/{id}/missed",
            format!("/v1/endpoints/{e}/missed"),
            None,
            NotFound,
        );
        add(
            Method::POST,
            "/v1/endpoints/{id}/rotate-key",
            format!("/v1/endpoints/{e}/rotate-key"),
            Some(json!({ "overlap_hours": 0 })),
            NotFound,
        );
        add(
            Method::GET,
            "/v1/endpoints/{id}/signing-keys",
            format!("/v1/endpoints/{e}/signing-keys"),
            None,
            NotFound,
        );
        add(
            Method::GET,
            "/v1/endpoints/{id}/versions",
            format!("/v1/endpoints/{e}/versions"),
            None,
            NotFound,
        );
    }
    add(
        Method::GET,
        "/v1/audit-log",
        "/v1/audit-log".into(),
        None,
        ListWithoutVictim,
    );
    add(
        Method::GET,
        "/v1/jobs/{id}",
        format!("/v1/jobs/{}", v.job_id),
        None,
        NotFound,
    );
    // A bulk retry queued by the attacker touches only the attacker's scope
    // (the snapshot comparison proves the victim's messages are unchanged).
    add(
        Method::POST,
        "/v1/messages/retry",
        "/v1/messages/retry".into(),
        Some(json!({})),
        Status(StatusCode::ACCEPTED, None),
    );
    // Messages.
    for m in &v.message_ids {
        add(
            Method::POST,
            "/v1/messages/{id}/cancel",
            format!("/v1/messages/{m}/cancel"),
            None,
            NotFound,
        );
        add(
            Method::POST,
            "/v1/messages/{id}/resend",
            format!("/v1/messages/{m}/resend"),
            None,
            NotFound,
        );
        add(
            Method::GET,
            "/v1/messages/{id}",
            format!("/v1/messages/{m}"),
            None,
            NotFound,
        );
        add(
            Method::GET,
            "/v1/messages/{id}/attempts",
            format!("/v1/messages/{m}/attempts"),
            None,
            NotFound,
        );
    }
    add(
        Method::GET,
        "/v1/messages",
        "/v1/messages".into(),
        None,
        ListWithoutVictim,
    );
    add(
        Method::GET,
        "/v1/messages",
        format!("/v1/messages?endpoint_id={e}"),
        None,
        ListWithoutVictim,
    );
    add(
        Method::GET,
        "/v1/messages",
        format!("/v1/messages?event_id={ev}"),
        None,
        ListWithoutVictim,
    );
    add(
        Method::GET,
        "/v1/messages",
        format!("/v1/messages?event_type={}&state=scheduled", v.event_type),
        None,
        ListWithoutVictim,
    );
    // Workflow steps: the victim's step is not found, and its endpoints
    // cannot be a step's target.
    add(
        Method::GET,
        "/v1/workflow-steps/{step_key}",
        format!("/v1/workflow-steps/{}", v.step_key),
        None,
        NotFound,
    );
    for e in &v.endpoint_ids {
        add(
            Method::POST,
            "/v1/workflow-steps",
            "/v1/workflow-steps".into(),
            Some(json!({ "step_key": "attacker-step", "endpoint_id": e,
                         "event": { "type": v.event_type, "data": { "order_id": 4 } } })),
            NotFound,
        );
    }
    // Portal tokens: the victim's consumer is unknown, its token not found.
    add(
        Method::POST,
        "/v1/portal-tokens",
        "/v1/portal-tokens".into(),
        Some(json!({ "consumer_id": c })),
        Status(StatusCode::UNPROCESSABLE_ENTITY, Some("unknown_reference")),
    );
    add(
        Method::GET,
        "/v1/portal-tokens/{id}",
        format!("/v1/portal-tokens/{}", v.portal_token_id),
        None,
        NotFound,
    );
    add(
        Method::DELETE,
        "/v1/portal-tokens/{id}",
        format!("/v1/portal-tokens/{}", v.portal_token_id),
        None,
        NotFound,
    );
    add(
        Method::POST,
        "/v1/portal-tokens/revoke-all",
        "/v1/portal-tokens/revoke-all".into(),
        Some(json!({ "consumer_id": c })),
        NotFound,
    );
    // The brand is the caller's own (a sub-tenant's falls back to its
    // parent's until it sets one: that is inheritance, not a leak).
    add(
        Method::GET,
        "/v1/portal-brand",
        "/v1/portal-brand".into(),
        None,
        Status(StatusCode::OK, None),
    );
    add(
        Method::PUT,
        "/v1/portal-brand",
        "/v1/portal-brand".into(),
        Some(json!({ "name": "pwned", "embed_origins": ["https://evil.example"] })),
        Status(StatusCode::OK, None),
    );
    // Inbound sources, receipts and the ledger.
    let (s, r) = (&v.source_id, &v.receipt_id);
    for (method, template, body) in [
        (Method::GET, "/v1/inbound-sources/{id}", None),
        (
            Method::PATCH,
            "/v1/inbound-sources/{id}",
            Some(json!({ "name": "mine now" })),
        ),
        (Method::DELETE, "/v1/inbound-sources/{id}", None),
        (
            Method::POST,
            "/v1/inbound-sources/{id}/rotate-secret",
            Some(json!({ "secret": WHSEC })),
        ),
    ] {
        add(
            method,
            template,
            template.replace("{id}", s),
            body,
            NotFound,
        );
    }
    for (method, template) in [
        (Method::GET, "/v1/inbound-receipts/{id}"),
        (Method::POST, "/v1/inbound-receipts/{id}/reprocess"),
    ] {
        add(
            method,
            template,
            template.replace("{id}", r),
            None,
            NotFound,
        );
    }
    for (template, path) in [
        ("/v1/inbound-sources", "/v1/inbound-sources".to_string()),
        ("/v1/inbound-receipts", "/v1/inbound-receipts".to_string()),
        (
            "/v1/inbound-receipts",
            format!("/v1/inbound-receipts?source_id={s}"),
        ),
        ("/v1/ledger", "/v1/ledger".to_string()),
        ("/v1/ledger", format!("/v1/ledger?receipt_id={r}")),
        ("/v1/ledger", format!("/v1/ledger?source_id={s}")),
    ] {
        add(Method::GET, template, path, None, ListWithoutVictim);
    }
    // Tenant secrets: another scope's is not found, and a secret of the
    // same name put by the attacker is its own (the victim's is unchanged).
    for method in [Method::GET, Method::DELETE] {
        add(
            method,
            "/v1/secrets/{name}",
            "/v1/secrets/victim-secret".into(),
            None,
            Status(StatusCode::NOT_FOUND, Some("secret_not_found")),
        );
    }
    add(
        Method::GET,
        "/v1/secrets",
        "/v1/secrets".into(),
        None,
        ListWithoutVictim,
    );
    add(
        Method::PUT,
        "/v1/secrets/{name}",
        "/v1/secrets/victim-secret".into(),
        Some(json!({ "value": "attacker-value" })),
        Status(StatusCode::CREATED, None),
    );
    // The AWS ExternalId is the caller's own tenant's (aws_roles.rs holds
    // that each tenant's differs); this installation has no `[aws]`.
    add(
        Method::GET,
        "/v1/aws/external-id",
        "/v1/aws/external-id".into(),
        None,
        Status(StatusCode::CONFLICT, Some("aws_roles_unavailable")),
    );
    // A source created by the attacker is its own.
    add(
        Method::POST,
        "/v1/inbound-sources",
        "/v1/inbound-sources".into(),
        Some(json!({ "name": "n", "preset": "github", "secret": "s" })),
        Status(StatusCode::CREATED, None),
    );
    // Creating the same event type name lands in the attacker's scope (201, not an update).
    add(
        Method::PUT,
        "/v1/event-types/{name}",
        format!("/v1/event-types/{}", v.event_type),
        Some(json!({ "schema": { "type": "object", "required": ["other"] } })),
        Status(StatusCode::CREATED, None),
    );
    cases
}

async fn attack(h: &Harness, attacker: &str, v: &Victim) {
    let before = v.snapshot(h).await;
    let victim_ids = v.ids();
    for case in cases(v) {
        let body = case
            .body
            .as_ref()
            .map(|b| b.to_string())
            .unwrap_or_default();
        let r = h
            .send(case.method.clone(), &case.path, Some(attacker), body)
            .await;
        let what = format!("{} {} ({})", case.method, case.path, case.template);
        match case.expect {
            Expect::NotFound => {
                assert_eq!(r.status, StatusCode::NOT_FOUND, "{what}: {}", r.text());
                r.problem(StatusCode::NOT_FOUND, "not_found");
            }
            Expect::ListWithoutVictim => {
                assert_eq!(r.status, StatusCode::OK, "{what}: {}", r.text());
                assert!(r.json()["data"].is_array(), "{what}: {}", r.text());
            }
            Expect::Status(status, code) => {
                assert_eq!(r.status, status, "{what}: {}", r.text());
                if let Some(code) = code {
                    r.problem(status, code);
                }
            }
        }
        let text = r.text();
        for id in &victim_ids {
            assert!(
                !text.contains(id.as_str()),
                "{what} revealed the victim's {id}: {text}"
            );
        }
    }

    // The attacker publishes in its own scope, with its own endpoints (one of
    // them `*`) and the victim's event id: nothing reaches the victim.
    let own_consumer = h.consumer(attacker, "attacker-own").await;
    h.endpoint(attacker, &own_consumer, &["*"]).await;
    let r = h
        .publish(
            attacker,
            json!({ "id": "evt-shared-id", "type": v.event_type, "data": { "other": true },
                    "consumer_id": own_consumer }),
        )
        .await;
    let p = r.expect(StatusCode::ACCEPTED);
    assert_eq!(p["duplicate"], false, "{p}");
    assert_eq!(p["messages_created"], 1, "{p}");
    assert_eq!(p["data"], json!({ "other": true }));
    // Targeting the victim's consumer is refused.
    h.publish(
        attacker,
        json!({ "type": v.event_type, "data": { "other": true }, "consumer_id": v.consumer_id }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_reference");
    // The attacker's own message list holds exactly its one message.
    let own = h.get("/v1/messages", attacker).await.expect(StatusCode::OK);
    assert_eq!(ids_in(&own).len(), 1, "{own}");
    // The victim's step key is free in the attacker's scope: a step of its
    // own, to its own endpoint.
    let own_endpoint = own["data"][0]["endpoint_id"].as_str().unwrap().to_string();
    let mine = h
        .post(
            "/v1/workflow-steps",
            attacker,
            json!({ "step_key": v.step_key, "endpoint_id": own_endpoint,
                    "event": { "type": v.event_type, "data": { "other": true } } }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(mine["endpoint_id"], own_endpoint.as_str());

    let after = v.snapshot(h).await;
    assert_eq!(before, after, "the victim's objects changed");
}

#[tokio::test]
async fn another_tenants_key_sees_and_changes_nothing() {
    let h = Harness::new().await;
    let (_, victim_key) = h.tenant_with_key("victim", "live").await;
    let (_, attacker_key) = h.tenant_with_key("attacker", "live").await;
    let v = victim(&h, victim_key).await;
    attack(&h, &attacker_key, &v).await;
}

#[tokio::test]
async fn a_test_key_cannot_touch_live_data_of_its_own_tenant() {
    let h = Harness::new().await;
    let (tenant, live) = h.tenant_with_key("acme", "live").await;
    let test = h.api_key(&tenant, "test").await;
    let v = victim(&h, live).await;
    attack(&h, &test, &v).await;
}

#[tokio::test]
async fn a_live_key_cannot_touch_test_data_of_its_own_tenant() {
    let h = Harness::new().await;
    let (tenant, test) = h.tenant_with_key("acme", "test").await;
    let live = h.api_key(&tenant, "live").await;
    let v = victim(&h, test).await;
    attack(&h, &live, &v).await;
}

#[tokio::test]
async fn a_sub_tenants_key_cannot_touch_its_parents_data() {
    let h = Harness::new().await;
    let (parent, parent_key) = h.tenant_with_key("parent", "live").await;
    let child = h
        .post(
            "/v1/tenants",
            OPERATOR,
            json!({ "name": "child", "parent_id": parent }),
        )
        .await
        .expect(StatusCode::CREATED);
    let child_key = h.api_key(&id_of(&child), "live").await;
    let v = victim(&h, parent_key).await;
    attack(&h, &child_key, &v).await;
}

#[tokio::test]
async fn two_keys_of_one_scope_see_the_same_data() {
    // The control case: the table's expectations fail for a key that *is*
    // allowed, so the 404s above are not an artefact of the harness.
    let h = Harness::new().await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    let second = h.api_key(&tenant, "live").await;
    let v = victim(&h, key).await;
    for case in cases(&v) {
        if matches!(case.expect, Expect::NotFound) && case.method == Method::GET {
            h.get(&case.path, &second).await.expect(StatusCode::OK);
        }
    }
    let list = h.get("/v1/messages", &second).await.expect(StatusCode::OK);
    assert_eq!(
        ids_in(&list).len(),
        3,
        "the event's two messages and the step's"
    );
}

#[test]
fn the_table_covers_every_tenant_route() {
    let doc = relay_api::openapi::document();
    let placeholder = Victim {
        key: String::new(),
        consumer_id: "c".into(),
        external_id: "x".into(),
        endpoint_ids: vec!["e".into()],
        event_id: "ev".into(),
        message_ids: vec!["m".into()],
        event_type: "order.shipped",
        job_id: "j".into(),
        portal_token_id: "p".into(),
        source_id: "s".into(),
        receipt_id: "r".into(),
        step_key: "k".into(),
    };
    let table = cases(&placeholder);
    let mut missing = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let tenant_route = op["security"]
                .as_array()
                .is_some_and(|s| s.iter().any(|r| r.get("api_key").is_some()));
            if !tenant_route {
                continue;
            }
            let covered = table
                .iter()
                .any(|c| c.template == path && c.method.as_str().eq_ignore_ascii_case(method));
            if !covered {
                missing.push(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "tenant routes missing from the isolation table: {missing:?}"
    );
}
