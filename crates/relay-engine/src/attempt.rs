//! One attempt at one leased message, the same pipeline for every
//! destination kind:
//!
//! 1. **prepare** (generic): envelope, size limit, signatures
//!    ([`relay_destinations::prepare`]);
//! 2. **deliver** (per kind): the endpoint's cached client
//!    ([`relay_destinations::Client::deliver`]);
//! 3. **classify** (per kind, pure): the result's [`Verdict`]
//!    ([`relay_destinations::Delivery::classify`]), then the schedule and
//!    deferrals ([`relay_core::outcome::resolve`], generic);
//! 4. **complete** (generic): the state transition
//!    ([`relay_core::transition::apply`]) and the attempt record, handed to
//!    the completer.
//!
//! This module only wires them; `cache` keeps what each endpoint's
//! attempts reuse (built client and opened signing keys, rebuilt when the
//! endpoint changes).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use relay_core::id::IdKind;
use relay_core::model::{Attempt, AttemptTrigger, WarningKind};
use relay_core::outcome::{
    AttemptContext, AttemptOutcome, FailureCode, HealthWarning, Outcome, Resolved, Verdict, resolve,
};
use relay_core::retry::RetrySchedule;
use relay_core::sealed::MasterKey;
use relay_core::secret::{SecretRef, Secrets};
use relay_core::signature::SigningKey;
use relay_core::time::Timestamp;
use relay_core::transition::{DeadLetterReason, MessageEvent, apply};
use relay_destinations::{Client, Config, Shared};
use relay_net::ErrorKind;
use relay_store::{
    Claimed, Completion, EndpointKeyRecord, EndpointWarning, Scope, Store, keys, new_id,
};
use tracing::Instrument as _;

use crate::EngineConfig;

mod cache;

use cache::active_keys;
pub(crate) use cache::{EndpointCache, Unbuilt};

/// The metrics' label of `c`'s destination kind.
fn kind_label(c: &Claimed) -> &'static str {
    Config::kind_named(c.endpoint.destination.kind()).unwrap_or("unknown")
}

/// Ends a claimed message without an attempt at the destination.
fn end_without_attempt(
    c: &Claimed,
    owner: &str,
    event: MessageEvent,
    now: Timestamp,
    manual: bool,
) -> Option<Completion> {
    let progress = match apply(&c.progress(), &event, now) {
        Ok(p) => p,
        Err(e) => {
            tracing::error!(message = %c.message.id, error = %e, "illegal transition for a leased message");
            return None;
        }
    };
    Some(Completion {
        message_id: c.message.id.clone(),
        tenant_id: c.tenant_id.clone(),
        environment: c.message.environment,
        lease_owner: owner.to_string(),
        lease_version: c.lease_version,
        progress,
        attempt: None,
        disable_endpoint: false,
        manual,
        ordered: c.message.ordering_key.is_some(),
        event_type_version: None,
        health: relay_core::circuit::Signal::Neutral,
        warning: None,
        now,
    })
}

/// What is known of one attempt at a message once it was made, for
/// [`Attempter::conclude`].
#[derive(Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub c: &'a Claimed,
    pub trigger: AttemptTrigger,
    pub started_at: Timestamp,
    pub elapsed: std::time::Duration,
    pub finished: Timestamp,
    /// Of the bytes sent (a batch: its object).
    pub body_sha256: &'a str,
    pub signature: &'a str,
    /// Whose jitter the retry schedule uses: the message's id; for the
    /// members of a batch, the batch's id, so they stay
    /// due together.
    pub jitter_key: &'a str,
}

/// Everything one attempt needs, shared by all attempts.
pub struct Attempter {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn relay_core::time::Clock>,
    /// What every kind's client is built from.
    pub shared: Shared,
    pub master: MasterKey,
    pub config: EngineConfig,
    pub endpoints: EndpointCache,
    /// Endpoint versions' shapes of event data.
    pub shapes: crate::shapes::ShapeCache,
    /// Resolves endpoints' secret references (`config.secrets` is its policy).
    pub resolver: crate::secrets::Resolver,
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Batching endpoints' open batches (`crate::batches`).
    pub batches: crate::batches::Batches,
    /// Where attempt spans go (`crate::telemetry`); unset: traces off.
    pub tracer: std::sync::OnceLock<crate::telemetry::Tracer>,
}

