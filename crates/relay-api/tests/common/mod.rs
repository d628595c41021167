//! Shared harness for the relay-api integration tests: a router over a fresh
//! SQLite store, a manual clock and a real outbound guard (with a static
//! resolver), driven in-process with `tower::ServiceExt::oneshot`, plus
//! helpers that create tenants, keys, event types, consumers and endpoints
//! through the API itself.

#![allow(dead_code)]

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use relay_api::{ApiSettings, AppState};
use relay_core::time::{ManualClock, Timestamp};
use relay_net::{Guard, OutboundConfig, StaticResolver};
use relay_store::conformance::TestDb;
use serde_json::{Value, json};
use tower::ServiceExt;

/// The operator token the harness configures.
pub const OPERATOR: &str = "rop_test";

/// An endpoint URL the guard accepts (name resolving to 127.0.0.1, allowed port).
pub const GOOD_URL: &str = "https://receiver.test:8443/hook";

/// 2027-01-15T08:00:00Z.
pub const T0: Timestamp = Timestamp(1_800_000_000_000);

/// A router over a fresh store. Keep it alive for the whole test: the
/// SQLite file is removed when it drops.
pub struct Harness {
    pub db: TestDb,
    pub state: Arc<AppState>,
    /// The dispatcher behind `state.engine` (its handle): tests run its
    /// rounds themselves.
    pub dispatcher: Arc<relay_engine::Dispatcher>,
    pub clock: Arc<ManualClock>,
    pub router: Router,
}

