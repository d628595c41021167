//! The moto server as the compliance harness's peer: an `sns` endpoint
//! publishing to the standard topic through a loopback TCP relay
//! (`common/proxy.rs`: hang, down), whose credentials are `file:` secret
//! references (the operator's policy allows the test's directory), so a
//! test can make the service refuse them: a wrong secret (`403
//! SignatureDoesNotMatch`, retried) or the keys of a user without
//! `sns:Publish` (`403 AccessDenied`, permanent). What Relay published is
//! read back with boto3 from the SQS queue subscribed to the topic (raw
//! message delivery), each message received and deleted once, kept in the
//! order received.

use std::sync::Mutex;

use relay_compliance::{ContentMode, Mode, Peer, Received};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::aws::Credentials;
use relay_destinations::sns::SnsDestination;
use relay_net::{OutboundConfig, StaticResolver};

use super::moto::{Message, Moto, TOPIC};
use super::moto_server::{self, Front};

pub struct SnsPeer {
    pub moto: Moto,
    front: Front,
    received: Mutex<Vec<Received>>,
}

impl Peer for SnsPeer {
    const KIND: &'static str = "sns";

    async fn start() -> Option<Self> {
        let moto = Moto::start(moto_server::python_or_skip("sns")?).await;
        let front = Front::start("sns", moto.port).await;
        front.write_key(&moto.relay);
        Some(SnsPeer {
            moto,
            front,
            received: Mutex::new(Vec::new()),
        })
    }

    fn destination(&self) -> Config {
        Config::Sns(SnsDestination {
            topic_arn: self.moto.topic_arn(TOPIC),
            endpoint_url: Some(format!("https://127.0.0.1:{}", self.front.proxy.port)),
            credentials: Credentials::keys(
                SecretRef::File(self.front.key_file()),
                SecretRef::File(self.front.secret_file()),
            ),
            content_mode: ContentMode::Structured,
            max_message_bytes: 256 * 1024,
        })
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        self.front.outbound(&self.moto.ca_pem)
    }

    async fn set_mode(&self, mode: Mode) {
        let m = &self.moto;
        self.front.set_mode(mode, &m.relay, &m.denied).await;
    }

    async fn received(&self) -> Vec<Received> {
        let new: Vec<Received> = self
            .moto
            .drain(TOPIC)
            .iter()
            .map(Message::received)
            .collect();
        let mut all = self.received.lock().unwrap();
        all.extend(new);
        all.clone()
    }

    fn secrets(&self) -> Vec<String> {
        vec![
            self.moto.relay.id.clone(),
            self.moto.relay.secret.clone(),
            self.moto.denied.id.clone(),
            self.moto.denied.secret.clone(),
        ]
    }

    fn secret_grant(&self) -> SecretGrant {
        self.front.secret_grant()
    }

    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        moto_server::DOWN_ERROR_KINDS
    }
}
