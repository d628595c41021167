//! The document's examples: one per component schema that a request or an
//! answer carries (and the pieces they are made of), set on the schema as
//! its `examples` ([`Examples`]), so every operation that sends or answers
//! it shows it. They tell one story, one tenant's order events delivered
//! to one customer's endpoint, with the same ids throughout, and are built
//! from one another: an `EndpointOut` is the `Endpoint` example with its
//! warnings. A page (`Page_Message`) is made from its item's example.
//!
//! `tests/openapi_lint.rs` validates every example against its schema.

use serde_json::{Map, Value, json};
use utoipa::Modify;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::{OpenApi, RefOr};

const TENANT: &str = "ten_01KFFXCR9MHAZ8A80G25M9BKN8";
const API_KEY: &str = "key_01KFFXEJWM3QEXSBKEKYSSSZAB";
const CONSUMER: &str = "con_01KG9NBY9M76J62AVCTMPKKXDB";
const ENDPOINT: &str = "ep_01KG9NFKFM762GEWQAX95228MG";
const FIRST_KEY: &str = "whk_01KG9NFKFM090S35CXKMEXSKSD";
const ROTATED_KEY: &str = "whk_01KJHRG29MRS12G76VJCCTAST6";
const EVENT: &str = "evt_01KJPX9G9MZN7V0NKR2A1R5DBE";
const MESSAGE: &str = "msg_01KJPX9G9SM97B32F3E16S0GVV";
const ATTEMPT: &str = "atm_01KJPX9GAWCYRSEJWQADGE1424";
const JOB: &str = "job_01KJQ0QBXM2BA5QE466D9QS5WJ";
const AUDIT: &str = "aud_01KG9NFKFM91GDEVGBDXBBSXVW";
const PORTAL_TOKEN: &str = "ptk_01KJQ457HM3JP2HDV5K2F0484R";
const SOURCE: &str = "ins_01KHX5AA9MJTQH3VZ3ZP1D3MBG";
const RECEIPT: &str = "rcp_01KJPX9H8WYNXMA7PJ6WC3K0PJ";
const LEDGER: &str = "led_01KJPX9HF4Y5R1Q4TN2D8BZTWP";
const PUBLIC_KEY: &str = "whpk_f7+pcuyYcvLN8oVPu6BSRHOrDuu1P33k6PVLDdcl29U=";
const TRACEPARENT: &str = "00-e403e781d36dfa1c10d8c8018f59acee-ddda179542cafa4e-01";
/// The first signature of a delivery (`webhook-signature`).
pub(super) const SIGNATURE: &str =
    "v1a,rL8LRHoPeYEPb+meh2oz596RzTImRPy0EBUD/34FP5e0kP3Aa9s1uoORaUwEH4LQXdVFSX5P2thL2CPcH2bc9A==";

/// When the story's times fall.
const CREATED: &str = "2026-01-21T08:02:11.204Z";
const ENDPOINT_CREATED: &str = "2026-01-31T09:17:27.412Z";
const ROTATED: &str = "2026-02-28T09:15:27.412Z";
const PUBLISHED: &str = "2026-03-02T09:15:27.412Z";
const ATTEMPTED: &str = "2026-03-02T09:15:27.452Z";

/// Sets each example on its component schema, and a page's from its item's.
pub(super) struct Examples;

impl Modify for Examples {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let examples: Map<String, Value> = examples()
            .into_iter()
            .map(|(name, example)| (name.to_string(), example))
            .collect();
        for (name, schema) in components.schemas.iter_mut() {
            let example = match name.strip_prefix("Page_") {
                Some(item) => examples.get(item).map(page),
                None => examples.get(name).cloned(),
            };
            if let (Some(example), RefOr::T(schema)) = (example, schema) {
                set(schema, example);
            }
        }
    }
}

fn set(schema: &mut Schema, example: Value) {
    match schema {
        Schema::Object(s) => s.examples = vec![example],
        Schema::AllOf(s) => s.examples = vec![example],
        Schema::OneOf(s) => s.examples = vec![example],
        Schema::AnyOf(s) => s.examples = vec![example],
        Schema::Array(s) => s.examples = vec![example],
        _ => {}
    }
}

