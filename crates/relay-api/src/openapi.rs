//! The OpenAPI document, generated from the handlers' annotations.
//!
//! Served at `/openapi.json` and committed as `docs/openapi.json`; a test
//! fails when the two drift (`relay openapi > docs/openapi.json` refreshes it).
//!
//! The handlers' annotations declare what is particular to each operation:
//! its path and query parameters, its body, its success answers and the
//! refusals only it makes (`409`, a `404` for its resource). The answers that
//! every operation of a kind can give (`400`, `401`, `403`, `404`, `413`,
//! `422`, `500`, each where it applies) are added here, by `CommonResponses`,
//! so that a new handler cannot forget them. Every problem answer is declared
//! as `application/problem+json`.
//!
//! The document is the API's, for callers with a token: the URL a provider
//! posts inbound webhooks to (`POST /inbound/{token}`, authenticated by the
//! provider's signature) is described in `docs/inbound.md` instead. What
//! Relay sends to an endpoint is its `webhooks` section ([`webhooks`]).
//!
//! Each operation's summary and description are its handler's doc comment
//! (the first paragraph the summary), its `operationId` reads as a client's
//! call (`events.publish`); each schema and field is described by its
//! type's doc comments, and carries an example ([`examples`]).
//! `tests/openapi_lint.rs` holds all of it.

use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::request_body::RequestBody;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{ArrayItems, Schema};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, Ref, RefOr, Required};
use utoipa::{Modify, OpenApi};

use crate::routes::{
    audit, consumers, endpoints, event_types, events, health, inbound, messages, portal,
    portal_tokens, recovery, secrets, system_events, tenants, workflow_steps,
};

mod examples;
mod webhooks;
use examples::Examples;
use webhooks::Webhooks;

/// `Destination`'s schema: the `oneOf` of the kinds' configurations with a
/// `discriminator` on `kind`, and one component per kind
/// (`relay_destinations::components`), in place of relay-core's generic
/// one (relay-core names no kind).
struct DestinationSchema;

impl Modify for DestinationSchema {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.schemas.extend(relay_destinations::components());
    }
}

/// The tag of a tagged enum's member (`Circuit`'s `state`: a property of
/// one value), which the derive leaves undescribed, is described as what it
/// is.
struct DescribeTags;

impl Modify for DescribeTags {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for schema in components.schemas.values_mut() {
            let RefOr::T(Schema::OneOf(one_of)) = schema else {
                continue;
            };
            for member in one_of.items.iter_mut() {
                let RefOr::T(Schema::Object(member)) = member else {
                    continue;
                };
                for (name, property) in member.properties.iter_mut() {
                    if let RefOr::T(Schema::Object(tag)) = property
                        && tag.description.is_none()
                        && let Some([serde_json::Value::String(value)]) = tag.enum_values.as_deref()
                    {
                        tag.description = Some(format!("`{value}`: this member's `{name}`."));
                    }
                }
            }
        }
    }
}

/// A page's items by reference: the derive writes `Page<T>`'s `data` items
/// as a copy of `T`'s schema, which a client generator turns into a second
/// type; when the copy is `T`'s component, it is replaced by a `$ref` to it.
struct PageItemsByReference;

impl Modify for PageItemsByReference {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let json = |s: &RefOr<Schema>| serde_json::to_value(s).ok();
        let items: Vec<(String, String)> = components
            .schemas
            .iter()
            .filter_map(|(name, page)| {
                let item = name.strip_prefix("Page_")?;
                let RefOr::T(Schema::Object(page)) = page else {
                    return None;
                };
                let Some(RefOr::T(Schema::Array(data))) = page.properties.get("data") else {
                    return None;
                };
                let ArrayItems::RefOrSchema(copy) = &data.items else {
                    return None;
                };
                let component = components.schemas.get(item)?;
                (json(copy) == json(component)).then(|| (name.clone(), item.to_string()))
            })
            .collect();
        for (page, item) in items {
            if let Some(RefOr::T(Schema::Object(page))) = components.schemas.get_mut(&page)
                && let Some(RefOr::T(Schema::Array(data))) = page.properties.get_mut("data")
            {
                data.items =
                    ArrayItems::RefOrSchema(Box::new(RefOr::Ref(Ref::from_schema_name(item))));
            }
        }
    }
}

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let bearer = |description: &str| {
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(description.to_string()))
                    .build(),
            )
        };
        components.add_security_scheme(
            "operator_token",
            bearer("The installation's operator token: manages tenants and their API keys."),
        );
        components.add_security_scheme(
            "api_key",
            bearer("A tenant API key (rk_live_… or rk_test_…): one tenant, one environment."),
        );
        components.add_security_scheme(
            "portal_token",
            bearer("A portal token (rpt_…): one consumer of one tenant, for minutes to hours."),
        );
    }
}

/// The media type of every error answer (RFC 9457).
pub const PROBLEM_JSON: &str = "application/problem+json";

