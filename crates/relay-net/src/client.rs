//! The guarded HTTPS client the delivery engine posts webhooks with.
//!
//! HTTP/1.1 over TLS, one keep-alive pool per `(host, port, client
//! identity)`. Every new
//! connection goes through [`Guard::connect_checked`] (resolve, check every
//! address, connect to a verified one) and a TLS handshake that verifies the
//! certificate for the original host name; the `Host` header is the original
//! host. Redirects are never followed (a `3xx` is an ordinary response),
//! no proxy is ever used (nothing here reads the environment), and at most
//! `max_response_body` bytes of a response body are read: past that the
//! connection is dropped.
//!
//! Mutual TLS: [`HttpsClient::with_identity`] is a view of the same client
//! (guard, pool, URL cache) whose new connections present a
//! [`ClientIdentity`]; its connections are pooled under the identity's
//! fingerprint, apart from every other identity's and from those without
//! one. A server that refuses the certificate does so with a TLS alert: in
//! the handshake (TLS 1.2, or a server that checks early) or, with TLS
//! 1.3, on the first read after the request was written (the client's part
//! of the handshake is over before the server checks). Both are
//! [`GuardError::Tls`].

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::header::{CONNECTION, CONTENT_LENGTH, HOST, TRANSFER_ENCODING, USER_AGENT};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, Version};
use http_body_util::{BodyExt, Full};
use hyper::body::Body;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::task::AbortHandle;
use tokio::time::{Instant, timeout_at};
use tokio_rustls::TlsConnector;

use crate::guard::{Guard, GuardError, handshake};
use crate::identity::ClientIdentity;
use crate::target::{CheckedUrl, UrlRejection};

/// Limits for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// TCP connect plus TLS handshake of a new connection.
    pub connect_timeout: Duration,
    /// The whole exchange: connection, request, response head and body prefix.
    pub total_timeout: Duration,
    /// The most response body bytes read and kept.
    pub max_response_body: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connect_timeout: Duration::from_secs(5),
            total_timeout: Duration::from_secs(20),
            max_response_body: 8192,
        }
    }
}

/// What came back.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code (a `3xx` is returned as is, never followed).
    pub status: StatusCode,
    /// The response headers.
    pub headers: HeaderMap,
    /// At most `max_response_body` bytes of the body.
    pub body_prefix: Bytes,
    /// Whether the body may have been longer than `body_prefix` (or broke off).
    pub truncated: bool,
    /// The verified address the request went to.
    pub remote_addr: SocketAddr,
    /// From the call to the last byte read.
    pub elapsed: Duration,
    /// Whether a pooled keep-alive connection was used.
    pub reused_connection: bool,
}

/// Pool settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSettings {
    /// Idle connections kept per `(host, port)`.
    pub max_idle_per_host: usize,
    /// An idle connection older than this is closed instead of reused.
    pub idle_timeout: Duration,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings {
            // At least what the lanes let run at once to one host (an
            // endpoint's `max_concurrency` defaults to 10, and endpoints
            // often share a host): a connection returned while the pool is
            // full is closed and the next attempt pays a new TLS handshake.
            max_idle_per_host: 128,
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// The response head buffer limit (headers larger than this are an error).
const MAX_HEAD_BYTES: usize = 64 * 1024;
const DEFAULT_USER_AGENT: &str = concat!("Relay/", env!("CARGO_PKG_VERSION"));

/// `(host, port, the client identity's fingerprint)`.
type PoolKey = (String, u16, Option<[u8; 32]>);

struct Connection {
    sender: http1::SendRequest<Full<Bytes>>,
    remote: SocketAddr,
    task: AbortHandle,
    idle_since: Instant,
}

impl Connection {
    fn close(self) {
        self.task.abort();
    }

    /// Worth keeping: the peer has not closed it and it has not idled too
    /// long. Readiness is awaited at checkout: right after a response the
    /// connection task may not have run yet.
    fn reusable(&self, idle_timeout: Duration) -> bool {
        !self.sender.is_closed() && self.idle_since.elapsed() < idle_timeout
    }
}

struct Inner {
    guard: Guard,
    /// The guard's configuration with ALPN `http/1.1`, no client identity.
    tls_config: Arc<rustls::ClientConfig>,
    pool: Mutex<Pool>,
    settings: PoolSettings,
    /// [`Guard::parse_url`]'s answers by URL: the parse is the same for
    /// every attempt at an endpoint (its rules do not change while the
    /// guard lives), and about 1 % of an attempt's instructions. Only
    /// accepted URLs are kept; each connection is still checked when made.
    parsed: Mutex<HashMap<String, CheckedUrl>>,
}

/// URLs whose parse [`Inner::parsed`] keeps at most (then it starts over).
const PARSED_URLS: usize = 10_000;

/// Idle connections by [`PoolKey`], and when stale ones were last swept.
struct Pool {
    idle: HashMap<PoolKey, Vec<Connection>>,
    swept: Instant,
}

/// How often a check-in sweeps every host's idle connections.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// How one client view makes TLS connections: with no identity, or with one.
struct Tls {
    connector: TlsConnector,
    identity: Option<ClientIdentity>,
}

/// The guarded HTTPS client. Cheap to clone (clones share the pool).
#[derive(Clone)]
pub struct HttpsClient {
    inner: Arc<Inner>,
    tls: Arc<Tls>,
}

impl std::fmt::Debug for HttpsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpsClient")
            .field("settings", &self.inner.settings)
            .field("identity", &self.tls.identity)
            .finish_non_exhaustive()
    }
}

