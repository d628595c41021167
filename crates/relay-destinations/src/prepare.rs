//! The generic first step of every attempt, whatever the kind: the
//! CloudEvents envelope, the delivery size limit and the Standard Webhooks
//! signature over the exact bytes sent.

use bytes::Bytes;
use relay_core::envelope::Envelope;
use relay_core::model::{Environment, Event};
use relay_core::signature::{SigningKey, sign_request};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use sha2::{Digest, Sha256};

/// A message ready to hand to a destination: the body and the signature
/// values every kind carries (HTTPS as headers, brokers as properties).
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The CloudEvents structured-mode JSON body, exactly as sent.
    pub body: Bytes,
    /// Hex SHA-256 of `body`.
    pub body_sha256: String,
    /// `webhook-id`: the event id.
    pub webhook_id: String,
    /// `webhook-timestamp`: unix seconds of the signing time.
    pub webhook_timestamp: String,
    /// `webhook-signature`: one signature per active key.
    pub webhook_signature: String,
    /// The event's type (HTTPS: `relay-event-type`).
    pub event_type: String,
    /// The event's environment (a broker's subject or routing key may name it).
    pub environment: Environment,
    /// 1-based attempt number (HTTPS: `relay-attempt`).
    pub attempt_number: i64,
}

/// What [`prepare`] needs.
pub struct Input<'a> {
    pub event: &'a Event,
    /// The CloudEvents `source` (the consumer's source).
    pub source: &'a str,
    /// The endpoint's signing keys that are active now.
    pub keys: &'a [SigningKey],
    pub attempt_number: i64,
    /// The largest body the destination is sent.
    pub max_payload_bytes: usize,
    pub now: Timestamp,
}

/// Builds, checks and signs the body. An `Err` ends the message without an
/// attempt: the event cannot be enveloped, is too large, or the endpoint has
/// no active key.
pub fn prepare(input: &Input<'_>) -> Result<Prepared, DeadLetterReason> {
    let event = input.event;
    let schema_uri = relay_core::attributes::dataschema_uri(&event.event_type, event.type_version);
    let body = Envelope::from_event(event, input.source, Some(&schema_uri))
        .to_json()
        .map_err(|_| DeadLetterReason::InvalidDestination)?;
    if body.len() > input.max_payload_bytes {
        return Err(DeadLetterReason::PayloadTooLarge);
    }
    if input.keys.is_empty() {
        return Err(DeadLetterReason::InvalidDestination);
    }
    let signed = sign_request(input.keys, &event.id, input.now, &body);
    Ok(Prepared {
        body_sha256: hex::encode(Sha256::digest(&body)),
        body: Bytes::from(body),
        webhook_id: signed.webhook_id,
        webhook_timestamp: signed.webhook_timestamp,
        webhook_signature: signed.webhook_signature,
        event_type: event.event_type.clone(),
        environment: event.environment,
        attempt_number: input.attempt_number,
    })
}
