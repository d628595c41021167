//! The S3 tests' moto server (`common/moto.rs`): S3 and IAM, with one user
//! that may do everything and the bucket (`s3/moto_admin.py`). Every
//! request after the set-up must carry that user's Signature Version 4.

use std::path::PathBuf;

pub use crate::moto_server::Server;

/// The bucket every test writes to.
pub const BUCKET: &str = "relay-events";

/// The actions moto takes without credentials: the set-up's four (the
/// user's three, the bucket).
const SETUP_ACTIONS: u32 = 4;

pub struct Moto {
    pub server: Server,
    pub access_key_id: String,
    pub secret_access_key: String,
}

impl std::ops::Deref for Moto {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

impl Moto {
    /// A running server with the user and the bucket made.
    pub async fn start(python: PathBuf) -> Moto {
        let server = Server::start(python, "s3", SETUP_ACTIONS).await;
        let keys = server.admin(&["setup", BUCKET]);
        Moto {
            access_key_id: keys["access_key_id"].as_str().expect("a key id").into(),
            secret_access_key: keys["secret_access_key"].as_str().expect("a secret").into(),
            server,
        }
    }

    /// Deletes [`BUCKET`] (and what it holds): writes to it are then
    /// refused `404 NoSuchBucket`.
    pub fn delete_bucket(&self) {
        self.admin(&[
            "delete-bucket",
            BUCKET,
            &self.access_key_id,
            &self.secret_access_key,
        ]);
    }

    /// Makes [`BUCKET`] again.
    pub fn create_bucket(&self) {
        self.admin(&[
            "create-bucket",
            BUCKET,
            &self.access_key_id,
            &self.secret_access_key,
        ]);
    }

    /// Every object of [`BUCKET`], read with boto3.
    pub fn objects(&self) -> Vec<Object> {
        let all = self.admin(&["read", BUCKET, &self.access_key_id, &self.secret_access_key]);
        all.as_array()
            .expect("a list")
            .iter()
            .map(|o| {
                use base64::Engine as _;
                let text = |k: &str| o[k].as_str().unwrap_or_default().to_string();
                Object {
                    key: text("key"),
                    etag: text("etag"),
                    content_type: text("content_type"),
                    metadata: o["metadata"]
                        .as_object()
                        .map(|m| {
                            m.iter()
                                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().into()))
                                .collect()
                        })
                        .unwrap_or_default(),
                    body: base64::engine::general_purpose::STANDARD
                        .decode(text("body_b64"))
                        .expect("base64"),
                }
            })
            .collect()
    }
}

/// One stored object as boto3 read it.
#[derive(Debug, Clone)]
pub struct Object {
    pub key: String,
    pub etag: String,
    pub content_type: String,
    pub metadata: std::collections::BTreeMap<String, String>,
    pub body: Vec<u8>,
}
