//! The endpoint API's request and answer bodies: what a create and an
//! update take, an endpoint as answered (with its warnings, literal
//! credentials hidden), and the list's query.

use std::collections::BTreeMap;

use relay_core::model::{DeliveryOrder, Destination, Endpoint, SignatureScheme};
use relay_destinations::Config;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{changes, present};

/// A new endpoint: where one consumer's events go, which ones, and how.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateEndpoint {
    /// The consumer the endpoint belongs to (for life), in the key's environment.
    pub consumer_id: String,
    /// A note for people, at most 500 characters.
    pub description: Option<String>,
    /// Where the endpoint's messages go: a `kind` and that kind's settings,
    /// read by the kind (`HttpsDestination`, `KafkaDestination`, …).
    #[schema(value_type = Destination)]
    pub destination: Config,
    /// Event types to receive (at most 256). Empty receives nothing; `["*"]` receives all (with a warning).
    #[schema(max_items = 256)]
    pub event_types: Vec<String>,
    /// `v1a` (Ed25519, default) or `v1` (HMAC-SHA256).
    pub signature_scheme: Option<SignatureScheme>,
    /// Waits in seconds before attempts 2..n; omitted or `null` uses the default schedule.
    pub retry_schedule_seconds: Option<Vec<u32>>,
    /// Attempts in flight at once for this endpoint (default 10; at most the
    /// operator's `limits.max_endpoint_concurrency`, 100 by default).
    #[schema(minimum = 1)]
    pub max_concurrency: Option<u32>,
    /// Attempts started per second at most, 1 to 100,000; absent: no limit.
    #[schema(minimum = 1, maximum = 100_000)]
    pub rate_limit_per_second: Option<u32>,
    /// The snapshot allow list: fields (JSON Pointers such as
    /// `/customer/id`; through an array they apply to each element) sent
    /// beyond each event type version's thin fields, or `["*"]` for every
    /// field (with a warning). Empty (the default): thin events.
    #[serde(default)]
    pub snapshot_fields: Vec<String>,
    /// Send fields the event types mark as personal data when the snapshot
    /// names them (with a warning). Default false: such a list is refused,
    /// and personal data is never sent.
    #[serde(default)]
    pub allow_personal_data: bool,
    /// Pins: the event type version that shapes this endpoint's payloads,
    /// by event type. A type not pinned takes the version current when the
    /// endpoint version starts.
    #[serde(default)]
    #[schema(value_type = Object, additional_properties = true)]
    pub event_type_versions: BTreeMap<String, i64>,
    /// Disable automatically after 5 days of continuous failure (default true).
    pub auto_disable: Option<bool>,
    /// `per_key`: messages with the same ordering key (the event's
    /// `ordering_key`, else its `subject`) are attempted one at a time in
    /// publish order; `none` (the default): no order is kept.
    pub ordering: Option<DeliveryOrder>,
    /// Hold deliveries until the receiver proves that it wants the traffic
    /// (an ownership challenge answered; HTTPS endpoints only). Default
    /// false, unless the installation requires it of every endpoint.
    pub verify_ownership: Option<bool>,
}

/// Changes to an endpoint; absent fields stay as they are. A `destination`
/// replaces the whole destination: credentials it does not restate are
/// dropped (with a warning when the host changes).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateEndpoint {
    /// A note for people (at most 500 characters), or `null` to clear it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    /// A new destination, replacing the whole of the current one (its
    /// `kind` may change).
    #[schema(value_type = Option<Destination>)]
    pub destination: Option<Config>,
    /// At most 256.
    #[schema(max_items = 256)]
    pub event_types: Option<Vec<String>>,
    /// A list, or `null` to go back to the default schedule.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Vec<u32>>)]
    pub retry_schedule_seconds: Option<Option<Vec<u32>>>,
    /// Attempts in flight at once, 1 to the operator's limit.
    #[schema(minimum = 1)]
    pub max_concurrency: Option<u32>,
    /// Attempts started per second at most (1 to 100,000), or `null` for no limit.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 100_000)]
    pub rate_limit_per_second: Option<Option<u32>>,
    /// A new allow list opens a new endpoint version.
    pub snapshot_fields: Option<Vec<String>>,
    /// A change opens a new endpoint version.
    pub allow_personal_data: Option<bool>,
    /// New pins open a new endpoint version (which also takes, for every
    /// type not pinned, the version current then).
    #[schema(value_type = Option<Object>, additional_properties = true)]
    pub event_type_versions: Option<BTreeMap<String, i64>>,
    /// Whether 5 days of continuous failure disable the endpoint.
    pub auto_disable: Option<bool>,
    /// `per_key` or `none`; applies to the messages published after the
    /// change (those published before keep the order they were given).
    pub ordering: Option<DeliveryOrder>,
    /// Whether the receiver must prove ownership before deliveries (HTTPS
    /// endpoints only; the installation may require it regardless). A
    /// destination moved to an origin not proven holds its messages.
    pub verify_ownership: Option<bool>,
    // Immutable: named here so the error can say so instead of "unknown field".
    // `present` makes even `null` count as an attempt to change them.
    #[serde(default, deserialize_with = "present")]
    #[schema(ignore)]
    pub environment: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    #[schema(ignore)]
    pub consumer_id: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    #[schema(ignore)]
    pub signature_scheme: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    #[schema(ignore)]
    pub id: Option<IgnoredAny>,
}

/// An endpoint with the warnings its configuration deserves. A literal
/// credential header stored before those were refused is answered as
/// `[redacted]`, never its value.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(into = "Shown")]
pub struct EndpointOut {
    #[serde(flatten)]
    pub endpoint: Endpoint,
    /// What deserves a second look in its configuration (a wildcard or an
    /// empty subscription, personal data sent, a destination that cannot
    /// carry the largest payload, …); empty when nothing does.
    pub warnings: Vec<String>,
}

/// [`EndpointOut`] as answered.
#[derive(Serialize)]
struct Shown {
    #[serde(flatten)]
    endpoint: Endpoint,
    warnings: Vec<String>,
}

impl From<EndpointOut> for Shown {
    fn from(mut out: EndpointOut) -> Shown {
        // Shown as its kind writes it, literal credentials hidden (one
        // that does not read is shown as stored).
        if let Some(mut config) = changes::config(&out.endpoint.destination) {
            relay_destinations::redact(&mut config);
            out.endpoint.destination = config.into();
        }
        Shown {
            endpoint: out.endpoint,
            warnings: out.warnings,
        }
    }
}

/// The create response: for `v1` it carries the HMAC secret, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointCreated {
    #[serde(flatten)]
    pub endpoint: EndpointOut,
    /// `whsec_…` for `signature_scheme = "v1"`; never shown again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// `whpk_…` for `v1a`: verify deliveries with it (always readable later too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EndpointQuery {
    /// Only this consumer's endpoints.
    pub consumer_id: Option<String>,
    /// Page size, 1 to 250 (default 50).
    #[param(minimum = 1, maximum = 250)]
    pub limit: Option<u32>,
    /// The `next_after` of the previous page.
    pub after: Option<String>,
}
