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
}

impl Run {
    pub fn name(self) -> &'static str {
        match self {
            Run::Throughput => "throughput",
            Run::ThroughputPostgres => "throughput_postgres",
            Run::Latency => "latency",
            Run::Backlog => "backlog",
            Run::Isolation => "isolation",
        }
    }
}

/// How a measured value must compare with the target's threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    AtLeast(f64),
    AtMost(f64),
    Below(f64),
}

impl Bound {
    fn holds(self, x: f64) -> bool {
        match self {
            Bound::AtLeast(t) => x >= t,
            Bound::AtMost(t) => x <= t,
            Bound::Below(t) => x < t,
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
    },
    Spec {
        name: "throughput on SQLite, share of limit",
        stated: ">= 50 % of limit (same run)",
        run: Run::Throughput,
        pointer: "/ratio_of_limit",
        bound: Bound::AtLeast(0.5),
        unit: Unit::ShareOfLimit,
    },
    Spec {
        name: "throughput on PostgreSQL",
        stated: ">= 5,000 deliveries/s",
        run: Run::ThroughputPostgres,
        pointer: "/deliveries_per_s",
        bound: Bound::AtLeast(5_000.0),
        unit: Unit::PerSecond,
    },
    Spec {
        name: "latency at 1,000 events/s (SQLite), p50",
        stated: "<= 5 ms",
        run: Run::Latency,
        pointer: "/latency_ms/p50",
        bound: Bound::AtMost(5.0),
        unit: Unit::Millis,
    },
    Spec {
        name: "latency at 1,000 events/s (SQLite), p99",
        stated: "<= 25 ms",
        run: Run::Latency,
        pointer: "/latency_ms/p99",
        bound: Bound::AtMost(25.0),
        unit: Unit::Millis,
    },
    Spec {
        name: "backlog: idle CPU",
        stated: "< 2 % of one core",
        run: Run::Backlog,
        pointer: "/idle_cpu_percent_of_one_core",
        bound: Bound::Below(2.0),
        unit: Unit::PercentOfCore,
    },
    Spec {
        name: "backlog: fresh-message latency p50 / empty database",
        stated: "<= 2×",
        run: Run::Backlog,
        pointer: "/fresh_latency_ratio_to_empty_p50",
        bound: Bound::AtMost(2.0),
        unit: Unit::Times,
    },
    Spec {
        name: "isolation: healthy p99 with / without the bad endpoint",
        stated: "<= 2×",
        run: Run::Isolation,
        pointer: "/p99_ratio",
        bound: Bound::AtMost(2.0),
        unit: Unit::Times,
    },
    Spec {
        name: "peak RSS in throughput",
        stated: "< 200 MB",
        run: Run::Throughput,
        pointer: "/peak_rss_mib",
        bound: Bound::Below(RSS_LIMIT_MIB),
        unit: Unit::MiB,
    },
];

/// The flags of a run's report that must all be true for its figures to
/// count (every delivery arrived). `backlog` has none: it fails when a
/// fresh message does not arrive.
fn completeness(run: Run) -> &'static [&'static str] {
    match run {
        Run::Throughput | Run::ThroughputPostgres | Run::Latency => &["/complete"],
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
/// them leaves its targets not measured).
pub fn judge(reports: &[(Run, Value)]) -> Vec<Judged> {
    SPECS
        .iter()
        .map(|spec| {
            let Some((_, r)) = reports.iter().find(|(run, _)| *run == spec.run) else {
                return Judged {
                    name: spec.name,
                    stated: spec.stated,
                    measured: None,
                    shown: "not run".into(),
                    met: None,
                    note: match spec.run {
                        Run::ThroughputPostgres => "give --database-url to measure it".into(),
                        _ => String::new(),
                    },
                };
            };
            let Some(x) = r.pointer(spec.pointer).and_then(Value::as_f64) else {
                return Judged {
                    name: spec.name,
                    stated: spec.stated,
                    measured: None,
                    shown: "no figure".into(),
                    met: None,
                    note: format!("the {} report has no {}", spec.run.name(), spec.pointer),
                };
            };
            let incomplete = completeness(spec.run)
                .iter()
                .any(|p| r.pointer(p).and_then(Value::as_bool) != Some(true));
            let (met, note) = if incomplete {
                (false, "not every delivery arrived".to_string())
            } else {
                (spec.bound.holds(x), String::new())
            };
            Judged {
                name: spec.name,
                stated: spec.stated,
                measured: Some(x),
                shown: spec.unit.show(x),
                met: Some(met),
                note,
            }
        })
        .collect()
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
            None => "not measured",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reports() -> Vec<(Run, Value)> {
        vec![
            (
                Run::Throughput,
                json!({"complete": true, "deliveries_per_s": 12_000.0,
                       "ratio_of_limit": 0.23, "peak_rss_mib": 40.0}),
            ),
            (
                Run::Latency,
                json!({"complete": true, "latency_ms": {"p50": 0.8, "p99": 30.0}}),
            ),
            (
                Run::Backlog,
                json!({"idle_cpu_percent_of_one_core": 2.0,
                       "fresh_latency_ratio_to_empty_p50": 1.4}),
            ),
            (
                Run::Isolation,
                json!({"without": {"complete": true}, "with": {"complete": true},
                       "p99_ratio": 2.0}),
            ),
        ]
    }

    fn judged(reports: &[(Run, Value)]) -> Vec<(&'static str, Option<bool>)> {
        judge(reports)
            .into_iter()
            .map(|j| (j.name, j.met))
            .collect()
    }

    #[test]
    fn each_target_is_judged_by_its_bound() {
        assert_eq!(
            judged(&reports()),
            vec![
                ("throughput on SQLite", Some(true)),
                ("throughput on SQLite, share of limit", Some(false)),
                // Not run: not judged either way.
                ("throughput on PostgreSQL", None),
                ("latency at 1,000 events/s (SQLite), p50", Some(true)),
                ("latency at 1,000 events/s (SQLite), p99", Some(false)),
                // "< 2 %": exactly 2 is not met; "<= 2×": exactly 2 is.
                ("backlog: idle CPU", Some(false)),
                (
                    "backlog: fresh-message latency p50 / empty database",
                    Some(true)
                ),
                (
                    "isolation: healthy p99 with / without the bad endpoint",
                    Some(true)
                ),
                ("peak RSS in throughput", Some(true)),
            ]
        );
    }

    #[test]
    fn a_run_that_lost_deliveries_meets_no_target() {
        let mut r = reports();
        r[0].1["complete"] = json!(false);
        r[3].1["with"]["complete"] = json!(false);
        let all = judge(&r);
        let by_name = |n: &str| all.iter().find(|j| j.name == n).cloned().unwrap();
        let t = by_name("throughput on SQLite");
        assert_eq!(t.met, Some(false));
        assert_eq!(t.measured, Some(12_000.0));
        assert_eq!(t.note, "not every delivery arrived");
        assert_eq!(by_name("peak RSS in throughput").met, Some(false));
        assert_eq!(
            by_name("isolation: healthy p99 with / without the bad endpoint").met,
            Some(false)
        );
        assert_eq!(
            by_name("latency at 1,000 events/s (SQLite), p50").met,
            Some(true)
        );
    }

    #[test]
    fn a_missing_figure_is_not_measured_and_says_where_it_looked() {
        let mut r = reports();
        r[1].1 = json!({"complete": true, "latency_ms": {}});
        let all = judge(&r);
        let p50 = &all[3];
        assert_eq!(p50.met, None);
        assert_eq!(p50.note, "the latency report has no /latency_ms/p50");
        let pg = &all[2];
        assert_eq!(pg.shown, "not run");
        assert_eq!(pg.note, "give --database-url to measure it");
    }

    #[test]
    fn figures_print_in_their_units() {
        assert_eq!(Unit::ShareOfLimit.show(0.2345), "23.4 % of limit");
        assert_eq!(Unit::PerSecond.show(12_345.6), "12346/s");
        assert_eq!(Unit::Times.show(1.5), "1.50×");
        assert!((RSS_LIMIT_MIB - 190.73).abs() < 0.01);
    }
}
