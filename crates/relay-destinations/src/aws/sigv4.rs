//! AWS Signature Version 4, header-based (the `Authorization` header), as
//! S3 and every S3-compatible service take it. Pure: the caller passes the
//! request's parts, the credentials and the time.
//!
//! The steps are the specification's: the canonical request (method,
//! canonical URI, canonical query, canonical headers, signed header names,
//! payload hash), the string to sign (algorithm, time, scope, hash of the
//! canonical request), the signing key (HMAC-SHA256 chained over the date,
//! region, service and `aws4_request`), and the signature over the string
//! to sign. Checked against AWS's published test suite and the S3
//! documentation's examples (`testdata/sigv4/`, `sigv4/tests.rs`).
//!
//! The canonical URI is S3's: each byte of the path that is not unreserved
//! (`A-Z a-z 0-9 - . _ ~`) or `/` is percent-encoded once, and the path is
//! not normalised (`a/./b` stays), since an object key is taken literally.

use hmac::{Hmac, KeyInit, Mac};
use relay_core::time::Timestamp;
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// The algorithm's name, first in the `Authorization` header.
pub const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// The SHA-256 of the empty payload.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// The credentials a request is signed with. `secret_access_key` is the
/// secret; this type has no `Debug`.
pub struct Credentials<'a> {
    pub access_key_id: &'a str,
    pub secret_access_key: &'a [u8],
}

/// The parts of a request that are signed.
pub struct Request<'a> {
    pub method: &'a str,
    /// The path as sent, not yet percent-encoded (`/bucket/a b.jsonl`).
    pub path: &'a str,
    /// The query's name and value pairs, not yet percent-encoded.
    pub query: &'a [(&'a str, &'a str)],
    /// Every header to sign, `host` and `x-amz-date` among them, in any
    /// case and order; a name given more than once is signed as its values
    /// joined with `,` in the order given.
    pub headers: &'a [(&'a str, &'a str)],
    /// The hex SHA-256 of the payload (`x-amz-content-sha256`).
    pub payload_sha256: &'a str,
}

/// What signing produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    pub canonical_request: String,
    pub string_to_sign: String,
    /// The hex signature.
    pub signature: String,
    /// The `Authorization` header's value.
    pub authorization: String,
}

/// `YYYYMMDDTHHMMSSZ`, the `x-amz-date` form of `t` (UTC).
pub fn amz_date(t: Timestamp) -> String {
    let r = t.to_rfc3339();
    let b = r.as_bytes();
    if b.len() < 19 {
        return r;
    }
    format!(
        "{}{}{}T{}{}{}Z",
        &r[0..4],
        &r[5..7],
        &r[8..10],
        &r[11..13],
        &r[14..16],
        &r[17..19]
    )
}

/// Percent-encodes every byte but the unreserved ones (and `/` when
/// `keep_slash`), upper-case hex: the specification's `UriEncode`.
pub fn uri_encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else if b == b'/' && keep_slash {
            out.push('/');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn hex_sha256(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC takes a key of any length.
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

/// A header value as canonicalised: trimmed, runs of spaces made one.
fn canonical_value(v: &str) -> String {
    v.split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The canonical headers (each `name:value\n`) and the signed header names.
fn canonical_headers(headers: &[(&str, &str)]) -> (String, String) {
    let mut merged: Vec<(String, String)> = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        let value = canonical_value(value);
        match merged.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => {
                v.push(',');
                v.push_str(&value);
            }
            None => merged.push((name, value)),
        }
    }
    merged.sort_by(|a, b| a.0.cmp(&b.0));
    let mut canonical = String::new();
    for (n, v) in &merged {
        canonical.push_str(n);
        canonical.push(':');
        canonical.push_str(v);
        canonical.push('\n');
    }
    let signed = merged
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(";");
    (canonical, signed)
}

fn canonical_query(query: &[(&str, &str)]) -> String {
    let mut pairs: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| (uri_encode(k, false), uri_encode(v, false)))
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// The canonical request of `request`, and its signed header names.
pub fn canonical_request(request: &Request<'_>) -> (String, String) {
    let (headers, signed) = canonical_headers(request.headers);
    let path = if request.path.is_empty() {
        "/".to_string()
    } else {
        uri_encode(request.path, true)
    };
    let canonical = format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        request.method,
        path,
        canonical_query(request.query),
        headers,
        signed,
        request.payload_sha256
    );
    (canonical, signed)
}

/// The signing key of a day, region and service.
pub fn signing_key(secret_access_key: &[u8], date: &str, region: &str, service: &str) -> Vec<u8> {
    let mut secret = Vec::with_capacity(4 + secret_access_key.len());
    secret.extend_from_slice(b"AWS4");
    secret.extend_from_slice(secret_access_key);
    let k_date = hmac(&secret, date.as_bytes());
    secret.iter_mut().for_each(|b| *b = 0);
    let k_region = hmac(&k_date, region.as_bytes());
    let k_service = hmac(&k_region, service.as_bytes());
    hmac(&k_service, b"aws4_request")
}

/// Signs `request` at `amz_date` (`YYYYMMDDTHHMMSSZ`, the request's own
/// `x-amz-date`) for `region` and `service`.
pub fn sign(
    request: &Request<'_>,
    credentials: &Credentials<'_>,
    amz_date: &str,
    region: &str,
    service: &str,
) -> Signed {
    let (canonical_request, signed_headers) = canonical_request(request);
    let date = amz_date.get(..8).unwrap_or(amz_date);
    let scope = format!("{date}/{region}/{service}/aws4_request");
    let string_to_sign = format!(
        "{ALGORITHM}\n{amz_date}\n{scope}\n{}",
        hex_sha256(canonical_request.as_bytes())
    );
    let key = signing_key(credentials.secret_access_key, date, region, service);
    let signature = hex::encode(hmac(&key, string_to_sign.as_bytes()));
    let authorization = format!(
        "{ALGORITHM} Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
        credentials.access_key_id
    );
    Signed {
        canonical_request,
        string_to_sign,
        signature,
        authorization,
    }
}

#[cfg(test)]
mod tests;
