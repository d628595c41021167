//! The `service-bus` workload, a [`Broker`] of the broker workload: E
//! events delivered to one `azure_service_bus` endpoint (a queue of the
//! Service Bus judge Relay's tests run against,
//! `scripts/judges/servicebus_judge.py`: the documented REST send, each
//! SAS token recomputed from the key, the message appended to its file
//! before the `201`), beside the kind's client alone sending as many
//! messages with the same acknowledgement (`201 Created`) and the same
//! concurrency to a second queue, in one run. No Service Bus emulator
//! exists: the ratio is Relay's against the same client over the same
//! judge. A side's count is its queue's lines in the judge's file, read
//! every 20 ms.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use relay_destinations::Config;
use relay_destinations::service_bus::{SasKey, ServiceBusAuth, ServiceBusDestination};

use super::broker::{Broker, Side};
use super::*;

/// The shared access rule, and the tenant secret holding its key.
const RULE: &str = "relay-bench-send";
const KEY_SECRET: &str = "bench-sb-key";

/// The queue each side sends to.
const fn name(side: Side) -> &'static str {
    match side {
        Side::Relay => "relay-bench",
        Side::Raw => "raw-bench",
    }
}

pub(crate) struct ServiceBus {
    port: u16,
    ca_pem: PathBuf,
    key: String,
    messages: PathBuf,
    /// How far the file has been counted, and each side's count so far.
    read: u64,
    counted: [u64; 2],
    child: Child,
    _dir: tempfile::TempDir,
}

impl Drop for ServiceBus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The judge, listening, with the two queues and the rule's key.
pub(crate) async fn service_bus(python: &Path, judges: &Path) -> anyhow::Result<ServiceBus> {
    anyhow::ensure!(
        python.is_file(),
        "{} is not there: run `scripts/test --setup-only` or pass --python",
        python.display()
    );
    let dir = tempfile::Builder::new()
        .prefix("relay-bench-servicebus-")
        .tempdir()?;
    let ca = TestCa::generate();
    let ca_pem = ca.write_ca_pem(dir.path())?;
    let leaf = ca.default_leaf();
    let (cert, key_pem) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, leaf.cert_pem())?;
    std::fs::write(&key_pem, leaf.key_pem())?;
    // A rule's key is any text; Azure's are base64, this one hex.
    let key = hex::encode(random_bytes::<32>());
    let config = dir.path().join("config.json");
    std::fs::write(
        &config,
        json!({
            "keys": { RULE: key },
            "bearer": false,
            "entities": {
                name(Side::Relay): {"sessions": false},
                name(Side::Raw): {"sessions": false},
            },
        })
        .to_string(),
    )?;
    let state = dir.path().join("state.json");
    std::fs::write(&state, json!({"mode": "accept"}).to_string())?;
    let messages = dir.path().join("messages.jsonl");
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let child = Command::new(python)
        .arg(judges.join("servicebus_judge.py"))
        .args(["--port", &port.to_string()])
        .arg("--cert")
        .arg(&cert)
        .arg("--key")
        .arg(&key_pem)
        .arg("--config")
        .arg(&config)
        .arg("--state")
        .arg(&state)
        .arg("--messages")
        .arg(&messages)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .context(
            "cannot start servicebus_judge.py (run from the repository's root, or pass --judges)",
        )?;
    let judge = ServiceBus {
        port,
        ca_pem,
        key,
        messages,
        read: 0,
        counted: [0, 0],
        child,
        _dir: dir,
    };
    super::pubsub::listening("servicebus_judge.py", port, Duration::from_secs(30)).await?;
    Ok(judge)
}

impl Broker for ServiceBus {
    fn name(&self) -> &'static str {
        "service-bus"
    }

    fn ack(&self) -> &'static str {
        "201 Created"
    }

    fn port(&self) -> u16 {
        self.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::ServiceBus(ServiceBusDestination {
            namespace: None,
            endpoint: Some(format!("https://127.0.0.1:{}", self.port)),
            entity: name(side).into(),
            auth: ServiceBusAuth::Sas(SasKey {
                key_name: RULE.into(),
                key: SecretRef::Secret(KEY_SECRET.into()),
            }),
            sessions: false,
            content_mode: ContentMode::Structured,
            max_message_bytes: 256 * 1024,
            refused: None,
        })
    }

    /// The side's queue's messages in the judge's file: the lines
    /// appended since the last count are read and counted by queue (the
    /// whole file is never read again, so counting costs no more as it
    /// grows).
    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        use std::io::{Read as _, Seek as _};
        if let Ok(mut f) = std::fs::File::open(&self.messages) {
            f.seek(std::io::SeekFrom::Start(self.read))?;
            let mut new = Vec::new();
            f.read_to_end(&mut new)?;
            // Only whole lines: the judge may be writing the last one.
            let whole = new.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            for line in new[..whole].split(|b| *b == b'\n') {
                let Ok(v) = serde_json::from_slice::<Value>(line) else {
                    continue;
                };
                for (i, s) in [Side::Relay, Side::Raw].into_iter().enumerate() {
                    if v["entity"] == name(s) {
                        self.counted[i] += 1;
                    }
                }
            }
            self.read += whole as u64;
        }
        Ok(self.counted[side as usize])
    }

    /// The judge ends with the run.
    async fn clean_up(&mut self) {}

    fn ca_pem(&self) -> Option<PathBuf> {
        Some(self.ca_pem.clone())
    }

    fn tenant_secrets(&self) -> Vec<(&'static str, String)> {
        vec![(KEY_SECRET, self.key.clone())]
    }

    fn slow_to_count(&self) -> bool {
        true
    }
}
