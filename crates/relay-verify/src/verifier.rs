//! The verifier.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::dedup::SeenStore;
use crate::error::{KeyError, VerifyError};
use crate::headers::{HeaderLookup, SIGNATURE_HEADER, TIMESTAMP_HEADER, WEBHOOK_ID_HEADER};
use crate::key::VerificationKey;

/// Five minutes, either side, inclusive.
pub const DEFAULT_TOLERANCE_SECONDS: u64 = 300;

/// Checks Relay's signature headers with one or more keys.
///
/// Build it once (at start-up) and share it; it is `Send + Sync` and cheap to
/// clone.
#[derive(Debug, Clone)]
pub struct Verifier {
    keys: Vec<VerificationKey>,
    tolerance: u64,
}

impl Verifier {
    /// A verifier for `whsec_…` and/or `whpk_…` keys, with a 5-minute
    /// tolerance. During a rotation, pass both the new and the old key.
    ///
    /// Fails on the first key that cannot be used, or when there is none.
    pub fn new<I, S>(keys: I) -> Result<Self, KeyError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let keys = keys
            .into_iter()
            .map(|k| VerificationKey::parse(k.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Verifier::from_keys(keys)
    }

    /// A verifier for already parsed keys.
    pub fn from_keys(keys: Vec<VerificationKey>) -> Result<Self, KeyError> {
        if keys.is_empty() {
            return Err(KeyError::NoKeys);
        }
        Ok(Verifier {
            keys,
            tolerance: DEFAULT_TOLERANCE_SECONDS,
        })
    }

    /// The same verifier with another timestamp tolerance (whole seconds;
    /// anything under a second counts as none).
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance.as_secs();
        self
    }

    /// The timestamp tolerance, in seconds.
    pub fn tolerance_seconds(&self) -> u64 {
        self.tolerance
    }

    /// The keys, in the order given.
    pub fn keys(&self) -> &[VerificationKey] {
        &self.keys
    }

    /// Verifies a request against the system clock. `body` must be the raw
    /// bytes received.
    pub fn verify(&self, headers: &impl HeaderLookup, body: &[u8]) -> Result<(), VerifyError> {
        self.verify_at(headers, body, unix_now())
    }

    /// Verifies a request as if the time were `now` (unix seconds).
    ///
    /// Checks, in order: the three headers are present and non-empty
    /// ([`VerifyError::MissingHeader`]); the timestamp is ASCII digits that
    /// fit a signed 64-bit integer ([`VerifyError::InvalidTimestamp`]) and
    /// within the tolerance of `now` ([`VerifyError::TimestampTooOld`],
    /// [`VerifyError::TimestampTooNew`]); one entry of `webhook-signature`
    /// verifies with one key of its version ([`VerifyError::NoMatchingSignature`]).
    pub fn verify_at(
        &self,
        headers: &impl HeaderLookup,
        body: &[u8],
        now: u64,
    ) -> Result<(), VerifyError> {
        let id = required(headers, WEBHOOK_ID_HEADER)?;
        let timestamp = required(headers, TIMESTAMP_HEADER)?;
        let signature = required(headers, SIGNATURE_HEADER)?;
        let sent = parse_timestamp(timestamp)?;
        if sent.saturating_add(self.tolerance) < now {
            return Err(VerifyError::TimestampTooOld {
                timestamp: sent,
                now,
            });
        }
        if sent > now.saturating_add(self.tolerance) {
            return Err(VerifyError::TimestampTooNew {
                timestamp: sent,
                now,
            });
        }
        let content: [&[u8]; 5] = [id.as_bytes(), b".", timestamp.as_bytes(), b".", body];
        for entry in signature.split(' ') {
            let Some((version, encoded)) = entry.split_once(',') else {
                continue;
            };
            if !self.keys.iter().any(|k| k.version() == version) {
                continue;
            }
            // Canonical standard base64 with padding only.
            let Ok(raw) = BASE64.decode(encoded) else {
                continue;
            };
            if self
                .keys
                .iter()
                .filter(|k| k.version() == version)
                .any(|k| k.verify(&content, &raw))
            {
                return Ok(());
            }
        }
        Err(VerifyError::NoMatchingSignature)
    }

