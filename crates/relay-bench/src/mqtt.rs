//! `mqtt`: the broker workload ([`super::broker`]) against the MQTT broker
//! on `127.0.0.1:--mqtt-port` (MQTT 5, QoS 1, anonymous publishing
//! allowed), success on the `PUBACK` of each publish's packet identifier.
//! Each side publishes to its own topic under `bench/<tag>/`; the bench's
//! own QoS 1 subscriber on `bench/<tag>/#` counts what the broker hands on
//! for each (the broker does the same work for both sides).

use relay_core::model::ContentMode;
use relay_destinations::Config;
use relay_destinations::mqtt::wire::{self, Connect, Incoming};
use relay_destinations::mqtt::{MqttDestination, MqttVersion};
use tokio::io::{AsyncWriteExt, BufReader};

use super::broker::{Broker, Side};
use super::*;

/// Messages the bench's subscriber has read, per side.
#[derive(Default)]
struct Counts {
    relay: AtomicU64,
    raw: AtomicU64,
}

pub(crate) struct Mqtt {
    port: u16,
    tag: String,
    counts: Arc<Counts>,
    subscriber: tokio::task::JoinHandle<()>,
}

/// Subscribes to `bench/<tag>/#` at QoS 1 and counts until cleaned up;
/// returns once the broker has acknowledged the subscription.
pub(crate) async fn mqtt(port: u16) -> anyhow::Result<Mqtt> {
    const V5: MqttVersion = MqttVersion::V5;
    let tag = hex::encode(random_bytes::<4>());
    let tcp = relay_net::loopback::connect_loopback(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .with_context(|| format!("no MQTT broker at 127.0.0.1:{port} (start one: mosquitto -d)"))?;
    let mut io = BufReader::new(tcp);
    let client_id = format!("bench{tag}");
    io.get_mut()
        .write_all(&wire::connect(&Connect {
            version: V5,
            client_id: &client_id,
            username: None,
            password: None,
            keep_alive_secs: 0,
            clean_start: true,
            session_expiry_secs: 0,
        }))
        .await?;
    io.get_mut()
        .write_all(&wire::subscribe(V5, 1, &format!("bench/{tag}/#")))
        .await?;
    loop {
        let raw = wire::read(&mut io, wire::MAX_REMAINING).await?;
        match wire::decode(V5, &raw).map_err(|e| anyhow::anyhow!("{e}"))? {
            Incoming::ConnAck { code, .. } if code != 0 => {
                anyhow::bail!("the broker refused the bench's subscriber: CONNACK {code:#x}")
            }
            Incoming::SubAck { codes, .. } => {
                anyhow::ensure!(
                    codes == [1],
                    "the broker refused the subscription: {codes:?}"
                );
                break;
            }
            _ => {}
        }
    }
    let counts = Arc::new(Counts::default());
    let relay_prefix = format!("bench/{tag}/relay/");
    let c = counts.clone();
    let subscriber = tokio::spawn(async move {
        while let Ok(raw) = wire::read(&mut io, wire::MAX_REMAINING).await {
            if let Ok(Incoming::Publish { topic, id, .. }) = wire::decode(V5, &raw) {
                let side = if topic.starts_with(&relay_prefix) {
                    &c.relay
                } else {
                    &c.raw
                };
                side.fetch_add(1, Ordering::Relaxed);
                if let Some(id) = id
                    && io
                        .get_mut()
                        .write_all(&wire::puback(V5, id, 0))
                        .await
                        .is_err()
                {
                    return;
                }
            }
        }
    });
    Ok(Mqtt {
        port,
        tag,
        counts,
        subscriber,
    })
}

impl Broker for Mqtt {
    fn name(&self) -> &'static str {
        "mqtt"
    }

    fn ack(&self) -> &'static str {
        "PUBACK"
    }

    fn port(&self) -> u16 {
        self.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::Mqtt(MqttDestination {
            host: "127.0.0.1".into(),
            port: self.port,
            tls: false,
            topic: format!("bench/{}/{}/{{event_type}}", self.tag, side.as_str()),
            protocol_version: MqttVersion::V5,
            client_id: None,
            username: None,
            password: None,
            content_mode: ContentMode::Structured,
        })
    }

    /// What the subscriber has read of the side's topic. The raw side is
    /// asked once, after its last `PUBACK`: the count is taken when it has
    /// not grown for 100 ms (the broker forwards what it acknowledged).
    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        let count = match side {
            Side::Relay => &self.counts.relay,
            Side::Raw => &self.counts.raw,
        };
        if side == Side::Relay {
            return Ok(count.load(Ordering::Relaxed));
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut last = count.load(Ordering::Relaxed);
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let now = count.load(Ordering::Relaxed);
            if now == last || Instant::now() > deadline {
                return Ok(now);
            }
            last = now;
        }
    }

    async fn clean_up(&mut self) {
        self.subscriber.abort();
    }
}