impl Attempter {
    /// Makes one attempt at `c` and returns what to store. `None` when
    /// the message's state makes no transition legal (never for a fresh
    /// lease), or the endpoint's keys cannot be loaded (the lease expires and
    /// the message is tried again), or the message joined its batching
    /// endpoint's open batch, which completes it when it is written
    /// (`crate::batches`).
    pub async fn attempt(&self, c: &Claimed, trigger: AttemptTrigger) -> Option<Completion> {
        let owner = self.config.owner.as_str();
        let manual = trigger == AttemptTrigger::Manual;
        let now = self.clock.now();
        if c.event.expires_at.is_some_and(|t| t <= now) {
            self.metrics.count_outcome("expired");
            self.metrics
                .count_attempt(kind_label(c), "expired", None, &c.tenant_id);
            return end_without_attempt(c, owner, MessageEvent::TtlExpired, now, manual);
        }
        let dead_letter = |reason: DeadLetterReason| {
            self.metrics
                .count_outcome(AttemptOutcome::DeadLettered.as_str());
            self.metrics.count_attempt(
                kind_label(c),
                AttemptOutcome::DeadLettered.as_str(),
                Some(reason.as_str().to_string()),
                &c.tenant_id,
            );
            end_without_attempt(c, owner, MessageEvent::DeadLetter(reason), now, manual)
        };
        let built = match self.endpoints.get(self, c).await {
            Ok(b) => Ok(b),
            Err(Unbuilt::Unavailable(e)) => {
                // Retried through the lease: a store hiccup must not end
                // the message or use up its attempts.
                tracing::warn!(endpoint = %c.endpoint.id, error = %e, "the endpoint's client cannot be built (signing keys or secrets unavailable); the lease will expire and the message be retried");
                return None;
            }
            Err(Unbuilt::Invalid(e)) => {
                tracing::warn!(message = %c.message.id, endpoint = %c.endpoint.id, error = %e, "the destination is no longer acceptable; dead-lettered");
                return dead_letter(DeadLetterReason::InvalidDestination);
            }
            Err(Unbuilt::Secret {
                message,
                keys,
                config,
            }) => Err((message, keys, config)),
        };
        let (all_keys, config) = match &built {
            Ok(b) => (&b.keys, &b.config),
            Err((_, keys, config)) => (keys, &**config),
        };
        let active = active_keys(all_keys, now);
        let attempt_number = c.message.attempts_used + c.message.deferrals_used + 1;
        // A kind that batches (`relay_destinations::batching`): a message in
        // a stored batch is written with it again (`crate::batches`). (A
        // secret that does not resolve is recorded below as for any kind:
        // nothing is written.)
        let batching = relay_destinations::batching(config).filter(|_| built.is_ok());
        if batching.is_some() {
            match self.batch_of(c).await {
                Ok(Some(batch)) => return self.rewrite_batch(c, trigger, &batch).await,
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(message = %c.message.id, error = %e, "the message's batch cannot be read; the lease will expire and the message be retried");
                    return None;
                }
            }
        }

