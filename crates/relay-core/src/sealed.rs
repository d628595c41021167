//! Encryption at rest for signing keys (XChaCha20-Poly1305).
//!
//! A sealed value is `rk1:` + base64(nonce ‖ ciphertext ‖ tag). The
//! installation's 32-byte master key encrypts; the associated data binds a
//! sealed value to what it belongs to (the key id), so a ciphertext copied to
//! another row does not open. The caller supplies the 24-byte random nonce,
//! keeping this module pure.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

const PREFIX: &str = "rk1:";

/// The installation's master key. `Debug` never shows it.
///
/// During a rotation it also holds the previous key: values are sealed
/// under the current key only, and open under either ([`MasterKey::open`]),
/// so everything stays readable while [`MasterKey::reseal`] moves the stored
/// values to the current key.
#[derive(Clone)]
pub struct MasterKey {
    current: [u8; 32],
    previous: Option<[u8; 32]>,
}

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MasterKey(<redacted>)")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    #[error("the sealed value is malformed")]
    Malformed,
    /// Wrong master key, tampered ciphertext, or a value moved to another row.
    #[error("the sealed value does not open with this master key")]
    WrongKey,
}

impl MasterKey {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        MasterKey {
            current: bytes,
            previous: None,
        }
    }

    /// This key, still able to open what `previous` sealed (a rotation).
    pub fn with_previous(self, previous: [u8; 32]) -> Self {
        MasterKey {
            previous: Some(previous),
            ..self
        }
    }

    /// Whether a previous key is held (a rotation is under way).
    pub fn has_previous(&self) -> bool {
        self.previous.is_some()
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(&self.current.into())
    }

    /// Encrypts `plaintext`, bound to `aad`.
    pub fn seal(&self, nonce: [u8; 24], plaintext: &[u8], aad: &[u8]) -> String {
        let nonce_ga = XNonce::from(nonce);
        // Encryption only fails for messages beyond the cipher's length limit
        // (256 GiB); keys are a few dozen bytes.
        let ct = self
            .cipher()
            .encrypt(
                &nonce_ga,
                Payload {
                    msg: plaintext,
                    aad,
                },
            )
            .unwrap_or_default();
        let mut out = Vec::with_capacity(24 + ct.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ct);
        format!("{PREFIX}{}", STANDARD.encode(out))
    }

    /// Decrypts a value made by [`MasterKey::seal`] with the same `aad`,
    /// under the current key or else the previous one.
    pub fn open(&self, sealed: &str, aad: &[u8]) -> Result<Vec<u8>, SealError> {
        match open_with(&self.current, sealed, aad) {
            Err(SealError::WrongKey) => match &self.previous {
                Some(previous) => open_with(previous, sealed, aad),
                None => Err(SealError::WrongKey),
            },
            other => other,
        }
    }

    /// The value sealed again under the current key, or `None` when it
    /// already opens under the current key (nothing to do).
    pub fn reseal(
        &self,
        nonce: [u8; 24],
        sealed: &str,
        aad: &[u8],
    ) -> Result<Option<String>, SealError> {
        match open_with(&self.current, sealed, aad) {
            Ok(_) => Ok(None),
            Err(SealError::WrongKey) => {
                let plain = self.open(sealed, aad)?;
                Ok(Some(self.seal(nonce, &plain, aad)))
            }
            Err(e) => Err(e),
        }
    }
}

fn open_with(key: &[u8; 32], sealed: &str, aad: &[u8]) -> Result<Vec<u8>, SealError> {
    let b64 = sealed.strip_prefix(PREFIX).ok_or(SealError::Malformed)?;
    let raw = STANDARD.decode(b64).map_err(|_| SealError::Malformed)?;
    if raw.len() < 24 + 16 {
        return Err(SealError::Malformed);
    }
    let (nonce, ct) = raw.split_at(24);
    let nonce: [u8; 24] = nonce.try_into().map_err(|_| SealError::Malformed)?;
    XChaCha20Poly1305::new(&(*key).into())
        .decrypt(&XNonce::from(nonce), Payload { msg: ct, aad })
        .map_err(|_| SealError::WrongKey)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_the_same_key_and_binding() {
        let k = MasterKey::from_bytes([7; 32]);
        let sealed = k.seal([1; 24], b"secret bytes", b"whk_1");
        assert!(sealed.starts_with("rk1:"));
        assert!(!sealed.contains("secret"));
        assert_eq!(k.open(&sealed, b"whk_1").unwrap(), b"secret bytes");
        assert_eq!(k.open(&sealed, b"whk_2"), Err(SealError::WrongKey));
        assert_eq!(
            MasterKey::from_bytes([8; 32]).open(&sealed, b"whk_1"),
            Err(SealError::WrongKey)
        );
        let mut tampered = sealed.clone();
        tampered.pop();
        tampered.push('A');
        assert!(k.open(&tampered, b"whk_1").is_err());
        assert_eq!(k.open("plain", b""), Err(SealError::Malformed));
        assert_eq!(k.open("rk1:AAAA", b""), Err(SealError::Malformed));
    }

    #[test]
    fn during_a_rotation_both_keys_open_and_reseal_moves_values_to_the_new_one() {
        let old = MasterKey::from_bytes([7; 32]);
        let sealed_old = old.seal([1; 24], b"secret bytes", b"whk_1");
        let both = MasterKey::from_bytes([9; 32]).with_previous([7; 32]);
        assert!(both.has_previous() && !old.has_previous());
        assert_eq!(both.open(&sealed_old, b"whk_1").unwrap(), b"secret bytes");
        assert_eq!(both.open(&sealed_old, b"whk_2"), Err(SealError::WrongKey));
        let moved = both
            .reseal([2; 24], &sealed_old, b"whk_1")
            .unwrap()
            .unwrap();
        assert_eq!(both.reseal([3; 24], &moved, b"whk_1"), Ok(None));
        let new_only = MasterKey::from_bytes([9; 32]);
        assert_eq!(new_only.open(&moved, b"whk_1").unwrap(), b"secret bytes");
        assert_eq!(old.open(&moved, b"whk_1"), Err(SealError::WrongKey));
        assert_eq!(
            new_only.reseal([2; 24], &sealed_old, b"whk_1"),
            Err(SealError::WrongKey),
            "without the previous key an old value cannot be moved"
        );
        assert_eq!(
            both.reseal([2; 24], "plain", b""),
            Err(SealError::Malformed)
        );
    }

    #[test]
    fn debug_never_shows_the_key() {
        let both = MasterKey::from_bytes([0xCD; 32]).with_previous([0xAB; 32]);
        let d = format!("{both:?}");
        assert!(
            !d.to_lowercase().contains("cdcd") && !d.contains("205"),
            "{d}"
        );
        assert!(
            !d.to_lowercase().contains("abab") && !d.contains("171"),
            "{d}"
        );
        let k = MasterKey::from_bytes([0xAB; 32]);
        let d = format!("{k:?}");
        assert!(
            !d.contains("171") && !d.to_lowercase().contains("abab"),
            "{d}"
        );
    }
}
