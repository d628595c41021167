//! The HTTPS server: accepting, recording, concurrency accounting, behaviours.
//!
//! This module holds the [`Receiver`] handle, its configuration and the state
//! it shares with the server; `serve` is the server itself (connections,
//! requests, records).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Duration, Instant};

use relay_core::signature::VerificationKey;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;

use crate::behavior::Behavior;
use crate::ca::{LeafCert, TestCa};
use crate::oauth::OAuthIssuer;
use crate::record::Recorded;

mod serve;
pub(crate) use serve::InFlight;
use serve::accept_loop;

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
    /// Mutual TLS: when set, every client must present a certificate
    /// issued by this CA ([`TestCa::client_cert`]); one without, or with
    /// another CA's, fails the handshake (counted by
    /// [`Receiver::tls_failures`]). What a client presented is recorded in
    /// [`Recorded::client_cert_sha256`].
    pub client_ca: Option<Arc<TestCa>>,
    /// Speak TLS 1.2 only (default: 1.2 and 1.3).
    pub tls12_only: bool,
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
            client_ca: None,
            tls12_only: false,
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
    /// TCP connections open now, and the most ever open at once.
    pub(crate) open_connections: AtomicU64,
    pub(crate) max_open_connections: AtomicU64,
    tls_failures: AtomicU64,
    pub(crate) bytes_streamed: AtomicU64,
    arrival_hook: RwLock<Option<ArrivalHook>>,
    oauth: RwLock<OAuthRoles>,
    /// Whether an ownership challenge is answered (see
    /// [`Receiver::answer_challenges`]).
    pub(crate) answer_challenges: std::sync::atomic::AtomicBool,
}

/// The OAuth 2.0 parts a receiver plays ([`crate::oauth`]).
#[derive(Debug, Default, Clone)]
struct OAuthRoles {
    /// The token endpoint's path and its issuer.
    token_endpoint: Option<(String, Arc<OAuthIssuer>)>,
    /// Every other request needs a bearer token of this issuer.
    bearer: Option<Arc<OAuthIssuer>>,
}

impl Shared {
    /// For a request to `path`: the issuer whose token endpoint it is, and
    /// the issuer whose bearer token it needs.
    pub(crate) fn oauth_roles(
        &self,
        path: &str,
    ) -> (Option<Arc<OAuthIssuer>>, Option<Arc<OAuthIssuer>>) {
        let roles = self.oauth.read().unwrap_or_else(PoisonError::into_inner);
        match &roles.token_endpoint {
            Some((p, issuer)) if p == path => (Some(Arc::clone(issuer)), None),
            _ => (None, roles.bearer.clone()),
        }
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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
        let acceptor = TlsAcceptor::from(
            leaf.server_config_with(config.client_ca.as_deref(), config.tls12_only),
        );
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
            open_connections: AtomicU64::new(0),
            max_open_connections: AtomicU64::new(0),
            tls_failures: AtomicU64::new(0),
            bytes_streamed: AtomicU64::new(0),
            answer_challenges: std::sync::atomic::AtomicBool::new(true),
            arrival_hook: RwLock::new(None),
            oauth: RwLock::new(OAuthRoles::default()),
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

    /// Whether Relay's ownership challenge (`OPTIONS` with a `webhook-id`,
    /// `docs/security.md`) is answered as a receiver that wants the
    /// traffic answers it (the default): `200` with the `webhook-id` as
    /// the body and `WebHook-Allowed-Origin` naming the asking origin, once
    /// the signature verifies when the receiver verifies signatures (`401`
    /// otherwise). Off, the challenge gets the behaviours like any request.
    pub fn answer_challenges(&self, on: bool) {
        self.shared
            .answer_challenges
            .store(on, std::sync::atomic::Ordering::Relaxed);
    }

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

    // ----- OAuth 2.0 ----------------------------------------------------

    /// Serves `issuer`'s OAuth 2.0 token endpoint at `path` (client
    /// credentials; see [`crate::oauth`]). Its requests are recorded like
    /// any other.
    pub fn serve_token_endpoint(&self, path: &str, issuer: Arc<OAuthIssuer>) {
        self.shared
            .oauth
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .token_endpoint = Some((path.to_owned(), issuer));
    }

    /// From now on, every request (but the token endpoint's) needs
    /// `Authorization: Bearer <a valid token of issuer>`; one without gets
    /// `401` (recorded, and answered before any script or behaviour is used).
    pub fn require_bearer(&self, issuer: Arc<OAuthIssuer>) {
        self.shared
            .oauth
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .bearer = Some(issuer);
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

    /// The most TCP connections ever open at once (a client that keeps at
    /// most `n` attempts in flight over a keep-alive pool opens at most `n`).
    pub fn max_open_connections(&self) -> u64 {
        self.shared.max_open_connections.load(Ordering::Relaxed)
    }

    /// TLS handshakes that failed (with mutual TLS: a client that presented
    /// no certificate, or one the receiver does not trust).
    pub fn tls_failures(&self) -> u64 {
        self.shared.tls_failures.load(Ordering::Relaxed)
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
    /// flight, or open, now). Scripts and behaviours are kept.
    pub fn reset(&self) {
        let mut records = lock(&self.shared.records);
        records.clear();
        self.shared.count.send_replace(0);
        drop(records);
        self.shared.invalid_signatures.store(0, Ordering::Relaxed);
        let open = self.shared.open_connections.load(Ordering::SeqCst);
        self.shared
            .max_open_connections
            .store(open, Ordering::SeqCst);
        self.shared.load.send_modify(|load| {
            load.max = load.current;
            load.paths.retain(|_, p| p.current > 0);
            for p in load.paths.values_mut() {
                p.max = p.current;
            }
        });
    }
}
