//! Verify webhooks from Relay over the raw request body.
//!
//! Relay signs every delivery with the Standard Webhooks profile: three
//! headers, `webhook-id`, `webhook-timestamp` (unix seconds) and
//! `webhook-signature`, a space-separated list of `<version>,<base64>`
//! entries over `{webhook-id}.{webhook-timestamp}.{raw body}`:
//!
//! - `v1a`: Ed25519 (Relay's default). You verify with the endpoint's public
//!   key, `whpk_…`, which is safe to keep in configuration and logs.
//! - `v1`: HMAC-SHA256. You verify with the endpoint's secret, `whsec_…`,
//!   shown once when the endpoint (or its new key) was created.
//!
//! During a key rotation every delivery carries two signatures, the new key's
//! first (`v1a,<new> v1a,<old>`); a [`Verifier`] accepts a request when any
//! entry verifies with any of its keys, so give it both keys while you switch.
//! Entries of versions it does not know, and malformed entries, are skipped.
//!
//! ```
//! use relay_verify::{SignatureHeaders, Verifier, VerifyError};
//!
//! let verifier = Verifier::new(["whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4="])?;
//! let headers = SignatureHeaders {
//!     id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
//!     timestamp: "1614265330",
//!     signature: "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==",
//! };
//! let body = br#"{"test": 2432232314}"#;
//! // `verify` uses the system clock; `verify_at` takes "now" in unix seconds.
//! assert_eq!(verifier.verify_at(&headers, body, 1614265330), Ok(()));
//! assert_eq!(
//!     verifier.verify_at(&headers, br#"{"test":2432232314}"#, 1614265330),
//!     Err(VerifyError::NoMatchingSignature),
//! );
//! assert!(matches!(
//!     verifier.verify(&headers, body),
//!     Err(VerifyError::TimestampTooOld { .. }),
//! ));
//! # Ok::<(), relay_verify::KeyError>(())
//! ```
//!
//! Always verify the bytes exactly as received: parsing the JSON and
//! serializing it again changes them. HMAC tags are compared in constant
//! time; Ed25519 signatures are checked strictly. The timestamp must be within
//! the tolerance (5 minutes by default, inclusive) of now, either side.
//!
//! Replays inside the tolerance are stopped with a [`SeenStore`]:
//! [`Verifier::verify_once`] records each verified `webhook-id` and rejects
//! one already seen with [`VerifyError::Duplicate`]. [`MemorySeenStore`] keeps
//! ids in memory for at least 96 hours, longer than Relay's retry window; back
//! the trait with your database or cache when you run several processes.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod dedup;
mod error;
mod headers;
mod key;
mod verifier;

pub use dedup::{MIN_RETENTION_SECONDS, MemorySeenStore, SeenStore};
pub use error::{KeyError, VerifyError};
pub use headers::{
    HeaderLookup, SIGNATURE_HEADER, SignatureHeaders, TIMESTAMP_HEADER, WEBHOOK_ID_HEADER,
};
pub use key::VerificationKey;
pub use verifier::{DEFAULT_TOLERANCE_SECONDS, Verifier};
