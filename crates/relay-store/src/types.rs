//! The values the store takes and gives beyond `relay-core`'s model: scopes,
//! new objects, claims and completions, jobs, audit entries, health facts.

use relay_core::model::SignatureScheme;
use relay_core::model::{ApiKey, Attempt, Endpoint, Environment, Event, Message, MessageState};
use relay_core::time::Timestamp;
use relay_core::transition::Progress;
use serde_json::value::RawValue;

/// The slice of data an API key may see: one tenant, one environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub tenant_id: String,
    pub environment: Environment,
}

/// A new API key as stored: the hash of the secret, never the secret.
#[derive(Debug, Clone)]
pub struct NewApiKey {
    pub id: String,
    pub tenant_id: String,
    pub environment: Environment,
    pub name: Option<String>,
    pub prefix: String,
    pub key_hash: String,
    pub created_at: Timestamp,
}

/// An API key found by its hash, with what it grants.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiKeyGrant {
    pub key: ApiKey,
}

/// `PUT /v1/event-types/{name}`: a changed schema or changed thin fields open
/// a new version (what a pinned endpoint receives never changes); otherwise
/// the current version's sample and personal-data fields are updated in place.
#[derive(Debug, Clone)]
pub struct PutEventType {
    pub name: String,
    pub description: String,
    pub schema: serde_json::Value,
    pub sample: Option<serde_json::Value>,
    pub thin_fields: Vec<String>,
    pub personal_data_fields: Vec<String>,
    /// The type's audience (`relay_core::audience`); set on every `PUT`,
    /// never versioned.
    pub audience: relay_core::audience::Audience,
    pub now: Timestamp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutEventTypeOutcome {
    Created,
    NewVersion,
    Updated,
}

/// Operator limits checked atomically with an endpoint's creation.
#[derive(Debug, Clone, Copy)]
pub struct EndpointLimits {
    pub per_tenant: u32,
    pub per_consumer: u32,
}

/// A consumer's changeable fields; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct ConsumerPatch {
    pub name: Option<Option<String>>,
    pub source: Option<String>,
}

/// An event to publish. `id` is the client's (idempotent) or a generated one.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub id: String,
    pub event_type: String,
    pub type_version: i64,
    pub subject: Option<String>,
    pub data: Box<RawValue>,
    pub consumer_id: Option<String>,
    pub ordering_key: Option<String>,
    pub traceparent: String,
    pub expires_at: Option<Timestamp>,
    /// When the event happened (its CloudEvents `time`); usually `now`.
    pub time: Timestamp,
    pub now: Timestamp,
}

#[derive(Debug, Clone)]
pub struct PublishOutcome {
    pub event: Event,
    /// Messages this publish created (0 for a duplicate).
    pub messages_created: u64,
    /// True when an event with this id already existed; nothing was created.
    pub duplicate: bool,
    /// Of `messages_created`, those leased at publish to this process's
    /// dispatcher (see [`Intake`]): nobody needs waking for them.
    pub messages_leased: u64,
}

/// The dispatcher of the publishing process, taking new messages as they are
/// written ("lease at publish"). A message whose endpoint's lane has room is
/// inserted already leased to [`Intake::owner`] and handed over after the
/// publish commits, so it skips the claim: its update, its reads and a
/// writer transaction. A hand-over that is lost (the process stops) is a
/// lease that expires and is rescued, as for any claim.
pub trait Intake: Send + Sync {
    /// The lease owner messages taken at publish get.
    fn owner(&self) -> &str;
    /// How long their lease lasts, in milliseconds.
    fn lease_millis(&self) -> i64;
    /// Room for one more new message of `endpoint` at `now`: a reservation
    /// (released when dropped), or `None` and the message is scheduled.
    /// A reservation `behind` a backlog leases the endpoint's oldest due
    /// message instead of the new one.
    fn reserve(&self, endpoint: &IntakeEndpoint<'_>, now: Timestamp) -> Option<Reserved>;
    /// Messages leased at publish, after their publish committed, each with
    /// its reservation.
    fn take(&self, leased: Vec<(Reserved, Claimed)>);
}

/// What [`Intake::reserve`] is told of the endpoint (as the publish read it).
#[derive(Debug, Clone, Copy)]
pub struct IntakeEndpoint<'a> {
    pub id: &'a str,
    pub max_concurrency: u32,
    pub rate_limited: bool,
}

/// An [`Intake`]'s reservation of room for one message; whatever it holds is
/// released when it is dropped without being taken.
pub struct Reserved {
    /// The endpoint has older live messages scheduled (a backlog): the
    /// publish leases the oldest due of them instead, in due order (the new
    /// message among them), so nothing overtakes the backlog and it drains
    /// at the pace of the publishes, without claims.
    pub behind: bool,
    pub hold: Box<dyn std::any::Any + Send + Sync>,
}

impl std::fmt::Debug for Reserved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reserved")
    }
}

