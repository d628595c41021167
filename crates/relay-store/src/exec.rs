//! [`Exec`]: what every storage operation is written over. An operation is
//! a function `async fn op<X: Exec>(x: &mut X, …)` that runs built
//! statements ([`SqlBuilder`]) on `x` and awaits nothing else, so the one
//! text serves both backends and every way a statement runs:
//!
//! - SQLite writes: the `Writer` (`crate::sqlite`: its own rusqlite
//!   connection, on a thread of its own), inside one of its cycles; every
//!   statement completes at once and the whole transaction runs as one call.
//! - PostgreSQL writes: the transaction's [`sqlx::PgConnection`].
//! - Reads: a pooled sqlx connection of the read pool (SQLite's read-only
//!   pool; PostgreSQL's pool), outside any transaction.
//!
//! A caller outside the crate composes operations on the executor's
//! [`Tx`](crate::executor::Tx) (a write transaction) or
//! [`Rx`](crate::executor::Rx) (a read), on either backend (see
//! `crate::executor`). The few dialect differences are a [`Dialect`] each
//! backend names side by side with its other constants.

use std::future::Future;

use crate::Result;
use crate::live_claim::LiveClaimDialect;
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};

/// How a transaction's commit must survive a power cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// On disk before the commit returns: publishes (before their `202`),
    /// completions (a delivery is recorded before it counts), and every
    /// change an API caller is told succeeded.
    Durable,
    /// Visible at once, on disk with the next durable commit (the log is
    /// written in order): claims. A claim lost in a power cut loses nothing,
    /// since the leases of a process that stopped expire and are rescued.
    Lease,
}

/// What the SQL of the two backends does differently.
#[derive(Debug)]
pub struct Dialect {
    /// `sqlite` or `postgres`.
    pub backend: &'static str,
    /// Candidates a claim looks at per message it may take.
    pub claim_candidates: i64,
    /// Appended to a scan whose rows another transaction may be taking
    /// (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: one writer).
    pub skip_locked: &'static str,
    /// Appended to a read that must lock its rows until the transaction
    /// ends (PostgreSQL: `FOR UPDATE`; SQLite: one writer).
    pub for_update: &'static str,
    /// Appended to a read that must keep its rows from changing until the
    /// transaction ends (PostgreSQL: `FOR SHARE`; SQLite: one writer).
    pub for_share: &'static str,
    /// Names the index of the recovery tenants' skip scan, where needed.
    pub recovery_index: &'static str,
    /// Wakes other nodes' dispatchers when the transaction commits.
    pub wake_notify: Option<&'static str>,
    /// Tells other nodes' dispatchers, when the transaction commits, that
    /// an endpoint's state changed (`$1`: `<state>:<endpoint id>`).
    pub endpoint_notify: Option<&'static str>,
    /// The live claim's dialect (see [`crate::live_claim::live_claim`]).
    pub live_claim: LiveClaimDialect,
    /// Batches bind a column as one array (see [`SqlBuilder::rows`]).
    pub arrays: bool,
    /// Taken before migrating, so nodes starting together migrate once.
    pub migration_lock: Option<&'static str>,
    /// A migration's text for this backend.
    pub migration_sql: fn(&crate::migrate::Migration) -> &'static str,
    /// Reads the server's clock as `now_ms` (unix milliseconds); `None`
    /// where the database has no clock of its own (see [`crate::clock`]).
    pub database_now: Option<&'static str>,
}

/// Runs built statements on whatever holds the connection (see the
/// module's documentation).
pub trait Exec: Send {
    type Row: RowExt + Send + Sync;
    /// This backend's SQL differences.
    fn dialect(&self) -> &'static Dialect;
    /// Runs `q`; returns the rows it changed.
    fn execute(&mut self, q: &SqlBuilder) -> impl Future<Output = Result<u64>> + Send;
    /// Runs `q`; returns its rows.
    fn fetch(&mut self, q: &SqlBuilder) -> impl Future<Output = Result<Vec<Self::Row>>> + Send;
    /// Runs `sql`, several statements without values (a migration).
    fn execute_script(&mut self, sql: &str) -> impl Future<Output = Result<()>> + Send;
}

/// The first row `q` returns, if any.
pub async fn fetch_optional<X: Exec>(x: &mut X, q: &SqlBuilder) -> Result<Option<X::Row>> {
    Ok(x.fetch(q).await?.into_iter().next())
}

