//! [`ObjectBatches`]: what the dispatcher needs to write an object storage
//! endpoint's messages in batches (`crate::object_batches`): a closed batch
//! recorded durably before its first write, the batch a message belongs
//! to, and a stored batch leased again to write it again.

use async_trait::async_trait;
use relay_core::time::Timestamp;

use crate::Result;
use crate::backend::Backend;
use crate::exec::Commit;
use crate::object_batches::{self, LeasedBatch, ObjectBatch};

#[async_trait]
pub trait ObjectBatches: Send + Sync {
    /// Records `batch` durably (its object, its members in order) while
    /// `owner` still holds each member's lease at the version in `leases`;
    /// `false`, nothing written, when one of them does not.
    async fn record_batch(&self, owner: &str, batch: &ObjectBatch, leases: &[i64]) -> Result<bool>;
    /// `(message id, batch id)` for each of `message_ids` that is in a batch.
    async fn batches_of(&self, message_ids: &[String]) -> Result<Vec<(String, String)>>;
    /// The stored batch, or `None`.
    async fn object_batch(&self, batch_id: &str) -> Result<Option<ObjectBatch>>;
    /// The stored batch with its `scheduled`, unleased members leased to
    /// `owner` until `lease_until`, whatever their due time.
    async fn lease_batch(
        &self,
        batch_id: &str,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<LeasedBatch>>;
}

#[async_trait]
impl<B: Backend> ObjectBatches for B {
    async fn record_batch(&self, owner: &str, batch: &ObjectBatch, leases: &[i64]) -> Result<bool> {
        let (owner, batch, leases) = (owner.to_string(), batch.clone(), leases.to_vec());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { object_batches::record(x, &owner, &batch, &leases).await })
        })
        .await
    }

    async fn batches_of(&self, message_ids: &[String]) -> Result<Vec<(String, String)>> {
        object_batches::batches_of(&mut *self.reader().await?, message_ids).await
    }

    async fn object_batch(&self, batch_id: &str) -> Result<Option<ObjectBatch>> {
        object_batches::get(&mut *self.reader().await?, batch_id).await
    }

    async fn lease_batch(
        &self,
        batch_id: &str,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<LeasedBatch>> {
        let (batch_id, owner) = (batch_id.to_string(), owner.to_string());
        self.write(Commit::Lease, move |x| {
            Box::pin(
                async move { object_batches::lease(x, &batch_id, &owner, now, lease_until).await },
            )
        })
        .await
    }
}
