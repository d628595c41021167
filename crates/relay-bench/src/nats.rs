//! `nats`: E events delivered to one `nats_jetstream` endpoint, against
//! the kind's client alone (no store, no dispatcher, no API) publishing the
//! same number of messages with the same concurrency and awaiting each
//! PubAck, in one run, into one stream on the NATS server at
//! `127.0.0.1:--nats-port` (JetStream on; `.ci/run` starts one on 4222).
//!
//! Relay's rate is the deliveries/s from the first publish to the moment
//! the stream holds every message (polled every 5 ms); the raw rate is
//! PubAcks/s from the first publish to the last PubAck. The stream is
//! created for the run (file storage) and deleted after it.

use std::sync::atomic::AtomicUsize;

use relay_core::model::{Destination, Event, NatsJetstreamDestination};
use relay_destinations::{Input, Prepared, Shared};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig, StaticResolver};
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use super::*;

/// The bench's own request client of the NATS server (stream management and
/// the stream's state), over a loopback connection from `relay-net`.
struct Admin<S> {
    io: BufReader<S>,
    next: u64,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Admin<S> {
    async fn line(&mut self) -> anyhow::Result<String> {
        let mut l = String::new();
        anyhow::ensure!(
            self.io.read_line(&mut l).await? > 0,
            "NATS closed the connection"
        );
        Ok(l.trim_end().to_owned())
    }

    async fn hello(io: S) -> anyhow::Result<Self> {
        let mut a = Admin {
            io: BufReader::new(io),
            next: 0,
        };
        let info = a.line().await?;
        anyhow::ensure!(info.starts_with("INFO "), "not a NATS server: {info}");
        a.io.get_mut()
            .write_all(b"CONNECT {\"verbose\":false,\"headers\":true,\"no_responders\":true}\r\nPING\r\nSUB _INBOX.bench.* 1\r\n")
            .await?;
        loop {
            let l = a.line().await?;
            match l.as_str() {
                "PONG" => return Ok(a),
                "PING" => a.io.get_mut().write_all(b"PONG\r\n").await?,
                e if e.starts_with("-ERR") => anyhow::bail!("NATS refused the bench: {e}"),
                _ => {}
            }
        }
    }

    /// A JetStream API request and its JSON answer.
    async fn api(&mut self, subject: &str, body: &Value) -> anyhow::Result<Value> {
        self.next += 1;
        let reply = format!("_INBOX.bench.{}", self.next);
        let body = body.to_string();
        let frame = format!("PUB {subject} {reply} {}\r\n{body}\r\n", body.len());
        self.io.get_mut().write_all(frame.as_bytes()).await?;
        loop {
            let l = self.line().await?;
            let args: Vec<&str> = l.split_whitespace().collect();
            match args.first().copied() {
                Some("PING") => self.io.get_mut().write_all(b"PONG\r\n").await?,
                Some("MSG" | "HMSG") => {
                    let total: usize = args[args.len() - 1].parse()?;
                    let hdr: usize = if args[0] == "HMSG" {
                        args[args.len() - 2].parse()?
                    } else {
                        0
                    };
                    let mut buf = vec![0; total + 2];
                    self.io.read_exact(&mut buf).await?;
                    if args[1] == reply {
                        anyhow::ensure!(total > hdr, "no JetStream answered {subject}");
                        let v: Value = serde_json::from_slice(&buf[hdr..total])?;
                        if let Some(e) = v.get("error") {
                            anyhow::bail!("{subject}: {e}");
                        }
                        return Ok(v);
                    }
                }
                Some(e) if e.starts_with("-ERR") => anyhow::bail!("NATS: {l}"),
                _ => {}
            }
        }
    }

    async fn messages(&mut self, stream: &str) -> anyhow::Result<u64> {
        let v = self
            .api(&format!("$JS.API.STREAM.INFO.{stream}"), &json!({}))
            .await?;
        Ok(v["state"]["messages"].as_u64().unwrap_or(0))
    }
}

fn raw_messages(events: u64, data: &str) -> anyhow::Result<Vec<Prepared>> {
    let key = SigningKey::generate(SignatureScheme::V1a, random_bytes::<32>());
    let now = Timestamp::from_millis(i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis(),
    )?);
    (0..events)
        .map(|i| {
            let event = Event {
                id: format!("raw-{i}"),
                event_type: "bench.published".into(),
                type_version: 1,
                environment: Environment::Live,
                subject: None,
                data: RawValue::from_string(data.to_owned())?,
                consumer_id: None,
                ordering_key: None,
                seq: None,
                traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
                expires_at: None,
                time: now,
                created_at: now,
            };
            relay_destinations::prepare(&Input {
                event: &event,
                source: "https://bench.example",
                keys: std::slice::from_ref(&key),
                attempt_number: 1,
                max_payload_bytes: 1 << 20,
                content_mode: Default::default(),
                now,
            })
            .map_err(|r| anyhow::anyhow!("cannot prepare: {}", r.as_str()))
        })
        .collect()
}

