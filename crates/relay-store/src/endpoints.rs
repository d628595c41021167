//! Endpoints: their configuration, subscriptions and signing keys, within
//! the operator's limits, and the tenant's changes of their state (through
//! `crate::lifecycle`).

use std::collections::BTreeSet;

use relay_core::model::{Endpoint, EndpointVersion, Page};
use relay_core::time::Timestamp;

use crate::exec::{Exec, fetch_one, fetch_optional, scoped_row};
use crate::rows::{self, RowExt};
use crate::sql::{Bind, LIVE_STATES_SQL, SqlBuilder, json_text};
use crate::{
    AuditEntry, EndpointKeyRecord, EndpointLimits, PageRequest, Result, Scope, ShapeKey,
    ShapeSource, StoreError, audit,
};

const BY_ID: &str = "SELECT * FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3 \
     AND deleted_at IS NULL";

/// The endpoint's changeable columns, in the order both the insert
/// (`$5`..`$20`) and the update (`$4`..`$19`) expect them.
fn fields(e: &Endpoint) -> [Bind; 16] {
    [
        (&e.description).into(),
        e.destination.kind().into(),
        json_text(&e.destination).into(),
        json_text(&e.event_types).into(),
        e.signature_scheme.as_str().into(),
        e.retry_schedule_seconds.as_ref().map(json_text).into(),
        i64::from(e.max_concurrency).into(),
        e.rate_limit_per_second.map(i64::from).into(),
        json_text(&e.snapshot_fields).into(),
        e.version.into(),
        e.state.as_str().into(),
        (&e.disabled_reason).into(),
        i64::from(e.auto_disable).into(),
        i64::from(e.allow_personal_data).into(),
        json_text(&e.event_type_versions).into(),
        e.version_started_at.into(),
    ]
}

/// Records the endpoint's current version (its payload settings) unless it
/// is recorded already: versions never change once written.
async fn insert_version<X: Exec>(x: &mut X, e: &Endpoint) -> Result<()> {
    x.execute(&SqlBuilder::of(
        "INSERT INTO endpoint_versions (endpoint_id, version, snapshot_fields_json, \
         allow_personal_data, event_type_versions_json, started_at) VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (endpoint_id, version) DO NOTHING",
        [
            (&e.id).into(),
            e.version.into(),
            json_text(&e.snapshot_fields).into(),
            i64::from(e.allow_personal_data).into(),
            json_text(&e.event_type_versions).into(),
            e.version_started_at.into(),
        ],
    ))
    .await?;
    Ok(())
}

