//! Proof of endpoint ownership (migration 0022; the rules are
//! `relay_core::ownership` and `relay_core::lifecycle`, the whole story
//! `docs/security.md`, "Proof of endpoint ownership").
//!
//! An endpoint owes the proof while it names an origin to prove
//! (`ownership_origin`) that its tenant has no proof for in
//! `proven_origins`. It is `unverified` while it owes it and would
//! otherwise be active ([`settle`], in the transaction that creates or
//! changes it; resume and enable through `crate::lifecycle::apply`). The
//! prover takes due unverified endpoints ([`take_due`]), challenges them
//! and records the answer ([`record`]): a proof releases every unverified
//! endpoint of the tenant with that origin; a failure is kept for the
//! health view and the next challenge scheduled.

use relay_core::lifecycle::{EndpointAction, decide};
use relay_core::model::EndpointState;
use relay_core::ownership::Failure;
use relay_core::time::Timestamp;

use crate::Result;
use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};

/// Whether the endpoint owes the ownership proof now: it names an origin to
/// prove and its tenant has no proof for it.
pub async fn owes_proof<X: Exec>(x: &mut X, endpoint_id: &str) -> Result<bool> {
    let row = fetch_optional(
        x,
        &SqlBuilder::numbered(
            "SELECT 1 AS owed FROM endpoints e WHERE e.id = $1 AND e.ownership_origin IS NOT NULL \
             AND NOT EXISTS (SELECT 1 FROM proven_origins p \
               WHERE p.tenant_id = e.tenant_id AND p.origin = e.ownership_origin)",
            [Bind::Text(endpoint_id.into())],
        ),
    )
    .await?;
    Ok(row.is_some())
}

/// Brings the endpoint's state in line with the proof it owes, in the
/// caller's transaction: an active endpoint that owes it becomes
/// `unverified` (its messages held) and its first challenge is due at
/// `now`; an unverified one that no longer owes it becomes active (its
/// messages released). Returns the endpoint's state afterwards.
pub async fn settle<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    now: Timestamp,
) -> Result<EndpointState> {
    let row = crate::exec::fetch_one(
        x,
        &SqlBuilder::numbered(
            "SELECT state FROM endpoints WHERE id = $1",
            [Bind::Text(endpoint_id.into())],
        ),
    )
    .await?;
    let state = row.text("state")?;
    let state = EndpointState::parse(&state)
        .ok_or_else(|| crate::StoreError::Corrupt(format!("endpoint state `{state}`")))?;
    let owed = owes_proof(x, endpoint_id).await?;
    let action = match (state, owed) {
        (EndpointState::Active, true) => EndpointAction::ProofNeeded,
        (EndpointState::Unverified, false) => EndpointAction::Proven,
        _ => return Ok(state),
    };
    let Ok(change) = decide(state, action) else {
        return Ok(state);
    };
    let Some(applied) = crate::lifecycle::apply(x, endpoint_id, &change, now).await? else {
        return Ok(state);
    };
    if applied.to == EndpointState::Unverified {
        x.execute(&SqlBuilder::numbered(
            "UPDATE endpoints SET ownership_next_check_at = $2 WHERE id = $1 \
             AND ownership_next_check_at IS NULL",
            [Bind::Text(endpoint_id.into()), Bind::Int(now.millis())],
        ))
        .await?;
    }
    Ok(applied.to)
}

/// An endpoint the prover took: whom to challenge, for which origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Due {
    pub endpoint_id: String,
    pub scope: crate::Scope,
    pub origin: String,
}

