//! The inbound cases' calls through the executor (`crate::executor`), one
//! operation each: inbound provider webhooks' sources, receipts and ledger
//! have no role of their own.

use relay_core::model::Page;
use relay_core::time::Timestamp;
use relay_inbound::model::{InboundSource, LedgerEntry, Receipt, ReceiptWork, SourceRecord};

use crate::inbound::{self, LedgerFilter, NewReceipt, ReceiptFilter, Received, SourcePatch};
use crate::{AuditEntry, Commit, ExecutorExt as _, PageRequest, Result, Scope, Store};

pub(crate) async fn create_inbound_source(
    s: &dyn Store,
    record: &SourceRecord,
    audit: Option<&AuditEntry>,
) -> Result<()> {
    let (record, audit) = (record.clone(), audit.cloned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { inbound::create_source(&mut x, &record, audit.as_ref()).await })
    })
    .await
}

pub(crate) async fn get_inbound_source(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
) -> Result<Option<SourceRecord>> {
    let (scope, id) = (scope.clone(), id.to_owned());
    s.read(move |mut x| Box::pin(async move { inbound::get_source(&mut x, &scope, &id).await }))
        .await
}

pub(crate) async fn list_inbound_sources(
    s: &dyn Store,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<InboundSource>> {
    let (scope, page) = (scope.clone(), page.clone());
    s.read(move |mut x| Box::pin(async move { inbound::list_sources(&mut x, &scope, &page).await }))
        .await
}

pub(crate) async fn inbound_source_by_token(
    s: &dyn Store,
    token: &str,
) -> Result<Option<SourceRecord>> {
    let token = token.to_owned();
    s.read(move |mut x| Box::pin(async move { inbound::source_by_token(&mut x, &token).await }))
        .await
}

pub(crate) async fn update_inbound_source(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
    patch: &SourcePatch,
    audit: Option<&AuditEntry>,
) -> Result<SourceRecord> {
    let (scope, id, patch, audit) = (scope.clone(), id.to_owned(), patch.clone(), audit.cloned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            inbound::update_source(&mut x, &scope, &id, &patch, audit.as_ref()).await
        })
    })
    .await
}

pub(crate) async fn delete_inbound_source(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
    now: Timestamp,
    audit: Option<&AuditEntry>,
) -> Result<()> {
    let (scope, id, audit) = (scope.clone(), id.to_owned(), audit.cloned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(
            async move { inbound::delete_source(&mut x, &scope, &id, now, audit.as_ref()).await },
        )
    })
    .await
}

pub(crate) async fn receive_inbound(s: &dyn Store, receipt: &NewReceipt) -> Result<Received> {
    let receipt = receipt.clone();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { inbound::receive(&mut x, &receipt).await })
    })
    .await
}

pub(crate) async fn claim_receipts(
    s: &dyn Store,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
    limit: i64,
) -> Result<Vec<ReceiptWork>> {
    let owner = owner.to_owned();
    s.write(Commit::Lease, move |mut x| {
        Box::pin(async move { inbound::claim(&mut x, &owner, now, lease_until, limit).await })
    })
    .await
}

pub(crate) async fn complete_receipt(
    s: &dyn Store,
    id: &str,
    lease: &str,
    entries: &[LedgerEntry],
    now: Timestamp,
) -> Result<bool> {
    let (id, lease, entries) = (id.to_owned(), lease.to_owned(), entries.to_vec());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { inbound::complete(&mut x, &id, &lease, &entries, now).await })
    })
    .await
}

pub(crate) async fn complete_receipts(
    s: &dyn Store,
    done: &[(String, String, Vec<LedgerEntry>)],
    now: Timestamp,
) -> Result<Vec<bool>> {
    let done = done.to_vec();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { inbound::complete_all(&mut x, &done, now).await })
    })
    .await
}

pub(crate) async fn fail_receipt(
    s: &dyn Store,
    id: &str,
    lease: &str,
    error: &str,
    retry_at: Option<Timestamp>,
) -> Result<bool> {
    let (id, lease, error) = (id.to_owned(), lease.to_owned(), error.to_owned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { inbound::fail(&mut x, &id, &lease, &error, retry_at).await })
    })
    .await
}

pub(crate) async fn reprocess_receipt(
    s: &dyn Store,
    scope: &Scope,
    id: &str,
    now: Timestamp,
) -> Result<Receipt> {
    let (scope, id) = (scope.clone(), id.to_owned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { inbound::reprocess(&mut x, &scope, &id, now).await })
    })
    .await
}

pub(crate) async fn get_receipt(s: &dyn Store, scope: &Scope, id: &str) -> Result<Option<Receipt>> {
    let (scope, id) = (scope.clone(), id.to_owned());
    s.read(move |mut x| Box::pin(async move { inbound::get_receipt(&mut x, &scope, &id).await }))
        .await
}

pub(crate) async fn list_receipts(
    s: &dyn Store,
    scope: &Scope,
    filter: &ReceiptFilter,
    page: &PageRequest,
) -> Result<Page<Receipt>> {
    let (scope, filter, page) = (scope.clone(), filter.clone(), page.clone());
    s.read(move |mut x| {
        Box::pin(async move { inbound::list_receipts(&mut x, &scope, &filter, &page).await })
    })
    .await
}

pub(crate) async fn list_ledger(
    s: &dyn Store,
    scope: &Scope,
    filter: &LedgerFilter,
    page: &PageRequest,
) -> Result<Page<LedgerEntry>> {
    let (scope, filter, page) = (scope.clone(), filter.clone(), page.clone());
    s.read(move |mut x| {
        Box::pin(async move { inbound::list_ledger(&mut x, &scope, &filter, &page).await })
    })
    .await
}