/// What shapes the payloads of one endpoint version's messages of one event
/// type (see [`ShapeSource`]).
pub async fn shape_source<X: Exec>(x: &mut X, key: &ShapeKey) -> Result<Option<ShapeSource>> {
    let Some(row) = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT * FROM endpoint_versions WHERE endpoint_id = $1 AND version = $2",
            [(&key.endpoint_id).into(), key.endpoint_version.into()],
        ),
    )
    .await?
    else {
        return Ok(None);
    };
    let endpoint = rows::endpoint_version(&row)?;
    let type_versions = x
        .fetch(&SqlBuilder::of(
            "SELECT version, created_at, thin_fields, personal_data_fields FROM event_type_versions \
             WHERE tenant_id = $1 AND environment = $2 AND name = $3 ORDER BY version",
            [
                (&key.tenant_id).into(),
                key.environment.as_str().into(),
                (&key.event_type).into(),
            ],
        ))
        .await?
        .iter()
        .map(|r| {
            Ok(relay_core::shape::TypeFields {
                version: r.int("version")?,
                created_at: r.ts("created_at")?,
                thin_fields: r.json("thin_fields")?,
                personal_data_fields: r.json("personal_data_fields")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut q = SqlBuilder::new("SELECT e.consumer_id, c.kind AS consumer_kind");
    crate::audience::endpoint_type_audience_column(&mut q, &key.event_type);
    q.push(" FROM endpoints e JOIN consumers c ON c.id = e.consumer_id WHERE e.id = ")
        .bind((&key.endpoint_id).into());
    let Some(to) = fetch_optional(x, &q).await? else {
        return Ok(None);
    };
    Ok(Some(ShapeSource {
        endpoint,
        type_versions,
        consumer_id: to.text("consumer_id")?,
        consumer_kind: crate::audience::consumer_kind(&to.text("consumer_kind")?)?,
        audience: crate::audience::type_audience(&to)?,
    }))
}

/// An endpoint's versions, oldest first.
/// One page of the endpoint's versions, oldest first; `page.after` is the
/// last version number of the previous page (anything else reads as 0).
pub async fn versions<X: Exec>(
    x: &mut X,
    scope: &Scope,
    id: &str,
    page: &PageRequest,
) -> Result<Option<Page<EndpointVersion>>> {
    if scoped_row(x, BY_ID, scope, id).await?.is_none() {
        return Ok(None);
    }
    let after = page
        .after
        .as_deref()
        .and_then(|a| a.parse::<i64>().ok())
        .unwrap_or(0);
    let mut items = x
        .fetch(&SqlBuilder::of(
            "SELECT * FROM endpoint_versions WHERE endpoint_id = $1 AND version > $2 \
             ORDER BY version LIMIT $3",
            [id.into(), after.into(), (i64::from(page.limit) + 1).into()],
        ))
        .await?
        .iter()
        .map(rows::endpoint_version)
        .collect::<Result<Vec<_>>>()?;
    let more = items.len() > page.limit as usize;
    items.truncate(page.limit as usize);
    let next_after = more
        .then(|| items.last().map(|v| v.version.to_string()))
        .flatten();
    Ok(Some(Page {
        data: items,
        next_after,
    }))
}

async fn insert_subscriptions<X: Exec>(x: &mut X, scope: &Scope, e: &Endpoint) -> Result<()> {
    let mut seen = BTreeSet::new();
    for t in &e.event_types {
        if !seen.insert(t.as_str()) {
            continue;
        }
        x.execute(&SqlBuilder::of(
            "INSERT INTO endpoint_subscriptions (endpoint_id, tenant_id, environment, event_type) \
             VALUES ($1, $2, $3, $4)",
            [
                (&e.id).into(),
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                t.into(),
            ],
        ))
        .await?;
    }
    Ok(())
}

async fn insert_key<X: Exec>(x: &mut X, endpoint_id: &str, k: &EndpointKeyRecord) -> Result<()> {
    x.execute(&SqlBuilder::of(
        "INSERT INTO endpoint_keys (id, endpoint_id, scheme, public_key, sealed_secret, created_at, \
         retires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        [
            (&k.id).into(),
            endpoint_id.into(),
            k.scheme.as_str().into(),
            (&k.public_key).into(),
            (&k.sealed_secret).into(),
            k.created_at.into(),
            k.retires_at.into(),
        ],
    ))
    .await?;
    Ok(())
}

/// Creates the endpoint with its signing keys, within the operator limits,
/// and `audit` (if any) in the same transaction. Returns the state it was
/// created in: `unverified` (whatever `e.state` said) while its receiver
/// owes the ownership proof ([`crate::ownership::settle`]).
pub async fn create<X: Exec>(
    x: &mut X,
    scope: &Scope,
    e: &Endpoint,
    keys: &[EndpointKeyRecord],
    limits: EndpointLimits,
    audit: Option<&AuditEntry>,
) -> Result<relay_core::model::EndpointState> {
    // Serialises endpoint creation per tenant so the limits hold under
    // concurrency (SQLite already has a single writer).
    let lock = format!(
        "SELECT id FROM tenants WHERE id = $1{}",
        x.dialect().for_update
    );
    x.fetch(&SqlBuilder::of(&lock, [scope.tenant_id.as_str().into()]))
        .await?;
    let consumer = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT id FROM consumers WHERE tenant_id = $1 AND environment = $2 AND id = $3",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                (&e.consumer_id).into(),
            ],
        ),
    )
    .await?;
    if consumer.is_none() {
        return Err(StoreError::MissingReference("consumer_id"));
    }
    let count = |sql: &str, id: &str| SqlBuilder::of(sql, [id.into()]);
    let per_tenant = fetch_one(
        x,
        &count(
            "SELECT COUNT(*) AS n FROM endpoints WHERE tenant_id = $1 AND deleted_at IS NULL",
            &scope.tenant_id,
        ),
    )
    .await?
    .int("n")?;
    if per_tenant >= i64::from(limits.per_tenant) {
        return Err(StoreError::LimitReached("endpoints_per_tenant"));
    }
    let per_consumer = fetch_one(
        x,
        &count(
            "SELECT COUNT(*) AS n FROM endpoints WHERE consumer_id = $1 AND deleted_at IS NULL",
            &e.consumer_id,
        ),
    )
    .await?
    .int("n")?;
    if per_consumer >= i64::from(limits.per_consumer) {
        return Err(StoreError::LimitReached("endpoints_per_consumer"));
    }
    let mut binds = vec![
        (&e.id).into(),
        scope.tenant_id.as_str().into(),
        scope.environment.as_str().into(),
        (&e.consumer_id).into(),
    ];
    binds.extend(fields(e));
    binds.extend([
        e.created_at.into(),
        e.updated_at.into(),
        e.revision.into(),
        e.ordering.as_str().into(),
        i64::from(e.verify_ownership).into(),
        (&e.ownership_origin).into(),
    ]);
    x.execute(&SqlBuilder::numbered(
        "INSERT INTO endpoints (id, tenant_id, environment, consumer_id, description, kind, \
         destination_json, event_types_json, signature_scheme, retry_schedule_json, max_concurrency, \
         rate_limit_per_second, snapshot_fields_json, version, state, disabled_reason, auto_disable, \
         allow_personal_data, event_type_versions_json, version_started_at, created_at, updated_at, \
         revision, ordering, verify_ownership, ownership_origin) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
         $19, $20, $21, $22, $23, $24, $25, $26)",
        binds,
    ))
    .await
    .map_err(|err| err.unique_as("endpoint_id"))?;
    insert_subscriptions(x, scope, e).await?;
    insert_version(x, e).await?;
    for k in keys {
        insert_key(x, &e.id, k).await?;
    }
    audit::insert_opt(x, scope, audit).await?;
    crate::ownership::settle(x, &e.id, e.created_at).await
}

