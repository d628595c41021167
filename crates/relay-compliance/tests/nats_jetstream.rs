//! NATS JetStream passes the compliance suite against a real `nats-server`
//! with JetStream: a private instance on a free port with its own store
//! directory (so the suite can stop and restart it, freeze it or change the
//! stream's limits), reached through the operator's allow list. The
//! endpoint publishes to the template `relay.{environment}.{event_type}`,
//! bound to the stream `RELAY` (`relay.>`). Its modes: retryable = the
//! stream is full (`max_msgs` reached, `discard: new`: JetStream error
//! 10077); permanent = `max_msg_size` smaller than the message (10054);
//! hang = the server stopped with SIGSTOP; down = the server stopped, then
//! started again on the same store directory. The server requires a user
//! and password; the endpoint names the password by a `file:` secret
//! reference the operator's policy allows, so every connection
//! authenticates, and the secrets case proves the password never reaches a
//! log, a record or `Debug`.

#[path = "nats/admin.rs"]
mod admin;

use std::path::PathBuf;
use std::process::Child;
use std::sync::Mutex;

use relay_compliance::{Mode, Peer, Received, compliance_suite};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_core::time::Clock;
use relay_destinations::Config;
use relay_destinations::nats_jetstream::NatsJetstreamDestination;
use relay_net::{OutboundConfig, StaticResolver};
use serde_json::json;

use admin::Admin;

const HOST: &str = "nats.compliance.test";
const STREAM: &str = "RELAY";
const SUBJECT: &str = "relay.{environment}.{event_type}";

struct State {
    server: Option<Child>,
    mode: Mode,
    /// What the stream held when the server was stopped.
    saved: Vec<Received>,
}

struct NatsPeer {
    port: u16,
    dir: PathBuf,
    /// The server's password, also written to `secrets/nats-password`.
    password: String,
    secrets: tempfile::TempDir,
    state: Mutex<State>,
}

fn admin(port: u16, pw: &str) -> Admin {
    Admin::connect(port, pw).expect("the test's NATS connection")
}

fn limits(port: u16, pw: &str, limits: serde_json::Value) {
    admin(port, pw)
        .put_stream(STREAM, &["relay.>"], limits)
        .expect("the stream's configuration");
}

fn stored(port: u16, pw: &str) -> Vec<Received> {
    let Ok(mut a) = Admin::connect(port, pw) else {
        return Vec::new();
    };
    a.messages(STREAM)
        .unwrap_or_default()
        .into_iter()
        // The filler of the retryable mode has no headers.
        .filter(|m| !m.header("webhook-id").is_empty())
        .map(|m| {
            assert_eq!(
                m.subject, "relay.live.order.shipped",
                "the subject template"
            );
            assert_eq!(m.header("Nats-Msg-Id"), m.header("webhook-id"));
            // Binary mode (the CloudEvents NATS binding): every attribute
            // in a `ce-` header, percent-encoded; `datacontenttype` also as
            // the `content-type`.
            let ce: Vec<(String, String)> = m
                .headers
                .iter()
                .filter_map(|(k, v)| {
                    let name = k.strip_prefix("ce-")?;
                    Some((name.to_string(), percent_decode(v)))
                })
                .collect();
            let binary = (!ce.is_empty()).then_some(ce);
            let content_type = match &binary {
                None => "application/cloudevents+json",
                Some(_) => "application/json",
            };
            assert_eq!(m.header("content-type"), content_type);
            Received {
                webhook_id: m.header("webhook-id").to_string(),
                webhook_timestamp: m.header("webhook-timestamp").to_string(),
                webhook_signature: m.header("webhook-signature").to_string(),
                body: m.data,
                binary,
            }
        })
        .collect()
}

/// One round of percent-decoding, as the binding asks of a receiver
/// (written apart from Relay's encoder, so the two check each other).
fn percent_decode(v: &str) -> String {
    let b = v.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8 once decoded")
}

impl Drop for NatsPeer {
    fn drop(&mut self) {
        if let Ok(mut s) = self.state.lock()
            && let Some(mut c) = s.server.take()
        {
            admin::stop_server(&mut c);
        }
        admin::remove_dir(&self.dir);
    }
}

