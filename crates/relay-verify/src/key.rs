//! Verification keys: `whsec_…` (v1) and `whpk_…` (v1a).

use std::fmt;
use std::str::FromStr;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq as _;

use crate::error::KeyError;

type HmacSha256 = hmac::Hmac<Sha256>;

const HMAC_PREFIX: &str = "whsec_";
const PUBLIC_PREFIX: &str = "whpk_";
const SIGNING_PREFIX: &str = "whsk_";

/// Shortest HMAC secret accepted (Standard Webhooks: 24 bytes).
const HMAC_MIN_BYTES: usize = 24;
/// Longest HMAC secret accepted (Standard Webhooks: 64 bytes).
const HMAC_MAX_BYTES: usize = 64;

/// One key a [`crate::Verifier`] checks signatures with: an HMAC-SHA256
/// secret (`whsec_…`, for `v1` entries) or an Ed25519 public key (`whpk_…`,
/// for `v1a` entries).
///
/// `Debug` never shows an HMAC secret; it shows an Ed25519 public key, which
/// is not secret.
#[derive(Clone)]
pub struct VerificationKey(Inner);

#[derive(Clone)]
enum Inner {
    Hmac(Vec<u8>),
    Ed25519(ed25519_dalek::VerifyingKey),
}

impl fmt::Debug for VerificationKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Inner::Hmac(_) => f.write_str("VerificationKey(v1, <redacted>)"),
            Inner::Ed25519(k) => write!(
                f,
                "VerificationKey(v1a, {PUBLIC_PREFIX}{})",
                BASE64.encode(k.to_bytes())
            ),
        }
    }
}

fn decode(body: &str) -> Result<Vec<u8>, KeyError> {
    BASE64.decode(body).map_err(|_| KeyError::InvalidBase64)
}

impl VerificationKey {
    /// Parses `whsec_<base64>` (24 to 64 bytes) or `whpk_<base64>` (32 bytes).
    ///
    /// A `whsk_` signing key is refused with [`KeyError::SigningKeyGiven`]:
    /// a consumer needs only the public key.
    pub fn parse(s: &str) -> Result<Self, KeyError> {
        let s = s.trim();
        if let Some(body) = s.strip_prefix(HMAC_PREFIX) {
            let bytes = decode(body)?;
            if !(HMAC_MIN_BYTES..=HMAC_MAX_BYTES).contains(&bytes.len()) {
                return Err(KeyError::WrongLength {
                    actual: bytes.len(),
                    expected: "an HMAC secret has 24 to 64 bytes",
                });
            }
            Ok(VerificationKey(Inner::Hmac(bytes)))
        } else if let Some(body) = s.strip_prefix(PUBLIC_PREFIX) {
            let bytes = decode(body)?;
            let raw =
                <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| KeyError::WrongLength {
                    actual: bytes.len(),
                    expected: "an Ed25519 public key has 32 bytes",
                })?;
            ed25519_dalek::VerifyingKey::from_bytes(&raw)
                .map(|k| VerificationKey(Inner::Ed25519(k)))
                .map_err(|_| KeyError::InvalidPublicKey)
        } else if s.starts_with(SIGNING_PREFIX) {
            Err(KeyError::SigningKeyGiven)
        } else {
            Err(KeyError::UnknownPrefix)
        }
    }

    /// The `webhook-signature` version this key verifies: `v1` or `v1a`.
    pub const fn version(&self) -> &'static str {
        match self.0 {
            Inner::Hmac(_) => "v1",
            Inner::Ed25519(_) => "v1a",
        }
    }

    /// Whether `signature` (raw bytes) signs `content`. HMAC tags are
    /// compared in constant time; Ed25519 is verified strictly.
    pub(crate) fn verify(&self, content: &[&[u8]], signature: &[u8]) -> bool {
        match &self.0 {
            Inner::Hmac(secret) => {
                // HMAC takes keys of any length; the error arm cannot happen.
                let Ok(mut mac) = HmacSha256::new_from_slice(secret) else {
                    return false;
                };
                for part in content {
                    mac.update(part);
                }
                let tag = mac.finalize().into_bytes();
                // `ct_eq` on slices of different lengths is false without
                // looking at the bytes; the length of a tag is public.
                bool::from(tag.as_slice().ct_eq(signature))
            }
            Inner::Ed25519(key) => {
                let Ok(sig) = ed25519_dalek::Signature::from_slice(signature) else {
                    return false;
                };
                key.verify_strict(&content.concat(), &sig).is_ok()
            }
        }
    }
}

impl FromStr for VerificationKey {
    type Err = KeyError;
    fn from_str(s: &str) -> Result<Self, KeyError> {
        VerificationKey::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_kinds_and_refuses_the_rest() {
        let hmac = VerificationKey::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        assert_eq!(hmac.as_ref().map(|k| k.version()), Ok("v1"));
        let ed = VerificationKey::parse(" whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=\n");
        assert_eq!(ed.as_ref().map(|k| k.version()), Ok("v1a"));
        let cases: &[(&str, KeyError)] = &[
            ("", KeyError::UnknownPrefix),
            ("sk_abc", KeyError::UnknownPrefix),
            (
                "WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                KeyError::UnknownPrefix,
            ),
            (
                "whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=",
                KeyError::SigningKeyGiven,
            ),
            ("whsec_!!!!", KeyError::InvalidBase64),
            (
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS",
                KeyError::InvalidBase64,
            ),
            (
                "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                KeyError::WrongLength {
                    actual: 23,
                    expected: "an HMAC secret has 24 to 64 bytes",
                },
            ),
            (
                "whpk_AAAA",
                KeyError::WrongLength {
                    actual: 3,
                    expected: "an Ed25519 public key has 32 bytes",
                },
            ),
        ];
        for (s, err) in cases {
            assert_eq!(VerificationKey::parse(s).map(|_| ()), Err(*err), "{s}");
            assert_eq!(err.code(), "invalid_key");
        }
        // 65 bytes is too long.
        let long = format!("whsec_{}", BASE64.encode([7u8; 65]));
        assert!(matches!(
            VerificationKey::parse(&long),
            Err(KeyError::WrongLength { actual: 65, .. })
        ));
        // 32 bytes that do not decompress to a curve point (y = 2 is not on the curve).
        let mut not_a_point = [0u8; 32];
        not_a_point[0] = 2;
        let s = format!("whpk_{}", BASE64.encode(not_a_point));
        assert_eq!(
            VerificationKey::parse(&s).map(|_| ()),
            Err(KeyError::InvalidPublicKey)
        );
        assert!(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                .parse::<VerificationKey>()
                .is_ok()
        );
    }

    #[test]
    fn debug_hides_hmac_secrets() {
        let text = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let Ok(key) = VerificationKey::parse(text) else {
            panic!("parse")
        };
        let shown = format!("{key:?} {key:#?}");
        assert!(!shown.contains("MfKQ9r8G"), "{shown}");
        assert!(shown.contains("redacted"));
        let pk = "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=";
        let Ok(key) = VerificationKey::parse(pk) else {
            panic!("parse")
        };
        assert!(format!("{key:?}").contains(pk));
    }
}