/// A page of one item, with the cursor to the next.
fn page(item: &Value) -> Value {
    json!({"data": [item], "next_after": item.get("id").filter(|id| id.is_string())})
}

/// `base` with `more`'s members (a flattened type's example).
fn with(base: Value, more: Value) -> Value {
    let (Value::Object(mut base), Value::Object(more)) = (base, more) else {
        unreachable!("examples of objects")
    };
    base.extend(more);
    Value::Object(base)
}

/// Every example, by component name.
fn examples() -> Vec<(&'static str, Value)> {
    let endpoint_out = with(endpoint(), json!({"warnings": []}));
    let resent = json!({"message": message(), "attempt": attempt("manual")});
    vec![
        // The operator's.
        ("CreateTenant", json!({"name": "Acme Corp"})),
        ("Tenant", tenant()),
        (
            "CreateApiKey",
            json!({"environment": "live", "name": "production publisher"}),
        ),
        ("ApiKey", api_key()),
        (
            "ApiKeyCreated",
            with(
                api_key(),
                json!({"key": "rk_live_049dc46dba5c4bd7c1177fb4b5123339d476da877ed35a6e"}),
            ),
        ),
        (
            "SystemEvent",
            json!({"environment": "live", "type": "email.bounced", "subject": "message/m_81",
                "data": {"message_id": "m_81", "recipient": "ada@example.com", "reason": "mailbox full"}}),
        ),
        // The catalog.
        ("PutEventTypeBody", put_event_type()),
        ("EventTypeVersion", event_type_version()),
        ("EventType", event_type()),
        ("EventTypeOut", with(event_type(), json!({"warnings": []}))),
        // Consumers and endpoints.
        (
            "CreateConsumer",
            json!({"external_id": "acme-shop", "name": "Acme Shop", "kind": "customer"}),
        ),
        ("UpdateConsumer", json!({"name": "Acme Shop (EU)"})),
        ("Consumer", consumer()),
        ("CreateEndpoint", create_endpoint()),
        (
            "UpdateEndpoint",
            json!({"event_types": ["order.paid", "order.refunded"], "rate_limit_per_second": 50}),
        ),
        ("Endpoint", endpoint()),
        ("EndpointOut", endpoint_out.clone()),
        (
            "EndpointCreated",
            with(endpoint_out.clone(), json!({"public_key": PUBLIC_KEY})),
        ),
        ("EndpointVersion", endpoint_version()),
        ("RotateKey", json!({"overlap_hours": 24})),
        ("SigningKeyOut", signing_key(ROTATED_KEY, ROTATED, None)),
        (
            "KeyRotated",
            json!({"endpoint_id": ENDPOINT, "keys": [
                signing_key(ROTATED_KEY, ROTATED, None),
                signing_key(FIRST_KEY, ENDPOINT_CREATED, Some("2026-03-01T09:15:27.412Z")),
            ]}),
        ),
        ("Health", health()),
        // Publishing and delivery.
        ("PublishEvent", publish()),
        ("Event", event()),
        (
            "Published",
            with(event(), json!({"messages_created": 1, "duplicate": false})),
        ),
        (
            "EventWithMessages",
            with(event(), json!({"messages": [message()]})),
        ),
        ("Message", message()),
        // Workflow steps.
        (
            "CreateWorkflowStep",
            json!({"step_key": "wf_checkout/run_8812/notify", "endpoint_id": ENDPOINT,
                "event": {"type": "order.paid", "subject": "order/o_1042", "data": order()}}),
        ),
        (
            "StepEvent",
            json!({"type": "order.paid", "subject": "order/o_1042", "data": order(), "ttl_seconds": 3600}),
        ),
        (
            "WorkflowStep",
            json!({"step_key": "wf_checkout/run_8812/notify", "endpoint_id": ENDPOINT,
                "event_id": EVENT, "message_id": MESSAGE, "state": "delivered", "status_code": 200,
                "attempts": 1, "last_attempt_at": ATTEMPTED, "created_at": PUBLISHED,
                "updated_at": ATTEMPTED}),
        ),
        ("Attempt", attempt("scheduled")),
        ("AuditEntry", audit_entry()),
        // Recovery.
        (
            "EnableBody",
            json!({"recover": true, "since": "2026-03-01T08:00:00Z"}),
        ),
        ("Enabled", with(endpoint_out, json!({"requeued": 212}))),
        (
            "RecoverBody",
            json!({"since": "2026-03-01T08:00:00Z", "until": "2026-03-01T20:00:00Z"}),
        ),
        ("Recovered", json!({"requeued": 212, "in_flight": 0})),
        (
            "ReplayBody",
            json!({"since": "2026-03-01T00:00:00Z", "event_types": ["order.paid"]}),
        ),
        ("Replayed", json!({"messages_created": 1840})),
        (
            "BulkRetry",
            json!({"endpoint_id": ENDPOINT, "state": "exhausted", "error_code": "http_503",
                "since": "2026-03-01T08:00:00Z", "until": "2026-03-01T20:00:00Z"}),
        ),
        ("Job", job()),
        ("Resent", resent),
        ("TestSend", json!({"event_type": "order.paid"})),
        (
            "TestSent",
            json!({"message": message(), "attempt": attempt("manual")}),
        ),
        // The portal.
        (
            "MintPortalToken",
            json!({"consumer_id": CONSUMER, "lifetime_seconds": 3600,
                "capabilities": ["manage_endpoints", "send_tests"],
                "allowed_origins": ["https://app.acme.example"]}),
        ),
        ("PortalTokenCreated", portal_token_created()),
        ("PortalTokenOut", portal_token()),
        ("RevokeAll", json!({"consumer_id": CONSUMER})),
        ("RevokedAll", json!({"revoked": 2})),
        ("PortalBrand", brand()),
        (
            "PortalBrandOut",
            json!({"brand": brand(), "tenant_id": TENANT}),
        ),
        ("PortalSession", session()),
        (
            "PortalCreateEndpoint",
            json!({"url": "https://hooks.acme.example/relay", "event_types": ["order.paid"],
                "description": "Order notifications"}),
        ),
        (
            "PortalUpdateEndpoint",
            json!({"url": "https://hooks.acme.example/relay/v2"}),
        ),
        (
            "PortalMessage",
            with(
                message(),
                json!({"event": {"id": EVENT, "type": "order.paid", "subject": "order/o_1042",
                    "time": PUBLISHED, "data": {"id": "o_1042", "customer": {"id": "cus_77"}}}}),
            ),
        ),
        // Tenant secrets.
        (
            "PutSecretBody",
            json!({"value": "Bearer eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA1JJJW8opsbCGfG_HACGpVUMN_a9IV7pAx_Zmeo"}),
        ),
        (
            "SecretInfo",
            json!({"name": "hooks-token", "created_at": ENDPOINT_CREATED, "updated_at": ROTATED}),
        ),
        // AWS roles.
        (
            "AwsExternalId",
            json!({"external_id": "relay-2f1c0e6b9d4a7c3e8f5b1a0d6c2e9f4b7a3d8c1e",
                   "principal": "arn:aws:iam::210987654321:role/relay"}),
        ),
        // Proof of endpoint ownership.
        (
            "Ownership",
            json!({"state": "unverified", "origin": "hooks.example.com:443", "proven": false,
                   "proven_at": null, "last_checked_at": "2026-03-01T08:00:00Z", "checks": 2,
                   "failure": {"code": "no_echo",
                               "message": "the answer's body is not the challenge (the request's webhook-id)"},
                   "next_check_at": "2026-03-01T08:05:00Z"}),
        ),
        (
            "Failure",
            json!({"code": "no_echo",
            "message": "the answer's body is not the challenge (the request's webhook-id)"}),
        ),
        // Inbound.
        ("CreateInboundSource", create_source()),
        (
            "UpdateInboundSource",
            json!({"rate_limit_per_second": 200, "options": {"tolerance_seconds": 600}}),
        ),
        (
            "RotateInboundSecret",
            json!({"secret_ref": "secret:stripe-signing-2", "overlap_hours": 24}),
        ),
        ("InboundSource", source()),
        ("Receipt", receipt()),
        ("LedgerEntry", ledger_entry()),
        // Errors.
        ("Problem", problem()),
    ]
}