impl Peer for NatsPeer {
    const KIND: &'static str = "nats_jetstream";

    async fn start() -> Option<Self> {
        if !admin::available() {
            relay_store::testenv::skip(
                "nats_jetstream compliance",
                "nats-server is not installed (Debian: apt-get install nats-server)",
            );
            return None;
        }
        let port = admin::free_port();
        let dir = admin::store_dir(port);
        let password = format!(
            "npw-{}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        let secrets = tempfile::tempdir().expect("a temporary directory");
        // As an operator's secret file usually is: the value and a newline.
        std::fs::write(
            secrets.path().join("nats-password"),
            format!("{password}\n"),
        )
        .expect("write the password file");
        let server = admin::start_server(port, &dir, &password);
        limits(port, &password, json!({}));
        Some(NatsPeer {
            port,
            dir,
            password,
            secrets,
            state: Mutex::new(State {
                server: Some(server),
                mode: Mode::Accept,
                saved: Vec::new(),
            }),
        })
    }

    fn destination(&self) -> Config {
        Config::NatsJetstream(NatsJetstreamDestination {
            host: HOST.into(),
            port: self.port,
            tls: false,
            subject: SUBJECT.into(),
            stream: Some(STREAM.into()),
            username: Some(admin::USER.into()),
            password: Some(SecretRef::File(format!(
                "{}/nats-password",
                self.secrets.path().display()
            ))),
            token: None,
            content_mode: Default::default(),
        })
    }

    fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.secrets.path().display().to_string()],
        }
    }

    fn secrets(&self) -> Vec<String> {
        vec![self.password.clone()]
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![],
                allow_plaintext_credentials_to_loopback: true,
            },
            StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]),
        )
    }

    async fn set_mode(&self, mode: Mode) {
        let (port, pw) = (self.port, self.password.as_str());
        let mut s = self.state.lock().unwrap();
        // Leave the current mode.
        match s.mode {
            Mode::Down => {
                if mode != Mode::Down {
                    s.server = Some(admin::start_server(port, &self.dir, pw));
                }
            }
            Mode::Hang => {
                if let Some(c) = &s.server {
                    admin::signal(c, "-CONT");
                }
            }
            Mode::FailRetryable | Mode::FailPermanent => limits(port, pw, json!({})),
            Mode::Accept => {}
        }
        // Enter the new one.
        match mode {
            Mode::Accept => {}
            Mode::FailRetryable => {
                // Full: as many messages as it holds, plus one the test
                // writes itself when it holds none (JetStream reads
                // `max_msgs: 0` as no limit).
                let held = stored(port, pw).len();
                if held == 0 {
                    let mut a = admin(port, pw);
                    a.request("relay.filler", b"filler").unwrap();
                }
                let held = admin(port, pw).messages(STREAM).unwrap().len();
                limits(port, pw, json!({"max_msgs": held}));
            }
            Mode::FailPermanent => limits(port, pw, json!({"max_msg_size": 16})),
            Mode::Hang => {
                if let Some(c) = &s.server {
                    admin::signal(c, "-STOP");
                }
            }
            Mode::Down => {
                if s.mode != Mode::Down {
                    s.saved = stored(port, pw);
                    if let Some(mut c) = s.server.take() {
                        admin::stop_server(&mut c);
                    }
                }
            }
        }
        s.mode = mode;
    }

    async fn received(&self) -> Vec<Received> {
        let s = self.state.lock().unwrap();
        if s.server.is_none() {
            return s.saved.clone();
        }
        stored(self.port, &self.password)
    }

    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        &[relay_core::model::ErrorKind::Connect]
    }
}

compliance_suite!(NatsPeer; binary);

