//! The Standard Webhooks signature profile: `v1` (HMAC-SHA256) and `v1a` (Ed25519).
//!
//! Every request carries `webhook-id`, `webhook-timestamp` (unix seconds,
//! fresh on each attempt) and `webhook-signature`, a space-separated list of
//! `<version>,<base64 signature>` entries over the signed content
//! `{webhook-id}.{webhook-timestamp}.{raw body}`. Signatures are standard
//! base64 with padding.
//!
//! Keys on the wire:
//! - `whsec_<base64>`: an HMAC secret of 24 to 64 bytes (`v1`);
//! - `whsk_<base64>`: an Ed25519 signing key, either the 32-byte seed or the
//!   64-byte `seed || public key` form (both accepted; the 64-byte form is
//!   what [`Ed25519SigningKey::expose_whsk`] writes, as the reference
//!   libraries do);
//! - `whpk_<base64>`: an Ed25519 public key (32 bytes), safe to publish.
//!
//! Secret key types never print their secret: their `Debug` is redacted and
//! they have no `Display`. The secret leaves only through the methods named
//! `expose_*`. Key generation takes caller-provided random bytes; this crate
//! never reads OS randomness.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::Signer as _;
use hmac::{KeyInit, Mac};
use sha2::Sha256;

use crate::model::SignatureScheme;
use crate::time::Timestamp;

type HmacSha256 = hmac::Hmac<Sha256>;

/// Prefix of an HMAC secret.
pub const HMAC_SECRET_PREFIX: &str = "whsec_";
/// Prefix of an Ed25519 signing key.
pub const ED25519_SECRET_PREFIX: &str = "whsk_";
/// Prefix of an Ed25519 public key.
pub const ED25519_PUBLIC_PREFIX: &str = "whpk_";

/// Shortest HMAC secret accepted (Standard Webhooks: 24 bytes).
pub const HMAC_SECRET_MIN_BYTES: usize = 24;
/// Longest HMAC secret accepted (Standard Webhooks: 64 bytes).
pub const HMAC_SECRET_MAX_BYTES: usize = 64;

/// Timestamp tolerance recommended to consumers, either side, inclusive.
pub const DEFAULT_TOLERANCE_SECONDS: i64 = 300;

/// A key string that cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the key does not start with `{expected}`")]
    WrongPrefix { expected: &'static str },
    #[error("the key is not valid base64")]
    InvalidBase64,
    #[error("the key has {actual} bytes; {expected}")]
    WrongLength {
        actual: usize,
        expected: &'static str,
    },
    #[error("the key pair's public half does not match its seed")]
    MismatchedKeyPair,
    #[error("the public key is not a valid Ed25519 point")]
    InvalidPublicKey,
}

impl KeyError {
    /// A stable, machine-readable code.
    pub const fn code(&self) -> &'static str {
        match self {
            KeyError::WrongPrefix { .. } => "key_wrong_prefix",
            KeyError::InvalidBase64 => "key_invalid_base64",
            KeyError::WrongLength { .. } => "key_wrong_length",
            KeyError::MismatchedKeyPair => "key_mismatched_pair",
            KeyError::InvalidPublicKey => "key_invalid_public_key",
        }
    }
}

fn decode_prefixed(s: &str, prefix: &'static str) -> Result<Vec<u8>, KeyError> {
    let body = s
        .strip_prefix(prefix)
        .ok_or(KeyError::WrongPrefix { expected: prefix })?;
    BASE64.decode(body).map_err(|_| KeyError::InvalidBase64)
}

/// The content that is signed: `{webhook-id}.{webhook-timestamp}.{raw body}`.
#[derive(Debug, Clone, Copy)]
pub struct SignedContent<'a> {
    pub webhook_id: &'a str,
    /// The `webhook-timestamp` header value exactly as sent.
    pub webhook_timestamp: &'a str,
    pub body: &'a [u8],
}

impl SignedContent<'_> {
    fn parts(&self) -> [&[u8]; 5] {
        [
            self.webhook_id.as_bytes(),
            b".",
            self.webhook_timestamp.as_bytes(),
            b".",
            self.body,
        ]
    }

    /// The signed bytes, contiguous.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            self.webhook_id.len() + self.webhook_timestamp.len() + 2 + self.body.len(),
        );
        for part in self.parts() {
            out.extend_from_slice(part);
        }
        out
    }
}

