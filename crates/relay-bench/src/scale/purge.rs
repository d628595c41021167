//! `scale`'s step 5: the retention purge's cost to live traffic.

use super::*;

/// The engine's count of the events its retention purge removed.
const PURGED: &str = "relay_retention_purged_events_total";

/// How many times the purge's burst runs, each between two without it: a
/// single pair moved by as much as the target between two runs of one build
/// (session 29), so the cost is of the medians.
const ROUNDS: usize = 3;
const _: () = assert!(ROUNDS > 0);

/// The bursts of step 5 and what the purge removed meanwhile.
pub(super) struct Run {
    /// With nothing to purge: before the first purge's run, and after each.
    pub around: Vec<Burst>,
    /// With the purge running, [`ROUNDS`] times.
    pub with: Vec<Burst>,
    /// The history's events left before the purge's first burst and after
    /// its last.
    pub left0: u64,
    pub left1: u64,
    /// Events the purge removed during its bursts, and their seconds.
    pub during: u64,
    pub window: f64,
}

/// `throughput` on Relay restarted with nothing to purge, then [`ROUNDS`]
/// times: restarted with the default retention (the purge starts with the
/// engine), and restarted with nothing to purge again.
pub(super) async fn run(
    env: &mut Env,
    args: &BenchArgs,
    events: u64,
    endpoints: u64,
    data: &Arc<str>,
) -> anyhow::Result<Run> {
    restart(env, KEPT_DAYS).await?;
    let mut around = vec![burst(env, args, events, endpoints, data).await?];
    let left0 = history_left(env).await?;
    let mut with = Vec::new();
    let (mut during, mut window) = (0, 0.0);
    for _ in 0..ROUNDS {
        restart(env, RETENTION_DAYS).await?;
        // What the purge removed while the burst ran, by its own count (the
        // history's count takes seconds at 10 M, while the purge runs).
        let purged0 = env.counter(PURGED);
        let t0 = Instant::now();
        with.push(burst(env, args, events, endpoints, data).await?);
        window += t0.elapsed().as_secs_f64();
        during += env.counter(PURGED).saturating_sub(purged0);
        restart(env, KEPT_DAYS).await?;
        around.push(burst(env, args, events, endpoints, data).await?);
    }
    // Nothing is purged since the last purge's burst (the restart ended it).
    let left1 = history_left(env).await?;
    Ok(Run {
        around,
        with,
        left0,
        left1,
        during,
        window,
    })
}

impl Run {
    /// Deliveries/s with nothing to purge: the median of the runs.
    pub fn baseline(&self) -> f64 {
        median(self.around.iter().map(|b| b.per_s))
    }

    /// Deliveries/s with the purge running: the median of the runs.
    pub fn with_per_s(&self) -> f64 {
        median(self.with.iter().map(|b| b.per_s))
    }

    /// The purge's run nearest its median, for its CPU and log.
    pub fn typical(&self) -> &Burst {
        let m = self.with_per_s();
        self.with
            .iter()
            .min_by(|a, b| (a.per_s - m).abs().total_cmp(&(b.per_s - m).abs()))
            .expect("ROUNDS > 0")
    }
}

/// The median of `values` (of an even count, the mean of the middle two; 0
/// for none).
fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Relay restarted on the same database with a retention of `days`, given
/// half a second to start its services.
async fn restart(env: &mut Env, days: i64) -> anyhow::Result<()> {
    env.relaunch(retention(days)).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(())
}

/// Events of the history still there (created before the purge's cutoff).
async fn history_left(env: &Env) -> anyhow::Result<u64> {
    let cutoff = Timestamp::from_millis(now_millis()? - RETENTION_DAYS * DAY_MS);
    env.read(move |mut x| {
        Box::pin(async move { relay_store::stats::events_before(&mut x, cutoff).await })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        for (values, want) in [
            (vec![], 0.0),
            (vec![3.0], 3.0),
            (vec![5.0, 1.0, 3.0], 3.0),
            (vec![4.0, 1.0, 3.0, 100.0], 3.5),
        ] {
            assert_eq!(median(values.clone().into_iter()), want, "{values:?}");
        }
    }
}
