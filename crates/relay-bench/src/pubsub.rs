//! The `pubsub` workload, a [`Broker`] of the broker workload: E events
//! delivered to one `pubsub` endpoint (a topic of the Google Cloud CLI's
//! Pub/Sub emulator, `--pubsub-emulator`, behind the front door Relay's
//! tests put before it, `scripts/judges/pubsub_front.py`: TLS with the
//! run's own CA, the service account's JWT bearer grant verified with
//! `google-auth`, its bearer tokens checked on every request), beside the
//! kind's client alone publishing as many messages with the same
//! acknowledgement (the publish's `messageIds`) and the same concurrency to
//! a second topic, in one run. The service account's key is made for the
//! run (`openssl genpkey`, RSA 2048). A side's count is what its topic's
//! subscription has given: pulled from the emulator and acknowledged,
//! every 20 ms.

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

use relay_core::model::ContentMode;
use relay_core::secret::SecretRef;
use relay_destinations::Config;
use relay_destinations::pubsub::PubsubDestination;

use super::broker::{Broker, Side};
use super::http::{Api, Conn};
use super::*;

/// The project of the run's topics.
const PROJECT: &str = "relay-bench";
/// The tenant secret holding the service account's JSON key.
const KEY_SECRET: &str = "bench-gcp-key";
/// The service account.
const EMAIL: &str = "relay-bench@relay-bench.iam.gserviceaccount.com";

/// The topic and the subscription each side's messages go through (one
/// name).
const fn name(side: Side) -> &'static str {
    match side {
        Side::Relay => "relay-bench",
        Side::Raw => "raw-bench",
    }
}

fn topic(side: Side) -> String {
    format!("projects/{PROJECT}/topics/{}", name(side))
}

fn subscription(side: Side) -> String {
    format!("projects/{PROJECT}/subscriptions/{}", name(side))
}

/// A process ended when dropped.
struct Process {
    child: Child,
    /// The emulator's shell ends it (its process group) when this closes.
    _stdin: Option<ChildStdin>,
}

