//! The document's `webhooks` section (OpenAPI 3.1): what Relay sends to an
//! HTTPS endpoint, for the people who write the receiving service and for
//! the clients generated from the document. One operation, `message`: the
//! signed `POST` (Standard Webhooks headers, `docs/verifying-webhooks.md`),
//! its CloudEvents body (the `CloudEvent` component, `relay_core::envelope`;
//! thin or snapshot `data`, `docs/payloads.md`) and what Relay makes of each
//! answer (`relay-destinations/src/https/classify.rs`).
//!
//! utoipa has no derive for a webhook; the operation is written here as the
//! JSON it is and read into utoipa's types, so the document holds it like
//! any path.

use serde_json::{Value, json};
use utoipa::Modify;
use utoipa::openapi::path::PathItem;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType};
use utoipa::openapi::{OpenApi, RefOr};

use super::examples::{DELIVERY_ID, SIGNATURE, delivery};

/// Adds `webhooks.message` and the `CloudEvent` schema it sends.
pub(super) struct Webhooks;

impl Modify for Webhooks {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut envelope: Schema =
            serde_json::from_value(cloud_event()).expect("the CloudEvent schema is a schema");
        // Any JSON value: a schema without a `type`, which utoipa reads from
        // no JSON, so it is built.
        if let Schema::Object(envelope) = &mut envelope {
            let data = ObjectBuilder::new()
                .schema_type(SchemaType::AnyValue)
                .description(Some(DATA));
            envelope.properties.insert("data".to_string(), data.into());
        }
        components
            .schemas
            .insert("CloudEvent".to_string(), RefOr::T(envelope));
        let item: PathItem = serde_json::from_value(message()).expect("the webhook is a path item");
        let mut webhooks = openapi.webhooks.take().unwrap_or_default();
        webhooks.paths.insert("message".to_string(), item);
        openapi.webhooks = Some(webhooks);
    }
}

const DESCRIPTION: &str = "\
Relay delivers each event, at least once, to every HTTPS endpoint subscribed \
to its type, as a signed `POST` of a CloudEvents 1.0 structured-mode JSON \
body (`content-type: application/cloudevents+json`) to the endpoint's URL. \
Redirects are never followed.

**Verify before you parse.** The request carries the Standard Webhooks \
headers `webhook-id`, `webhook-timestamp` and `webhook-signature`. The \
signature covers the bytes `{webhook-id}.{webhook-timestamp}.{raw body}`: \
verify it over the raw body, before any JSON parsing (parsing and \
re-serializing changes the bytes), reject a `webhook-timestamp` more than 5 \
minutes from your clock, and keep each accepted `webhook-id` for at least 96 \
hours to drop duplicates. The verifier SDKs (Rust `relay-verify`, Python \
`relay_verify`, TypeScript `@relay/sdk`) do all of it; \
`docs/verifying-webhooks.md` tells how by hand. `relay-event-type`, \
`relay-attempt` and `traceparent` are not signed: no decision may rest on \
them.