/// Takes up to `limit` unverified endpoints whose next challenge is due at
/// `now`, each by moving its next challenge to `lease_until` with a
/// conditional update (so two nodes never challenge one endpoint at once;
/// a node that dies leaves it due again at `lease_until`).
pub async fn take_due<X: Exec>(
    x: &mut X,
    now: Timestamp,
    lease_until: Timestamp,
    limit: u32,
) -> Result<Vec<Due>> {
    let rows = x
        .fetch(&SqlBuilder::numbered(
            "SELECT id, tenant_id, environment, ownership_origin, ownership_next_check_at FROM endpoints \
             WHERE state = 'unverified' AND deleted_at IS NULL AND ownership_origin IS NOT NULL \
             AND ownership_next_check_at <= $1 ORDER BY ownership_next_check_at LIMIT $2",
            [Bind::Int(now.millis()), Bind::Int(i64::from(limit))],
        ))
        .await?;
    let mut taken = Vec::new();
    for row in &rows {
        let id = row.text("id")?;
        let due_at = row.int("ownership_next_check_at")?;
        let done = x
            .execute(&SqlBuilder::numbered(
                "UPDATE endpoints SET ownership_next_check_at = $2 \
                 WHERE id = $1 AND ownership_next_check_at = $3 AND state = 'unverified'",
                [
                    Bind::Text(id.clone()),
                    Bind::Int(lease_until.millis()),
                    Bind::Int(due_at),
                ],
            ))
            .await?;
        if done == 1 {
            taken.push(Due {
                endpoint_id: id,
                scope: crate::Scope {
                    tenant_id: row.text("tenant_id")?,
                    environment: row.environment("environment")?,
                },
                origin: row.text("ownership_origin")?,
            });
        }
    }
    Ok(taken)
}

/// Records the answer to a challenge of `origin` sent to the endpoint at
/// `now`. A proof is kept for the tenant and releases every unverified
/// endpoint of the tenant that owes it for that origin (audited, actor
/// `system`); returns their ids. A failure is kept on the endpoint (while
/// it still names `origin`), with its next challenge after the backoff of
/// `relay_core::ownership::next_check_in_seconds`.
pub async fn record<X: Exec>(
    x: &mut X,
    due: &Due,
    answer: &std::result::Result<(), Failure>,
    now: Timestamp,
) -> Result<Vec<String>> {
    let id = Bind::Text(due.endpoint_id.clone());
    let origin = Bind::Text(due.origin.clone());
    let Err(failure) = answer else {
        x.execute(&SqlBuilder::numbered(
            "INSERT INTO proven_origins (tenant_id, origin, endpoint_id, proven_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, origin) DO UPDATE \
             SET endpoint_id = excluded.endpoint_id, proven_at = excluded.proven_at",
            [
                Bind::Text(due.scope.tenant_id.clone()),
                origin.clone(),
                id.clone(),
                Bind::Int(now.millis()),
            ],
        ))
        .await?;
        x.execute(&SqlBuilder::numbered(
            "UPDATE endpoints SET ownership_checked_at = $3, ownership_checks = ownership_checks + 1, \
             ownership_failure_json = NULL, ownership_next_check_at = NULL \
             WHERE id = $1 AND ownership_origin = $2",
            [id, origin.clone(), Bind::Int(now.millis())],
        ))
        .await?;
        return release(x, due, now).await;
    };
    let checks = fetch_optional(
        x,
        &SqlBuilder::numbered(
            "SELECT ownership_checks FROM endpoints WHERE id = $1 AND ownership_origin = $2",
            [id.clone(), origin.clone()],
        ),
    )
    .await?;
    let Some(checks) = checks else {
        // Its URL moved meanwhile: the new origin has its own schedule.
        return Ok(Vec::new());
    };
    let checks = u32::try_from(checks.int("ownership_checks")?).unwrap_or(u32::MAX);
    let next = now.millis()
        + relay_core::ownership::next_check_in_seconds(checks.saturating_add(1)) * 1000;
    let json =
        serde_json::to_string(failure).map_err(|e| crate::StoreError::Corrupt(e.to_string()))?;
    x.execute(&SqlBuilder::numbered(
        "UPDATE endpoints SET ownership_checked_at = $3, ownership_checks = ownership_checks + 1, \
         ownership_failure_json = $4, \
         ownership_next_check_at = CASE WHEN state = 'unverified' THEN $5 ELSE NULL END \
         WHERE id = $1 AND ownership_origin = $2",
        [
            id,
            origin,
            Bind::Int(now.millis()),
            Bind::Text(json),
            Bind::Int(next),
        ],
    ))
    .await?;
    Ok(Vec::new())
}

