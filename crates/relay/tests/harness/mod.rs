//! Shared helpers for the end-to-end delivery tests (`crash`, `nodes`,
//! `shutdown`, `judges`): `relay serve` as a real process (killed when
//! dropped, its log kept in a file), a fresh PostgreSQL database per test, the
//! HTTPS test receiver on a runtime of its own, and a small blocking HTTP
//! client for the API.
//!
//! The tests are synchronous: they block on the API and on the receiver's
//! waits (`Sink::wait_*`), which run on the receiver's runtime. Every wait has
//! a deadline.

#![allow(dead_code)] // each test binary uses part of it

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use relay_receiver::{Behavior, Receiver, ReceiverConfig, Recorded};
use serde_json::{Value, json};

/// The operator token every node is started with.
pub const OPERATOR: &str = "rop_e2e_operator_token_0f3c9a1e5b7d";
/// The master key every node is started with (64 hex digits).
pub const MASTER_KEY: &str = "6a1f0c3e9b2d4f5a7c8e0b1d3f5a7c9e2b4d6f8a0c1e3f5b7d9a1c3e5f7b9d0a";
/// The event type the helpers create, accepting any object.
pub const EVENT_TYPE: &str = "order.shipped";
/// The dispatcher's default `max_in_flight` (relay-engine `EngineConfig::new`).
pub const MAX_IN_FLIGHT: usize = 512;

// ----- relay serve ------------------------------------------------------

/// How to start `relay serve`.
#[derive(Debug, Clone)]
pub struct Settings {
    pub data_dir: PathBuf,
    /// `None`: SQLite in `data_dir`.
    pub database_url: Option<String>,
    /// The receiver's port, allowed by the outbound guard.
    pub allow_port: u16,
    /// The receiver's CA, trusted by the outbound guard.
    pub ca_pem: PathBuf,
    /// `[delivery] lease_seconds`; `None` keeps the default.
    pub lease_seconds: Option<u64>,
    /// `[delivery] shutdown_grace_seconds`; `None` keeps the default.
    pub shutdown_grace_seconds: Option<u64>,
    /// Further `RELAY_*` variables (`RELAY_INBOUND__PROCESSING=false`).
    pub env: Vec<(String, String)>,
    /// Further flags of `relay serve` (`--role worker`).
    pub args: Vec<String>,
}

impl Settings {
    /// SQLite in `data_dir`, delivering to `sink`'s receiver.
    pub fn new(data_dir: &Path, sink: &Sink) -> Settings {
        Settings {
            data_dir: data_dir.to_path_buf(),
            database_url: None,
            allow_port: sink.receiver.port(),
            ca_pem: sink.receiver.ca_pem_path().to_path_buf(),
            lease_seconds: None,
            shutdown_grace_seconds: None,
            env: Vec::new(),
            args: Vec::new(),
        }
    }

    /// Starts with `--role role` (`all`, `api`, `worker`).
    pub fn role(mut self, role: &str) -> Settings {
        self.args.extend(["--role".to_string(), role.to_string()]);
        self
    }

    /// Starts with `name=value` in the environment as well.
    pub fn env(mut self, name: &str, value: &str) -> Settings {
        self.env.push((name.to_string(), value.to_string()));
        self
    }

    pub fn database(mut self, url: Option<&str>) -> Settings {
        self.database_url = url.map(str::to_string);
        self
    }

    pub fn lease_seconds(mut self, seconds: u64) -> Settings {
        self.lease_seconds = Some(seconds);
        self
    }

    pub fn shutdown_grace_seconds(mut self, seconds: u64) -> Settings {
        self.shutdown_grace_seconds = Some(seconds);
        self
    }
}

