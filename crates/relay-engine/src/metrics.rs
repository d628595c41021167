//! Prometheus metrics of the dispatcher, rendered as text for `/metrics`.
//!
//! A handful of atomics, no registry: attempts by outcome (and by
//! destination kind, outcome and error code), the publish → delivery
//! latency and attempt duration histograms, attempts in flight, the
//! due-but-not-claimed lag, the backlog and its oldest message's age, and
//! the exported spans (`crate::telemetry`). Labels never carry tenant or
//! endpoint ids, unless the operator asks for tenant ids
//! (`[metrics] tenant_labels`, [`Metrics::set_tenant_labels`]).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

/// Upper bounds of the histogram buckets, in seconds: from a millisecond
/// to an hour (a delivery that waited out retries is minutes or hours late).
const BUCKETS: [f64; 20] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    120.0, 300.0, 900.0, 1800.0, 3600.0,
];

/// The labels of one `relay_attempt_outcomes_total` series: kind,
/// outcome, error code (empty for none), tenant (only when asked for).
type OutcomeKey = (&'static str, &'static str, String, Option<String>);

/// Outcomes counted in `relay_attempts_total` (plus `expired` and `dead_lettered`,
/// which end a message without an HTTP attempt).
pub const OUTCOMES: [&str; 7] = [
    "delivered",
    "retry",
    "deferred",
    "exhausted",
    "permanent",
    "expired",
    "dead_lettered",
];

