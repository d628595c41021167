//! The HTTP server: Relay's own accept loop over hyper's HTTP/1 connection,
//! because a server that faces the internet must protect itself from slow
//! and hostile clients, and `axum::serve` has no knob for that.
//!
//! Every connection is in one phase at a time, each with its deadline
//! ([`ServerSettings`]):
//!
//! | phase | ends when | deadline | past it |
//! |---|---|---|---|
//! | waiting for a head | the head is parsed | `header_read_timeout` from the connection's start, or from the first byte of a later request | `408` if part of a head came, then closed |
//! | in a request | the handler answers | none of its own; the body must arrive within `body_read_timeout` of the head | the body's read fails: `408`, `Connection: close` |
//! | writing a response | the response is written and flushed | `response_write_timeout` from the handler's answer | closed |
//! | idle (kept alive) | the first byte of the next request | `idle_timeout` | closed |
//!
//! At most `max_connections` are served at once; one more is answered
//! `503` at once and closed. On shutdown the listener closes, every
//! connection finishes the request it is in and closes, and those still
//! open after `shutdown_drain` are closed with whatever they were doing.
//!
//! The deadlines are total, never per read: a client that sends (or reads)
//! one byte a second is cut off like one that sends nothing.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use axum::response::IntoResponse;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};

use crate::error::ApiError;

/// How the HTTP server protects itself from slow and hostile clients.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// A request's head (request line and headers) must arrive within this
    /// time, counted from the connection's start for its first request and
    /// from the first byte of each later one; otherwise `408` and the
    /// connection is closed.
    pub header_read_timeout: Duration,
    /// A request's body must arrive whole within this time after its head;
    /// otherwise `408` and the connection is closed.
    pub body_read_timeout: Duration,
    /// A response must be written whole within this time after the handler
    /// answered (a client that does not read is cut off).
    pub response_write_timeout: Duration,
    /// A kept-alive connection with no request under way is closed after
    /// this time.
    pub idle_timeout: Duration,
    /// Connections served at once; one more is answered `503` and closed.
    pub max_connections: usize,
    /// After shutdown is asked for, how long requests under way may finish;
    /// the connections still open then are closed.
    pub shutdown_drain: Duration,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            response_write_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 1024,
            shutdown_drain: Duration::from_secs(10),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then drains:
/// returns at most `settings.shutdown_drain` later, whatever the clients do.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    settings: ServerSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let settings = Arc::new(settings);
    let places = Arc::new(Semaphore::new(settings.max_connections.max(1)));
    let (drain_tx, drain_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    let mut at_cap = false;
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(ended) = connections.join_next(), if !connections.is_empty() => {
                if let Err(e) = ended
                    && e.is_panic()
                {
                    tracing::error!("a connection's task panicked");
                }
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => match places.clone().try_acquire_owned() {
                    Ok(place) => {
                        at_cap = false;
                        connections.spawn(connection(
                            stream,
                            router.clone(),
                            settings.clone(),
                            drain_rx.clone(),
                            place,
                        ));
                    }
                    Err(_) => {
                        if !at_cap {
                            tracing::warn!(
                                max_connections = settings.max_connections,
                                "the connection limit is reached; new connections are answered 503 until one closes"
                            );
                            at_cap = true;
                        }
                        refuse(stream);
                    }
                },
                Err(e) if is_connection_error(&e) => {}
                Err(e) => {
                    // Out of file descriptors, most likely: wait a little
                    // rather than spin, still listening for shutdown.
                    tracing::error!(error = %e, "accepting a connection failed");
                    tokio::select! {
                        () = &mut shutdown => break,
                        () = tokio::time::sleep(Duration::from_millis(100)) => {}
                    }
                }
            },
        }
    }
    drop(listener);
    let _ = drain_tx.send(true);
    let open = connections.len();
    let drained = tokio::time::timeout(settings.shutdown_drain, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            open_at_shutdown = open,
            closed_unfinished = connections.len(),
            drain_seconds = settings.shutdown_drain.as_secs_f64(),
            "connections still open when the drain time ended were closed"
        );
        connections.shutdown().await;
    }
    Ok(())
}

fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// A problem answer written straight to a socket that hyper does not (or no
/// longer) serves, with `Connection: close`.
fn raw_problem(status: StatusCode, code: &'static str, detail: String) -> Vec<u8> {
    let body =
        serde_json::to_vec(&ApiError::new(status, code, detail).problem()).unwrap_or_default();
    let retry = if status == StatusCode::SERVICE_UNAVAILABLE {
        "retry-after: 1\r\n"
    } else {
        ""
    };
    let mut out = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/problem+json\r\ncontent-length: {}\r\n{retry}connection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(&body);
    out
}

