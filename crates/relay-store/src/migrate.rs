//! Embedded migrations.
//!
//! Each migration is SQL text compiled into the binary. Most run unchanged on
//! both backends (see the header of `migrations/0001_init.sql`); a migration
//! that needs dialect-specific SQL sets `postgres` and `sqlite` apart. The
//! runner ([`apply`], one transaction on the writer) takes a lock
//! (PostgreSQL advisory lock; SQLite's single writer) and applies what
//! `relay_migrations` does not list yet.
//!
//! Before applying anything the runner compares what the database lists
//! with what the binary embeds ([`status_of`]): a database holding a
//! migration this binary does not know (a newer Relay migrated it) is
//! refused with [`StoreError::Schema`](crate::StoreError::Schema) rather
//! than served by code that does not know its shape. A migration whose SQL
//! holds the line [`DESTRUCTIVE_MARK`] (it drops or rewrites data an older
//! binary still reads) runs only when [`Options::allow_destructive`] says
//! so: `relay migrate` does, `relay serve` on PostgreSQL (where other nodes
//! may still run the older binary) only with `--allow-destructive-migrations`.

pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub postgres: &'static str,
    pub sqlite: &'static str,
}

const INIT: &str = include_str!("../migrations/0001_init.sql");
const LATENCY_HISTOGRAM: &str = include_str!("../migrations/0002_latency_histogram.sql");
const RECOVERY_FAIRNESS: &str = include_str!("../migrations/0003_recovery_fairness.sql");
const LIVE_DUE_BY_ENDPOINT: &str = include_str!("../migrations/0004_live_due_by_endpoint.sql");
const MESSAGE_TTL: &str = include_str!("../migrations/0005_message_ttl.sql");
const MESSAGES_BY_EVENT: &str = include_str!("../migrations/0006_messages_by_event.sql");
const EVENT_TIME: &str = include_str!("../migrations/0007_event_time.sql");
const CONSUMER_KIND: &str = include_str!("../migrations/0008_consumer_kind.sql");
const ATTEMPT_RECORD_PG: &str = include_str!("../migrations/0009_attempt_record_postgres.sql");
const ATTEMPT_RECORD_SQLITE: &str = include_str!("../migrations/0009_attempt_record_sqlite.sql");
const THIN_FIELDS: &str = include_str!("../migrations/0010_thin_fields.sql");
const ENDPOINT_VERSIONS: &str = include_str!("../migrations/0014_endpoint_versions.sql");
const PORTAL: &str = include_str!("../migrations/0012_portal.sql");
const INBOUND: &str = include_str!("../migrations/0011_inbound.sql");
const TENANT_SECRETS: &str = include_str!("../migrations/0013_tenant_secrets.sql");
const OBJECT_BATCHES: &str = include_str!("../migrations/0015_object_batches.sql");
const ENDPOINT_REVISION: &str = include_str!("../migrations/0016_endpoint_revision.sql");
const EVENT_TYPE_AUDIENCE: &str = include_str!("../migrations/0017_event_type_audience.sql");
const MESSAGE_TYPE_VERSION: &str = include_str!("../migrations/0018_message_type_version.sql");
const CLUSTER_SHARES: &str = include_str!("../migrations/0019_cluster_shares.sql");
const CLUSTER_CIRCUITS: &str = include_str!("../migrations/0020_cluster_circuits.sql");
const ORDERED_DELIVERY: &str = include_str!("../migrations/0021_ordered_delivery.sql");
const OWNERSHIP_PROOF: &str = include_str!("../migrations/0022_ownership_proof.sql");
const WORKFLOW_STEPS: &str = include_str!("../migrations/0023_workflow_steps.sql");
const MESSAGES_BY_EVENT_IN_ORDER: &str =
    include_str!("../migrations/0024_messages_by_event_in_order.sql");

