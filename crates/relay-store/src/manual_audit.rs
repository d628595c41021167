//! Manual attempts, audited: a resend and a test send write their audit
//! entry in the transaction that leases the message to the attempt
//! ([`crate::manual`]), so no attempt is made that the audit log does not
//! name; the attempt's end fills in the entry's `outcome`, in the
//! completion's own transaction ([`complete`]).
//!
//! The caller gives the entry's id, actor, action and time; the store adds
//! to its `parameters` what only it knows for sure: `message_id`,
//! `endpoint_id`, `event_id`, and `outcome` (`attempting` until the attempt
//! ends, then its [`relay_core::outcome::AttemptOutcome`], or `no_attempt`
//! when the message ended without one, e.g. its event's time to live had
//! passed). A refused manual attempt (busy, expired, endpoint deleted)
//! leases nothing and writes no entry: nothing changed.

use relay_core::time::Timestamp;

use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::{SqlBuilder, json_text};
use crate::{AuditEntry, Claimed, Completion, NewEvent, Result, Scope, audit, manual};

/// `outcome` while the attempt runs.
pub const ATTEMPTING: &str = "attempting";
/// `outcome` of a manual attempt that ended its message without an attempt.
pub const NO_ATTEMPT: &str = "no_attempt";

/// `a` with what the store knows of the leased message added to its
/// parameters (an object; anything else the caller put there is kept
/// under `request`).
fn entry_for(a: &AuditEntry, c: &Claimed) -> AuditEntry {
    let mut parameters = match &a.parameters {
        serde_json::Value::Object(m) => m.clone(),
        serde_json::Value::Null => serde_json::Map::new(),
        other => {
            let mut m = serde_json::Map::new();
            m.insert("request".into(), other.clone());
            m
        }
    };
    parameters.insert("message_id".into(), c.message.id.clone().into());
    parameters.insert("endpoint_id".into(), c.endpoint.id.clone().into());
    parameters.insert("event_id".into(), c.event.id.clone().into());
    parameters.insert("outcome".into(), ATTEMPTING.into());
    AuditEntry {
        parameters: serde_json::Value::Object(parameters),
        ..a.clone()
    }
}

/// [`manual::lease_for_manual_attempt`] and, when it leased the message,
/// `audit` (target: the message), in the caller's transaction: what the
/// dispatcher's resend runs.
pub async fn lease_for_manual_attempt<X: Exec>(
    x: &mut X,
    scope: &Scope,
    message_id: &str,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
    audit: &AuditEntry,
) -> Result<Option<Claimed>> {
    let claimed =
        manual::lease_for_manual_attempt(x, scope, message_id, owner, now, lease_until).await?;
    if let Some(c) = &claimed {
        let a = AuditEntry {
            target: c.message.id.clone(),
            ..entry_for(audit, c)
        };
        audit::insert(x, scope, &a).await?;
    }
    Ok(claimed)
}

/// [`manual::publish_to_endpoint`] and `audit` (target: the endpoint), in
/// the caller's transaction: what the dispatcher's test send runs.
pub async fn publish_to_endpoint<X: Exec>(
    x: &mut X,
    scope: &Scope,
    endpoint_id: &str,
    ev: &NewEvent,
    owner: &str,
    lease_until: Timestamp,
    audit: &AuditEntry,
) -> Result<Claimed> {
    let c = manual::publish_to_endpoint(x, scope, endpoint_id, ev, owner, lease_until).await?;
    let a = AuditEntry {
        target: endpoint_id.to_string(),
        ..entry_for(audit, &c)
    };
    audit::insert(x, scope, &a).await?;
    Ok(c)
}

/// The `outcome` a manual attempt's completion gives its entry.
pub fn outcome_of(c: &Completion) -> &'static str {
    c.attempt
        .as_ref()
        .map_or(NO_ATTEMPT, |a| a.outcome.as_str())
}

/// Applies the manual attempt's `completion` ([`crate::completions::complete`])
/// and writes its outcome (and attempt id) into the entry `audit_id` of
/// `scope`, in the caller's transaction. The rest of the entry never changes.
pub async fn complete<X: Exec>(
    x: &mut X,
    scope: &Scope,
    audit_id: &str,
    completion: &Completion,
) -> Result<crate::Completed> {
    let done = crate::completions::complete(x, std::slice::from_ref(completion)).await?;
    let found = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT parameters FROM audit_log WHERE id = $1 AND tenant_id = $2 AND environment = $3",
            [
                audit_id.into(),
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
            ],
        ),
    )
    .await?;
    let Some(row) = found else {
        return Ok(done);
    };
    let mut parameters: serde_json::Value = row.json("parameters")?;
    if let serde_json::Value::Object(m) = &mut parameters {
        m.insert("outcome".into(), outcome_of(completion).into());
        if let Some(a) = &completion.attempt {
            m.insert("attempt_id".into(), a.id.clone().into());
        }
    }
    x.execute(&SqlBuilder::of(
        "UPDATE audit_log SET parameters = $2 WHERE id = $1",
        [audit_id.into(), json_text(&parameters).into()],
    ))
    .await?;
    Ok(done)
}
