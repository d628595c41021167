//! RabbitMQ passes the compliance suite against a real broker: a private
//! `rabbitmq-server` on free ports (so the suite can stop it and pause it;
//! see `rabbitmq/node.rs`), reached through the operator's allow list.
//! Each test gets its own durable exchange and queue. Its modes: retryable
//! = the exchange routes only to a queue with `x-max-length 0` and
//! `x-overflow reject-publish` (every publish is nacked); permanent = no
//! queue is bound (`basic.return` 312 NO_ROUTE); hang = the broker's VM is
//! paused (SIGSTOP); down = the broker stopped (and started again, its
//! durable queue and persistent messages kept). Relay logs in as a user of
//! its own whose password the endpoint names by a `file:` secret reference
//! the operator's policy allows; the secrets case proves it never reaches
//! a log, a record or `Debug`.
//!
//! The consumer reads every message with `basic.get`; the suite verifies
//! each signature with `relay-verify`. Beyond the suite, the answers are
//! checked one by one against the real broker: nack, NO_ROUTE, an unknown
//! exchange, a virtual host the user may not open, and the message's
//! properties.

#[path = "rabbitmq/node.rs"]
mod node;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use relay_compliance::{Mode, Peer, Received, compliance_suite};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::rabbitmq::CE_PREFIX;
use relay_destinations::rabbitmq::RabbitMqDestination;
use relay_destinations::rabbitmq::conn::Connection;
use relay_destinations::rabbitmq::wire::{Args, Table, Value, id};
use relay_net::{OutboundConfig, StaticResolver};
use tokio::sync::{Mutex, OwnedMutexGuard};
use tokio::time::Instant;

const HOST: &str = "rabbitmq.compliance.test";
const ROUTING_KEY: &str = "{environment}.{event_type}";
/// What the template above gives for the harness's events.
const KEY: &str = "live.order.shipped";

static NEXT: AtomicU32 = AtomicU32::new(1);

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

/// The exchange and queues of one test.
struct Names {
    exchange: String,
    queue: String,
    full: String,
}

impl Names {
    fn new() -> Names {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Names {
            exchange: format!("relay-ex-{n}"),
            queue: format!("relay-q-{n}"),
            full: format!("relay-full-{n}"),
        }
    }
}

/// `exchange.declare` (direct, durable).
async fn declare_exchange(c: &mut Connection, name: &str) {
    let args = Args::new()
        .short(0)
        .shortstr(name.as_bytes())
        .shortstr(b"direct")
        .bits(&[false, true, false, false, false])
        .table(&Table::new());
    c.call(id::EXCHANGE_DECLARE, args, id::EXCHANGE_DECLARE_OK, soon())
        .await
        .expect("exchange.declare");
}

/// `queue.declare` (durable) with `arguments`.
async fn declare_queue(c: &mut Connection, name: &str, arguments: Table) {
    let args = Args::new()
        .short(0)
        .shortstr(name.as_bytes())
        .bits(&[false, true, false, false, false])
        .table(&arguments);
    c.call(id::QUEUE_DECLARE, args, id::QUEUE_DECLARE_OK, soon())
        .await
        .expect("queue.declare");
}

async fn bind(c: &mut Connection, queue: &str, exchange: &str, bound: bool) {
    let args = Args::new()
        .short(0)
        .shortstr(queue.as_bytes())
        .shortstr(exchange.as_bytes())
        .shortstr(KEY.as_bytes());
    let r = if bound {
        let args = args.bits(&[false]).table(&Table::new());
        c.call(id::QUEUE_BIND, args, id::QUEUE_BIND_OK, soon())
            .await
    } else {
        let args = args.table(&Table::new());
        c.call(id::QUEUE_UNBIND, args, id::QUEUE_UNBIND_OK, soon())
            .await
    };
    r.expect("queue.bind/unbind");
}

/// The exchange, its queue bound with [`KEY`], and the always-full queue.
async fn set_up(c: &mut Connection, names: &Names) {
    declare_exchange(c, &names.exchange).await;
    declare_queue(c, &names.queue, Table::new()).await;
    declare_queue(
        c,
        &names.full,
        Table::new()
            .with("x-max-length", Value::Int(0))
            .with("x-overflow", Value::Str(b"reject-publish".to_vec())),
    )
    .await;
    bind(c, &names.queue, &names.exchange, true).await;
}

/// Every message left in `queue`, read and removed.
async fn drain(
    c: &mut Connection,
    queue: &str,
) -> Vec<(Received, relay_destinations::rabbitmq::wire::Properties)> {
    let mut out = Vec::new();
    while let Some((p, body)) = c.get(queue, soon()).await.expect("basic.get") {
        let h = p.headers.clone().unwrap_or_default();
        let get = |k: &str| String::from_utf8_lossy(h.str(k).unwrap_or_default()).into_owned();
        // Binary mode (the CloudEvents AMQP binding): `cloudEvents_<name>`
        // headers, `datacontenttype` as the `content-type` property.
        let ce: Vec<(String, String)> =
            h.0.iter()
                .filter_map(|(name, v)| {
                    let name = name.strip_prefix(CE_PREFIX)?;
                    match v {
                        Value::Str(s) => {
                            Some((name.to_string(), String::from_utf8_lossy(s).into_owned()))
                        }
                        _ => None,
                    }
                })
                .collect();
        let binary = (!ce.is_empty()).then(|| {
            let mut attributes = ce;
            attributes.push((
                "datacontenttype".into(),
                p.content_type.clone().unwrap_or_default(),
            ));
            attributes
        });
        out.push((
            Received {
                body,
                webhook_id: get("webhook-id"),
                webhook_timestamp: get("webhook-timestamp"),
                webhook_signature: get("webhook-signature"),
                binary,
            },
            p,
        ));
    }
    out
}

