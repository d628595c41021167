//! Look-ahead: messages leased ahead of a free slot in their endpoint's
//! lane (see [`Ahead`]), queued per endpoint, started as attempts end,
//! swept back when they cannot start.

use super::*;
use crate::claim::release_claims;

/// A live message leased ahead of a free slot in its endpoint's lane, with
/// the in-flight permit it holds and when it was claimed.
///
/// With lanes of 10 and a fast endpoint, a slot turns over in about a
/// millisecond, while claiming its next message takes a writer transaction.
/// So for an endpoint limited by concurrency alone (no rate limit, circuit
/// closed) a claim also leases up to [`AHEAD_DEPTH`] × `max_concurrency`
/// more, queued here; an attempt that finishes starts the next one of its
/// endpoint at once, and the queue is refilled once half of it is used.
/// What cannot start (the circuit opened, or it waited so long that the
/// rest of its lease no longer covers an attempt: see `Dispatcher::too_old`)
/// is given back unattempted.
pub(crate) struct Ahead {
    pub(crate) claimed: relay_store::Claimed,
    pub(crate) permit: tokio::sync::OwnedSemaphorePermit,
    pub(crate) at: relay_core::time::Timestamp,
}

/// The dispatcher's messages leased ahead, and what publishes reserved.
#[derive(Default)]
pub(crate) struct AheadState {
    /// Endpoint → its messages leased ahead, oldest first.
    pub(crate) queues: HashMap<String, VecDeque<Ahead>>,
    /// How many `queues` hold in all.
    pub(crate) queued: usize,
    /// Endpoint → room reserved by publishes not committed yet.
    pub(crate) reserved: HashMap<String, u32>,
    /// How many `reserved` holds in all.
    pub(crate) reserved_total: usize,
    /// Endpoints a publish scheduled live messages for (they were not
    /// leased at publish), each with the mark of when that began: new
    /// messages are not leased at publish ahead of those. A claim that
    /// started after the mark and found none of the endpoint's due live
    /// messages left clears it. (Messages scheduled while that claim ran
    /// may then be overtaken by the next ones leased at publish; the next
    /// claim, which their publish woke, takes them.)
    pub(crate) backlog: HashMap<String, u64>,
    /// The latest mark given out.
    pub(crate) marks: u64,
    /// Endpoints paused or disabled (as this process was told: see
    /// [`Dispatcher::endpoint_changed`]), each with the mark of when: none
    /// of their messages starts. A claim that started after the mark and
    /// found the endpoint active again clears it.
    pub(crate) stopped: HashMap<String, u64>,
}

impl AheadState {
    /// Queued and reserved for `endpoint_id`.
    pub(crate) fn held(&self, endpoint_id: &str) -> u32 {
        self.queues.get(endpoint_id).map_or(0, |q| q.len() as u32)
            + self.reserved.get(endpoint_id).copied().unwrap_or(0)
    }
}

/// How often messages leased ahead are swept while there are any.
pub(crate) const AHEAD_SWEEP: Duration = Duration::from_millis(50);

/// How many lanes' worth of messages a busy endpoint may have leased ahead.
/// With one, a queue refilled at half (`max_concurrency` / 2 left) ran dry
/// while its refill waited for the writer, and the lane's slots idled; with
/// two, `relay bench throughput --concurrency 32` (a backlog forming) gave
/// 7,592, 7,130 and 7,190 deliveries/s against 6,449, 6,801 and 5,734, in
/// alternating runs; three gave less again.
pub const AHEAD_DEPTH: u32 = 2;

impl Dispatcher {
    /// How many messages may be leased ahead (queued, or reserved at
    /// publish) in all: a quarter of `max_in_flight`, since each holds an
    /// in-flight permit and the other endpoints need some to start with.
    pub(crate) fn ahead_budget(&self) -> usize {
        self.config().max_in_flight / 4
    }

    /// Queues `ahead` (each with its permit) for its endpoint.
    pub(crate) fn queue_ahead(
        &self,
        ahead: Vec<(relay_store::Claimed, tokio::sync::OwnedSemaphorePermit)>,
    ) {
        let at = self.attempter.clock.now();
        if let Ok(mut m) = self.ahead.lock() {
            m.queued += ahead.len();
            for (claimed, permit) in ahead {
                m.queues
                    .entry(claimed.endpoint.id.clone())
                    .or_default()
                    .push_back(Ahead {
                        claimed,
                        permit,
                        at,
                    });
            }
        }
    }

    /// Whether a message leased ahead at `at` has waited too long to start:
    /// the rest of its lease must cover a whole attempt and the margin
    /// ([`crate::EngineConfig::shortest_lease`]), and it waits half its
    /// lease at most (60 s by default: both allow 30 s).
    pub(crate) fn too_old(
        &self,
        at: relay_core::time::Timestamp,
        now: relay_core::time::Timestamp,
    ) -> bool {
        let c = self.config();
        let lease = c.lease.as_millis() as i64;
        let rest_needed = c.shortest_lease().as_millis() as i64;
        now.millis() - at.millis() > (lease / 2).min(lease - rest_needed)
    }