impl HttpsClient {
    /// A client over `guard` with the default pool settings.
    pub fn new(guard: Guard) -> HttpsClient {
        HttpsClient::with_pool(guard, PoolSettings::default())
    }

    /// A client over `guard` with explicit pool settings.
    pub fn with_pool(guard: Guard, settings: PoolSettings) -> HttpsClient {
        let mut config = (*guard.tls_config()).clone();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);
        HttpsClient {
            tls: Arc::new(Tls {
                connector: TlsConnector::from(Arc::clone(&config)),
                identity: None,
            }),
            inner: Arc::new(Inner {
                guard,
                tls_config: config,
                pool: Mutex::new(Pool {
                    idle: HashMap::new(),
                    swept: Instant::now(),
                }),
                settings,
                parsed: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// This client presenting `identity` to servers that ask for a client
    /// certificate: the same guard, pool and limits, its own TLS
    /// configuration (built here, once; keep the returned client), and its
    /// connections pooled apart under the identity's fingerprint.
    pub fn with_identity(&self, identity: &ClientIdentity) -> HttpsClient {
        let config = crate::tls::with_identity(&self.inner.tls_config, identity);
        HttpsClient {
            inner: Arc::clone(&self.inner),
            tls: Arc::new(Tls {
                connector: TlsConnector::from(Arc::new(config)),
                identity: Some(identity.clone()),
            }),
        }
    }

    /// The identity this client presents, if any.
    pub fn identity(&self) -> Option<&ClientIdentity> {
        self.tls.identity.as_ref()
    }

    /// `url` parsed by the guard ([`Guard::parse_url`]), from the cache when
    /// it was parsed before.
    fn parse_url(&self, url: &str) -> Result<CheckedUrl, UrlRejection> {
        if let Ok(parsed) = self.inner.parsed.lock()
            && let Some(checked) = parsed.get(url)
        {
            return Ok(checked.clone());
        }
        let checked = self.inner.guard.parse_url(url)?;
        if let Ok(mut parsed) = self.inner.parsed.lock() {
            if parsed.len() >= PARSED_URLS {
                parsed.clear();
            }
            parsed.insert(url.to_string(), checked.clone());
        }
        Ok(checked)
    }

    /// The guard every connection goes through.
    pub fn guard(&self) -> &Guard {
        &self.inner.guard
    }

    /// Parses `url` with [`Guard::parse_url`] and posts to it.
    pub async fn post_url(
        &self,
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
        body: Bytes,
        limits: Limits,
    ) -> Result<Response, GuardError> {
        let url = self.parse_url(url)?;
        self.post(&url, headers, body, limits).await
    }

    /// POSTs `body` to `url` with `headers` ([`HttpsClient::send`]).
    pub async fn post(
        &self,
        url: &CheckedUrl,
        headers: Vec<(HeaderName, HeaderValue)>,
        body: Bytes,
        limits: Limits,
    ) -> Result<Response, GuardError> {
        self.send(Method::POST, url, headers, body, limits).await
    }

    /// Sends `body` to `url` with `method` and `headers` (object storage
    /// `PUT`s through this).
    ///
    /// `Host`, `Content-Length` and `Transfer-Encoding` are set by the
    /// client; values for them in `headers` are ignored. A `User-Agent` is
    /// added when `headers` has none. The URL is parsed by the caller
    /// ([`Guard::parse_url`]); every connection is checked by the guard.
    pub async fn send(
        &self,
        method: Method,
        url: &CheckedUrl,
        headers: Vec<(HeaderName, HeaderValue)>,
        body: Bytes,
        limits: Limits,
    ) -> Result<Response, GuardError> {
        let start = Instant::now();
        let deadline = start + limits.total_timeout;
        let request = build_request(method, url, headers, body)?;
        let mut remote = None;
        let result = timeout_at(
            deadline,
            self.exchange(url, request, limits, start, deadline, &mut remote),
        )
        .await;
        match result {
            Ok(outcome) => outcome,
            Err(_) => Err(GuardError::Timeout {
                phase: "exchange",
                after: limits.total_timeout,
                addr: remote,
            }),
        }
    }

    async fn exchange(
        &self,
        url: &CheckedUrl,
        request: Request<Full<Bytes>>,
        limits: Limits,
        start: Instant,
        deadline: Instant,
        remote: &mut Option<SocketAddr>,
    ) -> Result<Response, GuardError> {
        let key: PoolKey = (
            url.host_str(),
            url.port(),
            self.tls.identity.as_ref().map(ClientIdentity::fingerprint),
        );
        let mut request = request;
        let (mut conn, reused, response) = loop {
            let (mut conn, reused) = match self.checkout(&key).await {
                Some(conn) => (conn, true),
                None => (self.open(url, limits, deadline).await?, false),
            };
            *remote = Some(conn.remote);
            match conn.sender.try_send_request(request).await {
                Ok(response) => break (conn, reused, response),
                Err(mut error) => {
                    let addr = conn.remote;
                    conn.close();
                    match error.take_message() {
                        // A pooled connection closed before the request was
                        // written: nothing was sent, so use a new connection.
                        Some(unsent) if reused => request = unsent,
                        _ => {
                            let source = error.into_error();
                            // A TLS alert on the first read: with TLS 1.3
                            // the server checks a client certificate (or its
                            // absence) only after the client's handshake.
                            if let Some(tls) = tls_error(&source) {
                                return Err(GuardError::Tls {
                                    host: url.host().to_string(),
                                    addr,
                                    source: io::Error::new(io::ErrorKind::InvalidData, tls),
                                });
                            }
                            return Err(GuardError::Http { addr, source });
                        }
                    }
                }
            }
        };
        let (parts, mut body) = response.into_parts();
        let mut prefix = BytesMut::new();
        let mut complete = false;
        let mut truncated = false;
        loop {
            if prefix.len() >= limits.max_response_body {
                complete = body.is_end_stream();
                truncated = !complete;
                break;
            }
            match body.frame().await {
                None => {
                    complete = true;
                    break;
                }
                Some(Err(_)) => {
                    // The status and headers arrived; a body that breaks
                    // off is reported as truncated, not as a failure.
                    truncated = true;
                    break;
                }
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        let room = limits.max_response_body - prefix.len();
                        if data.len() > room {
                            prefix.extend_from_slice(&data[..room]);
                            truncated = true;
                            break;
                        }
                        prefix.extend_from_slice(&data);
                    }
                }
            }
        }
        drop(body);
        let remote_addr = conn.remote;
        if complete {
            conn.idle_since = Instant::now();
            self.checkin(key, conn);
        } else {
            conn.close();
        }
        Ok(Response {
            status: parts.status,
            headers: parts.headers,
            body_prefix: prefix.freeze(),
            truncated,
            remote_addr,
            elapsed: start.elapsed(),
            reused_connection: reused,
        })
    }

    /// A new verified connection: connect_checked, TLS for the host name,
    /// HTTP/1.1 handshake.
    async fn open(
        &self,
        url: &CheckedUrl,
        limits: Limits,
        deadline: Instant,
    ) -> Result<Connection, GuardError> {
        let connect_deadline = deadline.min(Instant::now() + limits.connect_timeout);
        let budget = connect_deadline.saturating_duration_since(Instant::now());
        let (tcp, addr) = self
            .inner
            .guard
            .connect_checked(&url.host_str(), url.port(), budget)
            .await?;
        let (tls, addr) = handshake(
            &self.tls.connector,
            url.host(),
            tcp,
            addr,
            connect_deadline,
            limits.connect_timeout,
        )
        .await?;
        let (sender, connection) = http1::Builder::new()
            .max_buf_size(MAX_HEAD_BYTES)
            .handshake(TokioIo::new(tls))
            .await
            .map_err(|source| GuardError::Http { addr, source })?;
        let task = tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(target: "relay_net", %error, "outbound connection ended");
            }
        })
        .abort_handle();
        Ok(Connection {
            sender,
            remote: addr,
            task,
            idle_since: Instant::now(),
        })
    }

    fn pool(&self) -> MutexGuard<'_, Pool> {
        // The pool holds no invariant a panicking holder could break.
        self.inner
            .pool
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A pooled connection that is ready for a request, if any.
    async fn checkout(&self, key: &PoolKey) -> Option<Connection> {
        let idle_timeout = self.inner.settings.idle_timeout;
        loop {
            let candidate = {
                let mut pool = self.pool();
                pool.idle.get_mut(key)?.pop()?
            };
            let mut conn = candidate;
            if conn.reusable(idle_timeout) && conn.sender.ready().await.is_ok() {
                return Some(conn);
            }
            conn.close();
        }
    }

    fn checkin(&self, key: PoolKey, conn: Connection) {
        let settings = self.inner.settings;
        let mut pool = self.pool();
        // Now and then, drop connections the peers closed or that idled too
        // long, for every host, so hosts never used again do not keep
        // entries (a checkout also skips stale ones).
        if pool.swept.elapsed() >= SWEEP_EVERY {
            pool.swept = Instant::now();
            pool.idle.retain(|_, idle| {
                let (keep, stale): (Vec<_>, Vec<_>) = std::mem::take(idle)
                    .into_iter()
                    .partition(|c| c.reusable(settings.idle_timeout));
                stale.into_iter().for_each(Connection::close);
                *idle = keep;
                !idle.is_empty()
            });
        }
        let idle = pool.idle.entry(key).or_default();
        if idle.len() < settings.max_idle_per_host && !conn.sender.is_closed() {
            idle.push(conn);
        } else {
            conn.close();
        }
    }
}

