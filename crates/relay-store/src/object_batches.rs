//! Object storage batches (migration 0015): which messages of an object
//! storage endpoint one object holds, in which order, and the object's
//! exact bytes, recorded before the object's first write so that every
//! write of the batch (a retry, a recovery, a resend, a write after a
//! crash) sends the same bytes to the same object name.
//!
//! - [`record`]: a closed batch, in one durable transaction, only while
//!   the dispatcher still holds every member's lease (else nothing);
//! - [`batches_of`]: the batch each of some messages belongs to, if any;
//! - [`lease`]: a stored batch with its members that are `scheduled` and
//!   not leased, leased at once to the dispatcher that writes the batch
//!   again (whatever their due time: a batch is written as a whole).
//!
//! A message belongs to at most one batch (`message_id` is unique). The
//! rows go with their messages in the retention purge.

use base64::Engine as _;
use relay_core::model::Environment;
use relay_core::time::Timestamp;

use crate::claims::load_claimed;
use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};
use crate::{Claimed, Result, StoreError};

/// Rows per statement when a batch's members are written or read by id.
const CHUNK: usize = 256;

/// A batch as it is stored: its object and the messages it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectBatch {
    /// `bat_…`: the object's name derives from it.
    pub id: String,
    pub tenant_id: String,
    pub environment: Environment,
    pub endpoint_id: String,
    /// The object's name in its bucket, fixed when the batch closed.
    pub object_key: String,
    pub content_type: String,
    /// The object's exact bytes.
    pub object: Vec<u8>,
    /// The Standard Webhooks values over `object` (`webhook-id` is `id`).
    pub webhook_timestamp: String,
    pub webhook_signature: String,
    /// When the batch closed (its object name's date).
    pub created_at: Timestamp,
    /// Its messages' ids, in the order of the object's lines.
    pub members: Vec<String>,
}

/// What leasing a stored batch again gave.
#[derive(Debug, Clone)]
pub struct LeasedBatch {
    pub batch: ObjectBatch,
    /// The members leased now (`scheduled` and unleased before), in the
    /// batch's order. Members leased, held, in flight or ended are not.
    pub leased: Vec<Claimed>,
}

/// Records `batch`, whose members are leased to `owner` at the lease
/// versions given (`leases`, one per member, in the batch's order). Returns
/// `false`, writing nothing, when one of those leases no longer holds (the
/// caller drops that member and closes the batch again without it).
/// `Conflict("message_in_batch")` when a member is in another batch.
pub async fn record<X: Exec>(
    x: &mut X,
    owner: &str,
    batch: &ObjectBatch,
    leases: &[i64],
) -> Result<bool> {
    if leases.len() != batch.members.len() || batch.members.is_empty() {
        return Err(StoreError::Corrupt(
            "a batch records one lease per member, and has one at least".into(),
        ));
    }
    let for_update = x.dialect().for_update;
    let mut held = 0usize;
    for (ids, versions) in batch.members.chunks(CHUNK).zip(leases.chunks(CHUNK)) {
        // A claim's lease (`in_flight`) or a manual attempt's (any state).
        let mut q = SqlBuilder::new("SELECT id, lease_version FROM messages WHERE lease_owner = ");
        q.bind(owner.into()).push(" AND id IN (");
        q.bind_list(ids.iter().map(Bind::from)).push(")");
        q.push(for_update);
        let rows = x.fetch(&q).await?;
        for r in &rows {
            let id = r.text("id")?;
            let version = r.int("lease_version")?;
            if let Some(i) = ids.iter().position(|m| *m == id)
                && versions[i] == version
            {
                held += 1;
            }
        }
    }
    if held != batch.members.len() {
        return Ok(false);
    }
    x.execute(&SqlBuilder::of(
        "INSERT INTO object_batches (id, tenant_id, environment, endpoint_id, object_key, \
         content_type, object_b64, webhook_timestamp, webhook_signature, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        [
            (&batch.id).into(),
            (&batch.tenant_id).into(),
            batch.environment.as_str().into(),
            (&batch.endpoint_id).into(),
            (&batch.object_key).into(),
            (&batch.content_type).into(),
            base64::engine::general_purpose::STANDARD
                .encode(&batch.object)
                .into(),
            (&batch.webhook_timestamp).into(),
            (&batch.webhook_signature).into(),
            batch.created_at.into(),
        ],
    ))
    .await?;
    for (chunk, ids) in batch.members.chunks(CHUNK).enumerate() {
        let mut q = SqlBuilder::new(
            "INSERT INTO object_batch_members (batch_id, position, message_id) VALUES ",
        );
        for (i, id) in ids.iter().enumerate() {
            if i > 0 {
                q.push(", ");
            }
            let position = (chunk * CHUNK + i) as i64;
            q.push("(")
                .bind_list([(&batch.id).into(), position.into(), id.into()])
                .push(")");
        }
        x.execute(&q)
            .await
            .map_err(|e| e.unique_as("message_in_batch"))?;
    }
    Ok(true)
}