/// The problem answers that every operation of a kind can give, declared
/// once in `components.responses` and referenced by each operation they
/// apply to (see [`applies`]).
const COMMON: [(u16, &str, &str); 7] = [
    (
        400,
        "BadRequest",
        "Bad request: malformed JSON (`malformed_json`), an unreadable body, an invalid \
         query parameter (`invalid_query`) or a path segment that is not valid UTF-8.",
    ),
    (
        401,
        "Unauthorized",
        "No token, or an unknown or revoked one (`unauthorized`).",
    ),
    (
        403,
        "Forbidden",
        "A valid token of the wrong kind: a tenant API key on an operator route, or the \
         operator token on a tenant route (`forbidden`).",
    ),
    (404, "NotFound", "No such object (`not_found`)."),
    (
        413,
        "PayloadTooLarge",
        "The body is larger than the operator's `max_request_bytes` (`payload_too_large`).",
    ),
    (
        422,
        "UnprocessableContent",
        "The body is JSON of the wrong shape (`validation_failed`, naming the fields), \
         or a value is refused (the operation's own codes).",
    ),
    (
        500,
        "InternalError",
        "An internal error (`internal_error`); it is logged, the answer shows no internals.",
    ),
];

/// Adds the common problem answers to every operation they apply to, and
/// declares every problem answer as `application/problem+json`.
struct CommonResponses;

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
            ];
            for operation in operations.into_iter().flatten() {
                complete_operation(path, operation);
            }
        }
        let components = openapi.components.get_or_insert_with(Default::default);
        for (_, name, description) in COMMON {
            components
                .responses
                .insert(name.to_string(), RefOr::T(problem_response(description)));
        }
    }
}

/// Whether the common answer `status` applies to an operation:
/// - `400`: to one that takes a body, query parameters or path parameters;
/// - `401`, `403`: to one that needs a token;
/// - `404`: to one with an id in its path;
/// - `413`, `422`: to one that takes a body;
/// - `500`: to every one.
fn applies(status: u16, path: &str, operation: &Operation) -> bool {
    let has_path_params = path.contains('{');
    let has_query = operation.parameters.iter().flatten().any(|p| match p {
        RefOr::T(p) => p.parameter_in == ParameterIn::Query,
        RefOr::Ref(_) => true,
    });
    let has_body = operation.request_body.is_some();
    match status {
        400 => has_path_params || has_query || has_body,
        401 | 403 => operation.security.as_ref().is_some_and(|s| !s.is_empty()),
        404 => has_path_params,
        413 | 422 => has_body,
        _ => true,
    }
}

/// Completes one operation: the common answers that apply and are missing
/// are referenced (an annotation's own answer with a description of its own
/// is kept: it says more), every other error answer is made a problem, and
/// every answer gets a description.
fn complete_operation(path: &str, operation: &mut Operation) {
    if let Some(RefOr::T(body)) = &mut operation.request_body {
        optional_body_is_absent_not_null(body);
    }
    let applicable: Vec<_> = COMMON
        .iter()
        .filter(|(status, _, _)| applies(*status, path, operation))
        .collect();
    let responses = &mut operation.responses.responses;
    for (status, name, _) in applicable {
        let common = || RefOr::Ref(Ref::from_response_name(*name));
        match responses.get_mut(&status.to_string()) {
            None => {
                responses.insert(status.to_string(), common());
            }
            Some(response @ RefOr::T(_)) => {
                if matches!(response, RefOr::T(r) if r.description.is_empty()) {
                    *response = common();
                }
            }
            Some(RefOr::Ref(_)) => {}
        }
    }
    for (status, response) in responses.iter_mut() {
        let RefOr::T(response) = response else {
            continue;
        };
        if status.starts_with('4') || status.starts_with('5') {
            as_problem(response);
        }
        // OpenAPI requires a description; an annotation that gives none gets
        // the status's reason phrase.
        if response.description.is_empty() {
            response.description = status
                .parse::<u16>()
                .ok()
                .and_then(|s| axum::http::StatusCode::from_u16(s).ok())
                .and_then(|s| s.canonical_reason())
                .unwrap_or("Answer")
                .to_string();
        }
    }
}

/// utoipa writes the schema of a body annotated `Option<T>` (not required,
/// see `extract::OptionalJsonBody`) as `oneOf: [T, null]`. Such a body may be
/// absent (empty); JSON `null` is refused like any other value that is not a
/// `T`, so the schema is `T`.
fn optional_body_is_absent_not_null(body: &mut RequestBody) {
    if body.required == Some(Required::True) {
        return;
    }
    let null = serde_json::json!({"type": "null"});
    for content in body.content.values_mut() {
        let RefOr::T(content) = content else { continue };
        let Some(RefOr::T(Schema::OneOf(one_of))) = &content.schema else {
            continue;
        };
        let is_null = |s: &RefOr<Schema>| serde_json::to_value(s).is_ok_and(|v| v == null);
        if one_of.items.len() == 2 && one_of.items.iter().any(is_null) {
            let schema = one_of.items.iter().find(|s| !is_null(s)).cloned();
            content.schema = schema;
        }
    }
}

