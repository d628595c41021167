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

/// The installation's role when its identity is web identity
/// ([`Moto::start_for_web_identity`]), which may assume [`ROLE_ARN`].
pub const INSTALLATION_ROLE_ARN: &str = "arn:aws:iam::123456789012:role/relay-installation";

/// Web identity's free actions beyond the set-up's: the installation's
/// role (role, policy) and Relay's one `AssumeRoleWithWebIdentity`, which
/// is unsigned (moto fails on an unsigned request while it checks
/// signatures: `KeyError: 'HTTP_AUTHORIZATION'`), so it must be among the
/// actions moto takes without checking.
const WEB_IDENTITY_ACTIONS: u32 = 3;

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
        Moto::from_setup(server, &out)
    }

    /// A running server as [`Moto::start`]'s, with the installation's role
    /// for web identity, taking one action more without checking: the
    /// exchange Relay makes first. The test proves the count (a wrong
    /// signature refused after the exchange).
    pub async fn start_for_web_identity(python: PathBuf) -> Moto {
        let server = Server::start(python, "sqs", SETUP_ACTIONS + WEB_IDENTITY_ACTIONS).await;
        let out = server.admin(&["setup-web", QUEUE, FIFO_QUEUE]);
        Moto::from_setup(server, &out)
    }

    fn from_setup(server: Server, out: &serde_json::Value) -> Moto {
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
