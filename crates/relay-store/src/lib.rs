//! Relay's storage: the database is the queue.
//!
//! Two backends, [`sqlite::SqliteStore`] (embedded, the zero-configuration
//! default) and [`postgres::PgStore`] (many nodes share one database), run
//! the same SQL wherever the dialects agree. Every operation is written once,
//! as a function over [`Exec`] in the module of its aggregate, and runs on
//! either backend ([`Backend`]): writes as one transaction on the backend's
//! writer, reads on its read pool. The few dialect differences are one
//! [`exec::Dialect`] per backend, side by side.
//!
//! - Aggregates: [`tenants`] (and API keys), [`settings`], [`event_types`],
//!   [`consumers`], [`endpoints`], [`publish`], [`messages`] (reads,
//!   cancel), [`claims`], [`completions`], [`manual`] attempts (audited:
//!   [`manual_audit`]), [`window`],
//!   [`recovery`], [`jobs`], [`retention`], [`audit`], [`health`],
//!   [`operational`] events, [`lifecycle`] (endpoint state changes) and
//!   [`portal`] (portal tokens, the tenant's portal brand) and
//!   [`inbound`] (inbound provider webhooks' sources, receipts, ledger)
//!   and [`secrets`] (tenant secrets, sealed under the master key),
//!   [`circuits`] (endpoints' circuit breakers for the whole cluster) and
//!   [`shares`] (each node's share of an endpoint's limits on PostgreSQL).
//! - [`executor`]: the one way a caller runs operations, through
//!   `Arc<dyn Store>`: `store.write(commit, |x| …)` composes them in one
//!   transaction, `store.read(|x| …)` on one read connection
//!   ([`ExecutorExt`]); an operation that awaits anything but its own
//!   connection fails there on both backends ([`StoreError::Internal`]).
//! - [`roles`]: what each part of Relay needs of the store, one trait each
//!   ([`Operator`], [`Publisher`], [`Signals`]), implemented once for
//!   every [`Backend`]: what is left once every operation moved to the
//!   executor; [`Store`] is all of them and the [`Executor`].
//! - [`exec`], [`sql`], [`rows`]: running built statements, building them,
//!   reading rows into `relay-core`'s types.
//! - [`group`]: the group committer of publishes.
//! - [`migrate`]: embedded migrations, applied by `relay migrate` and at start.
//! - [`keys`]: signing keys generated, sealed under the master key, and opened.
//! - [`seed`]: bulk rows and scratch databases for `relay bench`, not used
//!   by the product.
//! - `conformance`: the suite both backends must pass; every storage
//!   behaviour gets a case there.
//! - `testenv`: where every crate's tests find PostgreSQL (the local
//!   server when it answers), and how they say `SKIPPED` without it.
//!
//!   Both are test support, compiled only with the `testing` feature (which
//!   the crates' dev-dependencies turn on) or in this crate's own tests.
//!
//! Errors: [`StoreError`] keeps the database error as its source; constraint
//! violations are recognised by kind (SQLSTATE class), never by message text.

pub mod audience;
pub mod audit;
pub mod backend;
pub mod circuits;
pub mod claims;
pub mod clock;
pub mod completions;
#[cfg(any(test, feature = "testing"))]
pub mod conformance;
pub mod consumers;
pub mod endpoints;
pub mod event_types;
pub mod exec;
pub mod executor;
pub mod group;
pub mod health;
pub mod inbound;
pub mod jobs;
pub mod keys;
pub mod lifecycle;
pub mod live_claim;
pub mod manual;
pub mod manual_audit;
pub mod messages;
pub mod migrate;
pub mod object_batches;
pub mod operational;
pub mod ordering;
pub mod ownership;
pub mod portal;
pub mod postgres;
pub mod publish;
pub mod recovery;
pub mod reseal;
pub mod retention;
pub mod roles;
pub mod rows;
pub mod secrets;
pub mod seed;
pub mod settings;
pub mod shares;
pub mod sql;
pub mod sqlite;
pub mod stats;
pub mod tenants;
#[cfg(any(test, feature = "testing"))]
pub mod testenv;
mod types;
pub mod window;
pub mod workflow_steps;

pub use backend::{Backend, Writes};
pub use exec::{Commit, Exec};
pub use executor::{Executor, ExecutorExt, Rx, Tx};
pub use postgres::StoreSettings;
pub use recovery::Recovered;
pub use roles::{Operator, Publisher, Signals, Store};

use std::sync::Arc;

use relay_core::time::Timestamp;

