//! Jobs (bulk retry), the [`JobRunner`] service: run beside the claimer,
//! batch by batch, paced by how many of their messages wait to be claimed.

use super::*;
use relay_store::{Commit, ExecutorExt as _, claims, jobs};

/// Messages examined per job transaction.
pub(crate) const JOB_BATCH: u32 = 500;

/// A paced bulk retry waits while this many of its tenant's recovery
/// messages are due and unclaimed (two batches' worth).
pub const JOB_PACE_DUE: u64 = 2 * JOB_BATCH as u64;

/// How often a waiting bulk retry looks again.
pub(crate) const JOB_PACE_POLL: Duration = Duration::from_millis(100);

/// The message filter a bulk retry job was started with.
pub fn bulk_retry_filter(parameters: &serde_json::Value) -> Option<relay_store::MessageFilter> {
    let b = relay_core::model::BulkRetry::from_parameters(parameters)?;
    Some(relay_store::MessageFilter {
        endpoint_id: b.endpoint_id,
        event_type: b.event_type,
        error_code: b.error_code,
        state: b.state,
        since: b.since,
        until: b.until,
        ..Default::default()
    })
}

impl Dispatcher {
    /// Runs queued jobs (bulk retry) to completion, batch by batch, each
    /// batch one transaction under the job's lease: a crash resumes from the
    /// last cursor. Returns how many jobs finished.
    pub async fn run_jobs(&self, wake: Option<&Notify>) -> Result<u64, relay_store::StoreError> {
        self.run_jobs_paced(wake, false).await
    }

    /// [`Dispatcher::run_jobs`]; when `paced`, a bulk retry restarts its next
    /// batch only once fewer than [`JOB_PACE_DUE`] of its tenant's recovery
    /// messages are waiting to be claimed (or half a lease has passed, so the
    /// job's lease never lapses while it waits). Restarting 50,000 messages
    /// at once would hold the writer for a hundred batch transactions in a
    /// row and leave a backlog that every claim has to look past; paced, the
    /// job moves at the pace its messages are delivered.
    pub(crate) async fn run_jobs_paced(
        &self,
        wake: Option<&Notify>,
        paced: bool,
    ) -> Result<u64, relay_store::StoreError> {
        let a = &self.attempter;
        let lease = a.config.lease.as_millis() as i64;
        let mut finished = 0;
        loop {
            let now = a.clock.now();
            let owner = a.config.owner.clone();
            let Some(job) = a
                .store
                .write(Commit::Durable, move |mut x| {
                    Box::pin(async move {
                        jobs::lease(&mut x, &owner, now, now.plus_millis(lease)).await
                    })
                })
                .await?
            else {
                return Ok(finished);
            };
            let mut filter = match bulk_retry_filter(&job.job.parameters) {
                Some(f) => f,
                None => {
                    tracing::error!(job = %job.job.id, "unreadable job parameters; the job is skipped");
                    return Ok(finished);
                }
            };
            loop {
                if paced {
                    self.pace_job(&job.scope.tenant_id).await?;
                }
                let now = a.clock.now();
                // Nothing whose event is gone or going: restarted, such a
                // message would keep its event past the retention period.
                filter.events_since = Some(self.retention_cutoff(now));
                let (leased, narrowed) = (job.clone(), filter.clone());
                let owner = a.config.owner.clone();
                let progress = a
                    .store
                    .write(Commit::Durable, move |mut x| {
                        Box::pin(async move {
                            jobs::advance_bulk_retry(
                                &mut x,
                                &leased,
                                &narrowed,
                                &owner,
                                JOB_BATCH,
                                now,
                                now.plus_millis(lease),
                            )
                            .await
                        })
                    })
                    .await?;
                if progress.affected > 0
                    && let Some(w) = wake
                {
                    // Restarted messages are due now.
                    w.notify_one();
                }
                if progress.state == relay_core::model::JobState::Done {
                    tracing::info!(job = %progress.id, processed = progress.processed, affected = progress.affected, "job finished");
                    finished += 1;
                    break;
                }
            }
        }
    }

    /// Waits until fewer than [`JOB_PACE_DUE`] of the tenant's recovery
    /// messages are due and unclaimed, or half a lease has passed.
    pub(crate) async fn pace_job(&self, tenant_id: &str) -> Result<(), relay_store::StoreError> {
        let a = &self.attempter;
        let give_up = std::time::Instant::now() + a.config.lease / 2;
        let due = |now| {
            let tenant_id = tenant_id.to_string();
            a.store.read(move |mut x| {
                Box::pin(async move { claims::recovery_due(&mut x, &tenant_id, now).await })
            })
        };
        while due(a.clock.now()).await? >= JOB_PACE_DUE && std::time::Instant::now() < give_up {
            tokio::time::sleep(JOB_PACE_POLL).await;
        }
        Ok(())
    }
}

/// The job runner's slice of [`EngineConfig`].
#[derive(Debug, Clone)]
pub struct JobConfig {
    /// How often it looks for queued jobs (`rescue_interval`, at most a
    /// second).
    pub tick: Duration,
}

impl From<&EngineConfig> for JobConfig {
    fn from(c: &EngineConfig) -> Self {
        JobConfig {
            tick: c.rescue_interval.min(Duration::from_secs(1)),
        }
    }
}

/// The job runner service: jobs (bulk retry) run beside the claimer, so a
/// long job never holds up deliveries; it wakes the claimer (`wake`) for
/// the messages it restarts. On shutdown a job stops where it is (its last
/// batch is committed or rolled back; its lease lapses and it resumes
/// later).
pub struct JobRunner {
    dispatcher: Arc<Dispatcher>,
    wake: Arc<Notify>,
    config: JobConfig,
}

impl JobRunner {
    pub fn new(dispatcher: Arc<Dispatcher>, wake: Arc<Notify>) -> Self {
        let config = JobConfig::from(dispatcher.config());
        JobRunner {
            dispatcher,
            wake,
            config,
        }
    }
}

impl Service for JobRunner {
    const NAME: &'static str = "job runner";
    type Config = JobConfig;

    fn config(&self) -> &JobConfig {
        &self.config
    }

    /// Runs the queued jobs to their end, unpaced ([`Dispatcher::run_jobs`]);
    /// how many finished.
    async fn run_once(&self) -> Result<u64, relay_store::StoreError> {
        self.dispatcher.run_jobs(Some(&self.wake)).await
    }

    async fn run(self, mut stop: watch::Receiver<bool>) {
        loop {
            tokio::select! {
                r = self.dispatcher.run_jobs_paced(Some(&self.wake), true) => {
                    if let Err(e) = r {
                        tracing::error!(error = %e, "running jobs failed; they resume later");
                    }
                }
                _ = crate::service::stopped(&mut stop) => break,
            }
            tokio::select! {
                _ = tokio::time::sleep(self.config.tick) => {}
                _ = crate::service::stopped(&mut stop) => {}
            }
            if *stop.borrow() {
                break;
            }
        }
    }
}
