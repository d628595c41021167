//! HMAC and constant-time comparison, over `ring`.

use ring::hmac;
use subtle::ConstantTimeEq as _;

use crate::HmacAlgorithm;

/// The HMAC of the concatenation of `parts` under `key`.
pub(crate) fn hmac(algorithm: HmacAlgorithm, key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let algorithm = match algorithm {
        HmacAlgorithm::Sha1 => hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY,
        HmacAlgorithm::Sha256 => hmac::HMAC_SHA256,
        HmacAlgorithm::Sha512 => hmac::HMAC_SHA512,
    };
    let mut ctx = hmac::Context::with_key(&hmac::Key::new(algorithm, key));
    for part in parts {
        ctx.update(part);
    }
    ctx.sign().as_ref().to_vec()
}

/// Constant-time equality (the lengths are not secret).
pub(crate) fn equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// Lowercase-or-uppercase hex to bytes.
pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    hex::decode(s).ok()
}

pub(crate) fn sha256_hex(data: &[u8]) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, data))
}
