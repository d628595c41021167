//! Relay's storage: the database is the queue.
//!
//! [`Store`] is every storage operation Relay performs, as one trait with two
//! backends: [`sqlite::SqliteStore`] (embedded, the zero-configuration default)
//! and [`postgres::PgStore`] (many nodes share one database). Both run the same
//! SQL wherever the dialects agree; the method bodies are written once in
//! [`backend`] and instantiated per backend, and the few dialect differences are
//! named constants side by side in each backend module.
//!
//! - [`migrate`]: embedded migrations, applied by `relay migrate` and at start.
//! - [`keys`]: signing keys generated, sealed under the master key, and opened.
//! - [`rows`]: mapping rows to the domain types of `relay-core`.
//! - [`conformance`]: the suite both backends must pass; every storage
//!   behaviour gets a case there.
//! - [`testenv`]: where every crate's tests find PostgreSQL (the local
//!   server when it answers), and how they say `SKIPPED` without it.
//!
//! Errors: [`StoreError`] keeps the database error as its source; constraint
//! violations are recognised by kind (SQLSTATE class), never by message text.

pub mod backend;
pub mod conformance;
pub mod group;
pub mod keys;
pub mod lifecycle;
pub mod migrate;
pub mod postgres;
pub mod rows;
pub mod sqlite;
pub mod testenv;
pub mod txn;

use std::sync::Arc;

use async_trait::async_trait;
use relay_core::model::SignatureScheme;
use relay_core::model::{
    ApiKey, Attempt, Consumer, Endpoint, Environment, Event, EventType, Message, MessageState,
    Page, Tenant,
};
use relay_core::time::Timestamp;
use relay_core::transition::Progress;
use serde_json::value::RawValue;

