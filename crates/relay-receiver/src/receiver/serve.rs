//! The server side of a [`Receiver`](super::Receiver): the accept loop, one
//! task per connection, and per request its behaviour, its record (with the
//! signature check when asked) and its place in the in-flight accounting.

use std::cell::Cell;
use std::collections::VecDeque;
use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper::header::HeaderMap;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use relay_core::signature::{SignatureHeaders, VerificationKey};
use relay_core::time::Timestamp;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use super::{Arrival, PathLoad, Shared, lock};
use crate::behavior::{Behavior, Reply};
use crate::body::ReplyBody;
use crate::record::Recorded;

impl Shared {
    fn next_behavior(&self, path: &str) -> Arc<Behavior> {
        let mut b = lock(&self.behaviors);
        if !b.path_scripts.is_empty()
            && let Some(next) = b.path_scripts.get_mut(path).and_then(VecDeque::pop_front)
        {
            return next;
        }
        if let Some(next) = b.script.pop_front() {
            return next;
        }
        if !b.per_path.is_empty()
            && let Some(behavior) = b.per_path.get(path)
        {
            return Arc::clone(behavior);
        }
        Arc::clone(&b.default)
    }

    fn record(&self, conn: &ConnInfo, nth: u64, parts: &hyper::http::request::Parts, body: Bytes) {
        let signature_valid = self
            .verify
            .as_deref()
            .map(|keys| signature_valid(keys, &parts.headers, &body, self.tolerance_seconds));
        if signature_valid == Some(false) {
            self.invalid_signatures.fetch_add(1, Ordering::Relaxed);
        }
        let hook = self
            .arrival_hook
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(hook) = hook {
            hook(Arrival {
                webhook_id: parts
                    .headers
                    .get("webhook-id")
                    .and_then(|v| v.to_str().ok()),
                path: parts.uri.path(),
                at: Instant::now(),
            });
        }
        if !self.record_bodies {
            self.count.send_modify(|c| *c += 1);
            return;
        }
        let received_at = Instant::now();
        let received_at_system = SystemTime::now();
        let headers = parts
            .headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect();
        let mut recorded = Recorded {
            seq: 0,
            method: parts.method.as_str().to_owned(),
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().map(str::to_owned),
            headers,
            body,
            received_at,
            received_at_system,
            remote_addr: conn.remote,
            sni: conn.sni.clone(),
            client_cert_sha256: conn.client_cert_sha256.clone(),
            connection_id: conn.id,
            request_on_connection: nth,
            signature_valid,
        };
        // The count moves while the records are locked, so whoever sees the
        // new count finds the record.
        let mut records = lock(&self.records);
        self.count.send_modify(|c| {
            recorded.seq = *c;
            *c += 1;
        });
        records.push(recorded);
    }
}

/// The answer to Relay's ownership challenge, when the request is one and
/// the receiver answers them ([`crate::Receiver::answer_challenges`]).
fn challenge_reply(shared: &Shared, method: &hyper::Method, headers: &HeaderMap) -> Option<Reply> {
    if method != hyper::Method::OPTIONS || !shared.answer_challenges.load(Ordering::Relaxed) {
        return None;
    }
    let challenge = headers.get("webhook-id")?.to_str().ok()?;
    if let Some(keys) = shared.verify.as_deref()
        && !signature_valid(keys, headers, b"", shared.tolerance_seconds)
    {
        return Some(Reply::new(401));
    }
    let mut reply = Reply::new(200).with_body(Bytes::copy_from_slice(challenge.as_bytes()));
    if let Some(origin) = headers
        .get("webhook-request-origin")
        .and_then(|v| v.to_str().ok())
    {
        reply = reply.with_header("webhook-allowed-origin", origin);
    }
    Some(reply)
}

/// Whether the Standard Webhooks headers verify over `body` with any of `keys`, now.
fn signature_valid(
    keys: &[VerificationKey],
    headers: &HeaderMap,
    body: &[u8],
    tolerance_seconds: i64,
) -> bool {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let (Some(webhook_id), Some(webhook_timestamp), Some(webhook_signature)) = (
        text("webhook-id"),
        text("webhook-timestamp"),
        text("webhook-signature"),
    ) else {
        return false;
    };
    let sig = SignatureHeaders {
        webhook_id,
        webhook_timestamp,
        webhook_signature,
    };
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    relay_core::signature::verify(
        keys,
        &sig,
        body,
        Timestamp::from_millis(now_ms),
        tolerance_seconds,
    )
    .is_ok()
}

/// Marks one request as in flight from its arrival until it is dropped:
/// after the last byte of its answer is handed to hyper, or when its
/// connection ends.
pub(crate) struct InFlight {
    shared: Arc<Shared>,
    path: Arc<str>,
}

impl InFlight {
    fn begin(shared: &Arc<Shared>, path: &str) -> InFlight {
        let mut key: Option<Arc<str>> = None;
        shared.load.send_modify(|load| {
            load.current += 1;
            load.max = load.max.max(load.current);
            let k = match load.paths.get_key_value(path) {
                Some((k, _)) => Arc::clone(k),
                None => {
                    let k: Arc<str> = Arc::from(path);
                    load.paths.insert(Arc::clone(&k), PathLoad::default());
                    k
                }
            };
            if let Some(p) = load.paths.get_mut(&k) {
                p.current += 1;
                p.max = p.max.max(p.current);
            }
            key = Some(k);
        });
        InFlight {
            shared: Arc::clone(shared),
            path: key.unwrap_or_else(|| Arc::from(path)),
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.shared.load.send_modify(|load| {
            load.current = load.current.saturating_sub(1);
            if let Some(p) = load.paths.get_mut(&self.path) {
                p.current = p.current.saturating_sub(1);
            }
        });
    }
}

/// One accepted connection.
struct ConnInfo {
    id: u64,
    remote: SocketAddr,
    sni: Option<String>,
    client_cert_sha256: Option<String>,
}

/// The service error that makes hyper drop the connection without answering.
#[derive(Debug)]
struct Closed;

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("connection closed by the receiver")
    }
}