fn tenant() -> Value {
    json!({"id": TENANT, "name": "Acme Corp", "parent_id": null, "created_at": CREATED})
}

fn api_key() -> Value {
    json!({"id": API_KEY, "tenant_id": TENANT, "environment": "live",
        "name": "production publisher", "prefix": "rk_live_049d", "created_at": CREATED,
        "revoked_at": null})
}

fn order_schema() -> Value {
    json!({"type": "object", "required": ["id", "customer", "total"],
        "properties": {
            "id": {"type": "string"},
            "customer": {"type": "object", "properties": {
                "id": {"type": "string"}, "email": {"type": "string"}}},
            "total": {"type": "integer"}}})
}

fn order() -> Value {
    json!({"id": "o_1042", "customer": {"id": "cus_77", "email": "ada@example.com"}, "total": 4200})
}

fn put_event_type() -> Value {
    json!({"description": "An order was paid.", "schema": order_schema(), "sample": order(),
        "thin_fields": ["/id", "/customer/id"], "personal_data_fields": ["/customer/email"],
        "audience": "addressed"})
}

fn event_type_version() -> Value {
    json!({"version": 1, "schema": order_schema(), "sample": order(),
        "thin_fields": ["/id", "/customer/id"], "personal_data_fields": ["/customer/email"],
        "created_at": CREATED})
}

