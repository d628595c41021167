//! Event types and their schema versions: `PUT` opens a new version when
//! the schema changes, else updates the current one in place.

use std::collections::HashMap;

use relay_core::audience::Audience;
use relay_core::model::{EventType, EventTypeVersion, Page};

use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder, json_text};
use crate::{PageRequest, PutEventType, PutEventTypeOutcome, Result, Scope, StoreError};

fn event_type(row: &impl RowExt, versions: Vec<EventTypeVersion>) -> Result<EventType> {
    Ok(EventType {
        name: row.text("name")?,
        description: row.text("description")?,
        environment: row.environment("environment")?,
        current_version: row.int("current_version")?,
        audience: audience(row)?,
        versions,
        created_at: row.ts("created_at")?,
        updated_at: row.ts("updated_at")?,
    })
}

/// The `audience` column of an `event_types` row.
pub(crate) fn audience(row: &impl RowExt) -> Result<Audience> {
    let text = row.text("audience")?;
    Audience::parse(&text)
        .ok_or_else(|| StoreError::Corrupt(format!("event type audience `{text}`")))
}

fn version(row: &impl RowExt) -> Result<EventTypeVersion> {
    Ok(EventTypeVersion {
        version: row.int("version")?,
        schema: row.json("schema_json")?,
        sample: row.opt_json("sample_json")?,
        thin_fields: row.json("thin_fields")?,
        personal_data_fields: row.json("personal_data_fields")?,
        created_at: row.ts("created_at")?,
    })
}

/// `(tenant, environment, name)` as `$1, $2, $3`.
fn key(scope: &Scope, name: &str) -> [Bind; 3] {
    [
        scope.tenant_id.as_str().into(),
        scope.environment.as_str().into(),
        name.into(),
    ]
}

/// Creates the event type, opens a new version or updates the current one
/// (see [`PutEventType`]); returns it as stored.
pub async fn put<X: Exec>(
    x: &mut X,
    scope: &Scope,
    put: &PutEventType,
) -> Result<(EventType, PutEventTypeOutcome)> {
    let schema = json_text(&put.schema);
    let sample = put.sample.as_ref().map(json_text);
    let pd_fields = json_text(&put.personal_data_fields);
    let thin_fields = json_text(&put.thin_fields);
    let [tenant, env, name] = key(scope, &put.name);
    let current = fetch_optional(
        x,
        &SqlBuilder::of(
            &format!(
                "SELECT current_version FROM event_types WHERE tenant_id = $1 AND environment = $2 \
                 AND name = $3{}",
                x.dialect().for_update
            ),
            key(scope, &put.name),
        ),
    )
    .await?
    .map(|r| r.int("current_version"))
    .transpose()?;
    let insert_version = |version: i64| {
        SqlBuilder::of(
            "INSERT INTO event_type_versions (tenant_id, environment, name, version, \
             schema_json, sample_json, thin_fields, personal_data_fields, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            [
                tenant.clone(),
                env.clone(),
                name.clone(),
                version.into(),
                schema.as_str().into(),
                sample.clone().into(),
                thin_fields.as_str().into(),
                pd_fields.as_str().into(),
                put.now.into(),
            ],
        )
    };
    let outcome = match current {
        None => {
            x.execute(&SqlBuilder::of(
                "INSERT INTO event_types (tenant_id, environment, name, description, current_version, \
                 created_at, updated_at, audience) VALUES ($1, $2, $3, $4, 1, $5, $5, $6)",
                [
                    tenant.clone(),
                    env.clone(),
                    name.clone(),
                    (&put.description).into(),
                    put.now.into(),
                    put.audience.as_str().into(),
                ],
            ))
            .await
            .map_err(|e| e.unique_as("event_type_concurrent_update"))?;
            x.execute(&insert_version(1)).await?;
            PutEventTypeOutcome::Created
        }
        Some(current) => {
            let [t, e, n] = key(scope, &put.name);
            let stored = crate::exec::fetch_one(
                x,
                &SqlBuilder::of(
                    "SELECT schema_json, thin_fields FROM event_type_versions WHERE tenant_id = $1 \
                     AND environment = $2 AND name = $3 AND version = $4",
                    [t, e, n, current.into()],
                ),
            )
            .await?;
            let stored_schema: serde_json::Value = stored.json("schema_json")?;
            let stored_thin: Vec<String> = stored.json("thin_fields")?;
            let outcome = if stored_schema != put.schema || stored_thin != put.thin_fields {
                x.execute(&insert_version(current + 1))
                    .await
                    .map_err(|e| e.unique_as("event_type_concurrent_update"))?;
                PutEventTypeOutcome::NewVersion
            } else {
                let [t, e, n] = key(scope, &put.name);
                x.execute(&SqlBuilder::of(
                    "UPDATE event_type_versions SET sample_json = $5, personal_data_fields = $6 \
                     WHERE tenant_id = $1 AND environment = $2 AND name = $3 AND version = $4",
                    [
                        t,
                        e,
                        n,
                        current.into(),
                        sample.clone().into(),
                        pd_fields.as_str().into(),
                    ],
                ))
                .await?;
                PutEventTypeOutcome::Updated
            };
            let new_current = if outcome == PutEventTypeOutcome::NewVersion {
                current + 1
            } else {
                current
            };
            let [t, e, n] = key(scope, &put.name);
            x.execute(&SqlBuilder::of(
                "UPDATE event_types SET description = $4, current_version = $5, updated_at = $6, \
                 audience = $7 WHERE tenant_id = $1 AND environment = $2 AND name = $3",
                [
                    t,
                    e,
                    n,
                    (&put.description).into(),
                    new_current.into(),
                    put.now.into(),
                    put.audience.as_str().into(),
                ],
            ))
            .await?;
            outcome
        }
    };
    let et = get(x, scope, &put.name)
        .await?
        .ok_or(StoreError::NotFound)?;
    Ok((et, outcome))
}

