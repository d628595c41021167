//! The two spans Relay makes, and what each may carry.
//!
//! - `relay.publish` (server): a child of the publisher's span when the
//!   publish carried a `traceparent`, else the root of a new trace; its id
//!   is [`relay_core::traceparent::publish_span_id`] of the event, so the
//!   dispatcher finds it again from the stored event.
//! - `relay.attempt` (client for HTTPS, producer for brokers): a child of
//!   the publish span, linked to the publisher's span when there was one;
//!   its id is what the HTTPS delivery's `traceparent` header carries, so a
//!   consumer's span joins the trace under the attempt.

use std::time::Duration;

use relay_core::model::{Attempt, AttemptTrigger};
use relay_core::outcome::AttemptOutcome;
use relay_core::time::Timestamp;
use relay_core::traceparent::{TraceParent, publish_span_id};
use relay_store::Claimed;

use super::{Attr, Link, SpanData, SpanKind, Status};

/// A new random span id (never all zeros).
pub fn new_span_id() -> [u8; 8] {
    let mut id = [0u8; 8];
    let _ = getrandom::fill(&mut id);
    if id == [0; 8] {
        id[7] = 1;
    }
    id
}

fn unix_nanos(t: Timestamp, plus: Duration) -> u64 {
    u64::try_from(t.millis())
        .unwrap_or(0)
        .saturating_mul(1_000_000)
        .saturating_add(u64::try_from(plus.as_nanos()).unwrap_or(u64::MAX))
}

/// Where an event's trace stands: its stored `traceparent`, the publish
/// span's id, and the publisher's span when the publish carried one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventTrace {
    pub stored: TraceParent,
    pub publish_span: [u8; 8],
    /// `None` when Relay began the trace (the stored parent is the publish span).
    pub publisher: Option<TraceParent>,
}

impl EventTrace {
    /// The trace of an event of `tenant_id`/`environment` with the id
    /// `event_id` and the stored `traceparent`; `None` when it has none
    /// that parses.
    pub fn of(
        tenant_id: &str,
        environment: &str,
        event_id: &str,
        traceparent: &str,
    ) -> Option<EventTrace> {
        let stored = TraceParent::parse(traceparent).ok()?;
        let publish_span = publish_span_id(tenant_id, environment, event_id, &stored.trace_id);
        Some(EventTrace {
            stored,
            publish_span,
            publisher: (stored.parent_id != publish_span).then_some(stored),
        })
    }
}

/// What the API knows of one publish.
pub struct PublishSpan<'a> {
    pub tenant_id: &'a str,
    pub environment: &'a str,
    pub event_id: &'a str,
    pub event_type: &'a str,
    pub trace: EventTrace,
    pub started: Timestamp,
    pub elapsed: Duration,
    pub messages_created: u64,
    /// A publish of an id already stored: the span gets an id of its own
    /// (the first publish's span has the derived one).
    pub duplicate: bool,
}

impl PublishSpan<'_> {
    pub fn span(&self) -> SpanData {
        SpanData {
            trace_id: self.trace.stored.trace_id,
            span_id: if self.duplicate {
                new_span_id()
            } else {
                self.trace.publish_span
            },
            parent_span_id: self.trace.publisher.map(|p| p.parent_id),
            name: "relay.publish",
            kind: SpanKind::Server,
            start_unix_nanos: unix_nanos(self.started, Duration::ZERO),
            end_unix_nanos: unix_nanos(self.started, self.elapsed),
            attributes: vec![
                ("relay.tenant_id", Attr::Str(self.tenant_id.into())),
                ("relay.environment", Attr::Str(self.environment.into())),
                ("relay.event_id", Attr::Str(self.event_id.into())),
                ("relay.event_type", Attr::Str(self.event_type.into())),
                (
                    "relay.messages_created",
                    Attr::Int(i64::try_from(self.messages_created).unwrap_or(i64::MAX)),
                ),
                ("relay.duplicate", Attr::Bool(self.duplicate)),
            ],
            links: Vec::new(),
            status: Status::Unset,
            flags: self.trace.stored.flags,
        }
    }
}

