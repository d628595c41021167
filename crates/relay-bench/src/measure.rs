//! CPU time, memory and latency percentiles, from `/proc` and samples.

use std::time::Duration;

/// Linux reports `/proc` CPU times in `USER_HZ` ticks, 100 per second.
const TICKS_PER_SECOND: f64 = 100.0;

/// Threads of the bench's own that are not named `bench-*`: those a C
/// library started for the bench's peers (librdkafka's mock cluster and the
/// bench's own Kafka clients name their threads `rdk:*`, as Relay's
/// producer's are), by their ids under `/proc/self/task`.
static PEER_THREADS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Counts every thread now running whose name starts with `prefix` as the
/// bench's own from now on: call it once the bench's peer has started its
/// threads and before Relay starts any of that name.
pub fn peer_threads_started(prefix: &str) {
    let mut peers = PEER_THREADS.lock().unwrap_or_else(|e| e.into_inner());
    for (id, stat) in tasks() {
        if name(&stat).starts_with(prefix) && !peers.contains(&id) {
            peers.push(id);
        }
    }
}

/// The process's threads: their ids and `stat` lines.
fn tasks() -> Vec<(String, String)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|task| {
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            Some((task.file_name().to_string_lossy().into_owned(), stat))
        })
        .collect()
}

/// A thread's name in its `stat` line.
fn name(stat: &str) -> &str {
    stat.find('(')
        .zip(stat.rfind(')'))
        .map(|(a, b)| &stat[a + 1..b])
        .unwrap_or_default()
}

/// CPU seconds used so far: by the whole process, and by the bench's own
/// threads (the receiver and the publisher, named `bench-*`, and the peers'
/// threads of [`peer_threads_started`]). Relay's share is the difference.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cpu {
    pub process: f64,
    pub bench: f64,
}

impl Cpu {
    pub fn now() -> Cpu {
        let process = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|s| ticks(&s))
            .unwrap_or(0.0);
        let peers = PEER_THREADS.lock().unwrap_or_else(|e| e.into_inner());
        let bench = tasks()
            .iter()
            .filter(|(id, stat)| name(stat).starts_with("bench-") || peers.contains(id))
            .map(|(_, stat)| ticks(stat).unwrap_or(0.0))
            .sum();
        Cpu { process, bench }
    }

    /// Relay's CPU seconds between `self` and `later`.
    pub fn relay_since(&self, later: &Cpu) -> f64 {
        ((later.process - later.bench) - (self.process - self.bench)).max(0.0)
    }

    /// The whole process's CPU seconds between `self` and `later`.
    pub fn process_since(&self, later: &Cpu) -> f64 {
        (later.process - self.process).max(0.0)
    }
}

/// utime + stime of a `stat` line, in seconds.
fn ticks(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the command: state is field 3, utime 14, stime 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / TICKS_PER_SECOND)
}

/// Peak resident set size of the process (VmHWM), in MiB.
pub fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

/// Latency percentiles in milliseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Percentiles {
    pub count: usize,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl Percentiles {
    /// From samples in microseconds (sorted here).
    pub fn of(mut micros: Vec<u32>) -> Percentiles {
        if micros.is_empty() {
            return Percentiles::default();
        }
        micros.sort_unstable();
        let at = |q: f64| {
            let i = ((micros.len() as f64 * q).ceil() as usize).clamp(1, micros.len()) - 1;
            f64::from(micros[i]) / 1000.0
        };
        Percentiles {
            count: micros.len(),
            p50: at(0.50),
            p99: at(0.99),
            p999: at(0.999),
            max: f64::from(micros[micros.len() - 1]) / 1000.0,
        }
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "samples": self.count,
            "p50": round(self.p50),
            "p99": round(self.p99),
            "p999": round(self.p999),
            "max": round(self.max),
        })
    }
}

pub fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// Three decimals, for printing.
pub fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Resets the process's peak resident set size (VmHWM) to its current
/// size, so the next [`peak_rss_mib`] is the peak since now. False where
/// the kernel refuses (`/proc/self/clear_refs`, Linux 4.0 and later).
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
