//! The OpenAPI document, generated from the handlers' annotations.
//!
//! Served at `/openapi.json` and committed as `docs/openapi.json`; a test
//! fails when the two drift (`relay openapi > docs/openapi.json` refreshes it).

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::routes::{
    audit, consumers, endpoints, event_types, events, health, messages, recovery, tenants,
};

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
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Relay",
        description = "Durable event delivery: tenants publish events; Relay delivers each one, signed, at least once, to every subscribed endpoint."
    ),
    paths(
        tenants::create, tenants::list, tenants::get, tenants::create_key, tenants::list_keys, tenants::revoke_key,
        event_types::put, event_types::get, event_types::list,
        consumers::create, consumers::list, consumers::get, consumers::update, consumers::delete,
        endpoints::create, endpoints::list, endpoints::get, endpoints::update, endpoints::delete,
        endpoints::signing_keys, endpoints::rotate_key,
        audit::list,
        recovery::pause, recovery::resume, recovery::enable, recovery::disable, recovery::recover,
        recovery::replay,
        recovery::missed, recovery::cancel, recovery::resend, recovery::bulk_retry, recovery::job, recovery::test, health::get,
        events::publish, events::get,
        messages::list, messages::get, messages::attempts,
    ),
    modifiers(&SecuritySchemes)
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
