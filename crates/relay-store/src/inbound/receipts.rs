//! Receipts and the ledger: written at receipt, leased and completed by
//! the ledger writer, listed (see the parent module's documentation).

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use relay_core::model::{Environment, Page};
use relay_core::time::Timestamp;
use relay_inbound::Preset;
use relay_inbound::model::{
    LedgerEntry, MAX_PROCESSING_ATTEMPTS, REJECTED_KEPT_PER_SOURCE, Receipt, ReceiptState,
    ReceiptWork, Verdict,
};

use super::{corrupt, ledger_row, receipt_row};
use crate::exec::{Exec, fetch_optional, scoped_row};
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};
use crate::{PageRequest, Result, Scope, StoreError};

/// A request a source received, with its verdict, to write before answering.
#[derive(Debug, Clone)]
pub struct NewReceipt {
    pub id: String,
    pub tenant_id: String,
    pub environment: Environment,
    pub source_id: String,
    pub provider: String,
    pub preset: Preset,
    /// The provider event id of a verified request, or the refusal's code.
    pub verdict: std::result::Result<String, String>,
    pub url: String,
    pub headers: BTreeMap<String, String>,
    /// The raw body (the caller cuts a rejected one to what is kept).
    pub body: Vec<u8>,
    pub now: Timestamp,
}

/// What [`receive`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// A new verified receipt, to be processed.
    New { id: String },
    /// A repeat of a verified receipt: counted on the first (`id`), which
    /// has now been received `received_count` times.
    Duplicate { id: String, received_count: i64 },
    /// A rejected receipt, kept for diagnosis.
    Rejected { id: String },
}

/// Writes a receipt (see the module's documentation).
pub async fn receive<X: Exec>(x: &mut X, r: &NewReceipt) -> Result<Received> {
    let headers = serde_json::to_string(&r.headers).unwrap_or_else(|_| "{}".into());
    let (event_id, verdict, refusal, state, due) = match &r.verdict {
        Ok(event_id) => (
            Some(event_id.clone()),
            Verdict::Verified,
            None,
            ReceiptState::Pending,
            Some(r.now),
        ),
        Err(code) => (
            None,
            Verdict::Rejected,
            Some(code.clone()),
            ReceiptState::Rejected,
            None,
        ),
    };
    let insert = "INSERT INTO inbound_receipts (id, tenant_id, environment, source_id, provider, \
         preset, provider_event_id, verdict, refusal, state, received_count, attempts, url, \
         headers_json, body_base64, next_attempt_at, received_at, last_received_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, 0, $11, $12, $13, $14, $15, $15)";
    let binds = [
        (&r.id).into(),
        (&r.tenant_id).into(),
        r.environment.as_str().into(),
        (&r.source_id).into(),
        (&r.provider).into(),
        r.preset.as_str().into(),
        event_id.clone().into(),
        verdict.as_str().into(),
        refusal.into(),
        state.as_str().into(),
        (&r.url).into(),
        headers.into(),
        BASE64.encode(&r.body).into(),
        due.into(),
        r.now.into(),
    ];
    if event_id.is_none() {
        x.execute(&SqlBuilder::of(insert, binds)).await?;
        // Keep the newest rejected receipts of the source only.
        x.execute(&SqlBuilder::of(
            "DELETE FROM inbound_receipts WHERE source_id = $1 AND verdict = 'rejected' \
             AND id < (SELECT id FROM inbound_receipts WHERE source_id = $1 \
             AND verdict = 'rejected' ORDER BY id DESC LIMIT 1 OFFSET $2)",
            [(&r.source_id).into(), (REJECTED_KEPT_PER_SOURCE - 1).into()],
        ))
        .await?;
        return Ok(Received::Rejected { id: r.id.clone() });
    }
    let row = fetch_optional(
        x,
        &SqlBuilder::of(
            &format!(
                "{insert} ON CONFLICT (tenant_id, environment, provider, provider_event_id) \
                 DO UPDATE SET received_count = inbound_receipts.received_count + 1, \
                 last_received_at = CASE WHEN excluded.last_received_at > \
                 inbound_receipts.last_received_at THEN excluded.last_received_at \
                 ELSE inbound_receipts.last_received_at END RETURNING id, received_count"
            ),
            binds,
        ),
    )
    .await?
    .ok_or_else(|| StoreError::Corrupt("an upsert returned no row".into()))?;
    let (id, count) = (row.text("id")?, row.int("received_count")?);
    Ok(if count == 1 && id == r.id {
        Received::New { id }
    } else {
        Received::Duplicate {
            id,
            received_count: count,
        }
    })
}

