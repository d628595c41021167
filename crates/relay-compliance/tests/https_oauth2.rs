//! HTTPS with OAuth 2.0 client credentials passes the compliance suite: the
//! webhook receiver (`relay-receiver`) refuses every request without a
//! bearer token its issuer gave out, and a second receiver serves that
//! issuer's token endpoint (client credentials, `client_secret_basic`),
//! both on loopback with one CA, reached through the operator's allow list
//! (their ports, 127.0.0.1/32, the CA), never by bypassing the guard. The
//! client secret is a `file:` reference the operator's policy allows; the
//! secrets case proves that neither it nor any token issued reaches a log,
//! a record or `Debug`. The token endpoint stays up while the webhook
//! receiver goes down and comes back; [`an_unreachable_token_endpoint_is_retried`]
//! stops the token endpoint instead.

use std::sync::{Arc, Mutex};

use relay_compliance::{Mode, Peer, Received, compliance_suite};
use relay_core::model::MessageState;
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::https::{
    ClientAuthMethod, HttpsAuth, HttpsDestination, OAuth2ClientCredentials,
};
use relay_net::{OutboundConfig, StaticResolver};
use relay_receiver::{Behavior, OAuthIssuer, Receiver, ReceiverConfig, TestCa};

const HOST: &str = "hooks.oauth.compliance.test";
const AUTH_HOST: &str = "auth.oauth.compliance.test";
const TOKEN_PATH: &str = "/oauth/token";
const CLIENT_ID: &str = "relay-compliance";

struct State {
    /// The webhook receiver; `None` while down.
    receiver: Option<Receiver>,
    /// The token endpoint; `None` while stopped.
    tokens: Option<Receiver>,
    mode: Mode,
    /// Requests of the current receiver already moved to `accepted`.
    flushed: usize,
    /// What was answered 2xx, oldest first.
    accepted: Vec<Received>,
}

struct OAuthPeer {
    port: u16,
    token_port: u16,
    ca: Arc<TestCa>,
    issuer: Arc<OAuthIssuer>,
    /// The directory of the CA file and the client secret's file, removed
    /// with the peer.
    dir: tempfile::TempDir,
    ca_file: std::path::PathBuf,
    secret_file: std::path::PathBuf,
    client_secret: String,
    state: Mutex<State>,
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

impl OAuthPeer {
    async fn listen(&self, port: u16, host: &str, mode: Mode) -> Receiver {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("rebind the port");
        Receiver::start_on(
            ReceiverConfig {
                ca: Some(self.ca.clone()),
                extra_names: vec![host.into()],
                behavior: behavior(mode),
                ..Default::default()
            },
            listener,
        )
        .await
        .expect("receiver")
    }

    /// The webhook receiver, again on its port, checking bearer tokens.
    async fn listen_hooks(&self, mode: Mode) -> Receiver {
        let r = self.listen(self.port, HOST, mode).await;
        r.require_bearer(self.issuer.clone());
        r
    }

    /// Stops (`false`) or starts again (`true`) the token endpoint.
    async fn set_token_endpoint(&self, up: bool) {
        if up {
            let r = self.listen(self.token_port, AUTH_HOST, Mode::Accept).await;
            r.serve_token_endpoint(TOKEN_PATH, self.issuer.clone());
            self.state.lock().unwrap().tokens = Some(r);
        } else {
            self.state.lock().unwrap().tokens = None;
        }
        tokio::task::yield_now().await;
    }

    /// Moves what the current receiver accepted into `accepted` (the ones
    /// it refused for their token are not accepted).
    fn flush(state: &mut State) {
        let Some(r) = &state.receiver else { return };
        let all = r.requests();
        if state.mode == Mode::Accept {
            state.accepted.extend(
                all.iter()
                    .skip(state.flushed)
                    .filter(|r| r.header("authorization").is_some())
                    .map(received),
            );
        }
        state.flushed = all.len();
    }
}

impl Peer for OAuthPeer {
    const KIND: &'static str = "https";