impl std::error::Error for Closed {}

async fn handle(
    shared: Arc<Shared>,
    conn: Arc<ConnInfo>,
    nth: u64,
    request: Request<Incoming>,
) -> Result<Response<ReplyBody>, Closed> {
    let guard = InFlight::begin(&shared, request.uri().path());
    let (token_issuer, bearer_issuer) = shared.oauth_roles(request.uri().path());
    let (parts, mut body) = request.into_parts();
    let body = if shared.record_bodies || shared.verify.is_some() || token_issuer.is_some() {
        body.collect().await.map_err(|_| Closed)?.to_bytes()
    } else {
        while let Some(frame) = body.frame().await {
            frame.map_err(|_| Closed)?;
        }
        Bytes::new()
    };
    // The behaviour is chosen before the request is recorded: a test that
    // sees the request (`wait_for`) and then changes the behaviour changes
    // it for later requests only, never for this one.
    let answers_oauth = token_issuer.is_some()
        || bearer_issuer
            .as_ref()
            .is_some_and(|issuer| !issuer.bearer_valid(&parts.headers));
    let chosen = (!answers_oauth).then(|| shared.next_behavior(parts.uri.path()));
    shared.record(&conn, nth, &parts, body.clone());
    let oauth_reply = match (&token_issuer, &bearer_issuer) {
        (Some(issuer), _) => Some(issuer.answer(parts.method.as_str(), &parts.headers, &body)),
        (None, Some(issuer)) if !issuer.bearer_valid(&parts.headers) => {
            Some(Reply::new(401).with_header("www-authenticate", "Bearer error=\"invalid_token\""))
        }
        _ => None,
    };
    let oauth_reply =
        oauth_reply.or_else(|| challenge_reply(&shared, &parts.method, &parts.headers));
    let behavior = match oauth_reply {
        Some(reply) => Arc::new(Behavior::Respond(reply)),
        None => chosen.unwrap_or_else(|| shared.next_behavior(parts.uri.path())),
    };
    drop(parts);

    let mut next: &Behavior = &behavior;
    loop {
        match next {
            Behavior::Respond(reply) => {
                let mut response = Response::new(ReplyBody::full(reply.body.clone(), guard));
                *response.status_mut() = reply.status;
                if !reply.headers.is_empty() {
                    *response.headers_mut() = reply.headers.clone();
                }
                return Ok(response);
            }
            Behavior::Delay { delay, then } => {
                tokio::time::sleep(*delay).await;
                next = then;
            }
            Behavior::Gated { gate, then } => {
                gate.opened().await;
                next = then;
            }
            Behavior::Hang => {
                // hyper drops this future (and the guard) when the client
                // closes the connection.
                return std::future::pending().await;
            }
            Behavior::Stream {
                status,
                headers,
                total_bytes,
            } => {
                let body = ReplyBody::stream(*total_bytes, Arc::clone(&shared), guard);
                let mut response = Response::new(body);
                *response.status_mut() = *status;
                if !headers.is_empty() {
                    *response.headers_mut() = headers.clone();
                }
                return Ok(response);
            }
            Behavior::Close => {
                drop(guard);
                return Err(Closed);
            }
        }
    }
}

async fn serve_connection(
    tcp: TcpStream,
    remote: SocketAddr,
    id: u64,
    acceptor: TlsAcceptor,
    shared: Arc<Shared>,
) {
    let Ok(tls) = acceptor.accept(tcp).await else {
        shared.tls_failures.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let sni = tls.get_ref().1.server_name().map(str::to_owned);
    let client_cert_sha256 = tls
        .get_ref()
        .1
        .peer_certificates()
        .and_then(<[_]>::first)
        .map(|leaf| crate::ca::sha256_hex(leaf));
    let conn = Arc::new(ConnInfo {
        id,
        remote,
        sni,
        client_cert_sha256,
    });
    let nth = Cell::new(0u64);
    let service = service_fn(move |request| {
        let n = nth.get();
        nth.set(n + 1);
        handle(Arc::clone(&shared), Arc::clone(&conn), n, request)
    });
    // Errors here are the client going away or a `Close` behaviour: both end
    // the connection, which is all there is to do.
    let _ = http1::Builder::new()
        .keep_alive(true)
        .header_read_timeout(None)
        .serve_connection(TokioIo::new(tls), service)
        .await;
}

/// Counts a connection as open until it ends (or its task is aborted).
struct OpenConnection(Arc<Shared>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.open_connections.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(super) async fn accept_loop(listener: TcpListener, acceptor: TlsAcceptor, shared: Arc<Shared>) {
    // Dropping this future (when the receiver is dropped) drops the set,
    // which aborts every connection.
    let mut connections = JoinSet::new();
    loop {
        let (tcp, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(_) => {
                // Out of file descriptors or similar: back off briefly.
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let id = shared.connections.fetch_add(1, Ordering::Relaxed);
        let open = shared.open_connections.fetch_add(1, Ordering::SeqCst) + 1;
        shared
            .max_open_connections
            .fetch_max(open, Ordering::SeqCst);
        while connections.try_join_next().is_some() {}
        let served = serve_connection(tcp, remote, id, acceptor.clone(), Arc::clone(&shared));
        let open = OpenConnection(Arc::clone(&shared));
        connections.spawn(async move {
            let _open = open;
            served.await;
        });
    }
}