/// Leases up to `limit` verified receipts due at `now` (pending, or
/// processing under a lease that expired) to `owner` until `lease_until`.
/// A receipt whose leases expired [`MAX_PROCESSING_ATTEMPTS`] times is
/// left `failed` instead (something stops every processor that takes it).
pub async fn claim<X: Exec>(
    x: &mut X,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
    limit: i64,
) -> Result<Vec<ReceiptWork>> {
    let skip = x.dialect().skip_locked;
    let mut ids: Vec<String> = Vec::new();
    for sql in [
        "SELECT id, attempts FROM inbound_receipts WHERE state = 'pending' \
         AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2",
        "SELECT id, attempts FROM inbound_receipts WHERE state = 'processing' \
         AND lease_until <= $1 ORDER BY lease_until, id LIMIT $2",
    ] {
        let room = limit - ids.len() as i64;
        if room <= 0 {
            break;
        }
        let rows = x
            .fetch(&SqlBuilder::of(
                &format!("{sql}{skip}"),
                [now.into(), room.into()],
            ))
            .await?;
        for r in rows {
            let id = r.text("id")?;
            if r.int("attempts")? >= MAX_PROCESSING_ATTEMPTS {
                x.execute(&SqlBuilder::of(
                    "UPDATE inbound_receipts SET state = 'failed', lease_owner = NULL, \
                     lease_until = NULL, next_attempt_at = NULL, \
                     last_error = 'processing_abandoned' WHERE id = $1",
                    [id.into()],
                ))
                .await?;
            } else {
                ids.push(id);
            }
        }
    }
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        x.execute(&SqlBuilder::of(
            "UPDATE inbound_receipts SET state = 'processing', lease_owner = $2, \
             lease_until = $3, lease_version = lease_version + 1, attempts = attempts + 1, \
             next_attempt_at = NULL WHERE id = $1",
            [(&id).into(), owner.into(), lease_until.into()],
        ))
        .await?;
        let row = fetch_optional(
            x,
            &SqlBuilder::of(
                "SELECT r.*, s.options_json FROM inbound_receipts r \
                 JOIN inbound_sources s ON s.id = r.source_id WHERE r.id = $1",
                [(&id).into()],
            ),
        )
        .await?
        .ok_or(StoreError::NotFound)?;
        let receipt = receipt_row(&row)?;
        let body = BASE64
            .decode(&receipt.body_base64)
            .map_err(|_| corrupt("body_base64", &receipt.id))?;
        out.push(ReceiptWork {
            tenant_id: row.text("tenant_id")?,
            environment: row.environment("environment")?,
            options: row.json("options_json")?,
            body,
            lease: row.int("lease_version")?.to_string(),
            receipt,
        });
    }
    Ok(out)
}

fn lease_version(lease: &str) -> Result<i64> {
    lease
        .parse()
        .map_err(|_| StoreError::Corrupt(format!("lease `{lease}`")))
}

/// [`complete`] for each of `done` (receipt id, lease, entries), in the
/// caller's transaction; whether each lease held.
pub async fn complete_all<X: Exec>(
    x: &mut X,
    done: &[(String, String, Vec<LedgerEntry>)],
    now: Timestamp,
) -> Result<Vec<bool>> {
    let mut held = Vec::with_capacity(done.len());
    for (id, lease, entries) in done {
        held.push(complete(x, id, lease, entries, now).await?);
    }
    Ok(held)
}

