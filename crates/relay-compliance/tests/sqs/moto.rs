//! A private moto server (PyPI `moto[server]`, in the test environment of
//! `scripts/test`) per test: SQS and IAM on a free loopback port, serving
//! TLS with a leaf of the test's own CA, which Relay trusts through the
//! operator's `extra_ca_certs`. It checks every request's Signature
//! Version 4 and the signing user's IAM policy once the set-up's actions
//! are done (see `moto_admin.py`). Dropping it ends the process.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use relay_compliance::process::free_port;
use relay_receiver::ca::TestCa;

use crate::listening::listening;

/// The standard queue and the FIFO queue every server has.
pub const QUEUE: &str = "relay-events";
pub const FIFO_QUEUE: &str = "relay-events.fifo";

/// The actions moto takes without credentials, exactly the set-up's:
/// `relay` and `reader` 3 each (user, key, policy), `denied` 2 (user,
/// key), the role 2 (role, policy), 1 per queue. The set-up checks the
/// next request is refused.
const SETUP_ACTIONS: &str = "12";

/// The role `relay` may assume, which may send to the queues.
pub const ROLE_ARN: &str = "arn:aws:iam::123456789012:role/relay-sender";

/// An access key: its id and secret.
#[derive(Debug, Clone)]
pub struct Key {
    pub id: String,
    pub secret: String,
}

pub struct Moto {
    pub port: u16,
    /// The CA's PEM, for `extra_ca_certs` and boto3.
    pub ca_pem: PathBuf,
    /// May only `sqs:SendMessage` to the two queues and assume [`ROLE_ARN`].
    pub relay: Key,
    /// May do everything (the tests' reads).
    pub reader: Key,
    /// Has no policy: may do nothing.
    pub denied: Key,
    /// The queues' URLs by name.
    pub queues: BTreeMap<String, String>,
    python: PathBuf,
    child: Child,
    _dir: tempfile::TempDir,
}

fn server_program(python: &std::path::Path) -> PathBuf {
    python.with_file_name("moto_server")
}

/// The test environment's interpreter, or why there is no moto server.
pub fn missing() -> Result<PathBuf, String> {
    let python = relay_receiver::judges::python();
    if !server_program(&python).is_file() {
        return Err(format!(
            "moto_server is not in the test environment ({}); scripts/test installs moto[server] from scripts/test-requirements.txt",
            python.display()
        ));
    }
    Ok(python)
}

fn admin() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sqs/moto_admin.py")
}

fn key(v: &serde_json::Value) -> Key {
    Key {
        id: v[0].as_str().expect("a key id").into(),
        secret: v[1].as_str().expect("a secret").into(),
    }
}

/// One message as boto3 received it.
#[derive(Debug, Clone)]
pub struct Message {
    pub body: Vec<u8>,
    pub md5_of_body: String,
    pub md5_of_attributes: Option<String>,
    pub attributes: BTreeMap<String, String>,
    /// SQS's system attributes (`MessageGroupId`,
    /// `MessageDeduplicationId`, `SequenceNumber`, …).
    pub system: BTreeMap<String, String>,
}

impl Moto {
    /// A running server with the users and the queues made.
    pub async fn start(python: PathBuf) -> Moto {
        let dir = tempfile::Builder::new()
            .prefix("relay-moto-sqs-")
            .tempdir()
            .expect("a temporary directory");
        let ca = TestCa::generate();
        let ca_pem = ca.write_ca_pem(dir.path()).expect("the CA's PEM");
        let leaf = ca.default_leaf();
        let cert = dir.path().join("cert.pem");
        let key_pem = dir.path().join("key.pem");
        std::fs::write(&cert, leaf.cert_pem()).expect("the leaf");
        std::fs::write(&key_pem, leaf.key_pem()).expect("the leaf's key");
        let port = free_port();
        let child = Command::new(server_program(&python))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .arg("-c")
            .arg(&cert)
            .arg("-k")
            .arg(&key_pem)
            .env("INITIAL_NO_AUTH_ACTION_COUNT", SETUP_ACTIONS)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server starts");
        listening("moto_server", port, Duration::from_secs(30)).await;
        let empty = Key {
            id: String::new(),
            secret: String::new(),
        };
        let mut moto = Moto {
            port,
            ca_pem,
            relay: empty.clone(),
            reader: empty.clone(),
            denied: empty,
            queues: BTreeMap::new(),
            python,
            child,
            _dir: dir,
        };
        let out = moto.admin(&["setup", QUEUE, FIFO_QUEUE]);
        moto.relay = key(&out["relay"]);
        moto.reader = key(&out["reader"]);
        moto.denied = key(&out["denied"]);
        moto.queues = out["queues"]
            .as_object()
            .expect("the queues")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().expect("a URL").to_string()))
            .collect();
        moto
    }

    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// The URL of queue `name` (as moto makes it: on its own address).
    pub fn queue_url(&self, name: &str) -> String {
        self.queues[name].clone()
    }

    fn admin(&self, args: &[&str]) -> serde_json::Value {
        let out = Command::new(&self.python)
            .arg(admin())
            .arg(self.url())
            .arg(&self.ca_pem)
            .args(args)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .expect("moto_admin.py runs");
        assert!(
            out.status.success(),
            "moto_admin.py {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("moto_admin.py prints JSON")
    }

    /// Receives and deletes every message of queue `name`, with boto3.
    pub fn drain(&self, name: &str) -> Vec<Message> {
        let url = self.queue_url(name);
        let all = self.admin(&["drain", &self.reader.id, &self.reader.secret, &url]);
        let map = |v: &serde_json::Value| -> BTreeMap<String, String> {
            v.as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().into()))
                        .collect()
                })
                .unwrap_or_default()
        };
        all.as_array()
            .expect("a list")
            .iter()
            .map(|m| {
                use base64::Engine as _;
                Message {
                    body: base64::engine::general_purpose::STANDARD
                        .decode(m["body_b64"].as_str().unwrap_or_default())
                        .expect("base64"),
                    md5_of_body: m["md5_of_body"].as_str().unwrap_or_default().into(),
                    md5_of_attributes: m["md5_of_attributes"].as_str().map(str::to_string),
                    attributes: map(&m["attributes"]),
                    system: map(&m["system"]),
                }
            })
            .collect()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
