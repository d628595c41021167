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
    let mut around = Vec::new();
    let mut purged = None;
    for days in [KEPT_DAYS, RETENTION_DAYS, KEPT_DAYS] {
        env.relaunch(retention(days)).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        if days == KEPT_DAYS {
            around.push(burst(env, args, events, endpoints, data).await?);
            continue;
        }
        let left0 = history_left(env).await?;
        // What the purge removed while the burst ran, by its own count (the
        // history's count takes seconds at 10 M, while the purge runs).
        let purged0 = env.counter(PURGED);
        let t0 = Instant::now();
        let with = burst(env, args, events, endpoints, data).await?;
        let window = t0.elapsed().as_secs_f64();
        let during = env.counter(PURGED).saturating_sub(purged0);
        purged = Some((with, left0, history_left(env).await?, during, window));
    }
    let (with, left0, left1, during, window) = purged.context("the purge's run")?;
    Ok(Run {
        around,
        with,
        left0,
        left1,
        during,
        window,
    })
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
