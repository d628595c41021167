//! The HTTPS server: accepting, recording, concurrency accounting, behaviours.

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
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
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};
use tokio_rustls::TlsAcceptor;

use crate::behavior::Behavior;
use crate::body::ReplyBody;
use crate::ca::{LeafCert, TestCa};
use crate::record::Recorded;

/// How a [`Receiver`] starts.
#[derive(Debug, Clone)]
pub struct ReceiverConfig {
    /// Where to listen. Default `127.0.0.1:0` (a free port).
    pub addr: SocketAddr,
    /// The CA that signs the receiver's certificate; `None` generates one.
    pub ca: Option<Arc<TestCa>>,
    /// Names added to the certificate besides `localhost`, `127.0.0.1` and `::1`.
    pub extra_names: Vec<String>,
    /// What every request gets unless a script or a per-path behaviour says otherwise.
    pub behavior: Behavior,
    /// When set, each request's Standard Webhooks signature is verified over
    /// the raw body with these keys (any one matching is enough) and the
    /// result is recorded in [`Recorded::signature_valid`] and counted by
    /// [`Receiver::invalid_signatures`].
    pub verify: Option<Vec<VerificationKey>>,
    /// Allowed distance between `webhook-timestamp` and now, in seconds, either side.
    pub verify_tolerance_seconds: i64,
    /// `true` (default): keep a [`Recorded`] of every request. `false`: count
    /// requests only (and still account concurrency and verify signatures),
    /// so memory stays flat over any number of requests.
    pub record_bodies: bool,
}

impl Default for ReceiverConfig {
    fn default() -> ReceiverConfig {
        ReceiverConfig {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            ca: None,
            extra_names: Vec::new(),
            behavior: Behavior::ok(),
            verify: None,
            verify_tolerance_seconds: relay_core::signature::DEFAULT_TOLERANCE_SECONDS,
            record_bodies: true,
        }
    }
}

/// One request as an [`ArrivalHook`] sees it: enough for a benchmark to
/// match it with what was sent, without recording anything.
#[derive(Debug, Clone, Copy)]
pub struct Arrival<'a> {
    /// The `webhook-id` header, when present and text.
    pub webhook_id: Option<&'a str>,
    /// The request path, without the query.
    pub path: &'a str,
    /// When the whole request had been read (monotonic clock).
    pub at: Instant,
}

/// Called once per request, when its body has been read completely (in
/// either recording mode), before it is counted. Keep it cheap: it runs on
/// the connection's task.
pub type ArrivalHook = Arc<dyn Fn(Arrival<'_>) + Send + Sync>;

/// A wait that ran out of time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeout {
    /// How long was waited.
    pub waited: Duration,
    /// What was still missing, e.g. `3 of 5 requests received`.
    pub detail: String,
}

impl fmt::Display for Timeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "timed out after {:?}: {}", self.waited, self.detail)
    }
}

impl std::error::Error for Timeout {}

/// Requests in flight, now and at most, overall and per path.
#[derive(Debug, Default)]
struct Load {
    current: usize,
    max: usize,
    paths: HashMap<Arc<str>, PathLoad>,
}

#[derive(Debug, Default, Clone, Copy)]
struct PathLoad {
    current: usize,
    max: usize,
}

/// Where behaviours come from, in order of precedence.
#[derive(Debug)]
struct Behaviors {
    path_scripts: HashMap<String, VecDeque<Arc<Behavior>>>,
    script: VecDeque<Arc<Behavior>>,
    per_path: HashMap<String, Arc<Behavior>>,
    default: Arc<Behavior>,
}

