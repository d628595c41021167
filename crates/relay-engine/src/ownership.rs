//! The prover: challenges the receivers of unverified endpoints
//! (`relay_core::ownership`, `relay_store::ownership`, `docs/security.md`,
//! "Proof of endpoint ownership") and records their answers. A proof
//! releases the held messages of every unverified endpoint of the tenant
//! with that origin, and wakes the claim loop.
//!
//! The challenge goes through the endpoint's built client (the guard, its
//! custom headers, its OAuth 2.0 token), signed with its signing keys over
//! an empty body. No payload is ever sent to an unverified endpoint: the
//! claim path takes only `scheduled` messages and theirs are `held`, and
//! manual attempts refuse it ([`crate::ManualError::Unverified`]).

use std::sync::Arc;
use std::time::Duration;

use relay_core::model::EndpointState;
use relay_core::ownership::{Failure, challenge_id};
use relay_core::signature::{SignedContent, signature_header};
use relay_destinations::OwnershipChallenge;
use relay_store::ownership::{self, Due};
use relay_store::{Commit, ExecutorExt as _, StoreError};
use tokio::sync::watch;

use crate::Dispatcher;
use crate::service::Service;

/// Endpoints one pass challenges at most (at once).
const PER_PASS: u32 = 16;
/// How long a node holds a taken endpoint before another may take it.
const LEASE: Duration = Duration::from_secs(120);

/// Why an asked-for challenge was not made.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    #[error("endpoint not found")]
    NotFound,
    /// The endpoint owes no proof (`verify_ownership` is off and the
    /// installation does not require it, or it is no HTTPS endpoint).
    #[error("the endpoint owes no ownership proof")]
    NotRequired,
    #[error(transparent)]
    Store(StoreError),
}

impl Dispatcher {
    /// Challenges the unverified endpoints whose next challenge is due;
    /// returns how many proved ownership.
    pub async fn prove_due(&self) -> Result<u64, StoreError> {
        let now = self.attempter.clock.now();
        let lease_until = now.plus_millis(LEASE.as_millis() as i64);
        let taken = self
            .store()
            .write(Commit::Durable, move |mut x| {
                Box::pin(
                    async move { ownership::take_due(&mut x, now, lease_until, PER_PASS).await },
                )
            })
            .await?;
        let answers =
            futures_util::future::join_all(taken.iter().map(|due| self.challenge(due))).await;
        let mut proven = 0;
        for (due, answer) in taken.into_iter().zip(answers) {
            proven += u64::from(answer.is_ok());
            self.record_answer(due, answer).await?;
        }
        Ok(proven)
    }

    /// The tenant asked: challenges the endpoint now, records and returns
    /// the answer (`Ok`: proven).
    pub async fn verify_ownership(
        &self,
        scope: &relay_store::Scope,
        endpoint_id: &str,
    ) -> Result<Result<(), Failure>, ProofError> {
        let (sc, id) = (scope.clone(), endpoint_id.to_string());
        let endpoint = self
            .store()
            .read(move |mut x| {
                Box::pin(async move { relay_store::endpoints::get(&mut x, &sc, &id).await })
            })
            .await
            .map_err(ProofError::Store)?
            .ok_or(ProofError::NotFound)?;
        let origin = endpoint.ownership_origin.ok_or(ProofError::NotRequired)?;
        let due = Due {
            endpoint_id: endpoint.id,
            scope: scope.clone(),
            origin,
        };
        let answer = self.challenge(&due).await;
        self.record_answer(due, answer.clone())
            .await
            .map_err(ProofError::Store)?;
        Ok(answer)
    }

    /// Writes the answer; a proof tells the claim loop about the endpoints
    /// it released.
    async fn record_answer(&self, due: Due, answer: Result<(), Failure>) -> Result<(), StoreError> {
        let now = self.attempter.clock.now();
        let (d, a) = (due.clone(), answer.clone());
        let released = self
            .store()
            .write(Commit::Durable, move |mut x| {
                Box::pin(async move { ownership::record(&mut x, &d, &a, now).await })
            })
            .await?;
        match &answer {
            Ok(()) => tracing::info!(
                endpoint = %due.endpoint_id,
                origin = %due.origin,
                released = released.len(),
                "the receiver proved ownership; its endpoints' held messages are released"
            ),
            Err(f) => tracing::info!(
                endpoint = %due.endpoint_id,
                origin = %due.origin,
                code = %f.code,
                "the receiver did not prove ownership; its messages stay held"
            ),
        }
        for id in &released {
            self.endpoint_changed(id, EndpointState::Active).await;
        }
        if !released.is_empty() {
            self.promoted.notify_one();
        }
        Ok(())
    }

