//! The store's role traits: each names what one part of Relay needs of the
//! store, and is implemented once for every [`Backend`](crate::backend::Backend)
//! over the operations of the aggregate modules (`crate::tenants`, …).
//!
//! - [`Operator`]: migrations, settings, tenants and API keys (start-up,
//!   the operator API).
//! - [`Catalog`]: what a tenant configures (event types, consumers,
//!   endpoints, signing keys).
//! - [`Traffic`]: what the API does with events and messages (publish,
//!   reads, cancel, recover, replay, jobs, audit, health).
//! - [`Dispatch`]: what the dispatcher needs to deliver.
//! - [`Upkeep`]: the dispatcher's retention and job work.
//! - [`PortalStore`]: the embeddable portal's tokens and the tenant's brand.
//! - [`InboundStore`]: inbound provider webhooks' sources, receipts and ledger.
//! - [`SecretStore`]: tenant secrets, sealed under the master key.
//! - [`ObjectBatches`]: object storage endpoints' batches.
//! - [`Transactions`](crate::Transactions): operations composed by the
//!   caller in one transaction.
//!
//! [`Store`] is all of them, for wiring (`Arc<dyn Store>`).

mod batches;
mod catalog;
mod dispatch;
mod inbound;
mod operator;
mod portal;
mod secrets;
mod traffic;
mod upkeep;

pub use batches::ObjectBatches;
pub use catalog::Catalog;
pub use dispatch::Dispatch;
pub use inbound::InboundStore;
pub use operator::Operator;
pub use portal::PortalStore;
pub use secrets::SecretStore;
pub use traffic::Traffic;
pub use upkeep::Upkeep;

/// Every role: what `relay serve` wires its parts with.
pub trait Store:
    Operator
    + Catalog
    + Traffic
    + Dispatch
    + Upkeep
    + PortalStore
    + InboundStore
    + SecretStore
    + ObjectBatches
    + crate::Transactions
    + 'static
{
}

impl<S> Store for S where
    S: Operator
        + Catalog
        + Traffic
        + Dispatch
        + Upkeep
        + PortalStore
        + InboundStore
        + SecretStore
        + ObjectBatches
        + crate::Transactions
        + 'static
{
}
