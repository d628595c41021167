//! One attempt at one leased message: envelope, signature, the guarded POST,
//! classification, and the completion to store.
//!
//! Bytes (the HTTP exchange in `relay-net`) are kept apart from meaning (the
//! outcome from `relay_core::response::classify` and the new message columns
//! from `relay_core::transition::apply`). This module only wires them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use relay_core::envelope::{CONTENT_TYPE, Envelope};
use relay_core::id::IdKind;
use relay_core::model::{Attempt, AttemptTrigger, Destination};
use relay_core::response::{
    AttemptContext, AttemptResult, HealthWarning, Outcome, ResponseHeaders, TransportError,
    classify,
};
use relay_core::retry::RetrySchedule;
use relay_core::sealed::MasterKey;
use relay_core::signature::{SigningKey, sign_request};
use relay_core::time::Timestamp;
use relay_core::transition::{DeadLetterReason, MessageEvent, apply};
use relay_net::{GuardError, HeaderName, HeaderValue, HttpsClient};
use relay_store::{Claimed, Completion, EndpointKeyRecord, EndpointWarning, Store, keys, new_id};
use sha2::{Digest, Sha256};
use tracing::Instrument as _;

use crate::EngineConfig;

/// An endpoint's stored keys with their opened signing keys.
type OpenedKeys = Arc<Vec<(EndpointKeyRecord, SigningKey)>>;

/// Signing keys by endpoint, opened once. An entry is reused while the
/// endpoint's `updated_at` is unchanged; key rotation must bump it.
#[derive(Default)]
pub struct KeyCache {
    entries: Mutex<HashMap<String, (Timestamp, OpenedKeys)>>,
}

impl KeyCache {
    async fn keys_for(
        &self,
        store: &dyn Store,
        master: &MasterKey,
        endpoint_id: &str,
        version: Timestamp,
    ) -> Result<OpenedKeys, String> {
        if let Ok(map) = self.entries.lock()
            && let Some((v, keys)) = map.get(endpoint_id)
            && *v == version
        {
            return Ok(keys.clone());
        }
        let records = store
            .endpoint_keys(endpoint_id)
            .await
            .map_err(|e| format!("cannot load signing keys: {e}"))?;
        let mut opened = Vec::with_capacity(records.len());
        for r in records {
            let key = keys::open(master, &r).map_err(|e| e.to_string())?;
            opened.push((r, key));
        }
        let opened = Arc::new(opened);
        if let Ok(mut map) = self.entries.lock() {
            if map.len() > 100_000 {
                map.clear();
            }
            map.insert(endpoint_id.to_string(), (version, opened.clone()));
        }
        Ok(opened)
    }
}

/// The error kind of a failed exchange, for classification.
fn transport_error(e: &GuardError) -> Option<TransportError> {
    Some(match e.kind() {
        "dns" => TransportError::Dns,
        "blocked_address" => TransportError::BlockedAddress,
        "connect" => TransportError::Connect,
        "timeout" => TransportError::Timeout,
        "tls" => TransportError::Tls,
        "http" => TransportError::Protocol,
        // invalid_url, scheme_not_allowed, port_not_allowed, credentials_in_url:
        // the destination itself is no longer acceptable.
        _ => return None,
    })
}

/// Ends a claimed message without an HTTP attempt.
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
        health: relay_core::circuit::Signal::Neutral,
        warning: None,
        now,
    })
}

/// Everything one attempt needs, shared by all attempts.
pub struct Attempter {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn relay_core::time::Clock>,
    pub client: HttpsClient,
    pub master: MasterKey,
    pub config: EngineConfig,
    pub keys: KeyCache,
    pub metrics: Arc<crate::metrics::Metrics>,
}

