//! How an HTTPS endpoint authenticates itself to its receiver, besides the
//! signature: `destination.auth` (see `docs/destinations.md`). `null` or
//! absent: no client authentication. The types derive their part of
//! `Destination`'s OpenAPI schema: their doc comments are the API's
//! descriptions.
//! Its members may be combined; credentials are secret references, never
//! values.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use relay_core::secret::SecretRef;

/// An HTTPS endpoint's client authentication. Its members may be set
/// together; each is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpsAuth {
    /// Mutual TLS: the certificate chain and private key Relay presents when
    /// the receiver asks for a client certificate. Both are secret
    /// references, never the PEM itself; at registration they must resolve,
    /// the chain must be PEM certificates (leaf first), the key an
    /// unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC) matching
    /// the leaf.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(inline)]
    pub client_certificate: Option<ClientCertificate>,
    /// OAuth 2.0 client credentials (RFC 6749 section 4.4): Relay fetches a
    /// token from `token_url` (through the outbound guard, like the
    /// endpoint), caches it until shortly before it expires, and sends
    /// `Authorization: Bearer <token>` with every request; a `401` from the
    /// endpoint fetches a new token and tries once more in the same attempt.
    /// Cannot be combined with a custom `Authorization` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(inline)]
    pub oauth2: Option<OAuth2ClientCredentials>,
}

/// A client certificate for mutual TLS, as two secret references: never
/// the PEM itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientCertificate {
    /// A secret reference to the PEM certificate chain, the leaf first.
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub chain: SecretRef,
    /// A secret reference to the leaf's PEM private key.
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub key: SecretRef,
}

/// The pointer of [`ClientCertificate::chain`] in an endpoint.
pub const CLIENT_CERTIFICATE_CHAIN_POINTER: &str = "/destination/auth/client_certificate/chain";
/// The pointer of [`ClientCertificate::key`] in an endpoint.
pub const CLIENT_CERTIFICATE_KEY_POINTER: &str = "/destination/auth/client_certificate/key";
/// The pointer of [`OAuth2ClientCredentials::client_secret`] in an endpoint.
pub const OAUTH2_CLIENT_SECRET_POINTER: &str = "/destination/auth/oauth2/client_secret";

/// The OAuth 2.0 client credentials grant of an HTTPS endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OAuth2ClientCredentials {
    /// The token endpoint: `https://`, a port the operator allows, no
    /// credentials in it.
    #[schema(max_length = 2048)]
    pub token_url: String,
    /// Printable ASCII (RFC 6749 VSCHAR).
    #[schema(min_length = 1, max_length = 256)]
    pub client_id: String,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// client secret, never the secret itself. See docs/destinations.md (Credentials: secret references).
    #[schema(value_type = String, pattern = "^(secret:|env:|file:/)")]
    pub client_secret: SecretRef,
    /// Scope tokens (RFC 6749 NQCHAR, no spaces), sent space-separated as
    /// `scope`; default none.
    #[serde(default)]
    #[schema(max_items = 32, min_length = 1, max_length = 128)]
    pub scopes: Vec<String>,
    /// Sent as the `audience` parameter when set (printable ASCII).
    #[serde(default)]
    #[schema(min_length = 1, max_length = 512)]
    pub audience: Option<String>,
    /// `client_secret_basic` (default): HTTP Basic with the form-urlencoded
    /// id and secret; `client_secret_post`: both in the form body.
    #[serde(default)]
    #[schema(default = ClientAuthMethod::default, inline)]
    pub method: ClientAuthMethod,
}

/// How the client id and secret reach the token endpoint (RFC 6749 §2.3.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClientAuthMethod {
    /// HTTP Basic, each part form-urlencoded before base64 (the default).
    #[default]
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body.
    ClientSecretPost,
}

impl ClientAuthMethod {
    pub const fn as_str(self) -> &'static str {
        match self {
            ClientAuthMethod::ClientSecretBasic => "client_secret_basic",
            ClientAuthMethod::ClientSecretPost => "client_secret_post",
        }
    }
}

impl HttpsAuth {
    /// Every secret reference, with its pointer in the endpoint.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        let mut refs = Vec::new();
        if let Some(c) = &self.client_certificate {
            refs.push((CLIENT_CERTIFICATE_CHAIN_POINTER, &c.chain));
            refs.push((CLIENT_CERTIFICATE_KEY_POINTER, &c.key));
        }
        if let Some(o) = &self.oauth2 {
            refs.push((OAUTH2_CLIENT_SECRET_POINTER, &o.client_secret));
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

    #[test]
    fn parses_with_defaults_and_refuses_unknown_fields() {
        let auth: HttpsAuth = serde_json::from_value(serde_json::json!({
            "oauth2": {
                "token_url": "https://auth.example/token",
                "client_id": "relay",
                "client_secret": "secret:oauth"
            }
        }))
        .unwrap();
        let o = auth.oauth2.as_ref().unwrap();
        assert_eq!(o.method, ClientAuthMethod::ClientSecretBasic);
        assert!(o.scopes.is_empty() && o.audience.is_none());
        assert_eq!(
            auth.secret_refs(),
            vec![(
                OAUTH2_CLIENT_SECRET_POINTER,
                &SecretRef::parse("secret:oauth").unwrap()
            )]
        );
        let empty: HttpsAuth = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, HttpsAuth::default());
        assert!(serde_json::from_str::<HttpsAuth>(r#"{"kind": "mtls"}"#).is_err());
        assert!(
            serde_json::from_value::<HttpsAuth>(serde_json::json!({"oauth2": {
                "token_url": "https://a.example/t", "client_id": "c",
                "client_secret": "the-secret-itself"
            }}))
            .is_err(),
            "a secret value is not a reference"
        );
        let post: OAuth2ClientCredentials = serde_json::from_value(serde_json::json!({
            "token_url": "https://a.example/t", "client_id": "c",
            "client_secret": "env:S", "method": "client_secret_post"
        }))
        .unwrap();
        assert_eq!(post.method.as_str(), "client_secret_post");
    }

    #[test]
    fn both_members_may_be_set_together() {
        let auth: HttpsAuth = serde_json::from_value(serde_json::json!({
            "client_certificate": {"chain": "secret:chain", "key": "secret:key"},
            "oauth2": {
                "token_url": "https://auth.example/token",
                "client_id": "relay",
                "client_secret": "env:RELAY_OAUTH"
            }
        }))
        .unwrap();
        let pointers: Vec<&str> = auth.secret_refs().into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            pointers,
            [
                CLIENT_CERTIFICATE_CHAIN_POINTER,
                CLIENT_CERTIFICATE_KEY_POINTER,
                OAUTH2_CLIENT_SECRET_POINTER
            ]
        );
        let back: HttpsAuth = serde_json::from_value(serde_json::to_value(&auth).unwrap()).unwrap();
        assert_eq!(back, auth);
    }
}