struct State {
    node: OwnedMutexGuard<node::Node>,
    admin: Option<Connection>,
    mode: Mode,
    received: Vec<Received>,
}

impl State {
    async fn admin(&mut self) -> &mut Connection {
        if self.admin.is_none() {
            self.admin = Some(self.node.admin().await);
        }
        self.admin.as_mut().expect("just opened")
    }
}

struct RabbitPeer {
    port: u16,
    /// The node's password for [`node::USER`], its file and directory.
    password: String,
    password_file: String,
    dir: String,
    names: Names,
    state: Mutex<State>,
}

fn outbound(port: u16) -> (OutboundConfig, StaticResolver) {
    (
        OutboundConfig {
            allow_ports: vec![port],
            allow_cidrs: vec!["127.0.0.1/32".into()],
            block_cidrs: vec![],
            extra_ca_certs: vec![],
            allow_plaintext_credentials_to_loopback: true,
        },
        StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]),
    )
}

/// The destination, logging in as [`node::USER`] with the password in
/// `password_file`.
fn destination(port: u16, exchange: &str, password_file: &str) -> RabbitMqDestination {
    RabbitMqDestination {
        host: HOST.into(),
        port,
        tls: false,
        virtual_host: "/".into(),
        exchange: exchange.into(),
        routing_key: ROUTING_KEY.into(),
        username: Some(node::USER.into()),
        password: Some(SecretRef::File(password_file.into())),
        content_mode: Default::default(),
    }
}

/// The private node, or `None` after saying `SKIPPED`.
async fn node() -> Option<OwnedMutexGuard<node::Node>> {
    if !node::installed() {
        relay_store::testenv::skip(
            "rabbitmq compliance",
            "rabbitmq-server is not installed (Debian: apt-get install rabbitmq-server)",
        );
        return None;
    }
    node::lock().await
}

impl Peer for RabbitPeer {
    const KIND: &'static str = "rabbitmq";

    async fn start() -> Option<Self> {
        let node = node().await?;
        let names = Names::new();
        let mut state = State {
            node,
            admin: None,
            mode: Mode::Accept,
            received: Vec::new(),
        };
        set_up(state.admin().await, &names).await;
        Some(RabbitPeer {
            port: state.node.port,
            password: state.node.password.clone(),
            password_file: state.node.password_file(),
            dir: state.node.dir(),
            names,
            state: Mutex::new(state),
        })
    }

    fn destination(&self) -> Config {
        Config::RabbitMq(destination(
            self.port,
            &self.names.exchange,
            &self.password_file,
        ))
    }

    fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.dir.clone()],
        }
    }

    fn secrets(&self) -> Vec<String> {
        vec![self.password.clone()]
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        outbound(self.port)
    }

    async fn set_mode(&self, mode: Mode) {
        let n = &self.names;
        let mut s = self.state.lock().await;
        // Leave the current mode.
        match s.mode {
            Mode::Down if mode != Mode::Down => s.node.start().await,
            Mode::Hang => s.node.resume(),
            Mode::FailRetryable => {
                let c = s.admin().await;
                bind(c, &n.full, &n.exchange, false).await;
                bind(c, &n.queue, &n.exchange, true).await;
            }
            Mode::FailPermanent => bind(s.admin().await, &n.queue, &n.exchange, true).await,
            _ => {}
        }
        // Enter the new one.
        match mode {
            Mode::Accept => {}
            Mode::FailRetryable => {
                let c = s.admin().await;
                bind(c, &n.queue, &n.exchange, false).await;
                bind(c, &n.full, &n.exchange, true).await;
            }
            Mode::FailPermanent => bind(s.admin().await, &n.queue, &n.exchange, false).await,
            Mode::Hang => s.node.pause(),
            Mode::Down if s.mode != Mode::Down => {
                let got = drain(s.admin().await, &n.queue).await;
                s.received.extend(got.into_iter().map(|(r, _)| r));
                s.admin = None;
                s.node.stop();
            }
            Mode::Down => {}
        }
        s.mode = mode;
    }

    async fn received(&self) -> Vec<Received> {
        let mut s = self.state.lock().await;
        if !matches!(s.mode, Mode::Hang | Mode::Down) {
            let queue = self.names.queue.clone();
            let got = drain(s.admin().await, &queue).await;
            s.received.extend(got.into_iter().map(|(r, _)| r));
        }
        s.received.clone()
    }

    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        &[relay_core::model::ErrorKind::Connect]
    }
}

compliance_suite!(RabbitPeer; binary);

#[path = "rabbitmq/answers.rs"]
mod answers;
