//! Durable jobs (bulk retry): queued with their audit entry, leased to one
//! worker at a time, and advanced a batch per transaction under the lease.

use relay_core::model::{JobState, MessageState};
use relay_core::time::Timestamp;

use crate::exec::{Exec, fetch_one, fetch_optional, scoped_row};
use crate::rows::{self, RowExt};
use crate::sql::{Bind, SqlBuilder, json_text};
use crate::{AuditEntry, Job, LeasedJob, Result, Scope, StoreError, audit};

/// Queues a job, audited with `audit`.
pub async fn create<X: Exec>(
    x: &mut X,
    scope: &Scope,
    job: &Job,
    audit: &AuditEntry,
) -> Result<()> {
    x.execute(&SqlBuilder::of(
        "INSERT INTO jobs (id, tenant_id, environment, kind, parameters, state, processed, affected, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 0, 0, $7, $7)",
        [
            (&job.id).into(),
            scope.tenant_id.as_str().into(),
            scope.environment.as_str().into(),
            job.kind.as_str().into(),
            json_text(&job.parameters).into(),
            JobState::Queued.as_str().into(),
            job.created_at.into(),
        ],
    ))
    .await?;
    audit::insert(x, scope, audit).await
}

pub async fn get<X: Exec>(x: &mut X, scope: &Scope, id: &str) -> Result<Option<Job>> {
    scoped_row(
        x,
        "SELECT * FROM jobs WHERE tenant_id = $1 AND environment = $2 AND id = $3",
        scope,
        id,
    )
    .await?
    .map(|r| rows::job(&r))
    .transpose()
}

