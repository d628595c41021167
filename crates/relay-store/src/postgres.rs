//! The PostgreSQL backend: many `relay` processes share one database.
//!
//! Row locks (`FOR UPDATE`, and `SKIP LOCKED` for claims) coordinate nodes;
//! migrations take a transaction-scoped advisory lock so nodes starting
//! together apply them once.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::Result;

pub mod connect;

pub use connect::StoreSettings;

/// How a [`Commit::Lease`](crate::exec::Commit) transaction starts.
const LEASE_BEGIN: &str = "BEGIN; SET LOCAL synchronous_commit = off";

/// Pooled connections idle for this long are pinged before use (see
/// [`PgStore::connect_pinging`]).
const PING_IDLE_AFTER: Duration = Duration::from_secs(1);

pub struct PgStore {
    pub(crate) write: PgPool,
    pub(crate) read: PgPool,
    pub(crate) txns: Txns,
    /// To the group committer (`crate::group`).
    pub(crate) publishes: std::sync::Arc<crate::group::Pending>,
    /// The dispatcher new messages may be handed to (see [`crate::Intake`]).
    pub(crate) intake: crate::group::IntakeSlot,
}

pub(crate) mod dialect {

    pub const BACKEND: &str = "postgres";
    pub const FOR_UPDATE: &str = " FOR UPDATE";
    pub const FOR_SHARE: &str = " FOR SHARE";
    /// Any constant works as long as every node uses the same one.
    pub const MIGRATION_LOCK: Option<&str> = Some("SELECT pg_advisory_xact_lock(7265616279)");

    /// Concurrent claimers skip each other's rows instead of waiting.
    pub const SKIP_LOCKED: &str = " FOR UPDATE SKIP LOCKED";
    /// Candidates a claim looks at, per message it may take: every candidate
    /// stays locked (and skipped by other nodes' claims) until the claim
    /// commits, so no more are locked than can be taken.
    pub const CLAIM_CANDIDATES: i64 = 1;
    /// The live claim (`crate::live_claim::live_claim`). Each endpoint's
    /// oldest due messages come from a `LATERAL` subquery that locks them
    /// (`SKIP LOCKED`). Its `endpoint_id` is a range of one value ordered
    /// first: with `= t.endpoint_id` the planner may think that walking
    /// `messages_due` in due order and filtering by endpoint finds `cap` rows
    /// sooner, which behind another endpoint's backlog is the walk this
    /// claim avoids; `messages_due` cannot give this order.
    pub const LIVE_CLAIM: crate::live_claim::LiveClaimDialect =
        crate::live_claim::LiveClaimDialect {
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
    /// Batches bind one array per column (`UNNEST`): binding and planning
    /// a statement with a thousand parameters was a quarter of its time.
    pub const ARRAYS: bool = true;
    /// Publish batches at once (see [`crate::group`]): a transaction starts
    /// when it is handed over, so one; the next takes what queued meanwhile.
    pub const PUBLISH_BATCHES: usize = 1;

    /// The planner picks `messages_recovery_due` for the tenant skip scan.
    pub const RECOVERY_INDEX: &str = "";

    /// The server's clock at the statement's execution, in unix
    /// milliseconds (see `crate::clock`).
    pub const DATABASE_NOW: Option<&str> = Some(
        "SELECT CAST(floor(extract(epoch FROM clock_timestamp()) * 1000) AS BIGINT) AS now_ms",
    );

    /// The constants above, as the operations read them (`crate::exec`).
    pub const DIALECT: crate::exec::Dialect = crate::exec::Dialect {
        backend: BACKEND,
        claim_candidates: CLAIM_CANDIDATES,
        skip_locked: SKIP_LOCKED,
        for_update: FOR_UPDATE,
        for_share: FOR_SHARE,
        recovery_index: RECOVERY_INDEX,
        wake_notify: WAKE_NOTIFY,
        endpoint_notify: ENDPOINT_NOTIFY,
        live_claim: LIVE_CLAIM,
        arrays: ARRAYS,
        migration_lock: MIGRATION_LOCK,
        migration_sql,
        database_now: DATABASE_NOW,
    };

    pub fn migration_sql(m: &crate::migrate::Migration) -> &'static str {
        m.postgres
    }

    /// Told to other nodes inside an endpoint state change's transaction;
    /// the payload is `<state>:<endpoint id>`.
    pub const ENDPOINT_NOTIFY: Option<&str> = Some("SELECT pg_notify('relay_endpoint', $1)");

