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
//! - [`Signals`]: how the store reaches the dispatcher unasked: new
//!   messages handed over at publish, and other nodes' wake-ups (backend
//!   plumbing set up once, not operations on a connection).
//! - [`Executor`](crate::Executor): operations a caller composes, as one
//!   write transaction or one read (`crate::executor`): the one way to run
//!   them, every operation but a publish (the roles' methods moved there
//!   role by role: tenant secrets,
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
//!   a message, `crate::messages`, recover and replay, `crate::recovery`
//!   (which run each chunk as one write), and what the dispatcher asks to
//!   deliver: claims and their release, `crate::claims`, completions,
//!   `crate::completions`, lease rescue and release, the next due time and
//!   the backlog's size, `crate::claims`, manual attempts,
//!   `crate::manual` and `crate::manual_audit`, and a rate-limited
//!   endpoint's window, `crate::window`, have no role of their own any
//!   more).
//!
//! [`Store`] is all of them, for wiring (`Arc<dyn Store>`).

mod operator;
mod publisher;
mod signals;

pub use operator::Operator;
pub use publisher::Publisher;
pub use signals::Signals;

/// Every role: what `relay serve` wires its parts with.
pub trait Store: Operator + Publisher + Signals + crate::Executor + 'static {}

impl<S> Store for S where S: Operator + Publisher + Signals + crate::Executor + 'static {}
