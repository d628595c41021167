//! Batching endpoints' batches, for any kind that batches
//! (`relay_destinations::Batching`; object storage, `relay_destinations::s3`,
//! is one): their messages are written many to an object, one object per
//! batch. This module is the generic machinery (open batches, the closing
//! rules, the durable record before the write, the rewrite, the members'
//! completions); the kind makes the object (`relay_destinations::Client::seal`:
//! its name, bytes and signature) and writes it
//! (`relay_destinations::Client::write_batch`). Nothing here names a kind.
//!
//! A claimed message of an endpoint whose destination batches
//! (`relay_destinations::batching`) is attempted as any other up to its
//! prepared CloudEvent (`Attempter::attempt`), then:
//!
//! - **in a stored batch already** (an earlier write of it failed, or its
//!   completion was lost in a crash): the batch is **written again**, the
//!   same bytes to the same object, with every other member that is
//!   `scheduled` and not leased leased along (whatever its due time), and
//!   the write's result completes each of them;
//! - **otherwise** it joins its endpoint's **open batch** in this process
//!   (its lane slot and in-flight permit are freed at once; its lease
//!   keeps it). The batch closes when it holds `max_events` messages, when
//!   the next line would take it over `max_bytes`, or once its first
//!   message has waited `max_wait_seconds` (the kind's
//!   `relay_destinations::BatchPolicy`; the engine's clock; the loop and
//!   `run_once` write what is due). Closing has the kind make the object
//!   (S3: JSON Lines, gzip if configured, signed, named from the batch id)
//!   and **records it durably with its members in order**
//!   (`relay_store::object_batches::record`, only while every lease still holds)
//!   **before** writing it.
//!
//! Each member is then completed with the write's verdict as if it had
//! been its own attempt (schedule, exhaustion, deferrals, dead letters,
//! the attempt record naming the batch, its line, the key and the ETag).
//! Members' retries are jittered by the batch id, so they stay due
//! together. The circuit breaker and the endpoint's health see one signal
//! per write, not one per member.
//!
//! A manual resend writes the message's batch again (the whole object,
//! unchanged) and completes that message alone; a message in no batch yet
//! (a test send, one never written) is written as a batch of its own.
//! Nothing open survives a restart: open batches hold only leases, which
//! are released at shutdown or expire, and the messages join new batches.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use relay_core::circuit::Signal;
use relay_core::id::IdKind;
use relay_core::model::AttemptTrigger;
use relay_core::time::Timestamp;
use relay_destinations::{BatchObject, BatchPolicy, Client, Closing};
use relay_store::object_batches::{self, ObjectBatch};
use relay_store::{Claimed, Commit, Completion, ExecutorExt as _, new_id};
use sha2::{Digest, Sha256};

use crate::attempt::{Attempter, Facts};
use crate::claim::release_claims;
use crate::lanes::Lanes;

/// A message waiting in its endpoint's open batch, with its line.
pub(crate) struct Member {
    claimed: Claimed,
    line: Bytes,
}

/// An endpoint's open batch.
struct Open {
    /// When it closes at the latest (its first member's arrival plus
    /// `max_wait_seconds`).
    deadline: Timestamp,
    members: Vec<Member>,
    bytes: u64,
}

/// The open batches of this process, by endpoint.
pub struct Batches {
    open: Mutex<HashMap<String, Open>>,
    /// Stored batches being written again, by batch id: members claimed
    /// while the first one gathers the batch join its write.
    rewriting: Mutex<HashMap<String, Vec<Claimed>>>,
    /// The breaker hears of writes no lane slot waited for.
    lanes: Arc<Lanes>,
}

/// When a batch opened at `now` closes at the latest: `max_wait_seconds`
/// later, but within half the dispatcher's lease, so its members' leases
/// still hold when it is recorded (`[delivery] lease_seconds` may be as
/// short as 8 s, `max_wait_seconds` as long as 30).
pub(crate) fn close_by(
    now: Timestamp,
    max_wait_seconds: u32,
    lease: std::time::Duration,
) -> Timestamp {
    let wait = i64::from(max_wait_seconds).saturating_mul(1000);
    let half_lease = i64::try_from(lease.as_millis() / 2).unwrap_or(i64::MAX);
    now.plus_millis(wait.min(half_lease))
}

