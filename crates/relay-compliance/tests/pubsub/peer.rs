//! The Pub/Sub emulator behind its front door as the compliance harness's
//! peer: a `pubsub` endpoint publishing through a loopback TCP relay
//! (`s3/proxy.rs`: hang, down) to the front, which serves the token URL
//! too; its service account key is a `file:` secret reference (the
//! operator's policy allows the test's directory), so a test can make the
//! service refuse it: a key the token endpoint does not know (`400
//! invalid_grant`: retried, `token_invalid_grant`) or an account not
//! granted the topic (`403 PERMISSION_DENIED`: permanent). What Relay
//! published is read back from the emulator's REST pull API, each message
//! acknowledged once, kept in the order pulled.

use std::sync::Mutex;

use relay_compliance::process::free_port;
use relay_compliance::{ContentMode, Mode, Peer, Received};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::pubsub::PubsubDestination;
use relay_net::{OutboundConfig, StaticResolver};

use super::emulator::{self, Front, Message};
use super::proxy::{Proxy, Relaying};

pub struct PubsubPeer {
    pub front: Front,
    proxy: Proxy,
    received: Mutex<Vec<Received>>,
}

impl PubsubPeer {
    fn key_file(&self) -> String {
        self.front.dir().join("key.json").display().to_string()
    }
}

/// A pulled message as the harness sees it: the signature values from
/// their attributes; in binary mode the context attributes, `ce-<name>`
/// read as `<name>` (the binding's naming undone).
pub fn received(m: &Message) -> Received {
    let a = &m.attributes;
    let text = |k: &str| a.get(k).cloned().unwrap_or_default();
    let binary = a.contains_key("ce-specversion").then(|| {
        a.iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("ce-")?.to_string(), v.clone())))
            .collect()
    });
    Received {
        body: m.data.clone(),
        webhook_id: text("webhook-id"),
        webhook_timestamp: text("webhook-timestamp"),
        webhook_signature: text("webhook-signature"),
        binary,
    }
}

impl Peer for PubsubPeer {
    const KIND: &'static str = "pubsub";

    async fn start() -> Option<Self> {
        let emulator = match emulator::shared() {
            Ok(e) => e,
            Err(why) => {
                relay_store::testenv::skip("pubsub", &why);
                return None;
            }
        };
        let port = free_port();
        let proxy = Proxy::start(port).await;
        let front = Front::start(emulator, port, proxy.port, 3599).await;
        let peer = PubsubPeer {
            front,
            proxy,
            received: Mutex::new(Vec::new()),
        };
        peer.front
            .write_key(&peer.front.relay, peer.key_file().as_ref());
        Some(peer)
    }

    fn destination(&self) -> Config {
        Config::Pubsub(PubsubDestination {
            topic: self.front.topic.clone(),
            endpoint: self.front.url(),
            service_account_key: Some(SecretRef::File(self.key_file())),
            workload_identity: false,
            token_url: self.front.token_url(),
            ordered: true,
            content_mode: ContentMode::Structured,
        })
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.proxy.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![self.front.ca_pem.clone()],
                allow_plaintext_credentials_to_loopback: false,
            },
            StaticResolver::default(),
        )
    }

    async fn set_mode(&self, mode: Mode) {
        let key = self.key_file();
        match mode {
            Mode::Accept => {
                self.front.write_key(&self.front.relay, key.as_ref());
                self.proxy.set(Relaying::Through).await;
            }
            // The token endpoint refuses the assertion (400 invalid_grant:
            // retried, `token_invalid_grant`) once the endpoint's client
            // reads the file again.
            Mode::FailRetryable => self.front.write_key(&self.front.wrong, key.as_ref()),
            // An account the topic's IAM does not grant (403
            // PERMISSION_DENIED: permanent).
            Mode::FailPermanent => self.front.write_key(&self.front.denied, key.as_ref()),
            Mode::Hang => self.proxy.set(Relaying::Hang).await,
            Mode::Down => self.proxy.set(Relaying::Down).await,
        }
    }

    async fn received(&self) -> Vec<Received> {
        let new: Vec<Received> = self.front.drain().iter().map(received).collect();
        let mut all = self.received.lock().unwrap();
        all.extend(new);
        all.clone()
    }

    fn secrets(&self) -> Vec<String> {
        self.front.secrets()
    }

    fn secret_grant(&self) -> SecretGrant {
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec![self.front.dir().display().to_string()],
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
