//! Inbound provider webhooks: sources, receipts and the ledger (see
//! `docs/inbound.md`; the rules are `relay_inbound`'s).
//!
//! - A source's secret is sealed under the master key, bound to the
//!   source's id ([`seal_secret`], [`open_secret`]); the one before the
//!   last rotation stays beside it until its overlap ends.
//! - [`receive`] writes a receipt before Relay answers: a verified one is
//!   unique per (tenant, environment, provider, provider event id), and a
//!   repeat only counts on the first; a rejected one is kept, the newest
//!   [`REJECTED_KEPT_PER_SOURCE`] per source.
//! - Verified receipts are a queue like messages: [`claim`] leases the due
//!   ones (and those whose lease expired), [`complete`] writes their
//!   ledger entries and marks them processed in one transaction, only
//!   while the lease holds; the ledger is unique per (receipt, ordinal),
//!   so a receipt processed twice writes each entry once.

use std::collections::BTreeMap;

use relay_core::model::Page;
use relay_core::sealed::{MasterKey, SealError};
use relay_core::time::Timestamp;
use relay_inbound::model::{
    InboundSource, LedgerEntry, Receipt, ReceiptState, SourceRecord, StoredSecret, Verdict,
};
use relay_inbound::{Options, Preset, SourceSecret};

use crate::exec::{Exec, fetch_optional, scoped_row};
use crate::rows::RowExt;
use crate::sql::SqlBuilder;
use crate::{AuditEntry, PageRequest, Result, Scope, StoreError};

fn random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source is unavailable");
    b
}

/// Seals `secret` for the source `source_id` (its id is the associated
/// data: the sealed value opens for that source only).
pub fn seal_secret(master: &MasterKey, source_id: &str, secret: &SourceSecret) -> StoredSecret {
    StoredSecret::Sealed(master.seal(random(), secret.expose().as_bytes(), source_id.as_bytes()))
}

/// Opens a source's stored secret; a reference cannot be opened here.
pub fn open_secret(
    master: &MasterKey,
    source_id: &str,
    stored: &StoredSecret,
) -> Result<SourceSecret, SealError> {
    match stored {
        StoredSecret::Sealed(s) => {
            let bytes = master.open(s, source_id.as_bytes())?;
            String::from_utf8(bytes)
                .map(SourceSecret::new)
                .map_err(|_| SealError::Malformed)
        }
        StoredSecret::Reference(_) => Err(SealError::Malformed),
    }
}

/// A fresh token for a source's receiving path: 128 random bits, hex.
pub fn new_token() -> String {
    hex::encode(random::<16>())
}

fn stored_text(s: &StoredSecret) -> &str {
    match s {
        StoredSecret::Sealed(v) | StoredSecret::Reference(v) => v,
    }
}

/// A stored secret column: a reference (`secret:`, `env:`, `file:`) or a
/// sealed value (`rk1:…`, which never parses as a reference).
fn stored_of(text: String) -> StoredSecret {
    if relay_core::secret::SecretRef::parse(&text).is_ok() {
        StoredSecret::Reference(text)
    } else {
        StoredSecret::Sealed(text)
    }
}

fn corrupt(col: &str, v: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("{col}: `{v}`"))
}

fn to_u32(col: &str, v: i64) -> Result<u32> {
    u32::try_from(v).map_err(|_| corrupt(col, v))
}

fn preset(r: &impl RowExt) -> Result<Preset> {
    let p = r.text("preset")?;
    Preset::parse(&p).ok_or_else(|| corrupt("preset", p))
}

/// A source row as the store keeps it.
pub fn source_row(r: &impl RowExt) -> Result<SourceRecord> {
    let previous = match (
        r.opt_text("previous_secret_sealed")?,
        r.opt_ts("previous_secret_expires_at")?,
    ) {
        (Some(s), Some(until)) => Some((stored_of(s), until)),
        _ => None,
    };
    let secret = stored_of(r.text("secret_sealed")?);
    let token = r.text("token")?;
    Ok(SourceRecord {
        source: InboundSource {
            id: r.text("id")?,
            environment: r.environment("environment")?,
            name: r.text("name")?,
            preset: preset(r)?,
            provider: r.text("provider")?,
            options: r.json("options_json")?,
            secret: secret.info(),
            previous_secret_expires_at: previous.as_ref().map(|(_, t)| *t),
            rate_limit_per_second: to_u32(
                "rate_limit_per_second",
                r.int("rate_limit_per_second")?,
            )?,
            max_body_bytes: to_u32("max_body_bytes", r.int("max_body_bytes")?)?,
            path: InboundSource::path_of(&token),
            url: None,
            created_at: r.ts("created_at")?,
            updated_at: r.ts("updated_at")?,
        },
        tenant_id: r.text("tenant_id")?,
        secret,
        previous,
    })
}

