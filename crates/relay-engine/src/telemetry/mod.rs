//! OpenTelemetry traces over OTLP/HTTP (`[telemetry] otlp_endpoint`; off by
//! default): a span for each publish (made by the API) and each attempt
//! (made here), exported in batches by one task ([`start`]) through
//! `relay_net::operator`. `docs/telemetry.md` tells the trace's shape.
//!
//! What a span may carry is fixed here: attribute keys are `&'static str`
//! and the values are ids, names, kinds, codes and numbers Relay chose or
//! checked. Never a URL (its query may hold a credential), a header, the
//! event's `subject` or `data`, an error's text, or a secret.

pub mod otlp;
mod spans;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use relay_net::operator::{OperatorClient, OperatorUrl};
use tokio::sync::{mpsc, oneshot};

use crate::Metrics;

pub use otlp::Origin;
pub use spans::{AttemptSpan, EventTrace, PublishSpan, new_span_id};

/// With traces on, the trace of `c`'s event and a new span id for its
/// attempt; `None` when traces are off or the event has no trace.
pub(crate) fn attempt_trace(
    tracer: Option<&Tracer>,
    c: &relay_store::Claimed,
) -> Option<(EventTrace, [u8; 8])> {
    tracer.filter(|t| t.enabled())?;
    let trace = EventTrace::of(
        &c.tenant_id,
        c.event.environment.as_str(),
        &c.event.id,
        &c.event.traceparent,
    )?;
    Some((trace, new_span_id()))
}

/// Spans waiting to be exported; more are dropped (and counted).
const QUEUE: usize = 8192;
/// The most spans in one export request.
const MAX_BATCH: usize = 512;
/// How long a span waits at most before its batch is exported.
const FLUSH_EVERY: Duration = Duration::from_millis(500);
/// One export request's time limit.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    Str(String),
    Int(i64),
    Bool(bool),
}

/// OTLP `SpanKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    Internal = 1,
    Server = 2,
    Client = 3,
    Producer = 4,
    Consumer = 5,
}

/// OTLP `Status`.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Unset,
    Ok,
    /// The message is a stable code, never an error's text.
    Error(&'static str),
}

/// A link to a span of another (or the same) trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub flags: u8,
    pub attributes: Vec<(&'static str, Attr)>,
}

/// One finished span.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanData {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub parent_span_id: Option<[u8; 8]>,
    pub name: &'static str,
    pub kind: SpanKind,
    pub start_unix_nanos: u64,
    pub end_unix_nanos: u64,
    pub attributes: Vec<(&'static str, Attr)>,
    pub links: Vec<Link>,
    pub status: Status,
    /// W3C trace flags.
    pub flags: u8,
}

/// Where finished spans go: the exporter's queue, or nowhere when traces
/// are off. Cheap to clone.
#[derive(Clone)]
pub struct Tracer {
    queue: Option<mpsc::Sender<SpanData>>,
    metrics: Arc<Metrics>,
}

impl Tracer {
    /// A tracer that drops every span (traces off).
    pub fn off(metrics: Arc<Metrics>) -> Tracer {
        Tracer {
            queue: None,
            metrics,
        }
    }

    /// Whether spans are exported.
    pub fn enabled(&self) -> bool {
        self.queue.is_some()
    }

    /// Queues `span` for export; a full queue drops it (counted in
    /// `relay_spans_dropped_total`), never blocks the caller.
    pub fn export(&self, span: SpanData) {
        if let Some(queue) = &self.queue
            && queue.try_send(span).is_err()
        {
            self.metrics.spans_dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The running exporter: [`Exporter::finish`] exports what is queued and ends it.
pub struct Exporter {
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Exporter {
    /// Exports the spans still queued (within the export timeout) and ends
    /// the task.
    pub async fn finish(self) {
        let _ = self.stop.send(());
        let _ = tokio::time::timeout(EXPORT_TIMEOUT + Duration::from_secs(1), self.task).await;
    }
}

/// Starts the exporter posting to `url`; the tracer feeds it.
pub fn start(
    url: OperatorUrl,
    client: OperatorClient,
    origin: Origin,
    metrics: Arc<Metrics>,
) -> (Tracer, Exporter) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let (stop, stopped) = oneshot::channel();
    let sink = Sink {
        url,
        client,
        origin,
        metrics: metrics.clone(),
    };
    let task = tokio::spawn(sink.run(rx, stopped));
    (
        Tracer {
            queue: Some(tx),
            metrics,
        },
        Exporter { stop, task },
    )
}

struct Sink {
    url: OperatorUrl,
    client: OperatorClient,
    origin: Origin,
    metrics: Arc<Metrics>,
}

impl Sink {
    async fn run(self, mut rx: mpsc::Receiver<SpanData>, mut stopped: oneshot::Receiver<()>) {
        let mut batch: Vec<SpanData> = Vec::new();
        let mut due = tokio::time::Instant::now() + FLUSH_EVERY;
        loop {
            tokio::select! {
                biased;
                _ = &mut stopped => {
                    while let Ok(span) = rx.try_recv() {
                        batch.push(span);
                        if batch.len() >= MAX_BATCH {
                            self.flush(&mut batch).await;
                        }
                    }
                    self.flush(&mut batch).await;
                    return;
                }
                span = rx.recv() => match span {
                    Some(span) => {
                        if batch.is_empty() {
                            due = tokio::time::Instant::now() + FLUSH_EVERY;
                        }
                        batch.push(span);
                        if batch.len() >= MAX_BATCH {
                            self.flush(&mut batch).await;
                        }
                    }
                    None => {
                        self.flush(&mut batch).await;
                        return;
                    }
                },
                _ = tokio::time::sleep_until(due), if !batch.is_empty() => {
                    self.flush(&mut batch).await;
                }
            }
        }
    }

    /// One export request of `batch`; a refused or failed export is
    /// logged and counted, and its spans are dropped (traces are
    /// best-effort: deliveries never wait for the collector).
    async fn flush(&self, batch: &mut Vec<SpanData>) {
        if batch.is_empty() {
            return;
        }
        let n = batch.len() as u64;
        let body = otlp::encode(&self.origin, batch);
        batch.clear();
        match self
            .client
            .post(&self.url, otlp::CONTENT_TYPE, body.into(), EXPORT_TIMEOUT)
            .await
        {
            Ok(()) => {
                self.metrics.spans_exported.fetch_add(n, Ordering::Relaxed);
            }
            Err(e) => {
                self.metrics
                    .span_exports_failed
                    .fetch_add(1, Ordering::Relaxed);
                self.metrics.spans_dropped.fetch_add(n, Ordering::Relaxed);
                tracing::warn!(collector = ?self.url, error = %e, spans = n, "cannot export spans to the OTLP collector; they are dropped");
            }
        }
    }
}