    /// Listens on `relay_wake` and `relay_endpoint` in a background task:
    /// wakes `notify` for each notification, and sends each endpoint state
    /// change on `endpoints`. Missing a wake-up only delays delivery until
    /// the dispatcher's fallback poll; a lost connection is replaced by a
    /// new one, and then [`crate::EndpointNotice::Reconnected`] is sent
    /// (changes committed meanwhile were not told). The task ends, closing
    /// its connection, once `stop` turns true or its sender is dropped: a
    /// stopped dispatcher's listener would otherwise hold a connection for
    /// good, and retry once a second after its database was dropped.
    pub async fn listen_for_wakeups(
        pool: &sqlx::PgPool,
        notify: std::sync::Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<crate::EndpointNotice>,
        mut stop: tokio::sync::watch::Receiver<bool>,
    ) -> crate::Result<Option<tokio::task::JoinHandle<()>>> {
        const CHANNELS: [&str; 2] = ["relay_wake", "relay_endpoint"];
        async fn connect(pool: &sqlx::PgPool) -> crate::Result<sqlx::postgres::PgListener> {
            let mut listener = sqlx::postgres::PgListener::connect_with(pool).await?;
            listener.listen_all(CHANNELS).await?;
            Ok(listener)
        }
        let mut listener = connect(pool).await?;
        let pool = pool.clone();
        Ok(Some(tokio::spawn(async move {
            loop {
                let received = tokio::select! {
                    biased;
                    _ = stop.wait_for(|stopped| *stopped) => return,
                    received = listener.try_recv() => received,
                };
                notify.notify_one();
                match received {
                    Ok(Some(n)) if n.channel() == "relay_endpoint" => {
                        if let Some(notice) = super::endpoint_notice(n.payload()) {
                            let _ = endpoints.send(notice);
                        }
                    }
                    Ok(Some(_)) => {}
                    // The connection was lost (`Ok(None)`) or failed: listen
                    // on a new one, then say that changes may have been missed.
                    lost => {
                        if let Err(e) = lost {
                            tracing::warn!(error = %e, "LISTEN relay_wake failed; retrying");
                        } else {
                            tracing::warn!("LISTEN connection lost; listening again");
                        }
                        loop {
                            tokio::select! {
                                biased;
                                _ = stop.wait_for(|stopped| *stopped) => return,
                                _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
                            }
                            match connect(&pool).await {
                                Ok(l) => {
                                    listener = l;
                                    break;
                                }
                                Err(e) => {
                                    tracing::warn!(error = %e, "LISTEN again failed; retrying")
                                }
                            }
                        }
                        notify.notify_one();
                        let _ = endpoints.send(crate::EndpointNotice::Reconnected);
                    }
                }
            }
        })))
    }
}

/// The notice a `relay_endpoint` payload (`<state>:<endpoint id>`) tells.
fn endpoint_notice(payload: &str) -> Option<crate::EndpointNotice> {
    let (state, endpoint_id) = payload.split_once(':')?;
    Some(crate::EndpointNotice::Changed {
        endpoint_id: endpoint_id.to_string(),
        state: relay_core::model::EndpointState::parse(state)?,
    })
}

impl PgStore {
    pub async fn connect(url: &str) -> Result<Self> {
        Self::connect_with_settings(url, &StoreSettings::default()).await
    }

    /// Connects to the database `url` names (its TLS parameters checked,
    /// [`connect::connect_options`]) with the pool `settings` describe.
    pub async fn connect_with_settings(url: &str, settings: &StoreSettings) -> Result<Self> {
        let options = connect::connect_options(url)?;
        Self::connect_pinging(options, PING_IDLE_AFTER, settings).await
    }

    /// Connects with the tables living in `schema` (created if missing). The
    /// conformance suite gives each test its own schema this way.
    pub async fn connect_in_schema(url: &str, schema: &str) -> Result<Self> {
        let options = connect::connect_options(url)?;
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
        Self::connect_pinging(options, PING_IDLE_AFTER, &StoreSettings::default()).await
    }