/// All migrations, oldest first. Never edit one that has shipped; add another.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "init",
        postgres: INIT,
        sqlite: INIT,
    },
    Migration {
        version: 2,
        name: "latency_histogram",
        postgres: LATENCY_HISTOGRAM,
        sqlite: LATENCY_HISTOGRAM,
    },
    Migration {
        version: 3,
        name: "recovery_fairness",
        postgres: RECOVERY_FAIRNESS,
        sqlite: RECOVERY_FAIRNESS,
    },
    Migration {
        version: 4,
        name: "live_due_by_endpoint",
        postgres: LIVE_DUE_BY_ENDPOINT,
        sqlite: LIVE_DUE_BY_ENDPOINT,
    },
    Migration {
        version: 5,
        name: "message_ttl",
        postgres: MESSAGE_TTL,
        sqlite: MESSAGE_TTL,
    },
    Migration {
        version: 6,
        name: "messages_by_event",
        postgres: MESSAGES_BY_EVENT,
        sqlite: MESSAGES_BY_EVENT,
    },
    Migration {
        version: 7,
        name: "event_time",
        postgres: EVENT_TIME,
        sqlite: EVENT_TIME,
    },
    Migration {
        version: 8,
        name: "consumer_kind",
        postgres: CONSUMER_KIND,
        sqlite: CONSUMER_KIND,
    },
    Migration {
        version: 9,
        name: "attempt_record",
        postgres: ATTEMPT_RECORD_PG,
        sqlite: ATTEMPT_RECORD_SQLITE,
    },
    Migration {
        version: 10,
        name: "thin_fields",
        postgres: THIN_FIELDS,
        sqlite: THIN_FIELDS,
    },
    Migration {
        version: 11,
        name: "inbound",
        postgres: INBOUND,
        sqlite: INBOUND,
    },
    Migration {
        version: 12,
        name: "portal",
        postgres: PORTAL,
        sqlite: PORTAL,
    },
    Migration {
        version: 13,
        name: "tenant_secrets",
        postgres: TENANT_SECRETS,
        sqlite: TENANT_SECRETS,
    },
    Migration {
        version: 14,
        name: "endpoint_versions",
        postgres: ENDPOINT_VERSIONS,
        sqlite: ENDPOINT_VERSIONS,
    },
    Migration {
        version: 15,
        name: "object_batches",
        postgres: OBJECT_BATCHES,
        sqlite: OBJECT_BATCHES,
    },
    Migration {
        version: 16,
        name: "endpoint_revision",
        postgres: ENDPOINT_REVISION,
        sqlite: ENDPOINT_REVISION,
    },
    Migration {
        version: 17,
        name: "event_type_audience",
        postgres: EVENT_TYPE_AUDIENCE,
        sqlite: EVENT_TYPE_AUDIENCE,
    },
    Migration {
        version: 18,
        name: "message_type_version",
        postgres: MESSAGE_TYPE_VERSION,
        sqlite: MESSAGE_TYPE_VERSION,
    },
    Migration {
        version: 19,
        name: "cluster_shares",
        postgres: CLUSTER_SHARES,
        sqlite: CLUSTER_SHARES,
    },
    Migration {
        version: 20,
        name: "cluster_circuits",
        postgres: CLUSTER_CIRCUITS,
        sqlite: CLUSTER_CIRCUITS,
    },
    Migration {
        version: 21,
        name: "ordered_delivery",
        postgres: ORDERED_DELIVERY,
        sqlite: ORDERED_DELIVERY,
    },
    Migration {
        version: 22,
        name: "ownership_proof",
        postgres: OWNERSHIP_PROOF,
        sqlite: OWNERSHIP_PROOF,
    },
    Migration {
        version: 23,
        name: "workflow_steps",
        postgres: WORKFLOW_STEPS,
        sqlite: WORKFLOW_STEPS,
    },
    Migration {
        version: 24,
        name: "messages_by_event_in_order",
        postgres: MESSAGES_BY_EVENT_IN_ORDER,
        sqlite: MESSAGES_BY_EVENT_IN_ORDER,
    },
];

/// The line a destructive migration's SQL carries (see the module's documentation).
pub const DESTRUCTIVE_MARK: &str = "-- relay: destructive";

impl Migration {
    /// Whether this migration drops or rewrites data an older binary reads.
    pub fn destructive(&self) -> bool {
        self.postgres.contains(DESTRUCTIVE_MARK) || self.sqlite.contains(DESTRUCTIVE_MARK)
    }
}

/// What the runner may apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Apply migrations marked destructive too (otherwise they are refused).
    pub allow_destructive: bool,
}

