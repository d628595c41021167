//! The Azure Service Bus judge a test starts (`scripts/judges/
//! servicebus_judge.py`: the REST send's other end, with TLS from a leaf of
//! the test's own CA, the SAS signature recomputed from the rule's key):
//! its configuration (rules, entities, whether Entra bearer tokens are
//! taken), the state a test changes between sends (a mode, deleted
//! entities, revoked tokens: a file the judge reads at every request,
//! replaced whole), and the messages it took, read back from the file it
//! appends each to before its `201`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use relay_receiver::ca::TestCa;

use crate::listening::listening;

/// The rule Relay signs with, and its key.
pub const RULE: &str = "relay-send";
/// Another rule the judge knows (a key Relay was not given).
pub const OTHER_RULE: &str = "other";
/// A queue without sessions.
pub const QUEUE: &str = "orders";
/// A queue with sessions.
pub const SESSION_QUEUE: &str = "sales/ordered";
/// A queue whose largest message is 300 bytes.
pub const SMALL_QUEUE: &str = "small";

pub struct Judge {
    /// The port clients reach it by (a relay before it, or itself).
    pub public_port: u16,
    pub ca: Arc<TestCa>,
    pub ca_pem: PathBuf,
    /// The key of [`RULE`].
    pub key: String,
    child: Child,
    dir: tempfile::TempDir,
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/judges/servicebus_judge.py")
}

fn random_key() -> String {
    use base64::Engine as _;
    let mut bytes = [0u8; 32];
    unique_bytes(&mut bytes);
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// 32 bytes that differ per call and per process (a test key; not a
/// secret of anything but the test).
fn unique_bytes(out: &mut [u8]) {
    use sha2::Digest as _;
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seed = format!(
        "{}-{}-{:?}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        std::time::SystemTime::now()
    );
    out.copy_from_slice(&sha2::Sha256::digest(seed.as_bytes())[..out.len()]);
}

impl Judge {
    /// A judge on `port`, reached on `public_port`; `bearer`: it takes
    /// Entra bearer tokens (any not revoked) besides SAS tokens.
    pub async fn start(port: u16, public_port: u16, bearer: bool) -> Judge {
        let python = relay_receiver::judges::python();
        let dir = tempfile::Builder::new()
            .prefix("relay-servicebus-")
            .tempdir()
            .expect("a temporary directory");
        let ca = Arc::new(TestCa::generate());
        let ca_pem = ca.write_ca_pem(dir.path()).expect("the CA's PEM");
        let leaf = ca.default_leaf();
        let (cert, key_pem) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        std::fs::write(&cert, leaf.cert_pem()).unwrap();
        std::fs::write(&key_pem, leaf.key_pem()).unwrap();
        let key = random_key();
        let config = serde_json::json!({
            "keys": {RULE: key, OTHER_RULE: random_key()},
            "bearer": bearer,
            "entities": {
                QUEUE: {"sessions": false},
                SESSION_QUEUE: {"sessions": true},
                SMALL_QUEUE: {"sessions": false, "max_message_bytes": 300},
            },
        });
        std::fs::write(dir.path().join("config.json"), config.to_string()).unwrap();
        let judge_dir = dir.path().to_path_buf();
        let child = Command::new(&python)
            .arg(script())
            .args(["--port", &port.to_string()])
            .arg("--cert")
            .arg(&cert)
            .arg("--key")
            .arg(&key_pem)
            .arg("--config")
            .arg(judge_dir.join("config.json"))
            .arg("--state")
            .arg(judge_dir.join("state.json"))
            .arg("--messages")
            .arg(judge_dir.join("messages.jsonl"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("servicebus_judge.py starts");
        listening("servicebus_judge.py", port, Duration::from_secs(30)).await;
        Judge {
            public_port,
            ca,
            ca_pem,
            key,
            child,
            dir,
        }
    }

    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.public_port)
    }

    /// The directory the test may keep files in (its secrets' files).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Replaces the judge's state (read at its next request).
    pub fn set_state(&self, state: serde_json::Value) {
        let tmp = self.dir.path().join("state.json.tmp");
        std::fs::write(&tmp, state.to_string()).unwrap();
        std::fs::rename(&tmp, self.dir.path().join("state.json")).unwrap();
    }

    /// Every message the judge took, in order.
    pub fn messages(&self) -> Vec<Message> {
        std::fs::read_to_string(self.dir.path().join("messages.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
                use base64::Engine as _;
                Message {
                    entity: v["entity"].as_str().unwrap_or_default().into(),
                    broker: v["broker_properties"].clone(),
                    content_type: v["content_type"].as_str().unwrap_or_default().into(),
                    properties: v["properties"]
                        .as_object()
                        .map(|o| {
                            o.iter()
                                .map(|(k, v)| {
                                    let text = match v {
                                        serde_json::Value::String(s) => s.clone(),
                                        other => other.to_string(),
                                    };
                                    (k.to_ascii_lowercase(), text)
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    body: base64::engine::general_purpose::STANDARD
                        .decode(v["body_b64"].as_str().unwrap_or_default())
                        .expect("base64"),
                    auth: v["auth"].as_str().unwrap_or_default().into(),
                    bearer: v["bearer"].as_str().map(str::to_string),
                }
            })
            .collect()
    }
}

impl Drop for Judge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One message as the judge took it.
#[derive(Debug, Clone)]
pub struct Message {
    pub entity: String,
    /// `BrokerProperties` as sent.
    pub broker: serde_json::Value,
    pub content_type: String,
    /// The user properties, their names in lower case (HTTP's header names
    /// are case-insensitive; Relay's client sends them in lower case).
    pub properties: std::collections::BTreeMap<String, String>,
    pub body: Vec<u8>,
    /// `sas` or `entra`.
    pub auth: String,
    pub bearer: Option<String>,
}
