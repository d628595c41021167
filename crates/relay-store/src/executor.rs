//! The one way a caller runs store operations: [`Executor`] (used through
//! [`ExecutorExt`]) hands a closure a [`Tx`] (a write transaction) or an
//! [`Rx`] (a connection of the read pool), and the closure calls the
//! aggregates' functions on it:
//!
//! ```text
//! let (scope, name) = (scope.clone(), name.to_string());
//! store.read(move |mut x| Box::pin(async move {
//!     relay_store::secrets::get(&mut x, &scope, &name).await
//! })).await?;
//! store.write(Commit::Durable, move |mut x| Box::pin(async move {
//!     relay_store::consumers::create(&mut x, &scope, &consumer).await?;
//!     relay_store::endpoints::create(&mut x, &scope, &endpoint, &keys, limits, None).await
//! })).await?;
//! ```
//!
//! Everything a write's closure does commits together, or nothing does.
//!
//! **Confinement.** An operation awaits nothing but its own connection: on
//! SQLite a write runs on the writer's thread, where a future that waits on
//! anything else can never be woken. So the executor holds every operation
//! to it on both backends: [`Tx`] and [`Rx`] mark when one of their
//! statements is outstanding ([`Outstanding`]), and an operation that is
//! pending with none outstanding (it awaited a timer, a lock, a channel,
//! another task) fails at once with [`StoreError::Internal`] and
//! [`AWAITED_OUTSIDE`], its transaction rolled back. The mistake fails the
//! first test that runs the operation, on PostgreSQL as on SQLite
//! (`conformance::executor`).

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use async_trait::async_trait;
use futures_util::future::BoxFuture;

use crate::backend::{Backend, Writes};
use crate::exec::{Commit, Dialect, Exec};
use crate::rows::RowExt;
use crate::sql::SqlBuilder;
use crate::{Result, StoreError};

/// The error of an operation that awaited something other than its own
/// connection (see the module's documentation).
pub const AWAITED_OUTSIDE: &str = "a store operation awaited something other than its connection";

/// Whether one of an executor's statements is outstanding: set while a
/// [`Tx`] or [`Rx`] statement runs, cleared when it returns.
#[derive(Debug, Default)]
pub struct Outstanding(AtomicBool);

impl Outstanding {
    /// Runs `statement`, marked outstanding while it runs.
    async fn run<T>(&self, statement: impl Future<Output = T>) -> T {
        self.0.store(true, Ordering::Relaxed);
        let out = statement.await;
        self.0.store(false, Ordering::Relaxed);
        out
    }
}

/// `op`'s value; [`StoreError::Internal`] as soon as `op` is pending with
/// none of its statements outstanding (it awaited something else).
pub(crate) async fn confined<T>(own: &Outstanding, op: BoxFuture<'_, Result<T>>) -> Result<T> {
    Confined { own, op }.await
}

struct Confined<'o, 'f, T> {
    own: &'o Outstanding,
    op: BoxFuture<'f, Result<T>>,
}

impl<T> Future for Confined<'_, '_, T> {
    type Output = Result<T>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        match self.op.as_mut().poll(cx) {
            Poll::Ready(out) => Poll::Ready(out),
            Poll::Pending if self.own.0.load(Ordering::Relaxed) => Poll::Pending,
            Poll::Pending => Poll::Ready(Err(StoreError::Internal(AWAITED_OUTSIDE))),
        }
    }
}

/// Declares one of the executor's connections (`$name`) over a connection
/// of each backend, and the row it reads (`$row`).
macro_rules! either_connection {
    ($(#[$doc:meta])* $name:ident, $conn:ident, $row:ident, $sqlite:ty, $sqlite_row:ty) => {
        $(#[$doc])*
        pub struct $name<'a> {
            conn: $conn<'a>,
            own: &'a Outstanding,
        }

        enum $conn<'a> {
            Sqlite(&'a mut $sqlite),
            Postgres(&'a mut sqlx::PgConnection),
        }

        impl<'a> $name<'a> {
            /// On SQLite's connection, its statements marked in `own`.
            pub(crate) fn sqlite(c: &'a mut $sqlite, own: &'a Outstanding) -> Self {
                $name { conn: $conn::Sqlite(c), own }
            }
            /// On PostgreSQL's connection, its statements marked in `own`.
            pub(crate) fn postgres(c: &'a mut sqlx::PgConnection, own: &'a Outstanding) -> Self {
                $name { conn: $conn::Postgres(c), own }
            }
        }

        /// A row a
        #[doc = concat!("[`", stringify!($name), "`]")]
        /// read.
        pub enum $row {
            Sqlite($sqlite_row),
            Postgres(sqlx::postgres::PgRow),
        }

        impl RowExt for $row {
            fn text(&self, col: &str) -> Result<String> {
                match self {
                    $row::Sqlite(r) => r.text(col),
                    $row::Postgres(r) => r.text(col),
                }
            }
            fn opt_text(&self, col: &str) -> Result<Option<String>> {
                match self {
                    $row::Sqlite(r) => r.opt_text(col),
                    $row::Postgres(r) => r.opt_text(col),
                }
            }
            fn int(&self, col: &str) -> Result<i64> {
                match self {
                    $row::Sqlite(r) => r.int(col),
                    $row::Postgres(r) => r.int(col),
                }
            }
            fn opt_int(&self, col: &str) -> Result<Option<i64>> {
                match self {
                    $row::Sqlite(r) => r.opt_int(col),
                    $row::Postgres(r) => r.opt_int(col),
                }
            }
        }

        impl Exec for $name<'_> {
            type Row = $row;
            fn dialect(&self) -> &'static Dialect {
                match &self.conn {
                    $conn::Sqlite(c) => c.dialect(),
                    $conn::Postgres(c) => c.dialect(),
                }
            }
            async fn execute(&mut self, q: &SqlBuilder) -> Result<u64> {
                let own = self.own;
                match &mut self.conn {
                    $conn::Sqlite(c) => own.run(c.execute(q)).await,
                    $conn::Postgres(c) => own.run(c.execute(q)).await,
                }
            }
            async fn fetch(&mut self, q: &SqlBuilder) -> Result<Vec<$row>> {
                let own = self.own;
                Ok(match &mut self.conn {
                    $conn::Sqlite(c) => own
                        .run(c.fetch(q))
                        .await?
                        .into_iter()
                        .map($row::Sqlite)
                        .collect(),
                    $conn::Postgres(c) => own
                        .run(c.fetch(q))
                        .await?
                        .into_iter()
                        .map($row::Postgres)
                        .collect(),
                })
            }
            async fn execute_script(&mut self, sql: &str) -> Result<()> {
                let own = self.own;
                match &mut self.conn {
                    $conn::Sqlite(c) => own.run(c.execute_script(sql)).await,
                    $conn::Postgres(c) => own.run(c.execute_script(sql)).await,
                }
            }
        }
    };
}

