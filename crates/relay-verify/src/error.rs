//! The typed errors.

/// Why a request did not verify.
///
/// [`VerifyError::code`] gives a stable string, the same in the Python and
/// TypeScript SDKs and in `sdks/vectors.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// A signature header is absent or empty.
    #[error("the `{name}` header is missing or empty")]
    MissingHeader {
        /// The header's name (lowercase).
        name: &'static str,
    },
    /// `webhook-timestamp` is not a whole, non-negative number of unix seconds.
    #[error("webhook-timestamp is not a whole number of unix seconds")]
    InvalidTimestamp,
    /// `webhook-timestamp` is further in the past than the tolerance.
    #[error("webhook-timestamp {timestamp} is too old (now is {now})")]
    TimestampTooOld {
        /// The header's value.
        timestamp: u64,
        /// The verifier's now, unix seconds.
        now: u64,
    },
    /// `webhook-timestamp` is further in the future than the tolerance.
    #[error("webhook-timestamp {timestamp} is too far in the future (now is {now})")]
    TimestampTooNew {
        /// The header's value.
        timestamp: u64,
        /// The verifier's now, unix seconds.
        now: u64,
    },
    /// No entry of `webhook-signature` verifies with any of the keys.
    #[error("no signature matched any key")]
    NoMatchingSignature,
    /// The request verified, but its `webhook-id` was already seen (only from
    /// [`crate::Verifier::verify_once`]). Reply 2xx: it is a retry or a replay
    /// of something you already processed.
    #[error("this webhook-id was already seen")]
    Duplicate,
}

impl VerifyError {
    /// A stable, machine-readable code: `missing_header`,
    /// `invalid_timestamp`, `timestamp_too_old`, `timestamp_too_new`,
    /// `no_matching_signature` or `duplicate`.
    pub const fn code(&self) -> &'static str {
        match self {
            VerifyError::MissingHeader { .. } => "missing_header",
            VerifyError::InvalidTimestamp => "invalid_timestamp",
            VerifyError::TimestampTooOld { .. } => "timestamp_too_old",
            VerifyError::TimestampTooNew { .. } => "timestamp_too_new",
            VerifyError::NoMatchingSignature => "no_matching_signature",
            VerifyError::Duplicate => "duplicate",
        }
    }
}

/// A key string that cannot be used to verify.
///
/// Every variant's [`KeyError::code`] is `invalid_key`; the variant says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Neither `whsec_` nor `whpk_`.
    #[error("a verification key starts with `whsec_` (v1) or `whpk_` (v1a)")]
    UnknownPrefix,
    /// A `whsk_` Ed25519 signing key: a consumer needs only the public key.
    #[error(
        "this is an Ed25519 signing key (`whsk_`); verify with its public key (`whpk_`) and keep the signing key out of consumers"
    )]
    SigningKeyGiven,
    /// The part after the prefix is not standard base64 with padding.
    #[error("the key is not valid base64")]
    InvalidBase64,
    /// The decoded key has the wrong number of bytes.
    #[error("the key has {actual} bytes; {expected}")]
    WrongLength {
        /// Bytes decoded.
        actual: usize,
        /// What was expected.
        expected: &'static str,
    },
    /// 32 bytes that are not an Ed25519 public key.
    #[error("the public key is not a valid Ed25519 point")]
    InvalidPublicKey,
    /// A verifier was built without any key.
    #[error("a verifier needs at least one key")]
    NoKeys,
}

impl KeyError {
    /// `invalid_key`, for every variant.
    pub const fn code(&self) -> &'static str {
        "invalid_key"
    }
}
