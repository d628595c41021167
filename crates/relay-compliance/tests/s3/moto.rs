//! A private moto server (PyPI `moto[server]`, in the test environment of
//! `scripts/test`) per test: S3 and IAM on a free loopback port, serving
//! TLS with a leaf of the test's own CA, which Relay trusts through the
//! operator's `extra_ca_certs`. It checks every request's Signature
//! Version 4 against the access key its set-up made (see
//! `moto_admin.py`). Dropping it ends the process.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use relay_compliance::process::free_port;

use crate::listening::listening;
use relay_receiver::ca::TestCa;

/// The bucket every test writes to.
pub const BUCKET: &str = "relay-events";

/// The actions moto takes without credentials: the set-up's four.
const SETUP_ACTIONS: &str = "4";

pub struct Moto {
    pub port: u16,
    /// The CA's PEM, for `extra_ca_certs` and boto3.
    pub ca_pem: PathBuf,
    pub access_key_id: String,
    pub secret_access_key: String,
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
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/s3/moto_admin.py")
}

impl Moto {
    /// A running server with the user and the bucket made.
    pub async fn start(python: PathBuf) -> Moto {
        let dir = tempfile::Builder::new()
            .prefix("relay-moto-")
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
            .env("INITIAL_NO_AUTH_ACTION_COUNT", SETUP_ACTIONS)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server starts");
        listening("moto_server", port, Duration::from_secs(30)).await;
        let mut moto = Moto {
            port,
            ca_pem,
            access_key_id: String::new(),
            secret_access_key: String::new(),
            python,
            child,
            _dir: dir,
        };
        let keys = moto.admin(&["setup", BUCKET]);
        moto.access_key_id = keys["access_key_id"].as_str().expect("a key id").into();
        moto.secret_access_key = keys["secret_access_key"].as_str().expect("a secret").into();
        moto
    }

    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
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

    /// Deletes [`BUCKET`] (and what it holds): writes to it are then
    /// refused `404 NoSuchBucket`.
    pub fn delete_bucket(&self) {
        self.admin(&[
            "delete-bucket",
            BUCKET,
            &self.access_key_id,
            &self.secret_access_key,
        ]);
    }

    /// Makes [`BUCKET`] again.
    pub fn create_bucket(&self) {
        self.admin(&[
            "create-bucket",
            BUCKET,
            &self.access_key_id,
            &self.secret_access_key,
        ]);
    }

    /// Every object of [`BUCKET`], read with boto3.
    pub fn objects(&self) -> Vec<Object> {
        let all = self.admin(&["read", BUCKET, &self.access_key_id, &self.secret_access_key]);
        all.as_array()
            .expect("a list")
            .iter()
            .map(|o| {
                use base64::Engine as _;
                let text = |k: &str| o[k].as_str().unwrap_or_default().to_string();
                Object {
                    key: text("key"),
                    etag: text("etag"),
                    content_type: text("content_type"),
                    metadata: o["metadata"]
                        .as_object()
                        .map(|m| {
                            m.iter()
                                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().into()))
                                .collect()
                        })
                        .unwrap_or_default(),
                    body: base64::engine::general_purpose::STANDARD
                        .decode(text("body_b64"))
                        .expect("base64"),
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

/// One stored object as boto3 read it.
#[derive(Debug, Clone)]
pub struct Object {
    pub key: String,
    pub etag: String,
    pub content_type: String,
    pub metadata: std::collections::BTreeMap<String, String>,
    pub body: Vec<u8>,
}
