//! `scale`'s step 5: the retention purge's cost to live traffic.

use super::*;

/// The engine's count of the events its retention purge removed.
const PURGED: &str = "relay_retention_purged_events_total";

/// The three bursts of step 5 and what the purge removed meanwhile.
pub(super) struct Run {
    /// With nothing to purge, before and after the purge's run.
    pub around: Vec<Burst>,
    /// With the purge running.
    pub with: Burst,
    /// The history's events left before and after the purge's burst.
    pub left0: u64,
    pub left1: u64,
    /// Events the purge removed during its burst, and the burst's seconds.
    pub during: u64,
    pub window: f64,
}

/// `throughput` on Relay restarted with nothing to purge, with the default
/// retention (the purge starts with the engine), with nothing to purge
/// again.
pub(super) async fn run(
    env: &mut Env,
    args: &BenchArgs,
    events: u64,
    endpoints: u64,
    data: &Arc<str>,
) -> anyhow::Result<Run> {
    restart(env, KEPT_DAYS).await?;
    let before = burst(env, args, events, endpoints, data).await?;
    restart(env, RETENTION_DAYS).await?;
    let left0 = history_left(env).await?;
    // What the purge removed while the burst ran, by its own count (the
    // history's count takes seconds at 10 M, while the purge runs).
    let purged0 = env.counter(PURGED);
    let t0 = Instant::now();
    let with = burst(env, args, events, endpoints, data).await?;
    let window = t0.elapsed().as_secs_f64();
    let during = env.counter(PURGED).saturating_sub(purged0);
    let left1 = history_left(env).await?;
    restart(env, KEPT_DAYS).await?;
    let after = burst(env, args, events, endpoints, data).await?;
    Ok(Run {
        around: vec![before, after],
        with,
        left0,
        left1,
        during,
        window,
    })
}

impl Run {
    /// Deliveries/s with nothing to purge: the mean of the two runs.
    pub fn baseline(&self) -> f64 {
        self.around.iter().map(|b| b.per_s).sum::<f64>() / self.around.len().max(1) as f64
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
    let store = env.store.clone();
    Ok(env
        .relay
        .spawn(async move {
            store
                .read(move |mut x| {
                    Box::pin(async move { relay_store::stats::events_before(&mut x, cutoff).await })
                })
                .await
        })
        .await??)
}
