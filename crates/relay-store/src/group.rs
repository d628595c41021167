//! Group commit for publishes.
//!
//! Each publish must be committed before its `202`, and on SQLite every
//! commit is an fsync on the one writer. So concurrent publishes are queued
//! to one committer task per store, which writes whatever has queued while
//! the previous transaction committed (up to [`PUBLISH_BATCH`]) in one
//! transaction, and answers each publisher after that shared commit. A batch
//! that fails is retried one publish per transaction, so a bad publish fails
//! only itself (and a uniqueness race with another node is still answered
//! as a duplicate).
//!
//! The committer runs until the store (its only sender) is dropped. A publish
//! whose caller goes away is still committed; publishing the same event id
//! again is idempotent.

use std::sync::{Arc, RwLock};

use crate::{Intake, NewEvent, PublishOutcome, Result, Scope};

/// The store's [`Intake`], shared with its committer (see
/// [`crate::Store::set_intake`]).
pub type IntakeSlot = Arc<RwLock<Option<Arc<dyn Intake>>>>;

/// The intake set now, if any.
pub fn intake_of(slot: &IntakeSlot) -> Option<Arc<dyn Intake>> {
    slot.read().ok().and_then(|i| i.clone())
}

/// Publishes written in one transaction at most.
pub const PUBLISH_BATCH: usize = 256;
/// Publishes that may wait for the committer before senders wait too.
pub const QUEUE: usize = 4096;

/// One publish waiting for the committer.
pub struct PublishJob {
    pub scope: Scope,
    pub event: NewEvent,
    pub reply: tokio::sync::oneshot::Sender<Result<PublishOutcome>>,
}
