//! The domain model: what Relay stores and what the API returns.
//!
//! These types are the wire shapes of the HTTP API as well (field names are
//! `snake_case`, timestamps RFC 3339). Internal columns such as key hashes or
//! lease owners never appear here, so a value of these types is always safe to
//! return to its owner.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;

use crate::time::Timestamp;

mod attempt;
mod bulk_retry;
mod destination;
mod endpoint;
mod error_kind;
#[cfg(feature = "testing")]
pub mod fixture;
mod warning;
mod workflow_step;
pub use attempt::*;
pub use bulk_retry::BulkRetry;
pub use destination::*;
pub use endpoint::*;
pub use error_kind::{AttemptErrorKind, ErrorKind};
pub use warning::WarningKind;
pub use workflow_step::WorkflowStep;

/// Each tenant has two separate worlds of data: `live` and `test`.
/// An API key belongs to exactly one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Environment {
    Live,
    Test,
}

impl Environment {
    pub const fn as_str(self) -> &'static str {
        match self {
            Environment::Live => "live",
            Environment::Test => "test",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "live" => Some(Environment::Live),
            "test" => Some(Environment::Test),
            _ => None,
        }
    }
}

/// The life of a message (one event for one endpoint).
///
/// `scheduled`, `in_flight`, `held` and `blocked` are live states; every
/// other state is terminal. See `docs/state-machine.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MessageState {
    /// Waiting for `next_attempt_at`.
    Scheduled,
    /// Leased by a worker; an attempt is being made.
    InFlight,
    /// Not attempted for now: the endpoint is paused or disabled, or its circuit is open.
    Held,
    Delivered,
    FailedPermanent,
    Exhausted,
    Expired,
    WindowExceeded,
    DeadLettered,
    Cancelled,
    /// Waits for its turn: its endpoint delivers in order and an earlier
    /// message with the same ordering key has not ended yet
    /// (`docs/delivery.md`, ordered delivery).
    Blocked,
}

impl MessageState {
    pub const ALL: [MessageState; 11] = [
        MessageState::Scheduled,
        MessageState::InFlight,
        MessageState::Held,
        MessageState::Delivered,
        MessageState::FailedPermanent,
        MessageState::Exhausted,
        MessageState::Expired,
        MessageState::WindowExceeded,
        MessageState::DeadLettered,
        MessageState::Cancelled,
        MessageState::Blocked,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            MessageState::Scheduled => "scheduled",
            MessageState::InFlight => "in_flight",
            MessageState::Held => "held",
            MessageState::Delivered => "delivered",
            MessageState::FailedPermanent => "failed_permanent",
            MessageState::Exhausted => "exhausted",
            MessageState::Expired => "expired",
            MessageState::WindowExceeded => "window_exceeded",
            MessageState::DeadLettered => "dead_lettered",
            MessageState::Cancelled => "cancelled",
            MessageState::Blocked => "blocked",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }

    pub const fn is_terminal(self) -> bool {
        !matches!(
            self,
            MessageState::Scheduled
                | MessageState::InFlight
                | MessageState::Held
                | MessageState::Blocked
        )
    }
}

/// What a durable job does. Stored and answered as its name (`bulk_retry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// Restarts the failed messages a filter selects (`POST /v1/messages/retry`).
    BulkRetry,
}

impl JobKind {
    pub const ALL: [JobKind; 1] = [JobKind::BulkRetry];

    pub const fn as_str(self) -> &'static str {
        match self {
            JobKind::BulkRetry => "bulk_retry",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Where a durable job is: `queued` until a worker leases it, `running`
/// while it advances batch by batch (a lapsed lease is taken over), `done`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Queued,
    Running,
    Done,
}

impl JobState {
    pub const ALL: [JobState; 3] = [JobState::Queued, JobState::Running, JobState::Done];

    pub const fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// A tenant of the installation (or a sub-tenant when `parent_id` is set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Tenant {
    /// The tenant's id (`ten_…`).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The parent tenant's id, for a sub-tenant; `null` otherwise.
    pub parent_id: Option<String>,
    /// When the tenant was created.
    pub created_at: Timestamp,
}

/// A tenant API key as listed: never the secret itself, only its visible prefix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApiKey {
    /// The key's id (`key_…`), not the key itself.
    pub id: String,
    /// The tenant the key acts for.
    pub tenant_id: String,
    /// The one environment the key reads and writes.
    pub environment: Environment,
    /// The label given at creation, if any.
    pub name: Option<String>,
    /// The first characters of the key (`rk_live_ab12`), enough to recognise it.
    pub prefix: String,
    /// When the key was created.
    pub created_at: Timestamp,
    /// When the key was revoked; `null` while it is active.
    pub revoked_at: Option<Timestamp>,
}

