//! Batching kinds: many messages, one write. A kind that batches
//! implements [`Batching`] besides [`Kind`]; the engine asks an endpoint's
//! destination whether it batches ([`batching`](fn@crate::batching)) and, if so, gathers its
//! messages' lines into open batches, closes them by count, size or time
//! ([`BatchPolicy`]), has the endpoint's client seal each one into its
//! object (`Client::seal`: its name, bytes and signature), records it
//! durably with its members, and writes it (`Client::write_batch`), the
//! same object at every write. The engine never names a batching kind: a
//! kind is one by its `[batching]` mark in the `kinds!` list, which
//! generates that dispatch (`crate::dispatch`).
//!
//! Batching kinds: object storage ([`crate::s3`]); with the `test-kinds`
//! feature, a local directory (`crate::local_dir`, one file per batch),
//! which the engine's tests batch through end to end
//! (`crates/relay-engine/tests/batching.rs`).

use std::future::Future;

use bytes::Bytes;
use relay_core::signature::SigningKey;
use relay_core::time::Timestamp;
use relay_net::Limits;

use crate::{Kind, Prepared};

/// When an endpoint's open batch closes: as soon as it holds `max_events`
/// messages, when the next line would take it over `max_bytes` bytes of
/// lines (each with its `\n`), or once its first message has waited
/// `max_wait_seconds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchPolicy {
    pub max_events: u32,
    pub max_bytes: u64,
    pub max_wait_seconds: u32,
}

/// A batch being closed: what its object is made from.
#[derive(Debug, Clone, Copy)]
pub struct Closing<'a> {
    /// `bat_…`: the object's name derives from it.
    pub batch_id: &'a str,
    /// When it closed (its object name's date, its `webhook-timestamp`).
    pub time: Timestamp,
    /// Its members' lines ([`crate::Client::batch_line`]), in order.
    pub lines: &'a [&'a [u8]],
    /// The endpoint's active signing keys.
    pub keys: &'a [SigningKey],
}

/// A closed batch's object, as it is recorded and as every write of the
/// batch sends it: its name, type, exact bytes and the Standard Webhooks
/// values over them (`webhook-id` is the batch id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchObject {
    pub batch_id: String,
    pub key: String,
    pub content_type: String,
    pub bytes: Bytes,
    pub webhook_timestamp: String,
    pub webhook_signature: String,
}

/// The batching part of a [`Kind`].
pub trait Batching: Kind {
    /// How an endpoint of this configuration closes its batches.
    fn policy(config: &Self::Config) -> BatchPolicy;

    /// The line `message` adds to a batch (without its `\n`): its
    /// prepared body unless the kind says otherwise.
    fn line(_client: &Self::Client, message: &Prepared) -> Bytes {
        message.body.clone()
    }

    /// The object of the batch `closing`: its name, bytes and signature,
    /// made once (the engine records it before the first write). Pure.
    fn seal(client: &Self::Client, closing: &Closing<'_>) -> BatchObject;

    /// Writes `object`, the same bytes to the same name at every write;
    /// the result is classified and recorded as any delivery's.
    fn write(
        client: &Self::Client,
        object: &BatchObject,
        limits: Limits,
    ) -> impl Future<Output = Self::Result> + Send;
}