/// The kind's client alone: `concurrency` workers publishing `messages`,
/// each awaiting its PubAck. Returns (seconds, failures).
async fn raw_run(
    destination: NatsJetstreamDestination,
    messages: Vec<Prepared>,
    concurrency: usize,
) -> anyhow::Result<(f64, u64)> {
    let port = destination.port;
    let guard = Guard::with_resolver(
        &OutboundConfig {
            allow_ports: vec![port],
            allow_cidrs: vec!["127.0.0.1/32".into()],
            block_cidrs: vec![],
            extra_ca_certs: vec![],
        },
        Arc::new(StaticResolver::new()),
    )?;
    let shared = Shared {
        https: HttpsClient::new(guard),
    };
    let client = relay_destinations::build(
        &Destination::NatsJetstream(destination),
        &shared,
        &relay_core::secret::Secrets::new(),
    )
    .map_err(|e| anyhow::anyhow!("unresolved: {}", e.0))?;
    let messages = Arc::new(messages);
    let next = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let (client, messages, next, failures) = (
            client.clone(),
            messages.clone(),
            next.clone(),
            failures.clone(),
        );
        workers.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(m) = messages.get(i) else { break };
                let d = client.deliver(m, Limits::default()).await;
                if d.classify(Timestamp::from_millis(0)) != relay_core::outcome::Verdict::Delivered
                {
                    failures.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    while workers.join_next().await.is_some() {}
    Ok((
        started.elapsed().as_secs_f64(),
        failures.load(Ordering::Relaxed),
    ))
}

pub(crate) async fn nats(args: &BenchArgs, relay: Host, data: &Arc<str>) -> anyhow::Result<Report> {
    let port = args.nats_port;
    let events = args.events.unwrap_or(10_000);
    let concurrency = args.endpoint_concurrency.unwrap_or(10);
    let tag = hex::encode(random_bytes::<4>());
    let stream = format!("BENCH_{tag}");
    let connect = || async {
        let tcp = relay_net::loopback::connect_loopback(SocketAddr::from(([127, 0, 0, 1], port)))
            .await
            .with_context(|| {
                format!("no NATS server at 127.0.0.1:{port} (start one: nats-server -js)")
            })?;
        Admin::hello(tcp).await
    };
    let mut admin = connect().await?;
    admin
        .api(
            &format!("$JS.API.STREAM.CREATE.{stream}"),
            &json!({
                "name": stream, "subjects": [format!("bench.{tag}.>")], "storage": "file",
                "retention": "limits", "discard": "old", "num_replicas": 1,
            }),
        )
        .await
        .context("creating the bench's stream (is JetStream on? nats-server -js)")?;
    let destination = |part: &str| NatsJetstreamDestination {
        host: "127.0.0.1".into(),
        port,
        tls: false,
        subject: format!("bench.{tag}.{part}.{{event_type}}"),
        stream: Some(stream.clone()),
        username: None,
        password: None,
        token: None,
    };

    let env = Env::start(args, relay, &[]).await?;
    let mut api = http::Api {
        conn: Conn::plain(env.api_addr).await?,
        token: env.api_key.clone(),
    };
    let consumer = api
        .call(
            Method::POST,
            "/v1/consumers",
            Some(json!({"external_id": "nats-bench"})),
        )
        .await?;
    api.call(
        Method::POST,
        "/v1/endpoints",
        Some(json!({
            "consumer_id": consumer["id"],
            "destination": Destination::NatsJetstream(destination("relay")),
            "event_types": ["bench.published"],
            "max_concurrency": concurrency,
        })),
    )
    .await?;
    let phase = env.tracker.begin(events);
    let cpu0 = Cpu::now();
    let published = publish(
        &env,
        &phase,
        "bench.published",
        data,
        args.concurrency,
        None,
    )
    .await?;
    let deadline = Instant::now() + Duration::from_secs(args.timeout_seconds);
    let mut stored = 0;
    while stored < events && Instant::now() < deadline {
        stored = admin.messages(&stream).await?;
        if stored < events {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let relay_s = published.started.elapsed().as_secs_f64();
    let relay_cpu = cpu0.relay_since(&Cpu::now());
    let relay_rate = stored as f64 / relay_s.max(1e-9);
    let backend = env.backend;
    env.finish().await;

    let messages = raw_messages(events, data)?;
    let (raw_s, raw_failures) = raw_run(destination("raw"), messages, concurrency as usize).await?;
    let raw_rate = (events - raw_failures) as f64 / raw_s.max(1e-9);
    let total = admin.messages(&stream).await?;
    let _ = admin
        .api(&format!("$JS.API.STREAM.DELETE.{stream}"), &json!({}))
        .await;
    let ratio = relay_rate / raw_rate.max(1e-9);
    let complete = stored == events && raw_failures == 0 && total == 2 * events;

    let mut m = common_json(args, backend);
    m.insert("events".into(), json!(events));
    m.insert("endpoint_concurrency".into(), json!(concurrency));
    m.insert("delivered".into(), json!(stored));
    m.insert("publish_errors".into(), json!(published.errors));
    m.insert("relay_seconds".into(), json!(round(relay_s)));
    m.insert("relay_deliveries_per_s".into(), json!(round(relay_rate)));
    m.insert("relay_cpu_s".into(), json!(round(relay_cpu)));
    m.insert("raw_failures".into(), json!(raw_failures));
    m.insert("raw_seconds".into(), json!(round(raw_s)));
    m.insert("raw_publishes_per_s".into(), json!(round(raw_rate)));
    m.insert("ratio".into(), json!(round(ratio)));
    m.insert("stream_messages".into(), json!(total));
    m.insert("complete".into(), json!(complete));
    m.insert("target_met".into(), json!(complete && ratio >= 0.5));
    let rows = vec![
        row(
            "events",
            events.to_string(),
            format!("{concurrency} in flight"),
        ),
        row(
            "relay deliveries/s",
            format!("{relay_rate:.0}"),
            format!("{stored} stored in {relay_s:.2} s (publish → PubAck'd in the stream)"),
        ),
        row(
            "raw client publishes/s",
            format!("{raw_rate:.0}"),
            format!(
                "{raw_failures} failed, {raw_s:.2} s (the kind's client alone, PubAck awaited)"
            ),
        ),
        row(
            "ratio",
            format!("{:.0} %", ratio * 100.0),
            if ratio >= 0.5 {
                "target ≥ 50 %: met"
            } else {
                "target ≥ 50 %: NOT met"
            },
        ),
        row("relay cpu", format!("{relay_cpu:.2} s"), ""),
    ];
    Ok(Report {
        title: format!(
            "relay bench nats: {events} events to one nats_jetstream endpoint vs the raw client ({backend})"
        ),
        third: "note",
        rows,
        json: Value::Object(m),
    })
}