impl Options {
    /// Everything: what `relay migrate` (and the tests) run.
    pub const ALL: Options = Options {
        allow_destructive: true,
    };
}

/// Where a database's schema stands against the migrations a binary embeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaStatus {
    /// Every embedded migration is applied, and nothing else.
    Current { version: i64 },
    /// Some embedded migrations are not applied yet: (version, name,
    /// destructive) of each, oldest first.
    Behind {
        applied: Option<i64>,
        pending: Vec<(i64, &'static str, bool)>,
    },
    /// The database lists migrations this binary does not know.
    Newer { known: i64, unknown: Vec<i64> },
}

/// Compares the versions a database lists with `known`.
pub fn status_of(applied: &[i64], known: &[Migration]) -> SchemaStatus {
    let latest = known.iter().map(|m| m.version).max().unwrap_or(0);
    let mut unknown: Vec<i64> = applied
        .iter()
        .copied()
        .filter(|v| !known.iter().any(|m| m.version == *v))
        .collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        return SchemaStatus::Newer {
            known: latest,
            unknown,
        };
    }
    let pending: Vec<(i64, &'static str, bool)> = known
        .iter()
        .filter(|m| !applied.contains(&m.version))
        .map(|m| (m.version, m.name, m.destructive()))
        .collect();
    if pending.is_empty() {
        SchemaStatus::Current { version: latest }
    } else {
        SchemaStatus::Behind {
            applied: applied.iter().copied().max(),
            pending,
        }
    }
}

/// The versions `relay_migrations` lists (none when the table is missing).
pub async fn applied<X: crate::exec::Exec>(x: &mut X) -> crate::Result<Vec<i64>> {
    use crate::rows::RowExt;
    use crate::sql::SqlBuilder;
    x.execute_script(CREATE_MIGRATIONS_TABLE).await?;
    x.fetch(&SqlBuilder::new("SELECT version FROM relay_migrations"))
        .await?
        .iter()
        .map(|r| r.int("version"))
        .collect()
}

/// The table that records applied migrations (same SQL on both backends).
pub const CREATE_MIGRATIONS_TABLE: &str = "CREATE TABLE IF NOT EXISTS relay_migrations (\
    version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)";

/// Applies the migrations `relay_migrations` does not list yet, in the
/// caller's transaction.
pub async fn apply<X: crate::exec::Exec>(x: &mut X) -> crate::Result<()> {
    apply_list(x, MIGRATIONS, Options::ALL).await
}

/// Applies what `relay_migrations` does not list yet of `migrations`, in
/// the caller's transaction, as `options` allow; refuses a newer schema.
pub async fn apply_list<X: crate::exec::Exec>(
    x: &mut X,
    migrations: &[Migration],
    options: Options,
) -> crate::Result<()> {
    use crate::sql::SqlBuilder;
    let dialect = x.dialect();
    if let Some(lock) = dialect.migration_lock {
        x.execute(&SqlBuilder::new(lock)).await?;
    }
    let applied = applied(x).await?;
    match status_of(&applied, migrations) {
        SchemaStatus::Current { .. } => return Ok(()),
        SchemaStatus::Newer { known, unknown } => {
            return Err(crate::StoreError::Schema(format!(
                "the database's schema is newer than this binary: it holds migration(s) {unknown:?}, \
                 this binary knows up to {known}; run the newer Relay (or restore a backup)"
            )));
        }
        SchemaStatus::Behind { pending, .. } => {
            if let Some((version, name, _)) =
                pending.iter().find(|p| p.2 && !options.allow_destructive)
            {
                return Err(crate::StoreError::Schema(format!(
                    "migration {version} ({name}) is destructive and is not run by `relay serve` \
                     on PostgreSQL: run `relay migrate` once every node runs this version \
                     (or start with --allow-destructive-migrations)"
                )));
            }
        }
    }
    for m in migrations {
        if applied.contains(&m.version) {
            continue;
        }
        x.execute_script((dialect.migration_sql)(m)).await?;
        x.execute(&SqlBuilder::of(
            "INSERT INTO relay_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
            [m.version.into(), m.name.into(), 0i64.into()],
        ))
        .await?;
        tracing::info!(
            version = m.version,
            name = m.name,
            backend = dialect.backend,
            "applied migration"
        );
    }
    Ok(())
}
