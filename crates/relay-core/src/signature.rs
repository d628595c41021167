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
mod tests {
    use super::*;
    use serde_json::Value;

    fn vectors() -> Value {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/standard-webhooks.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => panic!(
                "the Standard Webhooks vectors are missing at {} ({e}); they are kept in the repository's testdata/",
                path.display()
            ),
        };
        match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => panic!("{} is not JSON: {e}", path.display()),
        }
    }

    fn field<'a>(v: &'a Value, name: &str) -> &'a str {
        match v.get(name).and_then(Value::as_str) {
            Some(s) => s,
            None => panic!("vector field {name} missing in {v}"),
        }
    }

    fn cases<'a>(v: &'a Value, scheme: &str) -> &'a Vec<Value> {
        match v.get(scheme).and_then(Value::as_array) {
            Some(a) if !a.is_empty() => a,
            _ => panic!("no {scheme} vectors"),
        }
    }

    fn timestamp(v: &Value) -> Timestamp {
        match v.get("timestamp").and_then(Value::as_i64) {
            Some(t) => Timestamp::from_millis(t * 1000),
            None => panic!("vector timestamp missing in {v}"),
        }
    }

    #[test]
    fn reproduces_every_v1_vector() {
        let v = vectors();
        for case in cases(&v, "v1") {
            let key = SigningKey::parse(field(case, "secret"));
            let Ok(key) = key else { panic!("{key:?}") };
            assert_eq!(key.scheme(), SignatureScheme::V1);
            let headers = sign_request(
                std::slice::from_ref(&key),
                field(case, "id"),
                timestamp(case),
                field(case, "body").as_bytes(),
            );
            assert_eq!(headers.webhook_signature, field(case, "signature"));
            assert_eq!(headers.webhook_id, field(case, "id"));
            let vk = VerificationKey::parse(field(case, "secret"));
            let Ok(vk) = vk else { panic!("{vk:?}") };
            assert_eq!(
                verify(
                    &[vk],
                    &headers,
                    field(case, "body").as_bytes(),
                    timestamp(case),
                    300
                ),
                Ok(())
            );
        }
    }

    #[test]
    fn reproduces_every_v1a_vector() {
        let v = vectors();
        for case in cases(&v, "v1a") {
            let key = SigningKey::parse(field(case, "secret_key"));
            let Ok(key) = key else { panic!("{key:?}") };
            assert_eq!(key.scheme(), SignatureScheme::V1a);
            let SigningKey::Ed25519(ed) = &key else {
                panic!("not Ed25519")
            };
            assert_eq!(ed.public_key().to_whpk(), field(case, "public_key"));
            let headers = sign_request(
                std::slice::from_ref(&key),
                field(case, "id"),
                timestamp(case),
                field(case, "body").as_bytes(),
            );
            assert_eq!(headers.webhook_signature, field(case, "signature"));
            let pk = VerificationKey::parse(field(case, "public_key"));
            let Ok(pk) = pk else { panic!("{pk:?}") };
            assert_eq!(
                verify(
                    &[pk],
                    &headers,
                    field(case, "body").as_bytes(),
                    timestamp(case),
                    300
                ),
                Ok(())
            );
            // Both whsk_ forms name the same key.
            let round = Ed25519SigningKey::parse(&ed.expose_whsk());
            assert_eq!(
                round.as_ref().map(|k| k.expose_seed()),
                Ok(ed.expose_seed())
            );
            let seed_form = format!("whsk_{}", BASE64.encode(ed.expose_seed()));
            assert_eq!(Ed25519SigningKey::parse(&seed_form).as_ref(), Ok(ed));
        }
    }

    #[test]
    fn several_keys_give_several_entries_in_order() {
        let v = vectors();
        let v1 = &cases(&v, "v1")[0];
        let v1a = &cases(&v, "v1a")[0];
        let keys: Vec<SigningKey> = [field(v1, "secret"), field(v1a, "secret_key")]
            .into_iter()
            .filter_map(|k| SigningKey::parse(k).ok())
            .collect();
        assert_eq!(keys.len(), 2);
        let headers = sign_request(
            &keys,
            field(v1, "id"),
            timestamp(v1),
            field(v1, "body").as_bytes(),
        );
        // The judges' captured request carries exactly this header.
        assert_eq!(
            headers.webhook_signature,
            format!("{} {}", field(v1, "signature"), field(v1a, "signature"))
        );
        // Rotation: new key first, then the old one.
        let new = SigningKey::generate(SignatureScheme::V1a, [7; 32]);
        let old = SigningKey::generate(SignatureScheme::V1a, [8; 32]);
        let c = SignedContent {
            webhook_id: "msg_1",
            webhook_timestamp: "1",
            body: b"{}",
        };
        let header = signature_header(&[new.clone(), old.clone()], &c);
        assert_eq!(
            header,
            format!("{} {}", new.sign_entry(&c), old.sign_entry(&c))
        );
        assert_eq!(header.matches(' ').count(), 1);
        assert!(header.starts_with("v1a,"));
    }

    #[test]
    fn verify_rejects_tampering_and_stale_timestamps() {
        let key = SigningKey::generate(SignatureScheme::V1, [1; 32]);
        let ed = SigningKey::generate(SignatureScheme::V1a, [2; 32]);
        let now = Timestamp::from_millis(1_700_000_000_000);
        for k in [key, ed] {
            let vk = [k.verification_key()];
            let h = sign_request(std::slice::from_ref(&k), "msg_x", now, b"{\"a\":1}");
            assert_eq!(verify(&vk, &h, b"{\"a\":1}", now, 300), Ok(()));
            assert_eq!(
                verify(&vk, &h, b"{\"a\":1}", now.plus_seconds(300), 300),
                Ok(()),
                "inclusive"
            );
            assert_eq!(
                verify(&vk, &h, b"{\"a\":1}", now.plus_seconds(-300), 300),
                Ok(()),
                "inclusive"
            );
            assert_eq!(
                verify(&vk, &h, b"{\"a\":1}", now.plus_seconds(301), 300),
                Err(VerifyError::TimestampOutOfTolerance)
            );
            assert_eq!(
                verify(&vk, &h, b"{\"a\": 1}", now, 300),
                Err(VerifyError::NoMatchingSignature),
                "re-serialized body"
            );
            let other_id = SignatureHeaders {
                webhook_id: "msg_y".into(),
                ..h.clone()
            };
            assert_eq!(
                verify(&vk, &other_id, b"{\"a\":1}", now, 300),
                Err(VerifyError::NoMatchingSignature)
            );
            for bad_ts in ["", "-1", "1e9", "abc", "99999999999999999999999"] {
                let bad = SignatureHeaders {
                    webhook_timestamp: bad_ts.into(),
                    ..h.clone()
                };
                assert_eq!(
                    verify(&vk, &bad, b"{\"a\":1}", now, 300),
                    Err(VerifyError::InvalidTimestamp),
                    "{bad_ts}"
                );
            }
            // Unknown versions and garbage entries are skipped; a valid entry still verifies.
            let noisy = SignatureHeaders {
                webhook_signature: format!("v2,AAAA garbage v1,!!! {}", h.webhook_signature),
                ..h.clone()
            };
            assert_eq!(verify(&vk, &noisy, b"{\"a\":1}", now, 300), Ok(()));
            let none = SignatureHeaders {
                webhook_signature: String::new(),
                ..h.clone()
            };
            assert_eq!(
                verify(&vk, &none, b"{\"a\":1}", now, 300),
                Err(VerifyError::NoMatchingSignature)
            );
            // A key of the other scheme does not verify it.
            let wrong = [SigningKey::generate(SignatureScheme::V1, [3; 32]).verification_key()];
            assert_eq!(
                verify(&wrong, &h, b"{\"a\":1}", now, 300),
                Err(VerifyError::NoMatchingSignature)
            );
        }
    }

    #[test]
    fn key_parsing_errors() {
        let cases: &[(&str, &str)] = &[
            ("sk_abc", "key_wrong_prefix"),
            ("whsec_!!!", "key_invalid_base64"),
            ("whsec_AAAA", "key_wrong_length"),
            ("whsk_AAAA", "key_wrong_length"),
            ("whpk_AAAA", "key_wrong_prefix"),
            ("", "key_wrong_prefix"),
        ];
        for (s, code) in cases {
            assert_eq!(
                SigningKey::parse(s).map(|_| ()).map_err(|e| e.code()),
                Err(*code),
                "{s}"
            );
        }
        assert_eq!(
            Ed25519PublicKey::parse("whpk_AAAA").map_err(|e| e.code()),
            Err("key_wrong_length")
        );
        assert_eq!(
            HmacSecret::from_bytes(&[0; 65]).map_err(|e| e.code()),
            Err("key_wrong_length")
        );
        assert!(HmacSecret::from_bytes(&[0; 24]).is_ok());
        // A 64-byte pair whose public half is not the seed's.
        let mut pair = [0u8; 64];
        pair[..32].copy_from_slice(&[9; 32]);
        pair[32..].copy_from_slice(
            &Ed25519SigningKey::from_seed([10; 32])
                .public_key()
                .to_bytes(),
        );
        assert_eq!(
            Ed25519SigningKey::from_bytes(&pair),
            Err(KeyError::MismatchedKeyPair)
        );
    }

    #[test]
    fn generated_keys_round_trip_through_their_strings() {
        let h = HmacSecret::generate([42; 32]);
        assert!(h.expose_whsec().starts_with("whsec_"));
        assert_eq!(HmacSecret::parse(&h.expose_whsec()), Ok(h.clone()));
        assert_eq!(h.expose_bytes(), &[42; 32]);
        let e = Ed25519SigningKey::from_seed([42; 32]);
        assert_eq!(Ed25519SigningKey::parse(&e.expose_whsk()), Ok(e.clone()));
        assert_eq!(
            Ed25519PublicKey::parse(&e.public_key().to_whpk()),
            Ok(e.public_key())
        );
        assert_ne!(Ed25519SigningKey::from_seed([43; 32]), e);
        assert_eq!(
            VerificationKey::parse(&e.expose_whsk()),
            Ok(VerificationKey::Ed25519(e.public_key()))
        );
    }

    #[test]
    fn debug_never_shows_a_secret() {
        let v = vectors();
        let mut secrets: Vec<String> = Vec::new();
        for case in cases(&v, "v1") {
            secrets.push(field(case, "secret").into());
        }
        for case in cases(&v, "v1a") {
            secrets.push(field(case, "secret_key").into());
        }
        secrets.push(HmacSecret::generate([0xAB; 32]).expose_whsec());
        secrets.push(Ed25519SigningKey::from_seed([0xAB; 32]).expose_whsk());
        for text in &secrets {
            let Ok(key) = SigningKey::parse(text) else {
                panic!("{text}")
            };
            let raw: Vec<u8> = match &key {
                SigningKey::Hmac(k) => k.expose_bytes().to_vec(),
                SigningKey::Ed25519(k) => k.expose_seed().to_vec(),
            };
            let b64 = BASE64.encode(&raw);
            let forbidden = [
                text.clone(),
                text.trim_start_matches("whsec_")
                    .trim_start_matches("whsk_")
                    .to_string(),
                b64.clone(),
                b64[..16].to_string(),
                format!("{raw:?}"),
                format!("{:?}", &raw[..8]),
                raw.iter().map(|b| format!("{b:02x}")).collect::<String>()[..16].to_string(),
            ];
            let mut shown = vec![
                format!("{key:?}"),
                format!("{key:#?}"),
                format!("{:?}", key.verification_key()),
            ];
            match &key {
                SigningKey::Hmac(k) => shown.push(format!("{k:?}")),
                SigningKey::Ed25519(k) => shown.push(format!("{k:?}")),
            }
            for s in &shown {
                for f in &forbidden {
                    assert!(!s.contains(f.as_str()), "{s} contains {f}");
                }
            }
        }
        let ed = Ed25519SigningKey::from_seed([0xAB; 32]);
        assert!(
            format!("{ed:?}").contains(&ed.public_key().to_whpk()),
            "the public key may show"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_key_string_or_header_is_handled_without_panicking(
            key in "(whsec_|whsk_|whpk_)?[A-Za-z0-9+/=]{0,100}",
            header in "\\PC{0,200}",
            ts in "\\PC{0,20}",
        ) {
            let _ = SigningKey::parse(&key);
            let _ = VerificationKey::parse(&key);
            let vk = [SigningKey::generate(SignatureScheme::V1, [5; 32]).verification_key()];
            let h = SignatureHeaders { webhook_id: "msg_1".into(), webhook_timestamp: ts, webhook_signature: header };
            let _ = verify(&vk, &h, b"{}", Timestamp::from_millis(0), 300);
        }
    }
}
