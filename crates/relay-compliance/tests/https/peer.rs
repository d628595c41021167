//! The HTTPS peer of the compliance suite: `relay-receiver`, a real HTTPS
//! server on loopback with its own CA, reached through the operator's allow
//! list (its port, 127.0.0.1/32, its CA), never by bypassing the guard.
//! The endpoint has two custom headers: a literal one and an
//! `Authorization` whose value is a `file:` secret reference the operator's
//! policy allows. `HttpsPeer<true>` is the same receiver requiring client
//! certificates of a CA of its own (mutual TLS), and the endpoint presents
//! one whose chain and key are `file:` references too; the key is among the
//! [`Peer::secrets`] the suite proves never leak.

use std::sync::{Arc, Mutex};

use relay_compliance::{Mode, Peer, Received};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::https::{ClientCertificate, HttpsAuth, HttpsDestination, HttpsHeader};
use relay_net::{OutboundConfig, StaticResolver};
use relay_receiver::{Behavior, LeafCert, Receiver, ReceiverConfig, TestCa};

const HOST: &str = "hooks.compliance.test";

pub struct State {
    /// `None` while down.
    pub receiver: Option<Receiver>,
    mode: Mode,
    /// Requests of the current receiver already moved to `accepted`.
    flushed: usize,
    /// What was answered 2xx, oldest first.
    accepted: Vec<Received>,
}

/// The peer; `MTLS`: the receiver requires a client certificate.
pub struct HttpsPeer<const MTLS: bool> {
    port: u16,
    ca: Arc<TestCa>,
    ca_pem: tempfile_path::Path,
    /// The file holding the `Authorization` value, and that value.
    pub token_file: std::path::PathBuf,
    pub token: String,
    /// With mutual TLS: the CA the receiver trusts for clients, the
    /// endpoint's certificate and the files of its chain and key.
    pub client: Option<ClientCert>,
    pub state: Mutex<State>,
}

/// The endpoint's client certificate and where its PEM files are.
pub struct ClientCert {
    pub ca: Arc<TestCa>,
    pub cert: LeafCert,
    pub chain_file: std::path::PathBuf,
    pub key_file: std::path::PathBuf,
}

/// The CA file the guard trusts, kept for the peer's lifetime (the
/// receiver's own copy goes away with a receiver that is stopped).
mod tempfile_path {
    pub struct Path {
        pub dir: std::path::PathBuf,
        pub file: std::path::PathBuf,
    }
    impl Drop for Path {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn received(r: &relay_receiver::Recorded) -> Received {
    Received {
        body: r.body.to_vec(),
        webhook_id: r.header("webhook-id").unwrap_or_default().into(),
        webhook_timestamp: r.header("webhook-timestamp").unwrap_or_default().into(),
        webhook_signature: r.header("webhook-signature").unwrap_or_default().into(),
        binary: None,
    }
}

fn behavior(mode: Mode) -> Behavior {
    match mode {
        Mode::Accept | Mode::Down => Behavior::ok(),
        Mode::FailRetryable => Behavior::status(503),
        Mode::FailPermanent => Behavior::status(400),
        Mode::Hang => Behavior::hang(),
    }
}

impl<const MTLS: bool> HttpsPeer<MTLS> {
    async fn listen(&self, mode: Mode) -> Receiver {
        let listener =
            std::net::TcpListener::bind(("127.0.0.1", self.port)).expect("rebind the port");
        Receiver::start_on(
            ReceiverConfig {
                ca: Some(self.ca.clone()),
                extra_names: vec![HOST.into()],
                behavior: behavior(mode),
                client_ca: self.client.as_ref().map(|c| c.ca.clone()),
                ..Default::default()
            },
            listener,
        )
        .await
        .expect("receiver")
    }

    /// Moves what the current receiver accepted into `accepted`.
    fn flush(state: &mut State) {
        let Some(r) = &state.receiver else { return };
        let all = r.requests();
        if state.mode == Mode::Accept {
            state
                .accepted
                .extend(all.iter().skip(state.flushed).map(received));
        }
        state.flushed = all.len();
    }
}

impl<const MTLS: bool> Peer for HttpsPeer<MTLS> {
    const KIND: &'static str = "https";