/// Errors from the store. `NotFound` and `Conflict` are expected outcomes the
/// API maps to `404` and `409`; `Database` is an infrastructure failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// A uniqueness rule was broken; the string names the rule.
    #[error("conflict: {0}")]
    Conflict(&'static str),
    /// An operator limit was reached; the string names the limit.
    #[error("limit reached: {0}")]
    LimitReached(&'static str),
    /// The referenced object (parent tenant, consumer) does not exist.
    #[error("missing reference: {0}")]
    MissingReference(&'static str),
    #[error("database error")]
    Database(#[from] sqlx::Error),
    /// From the SQLite writer's direct calls (`sqlite`).
    #[error("database error")]
    Sqlite(#[from] rusqlite::Error),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    /// The database's schema cannot be served or migrated by this binary
    /// (it is newer, or a destructive migration waits for `relay migrate`).
    #[error("{0}")]
    Schema(String),
    #[error("invalid database url: {0}")]
    InvalidUrl(String),
    /// A part of the store is not running (it stopped with the runtime).
    #[error("store unavailable: {0}")]
    Unavailable(&'static str),
    /// What was committed could not be made durable (the SQLite log's
    /// fsync failed): the caller is not told it succeeded.
    #[error("the database log could not be synced to disk: {0}")]
    Durability(String),
    /// Relay's own mistake, not the database's: an operation broke a rule
    /// of the store (one awaited something other than its connection:
    /// [`executor::AWAITED_OUTSIDE`]).
    #[error("internal error: {0}")]
    Internal(&'static str),
}

impl StoreError {
    /// Whether a uniqueness rule (unique index, primary key) was broken.
    pub fn is_unique_violation(&self) -> bool {
        match self {
            StoreError::Database(sqlx::Error::Database(db)) => db.is_unique_violation(),
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.extended_code,
                rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    | rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            ),
            _ => false,
        }
    }

    /// Whether a foreign key was broken (the referenced row is missing).
    pub fn is_foreign_key_violation(&self) -> bool {
        match self {
            StoreError::Database(sqlx::Error::Database(db)) => db.is_foreign_key_violation(),
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY
            }
            _ => false,
        }
    }

    /// This error, or `Conflict(what)` when it broke a uniqueness rule.
    pub fn unique_as(self, what: &'static str) -> StoreError {
        if self.is_unique_violation() {
            StoreError::Conflict(what)
        } else {
            self
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

pub use types::*;

/// Opens the store a database URL names (`sqlite://…` or `postgres://…`) and
/// applies migrations (all of them: what `relay migrate` does).
pub async fn open(url: &str) -> Result<Arc<dyn Store>> {
    open_with(url, &StoreSettings::default()).await
}

/// [`open`] with the connection `settings` (PostgreSQL's pool, connect and
/// statement timeouts; SQLite has no use for them).
pub async fn open_with(url: &str, settings: &StoreSettings) -> Result<Arc<dyn Store>> {
    open_migrating(url, settings, migrate::Options::ALL).await
}

/// [`open_with`], applying only the migrations `options` allow.
pub async fn open_migrating(
    url: &str,
    settings: &StoreSettings,
    options: migrate::Options,
) -> Result<Arc<dyn Store>> {
    let store = connect(url, settings).await?;
    store.migrate_with(options).await?;
    Ok(store)
}

/// Connects to the store a database URL names without migrating it
/// (`relay migrate --check`).
pub async fn connect(url: &str, settings: &StoreSettings) -> Result<Arc<dyn Store>> {
    let store: Arc<dyn Store> = if url.starts_with("sqlite:") {
        Arc::new(sqlite::SqliteStore::connect(url).await?)
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Arc::new(postgres::PgStore::connect_with_settings(url, settings).await?)
    } else {
        return Err(StoreError::InvalidUrl(
            "expected a URL starting with sqlite:// or postgres://".into(),
        ));
    };
    Ok(store)
}

/// A fresh id of `kind` created at `now`.
///
/// Monotonic within the process (the ULID rule): ids made in the same
/// millisecond continue from the previous one instead of drawing new
/// randomness, so the order of creation is the order of the ids even when the
/// clock does not move (and keyset pagination lists them in that order).
pub fn new_id(kind: relay_core::id::IdKind, now: Timestamp) -> String {
    static LAST: std::sync::Mutex<(i64, u128)> = std::sync::Mutex::new((i64::MIN, 0));
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let millis = now.millis().max(last.0);
    let random = if millis == last.0 {
        last.1.wrapping_add(1) & ((1u128 << 80) - 1)
    } else {
        let mut bytes = [0u8; 16];
        // getrandom fails only when the OS has no entropy source at all.
        getrandom::fill(&mut bytes).expect("the operating system's random source is unavailable");
        // Leave headroom so increments within one millisecond do not wrap.
        u128::from_le_bytes(bytes) & ((1u128 << 79) - 1)
    };
    *last = (millis, random);
    relay_core::id::new_id(kind, millis, random)
}

/// `f`'s output, failing the test after 10 s instead of hanging it (the
/// backends' unit tests share it).
#[cfg(test)]
pub(crate) async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(std::time::Duration::from_secs(10), f)
        .await
        .expect("an answer within 10 s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use relay_core::id::IdKind;

    #[test]
    fn ids_made_in_one_millisecond_keep_their_order() {
        let t = Timestamp(1_900_000_000_000);
        let ids: Vec<String> = (0..1000).map(|_| new_id(IdKind::Audit, t)).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, ids);
    }
}