/// One version of an event type's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EventTypeVersion {
    /// The version's number: 1, then one more for each new version.
    pub version: i64,
    /// The JSON Schema that published payloads must satisfy.
    #[schema(schema_with = json_schema_field)]
    pub schema: serde_json::Value,
    /// A sample payload (valid against `schema`), used by the test action and the portal.
    #[schema(value_type = Option<Object>)]
    pub sample: Option<serde_json::Value>,
    /// Fields always sent, even to a thin endpoint: identifiers a consumer
    /// needs to fetch the rest (JSON Pointers such as `/id`, `/customer/id`).
    /// Never personal data.
    pub thin_fields: Vec<String>,
    /// Fields (field paths such as `/customer/email`) that carry personal
    /// data: an endpoint's allow list takes them only by explicit choice.
    pub personal_data_fields: Vec<String>,
    /// When the version was created.
    pub created_at: Timestamp,
}

/// A catalog event type with all of its schema versions, newest last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct EventType {
    /// The type's name, as events carry it in `type` (`order.paid`).
    pub name: String,
    /// What the type's events mean, for the people who subscribe to them.
    pub description: String,
    /// The environment the type is in; each environment has its own catalog.
    pub environment: Environment,
    /// The version new events are validated against and shaped by.
    pub current_version: i64,
    /// Whom its events published without a `consumer_id` reach:
    /// `addressed` (the default: the tenant's own consumer only) or
    /// `all_consumers` (every subscribed consumer, customers included).
    /// An event published with a `consumer_id` reaches that consumer only,
    /// whatever this says.
    #[serde(default)]
    pub audience: crate::audience::Audience,
    /// Every version of the type's schema, oldest first.
    pub versions: Vec<EventTypeVersion>,
    /// When the type was created.
    pub created_at: Timestamp,
    /// When the type last changed (a new version, a new description).
    pub updated_at: Timestamp,
}

impl EventType {
    pub fn current(&self) -> Option<&EventTypeVersion> {
        self.versions
            .iter()
            .find(|v| v.version == self.current_version)
    }
}

/// Whom a consumer stands for. Relay's operational events (about the
/// tenant's endpoints: `relay_core::operational`) go only to the endpoints
/// of the `tenant` consumer, never to a customer's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConsumerKind {
    /// One of the tenant's customers.
    #[default]
    Customer,
    /// The tenant itself (its own systems); at most one per tenant and environment.
    Tenant,
}

impl ConsumerKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ConsumerKind::Customer => "customer",
            ConsumerKind::Tenant => "tenant",
        }
    }

    pub fn parse(s: &str) -> Option<ConsumerKind> {
        match s {
            "customer" => Some(ConsumerKind::Customer),
            "tenant" => Some(ConsumerKind::Tenant),
            _ => None,
        }
    }
}

/// The party that receives events: the tenant itself or one of its customers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Consumer {
    /// The consumer's id (`con_…`).
    pub id: String,
    /// The tenant's own identifier for this consumer; unique per tenant and environment.
    pub external_id: String,
    /// `tenant` (the tenant itself: the only consumer whose endpoints may
    /// receive operational events) or `customer`; set at creation.
    #[serde(default)]
    pub kind: ConsumerKind,
    /// A display name, if any.
    pub name: Option<String>,
    /// The CloudEvents `source` deliveries to this consumer carry.
    pub source: String,
    /// The environment the consumer is in.
    pub environment: Environment,
    /// When the consumer was created.
    pub created_at: Timestamp,
    /// When the consumer last changed.
    pub updated_at: Timestamp,
}

/// The OpenAPI schema of a field that holds a JSON Schema: an object, or one
/// of the boolean schemas `true` (every payload) and `false` (none).
pub fn json_schema_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::Array(vec![Type::Object, Type::Boolean]))
        .description(Some(
            "The JSON Schema that published payloads must satisfy: an object, \
             or `true` (every payload) or `false` (none).",
        ))
        .build()
}

