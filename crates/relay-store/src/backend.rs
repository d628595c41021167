//! [`Backend`]: how a store runs the operations written over
//! [`Exec`](crate::exec::Exec): writes as one transaction on its writer,
//! reads on a pooled connection of its read pool. The executor
//! (`crate::executor`) and the role traits (`crate::roles`) are implemented
//! once for every backend on top of it.

use std::future::Future;
use std::ops::DerefMut;

use futures_util::future::BoxFuture;

use crate::Result;
use crate::exec::{Commit, Dialect, Exec};
use crate::executor::{Outstanding, Rx, Tx};

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

    /// The writer's connection as the [`Tx`] callers compose on, its
    /// statements marked in `own`.
    fn tx<'a>(w: &'a mut Self::Write, own: &'a Outstanding) -> Tx<'a>;
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

    /// A read pool's connection as the [`Rx`] callers compose on, its
    /// statements marked in `own`.
    fn rx<'a>(r: &'a mut Self::Read, own: &'a Outstanding) -> Rx<'a>;

    /// The publishes waiting for the group committer (`crate::group`).
    fn publishes(&self) -> &crate::group::Pending;

    /// The dispatcher new messages may be handed to (see [`crate::Intake`]).
    fn intake(&self) -> &crate::group::IntakeSlot;

    /// Listens for what other processes tell this one (see
    /// `crate::Signals::listen_for_wakeups`); the listening task, if the
    /// backend has one.
    fn listen(
        &self,
        notify: std::sync::Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<crate::EndpointNotice>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> impl Future<Output = Result<Option<tokio::task::JoinHandle<()>>>> + Send;
}