/// Errors from the store. `NotFound` and `Conflict` are expected outcomes the
/// API maps to `404` and `409`; `Database` is an infrastructure failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// A uniqueness rule was broken; the string names the rule.
    #[error("conflict: {0}")]
    Conflict(&'static str),
    /// An operator limit was reached; the string names the limit.
    #[error("limit reached: {0}")]
    LimitReached(&'static str),
    /// The referenced object (parent tenant, consumer) does not exist.
    #[error("missing reference: {0}")]
    MissingReference(&'static str),
    #[error("database error")]
    Database(#[from] sqlx::Error),
    /// From the SQLite writer's direct calls (`sqlite`).
    #[error("database error")]
    Sqlite(#[from] rusqlite::Error),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    #[error("invalid database url: {0}")]
    InvalidUrl(String),
    /// A part of the store is not running (it stopped with the runtime).
    #[error("store unavailable: {0}")]
    Unavailable(&'static str),
    /// What was committed could not be made durable (the SQLite log's
    /// fsync failed): the caller is not told it succeeded.
    #[error("the database log could not be synced to disk: {0}")]
    Durability(String),
}

impl StoreError {
    /// Whether a uniqueness rule (unique index, primary key) was broken.
    pub fn is_unique_violation(&self) -> bool {
        match self {
            StoreError::Database(sqlx::Error::Database(db)) => db.is_unique_violation(),
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.extended_code,
                rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    | rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            ),
            _ => false,
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

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

/// `PUT /v1/event-types/{name}`: a changed schema opens a new version; otherwise
/// the current version's sample and personal-data fields are updated in place.
#[derive(Debug, Clone)]
pub struct PutEventType {
    pub name: String,
    pub description: String,
    pub schema: serde_json::Value,
    pub sample: Option<serde_json::Value>,
    pub personal_data_fields: Vec<String>,
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
}

/// What one claim asks for; see [`Store::claim`].
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
    /// were taken (as [`Store::next_due_at`] would, without another read).
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

/// A rate-limited endpoint's due backlog (see [`Store::due_backlog`]).
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
    pub id: String,
    /// The API key id (or `operator`) that acted.
    pub actor: String,
    /// e.g. `endpoint.created`, `endpoint.key_rotated`.
    pub action: String,
    /// The object acted on (an endpoint id, …).
    pub target: String,
    #[schema(value_type = Object)]
    pub parameters: serde_json::Value,
    pub at: Timestamp,
}

/// A durable job (bulk retry) and its progress.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct Job {
    pub id: String,
    /// `bulk_retry`.
    pub kind: String,
    /// The filter the job was started with.
    #[schema(value_type = Object)]
    pub parameters: serde_json::Value,
    /// `queued`, `running` or `done`.
    pub state: String,
    /// Messages examined so far.
    pub processed: i64,
    /// Messages whose schedule restarted so far.
    pub affected: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
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
    pub kind: String,
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
}

/// Every storage operation Relay performs.
///
/// Methods that read or change tenant data take a [`Scope`]; an object of
/// another tenant or environment is simply not found, which is how isolation
/// is enforced at the lowest layer.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// `sqlite` or `postgres`.
    fn backend(&self) -> &'static str;

    /// Applies pending migrations; safe to call from several processes at once.
    async fn migrate(&self) -> Result<()>;

    async fn get_setting(&self, key: &str) -> Result<Option<String>>;
    /// Stores `value` under `key` unless a value exists; returns the value now stored.
    async fn put_setting_if_absent(&self, key: &str, value: &str) -> Result<String>;

    async fn create_tenant(&self, tenant: &Tenant) -> Result<()>;
    async fn get_tenant(&self, id: &str) -> Result<Option<Tenant>>;
    async fn list_tenants(&self, page: &PageRequest) -> Result<Page<Tenant>>;

    async fn create_api_key(&self, key: &NewApiKey) -> Result<ApiKey>;
    async fn list_api_keys(&self, tenant_id: &str) -> Result<Vec<ApiKey>>;
    /// Returns `true` when an active key of that tenant was revoked now.
    async fn revoke_api_key(&self, tenant_id: &str, key_id: &str, now: Timestamp) -> Result<bool>;
    /// The active (not revoked) key with this hash.
    async fn find_api_key(&self, key_hash: &str) -> Result<Option<ApiKey>>;

    async fn put_event_type(
        &self,
        scope: &Scope,
        put: &PutEventType,
    ) -> Result<(EventType, PutEventTypeOutcome)>;
    async fn get_event_type(&self, scope: &Scope, name: &str) -> Result<Option<EventType>>;
    async fn list_event_types(&self, scope: &Scope) -> Result<Vec<EventType>>;

    async fn create_consumer(&self, scope: &Scope, consumer: &Consumer) -> Result<()>;
    async fn get_consumer(&self, scope: &Scope, id: &str) -> Result<Option<Consumer>>;
    async fn list_consumers(&self, scope: &Scope, page: &PageRequest) -> Result<Page<Consumer>>;
    async fn update_consumer(
        &self,
        scope: &Scope,
        id: &str,
        patch: &ConsumerPatch,
        now: Timestamp,
    ) -> Result<Consumer>;
    /// Fails with `Conflict("consumer_has_endpoints")` while endpoints remain.
    async fn delete_consumer(&self, scope: &Scope, id: &str) -> Result<()>;

    /// Creates the endpoint with its signing keys, within the operator
    /// limits, and `audit` (if any) in the same transaction.
    async fn create_endpoint(
        &self,
        scope: &Scope,
        endpoint: &Endpoint,
        keys: &[EndpointKeyRecord],
        limits: EndpointLimits,
        audit: Option<&AuditEntry>,
    ) -> Result<()>;
    /// The endpoint's signing keys, newest first (retired ones included).
    async fn endpoint_keys(&self, endpoint_id: &str) -> Result<Vec<EndpointKeyRecord>>;
    /// Adds `key` as the endpoint's newest signing key and sets its scheme;
    /// every older key that would sign past `retire_at` retires then. Audited
    /// with `audit` in the same transaction. Returns all keys, newest first.
    async fn rotate_endpoint_key(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        key: &EndpointKeyRecord,
        retire_at: Timestamp,
        audit: &AuditEntry,
    ) -> Result<Vec<EndpointKeyRecord>>;
    /// Applies a change of the endpoint's state decided by the one rule
    /// (`relay_core::lifecycle::decide`, from the state the caller read)
    /// with a conditional update (`crate::lifecycle::apply`): only while the
    /// endpoint is still in `change.from`, else
    /// `Conflict("endpoint_state_changed")` and nothing is written. Moves its
    /// messages and emits the operational event as the change says, audited
    /// in the same transaction (its parameters get `from` and `to`).
    async fn change_endpoint_state(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        change: &relay_core::lifecycle::Change,
        audit: &AuditEntry,
    ) -> Result<Endpoint>;
    /// Cancels a message's pending attempts (`cancelled`); an attempt in
    /// flight finishes but cannot change the message any more. `audit` (if
    /// any) is written in the same transaction.
    async fn cancel_message(
        &self,
        scope: &Scope,
        message_id: &str,
        now: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> Result<Message>;
    /// Requeues an endpoint's failed and unattempted messages created in
    /// `[since, until)`: their schedule restarts now. Returns how many.
    async fn recover(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        since: Timestamp,
        until: Timestamp,
        audit: &AuditEntry,
    ) -> Result<u64>;
    /// Creates messages for this endpoint for the events created in
    /// `[since, until)` that it subscribes to (narrowed to `event_types` when
    /// given), keeping each event's id; events it already has a message for
    /// are skipped (`(endpoint_id, event_id)` is unique). Returns how many.
    async fn replay(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        since: Timestamp,
        until: Timestamp,
        event_types: Option<&[String]>,
        audit: &AuditEntry,
    ) -> Result<u64>;
    /// Deletes up to `batch` events created before `cutoff`, with their
    /// messages and attempts, in one short transaction. An event with a
    /// message still live (scheduled, held or in flight) or leased is kept,
    /// however old, until that message ends. Returns how many events went;
    /// call again until it returns less than `batch`.
    async fn purge_before(&self, cutoff: Timestamp, batch: u32) -> Result<u64>;
    /// Ends up to `batch` waiting messages (`scheduled` or `held`, no live
    /// lease) whose event's time-to-live has passed by `now`: `expired` with
    /// reason `ttl_expired`, oldest expiry first, in one short transaction
    /// (an index holds only the waiting messages of events with a TTL).
    /// Returns how many; call again until it returns less than `batch`.
    async fn expire_due(&self, now: Timestamp, batch: u32) -> Result<u64>;
    /// The endpoint (not deleted) with its live messages due by `now` and not
    /// leased, in the order claims take them (oldest due first, then by
    /// id), after `after` (a message's `(next_attempt_at, id)`), at most
    /// `limit`: what the window rule reads of a rate-limited endpoint's
    /// backlog. `None` when the endpoint is gone.
    async fn due_backlog(
        &self,
        endpoint_id: &str,
        now: Timestamp,
        after: Option<(Timestamp, String)>,
        limit: u32,
    ) -> Result<Option<Backlog>>;
    /// Ends the listed messages `window_exceeded` (reason
    /// `window_exceeded`) if they are still `scheduled` and not leased at
    /// `now`. Returns how many.
    async fn end_window_exceeded(&self, ids: &[String], now: Timestamp) -> Result<u64>;
    /// Deletes the latency histogram's hours that started before `cutoff`.
    async fn purge_latency_before(&self, cutoff: Timestamp) -> Result<u64>;
    /// Queues a job (audited with `audit` in the same transaction).
    async fn create_job(&self, scope: &Scope, job: &Job, audit: &AuditEntry) -> Result<()>;
    async fn get_job(&self, scope: &Scope, id: &str) -> Result<Option<Job>>;
    /// Leases the oldest queued (or abandoned running) job to `owner`.
    async fn lease_job(
        &self,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<LeasedJob>>;
    /// One batch of a bulk retry: restarts the next `batch` matching messages
    /// after the cursor (the `relay_core::transition::RESTARTABLE` states of
    /// live endpoints), moves the cursor and the counters, and marks the job
    /// done when nothing is left; one transaction, only while `owner` holds
    /// the lease. Returns the job after the batch.
    async fn advance_bulk_retry(
        &self,
        job: &LeasedJob,
        filter: &MessageFilter,
        owner: &str,
        batch: u32,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Job>;
    /// Writes `event` with one message, for `endpoint_id` only, leased at once
    /// to `owner` for a manual attempt (the endpoint's test action). The
    /// message is a real one: if the attempt fails, its schedule goes on.
    async fn publish_to_endpoint(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        event: NewEvent,
        owner: &str,
        lease_until: Timestamp,
    ) -> Result<Claimed>;
    /// Leases one message for a manual attempt, whatever its state, unless an
    /// attempt is already in flight or leased. `None` when it is busy.
    /// `Conflict("endpoint_deleted")` when its endpoint was deleted and
    /// `Conflict("event_expired")` when its event's TTL has passed: nothing
    /// to attempt, and no lease is taken.
    async fn lease_for_manual_attempt(
        &self,
        scope: &Scope,
        message_id: &str,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<Claimed>>;
    /// The audit log, oldest first, keyset-paginated.
    async fn list_audit(&self, scope: &Scope, page: &PageRequest) -> Result<Page<AuditEntry>>;
    /// The raw facts of an endpoint's health at `now`.
    async fn health_facts(&self, endpoint_id: &str, now: Timestamp) -> Result<HealthFacts>;
    /// The endpoint's most recent health warnings, newest first.
    async fn endpoint_warnings(
        &self,
        endpoint_id: &str,
        limit: u32,
    ) -> Result<Vec<EndpointWarning>>;
    async fn get_endpoint(&self, scope: &Scope, id: &str) -> Result<Option<Endpoint>>;
    async fn list_endpoints(
        &self,
        scope: &Scope,
        consumer_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<Page<Endpoint>>;
    /// Replaces the endpoint's changeable fields and its subscriptions, with
    /// `audit` (if any) in the same transaction.
    async fn update_endpoint(
        &self,
        scope: &Scope,
        endpoint: &Endpoint,
        audit: Option<&AuditEntry>,
    ) -> Result<()>;
    /// Removes the endpoint; its messages that were still to be delivered become
    /// `dead_lettered` with reason `endpoint_removed`. `audit` (if any) is
    /// written in the same transaction.
    async fn delete_endpoint(
        &self,
        scope: &Scope,
        id: &str,
        now: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> Result<()>;

    /// Writes the event and one message per matching endpoint in one
    /// transaction; with an [`Intake`] set, leases what it has room for.
    async fn publish(&self, scope: &Scope, event: NewEvent) -> Result<PublishOutcome>;
    /// Hands this process's new messages to `intake` from now on (see
    /// [`Intake`]); `None` stops it.
    fn set_intake(&self, intake: Option<Arc<dyn Intake>>);
    async fn get_event(&self, scope: &Scope, id: &str) -> Result<Option<Event>>;

    async fn get_message(&self, scope: &Scope, id: &str) -> Result<Option<Message>>;
    async fn list_messages(
        &self,
        scope: &Scope,
        filter: &MessageFilter,
        page: &PageRequest,
    ) -> Result<Page<Message>>;
    async fn list_attempts(&self, scope: &Scope, message_id: &str) -> Result<Vec<Attempt>>;

    /// Leases due `scheduled` messages to `owner` until `lease_until`, in one
    /// transaction, and of each endpoint at most its room: the number `room`
    /// gives for it (0 skips it: its lane is full), else its
    /// `max_concurrency`. Concurrent claimers never get the same message
    /// (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: one writer).
    ///
    /// Live traffic (priority 0) first: up to `limit` of it, oldest due
    /// first. The room left, at most `recovery_limit`, goes to recovery
    /// traffic (priority 1) shared equally among the tenants that have some
    /// due, each tenant's oldest due first: a tenant with a huge backlog gets
    /// no more of a claim than a tenant with a small one. A tenant with less
    /// than its share leaves the rest to the others; the odd slots go round
    /// the tenants in turn (`recovery_after`).
    async fn claim(&self, request: &ClaimRequest<'_>) -> Result<ClaimBatch>;
    /// [`Store::claim`] with no cap on recovery traffic and the rotation
    /// starting at the first tenant: up to `limit` messages, live first.
    async fn claim_due(
        &self,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
        room: &[(String, u32)],
    ) -> Result<Vec<Claimed>> {
        let batch = self
            .claim(&ClaimRequest {
                owner,
                now,
                lease_until,
                limit,
                recovery_limit: limit,
                room,
                recovery_after: None,
            })
            .await?;
        Ok(batch.claimed)
    }
    /// Gives claimed messages back unattempted (due as before, nothing used up).
    async fn release_claims(&self, owner: &str, ids: &[String], now: Timestamp) -> Result<u64>;
    /// Applies completions in one transaction; returns, per completion,
    /// whether its lease still held (a late completion changes nothing but
    /// its attempt record), and which were skipped because their message is
    /// gone (see [`Completed`]).
    async fn complete(&self, batch: &[Completion]) -> Result<Completed>;
    /// Returns expired leases to `scheduled`, due now; returns how many.
    async fn rescue_expired_leases(&self, now: Timestamp) -> Result<u64>;
    /// Returns `owner`'s leases to `scheduled` (graceful shutdown); returns how many.
    async fn release_leases(&self, owner: &str, now: Timestamp) -> Result<u64>;
    /// When the earliest `scheduled` message is due.
    async fn next_due_at(&self) -> Result<Option<Timestamp>>;
    /// How many of the tenant's recovery messages are due at `now` and not
    /// yet claimed (a bulk retry restarts more only as these drain).
    async fn recovery_due(&self, tenant_id: &str, now: Timestamp) -> Result<u64>;
    /// Wakes `notify` whenever another process publishes (PostgreSQL
    /// `LISTEN/NOTIFY`), and sends on `endpoints` each endpoint state change
    /// committed by any process (see [`EndpointNotice`]), until `stop` turns
    /// true or its sender is dropped (then `endpoints` is dropped); a no-op
    /// for SQLite, which has one process (`endpoints` is dropped at once).
    async fn listen_for_wakeups(
        &self,
        notify: std::sync::Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<EndpointNotice>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<()>;
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

/// Opens the store a database URL names (`sqlite://…` or `postgres://…`) and
/// applies migrations.
pub async fn open(url: &str) -> Result<Arc<dyn Store>> {
    let store: Arc<dyn Store> = if url.starts_with("sqlite:") {
        Arc::new(sqlite::SqliteStore::connect(url).await?)
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Arc::new(postgres::PgStore::connect(url).await?)
    } else {
        return Err(StoreError::InvalidUrl(
            "expected a URL starting with sqlite:// or postgres://".into(),
        ));
    };
    store.migrate().await?;
    Ok(store)
}

/// A fresh id of `kind` created at `now`.
///
/// Monotonic within the process (the ULID rule): ids made in the same
/// millisecond continue from the previous one instead of drawing new
/// randomness, so the order of creation is the order of the ids even when the
/// clock does not move (and keyset pagination lists them in that order).
pub fn new_id(kind: relay_core::id::IdKind, now: Timestamp) -> String {
    static LAST: std::sync::Mutex<(i64, u128)> = std::sync::Mutex::new((i64::MIN, 0));
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let millis = now.millis().max(last.0);
    let random = if millis == last.0 {
        last.1.wrapping_add(1) & ((1u128 << 80) - 1)
    } else {
        let mut bytes = [0u8; 16];
        // getrandom fails only when the OS has no entropy source at all.
        getrandom::fill(&mut bytes).expect("the operating system's random source is unavailable");
        // Leave headroom so increments within one millisecond do not wrap.
        u128::from_le_bytes(bytes) & ((1u128 << 79) - 1)
    };
    *last = (millis, random);
    relay_core::id::new_id(kind, millis, random)
}

/// `f`'s output, failing the test after 10 s instead of hanging it (the
/// backends' unit tests share it).
#[cfg(test)]
pub(crate) async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(std::time::Duration::from_secs(10), f)
        .await
        .expect("an answer within 10 s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use relay_core::id::IdKind;

    #[test]
    fn ids_made_in_one_millisecond_keep_their_order() {
        let t = Timestamp(1_900_000_000_000);
        let ids: Vec<String> = (0..1000).map(|_| new_id(IdKind::Audit, t)).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, ids);
    }
}