/// A running `relay serve`, killed (SIGKILL) when dropped.
pub struct Relay {
    child: Child,
    pub url: String,
    pub pid: u32,
    /// Its stderr (the tracing log).
    pub log: PathBuf,
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

static STARTS: AtomicUsize = AtomicUsize::new(0);

/// Starts `relay serve` on a free port and waits for "Relay listening on …".
pub fn start(s: &Settings) -> Relay {
    std::fs::create_dir_all(&s.data_dir).expect("data dir");
    let n = STARTS.fetch_add(1, Ordering::Relaxed);
    let log = s.data_dir.join(format!("relay-{n}.log"));
    let stderr = std::fs::File::create(&log).expect("log file");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_relay"));
    cmd.arg("serve")
        .arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--data-dir")
        .arg(&s.data_dir)
        .args(&s.args)
        .current_dir(&s.data_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr));
    for (k, _) in std::env::vars() {
        if k.starts_with("RELAY_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("RELAY_OPERATOR_TOKEN", OPERATOR)
        .env("RELAY_MASTER_KEY", MASTER_KEY)
        .env("RELAY_OUTBOUND__ALLOW_PORTS", s.allow_port.to_string())
        .env("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.1/32")
        .env("RELAY_OUTBOUND__EXTRA_CA_CERTS", &s.ca_pem);
    if let Some(url) = &s.database_url {
        cmd.env("RELAY_DATABASE_URL", url);
    }
    if let Some(l) = s.lease_seconds {
        cmd.env("RELAY_DELIVERY__LEASE_SECONDS", l.to_string());
    }
    if let Some(g) = s.shutdown_grace_seconds {
        cmd.env("RELAY_DELIVERY__SHUTDOWN_GRACE_SECONDS", g.to_string());
    }
    for (k, v) in &s.env {
        cmd.env(k, v);
    }
    // A test run's own log filter for the processes (`RELAY_TEST_LOG`).
    if let Ok(filter) = std::env::var("RELAY_TEST_LOG") {
        cmd.env("RELAY_LOG", filter);
    }
    let child = cmd.spawn().expect("start relay serve");
    // Owned at once, so a failure below still kills the process.
    let mut relay = Relay {
        pid: child.id(),
        child,
        url: String::new(),
        log,
    };
    let stdout = relay.child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // Keep draining after the address is known so the pipe never fills.
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                if let Some(rest) = line.strip_prefix("Relay listening on ") {
                    relay.url = rest
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_string();
                    return relay;
                }
            }
            Err(e) => panic!(
                "relay serve did not print its address ({e})\n{}",
                relay.log_tail(40)
            ),
        }
    }
}

impl Relay {
    /// SIGKILL, and reap the process.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM with `kill -TERM <pid>`.
    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid.to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -TERM {} failed", self.pid);
    }

    /// Waits for the process to exit; `None` when it is still running at the deadline.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The last `n` lines of the log.
    pub fn log_tail(&self, n: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Fails when the process reported a panic: a panicking task can take
    /// the dispatcher down with it while the API still answers.
    #[track_caller]
    pub fn assert_no_panic(&self) {
        let log = self.log_text();
        let panics: Vec<&str> = log.lines().filter(|l| l.contains("panicked at")).collect();
        assert!(
            panics.is_empty(),
            "relay serve (pid {}) panicked:\n{}\n{}",
            self.pid,
            panics.join("\n"),
            self.log_tail(10)
        );
    }

    /// `GET /metrics`.
    pub fn metrics(&self) -> String {
        let (status, body) = http("GET", &format!("{}/metrics", self.url), None, None)
            .unwrap_or_else(|e| panic!("GET /metrics: {e}"));
        assert_eq!(status, 200, "{body}");
        body
    }

    /// The API with the operator token.
    pub fn operator(&self) -> Api {
        Api::new(&self.url, OPERATOR)
    }
}

/// The value of the sample named exactly `series` (e.g.
/// `relay_attempts_total{outcome="delivered"}`) in a Prometheus text page.
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(series)?;
        rest.strip_prefix(' ')?.trim().parse().ok()
    })
}

// ----- PostgreSQL -------------------------------------------------------

