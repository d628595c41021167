//! The store's role traits: each names what one part of Relay needs of the
//! store, and is implemented once for every [`Backend`](crate::backend::Backend)
//! over the operations of the aggregate modules (`crate::tenants`, …).
//!
//! - [`Operator`]: migrations and a master key rotation's re-sealing.
//! - [`Traffic`]: what the API does with events and messages (publish,
//!   reads, recover, replay).
//! - [`Dispatch`]: what the dispatcher needs to deliver.
//! - [`InboundStore`]: inbound provider webhooks' sources, receipts and ledger.
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
//!   view, `crate::health`, the
//!   audit log, `crate::audit`, and reading an event or a message and
//!   cancelling a message, `crate::messages`, have no role of their own
//!   any more).
//!
//! [`Store`] is all of them, for wiring (`Arc<dyn Store>`).

mod dispatch;
mod inbound;
mod operator;
mod traffic;

pub use dispatch::Dispatch;
pub use inbound::InboundStore;
pub use operator::Operator;
pub use traffic::Traffic;

/// Every role: what `relay serve` wires its parts with.
pub trait Store: Operator + Traffic + Dispatch + InboundStore + crate::Executor + 'static {}

impl<S> Store for S where S: Operator + Traffic + Dispatch + InboundStore + crate::Executor + 'static
{}