/// A receipt row as the API shows it.
pub fn receipt_row(r: &impl RowExt) -> Result<Receipt> {
    let verdict = r.text("verdict")?;
    let state = r.text("state")?;
    let headers: BTreeMap<String, String> = r.json("headers_json")?;
    Ok(Receipt {
        id: r.text("id")?,
        source_id: r.text("source_id")?,
        provider: r.text("provider")?,
        preset: preset(r)?,
        provider_event_id: r.opt_text("provider_event_id")?,
        verdict: Verdict::parse(&verdict).ok_or_else(|| corrupt("verdict", &verdict))?,
        refusal: r.opt_text("refusal")?,
        state: ReceiptState::parse(&state).ok_or_else(|| corrupt("state", &state))?,
        received_count: r.int("received_count")?,
        attempts: r.int("attempts")?,
        last_error: r.opt_text("last_error")?,
        headers,
        body_base64: r.text("body_base64")?,
        received_at: r.ts("received_at")?,
        last_received_at: r.ts("last_received_at")?,
        processed_at: r.opt_ts("processed_at")?,
    })
}

/// A ledger row.
pub fn ledger_row(r: &impl RowExt) -> Result<LedgerEntry> {
    Ok(LedgerEntry {
        id: r.text("id")?,
        source_id: r.text("source_id")?,
        provider: r.text("provider")?,
        event_type: r.text("event_type")?,
        provider_event_id: r.text("provider_event_id")?,
        occurred_at: r.opt_ts("occurred_at")?,
        received_at: r.ts("received_at")?,
        receipt_id: r.text("receipt_id")?,
        message_id: r.opt_text("message_id")?,
        recipient: r.opt_text("recipient")?,
        status: r.opt_text("status")?,
        recorded_at: r.ts("recorded_at")?,
    })
}

fn options_text(o: &Options) -> String {
    serde_json::to_string(o).unwrap_or_else(|_| "{}".into())
}

/// The token part of a source's path (`/inbound/<token>`).
fn token_of(source: &InboundSource) -> Result<&str> {
    source
        .path
        .strip_prefix("/inbound/")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| StoreError::Corrupt(format!("source path `{}`", source.path)))
}

/// Creates a source (its path's token must be fresh: [`new_token`]), with
/// `audit` (if any) in the same transaction.
pub async fn create_source<X: Exec>(
    x: &mut X,
    rec: &SourceRecord,
    audit: Option<&AuditEntry>,
) -> Result<()> {
    let s = &rec.source;
    let (prev, prev_until) = match &rec.previous {
        Some((p, t)) => (Some(stored_text(p).to_owned()), Some(*t)),
        None => (None, None),
    };
    x.execute(&SqlBuilder::of(
        "INSERT INTO inbound_sources (id, tenant_id, environment, token, name, preset, provider, \
         options_json, secret_sealed, previous_secret_sealed, previous_secret_expires_at, \
         rate_limit_per_second, max_body_bytes, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        [
            (&s.id).into(),
            (&rec.tenant_id).into(),
            s.environment.as_str().into(),
            token_of(s)?.into(),
            (&s.name).into(),
            s.preset.as_str().into(),
            (&s.provider).into(),
            options_text(&s.options).into(),
            stored_text(&rec.secret).into(),
            prev.into(),
            prev_until.into(),
            i64::from(s.rate_limit_per_second).into(),
            i64::from(s.max_body_bytes).into(),
            s.created_at.into(),
            s.updated_at.into(),
        ],
    ))
    .await
    .map_err(|e| e.unique_as("inbound_source_token"))?;
    let scope = Scope {
        tenant_id: rec.tenant_id.clone(),
        environment: s.environment,
    };
    crate::audit::insert_opt(x, &scope, audit).await
}

const SOURCE_BY_ID: &str = "SELECT * FROM inbound_sources WHERE tenant_id = $1 \
    AND environment = $2 AND id = $3 AND deleted_at IS NULL";

pub async fn get_source<X: Exec>(
    x: &mut X,
    scope: &Scope,
    id: &str,
) -> Result<Option<SourceRecord>> {
    scoped_row(x, SOURCE_BY_ID, scope, id)
        .await?
        .map(|r| source_row(&r))
        .transpose()
}

