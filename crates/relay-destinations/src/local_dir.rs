//! A test-only batching kind (feature `test-kinds`, never in Relay): each
//! closed batch is one file, named from its batch id, in a local directory
//! ([`LocalDirDestination`]). It is this file and its line in the `kinds!`
//! list, nothing else: it implements [`Kind`] and [`Batching`], so that
//! the engine's tests show that the engine (and the API, and relay-core)
//! take any kind, batching included, with no change of their own
//! (`crates/relay-engine/tests/batching.rs`).
//!
//! - seal: the JSON Lines of the members, named `<batch id>.jsonl`, with
//!   the Standard Webhooks signature over their bytes, as S3's;
//! - write: the file, whole (written again whole at every write of the
//!   batch). The directory is never made: while it is missing, a write
//!   fails and is retried, as a peer that is down;
//! - classify: written is delivered; a failed write is retried.

use std::collections::BTreeSet;

use bytes::Bytes;
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::secret::{SecretRef, Secrets, Unresolved};
use relay_core::signature::sign_request;
use relay_core::time::Timestamp;
use relay_net::{Guard, Limits};
use serde::{Deserialize, Serialize};

use crate::batching::{BatchObject, BatchPolicy, Batching, Closing};
use crate::{Capacity, Invalid, Kind, Prepared, Record, Shared};

/// A local directory; each closed batch is written as one file in it
/// (which the directory must already exist for: a missing directory is a
/// failed write, retried).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalDirDestination {
    pub dir: String,
    pub max_events: u32,
    pub max_bytes: u64,
    pub max_wait_seconds: u32,
}

/// The local directory kind.
pub struct LocalDir;

/// An endpoint's client: its directory.
#[derive(Debug, Clone)]
pub struct Client {
    config: LocalDirDestination,
}

/// The result of one write: the file's name, and the error if it failed.
#[derive(Debug)]
pub struct Written {
    pub key: String,
    pub result: Result<u64, String>,
}

fn write_file(client: &Client, key: &str, bytes: &[u8]) -> Written {
    let path = std::path::Path::new(&client.config.dir).join(key);
    Written {
        key: key.to_string(),
        result: std::fs::write(&path, bytes)
            .map(|()| bytes.len() as u64)
            .map_err(|e| e.to_string()),
    }
}

impl Kind for LocalDir {
    const NAME: &'static str = "local_dir";
    type Config = LocalDirDestination;
    type Client = Client;
    type Result = Written;

    /// None: a test-only kind is never in the API's document.
    fn schema() -> Option<utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>> {
        None
    }

    /// None: it carries no credentials.
    fn secret_refs(_config: &LocalDirDestination) -> Vec<(&'static str, &SecretRef)> {
        Vec::new()
    }

    async fn validate(config: &LocalDirDestination, _guard: &Guard) -> Result<(), Invalid> {
        if config.dir.is_empty() {
            return Err(Invalid {
                code: "invalid_dir",
                pointer: "/destination/dir",
                message: "a directory is named".into(),
            });
        }
        Ok(())
    }

    fn build(
        config: &LocalDirDestination,
        _shared: &Shared,
        _secrets: &Secrets,
    ) -> Result<Client, Unresolved> {
        Ok(Client {
            config: config.clone(),
        })
    }

    /// One message alone, as a file named from its id (the engine writes
    /// batches through [`Batching::write`] instead).
    async fn deliver(client: &Client, message: &Prepared, _limits: Limits) -> Written {
        write_file(
            client,
            &format!("{}.json", message.webhook_id),
            &message.body,
        )
    }

    fn classify(written: &Written, _now: Timestamp) -> Verdict {
        match written.result {
            Ok(_) => Verdict::Delivered,
            Err(_) => Verdict::Retry {
                code: FailureCode::Refused(Refusal::Unavailable),
                not_before: None,
            },
        }
    }

    fn record(written: &Written) -> Record {
        let detail = match &written.result {
            Ok(bytes) => serde_json::json!({"key": written.key, "bytes": bytes}),
            Err(e) => serde_json::json!({"key": written.key, "error": e}),
        };
        Record {
            destination: None,
            error: None,
            detail,
        }
    }

    fn capacity(_config: &LocalDirDestination) -> Capacity {
        Capacity {
            max_message_bytes: None,
            max_address: None,
            source: "a local file",
        }
    }

    /// No host: nothing leaves the machine, and it carries no credentials.
    fn credential_hosts(_config: &LocalDirDestination, _guard: &Guard) -> BTreeSet<String> {
        BTreeSet::new()
    }

    fn describe(config: &LocalDirDestination) -> String {
        format!("file://{}", config.dir)
    }
}

impl Batching for LocalDir {
    fn policy(c: &LocalDirDestination) -> BatchPolicy {
        BatchPolicy {
            max_events: c.max_events,
            max_bytes: c.max_bytes,
            max_wait_seconds: c.max_wait_seconds,
        }
    }

    fn seal(_client: &Client, closing: &Closing<'_>) -> BatchObject {
        let mut bytes = Vec::new();
        for line in closing.lines {
            bytes.extend_from_slice(line);
            bytes.push(b'\n');
        }
        let signed = sign_request(closing.keys, closing.batch_id, closing.time, &bytes);
        BatchObject {
            batch_id: closing.batch_id.to_string(),
            key: format!("{}.jsonl", closing.batch_id),
            content_type: "application/x-ndjson".into(),
            bytes: Bytes::from(bytes),
            webhook_timestamp: signed.webhook_timestamp,
            webhook_signature: signed.webhook_signature,
        }
    }

    async fn write(client: &Client, object: &BatchObject, _limits: Limits) -> Written {
        write_file(client, &object.key, &object.bytes)
    }
}