    async fn start() -> Option<Self> {
        let receiver = Receiver::start(ReceiverConfig {
            extra_names: vec![HOST.into()],
            ..Default::default()
        })
        .await
        .expect("receiver");
        let ca = receiver.ca().clone();
        let tokens = Receiver::start(ReceiverConfig {
            ca: Some(ca.clone()),
            extra_names: vec![AUTH_HOST.into()],
            ..Default::default()
        })
        .await
        .expect("token endpoint");
        let dir = tempfile::tempdir().expect("temp dir");
        let ca_file = ca.write_ca_pem(dir.path()).expect("CA file");
        // A secret with characters form-urlencoding must escape.
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let client_secret = format!("cs-{nonce:x}:+&= %");
        let secret_file = dir.path().join("client-secret");
        std::fs::write(&secret_file, &client_secret).expect("secret file");
        let issuer = OAuthIssuer::new(CLIENT_ID, &client_secret, Some(3600));
        tokens.serve_token_endpoint(TOKEN_PATH, issuer.clone());
        receiver.require_bearer(issuer.clone());
        Some(OAuthPeer {
            port: receiver.port(),
            token_port: tokens.port(),
            ca,
            issuer,
            dir,
            ca_file,
            secret_file,
            client_secret,
            state: Mutex::new(State {
                receiver: Some(receiver),
                tokens: Some(tokens),
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
            auth: Some(HttpsAuth {
                client_certificate: None,
                oauth2: Some(OAuth2ClientCredentials {
                    token_url: format!("https://{AUTH_HOST}:{}{TOKEN_PATH}", self.token_port),
                    client_id: CLIENT_ID.into(),
                    client_secret: SecretRef::File(self.secret_file.to_string_lossy().into_owned()),
                    scopes: vec!["events:write".into()],
                    audience: None,
                    method: ClientAuthMethod::ClientSecretBasic,
                }),
            }),
            headers: vec![],
        })
    }

    fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.dir.path().to_string_lossy().into_owned()],
        }
    }

    /// The client secret, its form-urlencoded form, the `Basic`
    /// credentials made of it, and every token issued.
    fn secrets(&self) -> Vec<String> {
        use base64::Engine as _;
        let encoded = self
            .client_secret
            .replace('%', "%25")
            .replace(':', "%3A")
            .replace('+', "%2B")
            .replace('&', "%26")
            .replace('=', "%3D")
            .replace(' ', "+");
        let basic =
            base64::engine::general_purpose::STANDARD.encode(format!("{CLIENT_ID}:{encoded}"));
        let mut s = vec![self.client_secret.clone(), encoded, basic];
        s.extend(self.issuer.issued_tokens());
        s
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.port, self.token_port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![self.ca_file.clone()],
                allow_plaintext_credentials_to_loopback: false,
            },
            StaticResolver::new()
                .with(HOST, ["127.0.0.1".parse().unwrap()])
                .with(AUTH_HOST, ["127.0.0.1".parse().unwrap()]),
        )
    }

    async fn set_mode(&self, mode: Mode) {
        let restart = {
            let mut s = self.state.lock().unwrap();
            Self::flush(&mut s);
            s.mode = mode;
            match (&s.receiver, mode) {
                (Some(r), Mode::Down) => {
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
            let r = self.listen_hooks(mode).await;
            let mut s = self.state.lock().unwrap();
            s.receiver = Some(r);
            s.flushed = 0;
        }
        tokio::task::yield_now().await;
    }

    async fn received(&self) -> Vec<Received> {
        let mut s = self.state.lock().unwrap();
        Self::flush(&mut s);
        s.accepted.clone()
    }
}

compliance_suite!(OAuthPeer);

/// Every request the receiver got carries a bearer token of the issuer,
/// and one token serves many attempts (it lives an hour).
#[tokio::test]
async fn the_bearer_token_arrives_and_is_reused() {
    relay_compliance::cases::run::<OAuthPeer, _, _>(
        false,
        "bearer_token_arrives",
        |h| async move {
            for _ in 0..3 {
                h.publish().await;
            }
            assert_eq!(h.round().await, 3);
            assert_eq!(h.peer.received().await.len(), 3);
            assert_eq!(h.peer.issuer.token_requests(), 1);
            let tokens = h.peer.issuer.issued_tokens();
            let s = h.peer.state.lock().unwrap();
            let requests = s.receiver.as_ref().expect("up").requests();
            assert_eq!(requests.len(), 3);
            for r in &requests {
                assert_eq!(
                    r.header("authorization"),
                    Some(format!("Bearer {}", tokens[0]).as_str())
                );
            }
            let token_request = &h.peer.issuer.requests()[0];
            assert!(token_request.authenticated, "{token_request:?}");
            assert_eq!(token_request.method, "client_secret_basic");
            assert_eq!(token_request.scope.as_deref(), Some("events:write"));
        },
    )
    .await;
}

/// A token endpoint that is down makes a failed, retried attempt that sends
/// nothing (`token_unreachable`, the transport's kind and the token
/// endpoint's address in the record); once it is back, the next attempt
/// delivers.
#[tokio::test]
async fn an_unreachable_token_endpoint_is_retried() {
    relay_compliance::cases::run::<OAuthPeer, _, _>(false, "token_endpoint_down", |h| async move {
        h.peer.set_token_endpoint(false).await;
        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, MessageState::Scheduled);
        assert_eq!(m.last_error_code.as_deref(), Some("token_unreachable"));
        let attempts = h.attempts(&m).await;
        assert_eq!(attempts.len(), 1);
        let a = &attempts[0];
        assert_eq!(
            a.error_kind,
            Some(relay_core::model::ErrorKind::Connect.into()),
            "{a:?}"
        );
        assert_eq!(a.status_code, None);
        assert_eq!(a.detail["oauth2"]["failure"], "token_unreachable");
        assert!(h.peer.received().await.is_empty());
        h.peer.set_token_endpoint(true).await;
        h.advance_to_next_attempt(&m);
        assert_eq!(h.round().await, 1);
        assert_eq!(h.only_message().await.state, MessageState::Delivered);
        assert_eq!(h.peer.received().await.len(), 1);
    })
    .await;
}

