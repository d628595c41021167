//! Tracking arrivals: the events of a phase, when each was sent, and the
//! publish→receive latency of each delivery the receiver reports.

use super::*;

impl Phase {
    pub(crate) fn new(prefix: String, events: u64) -> Arc<Phase> {
        Arc::new(Phase {
            prefix,
            base: Instant::now(),
            sends: (0..events).map(|_| AtomicU64::new(0)).collect(),
            latencies: Mutex::new(Vec::new()),
            arrived: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            last: AtomicU64::new(0),
        })
    }

    pub(crate) fn since_base(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX)
    }

    pub(crate) fn sent(&self, index: usize, at: Instant) {
        if let Some(s) = self.sends.get(index) {
            s.store(self.since_base(at) + 1, Ordering::Relaxed);
        }
    }

    pub(crate) fn arrival(&self, id: &str, at: Instant) {
        let Some(index) = id
            .strip_prefix(&self.prefix)
            .and_then(|i| i.parse::<usize>().ok())
        else {
            return;
        };
        let Some(sent) = self.sends.get(index).map(|s| s.load(Ordering::Relaxed)) else {
            return;
        };
        let now = self.since_base(at);
        if sent > 0 {
            let micros = now.saturating_sub(sent - 1) / 1000;
            self.latencies
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(u32::try_from(micros).unwrap_or(u32::MAX));
        }
        self.last.fetch_max(now, Ordering::Relaxed);
        self.arrived.fetch_add(1, Ordering::Release);
    }

    pub(crate) fn percentiles(&self) -> Percentiles {
        let v = self
            .latencies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Percentiles::of(v)
    }

    /// Waits until `n` matched deliveries arrived; `false` on timeout.
    pub(crate) async fn wait(&self, n: u64, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while self.arrived.load(Ordering::Acquire) < n {
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        true
    }

    /// Waits until every delivery of the publishes that did not fail
    /// arrived, `per_event` each: a run whose publishes were refused ends
    /// at once instead of waiting out `timeout` for deliveries that cannot
    /// come. (A publish that failed in transport may still have been
    /// accepted; the wait does not count on its deliveries.) `false` on
    /// timeout, said on stderr.
    pub(crate) async fn wait_accepted(&self, per_event: u64, timeout: Duration) -> bool {
        let events = self.sends.len() as u64;
        let accepted = events.saturating_sub(self.failed.load(Ordering::Acquire));
        let waited = self.wait(accepted * per_event, timeout).await;
        if !waited {
            let arrived = self.arrived.load(Ordering::Acquire);
            eprintln!(
                "timed out: {arrived} of {} deliveries arrived",
                events * per_event
            );
        }
        waited
    }

    pub(crate) fn last_arrival(&self) -> Instant {
        self.base + Duration::from_nanos(self.last.load(Ordering::Relaxed))
    }
}

impl Tracker {
    pub(crate) fn begin(&self, events: u64) -> Arc<Phase> {
        let n = self.phases.fetch_add(1, Ordering::Relaxed);
        let phase = Phase::new(format!("bench-p{n}-"), events);
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(phase.clone());
        phase
    }

    pub(crate) fn arrival(&self, a: Arrival<'_>) {
        let Some(id) = a.webhook_id else { return };
        let phase = self
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some(p) = phase {
            p.arrival(id, a.at);
        }
    }
}