impl Drop for Process {
    fn drop(&mut self) {
        self._stdin.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// Waits until something listens on `port` of 127.0.0.1 (probed through
/// relay-net's loopback connector).
pub(crate) async fn listening(what: &str, port: u16, within: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + within;
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    while relay_net::loopback::connect_loopback(addr).await.is_err() {
        anyhow::ensure!(
            Instant::now() < deadline,
            "{what} did not listen on {port} within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

/// Runs `program args…`, which must succeed; its standard output.
fn output(program: &str, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .with_context(|| format!("cannot run {program}"))?;
    anyhow::ensure!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8(out.stdout)?)
}

/// A JSON call to the emulator (plain HTTP; it checks nothing).
async fn emulator(port: u16, method: Method, path: &str, body: Value) -> anyhow::Result<Value> {
    let mut api = Api {
        conn: Conn::plain(SocketAddr::from(([127, 0, 0, 1], port))).await?,
        token: String::new(),
    };
    api.call(method, path, Some(body)).await
}

pub(crate) struct Pubsub {
    emulator_port: u16,
    front_port: u16,
    ca_pem: PathBuf,
    key_json: String,
    counted: [u64; 2],
    _front: Process,
    _emulator: Process,
    _dir: tempfile::TempDir,
}

/// The emulator, the run's service account, its topics and subscriptions,
/// and the front door before them.
pub(crate) async fn pubsub(program: &Path, python: &Path, judges: &Path) -> anyhow::Result<Pubsub> {
    anyhow::ensure!(
        program.is_file(),
        "{} is not there: install the Google Cloud CLI's Pub/Sub emulator (and Java) or pass --pubsub-emulator",
        program.display()
    );
    anyhow::ensure!(
        python.is_file(),
        "{} is not there: run `scripts/test --setup-only` (google-auth) or pass --python",
        python.display()
    );
    let dir = tempfile::Builder::new()
        .prefix("relay-bench-pubsub-")
        .tempdir()?;
    let emulator_port = free_port()?;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(r#"setsid "$0" --host=127.0.0.1 --port="$1" >/dev/null 2>&1 & cat >/dev/null; kill -TERM -$!"#)
        .arg(program)
        .arg(emulator_port.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start the Pub/Sub emulator")?;
    let stdin = child.stdin.take();
    let emulator_process = Process {
        child,
        _stdin: stdin,
    };
    listening(
        "the Pub/Sub emulator",
        emulator_port,
        Duration::from_secs(90),
    )
    .await?;

    let key_pem = dir.path().join("sa.pem");
    let key_path = key_pem.to_str().context("a UTF-8 path")?;
    output(
        "openssl",
        &[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
            key_path,
        ],
    )?;
    let public = output("openssl", &["pkey", "-in", key_path, "-pubout"])?;
    let private = std::fs::read_to_string(&key_pem)?;
    let kid = hex::encode(random_bytes::<20>());
    let front_port = free_port()?;
    let token_url = format!("https://127.0.0.1:{front_port}/token");
    let key_json = json!({
        "type": "service_account", "project_id": PROJECT, "private_key_id": kid,
        "private_key": private, "client_email": EMAIL, "client_id": "1", "token_uri": token_url,
    })
    .to_string();
    let accounts = dir.path().join("accounts.json");
    std::fs::write(
        &accounts,
        json!({ EMAIL: {"kid": kid, "public_key": public,
            "topics": [topic(Side::Relay), topic(Side::Raw)]} })
        .to_string(),
    )?;
    for side in [Side::Relay, Side::Raw] {
        emulator(
            emulator_port,
            Method::PUT,
            &format!("/v1/{}", topic(side)),
            json!({}),
        )
        .await?;
        emulator(
            emulator_port,
            Method::PUT,
            &format!("/v1/{}", subscription(side)),
            json!({ "topic": topic(side) }),
        )
        .await?;
    }

    let ca = TestCa::generate();
    let ca_pem = ca.write_ca_pem(dir.path())?;
    let leaf = ca.default_leaf();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, leaf.cert_pem())?;
    std::fs::write(&key, leaf.key_pem())?;
    let front = Command::new(python)
        .arg(judges.join("pubsub_front.py"))
        .args(["--port", &front_port.to_string()])
        .arg("--cert")
        .arg(&cert)
        .arg("--key")
        .arg(&key)
        .args(["--upstream", &format!("http://127.0.0.1:{emulator_port}")])
        .arg("--accounts")
        .arg(&accounts)
        .args(["--token-url", &token_url, "--lifetime", "3600"])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .context(
            "cannot start pubsub_front.py (run from the repository's root, or pass --judges)",
        )?;
    let front = Process {
        child: front,
        _stdin: None,
    };
    listening("pubsub_front.py", front_port, Duration::from_secs(30)).await?;
    Ok(Pubsub {
        emulator_port,
        front_port,
        ca_pem,
        key_json,
        counted: [0, 0],
        _front: front,
        _emulator: emulator_process,
        _dir: dir,
    })
}

impl Broker for Pubsub {
    fn name(&self) -> &'static str {
        "pubsub"
    }

    fn ack(&self) -> &'static str {
        "publish messageIds"
    }

    fn port(&self) -> u16 {
        self.front_port
    }

    fn destination(&self, side: Side) -> Config {
        Config::Pubsub(PubsubDestination {
            topic: topic(side),
            endpoint: format!("https://127.0.0.1:{}", self.front_port),
            service_account_key: Some(SecretRef::Secret(KEY_SECRET.into())),
            workload_identity: false,
            token_url: format!("https://127.0.0.1:{}/token", self.front_port),
            ordered: false,
            content_mode: ContentMode::Structured,
        })
    }

    /// What the side's subscription has given so far: every message
    /// pulled now is acknowledged and counted.
    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        let i = side as usize;
        loop {
            let path = format!("/v1/{}:pull", subscription(side));
            let got = emulator(
                self.emulator_port,
                Method::POST,
                &path,
                json!({"maxMessages": 1000, "returnImmediately": true}),
            )
            .await?;
            let ids: Vec<Value> = got["receivedMessages"]
                .as_array()
                .map(|a| a.iter().map(|m| m["ackId"].clone()).collect())
                .unwrap_or_default();
            if ids.is_empty() {
                return Ok(self.counted[i]);
            }
            self.counted[i] += ids.len() as u64;
            let path = format!("/v1/{}:acknowledge", subscription(side));
            emulator(
                self.emulator_port,
                Method::POST,
                &path,
                json!({ "ackIds": ids }),
            )
            .await?;
        }
    }

    /// The processes end with the run.
    async fn clean_up(&mut self) {}

    fn ca_pem(&self) -> Option<PathBuf> {
        Some(self.ca_pem.clone())
    }

    fn tenant_secrets(&self) -> Vec<(&'static str, String)> {
        vec![(KEY_SECRET, self.key_json.clone())]
    }

    fn slow_to_count(&self) -> bool {
        true
    }
}