/// Leases the oldest queued (or abandoned running) job to `owner`.
pub async fn lease<X: Exec>(
    x: &mut X,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<Option<LeasedJob>> {
    // The states are written out as the partial index `jobs_pending` names
    // them (`JobState::Queued`, `JobState::Running`), so the planner uses it.
    let next = format!(
        "SELECT id FROM jobs WHERE state IN ('queued', 'running') \
         AND (lease_until IS NULL OR lease_until < $1) ORDER BY created_at LIMIT 1{}",
        x.dialect().skip_locked
    );
    let Some(id) = fetch_optional(x, &SqlBuilder::of(&next, [now.into()])).await? else {
        return Ok(None);
    };
    let id = id.text("id")?;
    x.execute(&SqlBuilder::of(
        "UPDATE jobs SET state = $5, lease_owner = $2, lease_until = $3, updated_at = $4 WHERE id = $1",
        [
            id.as_str().into(),
            owner.into(),
            lease_until.into(),
            now.into(),
            JobState::Running.as_str().into(),
        ],
    ))
    .await?;
    let row = fetch_one(
        x,
        &SqlBuilder::of("SELECT * FROM jobs WHERE id = $1", [id.into()]),
    )
    .await?;
    Ok(Some(LeasedJob {
        job: rows::job(&row)?,
        scope: Scope {
            tenant_id: row.text("tenant_id")?,
            environment: row.environment("environment")?,
        },
        cursor: row.opt_text("cursor")?,
    }))
}

/// One batch of a bulk retry under the job's lease: of the tenant's next
/// `batch` messages by id after the job's cursor (whatever their state: the
/// bound on what one batch reads, however few of them the filter selects),
/// restarts those the filter selects that are in a restartable state, whose
/// endpoint is active and that no manual attempt holds (a live lease: at
/// most one attempt at a time; such a message is examined and left as it
/// is), then moves the cursor and the counts. One statement per message,
/// the same text each time: on SQLite a cached statement, so the batch
/// holds the writer briefly.
pub async fn advance_bulk_retry<X: Exec>(
    x: &mut X,
    job: &crate::LeasedJob,
    filter: &crate::MessageFilter,
    owner: &str,
    batch: u32,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<crate::Job> {
    let found = x
        .fetch(&SqlBuilder::numbered(
            "SELECT cursor FROM jobs WHERE id = $1 AND lease_owner = $2 AND state = $3",
            [
                Bind::Text(job.job.id.clone()),
                Bind::Text(owner.into()),
                Bind::Text(JobState::Running.as_str().into()),
            ],
        ))
        .await?;
    let cursor = found
        .first()
        .ok_or(StoreError::Conflict("job_lease_lost"))?
        .opt_text("cursor")?;
    let batch = batch.max(1);
    let window = x
        .fetch(&SqlBuilder::numbered(
            "SELECT id FROM messages WHERE tenant_id = $1 AND environment = $2 AND id > $3 \
             ORDER BY id LIMIT $4",
            [
                Bind::Text(job.scope.tenant_id.clone()),
                Bind::Text(job.scope.environment.as_str().into()),
                Bind::Text(cursor.clone().unwrap_or_default()),
                Bind::Int(i64::from(batch)),
            ],
        ))
        .await?;
    let last = window.last().map(|m| m.text("id")).transpose()?;
    let finished = (window.len() as u32) < batch;
    let mut found = Vec::new();
    if let Some(last) = &last {
        let mut q = SqlBuilder::new(
            "SELECT id, state, endpoint_id, terminal_reason FROM messages WHERE tenant_id = ",
        );
        q.bind(Bind::Text(job.scope.tenant_id.clone()))
            .push(" AND environment = ")
            .bind(Bind::Text(job.scope.environment.as_str().into()))
            .push(" AND id > ")
            .bind(Bind::Text(cursor.unwrap_or_default()))
            .push(" AND id <= ")
            .bind(Bind::Text(last.clone()));
        crate::sql::push_message_filter(&mut q, filter);
        q.push(" ORDER BY id");
        found = x.fetch(&q).await?;
    }
    let mut affected = 0u64;
    let mut restarted = Vec::new();
    for m in &found {
        let state = MessageState::parse(&m.text("state")?);
        let removed = m.opt_text("terminal_reason")?.as_deref() == Some("endpoint_removed");
        if removed || !state.is_some_and(|s| relay_core::transition::RESTARTABLE.contains(&s)) {
            continue;
        }
        let n = x
            .execute(&SqlBuilder::numbered(
                "UPDATE messages SET state = 'scheduled', attempts_used = 0, deferrals_used = 0, priority = 1, \
                 next_attempt_at = $2, terminal_reason = NULL, lease_owner = NULL, lease_until = NULL, \
                 lease_version = lease_version + 1, updated_at = $2 \
                 WHERE id = $1 AND state = $3 AND (lease_until IS NULL OR lease_until < $2) \
                 AND EXISTS (SELECT 1 FROM endpoints e \
                 WHERE e.id = messages.endpoint_id AND e.deleted_at IS NULL AND e.state = 'active')",
                [
                    Bind::Text(m.text("id")?),
                    Bind::Int(now.millis()),
                    Bind::Text(m.text("state")?),
                ],
            ))
            .await?;
        if n > 0 {
            restarted.push(m.text("id")?);
        }
        affected += n;
    }
    // Ordered messages re-enter at the tail of their keys.
    crate::ordering::requeue(x, &restarted).await?;
    x.execute(&SqlBuilder::numbered(
        "UPDATE jobs SET cursor = COALESCE($2, cursor), processed = processed + $3, affected = affected + $4, \
         state = $5, lease_until = $6, updated_at = $7, finished_at = $8 WHERE id = $1",
        [
            Bind::Text(job.job.id.clone()),
            Bind::OptText(last),
            Bind::Int(found.len() as i64),
            Bind::Int(affected as i64),
            Bind::Text(
                if finished {
                    JobState::Done
                } else {
                    JobState::Running
                }
                .as_str()
                .into(),
            ),
            Bind::Int(lease_until.millis()),
            Bind::Int(now.millis()),
            Bind::OptInt(finished.then_some(now.millis())),
        ],
    ))
    .await?;
    if affected > 0
        && let Some(notify) = x.dialect().wake_notify
    {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    let row = x
        .fetch(&SqlBuilder::numbered(
            "SELECT * FROM jobs WHERE id = $1",
            [Bind::Text(job.job.id.clone())],
        ))
        .await?;
    rows::job(row.first().ok_or(StoreError::NotFound)?)
}