/// An HMAC-SHA256 secret (`v1`). `Debug` is redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct HmacSecret {
    bytes: Vec<u8>,
}

impl fmt::Debug for HmacSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HmacSecret(<redacted>)")
    }
}

impl HmacSecret {
    /// A new secret from 32 caller-provided random bytes.
    pub fn generate(random: [u8; 32]) -> Self {
        HmacSecret {
            bytes: random.to_vec(),
        }
    }

    /// A secret from its raw bytes (24 to 64 of them).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, KeyError> {
        if !(HMAC_SECRET_MIN_BYTES..=HMAC_SECRET_MAX_BYTES).contains(&bytes.len()) {
            return Err(KeyError::WrongLength {
                actual: bytes.len(),
                expected: "an HMAC secret has 24 to 64 bytes",
            });
        }
        Ok(HmacSecret {
            bytes: bytes.to_vec(),
        })
    }

    /// Parses `whsec_<base64>`.
    pub fn parse(s: &str) -> Result<Self, KeyError> {
        Self::from_bytes(&decode_prefixed(s, HMAC_SECRET_PREFIX)?)
    }

    /// The secret as `whsec_<base64>`, to show once at creation.
    pub fn expose_whsec(&self) -> String {
        format!("{HMAC_SECRET_PREFIX}{}", BASE64.encode(&self.bytes))
    }

    /// The raw secret, to encrypt at rest.
    pub fn expose_bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn mac(&self, content: &SignedContent<'_>) -> HmacSha256 {
        // HMAC accepts keys of any length, so this cannot fail; the fallback
        // keeps the function total without a panic path.
        let mut mac = match HmacSha256::new_from_slice(&self.bytes) {
            Ok(mac) => mac,
            Err(_) => HmacSha256::new(&Default::default()),
        };
        for part in content.parts() {
            mac.update(part);
        }
        mac
    }

    /// The base64 `v1` signature of `content`.
    pub fn sign(&self, content: &SignedContent<'_>) -> String {
        BASE64.encode(self.mac(content).finalize().into_bytes())
    }

    /// Constant-time check of a raw `v1` signature.
    pub fn verify(&self, content: &SignedContent<'_>, signature: &[u8]) -> bool {
        self.mac(content).verify_slice(signature).is_ok()
    }
}

/// An Ed25519 signing key (`v1a`). `Debug` shows only the public key.
#[derive(Clone)]
pub struct Ed25519SigningKey {
    key: ed25519_dalek::SigningKey,
}

impl fmt::Debug for Ed25519SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ed25519SigningKey")
            .field("public_key", &self.public_key().to_whpk())
            .finish_non_exhaustive()
    }
}

impl PartialEq for Ed25519SigningKey {
    fn eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq as _;
        bool::from(self.key.to_bytes().ct_eq(&other.key.to_bytes()))
    }
}

impl Eq for Ed25519SigningKey {}

impl Ed25519SigningKey {
    /// The key for a 32-byte seed; pass 32 random bytes to generate a new key.
    pub fn from_seed(seed: [u8; 32]) -> Self {
        Ed25519SigningKey {
            key: ed25519_dalek::SigningKey::from_bytes(&seed),
        }
    }

    /// A key from a 32-byte seed or a 64-byte `seed || public key`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, KeyError> {
        if let Ok(seed) = <[u8; 32]>::try_from(bytes) {
            return Ok(Self::from_seed(seed));
        }
        let pair = <[u8; 64]>::try_from(bytes).map_err(|_| KeyError::WrongLength {
            actual: bytes.len(),
            expected: "an Ed25519 signing key has 32 (seed) or 64 (seed and public key) bytes",
        })?;
        ed25519_dalek::SigningKey::from_keypair_bytes(&pair)
            .map(|key| Ed25519SigningKey { key })
            .map_err(|_| KeyError::MismatchedKeyPair)
    }

    /// Parses `whsk_<base64>` (32-byte seed or 64-byte key pair).
    pub fn parse(s: &str) -> Result<Self, KeyError> {
        Self::from_bytes(&decode_prefixed(s, ED25519_SECRET_PREFIX)?)
    }

    /// The 32-byte seed, to encrypt at rest.
    pub fn expose_seed(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// The key as `whsk_<base64 of seed || public key>`.
    pub fn expose_whsk(&self) -> String {
        format!(
            "{ED25519_SECRET_PREFIX}{}",
            BASE64.encode(self.key.to_keypair_bytes())
        )
    }

    pub fn public_key(&self) -> Ed25519PublicKey {
        Ed25519PublicKey {
            key: self.key.verifying_key(),
        }
    }

    /// The base64 `v1a` signature of `content`.
    pub fn sign(&self, content: &SignedContent<'_>) -> String {
        BASE64.encode(self.key.sign(&content.to_bytes()).to_bytes())
    }
}

