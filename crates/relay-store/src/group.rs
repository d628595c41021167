//! Group commit for publishes.
//!
//! Each publish must be committed before its `202`, and on SQLite every
//! commit is an fsync on the one writer. So concurrent publishes wait in
//! one queue per store ([`Pending`]), and a committer writes whatever has
//! queued in one transaction, then answers each publisher after that
//! shared commit. A batch that fails is retried one publish per
//! transaction, so a bad publish fails only itself (and a uniqueness race
//! with another node is still answered as a duplicate).
//!
//! A batch takes its publishes when its transaction **starts**, not when it
//! is handed to the backend. On SQLite three batches are handed to the
//! writer at once (`dialect::PUBLISH_BATCHES`): while one is in the writer's
//! current cycle (and another, committed, may wait for the log's flush),
//! the next waits there and, when the next cycle starts it, takes
//! everything queued meanwhile. A publish thus waits for at most the cycle
//! in progress and its own; a batch formed when the previous one was
//! answered would often miss the next cycle (a completion batch starts it
//! first) and wait for a third. On PostgreSQL one batch runs at a time, as
//! each transaction starts at once.
//!
//! The committer runs until the store (the queue's only owner) is dropped.
//! A publish whose caller goes away is still committed; publishing the same
//! event id again is idempotent.

use std::sync::{Arc, Mutex, RwLock};

use crate::{Intake, NewEvent, PublishOutcome, Result, Scope};

/// Publishes written in one transaction at most.
pub const PUBLISH_BATCH: usize = 256;

/// The store's [`Intake`], shared with its committer (see
/// [`crate::Store::set_intake`]).
pub type IntakeSlot = Arc<RwLock<Option<Arc<dyn Intake>>>>;

/// The intake set now, if any.
pub fn intake_of(slot: &IntakeSlot) -> Option<Arc<dyn Intake>> {
    slot.read().ok().and_then(|i| i.clone())
}

/// One publish waiting for the committer.
pub struct PublishJob {
    pub scope: Scope,
    pub event: NewEvent,
    pub reply: tokio::sync::oneshot::Sender<Result<PublishOutcome>>,
}

/// The publishes waiting for a batch to take them.
#[derive(Default)]
pub struct Pending {
    jobs: Mutex<Vec<PublishJob>>,
    /// Wakes the committer; shared with it, so it also learns of the drop.
    pub(crate) ready: Arc<tokio::sync::Notify>,
}

impl Pending {
    /// Queues `job` and wakes the committer.
    pub fn push(&self, job: PublishJob) {
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.push(job);
        }
        self.ready.notify_one();
    }

    /// How many wait.
    pub fn len(&self) -> usize {
        self.jobs.lock().map(|j| j.len()).unwrap_or(0)
    }

    /// Whether anything waits.
    pub fn is_empty(&self) -> bool {
        self.jobs.lock().map(|j| j.is_empty()).unwrap_or(true)
    }

    /// Takes up to [`PUBLISH_BATCH`] of what waits, oldest first.
    pub fn take(&self) -> Vec<PublishJob> {
        let Ok(mut jobs) = self.jobs.lock() else {
            return Vec::new();
        };
        let n = jobs.len().min(PUBLISH_BATCH);
        let rest = jobs.split_off(n);
        std::mem::replace(&mut *jobs, rest)
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // The committer wakes, finds the queue gone and ends.
        self.ready.notify_one();
    }
}

/// What a batch took when its transaction started: the publishes (for the
/// one-by-one retry) and their callers.
pub type Taken = Arc<Mutex<Option<(Arc<Vec<(Scope, NewEvent)>>, Vec<Reply>)>>>;

/// A publisher waiting for its answer.
pub type Reply = tokio::sync::oneshot::Sender<Result<PublishOutcome>>;

/// Moves what waits in `pending` into `taken`; returns the publishes to
/// write (none when another batch took them first).
pub fn take_into(pending: &Pending, taken: &Taken) -> Arc<Vec<(Scope, NewEvent)>> {
    let (items, replies): (Vec<(Scope, NewEvent)>, Vec<Reply>) = pending
        .take()
        .into_iter()
        .map(|j| ((j.scope, j.event), j.reply))
        .unzip();
    let items = Arc::new(items);
    if let Ok(mut t) = taken.lock() {
        *t = Some((items.clone(), replies));
    }
    items
}
