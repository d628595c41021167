//! The one moto harness of the AWS kinds' tests (`s3.rs`, `sqs.rs`,
//! `sns.rs`): a private moto server (PyPI `moto[server]`, in the test
//! environment of `scripts/test`) per test on a free loopback port, serving
//! TLS with a leaf of the test's own CA, which Relay trusts through the
//! operator's `extra_ca_certs`. moto takes the set-up's actions without
//! credentials (`INITIAL_NO_AUTH_ACTION_COUNT`, counted exactly by each
//! kind: its `<kind>/moto_admin.py` checks the next request is refused),
//! then checks every request's Signature Version 4 and the signing user's
//! IAM policy. Each kind's `<kind>/moto_admin.py` is its boto3 client (an
//! independent implementation of the protocols and of SigV4), on the
//! helpers of `common/moto_common.py`. Dropping the server ends the
//! process.
//!
//! [`Front`] is what a kind's compliance peer puts before the server: the
//! loopback relay (`common/proxy.rs`: hang, down) and the directory of its
//! `file:` credential references, which the operator's grant allows.
//! [`message`], [`send`] and [`rejected`] are the SQS and SNS cases'
//! own: a prepared event, one attempt as the engine makes it, a refusal.

// Each test binary uses the parts its kind needs.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use relay_compliance::process::free_port;
use relay_compliance::{ContentMode, Mode, Received};
use relay_core::model::ErrorKind;
use relay_core::model::{Environment, Event, SignatureScheme};
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::secret::SecretGrant;
use relay_core::signature::SigningKey;
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_destinations::{Input, Prepared};
use relay_net::Limits;
use relay_net::{Guard, OutboundConfig, StaticResolver};
use relay_receiver::ca::TestCa;
use serde_json::value::RawValue;

use crate::listening::listening;
use crate::proxy::{Proxy, Relaying};

/// An access key: its id and secret.
#[derive(Debug, Clone)]
pub struct Key {
    pub id: String,
    pub secret: String,
}

impl Key {
    pub fn from_json(v: &serde_json::Value) -> Key {
        Key {
            id: v[0].as_str().expect("a key id").into(),
            secret: v[1].as_str().expect("a secret").into(),
        }
    }
}

/// A running moto server.
pub struct Server {
    pub port: u16,
    /// The CA's PEM, for `extra_ca_certs` and boto3.
    pub ca_pem: PathBuf,
    python: PathBuf,
    /// The kind's `moto_admin.py`.
    admin: PathBuf,
    child: Child,
    _dir: tempfile::TempDir,
}

