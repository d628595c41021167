//! The payload an attempt sends: the event's `data` shaped by the endpoint
//! version its message was produced for (`relay_core::shape`).
//!
//! A shape depends on the endpoint version's settings and the event type's
//! versions' fields, which never change once written (an event type
//! version's personal-data fields excepted: they may be marked later, and
//! are read again after [`TTL_MILLIS`]), so shapes are read once per
//! (endpoint version, event type) and kept, and a message is shaped the
//! same at every attempt, resend, recovery and replay. Shaping at attempt
//! rather than at fan-out stores one copy of the data per event, not one
//! per endpoint.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use relay_core::shape::{Allow, Shape, THIN_TARGET_BYTES};
use relay_core::time::Timestamp;
use relay_store::{Claimed, ExecutorExt as _, ShapeKey, Store, endpoints};
use serde_json::value::RawValue;

use crate::metrics::Metrics;

/// How long a shape is kept before it is read again.
pub const TTL_MILLIS: i64 = 30_000;
/// Shapes kept at most; the cache is emptied beyond.
const MAX_ENTRIES: usize = 100_000;

/// Why a message's payload cannot be shaped now.
#[derive(Debug)]
pub enum ShapeError {
    /// The store could not be read: the lease expires and the attempt is
    /// made again.
    Unavailable(String),
    /// The endpoint version is not recorded, or its lists no longer parse:
    /// sending anything could send what was not meant to be sent.
    Invalid(String),
    /// The event is not meant for the endpoint's consumer
    /// (`relay_core::audience::addressed_to`): nothing is sent or shown.
    NotAddressed,
}

/// A shaped payload and what shaped it.
#[derive(Debug)]
pub struct Payload {
    /// The shaped data; `None` when the shape keeps the event's data as it
    /// is (`*`, no personal data to remove), so it is not copied.
    pub data: Option<Box<RawValue>>,
    pub endpoint_version: i64,
    pub type_version: Option<i64>,
    /// Whether the shape is thin (the type version's thin fields only).
    pub thin: bool,
}

/// A shape and whom its messages may be sent to.
struct Resolved {
    shape: Shape,
    consumer_id: String,
    consumer_kind: relay_core::model::ConsumerKind,
    audience: relay_core::audience::Audience,
}

/// Shapes by (endpoint version, event type), with the time each was read.
#[derive(Default)]
pub struct ShapeCache {
    entries: Mutex<HashMap<ShapeKey, (Timestamp, Arc<Resolved>)>>,
}

impl ShapeCache {
    /// The payload `c`'s attempt sends instead of the event's whole data;
    /// `None` sends the whole data (a message produced before endpoint
    /// versions). Relay's built-in types are shaped by their built-in
    /// fields (`relay_core::operational::type_fields`).
    /// [`ShapeError::NotAddressed`] when the event is not meant for the
    /// endpoint's consumer: nothing may be sent.
    pub async fn payload(
        &self,
        store: &dyn Store,
        c: &Claimed,
        now: Timestamp,
        metrics: &Metrics,
    ) -> Result<Option<Payload>, ShapeError> {
        let payload = self
            .payload_of(store, &c.tenant_id, &c.message, &c.endpoint, &c.event, now)
            .await?;
        if let Some(Payload {
            data: Some(data),
            type_version,
            thin: true,
            ..
        }) = &payload
            && data.get().len() > THIN_TARGET_BYTES
        {
            metrics
                .thin_payloads_oversize
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            tracing::warn!(
                event_type = %c.event.event_type,
                type_version = type_version,
                bytes = data.get().len(),
                "a thin payload is over 20 kB: the event type version's thin fields should name identifiers only"
            );
        }
        Ok(payload)
    }

    /// The payload `message` of `endpoint` (an endpoint of `tenant_id`)
    /// carries of `event`: what [`ShapeCache::payload`] sends, for whoever
    /// shows it (the portal shows a consumer what its endpoint got).
    pub async fn payload_of(
        &self,
        store: &dyn Store,
        tenant_id: &str,
        message: &relay_core::model::Message,
        endpoint: &relay_core::model::Endpoint,
        event: &relay_core::model::Event,
        now: Timestamp,
    ) -> Result<Option<Payload>, ShapeError> {
        // A message produced before endpoint versions is checked against
        // the endpoint's current version (an endpoint's consumer never
        // changes), then sent whole.
        let endpoint_version = message.endpoint_version.unwrap_or(endpoint.version);
        let key = ShapeKey {
            tenant_id: tenant_id.to_string(),
            environment: message.environment,
            endpoint_id: endpoint.id.clone(),
            endpoint_version,
            event_type: event.event_type.clone(),
        };
        let resolved = self.shape(store, key, now).await?;
        let addressed = relay_core::audience::addressed_to(
            &relay_core::audience::Sent {
                event_type: &event.event_type,
                consumer_id: event.consumer_id.as_deref(),
                audience: resolved.audience,
            },
            &relay_core::audience::Recipient {
                consumer_id: &resolved.consumer_id,
                kind: resolved.consumer_kind,
            },
        );
        if !addressed {
            return Err(ShapeError::NotAddressed);
        }
        if message.endpoint_version.is_none() {
            return Ok(None);
        }
        let shape = &resolved.shape;
        if shape.allow == Allow::Everything
            && (shape.allow_personal_data || shape.personal.is_empty())
        {
            return Ok(Some(Payload {
                data: None,
                endpoint_version,
                type_version: shape.type_version,
                thin: false,
            }));
        }
        let data = shape
            .apply(event.data.get())
            .and_then(RawValue::from_string)
            .map_err(|e| ShapeError::Invalid(format!("the event's data cannot be shaped: {e}")))?;
        Ok(Some(Payload {
            data: Some(data),
            endpoint_version,
            type_version: shape.type_version,
            thin: shape.allow == Allow::thin(),
        }))
    }

    async fn shape(
        &self,
        store: &dyn Store,
        key: ShapeKey,
        now: Timestamp,
    ) -> Result<Arc<Resolved>, ShapeError> {
        let cached = self.entries.lock().ok().and_then(|map| {
            map.get(&key)
                .filter(|(at, _)| now.0.saturating_sub(at.0) < TTL_MILLIS)
                .map(|(_, s)| s.clone())
        });
        if let Some(shape) = cached {
            return Ok(shape);
        }
        let wanted = key.clone();
        let source = store
            .read(move |mut x| {
                Box::pin(async move { endpoints::shape_source(&mut x, &wanted).await })
            })
            .await
            .map_err(|e| ShapeError::Unavailable(e.to_string()))?
            .ok_or_else(|| {
                ShapeError::Invalid(format!(
                    "endpoint version {} of {} is not recorded",
                    key.endpoint_version, key.endpoint_id
                ))
            })?;
        let v = &source.endpoint;
        let built_in: Vec<_> = relay_core::operational::type_fields(&key.event_type)
            .into_iter()
            .collect();
        let types = if built_in.is_empty() {
            &source.type_versions
        } else {
            &built_in
        };
        let shape = Shape::resolve(
            &v.snapshot_fields,
            v.allow_personal_data,
            v.event_type_versions.get(&key.event_type).copied(),
            v.started_at,
            types,
        )
        .map_err(|e| ShapeError::Invalid(format!("a stored field list does not parse: {e}")))?;
        let shape = Arc::new(Resolved {
            shape,
            consumer_id: source.consumer_id,
            consumer_kind: source.consumer_kind,
            audience: source.audience,
        });
        if let Ok(mut map) = self.entries.lock() {
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
            map.insert(key, (now, shape.clone()));
        }
        Ok(shape)
    }
}