/// An Ed25519 public key (`whpk_…`); not secret.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Ed25519PublicKey {
    key: ed25519_dalek::VerifyingKey,
}

impl fmt::Debug for Ed25519PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ed25519PublicKey({})", self.to_whpk())
    }
}

impl Ed25519PublicKey {
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, KeyError> {
        let raw = <[u8; 32]>::try_from(bytes).map_err(|_| KeyError::WrongLength {
            actual: bytes.len(),
            expected: "an Ed25519 public key has 32 bytes",
        })?;
        ed25519_dalek::VerifyingKey::from_bytes(&raw)
            .map(|key| Ed25519PublicKey { key })
            .map_err(|_| KeyError::InvalidPublicKey)
    }

    /// Parses `whpk_<base64>`.
    pub fn parse(s: &str) -> Result<Self, KeyError> {
        Self::from_bytes(&decode_prefixed(s, ED25519_PUBLIC_PREFIX)?)
    }

    pub fn to_bytes(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// The key as `whpk_<base64>`.
    pub fn to_whpk(&self) -> String {
        format!(
            "{ED25519_PUBLIC_PREFIX}{}",
            BASE64.encode(self.key.to_bytes())
        )
    }

    /// Checks a raw `v1a` signature (strict Ed25519 verification).
    pub fn verify(&self, content: &SignedContent<'_>, signature: &[u8]) -> bool {
        let Ok(sig) = ed25519_dalek::Signature::from_slice(signature) else {
            return false;
        };
        self.key.verify_strict(&content.to_bytes(), &sig).is_ok()
    }
}

/// An endpoint's signing key, of either scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SigningKey {
    Hmac(HmacSecret),
    Ed25519(Ed25519SigningKey),
}

impl SigningKey {
    /// A new key of `scheme` from 32 caller-provided random bytes.
    pub fn generate(scheme: SignatureScheme, random: [u8; 32]) -> Self {
        match scheme {
            SignatureScheme::V1 => SigningKey::Hmac(HmacSecret::generate(random)),
            SignatureScheme::V1a => SigningKey::Ed25519(Ed25519SigningKey::from_seed(random)),
        }
    }

    /// Parses `whsec_…` or `whsk_…`.
    pub fn parse(s: &str) -> Result<Self, KeyError> {
        if s.starts_with(HMAC_SECRET_PREFIX) {
            HmacSecret::parse(s).map(SigningKey::Hmac)
        } else if s.starts_with(ED25519_SECRET_PREFIX) {
            Ed25519SigningKey::parse(s).map(SigningKey::Ed25519)
        } else {
            Err(KeyError::WrongPrefix {
                expected: "whsec_ or whsk_",
            })
        }
    }

    pub const fn scheme(&self) -> SignatureScheme {
        match self {
            SigningKey::Hmac(_) => SignatureScheme::V1,
            SigningKey::Ed25519(_) => SignatureScheme::V1a,
        }
    }

    /// One `webhook-signature` entry: `v1,<base64>` or `v1a,<base64>`.
    pub fn sign_entry(&self, content: &SignedContent<'_>) -> String {
        let (version, signature) = match self {
            SigningKey::Hmac(k) => ("v1", k.sign(content)),
            SigningKey::Ed25519(k) => ("v1a", k.sign(content)),
        };
        format!("{version},{signature}")
    }

    /// What a consumer verifies with: the same secret for `v1`, the public key for `v1a`.
    pub fn verification_key(&self) -> VerificationKey {
        match self {
            SigningKey::Hmac(k) => VerificationKey::Hmac(k.clone()),
            SigningKey::Ed25519(k) => VerificationKey::Ed25519(k.public_key()),
        }
    }
}

/// A key that checks signatures: an HMAC secret or an Ed25519 public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerificationKey {
    Hmac(HmacSecret),
    Ed25519(Ed25519PublicKey),
}

