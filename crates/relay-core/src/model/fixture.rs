//! Test fixtures for the model (the `testing` feature; `relay-store`'s
//! `testing` feature turns it on for every crate's tests): one builder for
//! an [`Endpoint`], so a test names only what matters to it and a new
//! endpoint field is given its test default here, once.
//!
//! ```
//! # use relay_core::model::{fixture, Environment};
//! # use relay_core::time::Timestamp;
//! let e = fixture::endpoint("ep_1", "con_1", Timestamp(0))
//!     .https("https://hooks.example.com/relay")
//!     .event_types(&["order.shipped"])
//!     .environment(Environment::Test)
//!     .build();
//! assert_eq!(e.version, 1);
//! ```

use super::{DeliveryOrder, Destination, Endpoint, EndpointState, Environment, SignatureScheme};
use crate::time::Timestamp;

/// The HTTPS destination tests use by default.
pub const DEFAULT_URL: &str = "https://hooks.example.com/relay";

/// A plain HTTPS destination: `url`, no authentication, no extra headers
/// (the JSON the HTTPS kind writes for it; relay-core names no kind's type).
pub fn https(url: impl Into<String>) -> Destination {
    let url = serde_json::Value::String(url.into());
    Destination::from_json(format!(r#"{{"kind":"https","url":{url},"auth":null}}"#))
        .expect("an object with a kind")
}

/// An endpoint as a test creates it, from [`endpoint`]: `live`, active,
/// version 1 and revision 1 started at `now`, delivering to
/// [`DEFAULT_URL`], subscribed to nothing, signing with
/// [`SignatureScheme::V1a`], every snapshot field (personal data
/// included), concurrency 10, no rate limit, the default retry schedule,
/// automatic disabling on.
#[derive(Debug, Clone)]
#[must_use]
pub struct EndpointBuilder {
    endpoint: Endpoint,
}

/// The builder of an endpoint `id` of consumer `consumer_id` created at `now`.
pub fn endpoint(
    id: impl Into<String>,
    consumer_id: impl Into<String>,
    now: Timestamp,
) -> EndpointBuilder {
    EndpointBuilder {
        endpoint: Endpoint {
            id: id.into(),
            consumer_id: consumer_id.into(),
            environment: Environment::Live,
            description: None,
            destination: https(DEFAULT_URL),
            event_types: Vec::new(),
            signature_scheme: SignatureScheme::V1a,
            retry_schedule_seconds: None,
            max_concurrency: 10,
            rate_limit_per_second: None,
            snapshot_fields: vec!["*".into()],
            allow_personal_data: true,
            event_type_versions: Default::default(),
            version: 1,
            version_started_at: now,
            state: EndpointState::Active,
            disabled_reason: None,
            auto_disable: true,
            ordering: DeliveryOrder::None,
            verify_ownership: false,
            ownership_origin: None,
            created_at: now,
            updated_at: now,
            revision: 1,
        },
    }
}

impl EndpointBuilder {
    /// Delivers in order per ordering key.
    pub fn ordered(mut self) -> Self {
        self.endpoint.ordering = DeliveryOrder::PerKey;
        self
    }
    pub fn environment(mut self, environment: Environment) -> Self {
        self.endpoint.environment = environment;
        self
    }

    pub fn destination(mut self, destination: Destination) -> Self {
        self.endpoint.destination = destination;
        self
    }

    /// A plain HTTPS destination ([`https`]).
    pub fn https(self, url: impl Into<String>) -> Self {
        self.destination(https(url))
    }

    pub fn event_types(mut self, types: &[&str]) -> Self {
        self.endpoint.event_types = types.iter().map(|t| (*t).to_owned()).collect();
        self
    }

    pub fn signature_scheme(mut self, scheme: SignatureScheme) -> Self {
        self.endpoint.signature_scheme = scheme;
        self
    }

    pub fn max_concurrency(mut self, max_concurrency: u32) -> Self {
        self.endpoint.max_concurrency = max_concurrency;
        self
    }

    pub fn state(mut self, state: EndpointState) -> Self {
        self.endpoint.state = state;
        self
    }

    pub fn build(self) -> Endpoint {
        self.endpoint
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_a_new_active_endpoint() {
        let now = Timestamp(1_700_000_000_000);
        let e = endpoint("ep_1", "con_1", now).build();
        assert_eq!((e.id.as_str(), e.consumer_id.as_str()), ("ep_1", "con_1"));
        assert_eq!(e.destination, https(DEFAULT_URL));
        assert_eq!((e.version, e.revision), (1, 1));
        assert_eq!((e.created_at, e.version_started_at), (now, now));
        assert_eq!(e.state, EndpointState::Active);
        assert!(e.event_types.is_empty());
    }

    #[test]
    fn each_setter_sets_its_field_only() {
        let now = Timestamp(0);
        let base = endpoint("ep_1", "con_1", now).build();
        let e = endpoint("ep_1", "con_1", now)
            .environment(Environment::Test)
            .https("https://other.example/")
            .event_types(&["a", "b"])
            .signature_scheme(SignatureScheme::V1)
            .max_concurrency(2)
            .state(EndpointState::Paused)
            .build();
        assert_eq!(
            e,
            Endpoint {
                environment: Environment::Test,
                destination: https("https://other.example/"),
                event_types: vec!["a".into(), "b".into()],
                signature_scheme: SignatureScheme::V1,
                max_concurrency: 2,
                state: EndpointState::Paused,
                ..base
            }
        );
    }
}