/// One page of the endpoint's signing keys, newest first (retired ones
/// included); `page.after` is the id of the last key of the previous page.
pub async fn keys_page<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    page: &PageRequest,
) -> Result<Page<EndpointKeyRecord>> {
    let mut q = SqlBuilder::new("SELECT * FROM endpoint_keys WHERE endpoint_id = ");
    q.bind(endpoint_id.into());
    if let Some(after) = &page.after {
        q.push(" AND (created_at, id) < (SELECT created_at, id FROM endpoint_keys WHERE endpoint_id = ")
            .bind(endpoint_id.into())
            .push(" AND id = ")
            .bind(after.into())
            .push(")");
    }
    q.push(" ORDER BY created_at DESC, id DESC LIMIT ")
        .bind(Bind::Int(i64::from(page.limit) + 1));
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(rows::endpoint_key)
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |k| &k.id))
}

/// The endpoint's signing keys, newest first (retired ones included).
pub async fn keys<X: Exec>(x: &mut X, endpoint_id: &str) -> Result<Vec<EndpointKeyRecord>> {
    x.fetch(&SqlBuilder::of(
        "SELECT * FROM endpoint_keys WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC",
        [endpoint_id.into()],
    ))
    .await?
    .iter()
    .map(rows::endpoint_key)
    .collect()
}

/// Adds `key` as the endpoint's newest signing key and sets its scheme;
/// every older key that would sign past `retire_at` retires then. Audited
/// with `audit`. Returns all keys, newest first.
pub async fn rotate_key<X: Exec>(
    x: &mut X,
    scope: &Scope,
    endpoint_id: &str,
    key: &EndpointKeyRecord,
    retire_at: Timestamp,
    audit: &AuditEntry,
) -> Result<Vec<EndpointKeyRecord>> {
    let done = x
        .execute(&SqlBuilder::of(
            "UPDATE endpoints SET signature_scheme = $4, updated_at = $5, revision = revision + 1 \
             WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND deleted_at IS NULL",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                endpoint_id.into(),
                key.scheme.as_str().into(),
                key.created_at.into(),
            ],
        ))
        .await?;
    if done == 0 {
        return Err(StoreError::NotFound);
    }
    x.execute(&SqlBuilder::of(
        "UPDATE endpoint_keys SET retires_at = $2 \
         WHERE endpoint_id = $1 AND (retires_at IS NULL OR retires_at > $2)",
        [endpoint_id.into(), retire_at.into()],
    ))
    .await?;
    let key = EndpointKeyRecord {
        retires_at: None,
        ..key.clone()
    };
    insert_key(x, endpoint_id, &key).await?;
    audit::insert(x, scope, audit).await?;
    keys(x, endpoint_id).await
}

