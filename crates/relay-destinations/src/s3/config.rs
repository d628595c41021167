//! The registration rules of an `s3` destination's fields, pure (the guard's
//! check of the URL is in `mod.rs`), and the object names and URLs they
//! make.

use crate::s3::{
    S3_MAX_BYTES, S3_MAX_EVENTS, S3_MAX_WAIT_SECONDS, S3Addressing, S3Compression, S3Destination,
};

use crate::Invalid;

/// The longest `prefix`.
pub const MAX_PREFIX: usize = 512;

fn invalid(code: &'static str, pointer: &'static str, message: impl Into<String>) -> Invalid {
    Invalid {
        code,
        pointer,
        message: message.into(),
    }
}

/// S3's bucket naming rules: 3–63 of `a-z 0-9 . -`, starting and ending
/// with a letter or digit, no `..`, not an IPv4 address.
pub fn valid_bucket(b: &str) -> bool {
    let bytes = b.as_bytes();
    (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'-'))
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && !b.contains("..")
        && !b.contains(".-")
        && !b.contains("-.")
        && b.parse::<std::net::Ipv4Addr>().is_err()
}

/// A prefix of object names: S3's safe characters and `=`, not starting
/// with `/`, no empty, `.` or `..` segment (a trailing `/` is fine).
pub fn valid_prefix(p: &str) -> bool {
    if p.is_empty() {
        return true;
    }
    let safe = |c: u8| c.is_ascii_alphanumeric() || b"!-_.*'()/=".contains(&c);
    if p.len() > MAX_PREFIX || !p.bytes().all(safe) || p.starts_with('/') {
        return false;
    }
    let body = p.strip_suffix('/').unwrap_or(p);
    body.split('/')
        .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

/// A region name: 1–64 of `a-z 0-9 -`.
pub fn valid_region(r: &str) -> bool {
    (1..=64).contains(&r.len())
        && r.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
}

/// The pure checks of the fields, in the order of the schema.
pub fn check(c: &S3Destination) -> Result<(), Invalid> {
    if !valid_bucket(&c.bucket) {
        return Err(invalid(
            "invalid_bucket",
            "/destination/bucket",
            "a bucket name is 3 to 63 of a-z, 0-9, `.` and `-`, starting and ending with a letter or digit, not an IP address",
        ));
    }
    if c.addressing == S3Addressing::VirtualHost && c.bucket.contains('.') {
        return Err(invalid(
            "invalid_bucket",
            "/destination/bucket",
            "with virtual_host addressing the bucket is one DNS label (no `.`): the service's certificate would not cover it; use path addressing",
        ));
    }
    if !valid_prefix(&c.prefix) {
        return Err(invalid(
            "invalid_prefix",
            "/destination/prefix",
            format!(
                "a prefix is at most {MAX_PREFIX} of A-Z, a-z, 0-9 and `! - _ . * ' ( ) / =`, not starting with `/`, without empty, `.` or `..` segments"
            ),
        ));
    }
    if !valid_region(&c.region) {
        return Err(invalid(
            "invalid_region",
            "/destination/region",
            "a region is 1 to 64 of a-z, 0-9 and `-`",
        ));
    }
    let b = &c.batch;
    let within = |v: u64, (lo, hi): (u64, u64)| (lo..=hi).contains(&v);
    if !within(
        u64::from(b.max_events),
        (u64::from(S3_MAX_EVENTS.0), u64::from(S3_MAX_EVENTS.1)),
    ) || !within(b.max_bytes, S3_MAX_BYTES)
        || !within(
            u64::from(b.max_wait_seconds),
            (
                u64::from(S3_MAX_WAIT_SECONDS.0),
                u64::from(S3_MAX_WAIT_SECONDS.1),
            ),
        )
    {
        return Err(invalid(
            "invalid_batch",
            "/destination/batch",
            format!(
                "max_events is {} to {}, max_bytes {} to {}, max_wait_seconds {} to {}",
                S3_MAX_EVENTS.0,
                S3_MAX_EVENTS.1,
                S3_MAX_BYTES.0,
                S3_MAX_BYTES.1,
                S3_MAX_WAIT_SECONDS.0,
                S3_MAX_WAIT_SECONDS.1
            ),
        ));
    }
    Ok(())
}

/// The service URL split into scheme and authority (`https`,
/// `minio.example:9000`), when it has no path beyond `/`, no query, no
/// fragment and no user information.
pub fn authority(service_url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = service_url.split_once("://")?;
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.is_empty() || authority.contains(['/', '?', '#', '@']) {
        return None;
    }
    Some((scheme, authority))
}

/// The URL a request for `key` goes to, and the path that is signed (not
/// yet percent-encoded: `sigv4::uri_encode` makes both).
pub fn object_url(c: &S3Destination, key: &str) -> Option<(String, String)> {
    let service = c.service_url();
    let (scheme, authority) = authority(&service)?;
    Some(match c.addressing {
        S3Addressing::Path => {
            let path = format!("/{}/{key}", c.bucket);
            (
                format!(
                    "{scheme}://{authority}{}",
                    crate::aws::sigv4::uri_encode(&path, true)
                ),
                path,
            )
        }
        S3Addressing::VirtualHost => {
            let path = format!("/{key}");
            (
                format!(
                    "{scheme}://{}.{authority}{}",
                    c.bucket,
                    crate::aws::sigv4::uri_encode(&path, true)
                ),
                path,
            )
        }
    })
}

/// The URL of the bucket itself and its signed path (`CreateBucket`).
pub fn bucket_url(c: &S3Destination) -> Option<(String, String)> {
    let service = c.service_url();
    let (scheme, authority) = authority(&service)?;
    Some(match c.addressing {
        S3Addressing::Path => (
            format!("{scheme}://{authority}/{}", c.bucket),
            format!("/{}", c.bucket),
        ),
        S3Addressing::VirtualHost => (format!("{scheme}://{}.{authority}/", c.bucket), "/".into()),
    })
}

/// The URL the guard checks at registration: the service as requests
/// address it (with the bucket's host name for `virtual_host`).
pub fn registration_url(c: &S3Destination) -> Option<String> {
    let service = c.service_url();
    let (scheme, authority) = authority(&service)?;
    Some(match c.addressing {
        S3Addressing::Path => format!("{scheme}://{authority}/"),
        S3Addressing::VirtualHost => format!("{scheme}://{}.{authority}/", c.bucket),
    })
}

/// The object name of a batch: `<prefix>YYYY/MM/DD/HH/<batch id>.jsonl`
/// (`.jsonl.gz` with gzip), the date and hour (UTC) of the batch's time.
/// Derived from the batch alone, so every write of a batch names the same
/// object.
pub fn object_key(
    prefix: &str,
    batch_id: &str,
    batch_time_rfc3339: &str,
    compression: S3Compression,
) -> String {
    let t = batch_time_rfc3339.as_bytes();
    let date = if t.len() >= 13 {
        format!(
            "{}/{}/{}/{}/",
            &batch_time_rfc3339[0..4],
            &batch_time_rfc3339[5..7],
            &batch_time_rfc3339[8..10],
            &batch_time_rfc3339[11..13]
        )
    } else {
        String::new()
    };
    let extension = match compression {
        S3Compression::None => "jsonl",
        S3Compression::Gzip => "jsonl.gz",
    };
    format!("{prefix}{date}{batch_id}.{extension}")
}

/// The object's `Content-Type`.
pub const fn content_type(compression: S3Compression) -> &'static str {
    match compression {
        S3Compression::None => "application/x-ndjson",
        S3Compression::Gzip => "application/gzip",
    }
}
