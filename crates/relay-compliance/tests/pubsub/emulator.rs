//! The Google Cloud Pub/Sub emulator (the Google Cloud CLI's component,
//! Java; not installable from a package registry) and the front door the
//! tests put before it (`scripts/judges/pubsub_front.py`: TLS with a leaf
//! of the test's own CA, a token endpoint that verifies the JWT assertion
//! with `google-auth`, and the bearer tokens it issued checked on every
//! request, as Google does; the emulator checks nothing).
//!
//! One emulator serves every test of the process (a JVM per test would
//! not fit two cores), each test with topics and a subscription of its
//! own; it runs in a session of its own under a shell that ends it when
//! the test process's end closes its standard input. Each test has its
//! own front, with service accounts made at test time
//! (`pubsub/emulator_admin.py`, PyPI `cryptography`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use relay_compliance::process::free_port;
use relay_receiver::ca::TestCa;

use crate::listening::listening;

/// Where the Google Cloud CLI installs the emulator on Debian (its
/// `sdk_root`, `gcloud info --format='value(installation.sdk_root)'`).
const SDK_ROOT: &str = "/usr/lib/google-cloud-sdk";
const EMULATOR: &str = "platform/pubsub-emulator/bin/cloud-pubsub-emulator";

/// The project every test's topics are in.
pub const PROJECT: &str = "relay-test";

/// The emulator program: `RELAY_TEST_PUBSUB_EMULATOR`, else the CLI's
/// (its SDK root asked of `gcloud`, else Debian's), or why there is none.
pub fn program() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("RELAY_TEST_PUBSUB_EMULATOR").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let asked = Command::new("gcloud")
        .args(["info", "--format=value(installation.sdk_root)"])
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty());
    let root = asked.unwrap_or_else(|| SDK_ROOT.to_string());
    let p = Path::new(&root).join(EMULATOR);
    if !p.is_file() {
        return Err(format!(
            "the Pub/Sub emulator is not installed ({}: install the Google Cloud CLI's `google-cloud-cli-pubsub-emulator` and Java 17, or set RELAY_TEST_PUBSUB_EMULATOR)",
            p.display()
        ));
    }
    Command::new("java")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()
        .filter(|s| s.success())
        .ok_or("the Pub/Sub emulator needs Java (`java` is not on PATH)")?;
    Ok(p)
}

/// The process's emulator.
pub struct Emulator {
    pub port: u16,
    _child: Child,
    /// Held open for the process's life: its end ends the emulator.
    _stdin: ChildStdin,
}

static SHARED: OnceLock<Result<Emulator, String>> = OnceLock::new();

