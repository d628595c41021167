//! The generic first step of every attempt, whatever the kind: the
//! CloudEvent in the endpoint's content mode, the delivery size limit and the
//! Standard Webhooks signature over the exact body sent.

use bytes::Bytes;
use relay_core::envelope::{CONTENT_TYPE, DATA_CONTENT_TYPE, Envelope};
use relay_core::model::{ContentMode, Environment, Event};
use relay_core::signature::{SigningKey, sign_request};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

/// A message ready to hand to a destination: the body and the signature
/// values every kind carries (HTTPS as headers, brokers as headers,
/// properties or fields).
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The body exactly as sent and signed: the CloudEvents structured JSON,
    /// or in binary mode the event's `data`.
    pub body: Bytes,
    /// The body's content type: `application/cloudevents+json`
    /// (structured) or the `datacontenttype` (binary).
    pub content_type: &'static str,
    pub content_mode: ContentMode,
    /// Binary mode: the CloudEvents context attributes (`datacontenttype`
    /// included), in order, for the kind's binding to name (`ce-id`,
    /// `cloudEvents_id`, …). Empty in structured mode.
    pub attributes: Vec<(&'static str, String)>,
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
    /// The event's ordering key: the one it was published with, else its
    /// subject. Kinds that partition map it to their partition key.
    pub ordering_key: Option<String>,
    /// 1-based attempt number (HTTPS: `relay-attempt`).
    pub attempt_number: i64,
    /// The W3C `traceparent` the delivery carries (HTTPS: the `traceparent`
    /// header): the event's, or with traces on, the attempt span's
    /// (`relay_engine::telemetry`). `prepare` sets the event's.
    pub traceparent: Option<String>,
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
    pub content_mode: ContentMode,
    pub now: Timestamp,
    /// The endpoint version's shape of the event's `data`
    /// (`relay_core::shape`); `None` sends the whole data (messages produced
    /// before endpoint versions, Relay's operational events).
    pub shaped: Option<Shaped<'a>>,
}

/// A payload shaped by an endpoint version.
#[derive(Debug, Clone, Copy)]
pub struct Shaped<'a> {
    /// The projection of the event's `data`.
    pub data: &'a RawValue,
    /// The endpoint version that shaped it (the `endpointversion` extension).
    pub endpoint_version: i64,
}

/// Builds, checks and signs the body. An `Err` ends the message without an
/// attempt: the event cannot be enveloped, is too large, or the endpoint has
/// no active key.
pub fn prepare(input: &Input<'_>) -> Result<Prepared, DeadLetterReason> {
    let event = input.event;
    // `dataschema` names a schema the delivered `data` satisfies: the
    // event's own type version when the data goes whole; a projection
    // (thin fields, an allow list, personal data removed) satisfies no
    // schema of the catalog, so it names none (docs/payloads.md).
    let whole = input
        .shaped
        .is_none_or(|s| s.data.get() == event.data.get());
    let schema_uri = relay_core::attributes::dataschema_uri(&event.event_type, event.type_version);
    let mut envelope = Envelope::from_event(event, input.source, whole.then_some(&*schema_uri));
    if let Some(shaped) = input.shaped {
        envelope.data = Some(shaped.data);
        envelope.endpoint_version = Some(shaped.endpoint_version);
    }
    let data = envelope.data.unwrap_or(&event.data);
    let (body, content_type, attributes) = match input.content_mode {
        ContentMode::Structured => (envelope.to_json(), CONTENT_TYPE, Vec::new()),
        ContentMode::Binary => match envelope.attributes() {
            Ok(attributes) => (
                Ok(data.get().as_bytes().to_vec()),
                DATA_CONTENT_TYPE,
                attributes,
            ),
            Err(e) => (Err(e), DATA_CONTENT_TYPE, Vec::new()),
        },
    };
    let body = body.map_err(|_| DeadLetterReason::InvalidDestination)?;
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
        content_type,
        content_mode: input.content_mode,
        attributes,
        webhook_id: signed.webhook_id,
        webhook_timestamp: signed.webhook_timestamp,
        webhook_signature: signed.webhook_signature,
        event_type: event.event_type.clone(),
        environment: event.environment,
        ordering_key: event.ordering_key.clone().or_else(|| event.subject.clone()),
        attempt_number: input.attempt_number,
        traceparent: Some(event.traceparent.clone()).filter(|t| !t.is_empty()),
    })
}

#[cfg(test)]
mod tests;
