//! A Google service account's JSON key and the token grant made with it:
//! an RS256-signed JWT (RFC 7523) whose issuer is the account's
//! `client_email`, audience the token URL, scope Pub/Sub's, exchanged at
//! the token URL (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`)
//! for an access token. The key is read with `ring` (the PEM's PKCS#8
//! DER); nothing of it reaches `Debug`, an error or a record.

use std::sync::Arc;

use base64::Engine as _;
use bytes::Bytes;
use relay_core::secret::SecretValue;
use relay_core::time::Timestamp;
use relay_net::{ErrorKind, HeaderName, HeaderValue};
use ring::rand::SystemRandom;
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};

use crate::https::oauth2::TokenError;
use crate::https::oauth2::source::{Grant, TokenRequest};

/// The scope asked for: Pub/Sub's.
pub const SCOPE: &str = "https://www.googleapis.com/auth/pubsub";
/// The grant type of a JWT bearer assertion (RFC 7523).
pub const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// How long an assertion is valid (Google's longest: one hour).
pub const ASSERTION_SECONDS: i64 = 3600;

/// A service account's key, read. Its `Debug` shows the account, never
/// the key.
pub struct ServiceAccount {
    pub client_email: String,
    pub private_key_id: Option<String>,
    pub token_uri: Option<String>,
    key: RsaKeyPair,
}

impl std::fmt::Debug for ServiceAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceAccount")
            .field("client_email", &self.client_email)
            .field("private_key_id", &self.private_key_id)
            .finish_non_exhaustive()
    }
}

#[derive(serde::Deserialize)]
struct KeyFile {
    #[serde(rename = "type")]
    kind: Option<String>,
    client_email: Option<String>,
    private_key: Option<String>,
    private_key_id: Option<String>,
    token_uri: Option<String>,
}

/// Why a key cannot be used: a fixed text that names no part of it.
pub type KeyError = &'static str;

impl ServiceAccount {
    /// Reads a JSON key as Google's console gives it.
    pub fn parse(json: &[u8]) -> Result<ServiceAccount, KeyError> {
        let file: KeyFile = serde_json::from_slice(json)
            .map_err(|_| "the service account key is not a JSON key file")?;
        if file.kind.as_deref().is_some_and(|k| k != "service_account") {
            return Err("the key file's `type` is not `service_account`");
        }
        let client_email = file
            .client_email
            .filter(|e| !e.is_empty() && e.len() <= 256 && e.bytes().all(|b| b.is_ascii_graphic()))
            .ok_or("the key file has no usable `client_email`")?;
        let pem = SecretValue::from(
            file.private_key
                .ok_or("the key file has no `private_key`")?,
        );
        let der = pkcs8_der(pem.expose()).ok_or("the key's `private_key` is no PKCS#8 PEM")?;
        let key = RsaKeyPair::from_pkcs8(der.expose())
            .map_err(|_| "the key's `private_key` is no RSA key ring can sign with")?;
        let private_key_id = file.private_key_id.filter(|k| {
            !k.is_empty() && k.len() <= 128 && k.bytes().all(|b| b.is_ascii_alphanumeric())
        });
        Ok(ServiceAccount {
            client_email,
            private_key_id,
            token_uri: file.token_uri,
            key,
        })
    }

    /// The signed assertion for `token_url` at `now` (unix seconds of the
    /// machine's clock: Google judges `iat` and `exp` by its own).
    pub fn assertion(&self, token_url: &str, now: Timestamp) -> Option<String> {
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let mut header = serde_json::json!({"alg": "RS256", "typ": "JWT"});
        if let Some(kid) = &self.private_key_id {
            header["kid"] = kid.as_str().into();
        }
        let iat = now.millis().div_euclid(1000);
        let claims = serde_json::json!({
            "iss": self.client_email,
            "scope": SCOPE,
            "aud": token_url,
            "iat": iat,
            "exp": iat + ASSERTION_SECONDS,
        });
        let mut jwt = format!(
            "{}.{}",
            b64.encode(header.to_string()),
            b64.encode(claims.to_string())
        );
        let mut signature = vec![0; self.key.public().modulus_len()];
        self.key
            .sign(
                &RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                jwt.as_bytes(),
                &mut signature,
            )
            .ok()?;
        jwt.push('.');
        jwt.push_str(&b64.encode(signature));
        Some(jwt)
    }
}

/// The DER of a `-----BEGIN PRIVATE KEY-----` PEM (the base64 between its
/// lines, whitespace and `\n` escapes ignored).
fn pkcs8_der(pem: &[u8]) -> Option<SecretValue> {
    let text = std::str::from_utf8(pem).ok()?;
    let begin = "-----BEGIN PRIVATE KEY-----";
    let end = "-----END PRIVATE KEY-----";
    let start = text.find(begin)? + begin.len();
    let stop = start + text[start..].find(end)?;
    let b64: String = text[start..stop]
        .replace("\\n", "")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let der = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
    Some(SecretValue::new(der))
}

/// The JWT bearer grant of one endpoint: its account's key, the token URL.
#[derive(Debug, Clone)]
pub struct JwtBearer {
    pub account: Arc<ServiceAccount>,
    pub token_url: String,
}

impl Grant for JwtBearer {
    fn token_url(&self) -> &str {
        &self.token_url
    }

    fn request(&self, now: Timestamp) -> Result<TokenRequest, TokenError> {
        let Some(assertion) = self.account.assertion(&self.token_url, now) else {
            return Err(TokenError::transport(
                ErrorKind::Protocol,
                "the assertion could not be signed".into(),
                None,
            ));
        };
        let body = form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", GRANT_TYPE)
            .append_pair("assertion", &assertion)
            .finish();
        Ok(TokenRequest {
            headers: vec![
                (
                    HeaderName::from_static("content-type"),
                    HeaderValue::from_static("application/x-www-form-urlencoded"),
                ),
                (
                    HeaderName::from_static("accept"),
                    HeaderValue::from_static("application/json"),
                ),
            ],
            body: Bytes::from(body),
            secret: SecretValue::from(assertion),
        })
    }
}

#[cfg(test)]
mod tests;
