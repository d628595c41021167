//! An HTTPS endpoint's custom headers: the pure checks of their names and
//! values, at registration ([`check`]) and for a value once its secret
//! reference is resolved ([`valid_value`]).
//!
//! A custom header cannot change how the request is framed or routed
//! (`Host`, `Content-*` that describe the body, hop-by-hop headers), what it
//! proves (the Standard Webhooks `webhook-*` headers), or Relay's own
//! `relay-*` headers: [`reserved`].
//!
//! A header that carries credentials (`Authorization`, `Cookie`,
//! `X-Api-Key`, …: [`carries_credentials`], a list kept as data in
//! `credential_headers.txt`) is accepted only as a secret reference, never
//! as a literal value stored in clear and shown in endpoint reads. One
//! stored before that rule keeps being sent, but is never shown
//! ([`redact_literal_credentials`]).

use crate::https::HttpsHeader;

use crate::Invalid;

/// The most headers an endpoint may have.
pub const MAX_HEADERS: usize = 10;
/// The longest header name.
pub const MAX_NAME: usize = 256;
/// The longest header value (literal or resolved).
pub const MAX_VALUE: usize = 1024;

const POINTER: &str = "/destination/headers";

/// Names (lower-case) a custom header may not have.
const RESERVED: &[&str] = &[
    "host",
    "content-type",
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
    "expect",
];

/// Name prefixes (lower-case) a custom header may not have.
const RESERVED_PREFIXES: &[&str] = &["webhook-", "relay-", "proxy-"];

/// The header names that carry credentials (see the file's header).
const CREDENTIAL_HEADERS: &str = include_str!("../../credential_headers.txt");

/// What an endpoint read shows instead of a stored literal credential.
pub const REDACTED: &str = "[redacted]";

/// Whether a header named `name` (any case) carries credentials, by
/// `credential_headers.txt`: exact names, and patterns with a `*` at
/// either end.
pub fn carries_credentials(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIAL_HEADERS
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .any(
            |pattern| match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
                (Some(rest), _) if rest.ends_with('*') => name.contains(rest.trim_end_matches('*')),
                (Some(suffix), None) => name.ends_with(suffix),
                (None, Some(prefix)) => name.starts_with(prefix),
                _ => name == pattern,
            },
        )
}

/// Replaces the literal value of every header that carries credentials
/// with [`REDACTED`], for an endpoint read: such a value may have been
/// stored before the rule of [`check`] (it is still sent, never shown).
pub fn redact_literal_credentials(headers: &mut [HttpsHeader]) {
    for h in headers {
        if h.value.is_some() && carries_credentials(&h.name) {
            h.value = Some(REDACTED.to_string());
        }
    }
}

/// Whether `name` is an HTTP token (RFC 9110 §5.6.2) of at most [`MAX_NAME`] bytes.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// Whether a custom header may not be named `name` (any case).
pub fn reserved(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    RESERVED.contains(&lower.as_str()) || RESERVED_PREFIXES.iter().any(|p| lower.starts_with(p))
}

/// Whether `value` is printable ASCII (space to `~`), at most
/// [`MAX_VALUE`] bytes, without leading or trailing space.
pub fn valid_value(value: &[u8]) -> bool {
    value.len() <= MAX_VALUE
        && value.iter().all(|b| (0x20..=0x7e).contains(b))
        && value.first() != Some(&b' ')
        && value.last() != Some(&b' ')
}

fn invalid(code: &'static str, message: String) -> Invalid {
    Invalid {
        code,
        pointer: POINTER,
        message,
    }
}

/// Checks an endpoint's custom headers at registration. The message names
/// the header by its position and name, never by a value.
pub fn check(headers: &[HttpsHeader]) -> Result<(), Invalid> {
    if headers.len() > MAX_HEADERS {
        return Err(invalid(
            "too_many_headers",
            format!(
                "an endpoint has at most {MAX_HEADERS} custom headers, not {}",
                headers.len()
            ),
        ));
    }
    for (i, h) in headers.iter().enumerate() {
        if !valid_name(&h.name) {
            return Err(invalid(
                "invalid_header_name",
                format!(
                    "header {i}: a name is 1 to {MAX_NAME} characters of A-Z, a-z, 0-9 and !#$%&'*+-.^_`|~"
                ),
            ));
        }
        if reserved(&h.name) {
            return Err(invalid(
                "reserved_header",
                format!(
                    "header {i} ({}): Host, Content-Type, Content-Length, Content-Encoding, hop-by-hop headers, webhook-* and relay-* are set by Relay and cannot be replaced",
                    h.name
                ),
            ));
        }
        if headers[..i]
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(&h.name))
        {
            return Err(invalid(
                "duplicate_header",
                format!("header {i} ({}): the name is already used", h.name),
            ));
        }
        match (&h.value, &h.secret) {
            (Some(_), None) if carries_credentials(&h.name) => {
                return Err(invalid(
                    "credential_header_literal",
                    format!(
                        "header {i} ({}): a header that carries credentials is given as a secret reference (\"secret\": \"secret:NAME\", written with PUT /v1/secrets/{{name}}), never as a literal value stored in clear",
                        h.name
                    ),
                ));
            }
            (Some(v), None) => {
                if !valid_value(v.as_bytes()) {
                    return Err(invalid(
                        "invalid_header_value",
                        format!(
                            "header {i} ({}): a value is at most {MAX_VALUE} bytes of printable ASCII, without leading or trailing space",
                            h.name
                        ),
                    ));
                }
            }
            (None, Some(_)) => {}
            _ => {
                return Err(invalid(
                    "invalid_header_value",
                    format!(
                        "header {i} ({}): give exactly one of `value` and `secret`",
                        h.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
