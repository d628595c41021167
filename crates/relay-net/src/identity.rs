//! A client identity for mutual TLS: a certificate chain and its private
//! key, presented when the server asks for a client certificate.
//!
//! [`ClientIdentity::from_pem`] parses the chain (PEM `CERTIFICATE`s, the
//! leaf first) and the key (PEM PKCS#8 `PRIVATE KEY`, PKCS#1 `RSA PRIVATE
//! KEY` or SEC1 `EC PRIVATE KEY`), loads the key with the crypto provider
//! Relay uses everywhere (ring) and checks that it is the leaf's key. Its
//! [`fingerprint`](ClientIdentity::fingerprint) is the SHA-256 of the
//! chain's DER: the HTTPS client keys its pool by it, so connections made
//! with different identities (or none) never mix.
//!
//! Nothing here ever prints the key or the PEM: [`IdentityError`]s are fixed
//! texts, and `Debug` shows the fingerprint only.

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::sign::CertifiedKey;
use sha2::{Digest, Sha256};

/// Which of the two values an [`IdentityError`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdentityPart {
    /// The certificate chain.
    Chain,
    /// The private key.
    Key,
}

/// Why a chain and key are not a usable identity. The texts never quote
/// the values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    /// The chain is not one or more PEM certificates, or its first
    /// certificate does not parse as X.509.
    #[error("the client certificate chain {0}")]
    Chain(&'static str),
    /// The key is not a PEM private key the provider can load.
    #[error("the client private key {0}")]
    Key(&'static str),
    /// The key is not the leaf certificate's key.
    #[error("the client private key does not match the first certificate of the chain")]
    Mismatch,
}

impl IdentityError {
    /// The stable code of the API's `422`.
    pub const fn code(&self) -> &'static str {
        match self {
            IdentityError::Chain(_) => "invalid_client_certificate",
            IdentityError::Key(_) => "invalid_client_key",
            IdentityError::Mismatch => "client_key_mismatch",
        }
    }

    /// The value at fault.
    pub const fn part(&self) -> IdentityPart {
        match self {
            IdentityError::Chain(_) => IdentityPart::Chain,
            IdentityError::Key(_) | IdentityError::Mismatch => IdentityPart::Key,
        }
    }
}

/// A certificate chain and the leaf's private key, ready for rustls.
/// Cheap to clone. `Debug` shows the fingerprint only.
#[derive(Clone)]
pub struct ClientIdentity {
    certified: Arc<CertifiedKey>,
    fingerprint: [u8; 32],
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientIdentity")
            .field("fingerprint", &self.fingerprint_hex())
            .finish_non_exhaustive()
    }
}

impl ClientIdentity {
    /// Parses a PEM chain (leaf first) and a PEM private key, and checks
    /// that the key is the leaf's.
    pub fn from_pem(chain: &[u8], key: &[u8]) -> Result<ClientIdentity, IdentityError> {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(chain)
            .collect::<Result<_, _>>()
            .map_err(|_| IdentityError::Chain("is not valid PEM"))?;
        if certs.is_empty() {
            return Err(IdentityError::Chain(
                "holds no PEM certificate (BEGIN CERTIFICATE)",
            ));
        }
        let key = PrivateKeyDer::from_pem_slice(key).map_err(|e| match e {
            rustls::pki_types::pem::Error::NoItemsFound => IdentityError::Key(
                "holds no unencrypted PEM private key (PKCS#8 PRIVATE KEY, PKCS#1 RSA PRIVATE KEY or SEC1 EC PRIVATE KEY)",
            ),
            _ => IdentityError::Key("is not valid PEM"),
        })?;
        let provider = crate::tls::provider();
        let signing = provider
            .key_provider
            .load_private_key(key)
            .map_err(|_| IdentityError::Key("is not an RSA, ECDSA or Ed25519 key Relay can use"))?;
        let mut hasher = Sha256::new();
        for cert in &certs {
            hasher.update(cert.as_ref());
        }
        let fingerprint: [u8; 32] = hasher.finalize().into();
        let certified = CertifiedKey::new(certs, signing);
        match certified.keys_match() {
            Ok(()) | Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => {}
            Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)) => {
                return Err(IdentityError::Mismatch);
            }
            Err(_) => {
                return Err(IdentityError::Chain(
                    "starts with a certificate that is not valid X.509",
                ));
            }
        }
        Ok(ClientIdentity {
            certified: Arc::new(certified),
            fingerprint,
        })
    }

    /// SHA-256 of the chain's DER, certificate after certificate.
    pub fn fingerprint(&self) -> [u8; 32] {
        self.fingerprint
    }

    /// [`ClientIdentity::fingerprint`] as lower-case hex.
    pub fn fingerprint_hex(&self) -> String {
        use std::fmt::Write as _;
        self.fingerprint
            .iter()
            .fold(String::with_capacity(64), |mut s, b| {
                let _ = write!(s, "{b:02x}");
                s
            })
    }

    /// The leaf certificate's DER.
    pub fn leaf(&self) -> &CertificateDer<'static> {
        &self.certified.cert[0]
    }

    pub(crate) fn certified(&self) -> Arc<CertifiedKey> {
        Arc::clone(&self.certified)
    }
}

#[cfg(test)]
mod tests;
