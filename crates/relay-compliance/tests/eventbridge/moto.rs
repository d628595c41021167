//! The EventBridge tests' moto server (`common/moto.rs`): EventBridge, SQS,
//! IAM and STS, with three users and a role (`eventbridge/moto_admin.py`),
//! a standard bus and a bus whose rule targets a FIFO queue, each rule
//! routing the events of [`SOURCE`] to an SQS queue, which boto3 reads
//! back. Every request after the set-up is checked: its Signature Version
//! 4 and the signing user's IAM policy.

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use crate::moto_server::{Key, Message, Server};

/// The queues every server has, each the target of its bus's rule (the
/// buses are `relay-events` and `relay-events-fifo`).
pub const QUEUE: &str = "relay-events";
pub const FIFO_QUEUE: &str = "relay-events.fifo";

/// The `Source` the rules match.
pub const SOURCE: &str = "com.acme.relay";

/// The actions moto takes without credentials, exactly the set-up's:
/// `relay` and `reader` 3 each (user, key, policy), `denied` 2 (user,
/// key), the role 2 (role, policy), 4 per bus (bus, queue, rule, target).
/// The set-up checks the next request is refused.
const SETUP_ACTIONS: u32 = 18;

/// The role `relay` may assume, which may put events.
pub const ROLE_ARN: &str = "arn:aws:iam::123456789012:role/relay-sender";

pub struct Moto {
    pub server: Server,
    /// May only `events:PutEvents` and assume [`ROLE_ARN`].
    pub relay: Key,
    /// May do everything (the tests' reads).
    pub reader: Key,
    /// Has no policy: may do nothing.
    pub denied: Key,
    /// The buses' ARNs and the queues' URLs, by queue name.
    pub buses: BTreeMap<String, String>,
    pub queues: BTreeMap<String, String>,
}

impl std::ops::Deref for Moto {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

fn names(v: &serde_json::Value) -> BTreeMap<String, String> {
    v.as_object()
        .expect("a map")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("a string").to_string()))
        .collect()
}

impl Moto {
    /// A running server with the users, the role, the buses, their rules
    /// and queues made.
    pub async fn start(python: PathBuf) -> Moto {
        let server = Server::start(python, "eventbridge", SETUP_ACTIONS).await;
        let out = server.admin(&["setup", SOURCE, QUEUE, FIFO_QUEUE]);
        Moto {
            relay: Key::from_json(&out["relay"]),
            reader: Key::from_json(&out["reader"]),
            denied: Key::from_json(&out["denied"]),
            buses: names(&out["buses"]),
            queues: names(&out["queues"]),
            server,
        }
    }

    /// The ARN of the bus whose rule targets queue `name`.
    pub fn bus_arn(&self, name: &str) -> String {
        self.buses[name].clone()
    }

    /// Receives and deletes every message of queue `name`, with boto3:
    /// each body is the event EventBridge routed.
    pub fn drain(&self, name: &str) -> Vec<Message> {
        self.server.drain(&self.reader, &self.queues[name])
    }

    /// The events routed to queue `name`, parsed.
    pub fn events(&self, name: &str) -> Vec<serde_json::Value> {
        self.drain(name)
            .iter()
            .map(|m| serde_json::from_slice(&m.body).expect("an EventBridge event is JSON"))
            .collect()
    }
}