/// The process's emulator, started on first use; `Err`: why there is none.
pub fn shared() -> Result<&'static Emulator, String> {
    SHARED
        .get_or_init(|| {
            let program = program()?;
            let port = free_port();
            let mut child = Command::new("sh")
                .arg("-c")
                .arg(r#"setsid "$0" --host=127.0.0.1 --port="$1" >/dev/null 2>&1 & cat >/dev/null; kill -TERM -$!"#)
                .arg(&program)
                .arg(port.to_string())
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("the Pub/Sub emulator did not start: {e}"))?;
            let stdin = child.stdin.take().expect("a piped stdin");
            let deadline = Instant::now() + Duration::from_secs(90);
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(
                    Instant::now() < deadline,
                    "the Pub/Sub emulator did not listen on {port} within 90 s"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
            Ok(Emulator {
                port,
                _child: child,
                _stdin: stdin,
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl Emulator {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// A service account's key as made for the test.
#[derive(Debug, Clone)]
pub struct Account {
    pub private_key: String,
    /// Its JSON key file.
    pub file: PathBuf,
}

/// One test's front door, topic and subscription.
pub struct Front {
    /// The port clients reach it by (a relay before it, or itself).
    pub public_port: u16,
    pub ca_pem: PathBuf,
    pub topic: String,
    /// A topic `relay` is granted that does not exist.
    pub missing_topic: String,
    pub subscription: String,
    /// Granted the topic.
    pub relay: Account,
    /// Granted nothing.
    pub denied: Account,
    /// `relay`'s email and key id with another private key.
    pub wrong: Account,
    /// The metadata server's port (plain HTTP), whose tokens are
    /// `relay`'s: the installation's workload identity.
    pub metadata_port: u16,
    emulator: String,
    python: PathBuf,
    child: Child,
    dir: tempfile::TempDir,
}

fn admin() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pubsub/emulator_admin.py")
}

fn front_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/judges/pubsub_front.py")
}

fn unique() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn run(python: &Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new(python)
        .arg(admin())
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("emulator_admin.py runs");
    assert!(
        out.status.success(),
        "emulator_admin.py {}: {}{}",
        args[0],
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("emulator_admin.py prints JSON")
}

impl Front {
    /// A front on `port`, reached on `public_port` (the token URL's), its
    /// accounts made, its topics and subscription made on the emulator;
    /// tokens live `lifetime` seconds.
    pub async fn start(emulator: &Emulator, port: u16, public_port: u16, lifetime: u64) -> Front {
        let python = relay_receiver::judges::python();
        let dir = tempfile::Builder::new()
            .prefix("relay-pubsub-")
            .tempdir()
            .expect("a temporary directory");
        let ca = TestCa::generate();
        let ca_pem = ca.write_ca_pem(dir.path()).expect("the CA's PEM");
        let leaf = ca.default_leaf();
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        std::fs::write(&cert, leaf.cert_pem()).unwrap();
        std::fs::write(&key, leaf.key_pem()).unwrap();
        let id = unique();
        let topic = format!("projects/{PROJECT}/topics/events-{id}");
        let missing_topic = format!("projects/{PROJECT}/topics/missing-{id}");
        let subscription = format!("projects/{PROJECT}/subscriptions/reader-{id}");
        let token_url = format!("https://127.0.0.1:{public_port}/token");
        let keys_dir = dir.path().join("keys");
        std::fs::create_dir(&keys_dir).unwrap();
        let made = run(
            &python,
            &[
                "keys",
                keys_dir.to_str().unwrap(),
                &token_url,
                &topic,
                &missing_topic,
            ],
        );
        let account = |name: &str| Account {
            private_key: made[name]["private_key"].as_str().unwrap().into(),
            file: keys_dir.join(format!("{name}.json")),
        };
        let emulator_url = emulator.url();
        run(&python, &["setup", &emulator_url, &topic, &subscription]);
        let relay_key: serde_json::Value =
            serde_json::from_slice(&std::fs::read(keys_dir.join("relay.json")).unwrap()).unwrap();
        let metadata_port = free_port();
        let child = Command::new(&python)
            .arg(front_script())
            .args(["--port", &port.to_string()])
            .arg("--cert")
            .arg(&cert)
            .arg("--key")
            .arg(&key)
            .args(["--upstream", &emulator_url])
            .arg("--accounts")
            .arg(keys_dir.join("accounts.json"))
            .args(["--token-url", &token_url])
            .args(["--lifetime", &lifetime.to_string()])
            .arg("--issued")
            .arg(dir.path().join("issued.txt"))
            .args(["--metadata-port", &metadata_port.to_string()])
            .args([
                "--metadata-account",
                relay_key["client_email"].as_str().expect("an email"),
            ])
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("pubsub_front.py starts");
        listening("pubsub_front.py", port, Duration::from_secs(30)).await;
        listening(
            "pubsub_front.py's metadata server",
            metadata_port,
            Duration::from_secs(30),
        )
        .await;
        Front {
            public_port,
            ca_pem,
            topic,
            missing_topic,
            subscription,
            relay: account("relay"),
            denied: account("denied"),
            wrong: account("wrong"),
            metadata_port,
            emulator: emulator_url,
            python,
            child,
            dir,
        }
    }

    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.public_port)
    }

    pub fn token_url(&self) -> String {
        format!("{}/token", self.url())
    }

    /// The directory the test may keep files in (its secrets' files).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The requests its metadata server served (`GET <path>`).
    pub fn metadata_requests(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("issued.txt.metadata"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Every access token the front issued so far.
    pub fn issued(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("issued.txt"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Forgets every token it issued (SIGUSR1): the next request with one
    /// is `401 UNAUTHENTICATED`.
    pub fn revoke_tokens(&self) {
        let status = Command::new("kill")
            .args(["-USR1", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        // The signal is handled between the front's requests.
        std::thread::sleep(Duration::from_millis(200));
    }

    /// Every message the subscription has, pulled and acknowledged.
    pub fn drain(&self) -> Vec<Message> {
        let all = run(&self.python, &["drain", &self.emulator, &self.subscription]);
        all.as_array()
            .expect("a list")
            .iter()
            .map(|m| {
                use base64::Engine as _;
                Message {
                    data: base64::engine::general_purpose::STANDARD
                        .decode(m["data_b64"].as_str().unwrap_or_default())
                        .expect("base64"),
                    attributes: m["attributes"]
                        .as_object()
                        .map(|o| {
                            o.iter()
                                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().into()))
                                .collect()
                        })
                        .unwrap_or_default(),
                    ordering_key: m["ordering_key"].as_str().map(str::to_string),
                    message_id: m["message_id"].as_str().unwrap_or_default().into(),
                }
            })
            .collect()
    }

    /// The secret values a test must find nowhere: each key's base64 lines
    /// and every token issued.
    pub fn secrets(&self) -> Vec<String> {
        let mut out: Vec<String> = [&self.relay, &self.denied, &self.wrong]
            .iter()
            .flat_map(|a| {
                a.private_key
                    .lines()
                    .filter(|l| !l.starts_with("-----") && l.len() > 16)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        out.extend(self.issued());
        out
    }

    /// Writes `account`'s key to `path` (a secret reference's file).
    pub fn write_key(&self, account: &Account, path: &Path) {
        let mut f = std::fs::File::create(path).unwrap();
        f.write_all(&std::fs::read(&account.file).unwrap()).unwrap();
    }
}

impl Drop for Front {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One message as the emulator's pull gave it.
#[derive(Debug, Clone)]
pub struct Message {
    pub data: Vec<u8>,
    pub attributes: std::collections::BTreeMap<String, String>,
    pub ordering_key: Option<String>,
    pub message_id: String,
}