either_connection!(
    /// One write transaction on either backend, for composing operations:
    /// every operation (`crate::tenants::create`, …) takes `&mut Tx` as its
    /// [`Exec`]. It must await nothing but its operations (see the module's
    /// documentation).
    Tx,
    TxConn,
    TxRow,
    crate::sqlite::Writer,
    crate::sqlite::WriterRow
);

either_connection!(
    /// A connection of the read pool on either backend (outside any
    /// transaction: each statement sees what was committed when it ran),
    /// for running reads: every operation takes `&mut Rx` as its [`Exec`].
    /// It must await nothing but its operations, as [`Tx`].
    Rx,
    RxConn,
    RxRow,
    sqlx::SqliteConnection,
    sqlx::sqlite::SqliteRow
);

/// An operation's value, type-erased to cross [`Executor`]'s `dyn` calls.
pub type Boxed = Box<dyn Any + Send>;

/// Operations a caller composes in one write transaction.
pub type WriteFn = Box<dyn for<'a> FnOnce(Tx<'a>) -> BoxFuture<'a, Result<Boxed>> + Send>;

/// Operations a caller composes on one read connection.
pub type ReadFn = Box<dyn for<'a> FnOnce(Rx<'a>) -> BoxFuture<'a, Result<Boxed>> + Send>;

/// Runs the operations a caller composes, through `Arc<dyn Store>`; use it
/// through [`ExecutorExt`], which types the value.
#[async_trait]
pub trait Executor: Send + Sync {
    /// Runs `f` as one transaction committed as `commit` says; its value
    /// comes back boxed.
    async fn write_boxed(&self, commit: Commit, f: WriteFn) -> Result<Boxed>;
    /// Runs `f` on a connection of the read pool; its value comes back
    /// boxed.
    async fn read_boxed(&self, f: ReadFn) -> Result<Boxed>;
}

#[async_trait]
impl<B: Backend> Executor for B {
    async fn write_boxed(&self, commit: Commit, f: WriteFn) -> Result<Boxed> {
        self.write(commit, move |w| {
            Box::pin(async move {
                let own = Outstanding::default();
                confined(&own, f(B::Txns::tx(w, &own))).await
            })
        })
        .await
    }

    async fn read_boxed(&self, f: ReadFn) -> Result<Boxed> {
        let mut reader = self.reader().await?;
        let own = Outstanding::default();
        confined(&own, f(B::rx(&mut reader, &own))).await
    }
}

/// [`Executor`] with the values typed: `store.read(|x| …)` and
/// `store.write(commit, |x| …)` (see the module's documentation).
pub trait ExecutorExt: Executor {
    /// Runs `f` as one transaction, committed as `commit` says
    /// ([`Commit::Durable`] for every change a caller is told succeeded);
    /// rolled back if `f` fails. `f` must await nothing but its
    /// operations on the [`Tx`].
    fn write<T, F>(&self, commit: Commit, f: F) -> impl Future<Output = Result<T>> + Send
    where
        T: Send + 'static,
        F: for<'a> FnOnce(Tx<'a>) -> BoxFuture<'a, Result<T>> + Send + 'static,
    {
        let boxed: WriteFn = Box::new(move |tx| {
            let run = f(tx);
            Box::pin(async move { Ok(Box::new(run.await?) as Boxed) })
        });
        async move { typed(self.write_boxed(commit, boxed).await?) }
    }

    /// Runs `f` on a connection of the read pool. `f` must await nothing
    /// but its operations on the [`Rx`].
    fn read<T, F>(&self, f: F) -> impl Future<Output = Result<T>> + Send
    where
        T: Send + 'static,
        F: for<'a> FnOnce(Rx<'a>) -> BoxFuture<'a, Result<T>> + Send + 'static,
    {
        let boxed: ReadFn = Box::new(move |rx| {
            let run = f(rx);
            Box::pin(async move { Ok(Box::new(run.await?) as Boxed) })
        });
        async move { typed(self.read_boxed(boxed).await?) }
    }
}

impl<S: Executor + ?Sized> ExecutorExt for S {}

fn typed<T: 'static>(out: Boxed) -> Result<T> {
    out.downcast::<T>()
        .map(|v| *v)
        .map_err(|_| StoreError::Corrupt("an operation's value of another type".into()))
}