/// Applies a change of the endpoint's state decided by the one rule
/// (`relay_core::lifecycle::decide`, from the state the caller read) with a
/// conditional update (`crate::lifecycle::apply`): only while the endpoint
/// is still in `change.from`, else `Conflict("endpoint_state_changed")` and
/// nothing is written. Audited (its parameters get `from` and `to`).
pub async fn change_state<X: Exec>(
    x: &mut X,
    scope: &Scope,
    endpoint_id: &str,
    change: &relay_core::lifecycle::Change,
    audit: &AuditEntry,
) -> Result<Endpoint> {
    if scoped_row(x, BY_ID, scope, endpoint_id).await?.is_none() {
        return Err(StoreError::NotFound);
    }
    // Conditional: only while the endpoint is still in the state the
    // change was decided from.
    let Some(change) = crate::lifecycle::apply(x, endpoint_id, change, audit.at).await? else {
        return Err(StoreError::Conflict("endpoint_state_changed"));
    };
    let mut audit = audit.clone();
    if let Some(p) = audit.parameters.as_object_mut() {
        p.insert("from".into(), change.from.as_str().into());
        p.insert("to".into(), change.to.as_str().into());
    }
    audit::insert(x, scope, &audit).await?;
    let row = fetch_one(
        x,
        &SqlBuilder::of(
            "SELECT * FROM endpoints WHERE id = $1",
            [endpoint_id.into()],
        ),
    )
    .await?;
    rows::endpoint(&row)
}

pub async fn get<X: Exec>(x: &mut X, scope: &Scope, id: &str) -> Result<Option<Endpoint>> {
    scoped_row(x, BY_ID, scope, id)
        .await?
        .map(|r| rows::endpoint(&r))
        .transpose()
}

pub async fn list<X: Exec>(
    x: &mut X,
    scope: &Scope,
    consumer_id: Option<&str>,
    page: &PageRequest,
) -> Result<Page<Endpoint>> {
    let mut q =
        SqlBuilder::new("SELECT * FROM endpoints WHERE deleted_at IS NULL AND tenant_id = ");
    q.bind(scope.tenant_id.as_str().into())
        .push(" AND environment = ")
        .bind(scope.environment.as_str().into());
    if let Some(c) = consumer_id {
        q.push(" AND consumer_id = ").bind(c.into());
    }
    q.paginate("id", page);
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(rows::endpoint)
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |e| &e.id))
}