/// Writes `answer` if the socket takes it at once (never waits), reads
/// away what the client already sent (so that closing does not reset the
/// connection and lose the answer), and closes.
fn answer_and_close(stream: TcpStream, answer: &[u8]) {
    let _ = stream.try_write(answer);
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        match stream.try_read(&mut sink) {
            Ok(n) if n > 0 => {}
            _ => break,
        }
    }
    drop(stream);
}

/// A connection over the cap: `503`, closed.
fn refuse(stream: TcpStream) {
    answer_and_close(
        stream,
        &raw_problem(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_connections",
            "the server is serving as many connections as it may; retry later".into(),
        ),
    );
}

/// Where a connection is (see the module's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request's head; `started`: part of one has come.
    Head { started: bool },
    /// A handler has the request.
    Request,
    /// Writing the response; `body_done`: its last byte is handed to hyper,
    /// which may still be writing it out.
    Response { body_done: bool },
    /// Kept alive between requests.
    Idle,
}

struct Tracker {
    phase: Phase,
    deadline: Option<Instant>,
}

/// One connection's phase and deadline, moved on by the socket wrapper
/// ([`Watched`]), the service and the response body, all polled inside the
/// connection's task.
struct ConnState {
    settings: Arc<ServerSettings>,
    tracker: Mutex<Tracker>,
}

impl ConnState {
    fn new(settings: Arc<ServerSettings>) -> Self {
        let deadline = Some(Instant::now() + settings.header_read_timeout);
        ConnState {
            settings,
            tracker: Mutex::new(Tracker {
                phase: Phase::Head { started: false },
                deadline,
            }),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Tracker) -> T) -> T {
        f(&mut self.tracker.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn phase(&self) -> Phase {
        self.with(|t| t.phase)
    }

    fn deadline(&self) -> Option<Instant> {
        self.with(|t| t.deadline)
    }

    /// Bytes came from the client.
    fn on_read(&self) {
        let header = self.settings.header_read_timeout;
        self.with(|t| match t.phase {
            Phase::Idle => {
                t.phase = Phase::Head { started: true };
                t.deadline = Some(Instant::now() + header);
            }
            Phase::Head { started: false } => t.phase = Phase::Head { started: true },
            _ => {}
        });
    }

    /// hyper parsed a head and calls the service.
    fn on_request(&self) {
        self.with(|t| {
            t.phase = Phase::Request;
            t.deadline = None;
        });
    }

    /// The handler answered.
    fn on_response(&self) {
        let write = self.settings.response_write_timeout;
        self.with(|t| {
            t.phase = Phase::Response { body_done: false };
            t.deadline = Some(Instant::now() + write);
        });
    }

    /// hyper is done with the response's body (written to its buffer).
    fn on_response_body_done(&self) {
        self.with(|t| {
            if let Phase::Response { .. } = t.phase {
                t.phase = Phase::Response { body_done: true };
            }
        });
    }

    /// hyper flushed everything it had to the socket.
    fn on_flushed(&self) {
        let idle = self.settings.idle_timeout;
        self.with(|t| {
            if t.phase == (Phase::Response { body_done: true }) {
                t.phase = Phase::Idle;
                t.deadline = Some(Instant::now() + idle);
            }
        });
    }
}

/// The socket, watched: bytes read and flushes move the connection's phase on.
struct Watched {
    stream: TcpStream,
    state: Arc<ConnState>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.state.on_read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    /// hyper flushes the socket once its own buffer is written out.
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.stream).poll_flush(cx);
        if matches!(polled, Poll::Ready(Ok(()))) {
            self.state.on_flushed();
        }
        polled
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Why a connection's task ended.
enum Ended {
    Done,
    Expired,
    Drain,
}

/// Serves one connection within its deadlines, holding its `place` under
/// the cap until it ends.
async fn connection(
    stream: TcpStream,
    router: Router,
    settings: Arc<ServerSettings>,
    mut drain: watch::Receiver<bool>,
    place: OwnedSemaphorePermit,
) {
    let _place = place;
    let state = Arc::new(ConnState::new(settings.clone()));
    let io = TokioIo::new(Watched {
        stream,
        state: state.clone(),
    });
    let service = Service {
        router,
        state: state.clone(),
        body_read_timeout: settings.body_read_timeout,
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    // The header deadline is this module's (hyper's also runs while a
    // kept-alive connection is idle, and closes without an answer).
    builder.header_read_timeout(None);
    let mut conn = builder.serve_connection(io, service);
    let mut draining = false;
    let mut drain_asked = Box::pin(async move {
        let _ = drain.wait_for(|d| *d).await;
    });
    let mut timer: Pin<Box<Sleep>> = Box::pin(tokio::time::sleep(Duration::ZERO));
    let mut armed: Option<Instant> = None;
    loop {
        let ended = std::future::poll_fn(|cx| {
            if let Poll::Ready(result) = Pin::new(&mut conn).poll(cx) {
                if let Err(e) = result {
                    tracing::trace!(error = %e, "connection ended with an error");
                }
                return Poll::Ready(Ended::Done);
            }
            if !draining && drain_asked.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Ended::Drain);
            }
            // Whatever the poll above moved on, the deadline is read after it.
            if let Some(deadline) = state.deadline() {
                if armed != Some(deadline) {
                    timer.as_mut().reset(deadline);
                    armed = Some(deadline);
                }
                if timer.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Ended::Expired);
                }
            }
            Poll::Pending
        })
        .await;
        match ended {
            Ended::Done => return,
            Ended::Drain => {
                draining = true;
                Pin::new(&mut conn).graceful_shutdown();
            }
            Ended::Expired => {
                if state.deadline().is_some_and(|d| d <= Instant::now()) {
                    expire(conn, &state, &settings);
                    return;
                }
            }
        }
    }
}