    /// Connects with connections idle for longer than `ping_idle_after`
    /// pinged before use (sqlx pings every one by default: a round trip more
    /// for every transaction and read on the hot path). A pinged connection
    /// the server has closed is replaced before use; one in use within that
    /// time is taken as it is, and if the server closed it meanwhile its
    /// first statement fails, as one in a running transaction would.
    async fn connect_pinging(
        options: PgConnectOptions,
        ping_idle_after: Duration,
        settings: &StoreSettings,
    ) -> Result<Self> {
        let statement_timeout = settings
            .statement_timeout
            .map(connect::statement_timeout_sql);
        let pool = PgPoolOptions::new()
            .max_connections(settings.pool_size)
            .acquire_timeout(settings.connect_timeout)
            .after_connect(move |conn, _| {
                let set = statement_timeout.clone();
                Box::pin(async move {
                    if let Some(set) = set {
                        sqlx::raw_sql(sqlx::AssertSqlSafe(set))
                            .execute(&mut *conn)
                            .await?;
                    }
                    Ok(())
                })
            })
            .test_before_acquire(false)
            .before_acquire(move |conn, meta| {
                Box::pin(async move {
                    if meta.idle_for >= ping_idle_after {
                        sqlx::Connection::ping(conn).await?;
                    }
                    Ok(true)
                })
            })
            .connect_with(options)
            .await?;
        let txns = Txns::new(pool.clone());
        let (publishes, intake) = crate::group::start_committer(&txns, dialect::PUBLISH_BATCHES);
        Ok(PgStore {
            write: pool.clone(),
            read: pool,
            txns,
            publishes,
            intake,
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

impl crate::backend::Backend for PgStore {
    type Txns = Txns;
    type Read = sqlx::PgConnection;
    type Reader = sqlx::pool::PoolConnection<sqlx::Postgres>;

    fn dialect(&self) -> &'static crate::exec::Dialect {
        &dialect::DIALECT
    }

    fn txns(&self) -> &Txns {
        &self.txns
    }

    async fn reader(&self) -> Result<Self::Reader> {
        Ok(self.read.acquire().await?)
    }

    fn rx<'a>(
        r: &'a mut sqlx::PgConnection,
        own: &'a crate::executor::Outstanding,
    ) -> crate::executor::Rx<'a> {
        crate::executor::Rx::postgres(r, own)
    }

    fn publishes(&self) -> &crate::group::Pending {
        &self.publishes
    }

    fn intake(&self) -> &crate::group::IntakeSlot {
        &self.intake
    }

    async fn listen(
        &self,
        notify: Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<crate::EndpointNotice>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<()>>> {
        dialect::listen_for_wakeups(&self.write, notify, endpoints, stop).await
    }
}

impl crate::backend::Writes for Txns {
    type Write = sqlx::PgConnection;

    async fn write<T, F>(&self, commit: crate::exec::Commit, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(
                &'a mut sqlx::PgConnection,
            ) -> futures_util::future::BoxFuture<'a, Result<T>>
            + Send
            + 'static,
    {
        self.run(commit, f).await
    }

    fn wrote(&self, messages: u64) {
        Txns::wrote(self, messages)
    }

    fn tx<'a>(
        c: &'a mut sqlx::PgConnection,
        own: &'a crate::executor::Outstanding,
    ) -> crate::executor::Tx<'a> {
        crate::executor::Tx::postgres(c, own)
    }
}

/// Runs the hot-path transactions (`crate::exec::Exec` operations) on the pool.
#[derive(Clone)]
pub struct Txns {
    pool: PgPool,
    statistics: Arc<Statistics>,
}

/// When this store last had the planner's statistics of its hot tables
/// refreshed. A new database has none, and autovacuum looks only once a
/// minute (`autovacuum_naptime`): until then the planner takes the queue's
/// tables for empty and, for one, filtered every event of a tenant to find
/// a few by id (2.4 ms instead of 0.1 ms per publish batch). So the store
/// runs `ANALYZE` itself after 1,000 new messages, then 2,000, 4,000, …
/// since it started; autovacuum keeps them fresh after that.
#[derive(Debug)]
struct Statistics {
    written: AtomicU64,
    next: AtomicU64,
    /// The latest refresh (tests await it).
    last: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// Refreshes the statistics of the tables the hot path's plans depend on
/// (`SKIP_LOCKED`: another node's `ANALYZE` of a table is as good).
const ANALYZE_HOT_TABLES: &str =
    "ANALYZE (SKIP_LOCKED) events, messages, attempts, endpoint_latency";
/// New messages before the first `ANALYZE`.
const FIRST_ANALYZE: u64 = 1_000;

impl Txns {
    fn new(pool: PgPool) -> Self {
        Txns {
            pool,
            statistics: Arc::new(Statistics {
                written: AtomicU64::new(0),
                next: AtomicU64::new(FIRST_ANALYZE),
                last: std::sync::Mutex::new(None),
            }),
        }
    }

    /// Counts `messages` new messages; refreshes the statistics (in the
    /// background) when they pass the next mark.
    pub(crate) fn wrote(&self, messages: u64) {
        let s = &self.statistics;
        let written = s.written.fetch_add(messages, Ordering::Relaxed) + messages;
        let next = s.next.load(Ordering::Relaxed);
        if written < next
            || s.next
                .compare_exchange(
                    next,
                    next.saturating_mul(2),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return;
        }
        let pool = self.pool.clone();
        let refresh = tokio::spawn(async move {
            if let Err(e) = sqlx::query(ANALYZE_HOT_TABLES).execute(&pool).await {
                tracing::warn!(error = %e, "refreshing the planner's statistics failed");
            }
        });
        if let Ok(mut last) = s.last.lock() {
            *last = Some(refresh);
        }
    }

    /// The latest statistics refresh, if one was started and not yet taken.
    #[cfg(test)]
    fn last_refresh(&self) -> Option<tokio::task::JoinHandle<()>> {
        self.statistics.last.lock().ok().and_then(|mut l| l.take())
    }

    /// Runs `f` as one transaction; rolled back if `f` fails. A
    /// [`Commit::Lease`](crate::exec::Commit) commits without waiting for the
    /// server's WAL flush (`synchronous_commit = off` for this transaction).
    pub(crate) async fn run<T, F>(&self, commit: crate::exec::Commit, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(
                &'a mut sqlx::PgConnection,
            ) -> futures_util::future::BoxFuture<'a, Result<T>>
            + Send
            + 'static,
    {
        let mut tx = match commit {
            crate::exec::Commit::Durable => self.pool.begin().await?,
            // In `BEGIN`'s round trip (one simple query), not one of its own.
            crate::exec::Commit::Lease => self.pool.begin_with(LEASE_BEGIN).await?,
        };
        let out = f(&mut tx).await?;
        tx.commit().await?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