fn server_program(python: &Path) -> PathBuf {
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

/// The test environment's interpreter, or `None` after saying `SKIPPED`
/// for `kind`.
pub fn python_or_skip(kind: &str) -> Option<PathBuf> {
    match missing() {
        Ok(python) => Some(python),
        Err(why) => {
            relay_store::testenv::skip(kind, &why);
            None
        }
    }
}

impl Server {
    /// A server listening, which takes the first `setup_actions` actions
    /// without credentials; `kind` names its admin script
    /// (`tests/<kind>/moto_admin.py`).
    pub async fn start(python: PathBuf, kind: &str, setup_actions: u32) -> Server {
        let dir = tempfile::Builder::new()
            .prefix(&format!("relay-moto-{kind}-"))
            .tempdir()
            .expect("a temporary directory");
        let ca = TestCa::generate();
        let ca_pem = ca.write_ca_pem(dir.path()).expect("the CA's PEM");
        let leaf = ca.default_leaf();
        let cert = dir.path().join("cert.pem");
        let key = dir.path().join("key.pem");
        std::fs::write(&cert, leaf.cert_pem()).expect("the leaf");
        std::fs::write(&key, leaf.key_pem()).expect("the leaf's key");
        let port = free_port();
        let child = Command::new(server_program(&python))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .arg("-c")
            .arg(&cert)
            .arg("-k")
            .arg(&key)
            .env("INITIAL_NO_AUTH_ACTION_COUNT", setup_actions.to_string())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server starts");
        listening("moto_server", port, Duration::from_secs(30)).await;
        Server {
            port,
            ca_pem,
            python,
            admin: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests")
                .join(kind)
                .join("moto_admin.py"),
            child,
            _dir: dir,
        }
    }

    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// Runs the kind's `moto_admin.py URL CA_PEM args…`; its JSON output.
    pub fn admin(&self, args: &[&str]) -> serde_json::Value {
        let out = Command::new(&self.python)
            .arg(&self.admin)
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

    /// Receives and deletes every message of the SQS queue `queue_url`
    /// with boto3 signing with `key` (the admin script's `drain` verb).
    pub fn drain(&self, key: &Key, queue_url: &str) -> Vec<Message> {
        let all = self.admin(&["drain", &key.id, &key.secret, queue_url]);
        all.as_array()
            .expect("a list")
            .iter()
            .map(Message::from_json)
            .collect()
    }

    /// A guard that allows this server (its port, loopback, its CA).
    pub fn guard(&self) -> Guard {
        Guard::from_config(&outbound(self.port, &self.ca_pem)).expect("a guard")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The operator's outbound configuration allowing `port` on loopback and
/// trusting `ca_pem`.
pub fn outbound(port: u16, ca_pem: &Path) -> OutboundConfig {
    OutboundConfig {
        allow_ports: vec![port],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![ca_pem.to_path_buf()],
        allow_plaintext_credentials_to_loopback: false,
    }
}

/// One SQS message as boto3 received it.
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

impl Message {
    fn from_json(m: &serde_json::Value) -> Message {
        use base64::Engine as _;
        let map = |v: &serde_json::Value| -> BTreeMap<String, String> {
            v.as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().into()))
                        .collect()
                })
                .unwrap_or_default()
        };
        Message {
            body: base64::engine::general_purpose::STANDARD
                .decode(m["body_b64"].as_str().unwrap_or_default())
                .expect("base64"),
            md5_of_body: m["md5_of_body"].as_str().unwrap_or_default().into(),
            md5_of_attributes: m["md5_of_attributes"].as_str().map(str::to_string),
            attributes: map(&m["attributes"]),
            system: map(&m["system"]),
        }
    }

    /// A received message as the harness sees it: the signature values from
    /// their attributes; in binary mode the context attributes with the
    /// binding's naming undone (`webhook-id` is `id`, `content-type` is
    /// `datacontenttype`, `ce-<name>` is `<name>`, and `ce-attributes` holds
    /// the rest).
    pub fn received(&self) -> Received {
        let a = &self.attributes;
        let text = |k: &str| a.get(k).cloned().unwrap_or_default();
        let binary = a.contains_key("ce-specversion").then(|| {
            let mut out = vec![
                ("id".to_string(), text("webhook-id")),
                ("datacontenttype".to_string(), text("content-type")),
            ];
            for (k, v) in a {
                if k == "ce-attributes" {
                    let rest: serde_json::Map<String, serde_json::Value> =
                        serde_json::from_str(v).expect("ce-attributes is a JSON object");
                    out.extend(
                        rest.into_iter()
                            .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string())),
                    );
                } else if let Some(name) = k.strip_prefix("ce-") {
                    out.push((name.to_string(), v.clone()));
                }
            }
            out
        });
        Received {
            body: self.body.clone(),
            webhook_id: text("webhook-id"),
            webhook_timestamp: text("webhook-timestamp"),
            webhook_signature: text("webhook-signature"),
            binary,
        }
    }
}

/// What a compliance peer puts before its moto server: the loopback relay
/// and the directory of its `file:` credential references.
pub struct Front {
    pub proxy: Proxy,
    dir: tempfile::TempDir,
}

impl Front {
    pub async fn start(kind: &str, upstream: u16) -> Front {
        Front {
            proxy: Proxy::start(upstream).await,
            dir: tempfile::Builder::new()
                .prefix(&format!("relay-{kind}-secrets-"))
                .tempdir()
                .expect("a temporary directory"),
        }
    }

