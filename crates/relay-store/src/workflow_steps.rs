//! Workflow steps (migration 0023; docs/delivery.md, "The workflow step"):
//! one event delivered to one registered endpoint of the caller's scope,
//! idempotent by the step's key, whose message records nothing of the
//! receiver's answer but its status code (`messages.answer_withheld`, which
//! the dispatcher reads with every claim, `crate::Claimed::withhold_answer`).
//!
//! [`create`] is one write: the step's row first (`ON CONFLICT DO NOTHING`
//! on its key, so of two concurrent requests with one key exactly one
//! creates it and the other finds it, on PostgreSQL as on SQLite), then the
//! endpoint, looked up in the caller's scope (not found: everything rolls
//! back), the event, addressed to the endpoint's consumer, and its one
//! message. [`get`] reads the outcome: the message's state and timestamps,
//! the number of attempts and the last one's status code.

use relay_core::model::{DeliveryOrder, EndpointState, MessageState, WorkflowStep};

use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::{NewMessage, SqlBuilder};
use crate::{NewEvent, Result, Scope, StoreError};

/// A step to create: its key, the digest of the request
/// (`relay_core::workflow::request_digest`), the endpoint, and the event
/// (its `consumer_id` is ignored: the event is addressed to the endpoint's
/// consumer).
#[derive(Debug, Clone)]
pub struct NewStep {
    pub step_key: String,
    pub request_sha256: String,
    pub endpoint_id: String,
    pub event: NewEvent,
}

/// What [`create`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Created {
    /// A new step, its event and its message were written.
    New(WorkflowStep),
    /// The same request made this step before: nothing was written.
    Existing(WorkflowStep),
}

/// The step's code when its key was used before by another request.
pub const KEY_REUSED: &str = "step_key_reused";

/// Creates `step` in `scope`, or finds the step its key made before.
/// `NotFound` when the endpoint is not the scope's (or was deleted);
/// `Conflict(KEY_REUSED)` when the key's step was made by another request;
/// `Conflict("not_addressed")` when the endpoint does not subscribe to the
/// event's type (or the audience rule keeps it from the endpoint's consumer).
pub async fn create<X: Exec>(x: &mut X, scope: &Scope, step: &NewStep) -> Result<Created> {
    let env = scope.environment.as_str();
    let ev = &step.event;
    let inserted = x
        .execute(&SqlBuilder::of(
            "INSERT INTO workflow_steps (tenant_id, environment, step_key, request_sha256, \
             endpoint_id, event_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (tenant_id, environment, step_key) DO NOTHING",
            [
                scope.tenant_id.as_str().into(),
                env.into(),
                step.step_key.as_str().into(),
                step.request_sha256.as_str().into(),
                step.endpoint_id.as_str().into(),
                ev.id.as_str().into(),
                ev.now.into(),
            ],
        ))
        .await?;
    if inserted == 0 {
        let existing = row(x, scope, &step.step_key)
            .await?
            .ok_or_else(|| StoreError::Corrupt("a workflow step vanished".into()))?;
        if existing.text("request_sha256")? != step.request_sha256 {
            return Err(StoreError::Conflict(KEY_REUSED));
        }
        return Ok(Created::Existing(view(x, &existing).await?));
    }
    // The endpoint, in the caller's scope, with what the audience rule reads.
    let mut q = SqlBuilder::new("SELECT e.*, c.kind AS consumer_kind");
    crate::audience::endpoint_type_audience_column(&mut q, &ev.event_type);
    q.push(" FROM endpoints e JOIN consumers c ON c.id = e.consumer_id WHERE e.tenant_id = ")
        .bind(scope.tenant_id.as_str().into())
        .push(" AND e.environment = ")
        .bind(env.into())
        .push(" AND e.id = ")
        .bind(step.endpoint_id.as_str().into())
        .push(" AND e.deleted_at IS NULL");
    let Some(endpoint) = fetch_optional(x, &q).await? else {
        return Err(StoreError::NotFound);
    };
    let consumer_id = endpoint.text("consumer_id")?;
    if !crate::audience::allowed_endpoint(&endpoint, &ev.event_type, Some(&consumer_id))? {
        return Err(StoreError::Conflict("not_addressed"));
    }
    let endpoint_state = endpoint.text("state")?;
    let endpoint_state = EndpointState::parse(&endpoint_state)
        .ok_or_else(|| StoreError::Corrupt(format!("endpoint state `{endpoint_state}`")))?;
    let ordering = endpoint.text("ordering")?;
    let ordering = DeliveryOrder::parse(&ordering)
        .ok_or_else(|| StoreError::Corrupt(format!("endpoint ordering `{ordering}`")))?;
    let seq = match &ev.subject {
        Some(subject) => {
            Some(crate::publish::take_seqs(x, &scope.tenant_id, env, subject, 1).await?)
        }
        None => None,
    };
    x.execute(&SqlBuilder::of(
        "INSERT INTO events (tenant_id, environment, id, event_type, type_version, subject, data, \
         consumer_id, ordering_key, seq, traceparent, expires_at, occurred_at, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9, $10, $11, $12, $13)",
        [
            scope.tenant_id.as_str().into(),
            env.into(),
            ev.id.as_str().into(),
            ev.event_type.as_str().into(),
            ev.type_version.into(),
            (&ev.subject).into(),
            ev.data.get().into(),
            consumer_id.as_str().into(),
            seq.into(),
            ev.traceparent.as_str().into(),
            ev.expires_at.into(),
            ev.time.into(),
            ev.now.into(),
        ],
    ))
    .await
    .map_err(|e| e.unique_as("event_id"))?;
    // Its one message, placed in its key's line when the endpoint delivers
    // in order (`crate::ordering`), as publish places it.
    let initial = endpoint_state.initial_message_state();
    let key = relay_core::ordering::key(ordering, None, ev.subject.as_deref());
    let (state, ordered) = match key {
        Some(key) => {
            let entry = crate::ordering::Entry {
                endpoint_id: &step.endpoint_id,
                key,
                initial,
            };
            let placed = crate::ordering::place(x, &[entry]).await?;
            let (pos, state) = placed.first().copied().unwrap_or((0, initial));
            (state, Some((key, pos)))
        }
        None => (initial, None),
    };
    let ids = crate::publish::insert_messages(
        x,
        &[NewMessage {
            tenant_id: &scope.tenant_id,
            environment: env,
            event_id: &ev.id,
            event_type: &ev.event_type,
            endpoint_id: &step.endpoint_id,
            endpoint_version: endpoint.int("version")?,
            state,
            at: ev.now,
            lease: None,
            expires_at: ev.expires_at,
            ordering: ordered,
        }],
    )
    .await?;
    let message_id = ids
        .first()
        .ok_or_else(|| StoreError::Corrupt("a step's message was not inserted".into()))?;
    // Its answer is withheld from its first attempt on: the flag commits
    // with the message.
    x.execute(&SqlBuilder::of(
        "UPDATE messages SET answer_withheld = 1 WHERE id = $1",
        [message_id.as_str().into()],
    ))
    .await?;
    if state == MessageState::Scheduled
        && let Some(notify) = x.dialect().wake_notify
    {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    let created = row(x, scope, &step.step_key)
        .await?
        .ok_or_else(|| StoreError::Corrupt("a workflow step was not written".into()))?;
    Ok(Created::New(view(x, &created).await?))
}

/// The step `step_key` of `scope`, with its outcome; `None` when there is
/// none (or its event was purged with it).
pub async fn get<X: Exec>(
    x: &mut X,
    scope: &Scope,
    step_key: &str,
) -> Result<Option<WorkflowStep>> {
    Ok(find(x, scope, step_key).await?.map(|(step, _)| step))
}

/// [`get`], with the digest of the request that made the step.
pub async fn find<X: Exec>(
    x: &mut X,
    scope: &Scope,
    step_key: &str,
) -> Result<Option<(WorkflowStep, String)>> {
    match row(x, scope, step_key).await? {
        Some(r) => Ok(Some((view(x, &r).await?, r.text("request_sha256")?))),
        None => Ok(None),
    }
}

/// The step's row joined with its message's state and times.
async fn row<X: Exec>(x: &mut X, scope: &Scope, step_key: &str) -> Result<Option<X::Row>> {
    fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT w.step_key, w.request_sha256, w.endpoint_id, w.event_id, m.id AS message_id, \
             w.created_at, m.state, m.updated_at FROM workflow_steps w \
             JOIN messages m ON m.endpoint_id = w.endpoint_id AND m.event_id = w.event_id \
             WHERE w.tenant_id = $1 AND w.environment = $2 AND w.step_key = $3",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                step_key.into(),
            ],
        ),
    )
    .await
}