impl Batches {
    pub(crate) fn new(lanes: Arc<Lanes>) -> Batches {
        Batches {
            open: Mutex::default(),
            rewriting: Mutex::default(),
            lanes,
        }
    }

    /// Adds `m` to its endpoint's open batch; returns what closed (the
    /// batch the line would have taken over `max_bytes`, and the batch it
    /// filled to `max_events`).
    fn add(
        &self,
        m: Member,
        limits: &BatchPolicy,
        lease: std::time::Duration,
        now: Timestamp,
    ) -> Vec<Vec<Member>> {
        let Ok(mut open) = self.open.lock() else {
            return Vec::new();
        };
        let endpoint = m.claimed.endpoint.id.clone();
        let size = m.line.len() as u64 + 1;
        let mut closed = Vec::new();
        if let Some(o) = open.get(&endpoint)
            && !o.members.is_empty()
            && o.bytes + size > limits.max_bytes
            && let Some(o) = open.remove(&endpoint)
        {
            closed.push(o.members);
        }
        let o = open.entry(endpoint.clone()).or_insert_with(|| Open {
            deadline: close_by(now, limits.max_wait_seconds, lease),
            members: Vec::new(),
            bytes: 0,
        });
        o.members.push(m);
        o.bytes += size;
        if o.members.len() >= limits.max_events as usize
            && let Some(o) = open.remove(&endpoint)
        {
            closed.push(o.members);
        }
        closed
    }

    /// The open batches due at `now`, taken out.
    fn take_due(&self, now: Timestamp) -> Vec<Vec<Member>> {
        let Ok(mut open) = self.open.lock() else {
            return Vec::new();
        };
        let due: Vec<String> = open
            .iter()
            .filter(|(_, o)| o.deadline <= now)
            .map(|(e, _)| e.clone())
            .collect();
        due.into_iter()
            .filter_map(|e| open.remove(&e).map(|o| o.members))
            .collect()
    }

    /// When the first open batch is due.
    pub(crate) fn next_deadline(&self) -> Option<Timestamp> {
        self.open
            .lock()
            .ok()
            .and_then(|o| o.values().map(|o| o.deadline).min())
    }