    /// The `file:` reference's path of the access key id.
    pub fn key_file(&self) -> String {
        self.dir.path().join("key-id").display().to_string()
    }

    /// The `file:` reference's path of the secret access key.
    pub fn secret_file(&self) -> String {
        self.dir.path().join("secret").display().to_string()
    }

    pub fn write_key(&self, key: &Key) {
        std::fs::write(self.key_file(), &key.id).expect("the key id's file");
        self.write_secret(&key.secret);
    }

    pub fn write_secret(&self, secret: &str) {
        std::fs::write(self.secret_file(), secret).expect("the secret's file");
    }

    /// The relay's port allowed, the server's CA trusted.
    pub fn outbound(&self, ca_pem: &Path) -> (OutboundConfig, StaticResolver) {
        (outbound(self.proxy.port, ca_pem), StaticResolver::default())
    }

    /// A mode of the suite by credentials (the SQS and SNS peers):
    /// `Accept` writes `allowed`'s keys and relays through; `FailRetryable`
    /// its key id with a wrong secret (the service's signature check
    /// refuses it, `403 SignatureDoesNotMatch`: retried, `auth_refused`,
    /// once the endpoint's client reads the files again);
    /// `FailPermanent` the keys of `denied`, whom no policy allows (`403
    /// AccessDenied`: permanent); `Hang` and `Down` are the relay's.
    pub async fn set_mode(&self, mode: Mode, allowed: &Key, denied: &Key) {
        match mode {
            Mode::Accept => {
                self.write_key(allowed);
                self.proxy.set(Relaying::Through).await;
            }
            Mode::FailRetryable => self.write_key(&Key {
                id: allowed.id.clone(),
                secret: "not-the-secret-0123456789".into(),
            }),
            Mode::FailPermanent => self.write_key(denied),
            Mode::Hang => self.proxy.set(Relaying::Hang).await,
            Mode::Down => self.proxy.set(Relaying::Down).await,
        }
    }

    /// The credential files' directory, granted.
    pub fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.dir.path().display().to_string()],
        }
    }
}

/// A stopped service refuses new connections (`connect`); a pooled
/// connection it closed may be found closed only when used (`http`).
pub const DOWN_ERROR_KINDS: &[ErrorKind] = &[ErrorKind::Connect, ErrorKind::Http];

/// The time the AWS message kinds' own cases prepare and classify at.
pub const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

/// Event `id` with `ordering_key`, prepared in `mode` (its data has
/// characters JSON, forms and XML escape).
pub fn message(id: &str, ordering_key: Option<&str>, mode: ContentMode) -> Prepared {
    let event = Event {
        id: id.into(),
        event_type: "order.shipped".into(),
        type_version: 1,
        environment: Environment::Live,
        subject: None,
        data: RawValue::from_string(format!(r#"{{"order_id":"{id}","note":"é\n☃ & +<>"}}"#))
            .unwrap(),
        consumer_id: None,
        ordering_key: ordering_key.map(str::to_string),
        seq: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: NOW,
        created_at: NOW,
    };
    relay_destinations::prepare(&Input {
        event: &event,
        source: "https://acme.example/merchants/42",
        keys: &[SigningKey::generate(SignatureScheme::V1, [5; 32])],
        attempt_number: 1,
        max_payload_bytes: 1 << 20,
        content_mode: mode,
        now: NOW,
        shaped: None,
    })
    .expect("prepared")
}

/// One attempt of `m` by the kind's client, as the engine makes it: its
/// verdict at [`NOW`] and its record.
pub async fn send(
    c: &relay_destinations::Client,
    m: &Prepared,
) -> (Verdict, relay_destinations::Record) {
    let limits = Limits {
        connect_timeout: Duration::from_secs(5),
        total_timeout: Duration::from_secs(10),
        ..Limits::default()
    };
    let d = c.deliver(m, limits).await;
    (d.classify(NOW), d.record())
}

/// Dead-lettered by the destination with `r`.
pub fn rejected(r: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(r),
    }
}