/// What each refusal is recorded as: the stream full (10077, retried as
/// `unavailable`), a message over the stream's `max_msg_size` (10054,
/// `message_too_large`), no stream bound to the subject (no responders,
/// retried as `unknown_target`), and the PubAck itself.
#[tokio::test]
async fn refusals_are_recorded_with_jetstream_codes() {
    relay_compliance::cases::run::<NatsPeer, _, _>(false, "codes", |h| async move {
        let last = |code: &'static str| {
            let h = &h;
            async move {
                let m = h.messages().await.into_iter().last().expect("a message");
                let a = h.attempts(&m).await.into_iter().last().expect("an attempt");
                assert_eq!(
                    a.error_code.map(|c| c.to_string()).as_deref(),
                    Some(code),
                    "{a:?}"
                );
                a.detail
            }
        };
        h.publish().await;
        h.round().await;
        let m = h.only_message().await;
        let a = &h.attempts(&m).await[0];
        assert_eq!(a.detail["stream"], STREAM);
        assert_eq!(a.detail["seq"], 1);
        assert_eq!(a.detail["duplicate"], false);
        assert_eq!(a.detail["subject"], "relay.live.order.shipped");

        h.peer.set_mode(Mode::FailRetryable).await;
        h.publish().await;
        h.round().await;
        let d = last("unavailable").await;
        assert_eq!(d["error"]["err_code"], 10077, "{d}");

        h.peer.set_mode(Mode::FailPermanent).await;
        h.publish().await;
        h.round().await;
        let d = last("message_too_large").await;
        assert_eq!(d["error"]["err_code"], 10054, "{d}");

        h.peer.set_mode(Mode::Accept).await;
        admin(h.peer.port, &h.peer.password)
            .api(&format!("$JS.API.STREAM.DELETE.{STREAM}"), &json!({}))
            .unwrap();
        h.publish().await;
        h.round().await;
        let d = last("unknown_target").await;
        assert_eq!(d["error"]["status"], 503, "{d}");
    })
    .await;
}

/// A publish the stream already holds (the same `Nats-Msg-Id` within its
/// duplicate window, as after a PubAck lost on the way back) is acknowledged
/// as a duplicate and stored once.
#[tokio::test]
async fn a_retried_publish_is_stored_once() {
    relay_compliance::cases::run::<NatsPeer, _, _>(false, "dedup", |h| async move {
        // The id the harness gives its first event, stored before Relay's
        // publish.
        let ack = admin(h.peer.port, &h.peer.password).publish_with_id(
            "relay.live.order.shipped",
            "evt_compliance_1",
            b"first",
        );
        assert_eq!(ack["seq"], 1, "{ack}");
        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, relay_core::model::MessageState::Delivered);
        let a = &h.attempts(&m).await[0];
        assert_eq!(a.detail["duplicate"], true, "{:?}", a.detail);
        assert_eq!(a.detail["seq"], 1);
        let all = admin(h.peer.port, &h.peer.password)
            .messages(STREAM)
            .unwrap();
        assert_eq!(all.len(), 1, "stored once");
    })
    .await;
}

/// A password the server refuses: the attempt is retried as `auth_refused`
/// with the server's `-ERR` in the record, and the value sent is nowhere.
#[tokio::test]
async fn a_refused_password_is_retried_as_auth_refused() {
    relay_compliance::cases::run::<NatsPeer, _, _>(false, "auth", |h| async move {
        let wrong = "wrong-nats-password-5e1f";
        // The client is built (and the reference resolved) at the first
        // attempt.
        std::fs::write(h.peer.secrets.path().join("nats-password"), wrong).unwrap();
        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, relay_core::model::MessageState::Scheduled, "{m:?}");
        let a = &h.attempts(&m).await[0];
        assert_eq!(
            a.error_code.map(|c| c.to_string()).as_deref(),
            Some("auth_refused"),
            "{a:?}"
        );
        let err = a.detail["error"]["server_error"]
            .as_str()
            .unwrap_or_default();
        assert!(err.contains("Authorization Violation"), "{:?}", a.detail);
        let everything = format!(
            "{a:?} {} {}",
            h.logs.text(),
            serde_json::to_string(a).unwrap()
        );
        assert!(!everything.contains(wrong), "the refused password leaked");
    })
    .await;
}

