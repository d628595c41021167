//! What the broker kinds (`redis_stream/`, `nats_jetstream/`, `rabbitmq/`,
//! `mqtt/`; `kafka/` where it fits) share, written once:
//!
//! - [`Kept`] (`broker/kept.rs`): the connections an endpoint keeps across
//!   attempts, and the retry-once rule: an exchange that failed on a reused
//!   connection in a way a fresh one may fix
//!   ([`Outcome::fresh_may_fix`]) runs once more on a fresh one;
//! - [`Outcome`]: what a broker's attempt result is to that plumbing, with
//!   its `Failed { kind, text, addr }` (no answer; the text names the
//!   failure, never a credential), made by [`failed`] and [`guard_failed`]
//!   and recorded by [`failed_record`];
//! - [`invalid`], the registration refusal codes the kinds have in common
//!   ([`INVALID_CREDENTIALS`], [`INVALID_STREAM`], [`INVALID_TOPIC`]) and
//!   the host's check through the guard ([`check_host`]);
//! - [`server_text`]: a server's text as an attempt record keeps it.
//!
//! Each broker folder has the same files for the same roles: `mod.rs` the
//! kind ([`crate::Kind`]), `conn.rs` the connection (opened through the
//! guard, its handshake, its exchanges), `wire.rs` the protocol's codec
//! (pure encoding and decoding; it opens nothing), `classify.rs` and
//! `limits.rs`.

mod kept;
mod line;

use std::net::SocketAddr;

use relay_core::secret::SecretValue;
use relay_net::{ErrorKind, Guard, GuardError};

pub use self::kept::{Exchange, Kept, Link};
pub use self::line::{LineErrors, ReadError, read_line};
use crate::{Invalid, Record};

/// The code of a refused username, password or token (every broker kind and
/// Kafka).
pub const INVALID_CREDENTIALS: &str = "invalid_credentials";
/// The code of a refused stream (Redis Streams' key, NATS's stream name).
pub const INVALID_STREAM: &str = "invalid_stream";
/// The code of a refused topic (MQTT's topic template, Kafka's topic).
pub const INVALID_TOPIC: &str = "invalid_topic";

/// The refusal of a username without its password.
pub const USERNAME_NEEDS_PASSWORD: &str = "a username needs a password (a secret reference)";
/// The refusal of a password without its username.
pub const PASSWORD_NEEDS_USERNAME: &str = "a password needs a username";

/// The most of a server's text an attempt record keeps, in characters.
pub const SERVER_TEXT_CHARS: usize = 512;

/// A destination refused at registration.
pub fn invalid(code: &'static str, pointer: &'static str, message: impl Into<String>) -> Invalid {
    Invalid {
        code,
        pointer,
        message: message.into(),
    }
}

/// The configured host and port, resolved and checked by the guard as for
/// an HTTPS host (`/destination/host`, the guard's error kind as the code).
pub async fn check_host(guard: &Guard, host: &str, port: u16) -> Result<(), Invalid> {
    guard
        .resolve_checked(host, port)
        .await
        .map(drop)
        .map_err(|e| invalid(e.kind().as_str(), "/destination/host", e.to_string()))
}

/// What a broker kind's attempt result (or connection error) is to the
/// shared plumbing.
pub trait Outcome: Sized {
    /// The kind's `Failed`: no answer; the text names the failure (never a
    /// credential).
    fn failed(kind: ErrorKind, text: String, addr: Option<SocketAddr>) -> Self;

    /// The failure's kind, when this is a `Failed`.
    fn failure(&self) -> Option<ErrorKind>;

    /// On a reused connection, whether a fresh connection may fix this: the
    /// connection broke or the answer broke the protocol (the server closed
    /// it since it was last used). A timeout, a refusal or an answer no.
    fn fresh_may_fix(&self) -> bool {
        self.failure() == Some(ErrorKind::Protocol)
    }

    /// Whether a connection an attempt holds alone is kept for the next
    /// attempt after this result (a shared connection is the kind's
    /// [`Link::is_live`] to judge).
    fn keeps_connection(&self) -> bool {
        self.failure().is_none()
    }
}

/// The kind's `Failed` result.
pub fn failed<R: Outcome>(kind: ErrorKind, text: impl Into<String>, addr: Option<SocketAddr>) -> R {
    R::failed(kind, text.into(), addr)
}

/// The guard's refusal or failure to connect, as the kind's `Failed`.
pub fn guard_failed<R: Outcome>(e: GuardError) -> R {
    R::failed(e.kind(), e.to_string(), e.remote_addr())
}

/// The attempt record of a `Failed`.
pub fn failed_record(kind: ErrorKind, text: &str, addr: Option<SocketAddr>) -> Record {
    Record {
        destination: addr,
        error: Some((kind, text.to_owned())),
        detail: serde_json::json!({}),
    }
}

/// A server's text as an attempt record keeps it: each secret's value
/// replaced (a server could quote what it was sent), then at most
/// [`SERVER_TEXT_CHARS`] characters.
pub fn server_text<'a>(text: &str, secrets: impl IntoIterator<Item = &'a SecretValue>) -> String {
    let mut t = text.to_owned();
    for s in secrets {
        if let Some(v) = s.expose_str().filter(|v| !v.is_empty()) {
            t = t.replace(v, "<redacted>");
        }
    }
    t.chars().take(SERVER_TEXT_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_text_redacts_before_it_cuts() {
        let pw = SecretValue::new(b"hunter2".to_vec());
        assert_eq!(
            server_text("WRONGPASS hunter2 is wrong", [&pw]),
            "WRONGPASS <redacted> is wrong"
        );
        // A secret across the cut is redacted, not half kept.
        let long = format!("{}hunter2", "x".repeat(SERVER_TEXT_CHARS - 3));
        let t = server_text(&long, [&pw]);
        assert!(!t.contains("hun"), "{t}");
        assert_eq!(t.chars().count(), SERVER_TEXT_CHARS);
        assert_eq!(server_text("no secret", []), "no secret");
        let empty = SecretValue::new(Vec::new());
        assert_eq!(server_text("kept", [&empty]), "kept");
    }

    #[test]
    fn failed_records_keep_kind_text_and_address() {
        let addr: SocketAddr = "127.0.0.1:6379".parse().unwrap();
        let r = failed_record(ErrorKind::Timeout, "timed out", Some(addr));
        assert_eq!(r.destination, Some(addr));
        assert_eq!(r.error, Some((ErrorKind::Timeout, "timed out".into())));
        assert_eq!(r.detail, serde_json::json!({}));
    }
}
