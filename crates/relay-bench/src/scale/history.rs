//! `scale`'s step 2: the history of deliveries, seeded.

use super::*;

/// The history's event ids of endpoint `j` are `<prefix(j)><i>`, `i`
/// zero-padded to ten digits (attempt `atm_…`): about the length of
/// generated ids, and sorted by time as theirs are. Its message ids are
/// those live traffic would have had ([`History::message_id`]).
pub(super) fn prefix(j: usize) -> String {
    format!("evt_01jhist{j}_")
}

/// When the history's rows were created: row `i` of each endpoint at
/// `start + i × spacing`, `per` rows each.
#[derive(Debug, Clone, Copy)]
pub(super) struct History {
    pub start: i64,
    pub spacing: i64,
    pub per: u64,
}

impl History {
    /// `history` rows over `k` endpoints, created 40 to 31 days ago.
    pub fn new(history: u64, k: u64) -> anyhow::Result<Self> {
        let per = history.div_ceil(k.max(1));
        Ok(History {
            start: now_millis()? - HISTORY_FROM_DAYS * DAY_MS,
            spacing: ((HISTORY_FROM_DAYS - HISTORY_TO_DAYS) * DAY_MS / per.max(1) as i64).max(1),
            per,
        })
    }

    /// The id of endpoint `j`'s message `i` (`relay_store::seed::time_id`
    /// of its creation time, tagged `j`).
    pub fn message_id(&self, j: usize, i: u64) -> String {
        let created = Timestamp::from_millis(self.start + i as i64 * self.spacing);
        relay_store::seed::time_id(j as u32, created, i)
    }
}

/// Writes `history` delivered messages, split over `endpoints`, chunk by
/// chunk (each endpoint's share of a chunk in turn, so both grow together
/// as live traffic's would); progress on stderr. Returns the seconds.
pub(super) async fn seed_history(
    env: &Env,
    endpoints: &[String],
    history: u64,
    shape: History,
    data: &Arc<str>,
) -> anyhow::Result<f64> {
    let k = endpoints.len().max(1) as u64;
    let History {
        start,
        spacing,
        per,
    } = shape;
    let scope = relay_store::Scope {
        tenant_id: env.tenant_id.clone(),
        environment: Environment::Live,
    };
    let (store, endpoints, data) = (env.store.clone(), endpoints.to_vec(), data.clone());
    let started = Instant::now();
    env.relay
        .spawn(async move {
            let share = |j: u64| history / k + u64::from(j < history % k);
            let mut written = 0u64;
            let mut first = 0u64;
            while first < per {
                for (j, endpoint) in endpoints.iter().enumerate() {
                    let last = (first + CHUNK / k).min(share(j as u64));
                    if last <= first {
                        continue;
                    }
                    let (scope, endpoint, data) = (scope.clone(), endpoint.clone(), data.clone());
                    written += store
                        .write(relay_store::Commit::Durable, move |mut x| {
                            Box::pin(async move {
                                let seed = relay_store::seed::Messages {
                                    scope: &scope,
                                    endpoint_id: &endpoint,
                                    prefix: &prefix(j),
                                    event_type: "bench.published",
                                    state: MessageState::Delivered,
                                    due: None,
                                    attempts_used: 1,
                                    now: Timestamp::from_millis(start),
                                };
                                let shape = relay_store::seed::Shape {
                                    data: &data,
                                    spacing_ms: spacing,
                                    padded: true,
                                    time_ids: Some(j as u32),
                                };
                                relay_store::seed::messages_shaped(
                                    &mut x,
                                    &seed,
                                    &shape,
                                    first,
                                    last - 1,
                                )
                                .await
                            })
                        })
                        .await?;
                }
                first += CHUNK / k;
                let s = started.elapsed().as_secs_f64();
                eprintln!(
                    "seed: {written} of {history} deliveries ({:.0}/s, {s:.0} s)",
                    written as f64 / s.max(1e-9)
                );
            }
            anyhow::Ok(())
        })
        .await??;
    let seeded = started.elapsed().as_secs_f64();
    if let Some((url, name)) = &env.pg_drop {
        eprintln!("seed: VACUUM (ANALYZE) of the history tables, CHECKPOINT");
        relay_store::seed::vacuum_history(url, name).await?;
    }
    settle().await;
    Ok(seeded)
}

/// Waits until the kernel has written out what the seed dirtied (`sync`,
/// then `Dirty` + `Writeback` of `/proc/meminfo` under 64 MiB, two minutes
/// at most): otherwise the next measurement's log flushes queue behind
/// gigabytes of the seed's pages, which is the seed's cost, not the
/// history's.
async fn settle() {
    let started = Instant::now();
    let _ = tokio::task::spawn_blocking(|| std::process::Command::new("sync").status()).await;
    let dirty = || -> u64 {
        std::fs::read_to_string("/proc/meminfo")
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("Dirty:") || l.starts_with("Writeback:"))
            .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .sum()
    };
    while dirty() > 64 * 1024 && started.elapsed() < Duration::from_secs(120) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!(
        "seed: written out in {:.1} s ({} kB dirty left)",
        started.elapsed().as_secs_f64(),
        dirty()
    );
}
