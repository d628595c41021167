//! How an HTTPS endpoint authenticates itself to its receiver, besides the
//! signature: `destination.auth` (see `Destination`'s schema and
//! `docs/destinations.md`). `null` or absent: no client authentication.

use serde::{Deserialize, Serialize};

use crate::secret::SecretRef;

/// An HTTPS endpoint's client authentication. Its members may be set
/// together; each is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpsAuth {
    /// Mutual TLS: the certificate Relay presents in the TLS handshake.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_certificate: Option<ClientCertificate>,
}

/// A client certificate for mutual TLS, as two secret references: never
/// the PEM itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientCertificate {
    /// The PEM certificate chain, the leaf first (intermediates after it).
    pub chain: SecretRef,
    /// The leaf's PEM private key: PKCS#8, PKCS#1 (RSA) or SEC1 (EC),
    /// unencrypted.
    pub key: SecretRef,
}

/// The pointer of [`ClientCertificate::chain`] in an endpoint.
pub const CLIENT_CERTIFICATE_CHAIN_POINTER: &str = "/destination/auth/client_certificate/chain";
/// The pointer of [`ClientCertificate::key`] in an endpoint.
pub const CLIENT_CERTIFICATE_KEY_POINTER: &str = "/destination/auth/client_certificate/key";

impl HttpsAuth {
    /// Every secret reference, with its pointer in the endpoint.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        let mut refs = Vec::new();
        if let Some(c) = &self.client_certificate {
            refs.push((CLIENT_CERTIFICATE_CHAIN_POINTER, &c.chain));
            refs.push((CLIENT_CERTIFICATE_KEY_POINTER, &c.key));
        }
        refs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_reads_and_writes_its_shape() {
        let auth: HttpsAuth = serde_json::from_value(serde_json::json!({
            "client_certificate": {"chain": "secret:hooks-chain", "key": "file:/run/secrets/hooks.key"}
        }))
        .unwrap();
        let c = auth.client_certificate.as_ref().unwrap();
        assert_eq!(c.chain, SecretRef::Secret("hooks-chain".into()));
        assert_eq!(c.key, SecretRef::File("/run/secrets/hooks.key".into()));
        assert_eq!(
            serde_json::to_value(&auth).unwrap(),
            serde_json::json!({"client_certificate": {"chain": "secret:hooks-chain", "key": "file:/run/secrets/hooks.key"}})
        );
        assert_eq!(
            auth.secret_refs(),
            vec![
                (CLIENT_CERTIFICATE_CHAIN_POINTER, &c.chain),
                (CLIENT_CERTIFICATE_KEY_POINTER, &c.key)
            ]
        );
        let empty: HttpsAuth = serde_json::from_str("{}").unwrap();
        assert!(empty.secret_refs().is_empty());
        assert_eq!(serde_json::to_string(&empty).unwrap(), "{}");
    }

    #[test]
    fn auth_refuses_unknown_fields_and_plain_pem() {
        for bad in [
            serde_json::json!({"mtls": {}}),
            serde_json::json!({"client_certificate": {"chain": "secret:a"}}),
            serde_json::json!({"client_certificate": {"chain": "secret:a", "key": "secret:b", "password": "x"}}),
            serde_json::json!({"client_certificate": {"chain": "-----BEGIN CERTIFICATE-----", "key": "secret:b"}}),
        ] {
            let err = serde_json::from_value::<HttpsAuth>(bad.clone()).unwrap_err();
            assert!(!err.to_string().contains("BEGIN"), "{bad}: {err}");
        }
    }
}
