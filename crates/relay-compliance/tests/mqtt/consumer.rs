//! The test's consumer: an MQTT 5 subscriber (over the kind's own packet
//! codec) with a persistent session, so the broker keeps what it
//! acknowledged to Relay for the consumer while the consumer is away (the
//! broker stopped and started again). It runs in the background,
//! reconnecting until it is dropped, and keeps every message it read.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use relay_destinations::mqtt::MqttVersion;
use relay_destinations::mqtt::wire::{self, Connect, Incoming, Properties};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::broker::{CONSUMER, CONSUMER_PASSWORD};

/// One message as read.
#[derive(Debug, Clone)]
pub struct Got {
    pub topic: String,
    pub props: Properties,
    pub payload: Vec<u8>,
}

pub struct Consumer {
    got: Arc<Mutex<Vec<Got>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Consumer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

impl Consumer {
    /// Subscribes to `filter` at QoS 1 on the broker at `port`; returns once
    /// the broker has acknowledged the subscription.
    pub async fn start(port: u16, filter: &str) -> Consumer {
        let got = Arc::new(Mutex::new(Vec::new()));
        let client_id = format!(
            "consumer{}n{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(run(
            port,
            filter.to_string(),
            client_id,
            Arc::clone(&got),
            ready_tx,
        ));
        tokio::time::timeout(Duration::from_secs(10), ready_rx)
            .await
            .expect("the consumer subscribed in time")
            .expect("the consumer subscribed");
        Consumer { got, task }
    }

    /// Every message read so far, oldest first.
    pub fn got(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }

    /// The messages once there are `n`, or what there is after 10 seconds.
    pub async fn wait_for(&self, n: usize) -> Vec<Got> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let got = self.got();
            if got.len() >= n || tokio::time::Instant::now() >= deadline {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

async fn run(
    port: u16,
    filter: String,
    client_id: String,
    got: Arc<Mutex<Vec<Got>>>,
    ready: tokio::sync::oneshot::Sender<()>,
) {
    let mut ready = Some(ready);
    loop {
        let _ = session(port, &filter, &client_id, &got, &mut ready).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn session(
    port: u16,
    filter: &str,
    client_id: &str,
    got: &Mutex<Vec<Got>>,
    ready: &mut Option<tokio::sync::oneshot::Sender<()>>,
) -> std::io::Result<()> {
    const V5: MqttVersion = MqttVersion::V5;
    let tcp = TcpStream::connect(("127.0.0.1", port)).await?;
    let mut io = BufReader::new(tcp);
    io.get_mut()
        .write_all(&wire::connect(&Connect {
            version: V5,
            client_id,
            username: Some(CONSUMER),
            password: Some(CONSUMER_PASSWORD.as_bytes()),
            keep_alive_secs: 0,
            clean_start: false,
            session_expiry_secs: 3600,
        }))
        .await?;
    io.get_mut()
        .write_all(&wire::subscribe(V5, 1, filter))
        .await?;
    let bad = |e: wire::Malformed| std::io::Error::other(e.to_string());
    loop {
        let raw = wire::read(&mut io, wire::MAX_REMAINING).await?;
        match wire::decode(V5, &raw).map_err(bad)? {
            Incoming::ConnAck { code, .. } if code != 0 => {
                return Err(std::io::Error::other(format!("CONNACK {code:#x}")));
            }
            Incoming::SubAck { codes, .. } => {
                assert_eq!(codes, vec![1], "subscribed at QoS 1");
                if let Some(r) = ready.take() {
                    let _ = r.send(());
                }
            }
            Incoming::Publish {
                topic,
                id,
                props,
                payload,
                ..
            } => {
                got.lock().unwrap().push(Got {
                    topic,
                    props,
                    payload,
                });
                if let Some(id) = id {
                    io.get_mut().write_all(&wire::puback(V5, id, 0)).await?;
                }
            }
            _ => {}
        }
    }
}
