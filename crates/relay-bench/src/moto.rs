//! The private moto server of the AWS workloads (`s3`, `sqs`, `sns`):
//! `--moto-server` (PyPI `moto[server]`, the test environment's by
//! default) started on a free port of 127.0.0.1 over TLS with a CA of the
//! run's own, without authentication (any well-formed credentials pass),
//! ended when dropped; and the kinds' clients of it, built as the engine
//! builds them, through a guard that allows its port and trusts its CA.

use std::process::{Child, Command, Stdio};

use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::{Client, Config, Shared};
use relay_net::{Guard, HttpsClient, OutboundConfig, StaticResolver};

use super::*;

/// The run's credentials: moto is run without authentication.
pub(crate) const KEY_ID: &str = "AKIARELAYBENCH000000";
pub(crate) const SECRET: &str = "relay-bench-secret-access-key-0000000000";

/// The tenant secrets holding them (`secret:NAME`), on both sides.
pub(crate) const KEY_ID_SECRET: &str = "bench-aws-key-id";
pub(crate) const SECRET_SECRET: &str = "bench-aws-secret";

/// A running moto server; ended when dropped.
pub(crate) struct Moto {
    pub(crate) port: u16,
    pub(crate) ca_pem: std::path::PathBuf,
    child: Child,
    _dir: tempfile::TempDir,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn start(program: &std::path::Path) -> anyhow::Result<Moto> {
    anyhow::ensure!(
        program.is_file(),
        "{} is not there: run `scripts/test --setup-only` (it installs moto[server]) or pass --moto-server",
        program.display()
    );
    let dir = tempfile::Builder::new()
        .prefix("relay-bench-moto-")
        .tempdir()?;
    let ca = TestCa::generate();
    let ca_pem = ca.write_ca_pem(dir.path())?;
    let leaf = ca.default_leaf();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, leaf.cert_pem())?;
    std::fs::write(&key, leaf.key_pem())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let child = Command::new(program)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .arg("-c")
        .arg(&cert)
        .arg("-k")
        .arg(&key)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))?;
    Ok(Moto {
        port,
        ca_pem,
        child,
        _dir: dir,
    })
}

impl Moto {
    /// What a client of this server is built with: a guard allowing its
    /// port on loopback and trusting its CA, the machine's clock.
    pub(crate) fn shared(&self) -> anyhow::Result<Shared> {
        let guard = Guard::with_resolver(
            &OutboundConfig {
                allow_ports: vec![self.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![self.ca_pem.clone()],
                allow_plaintext_credentials_to_loopback: false,
            },
            Arc::new(StaticResolver::new()),
        )?;
        Ok(Shared {
            https: HttpsClient::new(guard),
            clock: Arc::new(crate::broker::WallClock),
        })
    }

    /// The kind's client of `config`, whose credentials are
    /// [`key_id_ref`] and [`secret_ref`].
    pub(crate) fn client(&self, config: Config) -> anyhow::Result<Client> {
        relay_destinations::build(&config, &self.shared()?, &secrets())
            .map_err(|e| anyhow::anyhow!("unresolved: {}", e.0))
    }
}

/// The run's credentials as an AWS kind's configuration names them.
pub(crate) fn credentials() -> relay_destinations::aws::Credentials {
    relay_destinations::aws::Credentials::keys(key_id_ref(), secret_ref())
}

pub(crate) fn key_id_ref() -> SecretRef {
    SecretRef::Secret(KEY_ID_SECRET.into())
}

pub(crate) fn secret_ref() -> SecretRef {
    SecretRef::Secret(SECRET_SECRET.into())
}

/// The tenant secrets of the run, by name (put through Relay's API).
pub(crate) fn tenant_secrets() -> Vec<(&'static str, String)> {
    vec![
        (KEY_ID_SECRET, KEY_ID.into()),
        (SECRET_SECRET, SECRET.into()),
    ]
}

/// The same, resolved (the raw side's client).
pub(crate) fn secrets() -> Secrets {
    let mut s = Secrets::new();
    for (name, value) in tenant_secrets() {
        s.insert(
            SecretRef::Secret(name.into()),
            SecretValue::from(value.as_str()),
        );
    }
    s
}

/// Runs `action` until it succeeds (moto starting up), for 30 s at most.
pub(crate) async fn when_up<T, F, Fut>(what: &str, mut action: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match action().await {
            Ok(v) => return Ok(v),
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => anyhow::bail!("moto did not {what} within 30 s: {e}"),
        }
    }
}