    async fn start() -> Option<Self> {
        let client_ca =
            MTLS.then(|| Arc::new(TestCa::generate_named("Relay compliance client CA")));
        let receiver = Receiver::start(ReceiverConfig {
            extra_names: vec![HOST.into()],
            client_ca: client_ca.clone(),
            ..Default::default()
        })
        .await
        .expect("receiver");
        let dir = std::env::temp_dir().join(format!("relay-compliance-{}", receiver.port()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = receiver.ca().write_ca_pem(&dir).expect("CA file");
        let token = format!(
            "Bearer relay-compliance-{:x}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let token_file = dir.join("token");
        std::fs::write(&token_file, &token).expect("token file");
        let client = client_ca.map(|ca| {
            let cert = ca.client_cert("relay-compliance");
            let chain_file = dir.join("client-chain.pem");
            let key_file = dir.join("client-key.pem");
            std::fs::write(&chain_file, cert.chain_pem()).expect("chain file");
            std::fs::write(&key_file, cert.key_pem()).expect("key file");
            ClientCert {
                ca,
                cert,
                chain_file,
                key_file,
            }
        });
        Some(HttpsPeer {
            client,
            token_file,
            token,
            port: receiver.port(),
            ca: receiver.ca().clone(),
            ca_pem: tempfile_path::Path { dir, file },
            state: Mutex::new(State {
                receiver: Some(receiver),
                mode: Mode::Accept,
                flushed: 0,
                accepted: Vec::new(),
            }),
        })
    }

    fn destination(&self) -> Config {
        Config::Https(HttpsDestination {
            a2a_push: None,
            url: format!("https://{HOST}:{}/hooks", self.port),
            auth: self.client.as_ref().map(|c| HttpsAuth {
                client_certificate: Some(ClientCertificate {
                    chain: SecretRef::File(c.chain_file.to_string_lossy().into_owned()),
                    key: SecretRef::File(c.key_file.to_string_lossy().into_owned()),
                }),
                oauth2: None,
            }),
            headers: vec![
                HttpsHeader {
                    name: "X-Tenant".into(),
                    value: Some("acme".into()),
                    secret: None,
                },
                HttpsHeader {
                    name: "Authorization".into(),
                    value: None,
                    secret: Some(SecretRef::File(
                        self.token_file.to_string_lossy().into_owned(),
                    )),
                },
            ],
        })
    }

    fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.ca_pem.dir.to_string_lossy().into_owned()],
        }
    }

    fn secrets(&self) -> Vec<String> {
        let mut secrets = vec![self.token.clone()];
        if let Some(c) = &self.client {
            // The key's base64 lines: what would show if any of it leaked.
            secrets.extend(
                c.cert
                    .key_pem()
                    .lines()
                    .filter(|l| !l.starts_with("-----"))
                    .map(str::to_string),
            );
        }
        secrets
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![self.ca_pem.file.clone()],
                allow_plaintext_credentials_to_loopback: false,
            },
            StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]),
        )
    }

    async fn set_mode(&self, mode: Mode) {
        let restart = {
            let mut s = self.state.lock().unwrap();
            Self::flush(&mut s);
            s.mode = mode;
            match (&s.receiver, mode) {
                (Some(r), Mode::Down) => {
                    // Connections the client pooled are closed on their next
                    // request, so nothing reaches a stopped receiver.
                    r.set_behavior(Behavior::close());
                    s.receiver = None;
                    s.flushed = 0;
                    false
                }
                (Some(r), _) => {
                    r.set_behavior(behavior(mode));
                    false
                }
                (None, Mode::Down) => false,
                (None, _) => true,
            }
        };
        if restart {
            let r = self.listen(mode).await;
            let mut s = self.state.lock().unwrap();
            s.receiver = Some(r);
            s.flushed = 0;
        }
        // Let an aborted accept loop be dropped (its port closed) now.
        tokio::task::yield_now().await;
    }

    async fn received(&self) -> Vec<Received> {
        let mut s = self.state.lock().unwrap();
        Self::flush(&mut s);
        s.accepted.clone()
    }
}