pub async fn get<X: Exec>(x: &mut X, scope: &Scope, name: &str) -> Result<Option<EventType>> {
    let Some(row) = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT * FROM event_types WHERE tenant_id = $1 AND environment = $2 AND name = $3",
            key(scope, name),
        ),
    )
    .await?
    else {
        return Ok(None);
    };
    let versions = x
        .fetch(&SqlBuilder::of(
            "SELECT * FROM event_type_versions WHERE tenant_id = $1 AND environment = $2 \
             AND name = $3 ORDER BY version",
            key(scope, name),
        ))
        .await?
        .iter()
        .map(version)
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(event_type(&row, versions)?))
}

/// One page of the scope's event types by name, with their versions.
pub async fn list<X: Exec>(
    x: &mut X,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<EventType>> {
    let mut q = SqlBuilder::new("SELECT * FROM event_types WHERE tenant_id = ");
    q.bind(scope.tenant_id.as_str().into())
        .push(" AND environment = ")
        .bind(scope.environment.as_str().into());
    q.paginate("name", page);
    let types = x.fetch(&q).await?;
    // The versions of the names on this page only: a range of names.
    let mut by_name: HashMap<String, Vec<EventTypeVersion>> = HashMap::new();
    let shown = &types[..types.len().min(page.limit as usize)];
    if let (Some(first), Some(last)) = (shown.first(), shown.last()) {
        let versions = x
            .fetch(&SqlBuilder::of(
                "SELECT * FROM event_type_versions WHERE tenant_id = $1 AND environment = $2 \
                 AND name >= $3 AND name <= $4 ORDER BY name, version",
                [
                    scope.tenant_id.as_str().into(),
                    scope.environment.as_str().into(),
                    first.text("name")?.into(),
                    last.text("name")?.into(),
                ],
            ))
            .await?;
        for v in &versions {
            by_name
                .entry(v.text("name")?)
                .or_default()
                .push(version(v)?);
        }
    }
    let items = types
        .iter()
        .map(|t| {
            let name = t.text("name")?;
            event_type(t, by_name.remove(&name).unwrap_or_default())
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |t| &t.name))
}