/// A published event as stored. `data` keeps the exact bytes the tenant sent.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Event {
    /// The event's id: the publisher's own, or `evt_…`. Deliveries carry it
    /// as `webhook-id` and as the CloudEvent's `id`.
    pub id: String,
    /// The event type's name (`order.paid`).
    #[serde(rename = "type")]
    pub event_type: String,
    /// The event type's schema version the payload was validated against.
    pub type_version: i64,
    /// The environment the event was published in.
    pub environment: Environment,
    /// The CloudEvents `subject`: what the event is about (`order/o_1`).
    pub subject: Option<String>,
    /// The payload, exactly as published.
    #[schema(value_type = Object)]
    pub data: Box<RawValue>,
    /// The one consumer the event was published to; `null` when it went to
    /// every consumer its type's audience allows.
    pub consumer_id: Option<String>,
    /// The ordering key given at publish, if any.
    pub ordering_key: Option<String>,
    /// Monotonic per subject within the tenant and environment; absent without a subject.
    pub seq: Option<i64>,
    /// The W3C trace context deliveries continue (`00-<trace>-<span>-<flags>`).
    pub traceparent: String,
    /// When delivery stops being tried (`ttl_seconds` after publish);
    /// `null`: no time limit beyond the retry schedule.
    pub expires_at: Option<Timestamp>,
    /// When the event happened (the CloudEvents `time`): the publish's `time`,
    /// or when Relay accepted it.
    pub time: Timestamp,
    /// When Relay accepted it; retention and replay ranges count from here.
    pub created_at: Timestamp,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.event_type == other.event_type
            && self.type_version == other.type_version
            && self.environment == other.environment
            && self.subject == other.subject
            && self.data.get() == other.data.get()
            && self.consumer_id == other.consumer_id
            && self.ordering_key == other.ordering_key
            && self.seq == other.seq
            && self.traceparent == other.traceparent
            && self.expires_at == other.expires_at
            && self.time == other.time
            && self.created_at == other.created_at
    }
}

/// The job of delivering one event to one endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Message {
    /// The message's id (`msg_…`).
    pub id: String,
    /// The event delivered.
    pub event_id: String,
    /// The endpoint it is delivered to.
    pub endpoint_id: String,
    /// The event's type.
    pub event_type: String,
    /// The environment of the event and the endpoint.
    pub environment: Environment,
    /// The endpoint version the message was produced for, whose settings
    /// shape its payload at every attempt; absent for messages produced
    /// before endpoint versions existed (they carry the event's whole data).
    pub endpoint_version: Option<i64>,
    /// The event type version whose fields (thin, personal data) shaped
    /// the payload its attempts sent: recorded at its first attempt that
    /// sent a shaped payload and kept, whatever versions the type gets
    /// later. Absent before such an attempt, for a message sent whole
    /// (produced before endpoint versions), and for a type without versions.
    pub event_type_version: Option<i64>,
    /// Where the message is in its life (see `MessageState`).
    pub state: MessageState,
    /// The key it keeps its turn by when its endpoint delivers in order
    /// (the event's `ordering_key`, else its `subject`); `null` when the
    /// endpoint did not deliver in order at publish, or the event had
    /// neither.
    #[serde(default)]
    pub ordering_key: Option<String>,
    /// Attempts that counted against the schedule.
    pub attempts_used: i64,
    /// `Retry-After` deferrals used (at most 3).
    pub deferrals_used: i64,
    /// When the next attempt is due; `null` when none is scheduled (held
    /// or in a terminal state).
    pub next_attempt_at: Option<Timestamp>,
    /// The `error_code` of the last failed attempt (`http_503`, `timeout`,
    /// …); `null` before any failure.
    pub last_error_code: Option<String>,
    /// Why a message in a terminal state other than `delivered` ended there.
    pub terminal_reason: Option<String>,
    /// When the message was created (at publish, replay or recovery).
    pub created_at: Timestamp,
    /// When the message last changed.
    pub updated_at: Timestamp,
}

/// One page of a keyset-paginated list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Page<T> {
    /// The items of this page, in the order of the list.
    pub data: Vec<T>,
    /// Pass as `after` to get the next page; `null` on the last page.
    pub next_after: Option<String>,
}
