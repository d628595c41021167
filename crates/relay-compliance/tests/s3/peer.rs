//! The moto server as the compliance harness's peer: an `s3` endpoint
//! whose credentials are `file:` secret references (the operator's policy
//! allows the test's directory), so a test can make the service refuse
//! them (a wrong secret in the file) and accept them again.

use std::cell::Cell;

use relay_compliance::{Mode, Peer, Received};
use relay_core::model::{Destination, S3Addressing, S3Batch, S3Compression, S3Destination};
use relay_core::secret::{SecretPolicy, SecretRef};
use relay_net::{OutboundConfig, StaticResolver};

use super::moto::{self, BUCKET, Moto};

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
    dir: tempfile::TempDir,
    batch: S3Batch,
    compression: S3Compression,
}

impl S3Peer {
    fn key_file(&self) -> String {
        self.dir.path().join("key-id").display().to_string()
    }

    fn secret_file(&self) -> String {
        self.dir.path().join("secret").display().to_string()
    }

    fn write_secret(&self, secret: &str) {
        std::fs::write(self.secret_file(), secret).unwrap();
    }
}

impl Peer for S3Peer {
    const KIND: &'static str = "s3";

    async fn start() -> Option<Self> {
        let python = match moto::missing() {
            Ok(p) => p,
            Err(why) => {
                relay_store::testenv::skip("s3", &why);
                return None;
            }
        };
        let moto = Moto::start(python).await;
        let dir = tempfile::Builder::new()
            .prefix("relay-s3-secrets-")
            .tempdir()
            .unwrap();
        let (batch, compression) = NEXT
            .with(Cell::take)
            .unwrap_or((S3Batch::default(), S3Compression::None));
        let peer = S3Peer {
            moto,
            dir,
            batch,
            compression,
        };
        std::fs::write(peer.key_file(), &peer.moto.access_key_id).unwrap();
        peer.write_secret(&peer.moto.secret_access_key);
        Some(peer)
    }

    fn destination(&self) -> Destination {
        Destination::S3(S3Destination {
            bucket: BUCKET.into(),
            prefix: "relay/".into(),
            region: "us-east-1".into(),
            endpoint_url: Some(self.moto.url()),
            addressing: S3Addressing::Path,
            access_key_id: SecretRef::File(self.key_file()),
            secret_access_key: SecretRef::File(self.secret_file()),
            session_token: None,
            batch: self.batch,
            compression: self.compression,
        })
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        (
            OutboundConfig {
                allow_ports: vec![self.moto.port],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![self.moto.ca_pem.clone()],
            },
            StaticResolver::default(),
        )
    }

    async fn set_mode(&self, mode: Mode) {
        match mode {
            Mode::Accept => self.write_secret(&self.moto.secret_access_key),
            // The service's own signature check refuses it (403
            // SignatureDoesNotMatch: retried, `auth_refused`).
            Mode::FailRetryable => self.write_secret("not-the-secret-0123456789"),
            other => panic!("the S3 cases do not use {other:?}"),
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

    fn secrets(&self) -> Vec<String> {
        vec![
            self.moto.access_key_id.clone(),
            self.moto.secret_access_key.clone(),
        ]
    }

    fn secret_policy(&self) -> SecretPolicy {
        SecretPolicy {
            allow_env_prefixes: vec![],
            allow_file_dirs: vec![self.dir.path().display().to_string()],
        }
    }
}