    /// The endpoint's next message leased ahead, with a lane slot taken for
    /// it, if one can start now.
    pub(crate) fn next_ahead(&self, endpoint_id: &str) -> Option<Ahead> {
        if self.stopping.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let now = self.attempter.clock.now();
        let mut m = self.ahead.lock().ok()?;
        if m.stopped.contains_key(endpoint_id) {
            return None;
        }
        let q = m.queues.get_mut(endpoint_id)?;
        let front = q.front()?;
        if self.too_old(front.at, now) || !self.admit(&front.claimed, now) {
            return None;
        }
        let next = q.pop_front();
        if q.is_empty() {
            m.queues.remove(endpoint_id);
        }
        m.queued -= 1;
        self.attempter
            .metrics
            .ahead_started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        next
    }

    /// Starts what was leased ahead and can start now (the attempts that
    /// would have started it ended otherwise), and gives back what waited
    /// too long or cannot start with nothing of its endpoint in flight (its
    /// circuit opened).
    pub(crate) fn sweep_ahead(&self) -> (Vec<Ahead>, Vec<Ahead>) {
        let now = self.attempter.clock.now();
        let (mut start, mut give_back) = (Vec::new(), Vec::new());
        let Ok(mut m) = self.ahead.lock() else {
            return (start, give_back);
        };
        let m = &mut *m;
        for (endpoint_id, q) in m.queues.iter_mut() {
            if m.stopped.contains_key(endpoint_id) {
                // Paused or disabled: given back, held.
                give_back.extend(q.drain(..));
                continue;
            }
            while let Some(front) = q.front() {
                if self.too_old(front.at, now) {
                    give_back.extend(q.pop_front());
                } else if self.admit(&front.claimed, now) {
                    start.extend(q.pop_front());
                } else {
                    break;
                }
            }
            if !q.is_empty() && self.lanes.in_flight(endpoint_id) == 0 {
                give_back.extend(q.drain(..));
            }
        }
        m.queues.retain(|_, q| !q.is_empty());
        m.queued = m.queues.values().map(VecDeque::len).sum();
        (start, give_back)
    }

    /// Starts and gives back what [`Dispatcher::sweep_ahead`] finds.
    pub(crate) async fn start_ahead(
        self: &Arc<Self>,
        tasks: &mut tokio::task::JoinSet<()>,
        tx: &mpsc::Sender<(Completion, tokio::sync::OwnedSemaphorePermit)>,
    ) {
        let (start, give_back) = self.sweep_ahead();
        let metrics = &self.attempter.metrics;
        metrics
            .ahead_started
            .fetch_add(start.len() as u64, std::sync::atomic::Ordering::Relaxed);
        for a in start {
            self.spawn_attempts(tasks, tx, a.claimed, a.permit);
        }
        if give_back.is_empty() {
            return;
        }
        metrics
            .ahead_given_back
            .fetch_add(give_back.len() as u64, std::sync::atomic::Ordering::Relaxed);
        let ids: Vec<String> = give_back
            .iter()
            .map(|a| a.claimed.message.id.clone())
            .collect();
        let now = self.attempter.clock.now();
        if let Err(e) = release_claims(self.store(), &self.config().owner, &ids, now).await {
            tracing::warn!(error = %e, "giving back messages leased ahead failed; their leases expire");
        }
    }

    /// Attempts `c`, then whatever of its endpoint was leased ahead and can
    /// start next, in one task.
    pub(crate) fn spawn_attempts(
        self: &Arc<Self>,
        tasks: &mut tokio::task::JoinSet<()>,
        tx: &mpsc::Sender<(Completion, tokio::sync::OwnedSemaphorePermit)>,
        c: relay_store::Claimed,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) {
        let dispatcher = self.clone();
        let tx = tx.clone();
        // Boxed: the attempt's state machine is several kilobytes, and a
        // task stored inline is copied whole when it is spawned, when it
        // finishes and when its output is read (tokio's task cell holds the
        // future by value); a boxed one moves as a pointer.
        tasks.spawn(Box::pin(async move {
            let mut next = Some((c, permit));
            while let Some((c, permit)) = next.take() {
                if dispatcher.is_stopped(&c.endpoint.id) {
                    // Paused or disabled since it was claimed: no attempt;
                    // given back, it lands held.
                    dispatcher.finished(&c, None);
                    dispatcher
                        .give_back(std::slice::from_ref(&c.message.id))
                        .await;
                    drop(permit);
                    break;
                }
                let result = dispatcher
                    .attempter
                    .attempt(&c, AttemptTrigger::Scheduled)
                    .await;
                dispatcher.finished(&c, result.as_ref());
                if result.as_ref().is_some_and(|r| r.disable_endpoint) {
                    // A 410: nothing more of the endpoint starts (the
                    // completion disables it).
                    dispatcher.stop(&c.endpoint.id);
                }
                if let Some(done) = result {
                    // The completer is gone only after shutdown; the lease
                    // then expires and the message is retried.
                    let _ = tx.send((done, permit)).await;
                }
                next = dispatcher
                    .next_ahead(&c.endpoint.id)
                    .map(|a| (a.claimed, a.permit));
            }
        }));
    }
}