/// Ends a connection whose deadline passed: a head under way is answered
/// `408` (nothing else has been written for it); any other phase is closed
/// without a word (there is no request to answer, or its answer is
/// already being written).
fn expire<S>(
    conn: hyper::server::conn::http1::Connection<TokioIo<Watched>, S>,
    state: &ConnState,
    settings: &ServerSettings,
) where
    S: hyper::service::HttpService<Incoming, ResBody = ResponseBody>,
{
    let phase = state.phase();
    tracing::debug!(?phase, "a connection's deadline passed; closing it");
    let Watched { stream, .. } = conn.into_parts().io.into_inner();
    match phase {
        Phase::Head { started: true } => answer_and_close(
            stream,
            &raw_problem(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                format!(
                    "the request's head did not arrive within {} s",
                    settings.header_read_timeout.as_secs_f64()
                ),
            ),
        ),
        _ => drop(stream),
    }
}

/// The router behind hyper: marks the phases, times the request's body,
/// and answers `408` when the body did not arrive in time.
#[derive(Clone)]
struct Service {
    router: Router,
    state: Arc<ConnState>,
    body_read_timeout: Duration,
}

impl hyper::service::Service<Request<Incoming>> for Service {
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        self.state.on_request();
        let timed_out = Arc::new(AtomicBool::new(false));
        let deadline = Instant::now() + self.body_read_timeout;
        let seconds = self.body_read_timeout.as_secs_f64();
        let request = request.map(|incoming| {
            Body::new(TimedBody {
                inner: incoming,
                deadline,
                timer: None,
                timed_out: timed_out.clone(),
            })
        });
        let mut router = self.router.clone();
        let state = self.state.clone();
        Box::pin(async move {
            let response = match tower::Service::call(&mut router, request).await {
                Ok(r) => r,
                Err(never) => match never {},
            };
            let response = if timed_out.load(Ordering::Relaxed) {
                body_timeout(seconds)
            } else {
                response
            };
            state.on_response();
            Ok(response.map(|inner| ResponseBody { inner, state }))
        })
    }
}

/// The answer to a request whose body did not arrive in time (whatever the
/// handler made of the failed read); the connection closes after it.
fn body_timeout(seconds: f64) -> axum::response::Response {
    let mut response = ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "request_timeout",
        format!("the request's body did not arrive within {seconds} s"),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The request body fails once its deadline passes, however steadily the
/// bytes trickle: the deadline is checked before every read.
struct TimedBody {
    inner: Incoming,
    deadline: Instant,
    timer: Option<Pin<Box<Sleep>>>,
    timed_out: Arc<AtomicBool>,
}

/// The request's body did not arrive within `body_read_timeout`.
#[derive(Debug)]
struct BodyTimedOut;

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body did not arrive in time")
    }
}

impl std::error::Error for BodyTimedOut {}

impl hyper::body::Body for TimedBody {
    type Data = hyper::body::Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let deadline = self.deadline;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if timer.as_mut().poll(cx).is_ready() {
            self.timed_out.store(true, Ordering::Relaxed);
            return Poll::Ready(Some(Err(Box::new(BodyTimedOut))));
        }
        Pin::new(&mut self.inner)
            .poll_frame(cx)
            .map_err(|e| Box::new(e) as Self::Error)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The response's body; when hyper is done with it, the connection's phase
/// moves on.
struct ResponseBody {
    inner: Body,
    state: Arc<ConnState>,
}

impl Drop for ResponseBody {
    fn drop(&mut self) {
        self.state.on_response_body_done();
    }
}

impl hyper::body::Body for ResponseBody {
    type Data = hyper::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