/// State shared by the accept loop, the connections and the [`Receiver`] handle.
pub(crate) struct Shared {
    behaviors: Mutex<Behaviors>,
    records: Mutex<Vec<Recorded>>,
    /// Requests received (recorded or counted).
    count: watch::Sender<u64>,
    load: watch::Sender<Load>,
    record_bodies: bool,
    verify: Option<Vec<VerificationKey>>,
    tolerance_seconds: i64,
    invalid_signatures: AtomicU64,
    connections: AtomicU64,
    pub(crate) bytes_streamed: AtomicU64,
    arrival_hook: RwLock<Option<ArrivalHook>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

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
    let behavior = shared.next_behavior(request.uri().path());
    let (parts, mut body) = request.into_parts();
    let body = if shared.record_bodies || shared.verify.is_some() {
        body.collect().await.map_err(|_| Closed)?.to_bytes()
    } else {
        while let Some(frame) = body.frame().await {
            frame.map_err(|_| Closed)?;
        }
        Bytes::new()
    };
    shared.record(&conn, nth, &parts, body);
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
        return;
    };
    let sni = tls.get_ref().1.server_name().map(str::to_owned);
    let conn = Arc::new(ConnInfo { id, remote, sni });
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

async fn accept_loop(listener: TcpListener, acceptor: TlsAcceptor, shared: Arc<Shared>) {
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
        while connections.try_join_next().is_some() {}
        connections.spawn(serve_connection(
            tcp,
            remote,
            id,
            acceptor.clone(),
            Arc::clone(&shared),
        ));
    }
}

/// A running HTTPS receiver. Dropping it stops the listener and closes
/// every connection.
pub struct Receiver {
    addr: SocketAddr,
    ca: Arc<TestCa>,
    leaf: LeafCert,
    ca_dir: tempfile::TempDir,
    ca_pem_path: std::path::PathBuf,
    shared: Arc<Shared>,
    accept_task: JoinHandle<()>,
}

impl fmt::Debug for Receiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("addr", &self.addr)
            .field("ca_pem_path", &self.ca_pem_path)
            .finish_non_exhaustive()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.accept_task.abort();
    }
}

impl Receiver {
    /// Binds `config.addr`, writes the CA to a temporary file
    /// ([`Receiver::ca_pem_path`]) and starts serving on the current tokio runtime.
    pub async fn start(config: ReceiverConfig) -> std::io::Result<Receiver> {
        let listener = TcpListener::bind(config.addr).await?;
        Receiver::serve(config, listener)
    }

    /// [`Receiver::start`] on a socket bound already (`config.addr` is
    /// ignored): a caller that must know the port before the receiver can
    /// start holds it meanwhile, so no other process can take it.
    pub async fn start_on(
        config: ReceiverConfig,
        listener: std::net::TcpListener,
    ) -> std::io::Result<Receiver> {
        listener.set_nonblocking(true)?;
        Receiver::serve(config, TcpListener::from_std(listener)?)
    }