/// Replaces the endpoint's settings and its subscriptions, with every
/// entry of `audit`, all in the caller's transaction; the endpoint's
/// revision goes up by one.
///
/// A compare-and-set: it applies only while the endpoint's revision is
/// still `e.revision` (the one the caller read and decided from), else
/// `Conflict("endpoint_changed")` and nothing is written. So a change
/// decided from a stale read cannot undo a concurrent pause or disable,
/// nor open an endpoint version another change opened meanwhile. The state
/// (`state`, `disabled_reason`) is never written here: it changes through
/// `change_state` alone, and by the ownership proof's rule
/// ([`crate::ownership::settle`]) when the origin to prove changes;
/// returns the state afterwards.
pub async fn update<X: Exec>(
    x: &mut X,
    scope: &Scope,
    e: &Endpoint,
    audit: &[AuditEntry],
) -> Result<relay_core::model::EndpointState> {
    let [
        description,
        kind,
        destination,
        event_types,
        signature_scheme,
        retry_schedule,
        max_concurrency,
        rate_limit,
        snapshot_fields,
        version,
        _state,
        _disabled_reason,
        auto_disable,
        allow_personal_data,
        event_type_versions,
        version_started_at,
    ] = fields(e);
    let binds = vec![
        scope.tenant_id.as_str().into(),
        scope.environment.as_str().into(),
        (&e.id).into(),
        description,
        kind,
        destination,
        event_types,
        signature_scheme,
        retry_schedule,
        max_concurrency,
        rate_limit,
        snapshot_fields,
        version,
        auto_disable,
        allow_personal_data,
        event_type_versions,
        version_started_at,
        e.updated_at.into(),
        e.revision.into(),
        e.ordering.as_str().into(),
        i64::from(e.verify_ownership).into(),
        (&e.ownership_origin).into(),
    ];
    // A new origin to prove starts its challenges afresh, due now.
    let done = x
        .execute(&SqlBuilder::numbered(
            "UPDATE endpoints SET description = $4, kind = $5, destination_json = $6, event_types_json = $7, \
             signature_scheme = $8, retry_schedule_json = $9, max_concurrency = $10, \
             rate_limit_per_second = $11, snapshot_fields_json = $12, version = $13, \
             auto_disable = $14, allow_personal_data = $15, event_type_versions_json = $16, \
             version_started_at = $17, updated_at = $18, revision = revision + 1, ordering = $20, \
             verify_ownership = $21, \
             ownership_next_check_at = CASE WHEN ownership_origin IS NOT DISTINCT FROM $22 \
               THEN ownership_next_check_at ELSE NULL END, \
             ownership_checks = CASE WHEN ownership_origin IS NOT DISTINCT FROM $22 \
               THEN ownership_checks ELSE 0 END, \
             ownership_failure_json = CASE WHEN ownership_origin IS NOT DISTINCT FROM $22 \
               THEN ownership_failure_json ELSE NULL END, \
             ownership_origin = $22 \
             WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND deleted_at IS NULL \
             AND revision = $19",
            binds,
        ))
        .await?;
    if done == 0 {
        return Err(if scoped_row(x, BY_ID, scope, &e.id).await?.is_none() {
            StoreError::NotFound
        } else {
            StoreError::Conflict("endpoint_changed")
        });
    }
    x.execute(&SqlBuilder::of(
        "DELETE FROM endpoint_subscriptions WHERE endpoint_id = $1",
        [(&e.id).into()],
    ))
    .await?;
    insert_subscriptions(x, scope, e).await?;
    insert_version(x, e).await?;
    for a in audit {
        audit::insert(x, scope, a).await?;
    }
    // A move to an origin not proven holds its messages; a move to a
    // proven one (or no longer owing the proof) releases them.
    crate::ownership::settle(x, &e.id, e.updated_at).await
}

/// Removes the endpoint; its messages that were still to be delivered
/// become `dead_lettered` with reason `endpoint_removed`. `audit` (if any)
/// is written in the same transaction.
pub async fn delete<X: Exec>(
    x: &mut X,
    scope: &Scope,
    id: &str,
    now: Timestamp,
    audit: Option<&AuditEntry>,
) -> Result<()> {
    let done = x
        .execute(&SqlBuilder::of(
            "UPDATE endpoints SET deleted_at = $4, updated_at = $4, revision = revision + 1 \
             WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND deleted_at IS NULL",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                id.into(),
                now.into(),
            ],
        ))
        .await?;
    if done == 0 {
        return Err(StoreError::NotFound);
    }
    x.execute(&SqlBuilder::of(
        "DELETE FROM endpoint_subscriptions WHERE endpoint_id = $1",
        [id.into()],
    ))
    .await?;
    // Bumping lease_version makes any in-flight completion a no-op.
    x.execute(&SqlBuilder::of(
        &format!(
            "UPDATE messages SET state = 'dead_lettered', terminal_reason = 'endpoint_removed', \
             next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, \
             lease_version = lease_version + 1, updated_at = $2 \
             WHERE endpoint_id = $1 AND state IN {LIVE_STATES_SQL}"
        ),
        [id.into(), now.into()],
    ))
    .await?;
    // Its messages all ended: its keys' lines are done with.
    x.execute(&SqlBuilder::of(
        "DELETE FROM ordering_keys WHERE endpoint_id = $1",
        [id.into()],
    ))
    .await?;
    audit::insert_opt(x, scope, audit).await
}
