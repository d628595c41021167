//! [`Signals`]: how the store reaches the dispatcher unasked: new messages
//! handed over as they are published, and the wake-ups other nodes send.
//! Neither is an operation on a connection (`crate::executor`): each is
//! backend plumbing set up once when the dispatcher starts. What the
//! dispatcher asks of the store (claims, completions, lease rescue and
//! release, manual attempts, a rate-limited endpoint's window) it composes
//! on the executor (`crate::claims`, `crate::completions`, `crate::manual`,
//! `crate::manual_audit`, `crate::window`).

use std::sync::Arc;

use async_trait::async_trait;

use crate::backend::Backend;
use crate::{EndpointNotice, Intake, Result};

#[async_trait]
pub trait Signals: Send + Sync {
    /// Hands this process's new messages to `intake` from now on (see
    /// [`Intake`]); `None` stops it.
    fn set_intake(&self, intake: Option<Arc<dyn Intake>>);

    /// Wakes `notify` whenever another process publishes (PostgreSQL
    /// `LISTEN/NOTIFY`), and sends on `endpoints` each endpoint state change
    /// committed by any process (see [`EndpointNotice`]), until `stop` turns
    /// true or its sender is dropped (then `endpoints` is dropped). Returns
    /// the listening task, which the caller joins once it has stopped it;
    /// `None` for SQLite, which has one process (`endpoints` is dropped at
    /// once).
    async fn listen_for_wakeups(
        &self,
        notify: Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<EndpointNotice>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<()>>>;
}

#[async_trait]
impl<B: Backend> Signals for B {
    fn set_intake(&self, intake: Option<Arc<dyn Intake>>) {
        if let Ok(mut slot) = self.intake().write() {
            *slot = intake;
        }
    }

    async fn listen_for_wakeups(
        &self,
        notify: Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<EndpointNotice>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<()>>> {
        self.listen(notify, endpoints, stop).await
    }
}
