//! Endpoints: a consumer's delivery address and how to deliver to it, its
//! state, its signature scheme and its versioned payload settings.

use super::*;

/// How deliveries to an endpoint are signed (Standard Webhooks'
/// `webhook-signature`): `v1a`, Ed25519 with a key pair whose public key
/// (`whpk_…`) can be read at any time, or `v1`, HMAC-SHA256 with a shared
/// secret (`whsec_…`) shown once. See `docs/verifying-webhooks.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum SignatureScheme {
    /// Ed25519 (the default).
    #[default]
    V1a,
    /// HMAC-SHA256, for compatibility.
    V1,
}

impl SignatureScheme {
    pub const fn as_str(self) -> &'static str {
        match self {
            SignatureScheme::V1a => "v1a",
            SignatureScheme::V1 => "v1",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "v1a" => Some(SignatureScheme::V1a),
            "v1" => Some(SignatureScheme::V1),
            _ => None,
        }
    }
}

/// Whether an endpoint receives deliveries: `active`; `paused` by the
/// tenant (messages are held, and released on resume); `disabled` by the
/// tenant, by a `410 Gone` answer or after 5 days of continuous failure
/// (`disabled_reason` says which; messages are held until recovered);
/// `unverified`: its receiver has not yet proven that it wants the
/// traffic (the ownership challenge, `docs/security.md`); messages are
/// held and released once it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndpointState {
    /// Deliveries are attempted.
    Active,
    /// Paused by the tenant: new and due messages are held.
    Paused,
    /// Disabled: new and due messages are held; enable, then recover.
    Disabled,
    /// Its receiver has not proven that it wants the traffic: new and due
    /// messages are held, and released when it does.
    Unverified,
}

impl EndpointState {
    pub const fn as_str(self) -> &'static str {
        match self {
            EndpointState::Active => "active",
            EndpointState::Paused => "paused",
            EndpointState::Disabled => "disabled",
            EndpointState::Unverified => "unverified",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "active" => Some(EndpointState::Active),
            "paused" => Some(EndpointState::Paused),
            "disabled" => Some(EndpointState::Disabled),
            "unverified" => Some(EndpointState::Unverified),
            _ => None,
        }
    }

    /// The state a new message for an endpoint in this state starts in.
    pub const fn initial_message_state(self) -> MessageState {
        match self {
            EndpointState::Active => MessageState::Scheduled,
            EndpointState::Paused | EndpointState::Disabled | EndpointState::Unverified => {
                MessageState::Held
            }
        }
    }
}

/// Whether an endpoint's messages keep an order: `none` (the default:
/// every message is attempted as soon as the endpoint's limits allow) or
/// `per_key`: messages with the same ordering key (the event's
/// `ordering_key`, else its `subject`) are attempted one at a time in
/// publish order, each waiting (`blocked`) until the one before it has
/// ended; other keys proceed in parallel. See `docs/delivery.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryOrder {
    /// No order is kept.
    #[default]
    None,
    /// One message at a time per ordering key, in publish order.
    PerKey,
}

impl DeliveryOrder {
    pub const fn as_str(self) -> &'static str {
        match self {
            DeliveryOrder::None => "none",
            DeliveryOrder::PerKey => "per_key",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "none" => Some(DeliveryOrder::None),
            "per_key" => Some(DeliveryOrder::PerKey),
            _ => None,
        }
    }
}

