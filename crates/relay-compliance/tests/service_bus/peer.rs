//! The Service Bus judge as the compliance harness's peer: an
//! `azure_service_bus` endpoint sending through a loopback TCP relay
//! (`s3/proxy.rs`: hang, down) to the judge, with a SAS rule whose key is
//! a `file:` secret reference (the operator's policy allows the test's
//! directory). Retryable: the judge answers `503 ServerBusy`; permanent: the queue is deleted (`404`). What Relay sent
//! is read back from the judge's record of the messages it took.

use relay_compliance::process::free_port;
use relay_compliance::{ContentMode, Mode, Peer, Received};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::service_bus::{SasKey, ServiceBusAuth, ServiceBusDestination};
use relay_net::{OutboundConfig, StaticResolver};

use super::judge::{self, Judge, Message};
use super::proxy::{Proxy, Relaying};

pub struct ServiceBusPeer {
    pub judge: Judge,
    proxy: Proxy,
}

impl ServiceBusPeer {
    fn key_file(&self) -> String {
        self.judge.dir().join("sas-key").display().to_string()
    }
}

/// A message as the harness sees it: the signature values from their user
/// properties; in binary mode the context attributes, `cloudEvents_<name>`
/// read as `<name>` (the AMQP binding's naming undone) and
/// `datacontenttype` the message's content type.
pub fn received(m: &Message) -> Received {
    let p = &m.properties;
    let text = |k: &str| p.get(k).cloned().unwrap_or_default();
    let binary = p.contains_key("cloudevents_specversion").then(|| {
        let mut attributes: Vec<(String, String)> = p
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("cloudevents_")?.to_string(), v.clone())))
            .collect();
        attributes.push(("datacontenttype".into(), m.content_type.clone()));
        attributes
    });
    Received {
        body: m.body.clone(),
        webhook_id: text("webhook-id"),
        webhook_timestamp: text("webhook-timestamp"),
        webhook_signature: text("webhook-signature"),
        binary,
    }
}

impl Peer for ServiceBusPeer {
    const KIND: &'static str = "azure_service_bus";

    async fn start() -> Option<Self> {
        let port = free_port();
        let proxy = Proxy::start(port).await;
        let judge = Judge::start(port, proxy.port, false).await;
        let peer = ServiceBusPeer { judge, proxy };
        std::fs::write(peer.key_file(), &peer.judge.key).unwrap();
        Some(peer)
    }

    fn destination(&self) -> Config {
        Config::ServiceBus(ServiceBusDestination {
            namespace: None,
            endpoint: Some(self.judge.url()),
            entity: judge::QUEUE.into(),
            auth: ServiceBusAuth::Sas(SasKey {
                key_name: judge::RULE.into(),
                key: SecretRef::File(self.key_file()),
            }),
            sessions: false,
            content_mode: ContentMode::Structured,
            max_message_bytes: 256 * 1024,
            refused: None,
        })
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.proxy.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![self.judge.ca_pem.clone()],
                allow_plaintext_credentials_to_loopback: false,
            },
            StaticResolver::default(),
        )
    }

    async fn set_mode(&self, mode: Mode) {
        match mode {
            Mode::Accept => {
                self.judge.set_state(serde_json::json!({"mode": "accept"}));
                self.proxy.set(Relaying::Through).await;
            }
            // ServerBusy without a `Retry-After` (one with it is a
            // deferral, which uses no attempt: the kind's own test).
            Mode::FailRetryable => self.judge.set_state(serde_json::json!({"mode": "busy"})),
            // The queue is gone: 404.
            Mode::FailPermanent => self
                .judge
                .set_state(serde_json::json!({"mode": "accept", "deleted": [judge::QUEUE]})),
            Mode::Hang => self.proxy.set(Relaying::Hang).await,
            Mode::Down => self.proxy.set(Relaying::Down).await,
        }
    }

    async fn received(&self) -> Vec<Received> {
        self.judge.messages().iter().map(received).collect()
    }

    fn secrets(&self) -> Vec<String> {
        vec![self.judge.key.clone()]
    }

    fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.judge.dir().display().to_string()],
        }
    }

    /// A stopped service refuses new connections (`connect`); a pooled
    /// connection it closed may be found closed only when used (`http`).
    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        &[
            relay_core::model::ErrorKind::Connect,
            relay_core::model::ErrorKind::Http,
        ]
    }
}