/// Filters for listing messages; every field narrows the result.
#[derive(Debug, Clone, Default)]
pub struct MessageFilter {
    pub endpoint_id: Option<String>,
    pub event_id: Option<String>,
    pub state: Option<MessageState>,
    /// Any of these states (the dead-letter queue, the missed-events list).
    pub states: Option<Vec<MessageState>>,
    pub event_type: Option<String>,
    pub error_code: Option<String>,
    /// Created at or after.
    pub since: Option<Timestamp>,
    /// Created before.
    pub until: Option<Timestamp>,
    /// Whose event was created at or after this (what retention still
    /// keeps: a bulk retry restarts nothing older).
    pub events_since: Option<Timestamp>,
}

/// Keyset pagination: items with an id greater than `after`, at most `limit`.
#[derive(Debug, Clone, Default)]
pub struct PageRequest {
    pub after: Option<String>,
    pub limit: u32,
}

impl PageRequest {
    /// The first page of at most `limit` items.
    pub fn first(limit: u32) -> Self {
        PageRequest { after: None, limit }
    }
}

/// A signing key as stored: the secret sealed under the master key.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointKeyRecord {
    pub id: String,
    pub endpoint_id: String,
    pub scheme: SignatureScheme,
    /// `whpk_…` for `v1a`; `None` for `v1`.
    pub public_key: Option<String>,
    /// `relay_core::sealed` output; opens only with the master key and `id` as binding.
    pub sealed_secret: String,
    pub created_at: Timestamp,
    /// When an old key stops signing (during a rotation overlap).
    pub retires_at: Option<Timestamp>,
}

/// A message leased for one attempt, with everything needed to make it.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub message: Message,
    pub tenant_id: String,
    pub lease_version: i64,
    pub event: Event,
    pub endpoint: Endpoint,
    /// The consumer's CloudEvents `source`.
    pub source: String,
    /// Recovery traffic (restarted by recover or bulk retry, or created by
    /// replay), which runs below live traffic.
    pub recovery: bool,
    /// A workflow step's message (`crate::workflow_steps`): its attempts
    /// record nothing of the receiver's answer but the status code.
    pub withhold_answer: bool,
}

/// What one claim asks for; see [`crate::claims::claim`].
#[derive(Debug, Clone, Copy)]
pub struct ClaimRequest<'a> {
    pub owner: &'a str,
    pub now: Timestamp,
    pub lease_until: Timestamp,
    /// Messages leased at most, live and recovery together.
    pub limit: u32,
    /// Recovery messages leased at most (what the dispatcher leaves them
    /// after keeping room for live traffic).
    pub recovery_limit: u32,
    /// Each endpoint's room this round, as the dispatcher's lanes know it:
    /// at most that many of its messages are leased (0: none, its lane is
    /// full); endpoints not listed get at most their `max_concurrency`.
    pub room: &'a [(String, u32)],
    /// The tenant served first by the previous claim
    /// ([`ClaimBatch::recovery_first`]): the rotation across tenants starts
    /// after it, so the tenant that got the odd slot last time does not get
    /// it again.
    pub recovery_after: Option<&'a str>,
}

/// What one claim leased.
#[derive(Debug, Clone, Default)]
pub struct ClaimBatch {
    pub claimed: Vec<Claimed>,
    /// The tenant whose recovery traffic this claim served first; pass it as
    /// the next claim's `recovery_after`.
    pub recovery_first: Option<String>,
    /// When the earliest scheduled message is due, read after the leases
    /// were taken (as [`crate::claims::next_due`] would, without another read).
    pub next_due: Option<Timestamp>,
}

impl Claimed {
    pub fn progress(&self) -> Progress {
        progress_of(&self.message)
    }
}

/// The transition-relevant columns of a stored message.
pub fn progress_of(m: &Message) -> Progress {
    Progress {
        state: m.state,
        attempts_used: u32::try_from(m.attempts_used).unwrap_or(u32::MAX),
        deferrals_used: u32::try_from(m.deferrals_used).unwrap_or(u32::MAX),
        next_attempt_at: m.next_attempt_at,
        last_error_code: m.last_error_code.clone(),
        terminal_reason: m.terminal_reason.clone(),
    }
}

/// A rate-limited endpoint's due backlog (see [`crate::window::due_backlog`]).
#[derive(Debug, Clone)]
pub struct Backlog {
    pub endpoint: Endpoint,
    pub messages: Vec<Waiting>,
}

/// A live message waiting in its endpoint's backlog, as the window rule
/// (`relay_core::window`) reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    pub id: String,
    pub created_at: Timestamp,
    /// Its event's time-to-live end.
    pub expires_at: Option<Timestamp>,
    pub attempts_used: i64,
    pub next_attempt_at: Timestamp,
}

/// One audited action.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct AuditEntry {
    /// The entry's id (`aud_…`).
    pub id: String,
    /// The API key id (or `operator`) that acted.
    pub actor: String,
    /// e.g. `endpoint.created`, `endpoint.key_rotated`.
    pub action: String,
    /// The object acted on (an endpoint id, …).
    pub target: String,
    /// What the action was given, never a secret: the fields changed, the
    /// overlap of a rotation, … (by action).
    #[schema(value_type = Object)]
    pub parameters: serde_json::Value,
    /// When it happened.
    pub at: Timestamp,
}