fn event_type() -> Value {
    json!({"name": "order.paid", "description": "An order was paid.", "environment": "live",
        "current_version": 1, "audience": "addressed", "versions": [event_type_version()],
        "created_at": CREATED, "updated_at": CREATED})
}

fn consumer() -> Value {
    json!({"id": CONSUMER, "external_id": "acme-shop", "kind": "customer", "name": "Acme Shop",
        "source": "/consumers/acme-shop", "environment": "live",
        "created_at": ENDPOINT_CREATED, "updated_at": ENDPOINT_CREATED})
}

fn destination() -> Value {
    json!({"kind": "https", "url": "https://hooks.acme.example/relay"})
}

fn create_endpoint() -> Value {
    json!({"consumer_id": CONSUMER, "description": "Order notifications",
        "destination": destination(), "event_types": ["order.paid"],
        "snapshot_fields": ["/total"]})
}

fn endpoint() -> Value {
    json!({"id": ENDPOINT, "consumer_id": CONSUMER, "environment": "live",
        "description": "Order notifications", "destination": destination(),
        "event_types": ["order.paid"], "signature_scheme": "v1a",
        "retry_schedule_seconds": null, "max_concurrency": 10, "rate_limit_per_second": null,
        "snapshot_fields": ["/total"], "allow_personal_data": false,
        "event_type_versions": {}, "version": 1, "version_started_at": ENDPOINT_CREATED,
        "state": "active", "disabled_reason": null, "auto_disable": true, "ordering": "none", "verify_ownership": false, "ownership_origin": null,
        "created_at": ENDPOINT_CREATED, "updated_at": ROTATED, "revision": 2})
}

fn endpoint_version() -> Value {
    json!({"version": 1, "snapshot_fields": ["/total"], "allow_personal_data": false,
        "event_type_versions": {"order.paid": 1}, "started_at": ENDPOINT_CREATED})
}

fn signing_key(id: &str, created: &str, retires: Option<&str>) -> Value {
    json!({"id": id, "scheme": "v1a", "public_key": PUBLIC_KEY, "created_at": created,
        "retires_at": retires})
}

fn health() -> Value {
    json!({"endpoint_id": ENDPOINT, "state": "active", "disabled_reason": null,
        "circuit": {"state": "closed", "consecutive_failures": 0},
        "success_rate_last_hour": 1.0, "success_rate_last_24h": 0.9875,
        "attempts_last_hour": 412, "attempts_last_24h": 9604,
        "latency": {"p50_ms": 25, "p90_ms": 50, "p99_ms": 250, "max_ms": 1830, "samples": 9604},
        "last_success_at": ATTEMPTED,
        "backlog": {"size": 3, "oldest_age_seconds": 2},
        "recent_errors": [{"attempt_id": "atm_01KJPX9N5WNE3V1YDAZK21XQ56", "message_id": MESSAGE,
            "at": "2026-03-02T04:10:05.120Z", "status_code": 503, "error_kind": null,
            "outcome": "retry"}],
        "warnings": [], "ownership": null})
}