    /// The open batch of `endpoint_id`, taken out (its endpoint stopped):
    /// the ids of its members, to give back.
    pub(crate) fn take_endpoint(&self, endpoint_id: &str) -> Vec<String> {
        self.open
            .lock()
            .ok()
            .and_then(|mut o| o.remove(endpoint_id))
            .map(|o| {
                o.members
                    .into_iter()
                    .map(|m| m.claimed.message.id)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// How many messages wait in open batches.
    pub fn waiting(&self) -> usize {
        self.open
            .lock()
            .map(|o| o.values().map(|o| o.members.len()).sum())
            .unwrap_or(0)
    }
}

impl Attempter {
    /// The batch `c` belongs to, if any (`Err`: the store cannot tell now).
    pub(crate) async fn batch_of(&self, c: &Claimed) -> Result<Option<String>, String> {
        let ids = vec![c.message.id.clone()];
        self.store
            .read(move |mut x| {
                Box::pin(async move { object_batches::batches_of(&mut x, &ids).await })
            })
            .await
            .map(|found| found.into_iter().next().map(|(_, batch)| batch))
            .map_err(|e| e.to_string())
    }

    /// `c`, prepared as `line`, joins its endpoint's open batch (`policy`, its
    /// kind's [`relay_destinations::batching`]; a manual
    /// attempt: a batch of its own, written now, whose completion is
    /// returned). Batches it closes are written and their members
    /// completed here.
    pub(crate) async fn join_batch(
        &self,
        c: &Claimed,
        trigger: AttemptTrigger,
        line: Bytes,
        policy: &BatchPolicy,
    ) -> Option<Completion> {
        let member = Member {
            claimed: c.clone(),
            line,
        };
        if trigger == AttemptTrigger::Manual {
            return self.write_new(vec![member], trigger).await.pop();
        }
        let closed = self
            .batches
            .add(member, policy, self.config.lease, self.clock.now());
        for members in closed {
            self.write_and_complete(members).await;
        }
        None
    }

    /// Writes the open batches due at `now` and completes their members.
    /// Those of an endpoint `stopped` says is stopped are given back
    /// instead (returned).
    pub(crate) async fn write_due_batches(
        &self,
        now: Timestamp,
        stopped: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        let mut give_back = Vec::new();
        for members in self.batches.take_due(now) {
            if members
                .first()
                .is_some_and(|m| stopped(&m.claimed.endpoint.id))
            {
                give_back.extend(members.into_iter().map(|m| m.claimed.message.id));
                continue;
            }
            self.write_and_complete(members).await;
        }
        give_back
    }

    /// Writes a closed batch and stores its members' completions; the
    /// breaker hears how the write went.
    async fn write_and_complete(&self, members: Vec<Member>) {
        let Some(endpoint) = members.first().map(|m| m.claimed.endpoint.id.clone()) else {
            return;
        };
        let done = self.write_new(members, AttemptTrigger::Scheduled).await;
        if let Some(first) = done.first() {
            self.batches
                .lanes
                .done_without_slot(&endpoint, first.health, self.clock.now());
        }
        self.store_completions(&done).await;
    }

    async fn store_completions(&self, done: &[Completion]) {
        if done.is_empty() {
            return;
        }
        if let Err(e) = crate::completer::write_completions(&*self.store, done).await {
            tracing::warn!(error = %e, "a batch's completions cannot be written; their leases expire and the batch is written again");
        }
    }

    /// Closes `members` into a new batch: its object, signed, recorded
    /// durably with its members in order, then written. Returns the
    /// members' completions (none when the batch could not be recorded:
    /// then nothing was written, and the members are given back or their
    /// leases expire).
    async fn write_new(&self, members: Vec<Member>, trigger: AttemptTrigger) -> Vec<Completion> {
        let Some(first) = members.first().map(|m| m.claimed.clone()) else {
            return Vec::new();
        };
        let built = match self.endpoints.get(self, &first).await {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(endpoint = %first.endpoint.id, error = %e, "the endpoint's client cannot be built; the batch's leases expire and its messages are retried");
                return Vec::new();
            }
        };
        let now = self.clock.now();
        let id = new_id(IdKind::Batch, now);
        let lines: Vec<&[u8]> = members.iter().map(|m| &m.line[..]).collect();
        let keys = built.active_keys(now);
        let closing = Closing {
            batch_id: &id,
            time: now,
            lines: &lines,
            keys: &keys,
        };
        // The endpoint's destination no longer batches (changed meanwhile):
        // nothing recorded, the leases expire and the messages are retried.
        let Some(sealed) = built.client.seal(&closing) else {
            return Vec::new();
        };
        let stored = ObjectBatch {
            object_key: sealed.key,
            content_type: sealed.content_type,
            id,
            tenant_id: first.tenant_id.clone(),
            environment: first.message.environment,
            endpoint_id: first.endpoint.id.clone(),
            object: sealed.bytes.to_vec(),
            webhook_timestamp: sealed.webhook_timestamp,
            webhook_signature: sealed.webhook_signature,
            created_at: now,
            members: members
                .iter()
                .map(|m| m.claimed.message.id.clone())
                .collect(),
        };
        let leases: Vec<i64> = members.iter().map(|m| m.claimed.lease_version).collect();
        let (owner, batch) = (self.config.owner.clone(), stored.clone());
        let recorded = self.store.write(Commit::Durable, move |mut x| {
            Box::pin(async move { object_batches::record(&mut x, &owner, &batch, &leases).await })
        });
        match recorded.await {
            Ok(true) => {}
            Ok(false) => {
                // A lease lapsed while the batch was open: nothing written;
                // the others go back to be batched again.
                tracing::warn!(endpoint = %first.endpoint.id, "a member's lease lapsed before its batch closed; the batch is given back unwritten");
                if let Err(e) =
                    release_claims(&*self.store, &self.config.owner, &stored.members, now).await
                {
                    tracing::warn!(error = %e, "giving back a batch failed; its leases expire");
                }
                return Vec::new();
            }
            Err(e) => {
                tracing::warn!(endpoint = %first.endpoint.id, error = %e, "a batch cannot be recorded; nothing is written, its leases expire and its messages are retried");
                return Vec::new();
            }
        }
        let claimed: Vec<Claimed> = members.into_iter().map(|m| m.claimed).collect();
        self.write_stored(&built.client, &stored, claimed, Vec::new, trigger)
            .await
    }

    /// Writes the stored batch `batch_id` again for `c` (and, unless
    /// manual, for its other members that are `scheduled` and unleased,
    /// leased now). Returns `c`'s completion; the others' are stored here.
    pub(crate) async fn rewrite_batch(
        &self,
        c: &Claimed,
        trigger: AttemptTrigger,
        batch_id: &str,
    ) -> Option<Completion> {
        let manual = trigger == AttemptTrigger::Manual;
        if !manual && let Ok(mut r) = self.batches.rewriting.lock() {
            if let Some(joined) = r.get_mut(batch_id) {
                // Written with the member that is gathering the batch.
                joined.push(c.clone());
                return None;
            }
            r.insert(batch_id.to_string(), Vec::new());
        }
        let done = self.rewrite_gathered(c, trigger, batch_id).await;
        // Still there when the batch was not written: the members that
        // joined go back, unattempted.
        let left = if manual {
            Vec::new()
        } else {
            self.batches
                .rewriting
                .lock()
                .ok()
                .and_then(|mut r| r.remove(batch_id))
                .unwrap_or_default()
        };
        if !left.is_empty() {
            let ids: Vec<String> = left.into_iter().map(|m| m.message.id).collect();
            if let Err(e) =
                release_claims(&*self.store, &self.config.owner, &ids, self.clock.now()).await
            {
                tracing::warn!(error = %e, "giving back a batch's members failed; their leases expire");
            }
        }
        done
    }

    async fn rewrite_gathered(
        &self,
        c: &Claimed,
        trigger: AttemptTrigger,
        batch_id: &str,
    ) -> Option<Completion> {
        let now = self.clock.now();
        let lease_until = now.plus_millis(self.config.lease.as_millis() as i64);
        let found = if trigger == AttemptTrigger::Manual {
            let id = batch_id.to_string();
            self.store
                .read(move |mut x| Box::pin(async move { object_batches::get(&mut x, &id).await }))
                .await
                .map(|b| b.map(|batch| (batch, Vec::new())))
        } else {
            let (id, owner) = (batch_id.to_string(), self.config.owner.clone());
            self.store
                .write(Commit::Lease, move |mut x| {
                    Box::pin(async move {
                        object_batches::lease(&mut x, &id, &owner, now, lease_until).await
                    })
                })
                .await
                .map(|b| b.map(|l| (l.batch, l.leased)))
        };
        let (stored, others) = match found {
            Ok(Some(found)) => found,
            Ok(None) => {
                tracing::error!(batch = batch_id, "a message's batch is gone");
                return None;
            }
            Err(e) => {
                tracing::warn!(batch = batch_id, error = %e, "a batch cannot be read; the lease expires and its message is retried");
                return None;
            }
        };
        let built = match self.endpoints.get(self, c).await {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(endpoint = %c.endpoint.id, error = %e, "the endpoint's client cannot be built; the leases expire and the batch is written again");
                return None;
            }
        };
        let mut members = vec![c.clone()];
        members.extend(others);
        // Members claimed meanwhile join the write: the object holds their
        // lines, so its acknowledgement is theirs too.
        let joined = || {
            self.batches
                .rewriting
                .lock()
                .ok()
                .and_then(|mut r| r.remove(batch_id))
                .unwrap_or_default()
        };
        let done = self
            .write_stored(&built.client, &stored, members, joined, trigger)
            .await;
        let (mine, rest): (Vec<Completion>, Vec<Completion>) =
            done.into_iter().partition(|d| d.message_id == c.message.id);
        self.store_completions(&rest).await;
        mine.into_iter().next()
    }

    /// Writes `stored`'s object and concludes one attempt per member of
    /// `members`, and of those `late` gives once the write is done, with
    /// the result: the first one's completion carries the write's health
    /// signal, the others none.
    async fn write_stored(
        &self,
        client: &Client,
        stored: &ObjectBatch,
        mut members: Vec<Claimed>,
        late: impl FnOnce() -> Vec<Claimed>,
        trigger: AttemptTrigger,
    ) -> Vec<Completion> {
        let object = BatchObject {
            batch_id: stored.id.clone(),
            key: stored.object_key.clone(),
            content_type: stored.content_type.clone(),
            bytes: Bytes::from(stored.object.clone()),
            webhook_timestamp: stored.webhook_timestamp.clone(),
            webhook_signature: stored.webhook_signature.clone(),
        };
        let body_sha256 = hex::encode(Sha256::digest(&stored.object));
        let started_at = self.clock.now();
        let started = Instant::now();
        let span = tracing::info_span!(
            "batch_write",
            endpoint = %stored.endpoint_id,
            batch = %stored.id,
            members = members.len()
        );
        self.metrics
            .in_flight
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let written = tracing::Instrument::instrument(
            client.write_batch(&object, self.config.limits),
            span.clone(),
        )
        .await;
        self.metrics
            .in_flight
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        // The endpoint's destination no longer batches (changed since the
        // batch was recorded): nothing was written; the leases expire.
        let Some(delivery) = written else {
            return Vec::new();
        };
        let elapsed = started.elapsed();
        self.metrics.attempt_duration.observe(elapsed.as_secs_f64());
        let finished = self.clock.now();
        let verdict = delivery.classify(finished);
        let mut recorded = delivery.record();
        members.extend(late());
        // What shaped each member's line (its shape was read when it joined,
        // and is cached): the type version its message records.
        let mut type_versions = Vec::with_capacity(members.len());
        for c in &members {
            let shaped = self
                .shapes
                .payload_of(
                    &*self.store,
                    &c.tenant_id,
                    &c.message,
                    &c.endpoint,
                    &c.event,
                    finished,
                )
                .await;
            type_versions.push(shaped.ok().flatten().and_then(|p| p.type_version));
        }
        let _entered = span.enter();
        let lines: HashMap<&str, usize> = stored
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.as_str(), i + 1))
            .collect();
        let mut out = Vec::with_capacity(members.len());
        for (i, c) in members.iter().enumerate() {
            recorded.detail["batch_id"] = stored.id.clone().into();
            recorded.detail["line"] = lines.get(c.message.id.as_str()).copied().into();
            let facts = Facts {
                c,
                trigger,
                started_at,
                elapsed,
                finished,
                body_sha256: &body_sha256,
                signature: &stored.webhook_signature,
                jitter_key: &stored.id,
            };
            if let Some(mut done) = self.conclude(&facts, verdict.clone(), &recorded, None) {
                if i > 0 {
                    done.health = Signal::Neutral;
                }
                done.event_type_version = type_versions[i];
                out.push(done);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_batch_closes_within_half_the_lease() {
        let t = Timestamp::from_millis(1_000_000);
        assert_eq!(close_by(t, 10, Duration::from_secs(60)), t.plus_seconds(10));
        assert_eq!(close_by(t, 30, Duration::from_secs(60)), t.plus_seconds(30));
        assert_eq!(close_by(t, 30, Duration::from_secs(20)), t.plus_seconds(10));
        assert_eq!(
            close_by(t, 10, Duration::from_secs(5)),
            t.plus_millis(2_500)
        );
    }
}
