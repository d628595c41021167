//! The moto server as the compliance harness's peer: an `s3` endpoint
//! reaching moto through a loopback TCP relay (`proxy.rs`: hang, down), whose
//! credentials are `file:` secret references (the operator's policy allows
//! the test's directory), so a test can make the service refuse them (a
//! wrong secret in the file: `403`, retried) and remove the bucket (`404
//! NoSuchBucket`, permanent).
//!
//! For the shared suite every message is a batch of its own (`max_events`
//! 1, written as soon as it is attempted); the dispatcher's batch cases
//! (`engine.rs`) configure their own limits.

use std::cell::Cell;
use std::io::Read as _;
use std::sync::atomic::{AtomicBool, Ordering};

use relay_compliance::{Mode, Peer, Received};
use relay_core::secret::{SecretGrant, SecretRef};
use relay_destinations::Config;
use relay_destinations::s3::{S3Addressing, S3Batch, S3Compression, S3Destination};
use relay_net::{OutboundConfig, StaticResolver};

use super::moto::{BUCKET, Moto};
use super::moto_server::{self, Front};
use super::proxy::Relaying;

thread_local! {
    /// What the next peer started on this thread (a test's, whose runtime
    /// is the thread's own) sets its endpoint to: its batch limits and
    /// compression.
    static NEXT: Cell<Option<(S3Batch, S3Compression)>> = const { Cell::new(None) };
}

/// Sets the batch limits and compression of this thread's next
/// [`S3Peer::start`].
pub fn configure(batch: S3Batch, compression: S3Compression) {
    NEXT.with(|n| n.set(Some((batch, compression))));
}

pub struct S3Peer {
    pub moto: Moto,
    front: Front,
    batch: S3Batch,
    compression: S3Compression,
    bucket_gone: AtomicBool,
}

impl Peer for S3Peer {
    const KIND: &'static str = "s3";

    async fn start() -> Option<Self> {
        let moto = Moto::start(moto_server::python_or_skip("s3")?).await;
        let front = Front::start("s3", moto.port).await;
        let (batch, compression) = NEXT.with(Cell::take).unwrap_or((
            S3Batch {
                max_events: 1,
                ..S3Batch::default()
            },
            S3Compression::None,
        ));
        std::fs::write(front.key_file(), &moto.access_key_id).unwrap();
        front.write_secret(&moto.secret_access_key);
        Some(S3Peer {
            moto,
            front,
            batch,
            compression,
            bucket_gone: AtomicBool::new(false),
        })
    }

    fn destination(&self) -> Config {
        Config::S3(S3Destination {
            bucket: BUCKET.into(),
            prefix: "relay/".into(),
            region: "us-east-1".into(),
            endpoint_url: Some(format!("https://127.0.0.1:{}", self.front.proxy.port)),
            addressing: S3Addressing::Path,
            access_key_id: SecretRef::File(self.front.key_file()),
            secret_access_key: SecretRef::File(self.front.secret_file()),
            session_token: None,
            batch: self.batch,
            compression: self.compression,
        })
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        self.front.outbound(&self.moto.ca_pem)
    }

    async fn set_mode(&self, mode: Mode) {
        match mode {
            Mode::Accept => {
                self.front.write_secret(&self.moto.secret_access_key);
                if self.bucket_gone.swap(false, Ordering::SeqCst) {
                    self.moto.create_bucket();
                }
                self.front.proxy.set(Relaying::Through).await;
            }
            // The service's own signature check refuses it (403
            // SignatureDoesNotMatch: retried, `auth_refused`) once the
            // endpoint's client reads the file (at its first build, or
            // after the engine's `secret_refresh`).
            Mode::FailRetryable => self.front.write_secret("not-the-secret-0123456789"),
            Mode::FailPermanent => {
                self.moto.delete_bucket();
                self.bucket_gone.store(true, Ordering::SeqCst);
            }
            Mode::Hang => self.front.proxy.set(Relaying::Hang).await,
            Mode::Down => self.front.proxy.set(Relaying::Down).await,
        }
    }

    /// Every object, as boto3 reads it: its bytes and the signature values
    /// of its metadata.
    async fn received(&self) -> Vec<Received> {
        self.moto
            .objects()
            .into_iter()
            .map(|o| Received {
                webhook_id: o.metadata.get("webhook-id").cloned().unwrap_or_default(),
                webhook_timestamp: o
                    .metadata
                    .get("webhook-timestamp")
                    .cloned()
                    .unwrap_or_default(),
                webhook_signature: o
                    .metadata
                    .get("webhook-signature")
                    .cloned()
                    .unwrap_or_default(),
                body: o.body,
                binary: None,
            })
            .collect()
    }

    /// An object's events: the `id` of each of its lines (inflated first
    /// when it is gzip).
    fn event_ids(received: &Received) -> Vec<String> {
        let mut text = Vec::new();
        if received.body.starts_with(&[0x1f, 0x8b]) {
            flate2::read::GzDecoder::new(&received.body[..])
                .read_to_end(&mut text)
                .expect("the object inflates");
        } else {
            text = received.body.clone();
        }
        text.split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| {
                let event: serde_json::Value = serde_json::from_slice(l).expect("a JSON line");
                event["id"].as_str().expect("an id").to_string()
            })
            .collect()
    }

    fn secrets(&self) -> Vec<String> {
        vec![
            self.moto.access_key_id.clone(),
            self.moto.secret_access_key.clone(),
        ]
    }

    fn secret_grant(&self) -> SecretGrant {
        self.front.secret_grant()
    }

    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        moto_server::DOWN_ERROR_KINDS
    }
}