/// A consumer's delivery address and how to deliver to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Endpoint {
    /// The endpoint's id (`ep_…`).
    pub id: String,
    /// The consumer whose endpoint it is; fixed at creation.
    pub consumer_id: String,
    /// The environment it is in (the API key's); fixed at creation.
    pub environment: Environment,
    /// A note for people, if any.
    pub description: Option<String>,
    /// Where its messages go: the destination's `kind` and that kind's settings.
    pub destination: Destination,
    /// Subscribed event types; empty receives nothing; `*` (explicit) receives all.
    pub event_types: Vec<String>,
    /// How its deliveries are signed: set at creation, switched only by a key rotation.
    pub signature_scheme: SignatureScheme,
    /// Waits in seconds before each attempt after the first; `null` uses the default schedule.
    pub retry_schedule_seconds: Option<Vec<u32>>,
    /// Attempts in flight at once for this endpoint, at most.
    pub max_concurrency: u32,
    /// Attempts started per second, at most; `null`: no rate limit.
    pub rate_limit_per_second: Option<u32>,
    /// The snapshot allow list: fields (JSON Pointers) sent beyond the
    /// event type version's thin fields, or `["*"]` for every field. Empty:
    /// thin.
    pub snapshot_fields: Vec<String>,
    /// Whether the snapshot may carry fields the event type marks as
    /// personal data; without it they are never sent.
    pub allow_personal_data: bool,
    /// The event type version that shapes this endpoint's payloads, by
    /// event type. A type not named here is shaped by the version that was
    /// current when the endpoint version started (else its first).
    #[schema(value_type = Object, additional_properties = true)]
    pub event_type_versions: BTreeMap<String, i64>,
    /// The endpoint version: 1 at creation; each change of
    /// `snapshot_fields`, `allow_personal_data` or `event_type_versions`
    /// opens the next. Messages keep the version they were produced for.
    pub version: i64,
    /// When the current version started.
    pub version_started_at: Timestamp,
    /// Whether it receives deliveries now.
    pub state: EndpointState,
    /// Why it is disabled (`disabled_by_tenant`, `endpoint_returned_410`,
    /// `failing_for_5_days`); `null` unless `state` is `disabled`.
    pub disabled_reason: Option<String>,
    /// Whether 5 days of continuous failure disable it.
    pub auto_disable: bool,
    /// Whether its messages keep an order per ordering key (`per_key`) or
    /// none (`none`, the default).
    #[serde(default)]
    pub ordering: DeliveryOrder,
    /// Whether its receiver must prove that it wants the traffic before
    /// the first delivery (an HTTPS endpoint only; the installation may
    /// require it of every one: then this reads `true`). See
    /// `docs/security.md`, "Proof of endpoint ownership".
    #[serde(default)]
    pub verify_ownership: bool,
    /// The origin (`host:port` of its URL) whose receiver must prove
    /// ownership, when it must: set from `verify_ownership` and the URL.
    /// `null` when no proof is owed.
    #[serde(default)]
    pub ownership_origin: Option<String>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// Counts every change of the endpoint (its settings, its state, its
    /// keys), from 1 at creation. Reads answer it as the `ETag`
    /// (`"<revision>"`); `PATCH` with `If-Match` applies only while it is
    /// still the one read.
    #[serde(default = "first_revision")]
    pub revision: i64,
}

fn first_revision() -> i64 {
    1
}

/// One version of an endpoint's payload settings, kept after the next
/// opens: the messages produced for it are shaped by it for life.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EndpointVersion {
    /// The version's number: 1 at creation, then one more per change.
    pub version: i64,
    /// The snapshot allow list of this version (JSON Pointers, or `["*"]`).
    pub snapshot_fields: Vec<String>,
    /// Whether this version may send fields marked as personal data.
    pub allow_personal_data: bool,
    /// The event type version that shapes this version's payloads, by
    /// event type.
    #[schema(value_type = Object, additional_properties = true)]
    pub event_type_versions: BTreeMap<String, i64>,
    /// When this version started.
    pub started_at: Timestamp,
}

impl Endpoint {
    /// The payload settings of its current version.
    pub fn current_version(&self) -> EndpointVersion {
        EndpointVersion {
            version: self.version,
            snapshot_fields: self.snapshot_fields.clone(),
            allow_personal_data: self.allow_personal_data,
            event_type_versions: self.event_type_versions.clone(),
            started_at: self.version_started_at,
        }
    }

    /// Whether `next` changes what this endpoint's payloads hold, so that it
    /// must open a new endpoint version.
    pub fn payload_changed(&self, next: &Endpoint) -> bool {
        self.snapshot_fields != next.snapshot_fields
            || self.allow_personal_data != next.allow_personal_data
            || self.event_type_versions != next.event_type_versions
    }
}
