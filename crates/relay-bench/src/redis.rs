//! `redis`: the broker workload ([`super::broker`]) against the Redis server
//! on `127.0.0.1:--redis-port`, success on the `XADD` reply's entry id.
//! Each side adds to its own stream key, deleted after the run.

use relay_core::model::ContentMode;
use relay_destinations::Config;
use relay_destinations::redis_stream::RedisStreamDestination;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use super::broker::{Broker, Side};
use super::*;

/// The bench's own connection to the server (`XLEN`, `DEL`), from `relay-net`.
pub(crate) struct Redis<S> {
    io: BufReader<S>,
    port: u16,
    tag: String,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Redis<S> {
    fn key(&self, side: Side) -> String {
        format!("relay-bench:{}:{}", self.tag, side.as_str())
    }

    /// One command; its integer reply.
    async fn integer(&mut self, args: &[&str]) -> anyhow::Result<i64> {
        let mut out = format!("*{}\r\n", args.len());
        for a in args {
            out.push_str(&format!("${}\r\n{a}\r\n", a.len()));
        }
        self.io.get_mut().write_all(out.as_bytes()).await?;
        let mut line = String::new();
        anyhow::ensure!(
            self.io.read_line(&mut line).await? > 0,
            "Redis closed the connection"
        );
        let line = line.trim_end();
        match line.split_at_checked(1) {
            Some((":", n)) => Ok(n.parse()?),
            Some(("$", n)) => {
                // A bulk reply where an integer was expected: skip it.
                let n: i64 = n.parse()?;
                if n >= 0 {
                    let mut skip = vec![0; usize::try_from(n)? + 2];
                    self.io.read_exact(&mut skip).await?;
                }
                anyhow::bail!("Redis answered {} with a bulk reply", args[0])
            }
            _ => anyhow::bail!("Redis answered {}: {line}", args[0]),
        }
    }
}

/// Connects to the server (the stream keys are made by the first `XADD`).
pub(crate) async fn redis(port: u16) -> anyhow::Result<Redis<impl AsyncRead + AsyncWrite + Unpin>> {
    let tcp = relay_net::loopback::connect_loopback(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .with_context(|| {
            format!("no Redis server at 127.0.0.1:{port} (start one: redis-server)")
        })?;
    let mut r = Redis {
        io: BufReader::new(tcp),
        port,
        tag: hex::encode(random_bytes::<4>()),
    };
    // Streams need Redis 5; XLEN of a missing key is 0 on any version.
    let key = r.key(Side::Relay);
    r.integer(&["XLEN", &key])
        .await
        .context("XLEN (is this Redis 5 or later?)")?;
    Ok(r)
}

impl<S: AsyncRead + AsyncWrite + Unpin> Broker for Redis<S> {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn ack(&self) -> &'static str {
        "XADD entry id"
    }

    fn port(&self) -> u16 {
        self.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::RedisStream(RedisStreamDestination {
            host: "127.0.0.1".into(),
            port: self.port,
            tls: false,
            database: None,
            stream: self.key(side),
            max_len: None,
            username: None,
            password: None,
            content_mode: ContentMode::Structured,
            wait_aof: None,
        })
    }

    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        let key = self.key(side);
        Ok(u64::try_from(self.integer(&["XLEN", &key]).await?)?)
    }

    async fn clean_up(&mut self) {
        let (relay, raw) = (self.key(Side::Relay), self.key(Side::Raw));
        let _ = self.integer(&["DEL", &relay, &raw]).await;
    }
}