fn publish() -> Value {
    json!({"id": "order-o_1042-paid", "type": "order.paid", "subject": "order/o_1042",
        "data": order(), "consumer_id": CONSUMER, "ttl_seconds": 86400})
}

fn event() -> Value {
    json!({"id": EVENT, "type": "order.paid", "type_version": 1, "environment": "live",
        "subject": "order/o_1042", "data": order(), "consumer_id": CONSUMER,
        "ordering_key": null, "seq": 3, "traceparent": TRACEPARENT,
        "expires_at": "2026-03-03T09:15:27.412Z", "time": PUBLISHED, "created_at": PUBLISHED})
}

fn message() -> Value {
    json!({"id": MESSAGE, "event_id": EVENT, "endpoint_id": ENDPOINT,
        "event_type": "order.paid", "environment": "live", "endpoint_version": 1,
        "event_type_version": 1, "state": "delivered", "ordering_key": null, "attempts_used": 1, "deferrals_used": 0,
        "next_attempt_at": null, "last_error_code": null, "terminal_reason": null,
        "created_at": PUBLISHED, "updated_at": ATTEMPTED})
}

fn attempt(trigger: &str) -> Value {
    json!({"id": ATTEMPT, "message_id": MESSAGE, "endpoint_id": ENDPOINT, "number": 1,
        "trigger": trigger, "started_at": ATTEMPTED, "duration_ms": 38,
        "destination_ip": "203.0.113.24", "status_code": 200, "error_kind": null,
        "error_code": null,
        "body_sha256": "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
        "signature": SIGNATURE, "response_body": "{\"ok\":true}",
        "response_body_encoding": "utf8", "outcome": "delivered",
        "detail": {"status_code": 200, "response_body": "{\"ok\":true}"}})
}

fn audit_entry() -> Value {
    json!({"id": AUDIT, "actor": API_KEY, "action": "endpoint.created", "target": ENDPOINT,
        "parameters": {"url": "https://hooks.acme.example/relay", "credentials": [],
            "event_types": ["order.paid"], "signature_scheme": "v1a", "auto_disable": true},
        "at": ENDPOINT_CREATED})
}

fn job() -> Value {
    json!({"id": JOB, "kind": "bulk_retry",
        "parameters": {"endpoint_id": ENDPOINT, "event_type": null, "state": "exhausted",
            "error_code": "http_503", "since": "2026-03-01T08:00:00Z",
            "until": "2026-03-01T20:00:00Z"},
        "state": "done", "processed": 1500, "affected": 212,
        "created_at": "2026-03-02T10:15:27.412Z", "updated_at": "2026-03-02T10:15:31.050Z",
        "finished_at": "2026-03-02T10:15:31.050Z"})
}

fn portal_token() -> Value {
    json!({"id": PORTAL_TOKEN, "consumer_id": CONSUMER,
        "capabilities": ["manage_endpoints", "send_tests"],
        "allowed_origins": ["https://app.acme.example"],
        "created_at": "2026-03-02T11:15:27.412Z", "expires_at": "2026-03-02T12:15:27.412Z",
        "revoked_at": null})
}

fn portal_token_created() -> Value {
    let token = "rpt_cef8cb0f21175194da450a4688516c74c1126465438087f8";
    let mut created = portal_token();
    if let Value::Object(o) = &mut created {
        o.remove("revoked_at");
        o.insert("token".into(), json!(token));
        o.insert("url".into(), json!(format!("/portal#token={token}")));
        o.insert(
            "embed_url".into(),
            json!(format!("/portal/{TENANT}/live#token={token}")),
        );
    }
    created
}