/// A database of its own on the tests' PostgreSQL server
/// (`relay_store::testenv::postgres_url`), dropped (with its connections)
/// when this is dropped.
pub struct PgDb {
    admin: String,
    pub name: String,
    pub url: String,
}

impl PgDb {
    /// `None` (after printing the SKIPPED line) when there is no server.
    pub fn create(test: &str) -> Option<PgDb> {
        let admin = relay_store::testenv::postgres_url(test)?;
        let name = format!("relay_e2e_{test}_{}", std::process::id());
        psql(
            &admin,
            &[
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                &format!("CREATE DATABASE {name}"),
            ],
        );
        let url = match admin.rsplit_once('/') {
            Some((base, _)) => format!("{base}/{name}"),
            None => panic!("the tests' PostgreSQL URL has no database name"),
        };
        Some(PgDb { admin, name, url })
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .arg(&self.admin)
            .args([
                "-c",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
            ])
            .output();
    }
}

fn psql(url: &str, statements: &[&str]) {
    let mut cmd = Command::new("psql");
    cmd.arg(url).args(["-v", "ON_ERROR_STOP=1"]);
    for s in statements {
        cmd.args(["-c", s]);
    }
    let out = cmd.output().expect("run psql");
    assert!(
        out.status.success(),
        "psql: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ----- the receiver -----------------------------------------------------

/// The HTTPS test receiver on a runtime of its own, so the blocking test
/// thread never starves it.
pub struct Sink {
    // Dropped before the runtime.
    pub receiver: Receiver,
    rt: tokio::runtime::Runtime,
}

impl Sink {
    pub fn start(behavior: Behavior) -> Sink {
        Sink::start_with(ReceiverConfig {
            behavior,
            ..ReceiverConfig::default()
        })
    }

    /// A receiver started with `config` (mutual TLS, TLS 1.2 only, …).
    pub fn start_with(config: ReceiverConfig) -> Sink {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("receiver runtime");
        let receiver = rt
            .block_on(Receiver::start(config))
            .expect("start the receiver");
        Sink { receiver, rt }
    }

    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// Waits until at least `n` requests arrived; returns the count.
    pub fn wait_count(&self, n: u64, deadline: Instant) -> Result<u64, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.rt
            .block_on(self.receiver.wait_for_count(n, left))
            .map_err(|e| e.to_string())
    }

    /// Waits until at least `n` requests are in flight at once.
    pub fn wait_in_flight(&self, n: usize, deadline: Instant) -> Result<(), String> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.rt
            .block_on(self.receiver.wait_in_flight(n, left))
            .map_err(|e| e.to_string())
    }

    /// Waits until every key in `wanted` (by `key_of` a request) has arrived
    /// at least once; returns all requests. Wakes on the receiver's count,
    /// never on a timer.
    pub fn wait_for_all<K: std::hash::Hash + Eq>(
        &self,
        wanted: &std::collections::HashSet<K>,
        key_of: impl Fn(&Recorded) -> Option<K>,
        deadline: Instant,
    ) -> Result<Vec<Recorded>, String> {
        let mut need = wanted.len() as u64;
        loop {
            let count = self.wait_count(need, deadline).map_err(|e| {
                let seen: std::collections::HashSet<K> = self
                    .receiver
                    .requests()
                    .iter()
                    .filter_map(&key_of)
                    .collect();
                let missing = wanted.iter().filter(|k| !seen.contains(k)).count();
                format!("{e}; {missing} of {} still missing", wanted.len())
            })?;
            let requests = self.receiver.requests();
            let seen: std::collections::HashSet<K> = requests.iter().filter_map(&key_of).collect();
            let missing = wanted.iter().filter(|k| !seen.contains(k)).count() as u64;
            if missing == 0 {
                return Ok(requests);
            }
            need = count + missing;
        }
    }
}

/// `(path, webhook-id)` of a request.
pub fn path_and_id(r: &Recorded) -> Option<(String, String)> {
    Some((r.path.clone(), r.header("webhook-id")?.to_string()))
}

