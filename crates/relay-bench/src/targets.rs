//! `relay bench targets`: the bench's targets, each judged from the JSON
//! report of the workload that measures it. The workloads are run by
//! `targets_workload` in `suite.rs`; this module only reads their reports,
//! so the rules are table-tested without running anything.

use serde_json::{Value, json};

/// The workload run a target is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    Throughput,
    ThroughputPostgres,
    Latency,
    Backlog,
    Isolation,
    /// `throughput` to one HTTPS endpoint with the broker runs' events and
    /// concurrency: their CPU per delivery is judged against its.
    HttpsOneEndpoint,
    Redis,
    Nats,
    Mqtt,
    Rabbitmq,
    Kafka,
    Scale,
    ScalePostgres,
}

impl Run {
    pub fn name(self) -> &'static str {
        match self {
            Run::Throughput => "throughput",
            Run::ThroughputPostgres => "throughput_postgres",
            Run::Latency => "latency",
            Run::Backlog => "backlog",
            Run::Isolation => "isolation",
            Run::HttpsOneEndpoint => "https_one_endpoint",
            Run::Redis => "redis",
            Run::Nats => "nats",
            Run::Mqtt => "mqtt",
            Run::Rabbitmq => "rabbitmq",
            Run::Kafka => "kafka",
            Run::Scale => "scale",
            Run::ScalePostgres => "scale_postgres",
        }
    }
}

/// How a measured value must compare with the target's threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    AtLeast(f64),
    AtMost(f64),
    Below(f64),
    /// No bound is stated: the figure is reported, not judged.
    Reported,
}

impl Bound {
    /// Whether `x` meets the bound; `None` for a figure only reported.
    fn holds(self, x: f64) -> Option<bool> {
        match self {
            Bound::AtLeast(t) => Some(x >= t),
            Bound::AtMost(t) => Some(x <= t),
            Bound::Below(t) => Some(x < t),
            Bound::Reported => None,
        }
    }
}

/// One target: where its figure is in which run's report, and the bound.
pub struct Spec {
    pub name: &'static str,
    /// The bound as the issue states it.
    pub stated: &'static str,
    pub run: Run,
    /// JSON pointer of the figure in the run's report.
    pub pointer: &'static str,
    pub bound: Bound,
    /// How the figure prints (the bound is on the figure as reported).
    pub unit: Unit,
    /// When the figure is a ratio: the run and the JSON pointer of its
    /// denominator (the figure is `pointer` over it; both runs made in one
    /// command).
    pub of: Option<(Run, &'static str)>,
    /// Flags of the run's report that must also be true for this figure
    /// to count, each with what it means when it is not.
    pub requires: &'static [(&'static str, &'static str)],
}

/// How a figure prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    PerSecond,
    ShareOfLimit,
    Millis,
    PercentOfCore,
    Times,
    MiB,
    /// A share (0.7 prints as 70.0 %).
    Percent,
    Bytes,
}

impl Unit {
    pub fn show(self, x: f64) -> String {
        match self {
            Unit::PerSecond => format!("{x:.0}/s"),
            Unit::ShareOfLimit => format!("{:.1} % of limit", x * 100.0),
            Unit::Millis => format!("{x:.2} ms"),
            Unit::PercentOfCore => format!("{x:.2} % of one core"),
            Unit::Times => format!("{x:.2}×"),
            Unit::MiB => format!("{x:.1} MiB"),
            Unit::Percent => format!("{:.1} %", x * 100.0),
            Unit::Bytes => format!("{x:.0} B"),
        }
    }
}

/// 200 MB in MiB.
const RSS_LIMIT_MIB: f64 = 200_000_000.0 / (1024.0 * 1024.0);