fn brand() -> Value {
    json!({"name": "Acme", "logo_url": "https://acme.example/logo.svg",
        "primary_color": "#0b5fff", "background_color": "#ffffff", "text_color": "#1a1a1a",
        "font_family": "Inter, sans-serif", "theme": "auto",
        "embed_origins": ["https://app.acme.example"]})
}

fn session() -> Value {
    let mut brand = brand();
    brand["embed_origins"] = json!([]);
    json!({"token_id": PORTAL_TOKEN, "consumer_id": CONSUMER, "consumer_name": "Acme Shop",
        "environment": "live", "capabilities": ["manage_endpoints", "send_tests"],
        "allowed_origins": ["https://app.acme.example"],
        "expires_at": "2026-03-02T12:15:27.412Z", "brand": brand})
}

fn create_source() -> Value {
    json!({"name": "Stripe payments", "preset": "stripe", "secret_ref": "secret:stripe-signing"})
}

fn source() -> Value {
    json!({"id": SOURCE, "environment": "live", "name": "Stripe payments", "preset": "stripe",
        "provider": "stripe", "options": {},
        "secret": {"kind": "reference", "reference": "secret:stripe-signing"},
        "previous_secret_expires_at": null, "rate_limit_per_second": 100,
        "max_body_bytes": 262144, "path": "/inbound/r3Cz_JScTtAYGVqrhPSwRw",
        "url": "https://relay.example.com/inbound/r3Cz_JScTtAYGVqrhPSwRw",
        "created_at": "2026-02-20T09:15:27.412Z", "updated_at": "2026-02-20T09:15:27.412Z"})
}

fn receipt() -> Value {
    json!({"id": RECEIPT, "source_id": SOURCE, "provider": "stripe", "preset": "stripe",
        "provider_event_id": "evt_1QxYz2AbCdEf", "verdict": "verified", "refusal": null,
        "state": "processed", "received_count": 1, "attempts": 1, "last_error": null,
        "headers": {"content-type": "application/json",
            "stripe-signature": "t=1772442928,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd"},
        "body_base64": "eyJpZCI6ImV2dF8xUXhZejJBYkNkRWYiLCJ0eXBlIjoicGF5bWVudF9pbnRlbnQuc3VjY2VlZGVkIn0=",
        "received_at": "2026-03-02T09:15:28.412Z", "last_received_at": "2026-03-02T09:15:28.412Z",
        "processed_at": "2026-03-02T09:15:28.620Z"})
}

fn ledger_entry() -> Value {
    json!({"id": LEDGER, "source_id": SOURCE, "provider": "stripe",
        "event_type": "payment_intent.succeeded", "provider_event_id": "evt_1QxYz2AbCdEf",
        "occurred_at": "2026-03-02T09:15:27Z", "received_at": "2026-03-02T09:15:28.412Z",
        "receipt_id": RECEIPT, "message_id": null, "recipient": null, "status": null,
        "recorded_at": "2026-03-02T09:15:28.620Z"})
}

fn problem() -> Value {
    json!({"type": "urn:relay:problem:unknown_event_type", "title": "Unprocessable Entity",
        "status": 422,
        "detail": "/event_types/0: `order.shipped` is not in the event catalog; create it with PUT /v1/event-types/order.shipped",
        "code": "unknown_event_type",
        "errors": [{"field": "/event_types/0",
            "message": "`order.shipped` is not in the event catalog; create it with PUT /v1/event-types/order.shipped"}]})
}

/// The envelope of the `webhooks` section: the delivery of the story's
/// event to its endpoint, thin (its type names `/id` and `/customer/id`)
/// with the endpoint's allow list (`/total`).
pub(super) fn delivery() -> Value {
    json!({"specversion": "1.0", "id": EVENT, "source": "/consumers/acme-shop",
        "type": "order.paid", "subject": "order/o_1042", "time": PUBLISHED,
        "datacontenttype": "application/json", "seq": 3, "traceparent": TRACEPARENT,
        "environment": "live", "endpointversion": 1,
        "data": {"id": "o_1042", "customer": {"id": "cus_77"}, "total": 4200}})
}

/// The story's event id (`webhook-id` of [`delivery`]).
pub(super) const DELIVERY_ID: &str = EVENT;