    /// [`Verifier::verify`], then records the `webhook-id` in `store`:
    /// [`VerifyError::Duplicate`] when it was already there. Only a request
    /// that verifies is recorded, so forged requests cannot fill the store.
    pub fn verify_once(
        &self,
        headers: &impl HeaderLookup,
        body: &[u8],
        store: &impl SeenStore,
    ) -> Result<(), VerifyError> {
        self.verify_once_at(headers, body, store, unix_now())
    }

    /// [`Verifier::verify_once`] as if the time were `now` (unix seconds).
    pub fn verify_once_at(
        &self,
        headers: &impl HeaderLookup,
        body: &[u8],
        store: &impl SeenStore,
        now: u64,
    ) -> Result<(), VerifyError> {
        self.verify_at(headers, body, now)?;
        let id = required(headers, WEBHOOK_ID_HEADER)?;
        if store.check_and_insert(id, now) {
            Ok(())
        } else {
            Err(VerifyError::Duplicate)
        }
    }
}

fn required<'a>(
    headers: &'a impl HeaderLookup,
    name: &'static str,
) -> Result<&'a str, VerifyError> {
    match headers.header(name) {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err(VerifyError::MissingHeader { name }),
    }
}

/// ASCII digits only (no sign, no spaces, no fraction), and at most `i64::MAX`.
fn parse_timestamp(s: &str) -> Result<u64, VerifyError> {
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(VerifyError::InvalidTimestamp);
    }
    s.parse::<i64>()
        .ok()
        .and_then(|t| u64::try_from(t).ok())
        .ok_or(VerifyError::InvalidTimestamp)
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedup::MemorySeenStore;
    use crate::headers::SignatureHeaders;

    // From the Standard Webhooks reference libraries.
    const PK: &str = "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=";
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TS: &str = "1614265330";
    const NOW: u64 = 1_614_265_330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SIG_V1A: &str = "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==";
    const SIG_V1: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn verifier() -> Verifier {
        match Verifier::new([SECRET, PK]) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    fn headers(signature: &str) -> SignatureHeaders<'_> {
        SignatureHeaders {
            id: ID,
            timestamp: TS,
            signature,
        }
    }

    #[test]
    fn verifies_both_schemes_and_mixed_headers() {
        let v = verifier();
        assert_eq!(v.verify_at(&headers(SIG_V1A), BODY, NOW), Ok(()));
        assert_eq!(v.verify_at(&headers(SIG_V1), BODY, NOW), Ok(()));
        let both = format!("v2,AAAA {SIG_V1A} {SIG_V1}");
        assert_eq!(v.verify_at(&headers(&both), BODY, NOW), Ok(()));
        let only_v1 = Verifier::new([SECRET]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(only_v1.verify_at(&headers(&both), BODY, NOW), Ok(()));
        assert_eq!(
            only_v1.verify_at(&headers(SIG_V1A), BODY, NOW),
            Err(VerifyError::NoMatchingSignature)
        );
    }

    #[test]
    fn tolerance_is_inclusive_and_configurable() {
        let v = verifier();
        let h = headers(SIG_V1A);
        assert_eq!(v.verify_at(&h, BODY, NOW + 300), Ok(()));
        assert_eq!(v.verify_at(&h, BODY, NOW - 300), Ok(()));
        assert_eq!(
            v.verify_at(&h, BODY, NOW + 301),
            Err(VerifyError::TimestampTooOld {
                timestamp: NOW,
                now: NOW + 301
            })
        );
        assert_eq!(
            v.verify_at(&h, BODY, NOW - 301),
            Err(VerifyError::TimestampTooNew {
                timestamp: NOW,
                now: NOW - 301
            })
        );
        let wide = v.clone().with_tolerance(Duration::from_secs(3600));
        assert_eq!(wide.tolerance_seconds(), 3600);
        assert_eq!(wide.verify_at(&h, BODY, NOW + 3600), Ok(()));
        let none = v.with_tolerance(Duration::ZERO);
        assert_eq!(none.verify_at(&h, BODY, NOW), Ok(()));
        assert!(none.verify_at(&h, BODY, NOW + 1).is_err());
        // The system clock is long past 2021.
        assert!(matches!(
            verifier().verify(&h, BODY),
            Err(VerifyError::TimestampTooOld { .. })
        ));
    }

    #[test]
    fn header_and_timestamp_errors_come_first() {
        let v = verifier();
        for (h, name) in [
            (
                SignatureHeaders {
                    id: "",
                    ..headers(SIG_V1)
                },
                "webhook-id",
            ),
            (
                SignatureHeaders {
                    timestamp: "",
                    ..headers(SIG_V1)
                },
                "webhook-timestamp",
            ),
            (headers(""), "webhook-signature"),
        ] {
            assert_eq!(
                v.verify_at(&h, BODY, NOW),
                Err(VerifyError::MissingHeader { name })
            );
        }
        let none: [(&str, &str); 0] = [];
        assert_eq!(
            v.verify_at(&none, BODY, NOW).map_err(|e| e.code()),
            Err("missing_header")
        );
        for ts in [
            "abc",
            "-1",
            "+1614265330",
            " 1614265330",
            "1614265330.0",
            "1e9",
            "9223372036854775808",
            "١٢٣",
        ] {
            let h = SignatureHeaders {
                timestamp: ts,
                ..headers(SIG_V1)
            };
            assert_eq!(
                v.verify_at(&h, BODY, NOW),
                Err(VerifyError::InvalidTimestamp),
                "{ts}"
            );
        }
        let h = SignatureHeaders {
            timestamp: "9223372036854775807",
            ..headers(SIG_V1)
        };
        assert!(matches!(
            v.verify_at(&h, BODY, NOW),
            Err(VerifyError::TimestampTooNew { .. })
        ));
        let h = SignatureHeaders {
            timestamp: "0",
            ..headers(SIG_V1)
        };
        assert!(matches!(
            v.verify_at(&h, BODY, u64::MAX),
            Err(VerifyError::TimestampTooOld { .. })
        ));
    }

    #[test]
    fn malformed_entries_are_skipped() {
        let v = verifier();
        let unpadded = SIG_V1.trim_end_matches('=');
        for sig in [
            "v1",
            "v1,",
            ",",
            "garbage",
            "v2,AAAA",
            "v1,!!!!",
            unpadded,
            "v1a,AAAA",
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OF=",
        ] {
            assert_eq!(
                v.verify_at(&headers(sig), BODY, NOW),
                Err(VerifyError::NoMatchingSignature),
                "{sig}"
            );
            let noisy = format!("{sig}  {SIG_V1A}");
            assert_eq!(v.verify_at(&headers(&noisy), BODY, NOW), Ok(()), "{noisy}");
        }
        // A v1 signature labelled v1a (and the other way round) does not verify.
        let swapped = SIG_V1.replacen("v1,", "v1a,", 1);
        assert!(v.verify_at(&headers(&swapped), BODY, NOW).is_err());
    }

    #[test]
    fn verify_once_rejects_duplicates_and_records_only_verified_ids() {
        let v = verifier();
        let store = MemorySeenStore::new();
        assert_eq!(
            v.verify_once_at(&headers(SIG_V1), b"forged", &store, NOW),
            Err(VerifyError::NoMatchingSignature)
        );
        assert!(store.is_empty());
        assert_eq!(
            v.verify_once_at(&headers(SIG_V1), BODY, &store, NOW),
            Ok(())
        );
        assert_eq!(
            v.verify_once_at(&headers(SIG_V1A), BODY, &store, NOW + 1),
            Err(VerifyError::Duplicate)
        );
        assert_eq!(VerifyError::Duplicate.code(), "duplicate");
    }

    #[test]
    fn construction_errors() {
        assert_eq!(
            Verifier::new(Vec::<String>::new()).map(|_| ()),
            Err(KeyError::NoKeys)
        );
        assert_eq!(
            Verifier::new([PK, "nope"]).map(|_| ()),
            Err(KeyError::UnknownPrefix)
        );
        let v = verifier();
        assert_eq!(v.keys().len(), 2);
        assert_eq!(v.keys()[1].version(), "v1a");
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Verifier>();
        assert_send_sync::<MemorySeenStore>();
    }
}
