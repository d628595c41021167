//! [`Backend`]: how a store runs the operations written over
//! [`Exec`](crate::exec::Exec): writes as one transaction on its writer,
//! reads on a pooled connection of its read pool. The role traits
//! (`crate::roles`) are implemented once for every backend on top of it,
//! and [`Transactions`] lets a caller outside the crate run several
//! operations as one transaction.

use std::any::Any;
use std::future::Future;
use std::ops::DerefMut;

use async_trait::async_trait;
use futures_util::future::BoxFuture;

use crate::exec::{Commit, Dialect, Exec, Tx};
use crate::{Result, StoreError};

/// How a backend runs write transactions: a cheap handle (cloned into the
/// group committer's tasks, `crate::group`).
pub trait Writes: Clone + Send + Sync + 'static {
    /// What a write transaction runs on (SQLite: the writer's connection;
    /// PostgreSQL: the transaction's connection).
    type Write: Exec;

    /// Runs `f` as one transaction, committed as `commit` says; rolled back
    /// if `f` fails. On SQLite `f` runs on the writer's thread and must
    /// await nothing but its [`Exec`].
    fn write<T, F>(&self, commit: Commit, f: F) -> impl Future<Output = Result<T>> + Send
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a mut Self::Write) -> BoxFuture<'a, Result<T>> + Send + 'static;

    /// Counts new messages written (PostgreSQL refreshes its planner
    /// statistics by them; the SQLite queries name their indexes).
    fn wrote(&self, messages: u64);

    /// The writer's connection as the [`Tx`] callers compose on.
    fn tx(w: &mut Self::Write) -> Tx<'_>;
}

/// A backend: [`crate::sqlite::SqliteStore`] or [`crate::postgres::PgStore`].
pub trait Backend: Send + Sync + 'static {
    /// Its write transactions.
    type Txns: Writes;
    /// What a read runs on: a connection of the read pool.
    type Read: Exec;
    /// A read pool's connection, given back when dropped.
    type Reader: DerefMut<Target = Self::Read> + Send;

    fn dialect(&self) -> &'static Dialect;

    fn txns(&self) -> &Self::Txns;

    /// Runs `f` as one transaction (see [`Writes::write`]).
    fn write<T, F>(&self, commit: Commit, f: F) -> impl Future<Output = Result<T>> + Send
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a mut <Self::Txns as Writes>::Write) -> BoxFuture<'a, Result<T>>
            + Send
            + 'static,
    {
        self.txns().write(commit, f)
    }

    /// A connection of the read pool (SQLite: read-only, and WAL lets it
    /// read what was committed while the writer goes on).
    fn reader(&self) -> impl Future<Output = Result<Self::Reader>> + Send;

    /// The publishes waiting for the group committer (`crate::group`).
    fn publishes(&self) -> &crate::group::Pending;

    /// The dispatcher new messages may be handed to (see [`crate::Intake`]).
    fn intake(&self) -> &crate::group::IntakeSlot;

    /// Listens for what other processes tell this one (see
    /// `crate::Dispatch::listen_for_wakeups`); the listening task, if the
    /// backend has one.
    fn listen(
        &self,
        notify: std::sync::Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<crate::EndpointNotice>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> impl Future<Output = Result<Option<tokio::task::JoinHandle<()>>>> + Send;
}

/// A transaction composed by a caller: given the [`Tx`], it runs its
/// operations on it.
pub type TxFn =
    Box<dyn for<'a> FnOnce(Tx<'a>) -> BoxFuture<'a, Result<Box<dyn Any + Send>>> + Send>;

/// Runs operations composed by the caller as one transaction (the portal
/// and inbound webhooks write several aggregates at once). Use it through
/// [`TransactionsExt::transaction`].
#[async_trait]
pub trait Transactions: Send + Sync {
    /// Runs `f` as one durable transaction; its value comes back boxed.
    async fn run_boxed(&self, f: TxFn) -> Result<Box<dyn Any + Send>>;
}

#[async_trait]
impl<B: Backend> Transactions for B {
    async fn run_boxed(&self, f: TxFn) -> Result<Box<dyn Any + Send>> {
        self.write(Commit::Durable, move |w| f(B::Txns::tx(w)))
            .await
    }
}

/// [`Transactions`] with the value typed.
pub trait TransactionsExt: Transactions {
    /// Runs `f` as one durable transaction, on either backend:
    ///
    /// ```text
    /// store.transaction(move |mut x| Box::pin(async move {
    ///     relay_store::consumers::create(&mut x, &scope, &consumer).await?;
    ///     relay_store::endpoints::create(&mut x, &scope, &endpoint, &keys, limits, None).await
    /// })).await?;
    /// ```
    ///
    /// (`conformance::composed_operations_commit_or_roll_back_together`
    /// runs one on both backends.)
    /// Everything `f` writes commits together, or nothing does. `f` must
    /// await nothing but its operations on the [`Tx`] (on SQLite the
    /// transaction runs on the writer's thread, where anything else fails
    /// it with [`StoreError::Unavailable`]).
    fn transaction<T, F>(&self, f: F) -> impl Future<Output = Result<T>> + Send
    where
        T: Send + 'static,
        F: for<'a> FnOnce(Tx<'a>) -> BoxFuture<'a, Result<T>> + Send + 'static,
    {
        let boxed: TxFn = Box::new(move |tx| {
            let run = f(tx);
            Box::pin(async move { Ok(Box::new(run.await?) as Box<dyn Any + Send>) })
        });
        async move {
            let out = self.run_boxed(boxed).await?;
            out.downcast::<T>()
                .map(|v| *v)
                .map_err(|_| StoreError::Corrupt("a transaction's value of another type".into()))
        }
    }
}

impl<S: Transactions + ?Sized> TransactionsExt for S {}