/// Writes `entries` to the ledger for the receipt `id` and marks it
/// processed, only while the lease `lease` holds; returns whether it held.
/// The entries' tenant and environment are the receipt's.
pub async fn complete<X: Exec>(
    x: &mut X,
    id: &str,
    lease: &str,
    entries: &[LedgerEntry],
    now: Timestamp,
) -> Result<bool> {
    let version = lease_version(lease)?;
    let done = x
        .execute(&SqlBuilder::of(
            "UPDATE inbound_receipts SET state = 'processed', processed_at = $3, \
             lease_owner = NULL, lease_until = NULL, last_error = NULL \
             WHERE id = $1 AND state = 'processing' AND lease_version = $2",
            [id.into(), version.into(), now.into()],
        ))
        .await?;
    if done == 0 {
        return Ok(false);
    }
    for (ordinal, e) in entries.iter().enumerate() {
        x.execute(&SqlBuilder::of(
            "INSERT INTO ledger_entries (id, tenant_id, environment, source_id, provider, \
             event_type, provider_event_id, occurred_at, received_at, receipt_id, ordinal, \
             message_id, recipient, status, recorded_at) \
             SELECT $1, r.tenant_id, r.environment, r.source_id, r.provider, $2, $3, $4, \
             r.received_at, r.id, $5, $6, $7, $8, $9 FROM inbound_receipts r WHERE r.id = $10 \
             ON CONFLICT (receipt_id, ordinal) DO NOTHING",
            [
                (&e.id).into(),
                (&e.event_type).into(),
                (&e.provider_event_id).into(),
                e.occurred_at.into(),
                (ordinal as i64).into(),
                (&e.message_id).into(),
                (&e.recipient).into(),
                (&e.status).into(),
                now.into(),
                id.into(),
            ],
        ))
        .await?;
    }
    Ok(true)
}

/// Ends a processing attempt of receipt `id` that failed with `error`,
/// only while the lease holds: due again at `retry_at`, or `failed`.
pub async fn fail<X: Exec>(
    x: &mut X,
    id: &str,
    lease: &str,
    error: &str,
    retry_at: Option<Timestamp>,
) -> Result<bool> {
    let version = lease_version(lease)?;
    let state = if retry_at.is_some() {
        ReceiptState::Pending
    } else {
        ReceiptState::Failed
    };
    let done = x
        .execute(&SqlBuilder::of(
            "UPDATE inbound_receipts SET state = $3, next_attempt_at = $4, last_error = $5, \
             lease_owner = NULL, lease_until = NULL \
             WHERE id = $1 AND state = 'processing' AND lease_version = $2",
            [
                id.into(),
                version.into(),
                state.as_str().into(),
                retry_at.into(),
                error.into(),
            ],
        ))
        .await?;
    Ok(done > 0)
}

const RECEIPT_BY_ID: &str =
    "SELECT * FROM inbound_receipts WHERE tenant_id = $1 AND environment = $2 AND id = $3";

pub async fn get_receipt<X: Exec>(x: &mut X, scope: &Scope, id: &str) -> Result<Option<Receipt>> {
    scoped_row(x, RECEIPT_BY_ID, scope, id)
        .await?
        .map(|r| receipt_row(&r))
        .transpose()
}

