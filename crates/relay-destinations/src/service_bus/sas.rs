//! Shared Access Signature tokens (Microsoft's "Service Bus access control
//! with Shared Access Signatures"): `SharedAccessSignature sr=<uri>&sig=
//! <signature>&se=<expiry>&skn=<key name>`, where the signature is the
//! base64 of HMAC-SHA256, keyed with the rule's key (its text as given,
//! not base64-decoded), over `<uri> + "\n" + <expiry>`, `<uri>` the
//! entity's URI form-urlencoded and `<expiry>` unix seconds. Byte for byte
//! what the official Python SDK makes (`azure-servicebus`'s
//! `generate_sas_token`; the vectors below are its output).
//!
//! [`SasTokens`] is one endpoint's token: made for
//! [`TOKEN_LIFETIME_SECONDS`] by the engine's clock, reused until
//! [`RENEW_BEFORE_SECONDS`] before it expires, then made again. Making one
//! is an HMAC: no request, no single flight needed.

use std::sync::{Arc, Mutex, PoisonError};

use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use relay_core::secret::SecretValue;
use relay_core::time::Clock;
use relay_net::HeaderValue;
use sha2::Sha256;

/// How long a token is valid.
pub const TOKEN_LIFETIME_SECONDS: i64 = 3600;
/// A token is made again this long before it expires.
pub const RENEW_BEFORE_SECONDS: i64 = 300;

/// `s` form-urlencoded as Python's `urllib.parse.quote_plus` does (the
/// SDK's encoding): letters, digits and `_.-~` as they are, a space as
/// `+`, every other byte `%XX` in upper case.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(b as char);
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The token for `resource_uri`, signed with `key` of rule `key_name`,
/// expiring at `expiry` (unix seconds).
pub fn token(resource_uri: &str, key_name: &str, key: &[u8], expiry: i64) -> String {
    let sr = encode(resource_uri);
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(format!("{sr}\n{expiry}").as_bytes());
    let sig = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    format!(
        "SharedAccessSignature sr={sr}&sig={}&se={expiry}&skn={}",
        encode(&sig),
        encode(key_name)
    )
}

struct Current {
    authorization: HeaderValue,
    expiry: i64,
}

/// One endpoint's SAS token. Its `Debug` names the rule and the entity,
/// never the key or a token.
pub struct SasTokens {
    resource_uri: String,
    key_name: String,
    key: SecretValue,
    clock: Arc<dyn Clock>,
    current: Mutex<Option<Current>>,
}

impl std::fmt::Debug for SasTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SasTokens")
            .field("resource_uri", &self.resource_uri)
            .field("key_name", &self.key_name)
            .finish_non_exhaustive()
    }
}

impl SasTokens {
    pub fn new(
        resource_uri: String,
        key_name: String,
        key: SecretValue,
        clock: Arc<dyn Clock>,
    ) -> SasTokens {
        SasTokens {
            resource_uri,
            key_name,
            key,
            clock,
            current: Mutex::new(None),
        }
    }

    /// The `Authorization` value (sensitive) and whether it was made for
    /// this call: the current token while it has more than
    /// [`RENEW_BEFORE_SECONDS`] left by the engine's clock, else a new one.
    pub fn authorization(&self) -> (HeaderValue, bool) {
        let now = self.clock.now().millis().div_euclid(1000);
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = current.as_ref()
            && now < c.expiry - RENEW_BEFORE_SECONDS
        {
            return (c.authorization.clone(), false);
        }
        let expiry = now + TOKEN_LIFETIME_SECONDS;
        let text = token(
            &self.resource_uri,
            &self.key_name,
            self.key.expose(),
            expiry,
        );
        let mut authorization = HeaderValue::from_str(&text).expect("a token is printable ASCII");
        authorization.set_sensitive(true);
        *current = Some(Current {
            authorization: authorization.clone(),
            expiry,
        });
        (authorization, true)
    }

    /// Forgets the current token (Service Bus refused it): the next call
    /// makes a new one.
    pub fn invalidate(&self) {
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

#[cfg(test)]
mod tests {
    use relay_core::time::{ManualClock, Timestamp};

    use super::*;

    /// The official Python SDK's tokens (`azure-servicebus` 7.15.0,
    /// `azure.servicebus._pyamqp.utils.generate_sas_token(uri, key_name,
    /// key, 1800003600)`), byte for byte.
    #[test]
    fn the_sdks_vectors() {
        assert_eq!(
            token(
                "https://acme-prod.servicebus.windows.net/sales/orders",
                "RootManageSharedAccessKey",
                b"c2VjcmV0LWtleS1mb3ItdGVzdHM9PQ==",
                1_800_003_600
            ),
            "SharedAccessSignature sr=https%3A%2F%2Facme-prod.servicebus.windows.net%2Fsales%2Forders&sig=QbunZXPG8yxY%2F5vhJalKIT883EoCjYwX60kf1yuNeso%3D&se=1800003600&skn=RootManageSharedAccessKey"
        );
        assert_eq!(
            token(
                "https://127.0.0.1:8443/sales/orders.v1",
                "send-only_1",
                b"k",
                1_800_003_600
            ),
            "SharedAccessSignature sr=https%3A%2F%2F127.0.0.1%3A8443%2Fsales%2Forders.v1&sig=8B5OyDHQGbIIrt8R4aejDaznN1PFUDNeVJTSGK114KE%3D&se=1800003600&skn=send-only_1"
        );
        assert_eq!(encode("a b~*é"), "a+b~%2A%C3%A9");
    }

    /// Made once, reused until five minutes before it expires by the
    /// injected clock, made again then; forgotten on demand.
    #[test]
    fn cached_and_renewed_by_the_clock() {
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(1_800_000_000_000)));
        let t = SasTokens::new(
            "https://h/q".into(),
            "rule".into(),
            SecretValue::from("key"),
            clock.clone(),
        );
        let (first, made) = t.authorization();
        assert!(made && first.is_sensitive());
        assert!(first.to_str().unwrap().contains("se=1800003600&"));
        clock.set(Timestamp::from_millis(1_800_003_299_000));
        assert_eq!(t.authorization(), (first.clone(), false));
        clock.set(Timestamp::from_millis(1_800_003_300_000));
        let (second, made) = t.authorization();
        assert!(made && second != first);
        assert!(second.to_str().unwrap().contains("se=1800006900&"));
        t.invalidate();
        assert!(t.authorization().1);
        let shown = format!("{t:?}");
        assert!(!shown.contains("sig=") && shown.contains("rule"), "{shown}");
    }
}
