//! [`InboundStore`]: inbound provider webhooks: the sources a tenant
//! configures, the receipts the unauthenticated receiving route writes
//! before it answers, the queue of verified receipts the ledger writer
//! (`relay-engine/src/inbound.rs`) leases, and the ledger.
//!
//! Tenant data is read and changed through a [`Scope`], except
//! [`InboundStore::inbound_source_by_token`] (the receiving route knows
//! only the path) and the ledger writer's queue (every tenant's).

use async_trait::async_trait;
use relay_core::model::Page;
use relay_core::time::Timestamp;
use relay_inbound::model::{InboundSource, LedgerEntry, Receipt, ReceiptWork, SourceRecord};

use crate::backend::Backend;
use crate::exec::Commit;
use crate::inbound::{self, LedgerFilter, NewReceipt, ReceiptFilter, Received, SourcePatch};
use crate::{AuditEntry, PageRequest, Result, Scope};

#[async_trait]
pub trait InboundStore: Send + Sync {
    /// Creates the source, with `audit` (if any) in the same transaction.
    async fn create_inbound_source(
        &self,
        record: &SourceRecord,
        audit: Option<&AuditEntry>,
    ) -> Result<()>;
    async fn get_inbound_source(&self, scope: &Scope, id: &str) -> Result<Option<SourceRecord>>;
    async fn list_inbound_sources(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> Result<Page<InboundSource>>;
    /// The live source whose receiving path has `token`, of any tenant.
    async fn inbound_source_by_token(&self, token: &str) -> Result<Option<SourceRecord>>;
    /// Applies `patch` (`NotFound` for no live source `id`), with `audit`
    /// (if any) in the same transaction.
    async fn update_inbound_source(
        &self,
        scope: &Scope,
        id: &str,
        patch: &SourcePatch,
        audit: Option<&AuditEntry>,
    ) -> Result<SourceRecord>;
    async fn delete_inbound_source(
        &self,
        scope: &Scope,
        id: &str,
        now: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> Result<()>;

    /// Writes a receipt durably (before the receiving route answers).
    async fn receive_inbound(&self, receipt: &NewReceipt) -> Result<Received>;
    /// Leases due verified receipts (see [`crate::inbound::claim`]).
    async fn claim_receipts(
        &self,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
        limit: i64,
    ) -> Result<Vec<ReceiptWork>>;
    /// Writes the receipt's ledger entries and marks it processed while
    /// its lease holds; whether it held.
    async fn complete_receipt(
        &self,
        id: &str,
        lease: &str,
        entries: &[LedgerEntry],
        now: Timestamp,
    ) -> Result<bool>;
    /// [`InboundStore::complete_receipt`] for each of `done` (receipt id,
    /// lease, entries), in one transaction; whether each lease held.
    async fn complete_receipts(
        &self,
        done: &[(String, String, Vec<LedgerEntry>)],
        now: Timestamp,
    ) -> Result<Vec<bool>>;
    /// Ends a failed processing attempt while its lease holds: due again
    /// at `retry_at`, or `failed`.
    async fn fail_receipt(
        &self,
        id: &str,
        lease: &str,
        error: &str,
        retry_at: Option<Timestamp>,
    ) -> Result<bool>;
    async fn reprocess_receipt(&self, scope: &Scope, id: &str, now: Timestamp) -> Result<Receipt>;
    async fn get_receipt(&self, scope: &Scope, id: &str) -> Result<Option<Receipt>>;
    async fn list_receipts(
        &self,
        scope: &Scope,
        filter: &ReceiptFilter,
        page: &PageRequest,
    ) -> Result<Page<Receipt>>;
    async fn list_ledger(
        &self,
        scope: &Scope,
        filter: &LedgerFilter,
        page: &PageRequest,
    ) -> Result<Page<LedgerEntry>>;
}

#[async_trait]
impl<B: Backend> InboundStore for B {
    async fn create_inbound_source(
        &self,
        record: &SourceRecord,
        audit: Option<&AuditEntry>,
    ) -> Result<()> {
        let (record, audit) = (record.clone(), audit.cloned());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { inbound::create_source(x, &record, audit.as_ref()).await })
        })
        .await
    }

    async fn get_inbound_source(&self, scope: &Scope, id: &str) -> Result<Option<SourceRecord>> {
        inbound::get_source(&mut *self.reader().await?, scope, id).await
    }

    async fn list_inbound_sources(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> Result<Page<InboundSource>> {
        inbound::list_sources(&mut *self.reader().await?, scope, page).await
    }

    async fn inbound_source_by_token(&self, token: &str) -> Result<Option<SourceRecord>> {
        inbound::source_by_token(&mut *self.reader().await?, token).await
    }

    async fn update_inbound_source(
        &self,
        scope: &Scope,
        id: &str,
        patch: &SourcePatch,
        audit: Option<&AuditEntry>,
    ) -> Result<SourceRecord> {
        let (scope, id, patch, audit) =
            (scope.clone(), id.to_owned(), patch.clone(), audit.cloned());
        self.write(Commit::Durable, move |x| {
            Box::pin(
                async move { inbound::update_source(x, &scope, &id, &patch, audit.as_ref()).await },
            )
        })
        .await
    }

    async fn delete_inbound_source(
        &self,
        scope: &Scope,
        id: &str,
        now: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> Result<()> {
        let (scope, id, audit) = (scope.clone(), id.to_owned(), audit.cloned());
        self.write(Commit::Durable, move |x| {
            Box::pin(
                async move { inbound::delete_source(x, &scope, &id, now, audit.as_ref()).await },
            )
        })
        .await
    }

    async fn receive_inbound(&self, receipt: &NewReceipt) -> Result<Received> {
        let receipt = receipt.clone();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { inbound::receive(x, &receipt).await })
        })
        .await
    }

    async fn claim_receipts(
        &self,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
        limit: i64,
    ) -> Result<Vec<ReceiptWork>> {
        let owner = owner.to_owned();
        // A claim lost in a power cut costs nothing: its leases expire.
        self.write(Commit::Lease, move |x| {
            Box::pin(async move { inbound::claim(x, &owner, now, lease_until, limit).await })
        })
        .await
    }

    async fn complete_receipt(
        &self,
        id: &str,
        lease: &str,
        entries: &[LedgerEntry],
        now: Timestamp,
    ) -> Result<bool> {
        let (id, lease, entries) = (id.to_owned(), lease.to_owned(), entries.to_vec());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { inbound::complete(x, &id, &lease, &entries, now).await })
        })
        .await
    }

    async fn complete_receipts(
        &self,
        done: &[(String, String, Vec<LedgerEntry>)],
        now: Timestamp,
    ) -> Result<Vec<bool>> {
        let done = done.to_vec();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                let mut held = Vec::with_capacity(done.len());
                for (id, lease, entries) in &done {
                    held.push(inbound::complete(x, id, lease, entries, now).await?);
                }
                Ok(held)
            })
        })
        .await
    }

    async fn fail_receipt(
        &self,
        id: &str,
        lease: &str,
        error: &str,
        retry_at: Option<Timestamp>,
    ) -> Result<bool> {
        let (id, lease, error) = (id.to_owned(), lease.to_owned(), error.to_owned());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { inbound::fail(x, &id, &lease, &error, retry_at).await })
        })
        .await
    }

    async fn reprocess_receipt(&self, scope: &Scope, id: &str, now: Timestamp) -> Result<Receipt> {
        let (scope, id) = (scope.clone(), id.to_owned());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { inbound::reprocess(x, &scope, &id, now).await })
        })
        .await
    }

    async fn get_receipt(&self, scope: &Scope, id: &str) -> Result<Option<Receipt>> {
        inbound::get_receipt(&mut *self.reader().await?, scope, id).await
    }

    async fn list_receipts(
        &self,
        scope: &Scope,
        filter: &ReceiptFilter,
        page: &PageRequest,
    ) -> Result<Page<Receipt>> {
        inbound::list_receipts(&mut *self.reader().await?, scope, filter, page).await
    }

    async fn list_ledger(
        &self,
        scope: &Scope,
        filter: &LedgerFilter,
        page: &PageRequest,
    ) -> Result<Page<LedgerEntry>> {
        inbound::list_ledger(&mut *self.reader().await?, scope, filter, page).await
    }
}