        // 1. prepare
        let payload = match self
            .shapes
            .payload(&*self.store, c, now, &self.metrics)
            .await
        {
            Ok(p) => p,
            Err(crate::shapes::ShapeError::Unavailable(e)) => {
                tracing::warn!(message = %c.message.id, error = %e, "the payload's shape cannot be read; the lease will expire and the message be retried");
                return None;
            }
            Err(crate::shapes::ShapeError::Invalid(e)) => {
                tracing::warn!(message = %c.message.id, error = %e, "the payload cannot be shaped; dead-lettered");
                return dead_letter(DeadLetterReason::InvalidDestination);
            }
            Err(crate::shapes::ShapeError::NotAddressed) => {
                tracing::warn!(message = %c.message.id, endpoint = %c.endpoint.id, event_type = %c.event.event_type, "the event is not meant for the endpoint's consumer; dead-lettered unsent");
                return dead_letter(DeadLetterReason::NotAddressed);
            }
        };
        let mut prepared = match relay_destinations::prepare(&relay_destinations::Input {
            event: &c.event,
            source: &c.source,
            keys: &active,
            attempt_number,
            max_payload_bytes: self.config.max_payload_bytes,
            content_mode: config.content_mode(),
            now,
            // An A2A push endpoint's body is the task's StreamResponse as
            // published and checked (`relay_core::a2a`): never a projection.
            shaped: payload
                .as_ref()
                .filter(|_| config.profile() == relay_core::model::Profile::CloudEvents)
                .map(|p| relay_destinations::Shaped {
                    data: p.data.as_deref().unwrap_or(&c.event.data),
                    endpoint_version: p.endpoint_version,
                }),
        }) {
            Ok(p) => p,
            Err(reason) => {
                tracing::warn!(message = %c.message.id, reason = reason.as_str(), "the message cannot be prepared; dead-lettered");
                return dead_letter(reason);
            }
        };
        // What the destination kind cannot carry is known now: dead-lettered
        // unsent, no attempt made or recorded (docs/state-machine.md, rule 11).
        if let Err(unfit) = relay_destinations::admit(config, &prepared) {
            tracing::warn!(message = %c.message.id, endpoint = %c.endpoint.id, reason = unfit.reason().as_str(), error = %unfit, "the destination cannot carry the message; dead-lettered unsent");
            return dead_letter(unfit.reason());
        }

        if let Some(policy) = batching {
            // Written with its batch, which completes it (or, manual, now).
            let line = built.as_ref().ok()?.client.batch_line(&prepared)?;
            return self.join_batch(c, trigger, line, &policy).await;
        }

        // 2. deliver (with traces on, the attempt span's `traceparent`)
        let traced = crate::telemetry::attempt_trace(self.tracer.get(), c);
        if let Some((trace, span_id)) = &traced {
            prepared.traceparent = Some(trace.stored.child(*span_id).to_string());
        }
        let span = tracing::info_span!(
            "attempt",
            tenant = %c.tenant_id,
            endpoint = %c.endpoint.id,
            message = %c.message.id,
            event = %c.event.id,
            kind = kind_label(c),
            attempt = attempt_number
        );
        let started = Instant::now();
        let delivery = match &built {
            Ok(built) => {
                self.metrics
                    .in_flight
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                // `instrument`, not `enter`, across the await: an entered guard held
                // over an await leaks into other tasks on the worker thread and makes
                // tracing-subscriber panic ("tried to clone a span that already closed").
                let delivery = built
                    .client
                    .deliver(&prepared, self.config.limits)
                    .instrument(span.clone())
                    .await;
                self.metrics
                    .in_flight
                    .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                Some(delivery)
            }
            Err(_) => None,
        };
        // No await below: entering is safe from here on.
        let _entered = span.enter();
        let elapsed = started.elapsed();
        self.metrics.attempt_duration.observe(elapsed.as_secs_f64());
        let finished = self.clock.now();

