//! One API request as data: what the generated builders
//! ([`crate::api`]) make and [`Client::send`](crate::Client::send) sends.

use std::fmt;
use std::marker::PhantomData;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use http::Method;

/// One page of a list: its items and the cursor of the next page (`None`
/// on the last). [`Pager`](crate::Pager) follows the cursors for you.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub data: Vec<T>,
    #[serde(default)]
    pub next_after: Option<String>,
}

/// A request to Relay's API and how to read its success answer as `T`.
///
/// `safe` says whether the request may be sent again after a lost
/// connection or a timeout (true for `GET`, `PUT` and `DELETE`; a publish is
/// made safe by its event id).
pub struct Operation<T> {
    method: Method,
    path: String,
    query: Vec<(&'static str, String)>,
    headers: Vec<(&'static str, String)>,
    body: Option<Result<Vec<u8>, String>>,
    safe: bool,
    decode: fn(&[u8]) -> Result<T, serde_json::Error>,
    answer: PhantomData<fn() -> T>,
}

impl<T> Clone for Operation<T> {
    fn clone(&self) -> Self {
        Operation {
            method: self.method.clone(),
            path: self.path.clone(),
            query: self.query.clone(),
            headers: self.headers.clone(),
            body: self.body.clone(),
            safe: self.safe,
            decode: self.decode,
            answer: PhantomData,
        }
    }
}

impl<T> fmt::Debug for Operation<T> {
    /// The method, path and query; never the body (it may carry a secret).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Operation")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("query", &self.query)
            .field("safe", &self.safe)
            .finish_non_exhaustive()
    }
}

impl<T> Operation<T> {
    /// A request to `path` (starting with `/v1/`), its answer read by `decode`.
    pub fn new(
        method: Method,
        path: String,
        decode: fn(&[u8]) -> Result<T, serde_json::Error>,
    ) -> Self {
        let safe = matches!(
            method,
            Method::GET | Method::PUT | Method::DELETE | Method::HEAD
        );
        Operation {
            method,
            path,
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
            safe,
            decode,
            answer: PhantomData,
        }
    }

    /// Adds `name=value` to the query when `value` is given.
    pub fn query(mut self, name: &'static str, value: Option<&impl fmt::Display>) -> Self {
        if let Some(value) = value {
            self.set_query(name, value.to_string());
        }
        self
    }

    /// Sets `name` in the query, replacing a value it had.
    pub fn set_query(&mut self, name: &'static str, value: String) {
        self.query.retain(|(n, _)| *n != name);
        self.query.push((name, value));
    }

    /// Adds a header when `value` is given.
    pub fn header(mut self, name: &'static str, value: Option<&str>) -> Self {
        if let Some(value) = value {
            self.headers.push((name, value.to_string()));
        }
        self
    }

    /// The JSON body.
    pub fn json(mut self, body: &impl Serialize) -> Self {
        self.body = Some(serde_json::to_vec(body).map_err(|e| e.to_string()));
        self
    }

    /// Whether the request may be repeated after a lost connection.
    pub fn safe(mut self, safe: bool) -> Self {
        self.safe = safe;
        self
    }

    pub fn method(&self) -> &Method {
        &self.method
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn is_safe(&self) -> bool {
        self.safe
    }

    /// The path and the query string, percent-encoded.
    pub fn path_and_query(&self) -> String {
        let mut out = self.path.clone();
        for (i, (name, value)) in self.query.iter().enumerate() {
            out.push(if i == 0 { '?' } else { '&' });
            out.push_str(name);
            out.push('=');
            out.extend(utf8_percent_encode(value, QUERY));
        }
        out
    }

    pub(crate) fn headers(&self) -> &[(&'static str, String)] {
        &self.headers
    }

    pub(crate) fn body(&self) -> Option<&Result<Vec<u8>, String>> {
        self.body.as_ref()
    }

    pub(crate) fn decode(&self, body: &[u8]) -> Result<T, serde_json::Error> {
        (self.decode)(body)
    }
}

/// What a query value or a path segment keeps unencoded (RFC 3986's
/// unreserved characters).
const QUERY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A path parameter, percent-encoded as one segment.
pub fn segment(value: &str) -> String {
    utf8_percent_encode(value, QUERY).to_string()
}

/// A JSON answer.
pub fn decode_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, serde_json::Error> {
    serde_json::from_slice(body)
}

/// An answer without a body (`204`).
pub fn decode_unit(_: &[u8]) -> Result<(), serde_json::Error> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_and_query_values_are_percent_encoded() {
        let op = Operation::new(
            Method::GET,
            format!("/v1/event-types/{}", segment("a b/c")),
            decode_unit,
        )
        .query("since", Some(&"2026-01-01T00:00:00+01:00"))
        .query("after", None::<&String>)
        .query("limit", Some(&5));
        assert_eq!(
            op.path_and_query(),
            "/v1/event-types/a%20b%2Fc?since=2026-01-01T00%3A00%3A00%2B01%3A00&limit=5"
        );
        let mut next = op.clone();
        next.set_query("limit", "7".into());
        assert!(
            next.path_and_query().ends_with("&limit=7"),
            "{}",
            next.path_and_query()
        );
    }

    #[test]
    fn reads_are_safe_to_repeat_and_posts_are_not() {
        assert!(Operation::new(Method::GET, "/v1/x".into(), decode_unit).is_safe());
        assert!(Operation::new(Method::PUT, "/v1/x".into(), decode_unit).is_safe());
        assert!(!Operation::new(Method::POST, "/v1/x".into(), decode_unit).is_safe());
        assert!(!Operation::new(Method::PATCH, "/v1/x".into(), decode_unit).is_safe());
        assert!(
            Operation::new(Method::POST, "/v1/x".into(), decode_unit)
                .safe(true)
                .is_safe()
        );
    }

    #[test]
    fn debug_leaves_the_body_out() {
        let op = Operation::new(Method::PUT, "/v1/secrets/db".into(), decode_unit)
            .json(&serde_json::json!({"value": "hunter2-very-secret"}));
        assert!(!format!("{op:?}").contains("hunter2"), "{op:?}");
    }
}
