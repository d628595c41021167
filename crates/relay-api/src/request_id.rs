//! `x-request-id` on every answer: the caller's own when it is a short
//! token (an SDK sends one per call and keeps it across its retries), else
//! one made here. Everything logged while the request runs is in its
//! `request` span with the id, so a support request that names the id finds
//! the request's log lines.
//!
//! A caller's value reaches the logs and the answer only when it is 1 to
//! 128 characters of letters, digits, `-`, `_`, `.` and `:`: one with
//! spaces, quotes, control characters or bytes outside ASCII could forge a
//! log field or line, and is replaced, never echoed.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument as _;

/// The header's name, in requests and answers.
pub const HEADER: &str = "x-request-id";

/// The longest id taken from a caller.
const MAX_LEN: usize = 128;

/// The caller's id, when it is one this module accepts.
fn acceptable(v: &HeaderValue) -> Option<&str> {
    let s = v.to_str().ok()?;
    let token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':');
    (!s.is_empty() && s.len() <= MAX_LEN && s.bytes().all(token)).then_some(s)
}

/// A new id: `req_` and 96 random bits in hex.
fn fresh() -> String {
    let mut r = [0u8; 12];
    let _ = getrandom::fill(&mut r);
    format!("req_{}", hex::encode(r))
}

/// The middleware: runs the request in its span and names it in the answer.
pub async fn request_id(req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get(HEADER)
        .and_then(acceptable)
        .map_or_else(fresh, str::to_string);
    let span = tracing::info_span!("request", request_id = %id);
    let mut answer = next.run(req).instrument(span).await;
    if let Ok(v) = HeaderValue::from_str(&id) {
        answer.headers_mut().insert(HEADER, v);
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_short_tokens_are_taken_from_the_caller() {
        let ok = |s: &str| acceptable(&HeaderValue::from_str(s).unwrap()).is_some();
        assert!(ok("req_0b5e.client-42:retry_1"));
        assert!(ok(&"a".repeat(128)));
        for bad in ["", "a b", "a\tb", "a\"b", "a=b", "a/b", &"a".repeat(129)] {
            assert!(!ok(bad), "{bad:?}");
        }
        let made = fresh();
        assert!(made.starts_with("req_") && made.len() == 28, "{made}");
        assert!(acceptable(&HeaderValue::from_str(&made).unwrap()).is_some());
    }
}