/// What the dispatcher knows of one attempt once it was made.
pub struct AttemptSpan<'a> {
    pub c: &'a Claimed,
    pub trace: EventTrace,
    pub span_id: [u8; 8],
    pub trigger: AttemptTrigger,
    pub attempt_number: i64,
    pub started: Timestamp,
    pub elapsed: Duration,
    /// The attempt record (`None`: the message ended without one).
    pub record: Option<&'a Attempt>,
}

impl AttemptSpan<'_> {
    pub fn span(&self) -> SpanData {
        let c = self.c;
        let kind = c.endpoint.destination.kind();
        let mut attributes = vec![
            ("relay.tenant_id", Attr::Str(c.tenant_id.clone())),
            (
                "relay.environment",
                Attr::Str(c.event.environment.as_str().into()),
            ),
            ("relay.event_id", Attr::Str(c.event.id.clone())),
            ("relay.event_type", Attr::Str(c.event.event_type.clone())),
            ("relay.message_id", Attr::Str(c.message.id.clone())),
            ("relay.endpoint_id", Attr::Str(c.endpoint.id.clone())),
            ("relay.destination.kind", Attr::Str(kind.into())),
            ("relay.attempt.number", Attr::Int(self.attempt_number)),
            (
                "relay.attempt.trigger",
                Attr::Str(self.trigger.as_str().into()),
            ),
        ];
        let mut status = Status::Unset;
        if let Some(r) = self.record {
            attributes.push((
                "relay.attempt.outcome",
                Attr::Str(r.outcome.as_str().into()),
            ));
            if let Some(code) = r.error_code {
                attributes.push(("relay.error_code", Attr::Str(code.to_string())));
            }
            if let Some(kind) = &r.error_kind {
                attributes.push(("relay.error_kind", Attr::Str(kind.to_string())));
            }
            if let Some(s) = r.status_code {
                attributes.push(("http.response.status_code", Attr::Int(s)));
            }
            status = if r.outcome == AttemptOutcome::Delivered {
                Status::Ok
            } else {
                Status::Error(r.outcome.as_str())
            };
        }
        let links = self
            .trace
            .publisher
            .map(|p| Link {
                trace_id: p.trace_id,
                span_id: p.parent_id,
                flags: p.flags,
                attributes: vec![("relay.link", Attr::Str("publisher".into()))],
            })
            .into_iter()
            .collect();
        SpanData {
            trace_id: self.trace.stored.trace_id,
            span_id: self.span_id,
            parent_span_id: Some(self.trace.publish_span),
            name: "relay.attempt",
            kind: if kind == "https" {
                SpanKind::Client
            } else {
                SpanKind::Producer
            },
            start_unix_nanos: unix_nanos(self.started, Duration::ZERO),
            end_unix_nanos: unix_nanos(self.started, self.elapsed),
            attributes,
            links,
            status,
            flags: self.trace.stored.flags,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_trace_tells_relays_root_from_the_publishers_span() {
        let trace = [0x4b; 16];
        let root = publish_span_id("ten_1", "live", "evt_1", &trace);
        let ours = TraceParent {
            trace_id: trace,
            parent_id: root,
            flags: 1,
        };
        let t = EventTrace::of("ten_1", "live", "evt_1", &ours.to_string()).unwrap();
        assert_eq!((t.publish_span, t.publisher), (root, None));
        let theirs = "00-4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b-00f067aa0ba902b7-01";
        let t = EventTrace::of("ten_1", "live", "evt_1", theirs).unwrap();
        assert_eq!(t.publish_span, root);
        assert_eq!(
            t.publisher.unwrap().parent_id,
            [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]
        );
        assert!(EventTrace::of("ten_1", "live", "evt_1", "").is_none());
    }
}