/// `{ordering_key}` in the subject: the event's ordering key (else its
/// subject) as one token, the bytes a token may not hold percent-encoded,
/// so a server-side subject mapping partitions by that token (the mapping
/// docs/destinations.md shows: one key, one partition).
#[tokio::test]
async fn the_ordering_key_is_one_subject_token() {
    relay_compliance::cases::run::<NatsPeer, _, _>(false, "ordering_key", |h| async move {
        let mut endpoint = h.endpoint.clone();
        let Ok(Config::NatsJetstream(mut d)) = Config::try_from(&endpoint.destination) else {
            unreachable!()
        };
        d.subject = "relay.{environment}.{ordering_key}".into();
        endpoint.destination = Config::NatsJetstream(d).into();
        endpoint.updated_at = h.clock.now();
        relay_store::conformance::update_endpoint(h.store(), &h.scope, &endpoint, &[])
            .await
            .unwrap();
        endpoint.revision += 1;
        // Published with the subject `order/1042` and no ordering key.
        h.publish().await;
        let now = h.clock.now();
        h.store()
            .publish(
                &h.scope,
                relay_store::NewEvent {
                    id: "evt_keyed".into(),
                    event_type: "order.shipped".into(),
                    type_version: 1,
                    subject: Some("order/7".into()),
                    data: serde_json::value::RawValue::from_string("{}".into()).unwrap(),
                    consumer_id: None,
                    ordering_key: Some("tenant.42 \u{fc}*".into()),
                    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
                    expires_at: None,
                    time: now,
                    now,
                },
            )
            .await
            .unwrap();
        assert_eq!(h.round().await, 2);
        let mut subjects: Vec<String> = admin(h.peer.port, &h.peer.password)
            .messages(STREAM)
            .unwrap()
            .into_iter()
            .map(|m| m.subject)
            .collect();
        subjects.sort();
        assert_eq!(
            subjects,
            [
                "relay.live.order/1042",
                "relay.live.tenant%2E42%20%C3%BC%2A"
            ]
        );
        // Partitioned by the server's subject mapping (`admin::PARTITIONS`):
        // every event of one key lands in the same one of 4 partitions.
        let mut endpoint = endpoint.clone();
        let Ok(Config::NatsJetstream(mut d)) = Config::try_from(&endpoint.destination) else {
            unreachable!()
        };
        d.subject = "relay.part.{ordering_key}".into();
        endpoint.destination = Config::NatsJetstream(d).into();
        h.clock.advance_millis(1000);
        endpoint.updated_at = h.clock.now();
        relay_store::conformance::update_endpoint(h.store(), &h.scope, &endpoint, &[])
            .await
            .unwrap();
        let keys = ["tenant.42", "customer-7", "tenant.42", "a b", "customer-7"];
        for (i, key) in keys.iter().enumerate() {
            let now = h.clock.now();
            h.store()
                .publish(
                    &h.scope,
                    relay_store::NewEvent {
                        id: format!("evt_part_{i}"),
                        event_type: "order.shipped".into(),
                        type_version: 1,
                        subject: None,
                        data: serde_json::value::RawValue::from_string("{}".into()).unwrap(),
                        consumer_id: None,
                        ordering_key: Some((*key).into()),
                        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                            .into(),
                        expires_at: None,
                        time: now,
                        now,
                    },
                )
                .await
                .unwrap();
        }
        assert_eq!(h.round().await, keys.len());
        let stored = admin(h.peer.port, &h.peer.password)
            .messages(STREAM)
            .unwrap();
        let parted: Vec<&str> = stored
            .iter()
            .filter_map(|m| m.subject.strip_prefix("relay.part."))
            .collect();
        assert_eq!(parted.len(), keys.len(), "{parted:?}");
        let mut partition_of = std::collections::HashMap::new();
        for rest in parted {
            let (partition, token) = rest.split_once('.').expect("partition.token");
            assert!(["0", "1", "2", "3"].contains(&partition), "{rest}");
            let seen = partition_of.entry(token).or_insert(partition);
            assert_eq!(*seen, partition, "one key, one partition: {rest}");
        }
        let mut tokens: Vec<_> = partition_of.into_keys().collect();
        tokens.sort();
        assert_eq!(tokens, ["a%20b", "customer-7", "tenant%2E42"]);
    })
    .await;
}
