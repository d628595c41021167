//! Relay's domain types and pure rules.
//!
//! Nothing in this crate touches the network, the disk, an async runtime or the
//! wall clock: time and randomness come in as parameters, so every rule here is
//! tested with plain table tests.
//!
//! - [`id`]: prefixed, time-sortable identifiers (`evt_…`, `msg_…`, `ep_…`).
//! - [`time`]: [`time::Timestamp`] (unix milliseconds, RFC 3339 on the wire) and the [`time::Clock`] trait.
//! - [`audience`]: who may receive an event (subscriptions, `consumer_id`, an event type's audience, Relay's own events).
//! - [`model`]: tenants, keys, event types, consumers, endpoints, events, messages, attempts
//!   (and, with the `testing` feature, `model::fixture`: the endpoint builder of the tests).
//! - [`validate`]: naming and shape rules for API input (event type names, subscriptions, …).
//! - [`lifecycle`]: endpoint state changes (pause, resume, disable, enable, 410, automatic disable).
//! - [`autodisable`]: the failure clock that disables an endpoint after 5 days.
//! - [`circuit`]: the per-endpoint circuit breaker.
//! - [`retry`]: the reference retry schedule and its deterministic jitter.
//! - [`outcome`]: what an attempt means for its message, for every destination kind
//!   (a kind's verdict, the schedule and deferrals applied by [`outcome::resolve`]).
//! - [`transition`]: message state transitions.
//! - [`window`]: whether a waiting message's attempts still fit in its delivery window.
//! - [`secret`]: secret references (`secret:`, `env:`, `file:`), secret values that never show, the operator's policy.
//! - [`schema_bounds`]: bounds on a tenant's JSON Schema (size, depth, references, cost per value), checked before anything walks or compiles it.
//! - [`shape`]: thin events and snapshots: field paths, their check against a schema, the projection of `data`.
//! - [`share`]: cluster shares: an endpoint's limit split across the nodes that want it.
//! - [`sealed`]: encryption at rest of signing keys under the master key.
//! - [`signature`]: the Standard Webhooks signature profile (`v1` HMAC-SHA256, `v1a` Ed25519).
//! - [`envelope`]: the CloudEvents 1.0 structured envelope.
//! - [`attributes`]: the rules of its attributes, shared by the API and the envelope.
//! - [`uri`]: RFC 3986 URI references.
//! - [`traceparent`]: W3C trace context values.
//! - [`workflow`]: the workflow step: when two requests of a step key are the same, what a step's attempt keeps of the answer.

pub mod a2a;
pub mod attributes;
pub mod audience;
pub mod autodisable;
pub mod circuit;
pub mod envelope;
pub mod histogram;
pub mod id;
pub mod lifecycle;
pub mod model;
pub mod operational;
pub mod ordering;
pub mod outcome;
pub mod ownership;
pub mod retry;
pub mod schema_bounds;
pub mod sealed;
pub mod secret;
pub mod shape;
pub mod share;
pub mod signature;
pub mod time;
pub mod traceparent;
pub mod transition;
pub mod uri;
pub mod validate;
pub mod window;
pub mod workflow;