fn problem_schema() -> Content {
    Content::new(Some(Ref::from_schema_name("Problem")))
}

fn problem_response(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(PROBLEM_JSON, problem_schema())
        .build()
}

/// An error answer is a problem: its body is declared as `Problem` in
/// `application/problem+json`, whatever the annotation wrote.
fn as_problem(response: &mut Response) {
    response.content.shift_remove("application/json");
    response
        .content
        .entry(PROBLEM_JSON.to_string())
        .or_insert_with(|| RefOr::T(problem_schema()));
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Relay",
        description = "Durable event delivery: tenants publish events; Relay delivers each one, signed, at least once, to every subscribed endpoint."
    ),
    paths(
        tenants::create, tenants::list, tenants::get, tenants::create_key, tenants::list_keys, tenants::revoke_key,
        system_events::publish,
        event_types::put, event_types::get, event_types::list,
        consumers::create, consumers::list, consumers::get, consumers::update, consumers::delete,
        endpoints::create, endpoints::list, endpoints::get, endpoints::update, endpoints::delete,
        endpoints::signing_keys, endpoints::rotate_key, endpoints::payload::versions,
        endpoints::aws::external_id,
        endpoints::ownership::verify,
        audit::list,
        recovery::pause, recovery::resume, recovery::enable, recovery::disable, recovery::recover,
        recovery::replay,
        recovery::missed, recovery::cancel, recovery::resend, recovery::bulk_retry, recovery::job, recovery::test, health::get,
        events::publish, events::get,
        messages::list, messages::get, messages::attempts,
        workflow_steps::create, workflow_steps::get,
        portal_tokens::create, portal_tokens::get, portal_tokens::revoke, portal_tokens::revoke_all,
        portal_tokens::put_brand, portal_tokens::get_brand,
        portal::session, portal::event_types, portal::list_endpoints, portal::create_endpoint,
        portal::get_endpoint, portal::update_endpoint, portal::delete_endpoint,
        portal::disable_endpoint, portal::enable_endpoint, portal::signing_keys, portal::rotate_key,
        portal::endpoint_health, portal::send_test, portal::recover, portal::failed,
        portal::delivery_log, portal::get_message, portal::attempts, portal::resend,
        inbound::create, inbound::list, inbound::get, inbound::update, inbound::delete,
        inbound::rotate_secret, inbound::list_receipts, inbound::get_receipt, inbound::reprocess,
        inbound::ledger,
        secrets::put, secrets::list, secrets::get, secrets::delete,
    ),
    tags(
        (name = "tenants", description = "The operator's: tenants, their API keys, and Relay's system events published for them. Operator token."),
        (name = "event-types", description = "The event catalog: event types with versioned JSON Schemas, thin fields, personal data fields and audience."),
        (name = "consumers", description = "The parties that receive events: the tenant itself (kind `tenant`) and its customers."),
        (name = "endpoints", description = "Where a consumer's events are delivered, how they are signed, their payload versions and health."),
        (name = "events", description = "Publishing events and reading them back with their messages."),
        (name = "messages", description = "Messages (one event for one endpoint) and their delivery attempts: the delivery log."),
        (name = "workflow-steps", description = "A workflow engine's steps: one event delivered to one registered endpoint, idempotent by the step's key, of which only the outcome is told (state, status code, attempts), never the receiver's answer."),
        (name = "recovery", description = "Delivery control and recovery: pause, resume, disable, enable, recover, replay, the missed list, cancel, resend, test sends, bulk retry and its job."),
        (name = "audit", description = "Who did what to which object, and when."),
        (name = "portal-tokens", description = "The tenant's side of the embeddable portal: portal tokens and the portal's brand."),
        (name = "portal", description = "The portal's API, for one consumer, with a portal token: its endpoints, keys, health, delivery log, tests and recovery, as the token's capabilities allow."),
        (name = "inbound", description = "Webhooks Relay receives from providers: sources, receipts and the ledger of verified provider events."),
        (name = "secrets", description = "Tenant secrets: write-only credentials that destinations and inbound sources name as `secret:<name>`."),
        (name = "webhooks", description = "What Relay sends to an HTTPS endpoint: the signed delivery and the answers it expects."),
    ),
    modifiers(&DestinationSchema, &SecuritySchemes, &CommonResponses, &DescribeTags,
        &PageItemsByReference, &Examples, &Webhooks)
)]
pub struct ApiDoc;

/// The OpenAPI document as JSON.
pub fn document() -> serde_json::Value {
    serde_json::to_value(ApiDoc::openapi()).unwrap_or(serde_json::Value::Null)
}

/// The document as committed in `docs/openapi.json` (pretty, newline-terminated).
pub fn document_text() -> String {
    let mut s = serde_json::to_string_pretty(&document()).unwrap_or_default();
    s.push('\n');
    s
}