/// The live source whose receiving path has `token` (any tenant: the
/// unauthenticated receiving route finds its source by it).
pub async fn source_by_token<X: Exec>(x: &mut X, token: &str) -> Result<Option<SourceRecord>> {
    fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT * FROM inbound_sources WHERE token = $1 AND deleted_at IS NULL",
            [token.into()],
        ),
    )
    .await?
    .map(|r| source_row(&r))
    .transpose()
}

pub async fn list_sources<X: Exec>(
    x: &mut X,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<InboundSource>> {
    let mut q = SqlBuilder::new("SELECT * FROM inbound_sources WHERE tenant_id = ");
    q.bind(scope.tenant_id.as_str().into())
        .push(" AND environment = ")
        .bind(scope.environment.as_str().into())
        .push(" AND deleted_at IS NULL");
    q.paginate("id", page);
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(|r| source_row(r).map(|s| s.source))
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |s| &s.id))
}

/// A change to a source; absent fields stay as they are.
#[derive(Debug, Clone, Default)]
pub struct SourcePatch {
    pub name: Option<String>,
    pub options: Option<Options>,
    pub rate_limit_per_second: Option<u32>,
    pub max_body_bytes: Option<u32>,
    /// A new secret; the current one keeps verifying until the time given
    /// (`None`: it stops at once).
    pub rotate: Option<(StoredSecret, Option<Timestamp>)>,
    pub now: Timestamp,
}

/// Applies `patch` to the live source `id`, with `audit` (if any) in the
/// same transaction; returns it as it is now.
pub async fn update_source<X: Exec>(
    x: &mut X,
    scope: &Scope,
    id: &str,
    patch: &SourcePatch,
    audit: Option<&AuditEntry>,
) -> Result<SourceRecord> {
    let lock = x.dialect().for_update;
    let row = scoped_row(x, &format!("{SOURCE_BY_ID}{lock}"), scope, id)
        .await?
        .ok_or(StoreError::NotFound)?;
    let mut rec = source_row(&row)?;
    if let Some(name) = &patch.name {
        rec.source.name = name.clone();
    }
    if let Some(options) = &patch.options {
        rec.source.options = options.clone();
    }
    if let Some(rate) = patch.rate_limit_per_second {
        rec.source.rate_limit_per_second = rate;
    }
    if let Some(max) = patch.max_body_bytes {
        rec.source.max_body_bytes = max;
    }
    if let Some((secret, overlap_until)) = &patch.rotate {
        let old = std::mem::replace(&mut rec.secret, secret.clone());
        rec.previous = overlap_until.map(|t| (old, t));
        rec.source.secret = rec.secret.info();
        rec.source.previous_secret_expires_at = *overlap_until;
    }
    rec.source.updated_at = patch.now;
    let (prev, prev_until) = match &rec.previous {
        Some((p, t)) => (Some(stored_text(p).to_owned()), Some(*t)),
        None => (None, None),
    };
    let s = &rec.source;
    x.execute(&SqlBuilder::of(
        "UPDATE inbound_sources SET name = $2, options_json = $3, rate_limit_per_second = $4, \
         max_body_bytes = $5, secret_sealed = $6, previous_secret_sealed = $7, \
         previous_secret_expires_at = $8, updated_at = $9 WHERE id = $1",
        [
            (&s.id).into(),
            (&s.name).into(),
            options_text(&s.options).into(),
            i64::from(s.rate_limit_per_second).into(),
            i64::from(s.max_body_bytes).into(),
            stored_text(&rec.secret).into(),
            prev.into(),
            prev_until.into(),
            s.updated_at.into(),
        ],
    ))
    .await?;
    crate::audit::insert_opt(x, scope, audit).await?;
    Ok(rec)
}

/// Deletes the source: its path answers no more; its receipts and ledger
/// entries stay (verified receipts not yet processed still are). `audit`
/// (if any) is written in the same transaction.
pub async fn delete_source<X: Exec>(
    x: &mut X,
    scope: &Scope,
    id: &str,
    now: Timestamp,
    audit: Option<&AuditEntry>,
) -> Result<()> {
    let done = x
        .execute(&SqlBuilder::of(
            "UPDATE inbound_sources SET deleted_at = $4, updated_at = $4 WHERE tenant_id = $1 \
             AND environment = $2 AND id = $3 AND deleted_at IS NULL",
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
    crate::audit::insert_opt(x, scope, audit).await
}

mod receipts;
pub use receipts::*;