    /// One challenge of the endpoint's receiver, for `due.origin`.
    async fn challenge(&self, due: &Due) -> Result<(), Failure> {
        let unavailable = |what: &str| Failure::new("unavailable", what.to_string());
        let (sc, id) = (due.scope.clone(), due.endpoint_id.clone());
        let endpoint = self
            .store()
            .read(move |mut x| {
                Box::pin(async move { relay_store::endpoints::get(&mut x, &sc, &id).await })
            })
            .await
            .map_err(|_| unavailable("the endpoint could not be read now"))?
            .ok_or_else(|| unavailable("the endpoint was removed"))?;
        let a = &self.attempter;
        let built =
            a.endpoints
                .get_for(a, &endpoint, &due.scope.tenant_id)
                .await
                .map_err(|e| match e {
                    crate::attempt::Unbuilt::Unavailable(m)
                    | crate::attempt::Unbuilt::Invalid(m) => unavailable(&m),
                    crate::attempt::Unbuilt::Secret { message, .. } => unavailable(&message),
                })?;
        // The proof is recorded for `due.origin`: the challenge must go
        // there, not to a URL the endpoint moved to since it was taken, nor
        // to one an older build of it had.
        let challenged =
            relay_destinations::ownership_origin(&built.config, a.shared.https.guard());
        if challenged.as_deref() != Some(due.origin.as_str()) {
            return Err(unavailable(
                "the endpoint's URL changed; its new origin is challenged next",
            ));
        }
        let now = a.clock.now();
        let keys = built.active_keys(now);
        if keys.is_empty() {
            return Err(unavailable("the endpoint has no signing key"));
        }
        let mut random = [0u8; 16];
        getrandom::fill(&mut random).map_err(|_| unavailable("no randomness"))?;
        let webhook_id = challenge_id(u128::from_le_bytes(random));
        let webhook_timestamp = now.unix_seconds().to_string();
        let webhook_signature = signature_header(
            &keys,
            &SignedContent {
                webhook_id: &webhook_id,
                webhook_timestamp: &webhook_timestamp,
                body: b"",
            },
        );
        let challenge = OwnershipChallenge {
            webhook_id: &webhook_id,
            webhook_timestamp: &webhook_timestamp,
            webhook_signature: &webhook_signature,
            origin: &self.config().ownership_origin,
        };
        relay_destinations::challenge_ownership(&built.client, &challenge, self.config().limits)
            .await
            .unwrap_or_else(|| Err(unavailable("only HTTPS endpoints prove ownership")))
    }
}

/// The prover's slice of [`crate::EngineConfig`].
#[derive(Debug, Clone)]
pub struct ProverConfig {
    /// How often due challenges are looked for (`sweep_interval`).
    pub interval: Duration,
}

/// The prover service: a pass at once, then every `interval`.
pub struct Prover {
    dispatcher: Arc<Dispatcher>,
    config: ProverConfig,
}

impl Prover {
    pub fn new(dispatcher: Arc<Dispatcher>) -> Self {
        let config = ProverConfig {
            interval: dispatcher.config().sweep_interval,
        };
        Prover { dispatcher, config }
    }
}

impl Service for Prover {
    const NAME: &'static str = "ownership prover";
    type Config = ProverConfig;

    fn config(&self) -> &ProverConfig {
        &self.config
    }

    async fn run_once(&self) -> Result<u64, StoreError> {
        self.dispatcher.prove_due().await
    }

    async fn run(self, stop: watch::Receiver<bool>) {
        crate::service::every(self.config.interval, true, stop, || async {
            if let Err(e) = self.dispatcher.prove_due().await {
                tracing::error!(error = %e, "challenging unverified endpoints failed; the next pass retries");
            }
        })
        .await;
    }
}