    fn serve(config: ReceiverConfig, listener: TcpListener) -> std::io::Result<Receiver> {
        let ca = config
            .ca
            .clone()
            .unwrap_or_else(|| Arc::new(TestCa::generate()));
        let leaf = ca.leaf().names(config.extra_names.iter().cloned()).build();
        let acceptor = TlsAcceptor::from(leaf.server_config());
        let ca_dir = tempfile::Builder::new()
            .prefix("relay-receiver-")
            .tempdir()?;
        let ca_pem_path = ca.write_ca_pem(ca_dir.path())?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            behaviors: Mutex::new(Behaviors {
                path_scripts: HashMap::new(),
                script: VecDeque::new(),
                per_path: HashMap::new(),
                default: Arc::new(config.behavior),
            }),
            records: Mutex::new(Vec::new()),
            count: watch::Sender::new(0),
            load: watch::Sender::new(Load::default()),
            record_bodies: config.record_bodies,
            verify: config.verify,
            tolerance_seconds: config.verify_tolerance_seconds,
            invalid_signatures: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            bytes_streamed: AtomicU64::new(0),
            arrival_hook: RwLock::new(None),
        });
        let accept_task = tokio::spawn(accept_loop(listener, acceptor, Arc::clone(&shared)));
        Ok(Receiver {
            addr,
            ca,
            leaf,
            ca_dir,
            ca_pem_path,
            shared,
            accept_task,
        })
    }

    // ----- where it is --------------------------------------------------

    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `https://{ip}:{port}{path}` (IPv6 in brackets); a missing leading `/` is added.
    pub fn url(&self, path: &str) -> String {
        match self.addr {
            SocketAddr::V4(a) => self.url_for_host(&a.ip().to_string(), path),
            SocketAddr::V6(a) => self.url_for_host(&format!("[{}]", a.ip()), path),
        }
    }

    /// `https://{host}:{port}{path}`, e.g. with `localhost` so the client
    /// sends SNI; a missing leading `/` is added.
    pub fn url_for_host(&self, host: &str, path: &str) -> String {
        let slash = if path.starts_with('/') { "" } else { "/" };
        format!("https://{host}:{}{slash}{path}", self.addr.port())
    }

    /// The CA that signed the receiver's certificate.
    pub fn ca(&self) -> &Arc<TestCa> {
        &self.ca
    }

    /// The certificate the receiver presents.
    pub fn leaf(&self) -> &LeafCert {
        &self.leaf
    }

    /// A PEM file holding the CA certificate, for Relay's `[outbound]
    /// extra_ca_certs`; removed when the receiver is dropped.
    pub fn ca_pem_path(&self) -> &Path {
        &self.ca_pem_path
    }

    /// The temporary directory holding [`Receiver::ca_pem_path`].
    pub fn temp_dir(&self) -> &Path {
        self.ca_dir.path()
    }

    // ----- behaviour ----------------------------------------------------

    /// Sets the default behaviour, for requests that no script or per-path
    /// behaviour covers.
    pub fn set_behavior(&self, behavior: Behavior) {
        lock(&self.shared.behaviors).default = Arc::new(behavior);
    }

    /// Sets the behaviour for requests to `path` (exact match, query ignored),
    /// over the default.
    pub fn set_path_behavior(&self, path: &str, behavior: Behavior) {
        lock(&self.shared.behaviors)
            .per_path
            .insert(path.to_owned(), Arc::new(behavior));
    }

    /// Removes the behaviour set for `path`.
    pub fn clear_path_behavior(&self, path: &str) {
        lock(&self.shared.behaviors).per_path.remove(path);
    }

    /// Queues behaviours for the next requests, whatever their path, one
    /// each in order of arrival, after any already queued.
    ///
    /// Precedence for each request: the script for its path
    /// ([`Receiver::push_path_script`]), then this script, then the
    /// behaviour for its path ([`Receiver::set_path_behavior`]), then the
    /// default ([`Receiver::set_behavior`]).
    pub fn push_script(&self, behaviors: Vec<Behavior>) {
        lock(&self.shared.behaviors)
            .script
            .extend(behaviors.into_iter().map(Arc::new));
    }

    /// Queues behaviours for the next requests to `path`.
    pub fn push_path_script(&self, path: &str, behaviors: Vec<Behavior>) {
        lock(&self.shared.behaviors)
            .path_scripts
            .entry(path.to_owned())
            .or_default()
            .extend(behaviors.into_iter().map(Arc::new));
    }

    /// Drops every queued script entry (global and per path).
    pub fn clear_scripts(&self) {
        let mut b = lock(&self.shared.behaviors);
        b.script.clear();
        b.path_scripts.clear();
    }

    /// How many scripted behaviours are still queued (global and per path).
    pub fn script_remaining(&self) -> usize {
        let b = lock(&self.shared.behaviors);
        b.script.len() + b.path_scripts.values().map(VecDeque::len).sum::<usize>()
    }

    // ----- what arrived -------------------------------------------------

    /// Calls `hook` for every request from now on (`None` stops): the
    /// arrival time of each request without recording it, e.g. for
    /// publish→receive latency in `relay bench` with `record_bodies: false`.
    pub fn set_arrival_hook(&self, hook: Option<ArrivalHook>) {
        *self
            .shared
            .arrival_hook
            .write()
            .unwrap_or_else(PoisonError::into_inner) = hook;
    }

    /// Every recorded request, in order of recording (empty when
    /// `record_bodies` is off).
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.shared.records).clone()
    }

    /// The recorded requests to `path`.
    pub fn requests_to(&self, path: &str) -> Vec<Recorded> {
        lock(&self.shared.records)
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    /// How many requests have been received (read completely), recorded or only counted.
    pub fn count(&self) -> u64 {
        *self.shared.count.borrow()
    }

    /// Waits until at least `n` requests have been received, then returns
    /// the recorded requests (all of them, possibly more than `n`).
    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Result<Vec<Recorded>, Timeout> {
        self.wait_for_count(n as u64, timeout).await?;
        Ok(self.requests())
    }

    /// Waits until at least `n` requests have been received; returns the count.
    pub async fn wait_for_count(&self, n: u64, timeout: Duration) -> Result<u64, Timeout> {
        let mut rx = self.shared.count.subscribe();
        let waited = tokio::time::timeout(timeout, async {
            rx.wait_for(|c| *c >= n).await.map(|c| *c)
        })
        .await;
        match waited {
            Ok(Ok(count)) => Ok(count),
            _ => Err(Timeout {
                waited: timeout,
                detail: format!("{} of {n} requests received", self.count()),
            }),
        }
    }

    /// Requests whose signature did not verify (only with `verify` set).
    pub fn invalid_signatures(&self) -> u64 {
        self.shared.invalid_signatures.load(Ordering::Relaxed)
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> u64 {
        self.shared.connections.load(Ordering::Relaxed)
    }

    /// Body bytes produced so far by [`Behavior::Stream`] answers.
    pub fn bytes_streamed(&self) -> u64 {
        self.shared.bytes_streamed.load(Ordering::Relaxed)
    }

    // ----- concurrency --------------------------------------------------

    /// Requests in flight now: arrived, and not yet answered completely
    /// (a request is in flight until the last byte of its answer is handed
    /// to the connection, or the connection ends).
    pub fn in_flight(&self) -> usize {
        self.shared.load.borrow().current
    }

    /// Requests to `path` in flight now.
    pub fn in_flight_on(&self, path: &str) -> usize {
        self.shared
            .load
            .borrow()
            .paths
            .get(path)
            .map_or(0, |p| p.current)
    }

    /// The most requests ever in flight at once, overall.
    pub fn max_concurrent_total(&self) -> usize {
        self.shared.load.borrow().max
    }

    /// The most requests to `path` ever in flight at once (0 if none came).
    pub fn max_concurrent(&self, path: &str) -> usize {
        self.shared
            .load
            .borrow()
            .paths
            .get(path)
            .map_or(0, |p| p.max)
    }

    /// Waits until no request is in flight.
    pub async fn wait_idle(&self, timeout: Duration) -> Result<(), Timeout> {
        self.wait_load(timeout, |current| current == 0, "no request in flight")
            .await
    }

    /// Waits until at least `n` requests are in flight at once.
    pub async fn wait_in_flight(&self, n: usize, timeout: Duration) -> Result<(), Timeout> {
        self.wait_load(
            timeout,
            |current| current >= n,
            &format!("{n} requests in flight"),
        )
        .await
    }

    async fn wait_load(
        &self,
        timeout: Duration,
        done: impl Fn(usize) -> bool,
        wanted: &str,
    ) -> Result<(), Timeout> {
        let mut rx = self.shared.load.subscribe();
        let waited = tokio::time::timeout(timeout, rx.wait_for(|load| done(load.current))).await;
        match waited {
            Ok(Ok(_)) => Ok(()),
            _ => Err(Timeout {
                waited: timeout,
                detail: format!("wanted {wanted}; {} in flight", self.in_flight()),
            }),
        }
    }

    /// Forgets the recorded requests and resets the request count, the
    /// signature-failure count and the concurrency maxima (to what is in
    /// flight now). Scripts and behaviours are kept.
    pub fn reset(&self) {
        let mut records = lock(&self.shared.records);
        records.clear();
        self.shared.count.send_replace(0);
        drop(records);
        self.shared.invalid_signatures.store(0, Ordering::Relaxed);
        self.shared.load.send_modify(|load| {
            load.max = load.current;
            load.paths.retain(|_, p| p.current > 0);
            for p in load.paths.values_mut() {
                p.max = p.current;
            }
        });
    }
}
