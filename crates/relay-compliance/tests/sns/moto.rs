//! The SNS tests' moto server (`common/moto.rs`): SNS, SQS and IAM, with
//! three users (`sns/moto_admin.py`), the standard topic and the FIFO
//! topic, each with an SQS queue subscribed (raw message delivery), which
//! boto3 reads back. Every request after the set-up is checked: its
//! Signature Version 4 and the signing user's IAM policy.

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use crate::moto_server::{Key, Message, Server};

/// The standard topic and the FIFO topic every server has (and their
/// queues, of the same names).
pub const TOPIC: &str = "relay-events";
pub const FIFO_TOPIC: &str = "relay-events.fifo";

/// The actions moto takes without credentials, exactly the set-up's:
/// `relay` and `reader` 3 each (user, key, policy), `denied` 2 (user,
/// key), 3 per topic (topic, queue, subscription). The set-up checks the
/// next request is refused.
const SETUP_ACTIONS: u32 = 14;

pub struct Moto {
    pub server: Server,
    /// May only `sns:Publish` (moto checks SNS's actions against any
    /// resource: see `sns/moto_admin.py`).
    pub relay: Key,
    /// May do everything (the tests' reads).
    pub reader: Key,
    /// Has no policy: may do nothing.
    pub denied: Key,
    /// The topics' ARNs and their queues' URLs, by name.
    pub topics: BTreeMap<String, String>,
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
    /// A running server with the users, the topics and their queues made.
    pub async fn start(python: PathBuf) -> Moto {
        let server = Server::start(python, "sns", SETUP_ACTIONS).await;
        let out = server.admin(&["setup", TOPIC, FIFO_TOPIC]);
        Moto {
            relay: Key::from_json(&out["relay"]),
            reader: Key::from_json(&out["reader"]),
            denied: Key::from_json(&out["denied"]),
            topics: names(&out["topics"]),
            queues: names(&out["queues"]),
            server,
        }
    }

    /// The ARN of topic `name`.
    pub fn topic_arn(&self, name: &str) -> String {
        self.topics[name].clone()
    }

    /// Receives and deletes every message of topic `name`'s queue, with
    /// boto3.
    pub fn drain(&self, name: &str) -> Vec<Message> {
        self.server.drain(&self.reader, &self.queues[name])
    }
}