/// A client secret whose reference does not resolve at the attempt (its
/// file removed) is a recorded, retried attempt that sends nothing, to the
/// token endpoint or the receiver (`secret_unresolved`, naming the
/// reference and warning the endpoint); once the file is back, the next
/// attempt fetches a token and delivers.
#[tokio::test]
async fn an_unresolvable_client_secret_is_a_recorded_retried_attempt() {
    relay_compliance::cases::run::<OAuthPeer, _, _>(
        false,
        "client_secret_unresolved",
        |h| async move {
            std::fs::remove_file(&h.peer.secret_file).expect("remove the secret file");
            h.publish().await;
            assert_eq!(h.round().await, 1);
            let m = h.only_message().await;
            assert_eq!(m.state, MessageState::Scheduled, "{m:?}");
            assert_eq!(m.last_error_code.as_deref(), Some("secret_unresolved"));
            let attempts = h.attempts(&m).await;
            assert_eq!(attempts.len(), 1);
            let reference = format!("file:{}", h.peer.secret_file.display());
            assert!(
                attempts[0].detail.to_string().contains(&reference),
                "{attempts:?}"
            );
            assert_eq!(h.peer.issuer.token_requests(), 0);
            assert!(h.peer.received().await.is_empty());
            let warnings =
                relay_store::conformance::endpoint_warnings(h.store(), &h.endpoint.id, 10)
                    .await
                    .unwrap();
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert_eq!(
                warnings[0].kind,
                relay_core::model::WarningKind::SecretUnresolved
            );

            std::fs::write(&h.peer.secret_file, &h.peer.client_secret).expect("restore it");
            h.advance_to_next_attempt(&m);
            assert_eq!(h.round().await, 1);
            assert_eq!(h.only_message().await.state, MessageState::Delivered);
            assert_eq!(h.peer.issuer.token_requests(), 1);
            assert_eq!(h.peer.received().await.len(), 1);
        },
    )
    .await;
}