/// Makes a verified receipt due again at `now`, its attempts reset. Its
/// ledger entries are written once whatever happens: processing it again
/// adds only those it lacks. `Conflict("receipt_rejected")` for a rejected
/// one, `Conflict("receipt_processing")` while one is leased.
pub async fn reprocess<X: Exec>(
    x: &mut X,
    scope: &Scope,
    id: &str,
    now: Timestamp,
) -> Result<Receipt> {
    let lock = x.dialect().for_update;
    let receipt = scoped_row(x, &format!("{RECEIPT_BY_ID}{lock}"), scope, id)
        .await?
        .map(|r| receipt_row(&r))
        .transpose()?
        .ok_or(StoreError::NotFound)?;
    match receipt.state {
        ReceiptState::Rejected => return Err(StoreError::Conflict("receipt_rejected")),
        ReceiptState::Processing => return Err(StoreError::Conflict("receipt_processing")),
        _ => {}
    }
    x.execute(&SqlBuilder::of(
        "UPDATE inbound_receipts SET state = 'pending', next_attempt_at = $2, attempts = 0, \
         last_error = NULL WHERE id = $1",
        [id.into(), now.into()],
    ))
    .await?;
    Ok(Receipt {
        state: ReceiptState::Pending,
        attempts: 0,
        last_error: None,
        ..receipt
    })
}

/// Which receipts to list.
#[derive(Debug, Clone, Default)]
pub struct ReceiptFilter {
    pub source_id: Option<String>,
    pub verdict: Option<Verdict>,
    pub state: Option<ReceiptState>,
    pub provider_event_id: Option<String>,
}

pub async fn list_receipts<X: Exec>(
    x: &mut X,
    scope: &Scope,
    filter: &ReceiptFilter,
    page: &PageRequest,
) -> Result<Page<Receipt>> {
    let mut q = SqlBuilder::new("SELECT * FROM inbound_receipts WHERE tenant_id = ");
    q.bind(scope.tenant_id.as_str().into())
        .push(" AND environment = ")
        .bind(scope.environment.as_str().into());
    let texts: [(&str, Option<String>); 4] = [
        ("source_id", filter.source_id.clone()),
        ("verdict", filter.verdict.map(|v| v.as_str().to_owned())),
        ("state", filter.state.map(|s| s.as_str().to_owned())),
        ("provider_event_id", filter.provider_event_id.clone()),
    ];
    push_equal(&mut q, &texts);
    q.paginate("id", page);
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(receipt_row)
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |r| &r.id))
}

fn push_equal(q: &mut SqlBuilder, columns: &[(&str, Option<String>)]) {
    for (column, value) in columns {
        if let Some(v) = value {
            q.push(&format!(" AND {column} = "))
                .bind(Bind::Text(v.clone()));
        }
    }
}

/// Which ledger entries to list.
#[derive(Debug, Clone, Default)]
pub struct LedgerFilter {
    pub source_id: Option<String>,
    pub provider: Option<String>,
    pub event_type: Option<String>,
    pub provider_event_id: Option<String>,
    pub message_id: Option<String>,
    pub recipient: Option<String>,
    pub receipt_id: Option<String>,
    /// Received at or after.
    pub received_from: Option<Timestamp>,
    /// Received before.
    pub received_until: Option<Timestamp>,
}

pub async fn list_ledger<X: Exec>(
    x: &mut X,
    scope: &Scope,
    filter: &LedgerFilter,
    page: &PageRequest,
) -> Result<Page<LedgerEntry>> {
    let mut q = SqlBuilder::new("SELECT * FROM ledger_entries WHERE tenant_id = ");
    q.bind(scope.tenant_id.as_str().into())
        .push(" AND environment = ")
        .bind(scope.environment.as_str().into());
    push_equal(
        &mut q,
        &[
            ("source_id", filter.source_id.clone()),
            ("provider", filter.provider.clone()),
            ("event_type", filter.event_type.clone()),
            ("provider_event_id", filter.provider_event_id.clone()),
            ("message_id", filter.message_id.clone()),
            ("recipient", filter.recipient.clone()),
            ("receipt_id", filter.receipt_id.clone()),
        ],
    );
    if let Some(t) = filter.received_from {
        q.push(" AND received_at >= ").bind(t.into());
    }
    if let Some(t) = filter.received_until {
        q.push(" AND received_at < ").bind(t.into());
    }
    q.paginate("id", page);
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(ledger_row)
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |e| &e.id))
}
