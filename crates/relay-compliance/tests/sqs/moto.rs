//! The SQS tests' moto server (`common/moto.rs`): SQS, IAM and STS, with
//! three users and a role (`sqs/moto_admin.py`), the standard queue and
//! the FIFO queue. Every request after the set-up is checked: its
//! Signature Version 4 and the signing user's IAM policy.

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use crate::moto_server::{Key, Message, Server};

/// The standard queue and the FIFO queue every server has.
pub const QUEUE: &str = "relay-events";
pub const FIFO_QUEUE: &str = "relay-events.fifo";

/// The actions moto takes without credentials, exactly the set-up's:
/// `relay` and `reader` 3 each (user, key, policy), `denied` 2 (user,
/// key), the role 2 (role, policy), 1 per queue. The set-up checks the
/// next request is refused.
const SETUP_ACTIONS: u32 = 12;

/// The role `relay` may assume, which may send to the queues.
pub const ROLE_ARN: &str = "arn:aws:iam::123456789012:role/relay-sender";

pub struct Moto {
    pub server: Server,
    /// May only `sqs:SendMessage` to the two queues and assume [`ROLE_ARN`].
    pub relay: Key,
    /// May do everything (the tests' reads).
    pub reader: Key,
    /// Has no policy: may do nothing.
    pub denied: Key,
    /// The queues' URLs by name.
    pub queues: BTreeMap<String, String>,
}

impl std::ops::Deref for Moto {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

impl Moto {
    /// A running server with the users and the queues made.
    pub async fn start(python: PathBuf) -> Moto {
        let server = Server::start(python, "sqs", SETUP_ACTIONS).await;
        let out = server.admin(&["setup", QUEUE, FIFO_QUEUE]);
        Moto {
            relay: Key::from_json(&out["relay"]),
            reader: Key::from_json(&out["reader"]),
            denied: Key::from_json(&out["denied"]),
            queues: out["queues"]
                .as_object()
                .expect("the queues")
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().expect("a URL").to_string()))
                .collect(),
            server,
        }
    }

    /// The URL of queue `name` (as moto makes it: on its own address).
    pub fn queue_url(&self, name: &str) -> String {
        self.queues[name].clone()
    }

    /// Receives and deletes every message of queue `name`, with boto3.
    pub fn drain(&self, name: &str) -> Vec<Message> {
        self.server.drain(&self.reader, &self.queue_url(name))
    }
}