#[derive(Default)]
pub struct Histogram {
    buckets: [AtomicU64; 20],
    count: AtomicU64,
    sum_micros: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, seconds: f64) {
        let seconds = seconds.max(0.0);
        for (i, bound) in BUCKETS.iter().enumerate() {
            if seconds <= *bound {
                self.buckets[i].fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros
            .fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        for (i, bound) in BUCKETS.iter().enumerate() {
            let n = self.buckets[i].load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {n}");
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {count}");
    }
}

#[derive(Default)]
pub struct Metrics {
    attempts: [AtomicU64; 7],
    pub delivery_latency: Histogram,
    pub attempt_duration: Histogram,
    pub in_flight: AtomicI64,
    /// Milliseconds between the oldest due message's due time and now, at the last claim.
    pub due_lag_millis: AtomicI64,
    pub completions_lost_lease: AtomicU64,
    /// Completions skipped because their message was gone (purged).
    pub completions_message_gone: AtomicU64,
    pub leases_rescued: AtomicU64,
    /// Attempts started from an endpoint's look-ahead queue (no claim waited for).
    pub ahead_started: AtomicU64,
    /// Messages leased ahead and given back unattempted.
    pub ahead_given_back: AtomicU64,
    /// Messages leased at publish, handed over without a claim.
    pub leased_at_publish: AtomicU64,
    /// Events the retention purge removed (with their messages and attempts).
    pub purged_events: AtomicU64,
    /// Thin payloads (no snapshot fields) over the 20 kB they should stay under.
    pub thin_payloads_oversize: AtomicU64,
    /// Outcomes by kind, outcome, error code (and tenant when asked for).
    outcomes: Mutex<BTreeMap<OutcomeKey, u64>>,
    tenant_labels: AtomicBool,
    /// Live messages waiting (scheduled or leased), at the last look.
    pub backlog_messages: AtomicI64,
    /// Age of the oldest of them (from its publish), at the last look.
    pub oldest_message_age_millis: AtomicI64,
    /// The database's clock minus this node's, at the last measurement
    /// (`crate::clock_sync`), and how sure that is.
    pub clock_offset_millis: AtomicI64,
    pub clock_error_millis: AtomicI64,
    /// When the backlog was last looked at (the engine's clock, ms; 0: never).
    pub(crate) backlog_observed_at: AtomicI64,
    /// Spans accepted by the OTLP collector.
    pub spans_exported: AtomicU64,
    /// Spans dropped: the export queue was full or the collector failed.
    pub spans_dropped: AtomicU64,
    /// Export requests that failed.
    pub span_exports_failed: AtomicU64,
}

impl Metrics {
    /// Attempts that have ended so far, whatever their outcome.
    pub fn attempts_ended(&self) -> u64 {
        self.attempts
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .sum()
    }

    pub fn count_outcome(&self, outcome: &str) {
        if let Some(i) = OUTCOMES.iter().position(|o| *o == outcome) {
            self.attempts[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Series of `relay_attempt_outcomes_total` carry a `tenant` label from now on.
    pub fn set_tenant_labels(&self, on: bool) {
        self.tenant_labels.store(on, Ordering::Relaxed);
    }

    /// Counts one outcome of a message of `tenant` at a `kind` destination:
    /// an attempt's (`error_code` its failure code), or an end without one
    /// (`expired`; `dead_lettered` with its reason as the code).
    pub fn count_attempt(
        &self,
        kind: &'static str,
        outcome: &'static str,
        error_code: Option<String>,
        tenant: &str,
    ) {
        let tenant = self
            .tenant_labels
            .load(Ordering::Relaxed)
            .then(|| tenant.to_string());
        let key = (kind, outcome, error_code.unwrap_or_default(), tenant);
        if let Ok(mut map) = self.outcomes.lock() {
            *map.entry(key).or_insert(0) += 1;
        }
    }

    pub fn outcome_count(&self, outcome: &str) -> u64 {
        OUTCOMES
            .iter()
            .position(|o| *o == outcome)
            .map(|i| self.attempts[i].load(Ordering::Relaxed))
            .unwrap_or(0)
    }

    /// The Prometheus text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(4096);
        let _ = writeln!(
            out,
            "# HELP relay_attempts_total Message outcomes, by kind.\n# TYPE relay_attempts_total counter"
        );
        for (i, o) in OUTCOMES.iter().enumerate() {
            let n = self.attempts[i].load(Ordering::Relaxed);
            let _ = writeln!(out, "relay_attempts_total{{outcome=\"{o}\"}} {n}");
        }
        let _ = writeln!(
            out,
            "# HELP relay_attempt_outcomes_total Message outcomes by destination kind, outcome and error code.\n# TYPE relay_attempt_outcomes_total counter"
        );
        if let Ok(map) = self.outcomes.lock() {
            for ((kind, outcome, code, tenant), n) in map.iter() {
                let tenant = tenant
                    .as_deref()
                    .map(|t| format!(",tenant=\"{}\"", label(t)))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "relay_attempt_outcomes_total{{kind=\"{kind}\",outcome=\"{outcome}\",error_code=\"{}\"{tenant}}} {n}",
                    label(code)
                );
            }
        }
        self.delivery_latency.render(
            &mut out,
            "relay_delivery_latency_seconds",
            "From publish to successful delivery.",
        );
        self.attempt_duration.render(
            &mut out,
            "relay_attempt_duration_seconds",
            "Duration of one HTTP attempt.",
        );
        let gauges = [
            (
                "relay_attempts_in_flight",
                "Attempts being made now.",
                self.in_flight.load(Ordering::Relaxed),
            ),
            (
                "relay_due_lag_seconds",
                "How long the oldest due message has waited to be claimed (at the last claim).",
                self.due_lag_millis.load(Ordering::Relaxed) / 1000,
            ),
            (
                "relay_backlog_messages",
                "Live messages waiting for delivery (scheduled or being attempted), at the last look.",
                self.backlog_messages.load(Ordering::Relaxed),
            ),
            (
                "relay_oldest_message_age_seconds",
                "How long ago the oldest waiting message was published, at the last look (0 without a backlog).",
                self.oldest_message_age_millis.load(Ordering::Relaxed) / 1000,
            ),
            (
                "relay_clock_offset_milliseconds",
                "The database's clock minus this node's, as last measured; leases follow the database's clock.",
                self.clock_offset_millis.load(Ordering::Relaxed),
            ),
            (
                "relay_clock_offset_error_milliseconds",
                "The last clock offset is right to within this many milliseconds either way.",
                self.clock_error_millis.load(Ordering::Relaxed),
            ),
        ];
        for (name, help, v) in gauges {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
        }
        let counters = [
            (
                "relay_completions_lost_lease_total",
                "Completions that found their lease gone (rescued, cancelled or removed).",
                self.completions_lost_lease.load(Ordering::Relaxed),
            ),
            (
                "relay_completions_message_gone_total",
                "Completions skipped because their message was gone (its event purged); the rest of their batch was written.",
                self.completions_message_gone.load(Ordering::Relaxed),
            ),
            (
                "relay_leases_rescued_total",
                "Expired leases returned to scheduled.",
                self.leases_rescued.load(Ordering::Relaxed),
            ),
            (
                "relay_leased_ahead_started_total",
                "Attempts started from an endpoint's queue of messages leased ahead.",
                self.ahead_started.load(Ordering::Relaxed),
            ),
            (
                "relay_leased_ahead_given_back_total",
                "Messages leased ahead and given back unattempted.",
                self.ahead_given_back.load(Ordering::Relaxed),
            ),
            (
                "relay_leased_at_publish_total",
                "Messages leased as they were published and handed to this process's dispatcher (no claim).",
                self.leased_at_publish.load(Ordering::Relaxed),
            ),
            (
                "relay_retention_purged_events_total",
                "Events the retention purge removed, with their messages and attempts.",
                self.purged_events.load(Ordering::Relaxed),
            ),
            (
                "relay_thin_payloads_oversize_total",
                "Attempts whose thin payload (an endpoint without snapshot fields) was over 20 kB: the event type's thin fields hold more than identifiers.",
                self.thin_payloads_oversize.load(Ordering::Relaxed),
            ),
            (
                "relay_spans_exported_total",
                "Spans the OTLP collector accepted.",
                self.spans_exported.load(Ordering::Relaxed),
            ),
            (
                "relay_spans_dropped_total",
                "Spans dropped: the export queue was full or the collector refused or failed.",
                self.spans_dropped.load(Ordering::Relaxed),
            ),
            (
                "relay_span_exports_failed_total",
                "Span export requests that failed.",
                self.span_exports_failed.load(Ordering::Relaxed),
            ),
        ];
        for (name, help, v) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}"
            );
        }
        out
    }
}