        // 3. classify
        let (verdict, recorded) = match (&delivery, &built) {
            (Some(d), _) => (d.classify(finished), d.record()),
            // Nothing was sent: the attempt is recorded as a retried
            // failure, so the schedule, the endpoint's health and the
            // tenant's view all see it (before, the lease expired again
            // and again without using an attempt).
            (None, built) => {
                let message = built.as_ref().err().map_or("", |(m, _, _)| m.as_str());
                tracing::warn!(error = %message, "a secret reference of the endpoint did not resolve; nothing was sent");
                (
                    Verdict::Retry {
                        code: FailureCode::SecretUnresolved,
                        not_before: None,
                    },
                    relay_destinations::Record {
                        destination: None,
                        error: None,
                        detail: serde_json::json!({ "secret": message }),
                    },
                )
            }
        };
        let facts = Facts {
            c,
            trigger,
            started_at: now,
            elapsed,
            finished,
            body_sha256: &prepared.body_sha256,
            signature: &prepared.webhook_signature,
            jitter_key: &c.message.id,
        };
        // Nothing sent because a secret reference did not resolve, or a
        // token endpoint that refused the client: the endpoint is warned.
        let warning = match (&built, &delivery) {
            (Err((message, _, _)), _) => {
                Some((WarningKind::SecretUnresolved, message.clone()))
            }
            (Ok(_), Some(d)) => d.health_warning().and_then(|w| match w {
                HealthWarning::TokenRefused { failure } => Some((
                    w.kind(),
                    format!(
                        "the OAuth 2.0 token endpoint refused the endpoint's client credentials or token request ({failure}); its messages are retried on the schedule until the configuration is fixed"
                    ),
                )),
                _ => None,
            }),
            _ => None,
        };
        // The message records the type version that shaped what was sent.
        let type_version = payload.as_ref().and_then(|p| p.type_version);
        let completion = self
            .conclude(&facts, verdict, &recorded, warning)
            .map(|completion| Completion {
                event_type_version: type_version,
                ..completion
            });
        if let (Some(tracer), Some((trace, span_id))) = (self.tracer.get(), traced) {
            tracer.export(
                crate::telemetry::AttemptSpan {
                    c,
                    trace,
                    span_id,
                    trigger,
                    attempt_number,
                    started: now,
                    elapsed,
                    record: completion.as_ref().and_then(|c| c.attempt.as_ref()),
                }
                .span(),
            );
        }
        completion
    }

    /// Steps 3 and 4 of one attempt at `facts.c` whose result `verdict`
    /// and record `recorded` are known: the schedule and deferrals, the
    /// state transition, the attempt record, the completion to store.
    /// `warning`: the endpoint warning (kind, detail) the attempt calls for
    /// beside its record (a secret reference that did not resolve, a token
    /// endpoint that refused the client).
    pub(crate) fn conclude(
        &self,
        facts: &Facts<'_>,
        verdict: Verdict,
        recorded: &relay_destinations::Record,
        warning: Option<(WarningKind, String)>,
    ) -> Option<Completion> {
        let Facts {
            c,
            trigger,
            finished,
            ..
        } = *facts;
        let owner = self.config.owner.as_str();
        let manual = trigger == AttemptTrigger::Manual;
        // The endpoint's override as it was accepted (checked against the
        // bounds when it was set), never swapped for another schedule here.
        let schedule = RetrySchedule::stored(c.endpoint.retry_schedule_seconds.as_deref());
        let ctx = AttemptContext {
            schedule: &schedule,
            message_id: facts.jitter_key,
            attempts_used: u32::try_from(c.message.attempts_used).unwrap_or(u32::MAX),
            deferrals_used: u32::try_from(c.message.deferrals_used).unwrap_or(u32::MAX),
            now: finished,
        };
        let resolved = resolve(verdict, &ctx);
        // A workflow step's message keeps nothing of the receiver's answer
        // but its status code: not its body, headers or redirect target, in
        // the record, the endpoint's warnings or the log
        // (`relay_core::workflow::withheld_detail`).
        let withheld;
        let recorded = if c.withhold_answer {
            withheld = relay_destinations::Record {
                destination: recorded.destination,
                error: recorded.error.clone(),
                detail: relay_core::workflow::withheld_detail(&recorded.detail),
            };
            &withheld
        } else {
            recorded
        };
        let record = self.record(facts, recorded, &resolved);
        self.metrics.count_attempt(
            kind_label(c),
            record.outcome.as_str(),
            match &resolved {
                Resolved::DeadLetter(reason) => Some(reason.as_str().to_string()),
                Resolved::Complete(_) => record.error_code.map(|e| e.to_string()),
            },
            &c.tenant_id,
        );
        let blocked = recorded.error.as_ref().and_then(|(kind, text)| {
            (*kind == ErrorKind::BlockedAddress).then(|| EndpointWarning {
                endpoint_id: c.endpoint.id.clone(),
                kind: WarningKind::BlockedAddress,
                detail: text.clone(),
                at: finished,
            })
        });
        let mut warning = warning
            .map(|(kind, detail)| EndpointWarning {
                endpoint_id: c.endpoint.id.clone(),
                kind,
                detail,
                at: finished,
            })
            .or(blocked);

        // 4. complete
        let outcome = match resolved {
            Resolved::DeadLetter(reason) => {
                tracing::info!(
                    reason = reason.as_str(),
                    error_kind = record.error_kind.as_ref().map(tracing::field::display),
                    "the destination is no longer acceptable; dead-lettered"
                );
                self.metrics
                    .count_outcome(AttemptOutcome::DeadLettered.as_str());
                let mut completion = end_without_attempt(
                    c,
                    owner,
                    MessageEvent::DeadLetter(reason),
                    finished,
                    manual,
                )?;
                completion.attempt = Some(record);
                return Some(completion);
            }
            Resolved::Complete(outcome) => outcome,
        };
        self.metrics.count_outcome(outcome.as_str());
        if outcome.is_success() {
            let latency = (finished.millis() - c.event.created_at.millis()) as f64 / 1000.0;
            self.metrics.delivery_latency.observe(latency);
        }
        let mut disable_endpoint = false;
        if let Outcome::Permanent {
            disable_endpoint: disable,
            health_warning,
            ..
        } = &outcome
        {
            disable_endpoint = *disable;
            if let Some(w @ HealthWarning::RedirectNotFollowed { status, location }) =
                health_warning
            {
                let target = match location {
                    _ if c.withhold_answer => {
                        "its target not recorded: a workflow step's answer is withheld".to_string()
                    }
                    Some(l) => format!("redirect to {l}"),
                    None => "redirect to no Location".to_string(),
                };
                warning = Some(EndpointWarning {
                    endpoint_id: c.endpoint.id.clone(),
                    kind: w.kind(),
                    detail: format!(
                        "the endpoint answered {status} ({target}); redirects are not followed"
                    ),
                    at: finished,
                });
            }
        }
        tracing::info!(
            outcome = outcome.as_str(),
            status = record.status_code,
            error_code = record.error_code.map(tracing::field::display),
            error_kind = record.error_kind.as_ref().map(tracing::field::display),
            duration_ms = record.duration_ms,
            "attempt finished"
        );
        // What the attempt says of the endpoint's health (the breaker and
        // the automatic-disable clock): relay_core's rule.
        let health = relay_core::circuit::Signal::of(&outcome, manual);
        let event = if manual {
            MessageEvent::CompleteManual(outcome)
        } else {
            MessageEvent::Complete(outcome)
        };
        let progress = match apply(&c.progress(), &event, finished) {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(error = %e, "illegal transition for a leased message");
                return None;
            }
        };
        Some(Completion {
            message_id: c.message.id.clone(),
            tenant_id: c.tenant_id.clone(),
            environment: c.message.environment,
            lease_owner: owner.to_string(),
            lease_version: c.lease_version,
            progress,
            attempt: Some(record),
            disable_endpoint,
            manual,
            ordered: c.message.ordering_key.is_some(),
            event_type_version: None,
            health,
            warning,
            now: finished,
        })
    }

    /// The attempt record, the same fields for every kind.
    fn record(
        &self,
        facts: &Facts<'_>,
        recorded: &relay_destinations::Record,
        resolved: &Resolved,
    ) -> Attempt {
        let c = facts.c;
        let (outcome, error_code) = match resolved {
            Resolved::Complete(o) => (AttemptOutcome::from(o), o.error_code()),
            Resolved::DeadLetter(_) => (AttemptOutcome::DeadLettered, None),
        };
        let detail = recorded.detail.clone();
        let (status_code, response_body, response_body_encoding) =
            relay_core::model::https_fields(&detail);
        Attempt {
            id: new_id(IdKind::Attempt, facts.started_at),
            message_id: c.message.id.clone(),
            endpoint_id: c.endpoint.id.clone(),
            number: 0,
            trigger: facts.trigger,
            started_at: facts.started_at,
            duration_ms: facts.elapsed.as_millis() as i64,
            destination_ip: recorded.destination.map(|a| a.ip().to_string()),
            status_code,
            error_kind: recorded.error.as_ref().map(|(k, _)| (*k).into()),
            error_code,
            body_sha256: facts.body_sha256.to_string(),
            signature: facts.signature.to_string(),
            response_body,
            response_body_encoding,
            outcome,
            detail,
        }
    }
}