/// The targets, in the order the issue lists them.
pub const SPECS: &[Spec] = &[
    Spec {
        name: "throughput on SQLite",
        stated: ">= 10,000 deliveries/s",
        run: Run::Throughput,
        pointer: "/deliveries_per_s",
        bound: Bound::AtLeast(10_000.0),
        unit: Unit::PerSecond,
        of: None,
        requires: &[],
    },
    Spec {
        name: "throughput on SQLite, share of limit",
        stated: ">= 50 % of limit (same run)",
        run: Run::Throughput,
        pointer: "/ratio_of_limit",
        bound: Bound::AtLeast(0.5),
        unit: Unit::ShareOfLimit,
        of: None,
        requires: &[],
    },
    Spec {
        name: "throughput on PostgreSQL",
        stated: ">= 5,000 deliveries/s",
        run: Run::ThroughputPostgres,
        pointer: "/deliveries_per_s",
        bound: Bound::AtLeast(5_000.0),
        unit: Unit::PerSecond,
        of: None,
        requires: &[],
    },
    Spec {
        name: "latency at 1,000 events/s (SQLite), p50",
        stated: "<= 5 ms",
        run: Run::Latency,
        pointer: "/latency_ms/p50",
        bound: Bound::AtMost(5.0),
        unit: Unit::Millis,
        of: None,
        requires: &[],
    },
    Spec {
        name: "latency at 1,000 events/s (SQLite), p99",
        stated: "<= 25 ms",
        run: Run::Latency,
        pointer: "/latency_ms/p99",
        bound: Bound::AtMost(25.0),
        unit: Unit::Millis,
        of: None,
        requires: &[],
    },
    Spec {
        name: "backlog: idle CPU",
        stated: "< 2 % of one core",
        run: Run::Backlog,
        pointer: "/idle_cpu_percent_of_one_core",
        bound: Bound::Below(2.0),
        unit: Unit::PercentOfCore,
        of: None,
        requires: &[],
    },
    Spec {
        name: "backlog: fresh-message latency p50 / empty database",
        stated: "<= 2×",
        run: Run::Backlog,
        pointer: "/fresh_latency_ratio_to_empty_p50",
        bound: Bound::AtMost(2.0),
        unit: Unit::Times,
        of: None,
        requires: &[],
    },
    Spec {
        name: "isolation: healthy p99 with / without the bad endpoint",
        stated: "<= 2×",
        run: Run::Isolation,
        pointer: "/p99_ratio",
        bound: Bound::AtMost(2.0),
        unit: Unit::Times,
        of: None,
        requires: &[],
    },
    Spec {
        name: "peak RSS in throughput",
        stated: "< 200 MB",
        run: Run::Throughput,
        pointer: "/peak_rss_mib",
        bound: Bound::Below(RSS_LIMIT_MIB),
        unit: Unit::MiB,
        of: None,
        requires: &[],
    },
    // Issue 47: cost per delivery, and cost at scale.
    Spec {
        name: "throughput on SQLite, share of limit (issue 47)",
        stated: ">= 35 % of limit (same run)",
        run: Run::Throughput,
        pointer: "/ratio_of_limit",
        bound: Bound::AtLeast(0.35),
        unit: Unit::ShareOfLimit,
        of: None,
        requires: &[],
    },
    Spec {
        name: "Relay CPU per delivery on SQLite / the limit's",
        stated: "<= 2.0× (same run)",
        run: Run::Throughput,
        pointer: "/cpu_ratio_to_limit",
        bound: Bound::AtMost(2.0),
        unit: Unit::Times,
        of: None,
        requires: &[],
    },
    Spec {
        name: "throughput on PostgreSQL / on SQLite",
        stated: ">= 70 % (same command)",
        run: Run::ThroughputPostgres,
        pointer: "/deliveries_per_s",
        bound: Bound::AtLeast(0.7),
        unit: Unit::Percent,
        of: Some((Run::Throughput, "/deliveries_per_s")),
        requires: &[],
    },
    broker_cpu("Relay CPU per delivery, redis_stream / https", Run::Redis),
    broker_cpu("Relay CPU per delivery, nats_jetstream / https", Run::Nats),
    broker_cpu("Relay CPU per delivery, mqtt / https", Run::Mqtt),
    broker_cpu("Relay CPU per delivery, rabbitmq / https", Run::Rabbitmq),
    broker_cpu("Relay CPU per delivery, kafka / https", Run::Kafka),
    scale_slowdown(
        "scale (SQLite): throughput, empty database / beside the history",
        Run::Scale,
    ),
    scale_slowdown(
        "scale (PostgreSQL): throughput, empty database / beside the history",
        Run::ScalePostgres,
    ),
    scale_reads(
        "scale (SQLite): the API's reads beside the history, worst p99",
        Run::Scale,
    ),
    scale_reads(
        "scale (PostgreSQL): the API's reads beside the history, worst p99",
        Run::ScalePostgres,
    ),
    scale_purge(
        "scale (SQLite): the retention purge's cost to throughput",
        Run::Scale,
    ),
    scale_purge(
        "scale (PostgreSQL): the retention purge's cost to throughput",
        Run::ScalePostgres,
    ),
    scale_bytes("scale (SQLite): bytes on disk per delivery", Run::Scale),
    scale_bytes(
        "scale (PostgreSQL): bytes on disk per delivery",
        Run::ScalePostgres,
    ),
];

/// A broker kind's CPU per delivery against the HTTPS kind's.
const fn broker_cpu(name: &'static str, run: Run) -> Spec {
    Spec {
        name,
        stated: "<= 1.2× the HTTPS kind's (same command)",
        run,
        pointer: "/relay_cpu_s_per_1000",
        bound: Bound::AtMost(1.2),
        unit: Unit::Times,
        of: Some((Run::HttpsOneEndpoint, "/relay_cpu_s_per_1000")),
        requires: &[],
    }
}

/// `scale`: throughput on the empty database over throughput beside the
/// history.
const fn scale_slowdown(name: &'static str, run: Run) -> Spec {
    Spec {
        name,
        stated: "<= 1.3× (same run)",
        run,
        pointer: "/throughput_slowdown",
        bound: Bound::AtMost(1.3),
        unit: Unit::Times,
        of: None,
        requires: &[],
    }
}

const fn scale_reads(name: &'static str, run: Run) -> Spec {
    Spec {
        name,
        stated: "< 50 ms",
        run,
        pointer: "/reads/worst_p99_ms",
        bound: Bound::Below(50.0),
        unit: Unit::Millis,
        of: None,
        requires: &[],
    }
}

