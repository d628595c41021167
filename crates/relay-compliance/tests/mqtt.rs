//! MQTT passes the compliance suite against a real broker: a private
//! `mosquitto` per test on a free port (see `mqtt/broker.rs`), reached
//! through the operator's allow list, speaking MQTT 5. Relay logs in as a
//! user whose password the endpoint names by a `file:` secret reference the
//! operator's policy allows; the secrets case proves it never reaches a
//! log, a record or `Debug`.
//!
//! Its modes: retryable = the ACL stops letting Relay's user publish
//! (`PUBACK` 0x87 not authorized); permanent = a size limit below every
//! message (`PUBACK` 0x95 packet too large); hang = the broker paused
//! (SIGSTOP); down = the broker stopped, then started again with its
//! persistent sessions and their queued messages.
//!
//! The consumer (`mqtt/consumer.rs`) subscribes at QoS 1 with a persistent
//! session before anything is published and reads every message; the suite
//! verifies each signature with `relay-verify`. Beyond the suite, the
//! answers are checked one by one against the real broker
//! (`mqtt/answers.rs`).

#[path = "mqtt/answers.rs"]
mod answers;
#[path = "mqtt/broker.rs"]
mod broker;
#[path = "mqtt/consumer.rs"]
mod consumer;

use relay_compliance::{Mode, Peer, Received, compliance_suite};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::mqtt::{MqttDestination, MqttVersion};
use relay_net::{OutboundConfig, StaticResolver};
use tokio::sync::Mutex;

use broker::{Broker, Rules};
use consumer::{Consumer, Got};

const HOST: &str = "mqtt.compliance.test";
const TOPIC: &str = "relay/{environment}/{event_type}";

/// The private broker, or `None` after saying `SKIPPED`.
async fn broker(extra: &str) -> Option<Broker> {
    if let Some(why) = broker::missing() {
        relay_store::testenv::skip("mqtt compliance", why);
        return None;
    }
    Some(Broker::start(extra).await)
}

fn outbound(port: u16) -> (OutboundConfig, StaticResolver) {
    (
        OutboundConfig {
            allow_ports: vec![port],
            allow_cidrs: vec!["127.0.0.1/32".into()],
            block_cidrs: vec![],
            extra_ca_certs: vec![],
            allow_plaintext_credentials_to_loopback: true,
        },
        StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]),
    )
}

/// The destination, publishing as [`broker::USER`] with the password in
/// `password_file`.
fn destination(port: u16, password_file: &str, version: MqttVersion) -> MqttDestination {
    MqttDestination {
        host: HOST.into(),
        port,
        tls: false,
        topic: TOPIC.into(),
        protocol_version: version,
        client_id: None,
        username: Some(broker::USER.into()),
        password: Some(SecretRef::File(password_file.into())),
        content_mode: Default::default(),
    }
}

/// A message as the suite sees it: the signature values from the user
/// properties; in binary mode (the content type is not a CloudEvents
/// format, the binding's rule) the attributes from the other user
/// properties and `datacontenttype` from the content type.
fn received(g: &Got) -> Received {
    let get = |k: &str| g.props.user(k).unwrap_or_default().to_string();
    let content_type = g.props.content_type.clone().unwrap_or_default();
    let binary = (!content_type.starts_with("application/cloudevents")).then(|| {
        let mut attributes: Vec<(String, String)> = g
            .props
            .user
            .iter()
            .filter(|(n, _)| !n.starts_with("webhook-") && !n.starts_with("relay-"))
            .cloned()
            .collect();
        attributes.push(("datacontenttype".into(), content_type.clone()));
        attributes
    });
    Received {
        body: g.payload.clone(),
        webhook_id: get("webhook-id"),
        webhook_timestamp: get("webhook-timestamp"),
        webhook_signature: get("webhook-signature"),
        binary,
    }
}

struct State {
    broker: Broker,
    mode: Mode,
}

struct MqttPeer {
    port: u16,
    password: String,
    password_file: String,
    dir: String,
    consumer: Consumer,
    state: Mutex<State>,
}

impl Peer for MqttPeer {
    const KIND: &'static str = "mqtt";

    async fn start() -> Option<Self> {
        let broker = broker("").await?;
        let consumer = Consumer::start(broker.port, "relay/#").await;
        Some(MqttPeer {
            port: broker.port,
            password: broker.password.clone(),
            password_file: broker.password_file(),
            dir: broker.dir(),
            consumer,
            state: Mutex::new(State {
                broker,
                mode: Mode::Accept,
            }),
        })
    }

    fn destination(&self) -> Config {
        Config::Mqtt(destination(self.port, &self.password_file, MqttVersion::V5))
    }

    fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.dir.clone()],
        }
    }

    fn secrets(&self) -> Vec<String> {
        vec![self.password.clone()]
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        outbound(self.port)
    }

    async fn set_mode(&self, mode: Mode) {
        let mut s = self.state.lock().await;
        // Leave the current mode.
        match s.mode {
            Mode::Down if mode != Mode::Down => s.broker.run().await,
            Mode::Hang => s.broker.resume(),
            _ => {}
        }
        // Enter the new one.
        let rules = match mode {
            Mode::FailRetryable => Rules {
                publish: false,
                size_limit: None,
            },
            Mode::FailPermanent => Rules {
                publish: true,
                size_limit: Some(10),
            },
            _ => Rules::default(),
        };
        match mode {
            Mode::Hang => s.broker.pause(),
            Mode::Down => s.broker.stop(),
            _ => s.broker.reload(rules).await,
        }
        s.mode = mode;
    }

    async fn received(&self) -> Vec<Received> {
        self.consumer.got().iter().map(received).collect()
    }

    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        &[relay_core::model::ErrorKind::Connect]
    }
}

compliance_suite!(MqttPeer; binary);