/// Requests per `(path, webhook-id)`, each list in order of arrival.
pub fn by_message(requests: &[Recorded]) -> HashMap<(String, String), Vec<&Recorded>> {
    let mut map: HashMap<(String, String), Vec<&Recorded>> = HashMap::new();
    for r in requests {
        if let Some(k) = path_and_id(r) {
            map.entry(k).or_default().push(r);
        }
    }
    map
}

// ----- HTTP -------------------------------------------------------------

/// A blocking HTTP/1.1 request on a fresh connection (`Connection: close`);
/// returns (status, body).
pub fn http(
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> std::io::Result<(u16, String)> {
    let invalid = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, m.to_string());
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| invalid("only http:// URLs"))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let addr = host
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| invalid("no address"))?;
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_write_timeout(Some(Duration::from_secs(10)))?;
    let body = body.unwrap_or("");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| invalid("no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let payload = &raw[split + 4..];
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("no status"))?;
    let chunked = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let body = if chunked {
        dechunk(payload).ok_or_else(|| invalid("bad chunked body"))?
    } else {
        payload.to_vec()
    };
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

/// The API at `base` with a bearer token.
#[derive(Debug, Clone)]
pub struct Api {
    pub base: String,
    pub token: String,
}

impl Api {
    pub fn new(base: &str, token: &str) -> Api {
        Api {
            base: base.to_string(),
            token: token.to_string(),
        }
    }

    /// The same credentials against another node.
    pub fn at(&self, base: &str) -> Api {
        Api::new(base, &self.token)
    }

    /// One request; (status, JSON body or `null`).
    pub fn try_call(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> std::io::Result<(u16, Value)> {
        let text = body.map(Value::to_string);
        let (status, body) = http(
            method,
            &format!("{}{path}", self.base),
            Some(&self.token),
            text.as_deref(),
        )?;
        let json = if body.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&body).unwrap_or(Value::String(body))
        };
        Ok((status, json))
    }

    /// One request that must answer `status`; returns the JSON body.
    #[track_caller]
    pub fn expect(&self, method: &str, path: &str, body: Option<&Value>, status: u16) -> Value {
        let (got, json) = self
            .try_call(method, path, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert_eq!(got, status, "{method} {path}: {json}");
        json
    }

    pub fn get(&self, path: &str) -> Value {
        self.expect("GET", path, None, 200)
    }

    /// Every item of a paginated list (`path` may already have a query).
    pub fn list_all(&self, path: &str) -> Vec<Value> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut out = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page_path = match &after {
                Some(a) => format!("{path}{sep}limit=250&after={a}"),
                None => format!("{path}{sep}limit=250"),
            };
            let page = self.get(&page_path);
            out.extend(page["data"].as_array().cloned().unwrap_or_default());
            match page["next_after"].as_str() {
                Some(a) => after = Some(a.to_string()),
                None => return out,
            }
        }
    }

    /// Publishes one event with our own `id` (idempotent); (status, body).
    pub fn publish(&self, id: &str, subject: &str) -> std::io::Result<(u16, Value)> {
        self.try_call("POST", "/v1/events", Some(&event_body(id, subject)))
    }

    /// Publishes one event for one consumer's endpoints only; must answer 202.
    #[track_caller]
    pub fn publish_to(&self, consumer_id: &str, id: &str) -> Value {
        let mut body = event_body(id, &format!("order/{id}"));
        body["consumer_id"] = json!(consumer_id);
        self.expect("POST", "/v1/events", Some(&body), 202)
    }
}

/// A publish body for [`EVENT_TYPE`] with our own `id`.
pub fn event_body(id: &str, subject: &str) -> Value {
    json!({
        "id": id,
        "type": EVENT_TYPE,
        "subject": subject,
        "data": { "order_id": id, "carrier": "DHL" },
    })
}

/// A tenant with a live API key, the open event type and one consumer.
pub struct Tenant {
    /// The API with the tenant's key.
    pub api: Api,
    pub tenant_id: String,
    pub consumer_id: String,
}