impl VerificationKey {
    /// Parses `whsec_…`, `whpk_…` or `whsk_…` (a signing key verifies with its public half).
    pub fn parse(s: &str) -> Result<Self, KeyError> {
        if s.starts_with(ED25519_PUBLIC_PREFIX) {
            Ed25519PublicKey::parse(s).map(VerificationKey::Ed25519)
        } else {
            SigningKey::parse(s).map(|k| k.verification_key())
        }
    }

    const fn version(&self) -> &'static str {
        match self {
            VerificationKey::Hmac(_) => "v1",
            VerificationKey::Ed25519(_) => "v1a",
        }
    }

    fn verify(&self, content: &SignedContent<'_>, signature: &[u8]) -> bool {
        match self {
            VerificationKey::Hmac(k) => k.verify(content, signature),
            VerificationKey::Ed25519(k) => k.verify(content, signature),
        }
    }
}

/// The three signature headers of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureHeaders {
    pub webhook_id: String,
    pub webhook_timestamp: String,
    pub webhook_signature: String,
}

/// The `webhook-signature` value for `content`: one entry per key, in the
/// order given (pass the newest key first during a rotation), separated by
/// exactly one space.
pub fn signature_header(keys: &[SigningKey], content: &SignedContent<'_>) -> String {
    let entries: Vec<String> = keys.iter().map(|k| k.sign_entry(content)).collect();
    entries.join(" ")
}

/// Signs one attempt made at `now`: `webhook-timestamp` is `now` in whole unix seconds.
pub fn sign_request(
    keys: &[SigningKey],
    webhook_id: &str,
    now: Timestamp,
    body: &[u8],
) -> SignatureHeaders {
    let webhook_timestamp = now.unix_seconds().to_string();
    let webhook_signature = signature_header(
        keys,
        &SignedContent {
            webhook_id,
            webhook_timestamp: &webhook_timestamp,
            body,
        },
    );
    SignatureHeaders {
        webhook_id: webhook_id.to_owned(),
        webhook_timestamp,
        webhook_signature,
    }
}

/// Why a request did not verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("webhook-timestamp is not a whole number of unix seconds")]
    InvalidTimestamp,
    #[error("webhook-timestamp is more than the tolerance away from now")]
    TimestampOutOfTolerance,
    #[error("no signature matched any key")]
    NoMatchingSignature,
}

impl VerifyError {
    pub const fn code(&self) -> &'static str {
        match self {
            VerifyError::InvalidTimestamp => "signature_invalid_timestamp",
            VerifyError::TimestampOutOfTolerance => "signature_timestamp_out_of_tolerance",
            VerifyError::NoMatchingSignature => "signature_no_match",
        }
    }
}

/// Verifies a request the way a Standard Webhooks consumer does: the
/// timestamp must be within `tolerance_seconds` of `now` (inclusive), and at
/// least one entry of `webhook-signature` must verify with one of `keys`.
/// Entries of unknown versions and malformed entries are skipped. HMAC
/// comparison is constant-time.
pub fn verify(
    keys: &[VerificationKey],
    headers: &SignatureHeaders,
    body: &[u8],
    now: Timestamp,
    tolerance_seconds: i64,
) -> Result<(), VerifyError> {
    let ts = &headers.webhook_timestamp;
    if ts.is_empty() || !ts.bytes().all(|b| b.is_ascii_digit()) {
        return Err(VerifyError::InvalidTimestamp);
    }
    let sent: i64 = ts.parse().map_err(|_| VerifyError::InvalidTimestamp)?;
    if sent.abs_diff(now.unix_seconds()) > tolerance_seconds.unsigned_abs() {
        return Err(VerifyError::TimestampOutOfTolerance);
    }
    let content = SignedContent {
        webhook_id: &headers.webhook_id,
        webhook_timestamp: ts,
        body,
    };
    let mut matched = false;
    for entry in headers.webhook_signature.split(' ') {
        let Some((version, encoded)) = entry.split_once(',') else {
            continue;
        };
        let Ok(signature) = BASE64.decode(encoded) else {
            continue;
        };
        for key in keys.iter().filter(|k| k.version() == version) {
            // Keep going after a match so the time taken does not depend on which entry matched.
            matched |= key.verify(&content, &signature);
        }
    }
    if matched {
        Ok(())
    } else {
        Err(VerifyError::NoMatchingSignature)
    }
}

#[cfg(test)]
mod tests;