/// A step's outcome from its row and its message's attempts: how many,
/// and the last one's start and status code (read from its `detail`, the
/// only part of the answer a step's attempt keeps).
async fn view<X: Exec>(x: &mut X, r: &X::Row) -> Result<WorkflowStep> {
    let message_id = r.text("message_id")?;
    let count = crate::exec::fetch_one(
        x,
        &SqlBuilder::of(
            "SELECT COUNT(*) AS n FROM attempts WHERE message_id = $1",
            [message_id.as_str().into()],
        ),
    )
    .await?
    .int("n")?;
    let last = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT started_at, detail FROM attempts WHERE message_id = $1 \
             ORDER BY number DESC, id DESC LIMIT 1",
            [message_id.as_str().into()],
        ),
    )
    .await?;
    let (last_attempt_at, status_code) = match last {
        Some(a) => {
            let detail: serde_json::Value = a.json("detail")?;
            (
                Some(a.ts("started_at")?),
                detail
                    .get("status_code")
                    .and_then(serde_json::Value::as_i64),
            )
        }
        None => (None, None),
    };
    let state = r.text("state")?;
    Ok(WorkflowStep {
        step_key: r.text("step_key")?,
        endpoint_id: r.text("endpoint_id")?,
        event_id: r.text("event_id")?,
        state: MessageState::parse(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("message state `{state}`")))?,
        message_id,
        status_code,
        attempts: count,
        last_attempt_at,
        created_at: r.ts("created_at")?,
        updated_at: r.ts("updated_at")?,
    })
}

/// Deletes the step whose event is `key` (tenant, environment, event id):
/// the retention purge's, in its transaction.
pub(crate) async fn purge_for_event<X: Exec>(x: &mut X, key: &[crate::sql::Bind; 3]) -> Result<()> {
    x.execute(&SqlBuilder::of(
        "DELETE FROM workflow_steps WHERE tenant_id = $1 AND environment = $2 AND event_id = $3",
        key.clone(),
    ))
    .await?;
    Ok(())
}