/// A durable job (bulk retry) and its progress.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct Job {
    /// The job's id (`job_…`).
    pub id: String,
    /// What the job does.
    pub kind: relay_core::model::JobKind,
    /// The filter the job was started with.
    #[schema(value_type = Object)]
    pub parameters: serde_json::Value,
    /// Where the job is.
    pub state: relay_core::model::JobState,
    /// Messages examined so far.
    pub processed: i64,
    /// Messages whose schedule restarted so far.
    pub affected: i64,
    /// When it was started.
    pub created_at: Timestamp,
    /// When it last advanced.
    pub updated_at: Timestamp,
    /// When it finished; `null` until `state` is `done`.
    pub finished_at: Option<Timestamp>,
}

/// A job leased to a worker, with what it needs to continue.
#[derive(Debug, Clone)]
pub struct LeasedJob {
    pub job: Job,
    pub scope: Scope,
    pub cursor: Option<String>,
}

/// What the health view is computed from (see `GET /v1/endpoints/{id}/health`).
#[derive(Debug, Clone, PartialEq)]
pub struct HealthFacts {
    /// (attempts, delivered) since one hour ago and since 24 hours ago.
    pub last_hour: (i64, i64),
    pub last_day: (i64, i64),
    /// Attempt durations over the last 24 hours, counted by the hour (so
    /// up to 25 hours: the current hour and the 24 before it).
    pub latency: relay_core::histogram::Histogram,
    pub last_success_at: Option<Timestamp>,
    /// Messages still to deliver (`scheduled`, `in_flight`, `held`).
    pub backlog: i64,
    pub oldest_pending_at: Option<Timestamp>,
    /// The latest failed attempts, newest first (at most 20).
    pub recent_errors: Vec<Attempt>,
}

/// A health warning about an endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointWarning {
    pub endpoint_id: String,
    pub kind: relay_core::model::WarningKind,
    pub detail: String,
    pub at: Timestamp,
}

/// The end of one leased attempt, applied only while the lease still holds.
#[derive(Debug, Clone)]
pub struct Completion {
    pub message_id: String,
    pub tenant_id: String,
    pub environment: Environment,
    pub lease_owner: String,
    pub lease_version: i64,
    /// The message's columns after the attempt (from `relay_core::transition::apply`).
    pub progress: Progress,
    /// The attempt record; written even when the lease was lost (it happened).
    /// Its `number` is assigned by the store.
    pub attempt: Option<Attempt>,
    /// The endpoint answered `410`: disable it at once
    /// (`relay_core::lifecycle::EndpointAction::Gone`).
    pub disable_endpoint: bool,
    /// A manual attempt: the message was leased without leaving its state.
    pub manual: bool,
    /// The message has an ordering key (`Message::ordering_key`): its end
    /// may let the next message of its key go (`crate::ordering`).
    pub ordered: bool,
    /// The event type version that shaped the payload the attempt sent
    /// (`relay_core::shape::shaping_version`), recorded on the message by
    /// the first completion that has one and kept from then on.
    pub event_type_version: Option<i64>,
    /// What the attempt says about the endpoint's health, for the
    /// automatic-disable clock (`Neutral` when it says nothing).
    pub health: relay_core::circuit::Signal,
    pub warning: Option<EndpointWarning>,
    pub now: Timestamp,
}

/// What a completion batch wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completed {
    /// Per completion, in order: whether its lease still held (and so its
    /// progress was applied).
    pub applied: Vec<bool>,
    /// Completions whose message is gone (its event was purged while the
    /// attempt ran, e.g. after a cancel): nothing of them is written, not
    /// even the attempt record, and the rest of the batch commits. Counted
    /// in `applied` as not applied.
    pub gone: Vec<String>,
    /// Messages of ordered endpoints promoted because a completion ended
    /// the one before them (`crate::ordering::promote`): due at once.
    pub promoted: u64,
}

/// What the PostgreSQL listener tells a dispatcher of endpoint state changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndpointNotice {
    /// The endpoint's state changed to `state` (committed, by any node).
    Changed {
        endpoint_id: String,
        state: relay_core::model::EndpointState,
    },
    /// The listening connection was lost and is listening again: changes
    /// committed meanwhile were not told.
    Reconnected,
}

/// Which payload shape a message needs: its endpoint version and its event
/// type, in its tenant and environment.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShapeKey {
    pub tenant_id: String,
    pub environment: relay_core::model::Environment,
    pub endpoint_id: String,
    pub endpoint_version: i64,
    pub event_type: String,
}

/// What shapes one endpoint version's payloads of one event type: the
/// endpoint version's settings and the event type's versions' fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeSource {
    pub endpoint: relay_core::model::EndpointVersion,
    pub type_versions: Vec<relay_core::shape::TypeFields>,
    /// The endpoint's consumer (an endpoint's for life) and its kind, and
    /// the event type's audience: whom the rule of `relay_core::audience`
    /// lets the endpoint's messages of the type be sent to.
    pub consumer_id: String,
    pub consumer_kind: relay_core::model::ConsumerKind,
    pub audience: relay_core::audience::Audience,
}