/// A label value escaped for the text format.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_cumulative_buckets() {
        let m = Metrics::default();
        m.count_outcome("delivered");
        m.count_outcome("delivered");
        m.count_outcome("nonsense");
        m.delivery_latency.observe(0.003);
        m.delivery_latency.observe(2.0);
        let text = m.render();
        assert!(text.contains("relay_attempts_total{outcome=\"delivered\"} 2"));
        assert!(text.contains("relay_delivery_latency_seconds_bucket{le=\"0.005\"} 1"));
        assert!(text.contains("relay_delivery_latency_seconds_bucket{le=\"2.5\"} 2"));
        assert!(text.contains("relay_delivery_latency_seconds_count 2"));
        assert!(!text.contains("ep_") && !text.contains("ten_"));
    }

    #[test]
    fn outcomes_are_labelled_by_kind_outcome_and_code_never_tenant_unless_asked() {
        let m = Metrics::default();
        m.count_attempt("https", "delivered", None, "ten_a");
        m.count_attempt("https", "retry", Some("http_503".into()), "ten_a");
        m.count_attempt("https", "retry", Some("http_503".into()), "ten_b");
        let text = m.render();
        assert!(text.contains(
            "relay_attempt_outcomes_total{kind=\"https\",outcome=\"delivered\",error_code=\"\"} 1"
        ), "{text}");
        assert!(text.contains(
            "relay_attempt_outcomes_total{kind=\"https\",outcome=\"retry\",error_code=\"http_503\"} 2"
        ), "{text}");
        assert!(!text.contains("ten_"), "{text}");
        m.set_tenant_labels(true);
        m.count_attempt("redis_stream", "retry", Some("a\"b".into()), "ten_a");
        let text = m.render();
        assert!(text.contains(
            "relay_attempt_outcomes_total{kind=\"redis_stream\",outcome=\"retry\",error_code=\"a\\\"b\",tenant=\"ten_a\"} 1"
        ), "{text}");
    }

    #[test]
    fn the_latency_histogram_reaches_past_thirty_seconds() {
        let m = Metrics::default();
        m.delivery_latency.observe(45.0);
        m.delivery_latency.observe(2000.0);
        let text = m.render();
        assert!(
            text.contains("relay_delivery_latency_seconds_bucket{le=\"30\"} 0"),
            "{text}"
        );
        assert!(
            text.contains("relay_delivery_latency_seconds_bucket{le=\"60\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("relay_delivery_latency_seconds_bucket{le=\"3600\"} 2"),
            "{text}"
        );
        assert!(text.contains("relay_backlog_messages 0"), "{text}");
        assert!(
            text.contains("relay_oldest_message_age_seconds 0"),
            "{text}"
        );
    }
}