/// The batch each of `message_ids` belongs to: `(message id, batch id)`
/// for those in one.
pub async fn batches_of<X: Exec>(
    x: &mut X,
    message_ids: &[String],
) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for ids in message_ids.chunks(CHUNK) {
        let mut q = SqlBuilder::new(
            "SELECT message_id, batch_id FROM object_batch_members WHERE message_id IN (",
        );
        q.bind_list_padded(ids.iter().map(Bind::from)).push(")");
        for r in x.fetch(&q).await? {
            out.push((r.text("message_id")?, r.text("batch_id")?));
        }
    }
    Ok(out)
}

/// The stored batch `batch_id`, or `None`.
pub async fn get<X: Exec>(x: &mut X, batch_id: &str) -> Result<Option<ObjectBatch>> {
    let Some(r) = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT * FROM object_batches WHERE id = $1",
            [batch_id.into()],
        ),
    )
    .await?
    else {
        return Ok(None);
    };
    let environment = r.text("environment")?;
    let object = base64::engine::general_purpose::STANDARD
        .decode(r.text("object_b64")?)
        .map_err(|e| StoreError::Corrupt(format!("batch {batch_id}'s object: {e}")))?;
    let members = x
        .fetch(&SqlBuilder::of(
            "SELECT message_id FROM object_batch_members WHERE batch_id = $1 ORDER BY position",
            [batch_id.into()],
        ))
        .await?
        .iter()
        .map(|m| m.text("message_id"))
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(ObjectBatch {
        id: r.text("id")?,
        tenant_id: r.text("tenant_id")?,
        environment: Environment::parse(&environment)
            .ok_or_else(|| StoreError::Corrupt(format!("environment {environment}")))?,
        endpoint_id: r.text("endpoint_id")?,
        object_key: r.text("object_key")?,
        content_type: r.text("content_type")?,
        object,
        webhook_timestamp: r.text("webhook_timestamp")?,
        webhook_signature: r.text("webhook_signature")?,
        created_at: r.ts("created_at")?,
        members,
    }))
}

/// The stored batch `batch_id` with its members that are `scheduled` and
/// not leased at `now`, leased to `owner` until `lease_until` (as a claim
/// leases them, whatever their due time). `None` when there is no such
/// batch.
pub async fn lease<X: Exec>(
    x: &mut X,
    batch_id: &str,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<Option<LeasedBatch>> {
    let Some(batch) = get(x, batch_id).await? else {
        return Ok(None);
    };
    let skip = x.dialect().skip_locked;
    let mut leased_ids = Vec::new();
    for ids in batch.members.chunks(CHUNK) {
        let mut q = SqlBuilder::new(
            "SELECT id FROM messages WHERE state = 'scheduled' AND (lease_until IS NULL OR lease_until < ",
        );
        q.bind(now.into()).push(") AND id IN (");
        q.bind_list(ids.iter().map(Bind::from)).push(")").push(skip);
        let free = x
            .fetch(&q)
            .await?
            .iter()
            .map(|r| r.text("id"))
            .collect::<Result<Vec<_>>>()?;
        if free.is_empty() {
            continue;
        }
        let mut u = SqlBuilder::new("UPDATE messages SET state = 'in_flight', lease_owner = ");
        u.bind(owner.into())
            .push(", lease_until = ")
            .bind(lease_until.into())
            .push(", lease_version = lease_version + 1, updated_at = ")
            .bind(now.into())
            .push(" WHERE state = 'scheduled' AND id IN (")
            .bind_list(free.iter().map(Bind::from))
            .push(")");
        x.execute(&u).await?;
        leased_ids.extend(free);
    }
    let mut leased = if leased_ids.is_empty() {
        Vec::new()
    } else {
        let mut all = Vec::with_capacity(leased_ids.len());
        for ids in leased_ids.chunks(CHUNK) {
            all.extend(load_claimed(x, ids).await?);
        }
        all
    };
    let order: std::collections::HashMap<&str, usize> = batch
        .members
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    leased.sort_by_key(|c| order.get(c.message.id.as_str()).copied());
    Ok(Some(LeasedBatch { batch, leased }))
}

/// Deletes the batch rows of the messages of event `key` (tenant,
/// environment, event id), before the retention purge deletes the
/// messages; a batch left with no member goes too.
pub async fn purge_for_event<X: Exec>(x: &mut X, key: &[Bind; 3]) -> Result<()> {
    let batches = x
        .fetch(&SqlBuilder::of(
            "SELECT DISTINCT batch_id FROM object_batch_members WHERE message_id IN \
             (SELECT id FROM messages WHERE tenant_id = $1 AND environment = $2 AND event_id = $3)",
            key.clone(),
        ))
        .await?
        .iter()
        .map(|r| r.text("batch_id"))
        .collect::<Result<Vec<_>>>()?;
    if batches.is_empty() {
        return Ok(());
    }
    x.execute(&SqlBuilder::of(
        "DELETE FROM object_batch_members WHERE message_id IN \
         (SELECT id FROM messages WHERE tenant_id = $1 AND environment = $2 AND event_id = $3)",
        key.clone(),
    ))
    .await?;
    for b in batches {
        x.execute(&SqlBuilder::of(
            "DELETE FROM object_batches WHERE id = $1 \
             AND NOT EXISTS (SELECT 1 FROM object_batch_members WHERE batch_id = $1)",
            [b.into()],
        ))
        .await?;
    }
    Ok(())
}
