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

use std::sync::{Arc, Mutex, RwLock, Weak};

use crate::backend::Writes;
use crate::exec::Commit;
use crate::{Intake, NewEvent, PublishOutcome, Result, Scope, StoreError};

/// Publishes written in one transaction at most.
pub const PUBLISH_BATCH: usize = 256;

/// The store's [`Intake`], shared with its committer (see
/// [`crate::Signals::set_intake`]).
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

/// The publish queue and the intake slot, with their committer started on
/// the current runtime; `batches` are handed to the backend at once (see
/// the module's documentation).
pub(crate) fn start_committer<W: Writes>(txns: &W, batches: usize) -> (Arc<Pending>, IntakeSlot) {
    let publishes = Arc::new(Pending::default());
    let intake = IntakeSlot::default();
    tokio::spawn(run_publishes(
        txns.clone(),
        Arc::downgrade(&publishes),
        publishes.ready.clone(),
        intake.clone(),
        batches,
    ));
    (publishes, intake)
}

/// The group committer: runs until the store, the queue's only owner, is
/// dropped. Hands a batch to the backend whenever publishes wait and fewer
/// than `batches` are in hand.
async fn run_publishes<W: Writes>(
    txns: W,
    pending: Weak<Pending>,
    ready: Arc<tokio::sync::Notify>,
    intake: IntakeSlot,
    batches: usize,
) {
    let batches = Arc::new(tokio::sync::Semaphore::new(batches));
    loop {
        let Ok(permit) = batches.clone().acquire_owned().await else {
            return;
        };
        loop {
            match pending.upgrade() {
                None => return,
                Some(p) if !p.is_empty() => break,
                Some(_) => {}
            }
            ready.notified().await;
        }
        let (txns, pending, intake) = (txns.clone(), pending.clone(), intake.clone());
        tokio::spawn(async move {
            commit_publishes(&txns, pending, intake).await;
            drop(permit);
        });
    }
}

/// One batch: takes what waits when its transaction starts, writes it, and
/// answers each publisher after the commit (or retries each alone if the
/// batch failed).
async fn commit_publishes<W: Writes>(txns: &W, pending: Weak<Pending>, slot: IntakeSlot) {
    let taken = Taken::default();
    let (into, queue, slot_again) = (taken.clone(), pending.clone(), slot.clone());
    // The intake too is read when the transaction starts.
    let result = txns
        .write(Commit::Durable, move |x| {
            Box::pin(async move {
                let Some(queue) = queue.upgrade() else {
                    return Ok(None);
                };
                let items = take_into(&queue, &into);
                drop(queue);
                if items.is_empty() {
                    return Ok(None);
                }
                let intake = intake_of(&slot);
                crate::publish::publish_batch(x, &items, intake.as_deref())
                    .await
                    .map(|published| Some((published, intake)))
            })
        })
        .await;
    // A transaction that failed before it started took nothing: its
    // publishes are answered one by one (with the error, if the store is
    // down).
    let took = taken.lock().ok().and_then(|mut t| t.take());
    let took = match (took, &result) {
        (Some(t), _) => t,
        (None, Ok(_)) => return,
        (None, Err(_)) => {
            let Some(queue) = pending.upgrade() else {
                return;
            };
            take_into(&queue, &taken);
            match taken.lock().ok().and_then(|mut t| t.take()) {
                Some(t) => t,
                None => return,
            }
        }
    };
    let (items, replies) = took;
    // Counted before the answers: the count is the store's once a
    // publisher has its answer.
    match result {
        Ok(Some((published, intake))) => {
            let outcomes = published.outcomes;
            txns.wrote(outcomes.iter().map(|o| o.messages_created).sum());
            if let Some(intake) = &intake {
                intake.take(published.leased);
            }
            for (reply, outcome) in replies.into_iter().zip(outcomes) {
                let _ = reply.send(Ok(outcome));
            }
        }
        _ => {
            for (item, reply) in items.iter().zip(replies) {
                let intake = intake_of(&slot_again);
                let result = publish_alone(txns, item.clone(), intake).await;
                if let Ok(outcome) = &result {
                    txns.wrote(outcome.messages_created);
                }
                let _ = reply.send(result);
            }
        }
    }
}

/// One publish in its own transaction. Another node that stored the same
/// id first (a uniqueness violation) makes it a duplicate.
async fn publish_alone<W: Writes>(
    txns: &W,
    item: (Scope, NewEvent),
    intake: Option<Arc<dyn Intake>>,
) -> Result<PublishOutcome> {
    let (scope, id) = (item.0.clone(), item.1.id.clone());
    let items = vec![item];
    let handover = intake.clone();
    let result = txns
        .write(Commit::Durable, move |x| {
            Box::pin(
                async move { crate::publish::publish_batch(x, &items, intake.as_deref()).await },
            )
        })
        .await;
    match result {
        Err(e) if e.is_unique_violation() => {
            let event = txns
                .write(Commit::Lease, move |x| {
                    Box::pin(async move { crate::messages::get_event(x, &scope, &id).await })
                })
                .await?
                .ok_or(StoreError::NotFound)?;
            Ok(PublishOutcome {
                event,
                messages_created: 0,
                duplicate: true,
                messages_leased: 0,
            })
        }
        Err(e) => Err(e),
        Ok(mut published) => {
            if let Some(intake) = handover {
                intake.take(std::mem::take(&mut published.leased));
            }
            Ok(published.outcomes.remove(0))
        }
    }
}
