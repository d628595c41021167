//! The moto server as the compliance harness's peer: an `eventbridge`
//! endpoint putting events on the standard bus through a loopback TCP
//! relay (`common/proxy.rs`: hang, down), whose credentials are `file:`
//! secret references (the operator's policy allows the test's directory),
//! so a test can make the service refuse them: a wrong secret (a signature
//! refusal, retried) or the keys of a user without `events:PutEvents`
//! (`403 AccessDenied`, permanent). What Relay put is read back with
//! boto3 from the SQS queue the bus's rule targets: each message is the
//! event EventBridge made of the entry, whose `detail` is the CloudEvent
//! (parsed and written again by EventBridge: the same JSON, not the same
//! bytes, and no signature: `compliance_suite!(…; reserialized)`).

use std::sync::Mutex;

use relay_compliance::{Mode, Peer, Received};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::aws::Credentials;
use relay_destinations::eventbridge::EventBridgeDestination;
use relay_net::{OutboundConfig, StaticResolver};

use super::moto::{Moto, QUEUE, SOURCE};
use super::moto_server::{self, Front};

pub struct EventBridgePeer {
    pub moto: Moto,
    front: Front,
    received: Mutex<Vec<Received>>,
}

/// A routed event as the harness sees it: the body its `detail` (the
/// CloudEvent), the event id the CloudEvent's; no signature travels.
pub fn received(event: &serde_json::Value) -> Received {
    let detail = &event["detail"];
    Received {
        body: serde_json::to_vec(detail).expect("JSON"),
        webhook_id: detail["id"].as_str().unwrap_or_default().to_string(),
        webhook_timestamp: String::new(),
        webhook_signature: String::new(),
        binary: None,
    }
}

impl Peer for EventBridgePeer {
    const KIND: &'static str = "eventbridge";

    async fn start() -> Option<Self> {
        let moto = Moto::start(moto_server::python_or_skip("eventbridge")?).await;
        let front = Front::start("eventbridge", moto.port).await;
        front.write_key(&moto.relay);
        Some(EventBridgePeer {
            moto,
            front,
            received: Mutex::new(Vec::new()),
        })
    }

    fn destination(&self) -> Config {
        Config::EventBridge(EventBridgeDestination {
            event_bus: self.moto.bus_arn(QUEUE),
            region: "us-east-1".into(),
            endpoint_url: Some(format!("https://127.0.0.1:{}", self.front.proxy.port)),
            source: SOURCE.into(),
            detail_type: None,
            credentials: Credentials::keys(
                SecretRef::File(self.front.key_file()),
                SecretRef::File(self.front.secret_file()),
            ),
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
        let new: Vec<Received> = self.moto.events(QUEUE).iter().map(received).collect();
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