/// The one row `q` must return (an aggregate's).
pub async fn fetch_one<X: Exec>(x: &mut X, q: &SqlBuilder) -> Result<X::Row> {
    fetch_optional(x, q)
        .await?
        .ok_or_else(|| crate::StoreError::Corrupt("a query of one row returned none".into()))
}

macro_rules! impl_exec_for_sqlx {
    ($conn:ty, $db:ty, $dialect:expr) => {
        impl Exec for $conn {
            type Row = <$db as sqlx::Database>::Row;
            fn dialect(&self) -> &'static Dialect {
                &$dialect
            }
            async fn execute(&mut self, q: &SqlBuilder) -> Result<u64> {
                Ok(built::<$db>(q).execute(&mut *self).await?.rows_affected())
            }
            async fn fetch(&mut self, q: &SqlBuilder) -> Result<Vec<Self::Row>> {
                Ok(built::<$db>(q).fetch_all(&mut *self).await?)
            }
            async fn execute_script(&mut self, sql: &str) -> Result<()> {
                sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
                    .execute(&mut *self)
                    .await?;
                Ok(())
            }
        }
    };
}

impl_exec_for_sqlx!(
    sqlx::SqliteConnection,
    sqlx::Sqlite,
    crate::sqlite::dialect::DIALECT
);
impl_exec_for_sqlx!(
    sqlx::PgConnection,
    sqlx::Postgres,
    crate::postgres::dialect::DIALECT
);

/// `q` as a sqlx query with its values bound in order.
pub fn built<DB>(q: &SqlBuilder) -> sqlx::query::Query<'static, DB, DB::Arguments>
where
    DB: BindArrays,
    String: for<'a> sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    i64: for<'a> sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    Option<String>: for<'a> sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    Option<i64>: for<'a> sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    let mut query = sqlx::query::<DB>(sqlx::AssertSqlSafe(q.sql.clone()));
    for b in &q.binds {
        query = match b {
            Bind::Text(s) => query.bind(s.clone()),
            Bind::Int(i) => query.bind(*i),
            Bind::OptInt(i) => query.bind(*i),
            Bind::OptText(t) => query.bind(t.clone()),
            Bind::Texts(_) | Bind::Ints(_) => DB::bind_array(query, b),
        };
    }
    query
}

/// How a backend binds a column of values ([`Bind::Texts`], [`Bind::Ints`]).
pub trait BindArrays: sqlx::Database {
    fn bind_array(
        query: sqlx::query::Query<'static, Self, Self::Arguments>,
        array: &Bind,
    ) -> sqlx::query::Query<'static, Self, Self::Arguments>;
}

impl BindArrays for sqlx::Postgres {
    fn bind_array(
        query: sqlx::query::Query<'static, Self, Self::Arguments>,
        array: &Bind,
    ) -> sqlx::query::Query<'static, Self, Self::Arguments> {
        match array {
            Bind::Texts(v) => query.bind(v.clone()),
            Bind::Ints(v) => query.bind(v.clone()),
            _ => query.bind(Option::<String>::None),
        }
    }
}

impl BindArrays for sqlx::Sqlite {
    /// As JSON text ([`Bind::json_array`]): SQLite has no arrays.
    fn bind_array(
        query: sqlx::query::Query<'static, Self, Self::Arguments>,
        array: &Bind,
    ) -> sqlx::query::Query<'static, Self, Self::Arguments> {
        query.bind(array.json_array())
    }
}

/// The one row `sql` selects by `(tenant_id, environment, id)` as
/// `$1, $2, $3`: how every scoped get-by-id reads.
pub async fn scoped_row<X: Exec>(
    x: &mut X,
    sql: &str,
    scope: &crate::Scope,
    id: &str,
) -> Result<Option<X::Row>> {
    fetch_optional(
        x,
        &SqlBuilder::of(
            sql,
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                id.into(),
            ],
        ),
    )
    .await
}

/// One page (by id) of `table`'s rows in `scope`, narrowed further by
/// `narrow`.
pub async fn list_scoped<X: Exec, T>(
    x: &mut X,
    table: &str,
    scope: &crate::Scope,
    page: &crate::PageRequest,
    narrow: impl FnOnce(&mut SqlBuilder),
    row: fn(&X::Row) -> Result<T>,
    id_of: impl Fn(&T) -> &str,
) -> Result<relay_core::model::Page<T>> {
    let mut q = SqlBuilder::new(&format!("SELECT * FROM {table} WHERE tenant_id = "));
    q.bind(scope.tenant_id.as_str().into())
        .push(" AND environment = ")
        .bind(scope.environment.as_str().into());
    narrow(&mut q);
    q.paginate("id", page);
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(row)
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, id_of))
}