impl Attempter {
    /// Makes one attempt at `c` and returns what to store. `None` only when
    /// the message's state makes no transition legal (never for a fresh lease).
    pub async fn attempt(&self, c: &Claimed, trigger: AttemptTrigger) -> Option<Completion> {
        let owner = self.config.owner.as_str();
        let manual = trigger == AttemptTrigger::Manual;
        let now = self.clock.now();
        if c.event.expires_at.is_some_and(|t| t <= now) {
            self.metrics.count_outcome("expired");
            return end_without_attempt(c, owner, MessageEvent::TtlExpired, now, manual);
        }
        let Destination::Https(https) = &c.endpoint.destination;
        let schema_uri =
            relay_core::attributes::dataschema_uri(&c.event.event_type, c.event.type_version);
        let body = match Envelope::from_event(&c.event, &c.source, Some(&schema_uri)).to_json() {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(message = %c.message.id, error = %e, "the event cannot be enveloped");
                self.metrics.count_outcome("dead_lettered");
                return end_without_attempt(
                    c,
                    owner,
                    MessageEvent::DeadLetter(DeadLetterReason::InvalidDestination),
                    now,
                    manual,
                );
            }
        };
        if body.len() > self.config.max_payload_bytes {
            self.metrics.count_outcome("dead_lettered");
            return end_without_attempt(
                c,
                owner,
                MessageEvent::DeadLetter(DeadLetterReason::PayloadTooLarge),
                now,
                manual,
            );
        }
        let signing = match self
            .keys
            .keys_for(
                &*self.store,
                &self.master,
                &c.endpoint.id,
                c.endpoint.updated_at,
            )
            .await
        {
            Ok(k) => k,
            Err(e) => {
                // Retried through the lease: a store hiccup must not end the message.
                tracing::warn!(endpoint = %c.endpoint.id, error = %e, "signing keys unavailable; the lease will expire and the message be retried");
                return None;
            }
        };
        let active: Vec<SigningKey> = signing
            .iter()
            .filter(|(r, _)| r.retires_at.is_none_or(|t| t > now))
            .map(|(_, k)| k.clone())
            .collect();
        if active.is_empty() {
            self.metrics.count_outcome("dead_lettered");
            return end_without_attempt(
                c,
                owner,
                MessageEvent::DeadLetter(DeadLetterReason::InvalidDestination),
                now,
                manual,
            );
        }
        let signed = sign_request(&active, &c.event.id, now, &body);
        let attempt_number = c.message.attempts_used + c.message.deferrals_used + 1;
        let mut headers: Vec<(HeaderName, HeaderValue)> = Vec::with_capacity(6);
        let mut header = |name: &'static str, value: &str| {
            if let Ok(v) = HeaderValue::from_str(value) {
                headers.push((HeaderName::from_static(name), v));
            }
        };
        header("content-type", CONTENT_TYPE);
        header("webhook-id", &signed.webhook_id);
        header("webhook-timestamp", &signed.webhook_timestamp);
        header("webhook-signature", &signed.webhook_signature);
        header("relay-event-type", &c.event.event_type);
        header("relay-attempt", &attempt_number.to_string());
        let body_sha256 = hex::encode(Sha256::digest(&body));

        let span = tracing::info_span!(
            "attempt",
            tenant = %c.tenant_id,
            endpoint = %c.endpoint.id,
            message = %c.message.id,
            event = %c.event.id,
            attempt = attempt_number
        );
        let started = Instant::now();
        self.metrics
            .in_flight
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // `instrument`, not `enter`, across the await: an entered guard held
        // over an await leaks into other tasks on the worker thread and makes
        // tracing-subscriber panic ("tried to clone a span that already closed").
        let result = self
            .client
            .post_url(&https.url, headers, Bytes::from(body), self.config.limits)
            .instrument(span.clone())
            .await;
        // No await below: entering is safe from here on.
        let _entered = span.enter();
        self.metrics
            .in_flight
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        let elapsed = started.elapsed();
        self.metrics.attempt_duration.observe(elapsed.as_secs_f64());
        let finished = self.clock.now();

        // The endpoint's override as it was accepted (checked against the
        // bounds when it was set), never swapped for another schedule here.
        let schedule = RetrySchedule::stored(c.endpoint.retry_schedule_seconds.as_deref());
        let ctx = AttemptContext {
            schedule: &schedule,
            message_id: &c.message.id,
            attempts_used: u32::try_from(c.message.attempts_used).unwrap_or(u32::MAX),
            deferrals_used: u32::try_from(c.message.deferrals_used).unwrap_or(u32::MAX),
            now: finished,
        };
        let mut record = Attempt {
            id: new_id(IdKind::Attempt, now),
            message_id: c.message.id.clone(),
            endpoint_id: c.endpoint.id.clone(),
            number: 0,
            trigger,
            started_at: now,
            duration_ms: elapsed.as_millis() as i64,
            destination_ip: None,
            status_code: None,
            error_kind: None,
            body_sha256,
            signature: signed.webhook_signature.clone(),
            response_body: None,
            outcome: String::new(),
        };
        let mut warning = None;
        let outcome = match &result {
            Ok(response) => {
                record.destination_ip = Some(response.remote_addr.ip().to_string());
                record.status_code = Some(i64::from(response.status.as_u16()));
                record.response_body =
                    Some(String::from_utf8_lossy(&response.body_prefix).into_owned());
                let pairs: Vec<(String, String)> = response
                    .headers
                    .iter()
                    .filter_map(|(n, v)| {
                        Some((n.as_str().to_string(), v.to_str().ok()?.to_string()))
                    })
                    .collect();
                classify(
                    &AttemptResult::Response {
                        status: response.status.as_u16(),
                        headers: ResponseHeaders::from_pairs(&pairs),
                    },
                    &ctx,
                )
            }
            Err(e) => {
                record.destination_ip = e.remote_addr().map(|a| a.ip().to_string());
                record.error_kind = Some(e.kind().to_string());
                match transport_error(e) {
                    Some(kind) => {
                        if kind == TransportError::BlockedAddress {
                            warning = Some(EndpointWarning {
                                endpoint_id: c.endpoint.id.clone(),
                                kind: "blocked_address".into(),
                                detail: e.to_string(),
                                at: finished,
                            });
                        }
                        classify(&AttemptResult::NoResponse(kind), &ctx)
                    }
                    None => {
                        tracing::info!(error = %e, "the destination URL is no longer allowed");
                        self.metrics.count_outcome("dead_lettered");
                        let mut completion = end_without_attempt(
                            c,
                            owner,
                            MessageEvent::DeadLetter(DeadLetterReason::InvalidDestination),
                            finished,
                            manual,
                        )?;
                        record.outcome = "dead_lettered".into();
                        completion.attempt = Some(record);
                        return Some(completion);
                    }
                }
            }
        };
        record.outcome = outcome.as_str().to_string();
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
                warning = Some(EndpointWarning {
                    endpoint_id: c.endpoint.id.clone(),
                    kind: w.code().to_string(),
                    detail: format!(
                        "the endpoint answered {status} (redirect to {}); redirects are not followed",
                        location.as_deref().unwrap_or("no Location")
                    ),
                    at: finished,
                });
            }
        }
        tracing::info!(
            outcome = outcome.as_str(),
            status = record.status_code,
            error_kind = record.error_kind.as_deref(),
            duration_ms = record.duration_ms,
            "attempt finished"
        );
        // Retried failures count against the endpoint's health, a success
        // restores it; permanent outcomes and manual failures say nothing.
        let health = match &outcome {
            Outcome::Delivered => relay_core::circuit::Signal::Success,
            Outcome::Retry { .. } | Outcome::Deferred { .. } | Outcome::Exhausted { .. }
                if !manual =>
            {
                relay_core::circuit::Signal::Failure
            }
            _ => relay_core::circuit::Signal::Neutral,
        };
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
            health,
            warning,
            now: finished,
        })
    }
}
