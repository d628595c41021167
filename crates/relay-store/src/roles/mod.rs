//! The store's role traits: each names what one part of Relay needs of the
//! store, and is implemented once for every [`Backend`](crate::backend::Backend)
//! over the operations of the aggregate modules (`crate::tenants`, …).
//!
//! - [`Operator`]: the backend's name and migrations.
//! - [`Publisher`]: publishing an event. It stays a role, not an
//!   operation a caller composes: a publish is queued for the store's group
//!   committer (`crate::group`), which writes every publish queued beside
//!   it in one transaction and one commit (on SQLite one fsync for them
//!   all) and answers each after it. An executor `write` is one caller's
//!   transaction; run through it, each publish would commit (and flush)
//!   on its own, and publishing's throughput is what the group commit is
//!   for.
//! - [`Dispatch`]: what the dispatcher needs to deliver.
//! - [`Executor`](crate::Executor): operations a caller composes, as one
//!   write transaction or one read (`crate::executor`): the one way to run
//!   them, which the roles' methods move to role by role (tenant secrets,
//!   `crate::secrets`, the portal's tokens and brand, `crate::portal`, the
//!   dispatcher's upkeep, `crate::retention` and `crate::jobs`, settings,
//!   tenants and API keys, `crate::settings` and `crate::tenants`, and
//!   object storage batches, `crate::object_batches`, what a tenant
//!   configures: event types, `crate::event_types`, consumers,
//!   `crate::consumers`, endpoints, their versions, signing keys, shape
//!   sources and state changes, `crate::endpoints`, the endpoint health
//!   view, `crate::health`, the audit log, `crate::audit`, inbound provider
//!   webhooks' sources, receipts and ledger, `crate::inbound`, a master
//!   key rotation's re-sealing, `crate::reseal`, reading an event, a
//!   message, lists of messages and of a message's attempts and cancelling
//!   a message, `crate::messages`, and recover and replay,
//!   `crate::recovery` (which run each chunk as one write), have no role of
//!   their own any more).
//!
//! [`Store`] is all of them, for wiring (`Arc<dyn Store>`).

mod dispatch;
mod operator;
mod publisher;

pub use dispatch::Dispatch;
pub use operator::Operator;
pub use publisher::Publisher;

/// Every role: what `relay serve` wires its parts with.
pub trait Store: Operator + Publisher + Dispatch + crate::Executor + 'static {}

impl<S> Store for S where S: Operator + Publisher + Dispatch + crate::Executor + 'static {}