/// `scale`: 1 - throughput with the purge running / without.
const fn scale_purge(name: &'static str, run: Run) -> Spec {
    Spec {
        name,
        stated: "< 10 % (same run)",
        run,
        pointer: "/purge/cost",
        bound: Bound::Below(0.1),
        unit: Unit::Percent,
        of: None,
        requires: &[(
            "/purge/throughout",
            "the purge ended before the measurement did",
        )],
    }
}

const fn scale_bytes(name: &'static str, run: Run) -> Spec {
    Spec {
        name,
        stated: "reported (events, messages, attempts, indexes)",
        run,
        pointer: "/bytes/per_delivery",
        bound: Bound::Reported,
        unit: Unit::Bytes,
        of: None,
        requires: &[],
    }
}

/// The flags of a run's report that must all be true for its figures to
/// count (every delivery arrived). `backlog` has none: it fails when a
/// fresh message does not arrive.
fn completeness(run: Run) -> &'static [&'static str] {
    match run {
        Run::Throughput
        | Run::ThroughputPostgres
        | Run::Latency
        | Run::HttpsOneEndpoint
        | Run::Redis
        | Run::Nats
        | Run::Mqtt
        | Run::Rabbitmq
        | Run::Kafka
        | Run::Scale
        | Run::ScalePostgres => &["/complete"],
        Run::Isolation => &["/without/complete", "/with/complete"],
        Run::Backlog => &[],
    }
}

/// A target as judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub name: &'static str,
    pub stated: &'static str,
    pub measured: Option<f64>,
    pub shown: String,
    /// `None`: not measured (the run was not made, or has no figure).
    pub met: Option<bool>,
    pub note: String,
}

/// Judges every target from the reports of the runs made (a run not among
/// them, or whose report says `not_run`, leaves its targets not measured).
pub fn judge(reports: &[(Run, Value)]) -> Vec<Judged> {
    SPECS.iter().map(|spec| judge_one(spec, reports)).collect()
}

/// The figure at `pointer` of `run`'s report, and whether the report
/// counts (every flag of [`completeness`] true); or why there is none.
fn figure<'a>(
    reports: &'a [(Run, Value)],
    run: Run,
    pointer: &str,
) -> Result<(f64, bool, &'a Value), (&'static str, String)> {
    let Some((_, r)) = reports.iter().find(|(x, _)| *x == run) else {
        let note = match run {
            Run::ThroughputPostgres | Run::ScalePostgres => "give --database-url to measure it",
            _ => "",
        };
        return Err(("not run", note.into()));
    };
    if let Some(why) = r.pointer("/not_run").and_then(Value::as_str) {
        return Err(("not run", format!("{}: {why}", run.name())));
    }
    let Some(x) = r.pointer(pointer).and_then(Value::as_f64) else {
        return Err((
            "no figure",
            format!("the {} report has no {pointer}", run.name()),
        ));
    };
    let complete = completeness(run)
        .iter()
        .all(|p| r.pointer(p).and_then(Value::as_bool) == Some(true));
    Ok((x, complete, r))
}

fn judge_one(spec: &Spec, reports: &[(Run, Value)]) -> Judged {
    let unmeasured = |(shown, note): (&str, String)| Judged {
        name: spec.name,
        stated: spec.stated,
        measured: None,
        shown: shown.into(),
        met: None,
        note,
    };
    let (mut x, mut complete, r) = match figure(reports, spec.run, spec.pointer) {
        Ok(f) => f,
        Err(why) => return unmeasured(why),
    };
    if let Some((run, pointer)) = spec.of {
        let (y, of_complete, _) = match figure(reports, run, pointer) {
            Ok(f) => f,
            Err(why) => return unmeasured(why),
        };
        if y <= 0.0 {
            return unmeasured((
                "no figure",
                format!("the {} report's {pointer} is 0", run.name()),
            ));
        }
        // Six decimals: a ratio of two reported figures is judged as it
        // prints, not by the last bit of its division.
        x = (x / y * 1e6).round() / 1e6;
        complete &= of_complete;
    }
    let missing = spec
        .requires
        .iter()
        .find(|(p, _)| r.pointer(p).and_then(Value::as_bool) != Some(true));
    let (met, note) = if !complete {
        (Some(false), "not every delivery arrived".to_string())
    } else if let Some((_, why)) = missing {
        (Some(false), why.to_string())
    } else {
        (spec.bound.holds(x), String::new())
    };
    Judged {
        name: spec.name,
        stated: spec.stated,
        measured: Some(x),
        shown: spec.unit.show(x),
        met,
        note,
    }
}

impl Judged {
    pub fn json(&self) -> Value {
        json!({
            "target": self.name,
            "bound": self.stated,
            "measured": self.measured,
            "shown": self.shown,
            "met": self.met,
            "note": self.note,
        })
    }

    pub fn verdict(&self) -> &'static str {
        match self.met {
            Some(true) => "met",
            Some(false) => "NOT MET",
            None if self.measured.is_some() => "reported",
            None => "not measured",
        }
    }
}

#[cfg(test)]
mod tests;