/// A response, fully read.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "response ({}) is not JSON: {e}: {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn content_type(&self) -> &str {
        self.headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// Asserts a 2xx-or-given status and returns the JSON body.
    #[track_caller]
    pub fn expect(&self, status: StatusCode) -> Value {
        assert_eq!(
            self.status,
            status,
            "unexpected status; body: {}",
            self.text()
        );
        if self.body.is_empty() {
            Value::Null
        } else {
            self.json()
        }
    }

    /// Asserts a problem+json response with `status` and `code`; returns the problem.
    #[track_caller]
    pub fn problem(&self, status: StatusCode, code: &str) -> Value {
        assert_eq!(
            self.status,
            status,
            "unexpected status; body: {}",
            self.text()
        );
        let p = self.any_problem();
        assert_eq!(p["code"], code, "unexpected code; body: {}", self.text());
        p
    }

    /// Asserts the response is a well-formed problem+json (any status) and returns it.
    #[track_caller]
    pub fn any_problem(&self) -> Value {
        assert_eq!(
            self.content_type(),
            "application/problem+json",
            "status {} without problem+json; body: {}",
            self.status,
            self.text()
        );
        let p = self.json();
        assert!(
            p["code"].as_str().is_some_and(|c| !c.is_empty()),
            "problem without a code: {p}"
        );
        assert_eq!(p["status"], self.status.as_u16(), "problem status: {p}");
        for k in ["type", "title", "detail"] {
            assert!(p[k].is_string(), "problem without `{k}`: {p}");
        }
        p
    }

    /// The `field`s of a problem's `errors`.
    pub fn error_fields(&self) -> Vec<String> {
        self.json()["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e["field"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub fn guard() -> Arc<Guard> {
    let config = OutboundConfig {
        allow_ports: vec![8443],
        allow_cidrs: vec!["127.0.0.0/8".into()],
        allow_plaintext_credentials_to_loopback: true,
        ..Default::default()
    };
    let resolver = StaticResolver::new()
        .with("receiver.test", ["127.0.0.1".parse().unwrap()])
        .with("private.test", ["10.1.2.3".parse().unwrap()]);
    Arc::new(Guard::with_resolver(&config, Arc::new(resolver)).expect("guard"))
}

impl Harness {
    pub async fn new() -> Harness {
        Harness::with_settings(ApiSettings::default()).await
    }

    pub async fn with_settings(settings: ApiSettings) -> Harness {
        Harness::build(
            TestDb::sqlite().await,
            settings,
            guard(),
            relay_engine::EngineConfig::new("api-test"),
        )
        .await
    }

    /// A router over `db`, with this guard and dispatcher configuration.
    pub async fn build(
        db: TestDb,
        settings: ApiSettings,
        guard: Arc<Guard>,
        engine: relay_engine::EngineConfig,
    ) -> Harness {
        let clock = Arc::new(ManualClock::new(T0));
        let master = relay_core::sealed::MasterKey::from_bytes([7; 32]);
        let dispatcher = relay_engine::Dispatcher::new(
            db.store.clone(),
            clock.clone(),
            relay_net::HttpsClient::new((*guard).clone()),
            master.clone(),
            engine,
        );
        let state = AppState::new(
            db.store.clone(),
            clock.clone(),
            guard,
            relay_api::auth::token_digest(OPERATOR),
            master,
            dispatcher.handle(),
            settings,
        );
        let router = relay_api::router(state.clone());
        Harness {
            db,
            state,
            dispatcher,
            clock,
            router,
        }
    }

    /// Sends a request with raw body bytes.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: impl Into<Body>,
    ) -> Resp {
        let mut req = Request::builder().method(method).uri(path);
        if let Some(t) = token {
            req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        let req = req
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.into())
            .expect("request");
        self.request(req).await
    }

    pub async fn request(&self, req: Request<Body>) -> Resp {
        let res = self
            .router
            .clone()
            .oneshot(req)
            .await
            .expect("the router is infallible");
        let status = res.status();
        let headers = res.headers().clone();
        let body = res
            .into_body()
            .collect()
            .await
            .expect("read body")
            .to_bytes();
        Resp {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str, token: &str) -> Resp {
        self.send(Method::GET, path, Some(token), Body::empty())
            .await
    }

    pub async fn delete(&self, path: &str, token: &str) -> Resp {
        self.send(Method::DELETE, path, Some(token), Body::empty())
            .await
    }

    pub async fn post(&self, path: &str, token: &str, body: Value) -> Resp {
        self.send(Method::POST, path, Some(token), body.to_string())
            .await
    }

    pub async fn put(&self, path: &str, token: &str, body: Value) -> Resp {
        self.send(Method::PUT, path, Some(token), body.to_string())
            .await
    }

    pub async fn patch(&self, path: &str, token: &str, body: Value) -> Resp {
        self.send(Method::PATCH, path, Some(token), body.to_string())
            .await
    }

    /// Creates a tenant with the operator token; returns its id.
    pub async fn tenant(&self, name: &str) -> String {
        let t = self
            .post("/v1/tenants", OPERATOR, json!({ "name": name }))
            .await
            .expect(StatusCode::CREATED);
        t["id"].as_str().expect("tenant id").to_string()
    }

    /// Issues an API key; returns the full created object (with `key`).
    pub async fn api_key_object(&self, tenant_id: &str, environment: &str) -> Value {
        self.post(
            &format!("/v1/tenants/{tenant_id}/api-keys"),
            OPERATOR,
            json!({ "environment": environment, "name": format!("{environment} key") }),
        )
        .await
        .expect(StatusCode::CREATED)
    }

    /// Issues an API key; returns the secret.
    pub async fn api_key(&self, tenant_id: &str, environment: &str) -> String {
        self.api_key_object(tenant_id, environment).await["key"]
            .as_str()
            .expect("key")
            .to_string()
    }

    /// A new tenant and a key for `environment`.
    pub async fn tenant_with_key(&self, name: &str, environment: &str) -> (String, String) {
        let id = self.tenant(name).await;
        let key = self.api_key(&id, environment).await;
        (id, key)
    }

    /// Creates (or updates) an event type with `schema`, for all consumers:
    /// the tests publish events for no consumer and expect every subscriber
    /// to get them (who gets what otherwise: `tests/consumers.rs`).
    pub async fn event_type(&self, key: &str, name: &str, schema: Value) -> Value {
        let r = self
            .put(
                &format!("/v1/event-types/{name}"),
                key,
                json!({ "description": "test type", "schema": schema, "audience": "all_consumers" }),
            )
            .await;
        assert!(
            r.status == StatusCode::CREATED || r.status == StatusCode::OK,
            "put event type {name}: {} {}",
            r.status,
            r.text()
        );
        r.json()
    }

    /// An event type accepting any object.
    pub async fn open_event_type(&self, key: &str, name: &str) -> Value {
        self.event_type(key, name, json!({ "type": "object" }))
            .await
    }

    /// Creates a consumer; returns its id.
    pub async fn consumer(&self, key: &str, external_id: &str) -> String {
        let c = self
            .post(
                "/v1/consumers",
                key,
                json!({ "external_id": external_id, "name": "Consumer" }),
            )
            .await
            .expect(StatusCode::CREATED);
        c["id"].as_str().expect("consumer id").to_string()
    }

    /// Creates an endpoint at [`GOOD_URL`] subscribed to `types`; returns the response body.
    pub async fn endpoint(&self, key: &str, consumer_id: &str, types: &[&str]) -> Value {
        self.post("/v1/endpoints", key, endpoint_body(consumer_id, types))
            .await
            .expect(StatusCode::CREATED)
    }

    /// Publishes `body`.
    pub async fn publish(&self, key: &str, body: Value) -> Resp {
        self.post("/v1/events", key, body).await
    }
}

/// A valid endpoint-create body.
pub fn endpoint_body(consumer_id: &str, types: &[&str]) -> Value {
    json!({
        "consumer_id": consumer_id,
        "description": "test endpoint",
        "destination": { "kind": "https", "url": GOOD_URL },
        "event_types": types,
    })
}

/// The `id` of a JSON object.
pub fn id_of(v: &Value) -> String {
    v["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {v}"))
        .to_string()
}

/// The `id`s of a list response's `data`.
pub fn ids_in(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data array in {list}"))
        .iter()
        .map(id_of)
        .collect()
}
