//! The PostgreSQL backend: many `relay` processes share one database.
//!
//! Row locks (`FOR UPDATE`, and `SKIP LOCKED` for claims) coordinate nodes;
//! migrations take a transaction-scoped advisory lock so nodes starting
//! together apply them once.

use std::str::FromStr;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::{Result, StoreError};

pub struct PgStore {
    pub(crate) write: PgPool,
    pub(crate) read: PgPool,
    pub(crate) txns: Txns,
    /// To the group committer (`crate::group`).
    pub(crate) publishes: tokio::sync::mpsc::Sender<crate::group::PublishJob>,
}

pub(crate) mod dialect {
    pub use super::Txns;

    pub const BACKEND: &str = "postgres";
    pub const FOR_UPDATE: &str = " FOR UPDATE";
    /// Any constant works as long as every node uses the same one.
    pub const MIGRATION_LOCK: Option<&str> = Some("SELECT pg_advisory_xact_lock(7265616279)");

    /// Concurrent claimers skip each other's rows instead of waiting.
    pub const SKIP_LOCKED: &str = " FOR UPDATE SKIP LOCKED";
    /// Candidates a claim looks at, per message it may take: every candidate
    /// stays locked (and skipped by other nodes' claims) until the claim
    /// commits, so no more are locked than can be taken.
    pub const CLAIM_CANDIDATES: i64 = 1;
    /// The live claim (`crate::backend::live_claim`). Each endpoint's
    /// oldest due messages come from a `LATERAL` subquery that locks them
    /// (`SKIP LOCKED`). Its `endpoint_id` is a range of one value ordered
    /// first: with `= t.endpoint_id` the planner may think that walking
    /// `messages_due` in due order and filtering by endpoint finds `cap` rows
    /// sooner, which behind another endpoint's backlog is the walk this
    /// claim avoids; `messages_due` cannot give this order.
    pub const LIVE_CLAIM: crate::backend::LiveClaimDialect = crate::backend::LiveClaimDialect {
        id_in: (" = ANY(ARRAY(", "))"),
        due_index: "",
        endpoint_index: "",
        skip_locked: SKIP_LOCKED,
        candidates: CLAIM_CANDIDATES,
        take_each: "each(id, next_attempt_at) AS (SELECT x.id, x.next_attempt_at \
            FROM capped t CROSS JOIN LATERAL (SELECT d.id, d.next_attempt_at FROM messages d \
              WHERE d.endpoint_id >= t.endpoint_id AND d.endpoint_id <= t.endpoint_id \
              AND d.state = 'scheduled' AND d.priority = 0 AND d.next_attempt_at <= t.due_by \
              AND (d.lease_until IS NULL OR d.lease_until < t.now_ms) \
              ORDER BY d.endpoint_id, d.next_attempt_at LIMIT GREATEST(t.cap, 0) \
              FOR UPDATE SKIP LOCKED) x)",
    };
    /// Sent inside the publish transaction; delivered to listeners on commit.
    pub const WAKE_NOTIFY: Option<&str> = Some("SELECT pg_notify('relay_wake', '')");

    /// The planner picks `messages_recovery_due` for the tenant skip scan.
    pub const RECOVERY_INDEX: &str = "";

    pub fn migration_sql(m: &crate::migrate::Migration) -> &'static str {
        m.postgres
    }

    /// Listens on `relay_wake` in a background task and wakes `notify` for
    /// each notification; reconnects after errors. Missing a notification
    /// only delays delivery until the dispatcher's fallback poll.
    pub async fn listen_for_wakeups(
        pool: &sqlx::PgPool,
        notify: std::sync::Arc<tokio::sync::Notify>,
    ) -> crate::Result<()> {
        let mut listener = sqlx::postgres::PgListener::connect_with(pool).await?;
        listener.listen("relay_wake").await?;
        tokio::spawn(async move {
            loop {
                match listener.recv().await {
                    Ok(_) => notify.notify_one(),
                    Err(e) => {
                        tracing::warn!(error = %e, "LISTEN relay_wake failed; retrying");
                        notify.notify_one();
                        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    }
                }
            }
        });
        Ok(())
    }
}

impl PgStore {
    pub async fn connect(url: &str) -> Result<Self> {
        let options =
            PgConnectOptions::from_str(url).map_err(|e| StoreError::InvalidUrl(e.to_string()))?;
        Self::connect_with(options).await
    }

    /// Connects with the tables living in `schema` (created if missing). The
    /// conformance suite gives each test its own schema this way.
    pub async fn connect_in_schema(url: &str, schema: &str) -> Result<Self> {
        let options =
            PgConnectOptions::from_str(url).map_err(|e| StoreError::InvalidUrl(e.to_string()))?;
        let admin = PgPoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE SCHEMA IF NOT EXISTS \"{}\"",
            schema.replace('"', "")
        )))
        .execute(&admin)
        .await?;
        admin.close().await;
        Self::connect_with(options.options([("search_path", schema)])).await
    }

    async fn connect_with(options: PgConnectOptions) -> Result<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .connect_with(options)
            .await?;
        let txns = Txns { pool: pool.clone() };
        let (publishes, queued) = tokio::sync::mpsc::channel(crate::group::QUEUE);
        tokio::spawn(PgStore::run_publishes(txns.clone(), queued));
        Ok(PgStore {
            write: pool.clone(),
            read: pool,
            txns,
            publishes,
        })
    }

    /// Drops a schema made by [`PgStore::connect_in_schema`].
    pub async fn drop_schema(&self, schema: &str) -> Result<()> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP SCHEMA IF EXISTS \"{}\" CASCADE",
            schema.replace('"', "")
        )))
        .execute(&self.write)
        .await?;
        Ok(())
    }
}

/// Runs the hot-path transactions (`crate::txn`) on the pool.
#[derive(Clone)]
pub struct Txns {
    pool: PgPool,
}

impl Txns {
    pub(crate) fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Runs `f` as one transaction; rolled back if `f` fails. A
    /// [`Commit::Lease`](crate::txn::Commit) commits without waiting for the
    /// server's WAL flush (`synchronous_commit = off` for this transaction).
    pub(crate) async fn run<T, F>(&self, commit: crate::txn::Commit, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(
                &'a mut sqlx::PgConnection,
            ) -> futures_util::future::BoxFuture<'a, Result<T>>
            + Send
            + 'static,
    {
        let mut tx = self.pool.begin().await?;
        if commit == crate::txn::Commit::Lease {
            sqlx::query("SET LOCAL synchronous_commit = off")
                .execute(&mut *tx)
                .await?;
        }
        let out = f(&mut tx).await?;
        tx.commit().await?;
        Ok(out)
    }
}

mod imp {
    crate::backend::impl_store!(super::PgStore, sqlx::Postgres, super::dialect);
}
