//! `nats`: the broker workload ([`super::broker`]) against a NATS server
//! with JetStream on `127.0.0.1:--nats-port`, success on the PubAck. Each
//! side publishes to its own stream (file storage), created for the run and
//! deleted after it.

use relay_destinations::Config;
use relay_destinations::nats_jetstream::NatsJetstreamDestination;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use super::broker::{Broker, Side};
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

/// The NATS server with a stream per side.
pub(crate) struct Nats<S> {
    admin: Admin<S>,
    port: u16,
    tag: String,
}

impl<S> Nats<S> {
    fn stream(&self, side: Side) -> String {
        format!("BENCH_{}_{}", self.tag, side.as_str().to_uppercase())
    }
}

/// Connects to the server and creates the run's two streams.
pub(crate) async fn nats(port: u16) -> anyhow::Result<Nats<impl AsyncRead + AsyncWrite + Unpin>> {
    let tcp = relay_net::loopback::connect_loopback(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .with_context(|| {
            format!("no NATS server at 127.0.0.1:{port} (start one: nats-server -js)")
        })?;
    let mut n = Nats {
        admin: Admin::hello(tcp).await?,
        port,
        tag: hex::encode(random_bytes::<4>()),
    };
    for side in [Side::Relay, Side::Raw] {
        let stream = n.stream(side);
        n.admin
            .api(
                &format!("$JS.API.STREAM.CREATE.{stream}"),
                &json!({
                    "name": stream,
                    "subjects": [format!("bench.{}.{}.>", n.tag, side.as_str())],
                    "storage": "file", "retention": "limits", "discard": "old", "num_replicas": 1,
                }),
            )
            .await
            .context("creating the bench's stream (is JetStream on? nats-server -js)")?;
    }
    Ok(n)
}

impl<S: AsyncRead + AsyncWrite + Unpin> Broker for Nats<S> {
    fn name(&self) -> &'static str {
        "nats"
    }

    fn ack(&self) -> &'static str {
        "PubAck"
    }

    fn port(&self) -> u16 {
        self.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::NatsJetstream(NatsJetstreamDestination {
            host: "127.0.0.1".into(),
            port: self.port,
            tls: false,
            subject: format!("bench.{}.{}.{{event_type}}", self.tag, side.as_str()),
            stream: Some(self.stream(side)),
            username: None,
            password: None,
            token: None,
            content_mode: Default::default(),
        })
    }

    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        let stream = self.stream(side);
        self.admin.messages(&stream).await
    }

    async fn clean_up(&mut self) {
        for side in [Side::Relay, Side::Raw] {
            let stream = self.stream(side);
            let _ = self
                .admin
                .api(&format!("$JS.API.STREAM.DELETE.{stream}"), &json!({}))
                .await;
        }
    }
}
