//! HTTPS passes the compliance suite against `relay-receiver`, a real HTTPS
//! server on loopback with its own CA, reached through the operator's allow
//! list (its port, 127.0.0.1/32, its CA), never by bypassing the guard.
//! The endpoint has two custom headers: a literal one and an
//! `Authorization` whose value is a `file:` secret reference the operator's
//! policy allows; the secrets case proves that value never reaches a log, a
//! record or `Debug`, and [`custom_headers_arrive`] that both arrive.

use std::sync::{Arc, Mutex};

use relay_compliance::{Mode, Peer, Received, compliance_suite};
use relay_core::model::{Destination, HttpsDestination, HttpsHeader};
use relay_core::secret::{SecretPolicy, SecretRef};
use relay_net::{OutboundConfig, StaticResolver};
use relay_receiver::{Behavior, Receiver, ReceiverConfig, Reply, TestCa};

const HOST: &str = "hooks.compliance.test";

struct State {
    /// `None` while down.
    receiver: Option<Receiver>,
    mode: Mode,
    /// Requests of the current receiver already moved to `accepted`.
    flushed: usize,
    /// What was answered 2xx, oldest first.
    accepted: Vec<Received>,
}

struct HttpsPeer {
    port: u16,
    ca: Arc<TestCa>,
    ca_pem: tempfile_path::Path,
    /// The file holding the `Authorization` value, and that value.
    token_file: std::path::PathBuf,
    token: String,
    state: Mutex<State>,
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

impl HttpsPeer {
    async fn listen(&self, mode: Mode) -> Receiver {
        let listener =
            std::net::TcpListener::bind(("127.0.0.1", self.port)).expect("rebind the port");
        Receiver::start_on(
            ReceiverConfig {
                ca: Some(self.ca.clone()),
                extra_names: vec![HOST.into()],
                behavior: behavior(mode),
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

impl Peer for HttpsPeer {
    const KIND: &'static str = "https";

    async fn start() -> Option<Self> {
        let receiver = Receiver::start(ReceiverConfig {
            extra_names: vec![HOST.into()],
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
        Some(HttpsPeer {
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

    fn destination(&self) -> Destination {
        Destination::Https(HttpsDestination {
            url: format!("https://{HOST}:{}/hooks", self.port),
            auth: None,
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

    fn secret_policy(&self) -> SecretPolicy {
        SecretPolicy {
            allow_env_prefixes: vec![],
            allow_file_dirs: vec![self.ca_pem.dir.to_string_lossy().into_owned()],
        }
    }

    fn secrets(&self) -> Vec<String> {
        vec![self.token.clone()]
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![self.ca_pem.file.clone()],
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

compliance_suite!(HttpsPeer);

/// The endpoint's custom headers arrive with every request, the secret
/// reference resolved, after Relay's own headers (which they cannot replace).
#[tokio::test]
async fn custom_headers_arrive() {
    relay_compliance::cases::run::<HttpsPeer, _, _>(
        false,
        "custom_headers_arrive",
        |h| async move {
            h.publish().await;
            assert_eq!(h.round().await, 1);
            assert_eq!(h.peer.received().await.len(), 1);
            let s = h.peer.state.lock().unwrap();
            let requests = s.receiver.as_ref().expect("up").requests();
            assert_eq!(requests.len(), 1);
            let r = &requests[0];
            assert_eq!(r.header("x-tenant"), Some("acme"));
            assert_eq!(r.header("authorization"), Some(h.peer.token.as_str()));
            assert_eq!(
                r.header("content-type"),
                Some("application/cloudevents+json")
            );
            let count = |n: &str| r.headers.iter().filter(|(k, _)| k == n).count();
            assert_eq!(count("authorization"), 1);
            assert_eq!(count("webhook-signature"), 1);
        },
    )
    .await;
}

/// A receiver that echoes the secret header's value in its answer puts no
/// secret in the attempt record: the recorded body has `[redacted]` instead.
#[tokio::test]
async fn an_echoed_secret_is_redacted_from_the_record() {
    relay_compliance::cases::run::<HttpsPeer, _, _>(false, "echoed_secret", |h| async move {
        let echo = format!("you sent {} and acme", h.peer.token);
        {
            let s = h.peer.state.lock().unwrap();
            s.receiver
                .as_ref()
                .expect("up")
                .set_behavior(Behavior::reply(Reply::new(400).with_body(echo)));
        }
        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        let attempts = h.attempts(&m).await;
        assert_eq!(attempts.len(), 1);
        let records = serde_json::to_string(&attempts).unwrap();
        assert!(!records.contains(&h.peer.token), "{records}");
        assert!(
            records.contains("you sent [redacted] and acme"),
            "{records}"
        );
    })
    .await;
}

/// A secret reference that does not resolve at the attempt (here the
/// `file:` secret removed) is a recorded, retried attempt that uses up one
/// of the schedule's attempts and warns the endpoint, naming the reference
/// and never a value; once the secret is back, the next attempt delivers.
#[tokio::test]
async fn an_unresolvable_secret_is_a_recorded_retried_attempt() {
    relay_compliance::cases::run::<HttpsPeer, _, _>(false, "unresolvable_secret", |h| async move {
        std::fs::remove_file(&h.peer.token_file).expect("remove the secret file");
        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, relay_core::model::MessageState::Scheduled, "{m:?}");
        assert_eq!(m.attempts_used, 1, "{m:?}");
        assert_eq!(m.last_error_code.as_deref(), Some("secret_unresolved"));
        let attempts = h.attempts(&m).await;
        assert_eq!(attempts.len(), 1);
        let a = &attempts[0];
        assert_eq!(a.outcome, relay_core::outcome::AttemptOutcome::Retry);
        assert_eq!(
            a.error_code,
            Some(relay_core::outcome::FailureCode::SecretUnresolved)
        );
        assert_eq!(a.destination_ip, None);
        let detail = a.detail.to_string();
        let reference = format!("file:{}", h.peer.token_file.display());
        assert!(detail.contains(&reference), "{detail}");
        assert!(h.peer.received().await.is_empty(), "nothing was sent");
        let warnings = h
            .store()
            .endpoint_warnings(&h.endpoint.id, 10)
            .await
            .unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].kind, "secret_unresolved");
        assert!(warnings[0].detail.contains(&reference), "{warnings:?}");

        std::fs::write(&h.peer.token_file, &h.peer.token).expect("restore the secret");
        h.advance_to_next_attempt(&m);
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, relay_core::model::MessageState::Delivered, "{m:?}");
        assert_eq!(m.attempts_used, 2);
        assert_eq!(h.peer.received().await.len(), 1);
        let records = serde_json::to_string(&h.attempts(&m).await).unwrap();
        assert!(!records.contains(&h.peer.token), "{records}");
    })
    .await;
}
