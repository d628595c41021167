//! Signing keys at rest: generated, sealed under the master key, opened for signing.
//!
//! The secret part (an Ed25519 seed or an HMAC key) is sealed with
//! `relay_core::sealed` using the key's id as associated data, so a sealed
//! value only opens for the row it was written for. Ed25519 public keys are
//! stored in clear: they are always readable.

use relay_core::id::IdKind;
use relay_core::model::SignatureScheme;
use relay_core::sealed::{MasterKey, SealError};
use relay_core::signature::{Ed25519SigningKey, HmacSecret, SigningKey};
use relay_core::time::Timestamp;

use crate::EndpointKeyRecord;

fn random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source is unavailable");
    b
}

/// A fresh key for `endpoint_id`: the record to store and the usable key.
pub fn generate(
    master: &MasterKey,
    endpoint_id: &str,
    scheme: SignatureScheme,
    now: Timestamp,
) -> (EndpointKeyRecord, SigningKey) {
    let key = SigningKey::generate(scheme, random());
    let id = crate::new_id(IdKind::SigningKey, now);
    let (secret, public_key) = match &key {
        SigningKey::Hmac(h) => (h.expose_bytes().to_vec(), None),
        SigningKey::Ed25519(k) => (k.expose_seed().to_vec(), Some(k.public_key().to_whpk())),
    };
    let sealed_secret = master.seal(random(), &secret, id.as_bytes());
    (
        EndpointKeyRecord {
            id,
            endpoint_id: endpoint_id.to_string(),
            scheme,
            public_key,
            sealed_secret,
            created_at: now,
            retires_at: None,
        },
        key,
    )
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("signing key {id}: {source}")]
    Sealed {
        id: String,
        #[source]
        source: SealError,
    },
    #[error("signing key {id} holds malformed key material")]
    Material { id: String },
}

/// Opens a stored key for signing.
pub fn open(master: &MasterKey, record: &EndpointKeyRecord) -> Result<SigningKey, OpenError> {
    let secret = master
        .open(&record.sealed_secret, record.id.as_bytes())
        .map_err(|source| OpenError::Sealed {
            id: record.id.clone(),
            source,
        })?;
    let material = || OpenError::Material {
        id: record.id.clone(),
    };
    match record.scheme {
        SignatureScheme::V1 => HmacSecret::from_bytes(&secret)
            .map(SigningKey::Hmac)
            .map_err(|_| material()),
        SignatureScheme::V1a => {
            let seed: [u8; 32] = secret.try_into().map_err(|_| material())?;
            Ok(SigningKey::Ed25519(Ed25519SigningKey::from_seed(seed)))
        }
    }
}

/// The keys that sign at `now`, newest first: every key not yet retired.
pub fn signing_records(records: &[EndpointKeyRecord], now: Timestamp) -> Vec<&EndpointKeyRecord> {
    let mut keys: Vec<&EndpointKeyRecord> = records
        .iter()
        .filter(|r| r.retires_at.is_none_or(|t| t > now))
        .collect();
    keys.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_reopen_and_hide_their_secret() {
        let master = MasterKey::from_bytes([3; 32]);
        for scheme in [SignatureScheme::V1a, SignatureScheme::V1] {
            let (record, key) = generate(&master, "ep_1", scheme, Timestamp(5));
            assert_eq!(open(&master, &record).unwrap(), key);
            let secret_text = match &key {
                SigningKey::Hmac(h) => h.expose_whsec(),
                SigningKey::Ed25519(k) => k.expose_whsk(),
            };
            let stored = format!("{record:?}");
            assert!(!stored.contains(&secret_text));
            assert_eq!(record.public_key.is_some(), scheme == SignatureScheme::V1a);
            let wrong = MasterKey::from_bytes([4; 32]);
            assert!(open(&wrong, &record).is_err());
            let moved = EndpointKeyRecord {
                id: "key_other".into(),
                ..record.clone()
            };
            assert!(
                open(&master, &moved).is_err(),
                "a sealed secret is bound to its row"
            );
        }
    }

    #[test]
    fn retired_keys_stop_signing_and_newest_signs_first() {
        let rec = |id: &str, at: i64, retires: Option<i64>| EndpointKeyRecord {
            id: id.into(),
            endpoint_id: "ep".into(),
            scheme: SignatureScheme::V1a,
            public_key: None,
            sealed_secret: String::new(),
            created_at: Timestamp(at),
            retires_at: retires.map(Timestamp),
        };
        let records = vec![rec("a", 1, Some(100)), rec("b", 2, None)];
        let ids = |now| {
            signing_records(&records, Timestamp(now))
                .iter()
                .map(|r| r.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(50), vec!["b", "a"]);
        assert_eq!(ids(100), vec!["b"]);
    }
}