/// The TLS error under a failed exchange, if a TLS error ended it (an
/// alert the server sent, or a record that did not decrypt).
fn tls_error(error: &hyper::Error) -> Option<rustls::Error> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<io::Error>()
            && let Some(tls) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>())
        {
            return Some(tls.clone());
        }
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(tls.clone());
        }
        source = e.source();
    }
    None
}

fn build_request(
    method: Method,
    url: &CheckedUrl,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Bytes,
) -> Result<Request<Full<Bytes>>, GuardError> {
    let invalid = |reason: String| GuardError::Rejected(UrlRejection::Invalid { reason });
    let host = HeaderValue::from_str(&url.host_header())
        .map_err(|e| invalid(format!("host header: {e}")))?;
    let mut request = Request::builder()
        .method(method)
        .version(Version::HTTP_11)
        .uri(url.path_and_query())
        .body(Full::new(body.clone()))
        .map_err(|e| invalid(format!("request target: {e}")))?;
    let map = request.headers_mut();
    for (name, value) in headers {
        if name == HOST || name == CONTENT_LENGTH || name == TRANSFER_ENCODING {
            continue;
        }
        if name == CONNECTION && value.as_bytes().eq_ignore_ascii_case(b"upgrade") {
            continue;
        }
        map.append(name, value);
    }
    map.insert(HOST, host);
    map.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
    if !map.contains_key(USER_AGENT) {
        map.insert(USER_AGENT, HeaderValue::from_static(DEFAULT_USER_AGENT));
    }
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OutboundConfig;

    fn client() -> HttpsClient {
        HttpsClient::new(Guard::from_config(&OutboundConfig::default()).expect("guard"))
    }

    /// The cache answers as the guard does, keeps only accepted URLs, and
    /// stays bounded.
    #[test]
    fn parsed_urls_are_the_guards_answers_and_bounded() {
        let c = client();
        let url = "https://hooks.example.com/relay?x=1";
        let first = c.parse_url(url).expect("accepted");
        assert_eq!(first, c.guard().parse_url(url).expect("accepted"));
        assert_eq!(c.parse_url(url).expect("cached"), first);
        assert_eq!(c.inner.parsed.lock().unwrap().len(), 1);
        for rejected in [
            "http://hooks.example.com/",
            "https://user:pw@hooks.example.com/",
        ] {
            assert!(c.parse_url(rejected).is_err(), "{rejected}");
            assert!(c.parse_url(rejected).is_err(), "{rejected}, again");
        }
        assert_eq!(c.inner.parsed.lock().unwrap().len(), 1, "no rejection kept");
        for i in 0..PARSED_URLS + 5 {
            c.parse_url(&format!("https://h{i}.example.com/"))
                .expect("accepted");
            assert!(c.inner.parsed.lock().unwrap().len() <= PARSED_URLS);
        }
    }
}