/// Creates a tenant, a live key, [`EVENT_TYPE`] and a consumer through the API at `base`.
pub fn tenant(base: &str, name: &str) -> Tenant {
    let op = Api::new(base, OPERATOR);
    let t = op.expect("POST", "/v1/tenants", Some(&json!({ "name": name })), 201);
    let tenant_id = t["id"].as_str().expect("tenant id");
    let k = op.expect(
        "POST",
        &format!("/v1/tenants/{tenant_id}/api-keys"),
        Some(&json!({ "environment": "live", "name": "e2e" })),
        201,
    );
    let api = Api::new(base, k["key"].as_str().expect("key"));
    let (status, body) = api
        .try_call(
            "PUT",
            &format!("/v1/event-types/{EVENT_TYPE}"),
            // For all consumers: the tests publish for no consumer and
            // expect every subscriber to get it (`relay_core::audience`).
            Some(
                &json!({ "description": "e2e", "schema": { "type": "object" },
                          "audience": "all_consumers" }),
            ),
        )
        .expect("PUT event type");
    assert!(status == 200 || status == 201, "{status} {body}");
    let c = api.expect(
        "POST",
        "/v1/consumers",
        Some(&json!({ "external_id": format!("{name}-consumer"), "name": "Consumer" })),
        201,
    );
    Tenant {
        tenant_id: tenant_id.to_string(),
        consumer_id: c["id"].as_str().expect("consumer id").to_string(),
        api,
    }
}

impl Tenant {
    /// Creates another consumer; returns its id.
    pub fn consumer(&self, external_id: &str) -> String {
        let c = self.api.expect(
            "POST",
            "/v1/consumers",
            Some(&json!({ "external_id": external_id, "name": external_id })),
            201,
        );
        id_of(&c)
    }

    /// Creates an HTTPS endpoint of the first consumer at `url`, subscribed
    /// to [`EVENT_TYPE`]; returns the create response (with `secret` or `public_key`).
    pub fn endpoint(&self, url: &str, scheme: &str) -> Value {
        self.endpoint_for(&self.consumer_id, url, scheme)
    }

    /// Creates an HTTPS endpoint of `consumer_id` at `url`, with a snapshot
    /// of every field (the tests here look at whole payloads; thin ones are
    /// `payloads.rs`'s).
    pub fn endpoint_for(&self, consumer_id: &str, url: &str, scheme: &str) -> Value {
        self.api.expect(
            "POST",
            "/v1/endpoints",
            Some(&json!({
                "consumer_id": consumer_id,
                "destination": { "kind": "https", "url": url },
                "event_types": [EVENT_TYPE],
                "signature_scheme": scheme,
                "max_concurrency": 100,
                "snapshot_fields": ["*"],
            })),
            201,
        )
    }
}

pub fn id_of(v: &Value) -> String {
    v["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {v}"))
        .to_string()
}

/// Polls `check` (an API read) until it returns `Some`, or panics with
/// `what` at the deadline. For database state, which has no push signal.
pub fn eventually<T>(what: &str, deadline: Instant, mut check: impl FnMut() -> Option<T>) -> T {
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Messages of `endpoint_id` that are not terminal (`scheduled`, `in_flight`).
pub fn open_messages(api: &Api, endpoint_id: &str) -> usize {
    // One pass over every message, not one list per open state: a message
    // whose expired lease is rescued (in_flight → scheduled) between two
    // such lists is in neither, and is claimed again right after. Read once
    // each, a message found delivered stays so.
    api.list_all(&format!("/v1/messages?endpoint_id={endpoint_id}"))
        .iter()
        .filter(|m| m["state"] == "scheduled" || m["state"] == "in_flight")
        .count()
}

// ----- the judges -------------------------------------------------------

/// The project's judges (`scripts/judges/`) in the test environment's
/// Python; panics, saying how to make that environment, when it is missing.
pub fn judges() -> relay_receiver::Judges {
    relay_receiver::Judges::find()
}