**The body** is the event's envelope (`CloudEvent`). Its `data` is what the \
endpoint chose to receive: the fields the event type version marks as thin \
(identifiers), plus the endpoint's snapshot allow list, never a field marked \
as personal data unless the endpoint allows it; `dataschema` is present only \
when `data` is the event's whole payload. The whole event is one call \
away for whoever holds the tenant's API key: `GET /v1/events/{id}` (the \
body's `id`).

**The answer** decides what Relay does next: a `2xx` delivers the message \
(answer fast; do slow work afterwards). Anything else is retried on the \
endpoint's schedule (by default 10 attempts over about 76 hours, same \
`webhook-id`, a new timestamp and signature each time), except as the \
answers below say. An attempt that gets no answer within the operator's \
request timeout (20 s by default) is retried too. Other headers the tenant \
configured (its own, an `Authorization` from a secret or an OAuth 2.0 \
client) come with every request.";

fn header(name: &str, description: &str, example: &str, schema: Value, required: bool) -> Value {
    json!({"name": name, "in": "header", "required": required, "description": description,
        "schema": schema, "example": example})
}

fn message() -> Value {
    json!({"post": {
        "operationId": "webhooks.message",
        "tags": ["webhooks"],
        "summary": "Receive an event from Relay",
        "description": DESCRIPTION,
        "parameters": [
            header("webhook-id",
                "The event's id, equal to the body's `id`: the same on every attempt (and on \
                 every endpoint that receives the event). Deduplicate by it.",
                DELIVERY_ID, json!({"type": "string", "minLength": 1, "maxLength": 255}), true),
            header("webhook-timestamp",
                "When this attempt was signed, in unix seconds (ASCII digits); new on every \
                 attempt. Reject one more than 5 minutes from your clock, either way.",
                "1772442927", json!({"type": "string", "pattern": "^[0-9]+$"}), true),
            header("webhook-signature",
                "One or more `<version>,<base64 signature>` entries separated by single \
                 spaces, each over `{webhook-id}.{webhook-timestamp}.{raw body}` in standard \
                 base64 with padding: `v1a`, Ed25519, verified with the endpoint's public key \
                 (`whpk_…`, `GET /v1/endpoints/{id}/signing-keys`); `v1`, HMAC-SHA256 keyed \
                 with the endpoint's secret (`whsec_…`, shown once). During a key rotation's \
                 overlap two entries, the new key's first. Accept the request when any entry \
                 verifies with any of your keys; skip entries of an unknown version.",
                SIGNATURE,
                json!({"type": "string", "pattern": "^v1a?,[A-Za-z0-9+/]+={0,2}( v1a?,[A-Za-z0-9+/]+={0,2})*$"}),
                true),
            header("relay-event-type", "The event's type, as the body's `type` (not signed).",
                "order.paid", json!({"type": "string"}), true),
            header("relay-attempt",
                "This attempt's number for the message, from 1 (not signed).",
                "1", json!({"type": "string", "pattern": "^[1-9][0-9]*$"}), true),
            header("traceparent",
                "W3C trace context of the delivery, as the body's `traceparent` (not signed).",
                "00-e403e781d36dfa1c10d8c8018f59acee-ddda179542cafa4e-01",
                json!({"type": "string"}), false),
        ],
        "requestBody": {
            "required": true,
            "description": "The event's CloudEvents envelope, byte for byte as signed.",
            "content": {"application/cloudevents+json": {
                "schema": {"$ref": "#/components/schemas/CloudEvent"}}},
        },
        "responses": {
            "2XX": {"description": "Delivered: the message ends `delivered`; any body is \
                ignored (its first 8 kB are kept in the attempt's record). Answer a duplicate \
                `webhook-id` with a 2xx too, so Relay stops retrying."},
            "3XX": {"description": "Not followed: the message fails permanently \
                (`redirect_not_followed`) and the endpoint gets a health warning."},
            "401": {"description": "Retried: the right answer when verification fails, as \
                the cause may be on your side (a new key not yet deployed, a skewed clock). \
                So are 407 and 409."},
            "410": {"description": "Gone: the message fails permanently and Relay disables \
                the endpoint at once (`endpoint_returned_410`)."},
            "429": {"description": "Retried; with `Retry-After` (seconds or an HTTP date) the \
                next attempt waits for it and, three times per message, uses no attempt of the \
                schedule. So does 503.",
                "headers": {"Retry-After": {
                    "description": "When to try again: delay-seconds or an HTTP date.",
                    "schema": {"type": "string"}}}},
            "4XX": {"description": "Another 4xx: the message fails permanently \
                (`rejected_by_endpoint`); it can be resent or recovered later.",
                "headers": {"webhook-delivery": {
                    "description": "`abort-message` on any answer but a 2xx or 410: do not \
                        retry this message (`aborted_by_consumer`).",
                    "schema": {"type": "string", "enum": ["abort-message"]}}}},
            "5XX": {"description": "Retried on the schedule (503 with `Retry-After` as 429)."},
        },
    }})
}

const DATA: &str = "The payload the endpoint receives, JSON: the event type version's \
thin fields and the endpoint's snapshot allow list (the whole payload when the version names \
no thin fields), personal data removed unless the endpoint allows it.";

fn cloud_event() -> Value {
    json!({
        "description": "One event as Relay delivers it: a CloudEvents 1.0 JSON document \
            (structured content mode), attributes in this order, an attribute without a value \
            left out (never `null`), `data` copied byte for byte. Brokers, queues and object \
            stores receive the same envelope (or, in binary content mode, its attributes \
            beside `data`).",
        "type": "object",
        "required": ["specversion", "id", "source", "type", "time"],
        "properties": {
            "specversion": {"type": "string", "enum": ["1.0"],
                "description": "The CloudEvents version: `1.0`."},
            "id": {"type": "string", "minLength": 1,
                "description": "The event's id, equal to `webhook-id`: the publisher's own or \
                    `evt_…`."},
            "source": {"type": "string", "format": "uri-reference", "maxLength": 512,
                "description": "The consumer's `source` (default `/consumers/<external_id>`); \
                    never an internal id."},
            "type": {"type": "string", "minLength": 1,
                "description": "The event type (`order.paid`)."},
            "subject": {"type": "string", "minLength": 1, "maxLength": 1024,
                "description": "What the event is about, when the publisher said."},
            "time": {"type": "string", "format": "date-time",
                "description": "When the event happened, RFC 3339 in UTC with milliseconds."},
            "datacontenttype": {"type": "string", "enum": ["application/json"],
                "description": "`application/json`, present exactly when `data` is."},
            "dataschema": {"type": "string", "format": "uri",
                "description": "The event type version `data` satisfies \
                    (`urn:relay:event-type:<type>:v<version>`), present only when `data` is the \
                    event's whole payload; a projection names none."},
            "seq": {"type": ["integer", "string"],
                "description": "Monotonic per subject within the tenant and environment, \
                    present with a subject: an integer, or its decimal string beyond 32 bits."},
            "traceparent": {"type": "string",
                "description": "W3C trace context (version 00) of the event's trace."},
            "environment": {"type": "string", "enum": ["live", "test"],
                "description": "The environment the event was published in."},
            "endpointversion": {"type": ["integer", "string"],
                "description": "The endpoint version whose payload settings shaped `data` \
                    (`GET /v1/endpoints/{id}/versions`)."},
        },
        "examples": [delivery()],
    })
}