/// Every unverified endpoint of the tenant owing the proof of `due.origin`
/// becomes active, its messages released, audited as Relay's own change.
async fn release<X: Exec>(x: &mut X, due: &Due, now: Timestamp) -> Result<Vec<String>> {
    let rows = x
        .fetch(&SqlBuilder::numbered(
            "SELECT id, environment FROM endpoints WHERE tenant_id = $1 AND ownership_origin = $2 \
             AND state = 'unverified' AND deleted_at IS NULL",
            [
                Bind::Text(due.scope.tenant_id.clone()),
                Bind::Text(due.origin.clone()),
            ],
        ))
        .await?;
    let Ok(change) = decide(EndpointState::Unverified, EndpointAction::Proven) else {
        return Ok(Vec::new());
    };
    let mut released = Vec::new();
    for row in &rows {
        let endpoint_id = row.text("id")?;
        if crate::lifecycle::apply(x, &endpoint_id, &change, now)
            .await?
            .is_none()
        {
            continue;
        }
        let scope = crate::Scope {
            tenant_id: due.scope.tenant_id.clone(),
            environment: row.environment("environment")?,
        };
        let entry = crate::AuditEntry {
            id: crate::new_id(relay_core::id::IdKind::Audit, now),
            actor: crate::lifecycle::SYSTEM_ACTOR.into(),
            action: "endpoint.active".into(),
            target: endpoint_id.clone(),
            parameters: serde_json::json!({
                "from": "unverified",
                "to": "active",
                "reason": "ownership_proven",
                "origin": due.origin,
            }),
            at: now,
        };
        crate::audit::insert(x, &scope, &entry).await?;
        released.push(endpoint_id);
    }
    Ok(released)
}

/// What the health view shows of an endpoint's ownership proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The origin to prove; `None` when no proof is owed.
    pub origin: Option<String>,
    /// When the tenant proved it, if it has.
    pub proven_at: Option<Timestamp>,
    pub checked_at: Option<Timestamp>,
    pub checks: i64,
    pub failure: Option<Failure>,
    pub next_check_at: Option<Timestamp>,
}

/// The endpoint's [`Status`] (`None`: no such endpoint).
pub async fn status<X: Exec>(x: &mut X, endpoint_id: &str) -> Result<Option<Status>> {
    let Some(row) = fetch_optional(
        x,
        &SqlBuilder::numbered(
            "SELECT e.ownership_origin, e.ownership_checked_at, e.ownership_checks, \
             e.ownership_failure_json, e.ownership_next_check_at, p.proven_at \
             FROM endpoints e LEFT JOIN proven_origins p \
               ON p.tenant_id = e.tenant_id AND p.origin = e.ownership_origin \
             WHERE e.id = $1",
            [Bind::Text(endpoint_id.into())],
        ),
    )
    .await?
    else {
        return Ok(None);
    };
    Ok(Some(Status {
        origin: row.opt_text("ownership_origin")?,
        proven_at: row.opt_ts("proven_at")?,
        checked_at: row.opt_ts("ownership_checked_at")?,
        checks: row.int("ownership_checks")?,
        failure: row.opt_json("ownership_failure_json")?,
        next_check_at: row.opt_ts("ownership_next_check_at")?,
    }))
}

/// Makes the endpoint's next challenge due at `now` (the tenant asked for
/// one): the prover takes it at its next turn.
pub async fn check_now<X: Exec>(x: &mut X, endpoint_id: &str, now: Timestamp) -> Result<()> {
    x.execute(&SqlBuilder::numbered(
        "UPDATE endpoints SET ownership_next_check_at = $2 WHERE id = $1 AND state = 'unverified'",
        [Bind::Text(endpoint_id.into()), Bind::Int(now.millis())],
    ))
    .await?;
    Ok(())
}
