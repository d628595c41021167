//! Reading the three signature headers from whatever holds them.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

/// `webhook-id`: the event id, the same across attempts.
pub const WEBHOOK_ID_HEADER: &str = "webhook-id";
/// `webhook-timestamp`: unix seconds, fresh on each attempt.
pub const TIMESTAMP_HEADER: &str = "webhook-timestamp";
/// `webhook-signature`: space-separated `<version>,<base64>` entries.
pub const SIGNATURE_HEADER: &str = "webhook-signature";

/// Something that can look a request header up by its (lowercase) name.
///
/// Implemented for `http::HeaderMap` (feature `http`, on by default), for
/// maps and lists of name/value pairs (names compared ASCII
/// case-insensitively; the first match wins), and for [`SignatureHeaders`].
/// A header that is absent, or whose value is not visible ASCII, is `None`.
pub trait HeaderLookup {
    /// The value of the header `name` (given in lowercase).
    fn header(&self, name: &str) -> Option<&str>;
}

impl<T: HeaderLookup + ?Sized> HeaderLookup for &T {
    fn header(&self, name: &str) -> Option<&str> {
        (**self).header(name)
    }
}

/// The three header values, when you already have them as strings. An empty
/// value counts as missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SignatureHeaders<'a> {
    /// `webhook-id`.
    pub id: &'a str,
    /// `webhook-timestamp`.
    pub timestamp: &'a str,
    /// `webhook-signature`.
    pub signature: &'a str,
}

impl HeaderLookup for SignatureHeaders<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        let value = if name.eq_ignore_ascii_case(WEBHOOK_ID_HEADER) {
            self.id
        } else if name.eq_ignore_ascii_case(TIMESTAMP_HEADER) {
            self.timestamp
        } else if name.eq_ignore_ascii_case(SIGNATURE_HEADER) {
            self.signature
        } else {
            return None;
        };
        Some(value)
    }
}

fn find_pair<'a, K, V, I>(pairs: I, name: &str) -> Option<&'a str>
where
    K: AsRef<str> + 'a + ?Sized,
    V: AsRef<str> + 'a + ?Sized,
    I: IntoIterator<Item = (&'a K, &'a V)>,
{
    pairs
        .into_iter()
        .find(|(k, _)| k.as_ref().eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_ref())
}

impl<K: AsRef<str>, V: AsRef<str>, S: BuildHasher> HeaderLookup for HashMap<K, V, S> {
    fn header(&self, name: &str) -> Option<&str> {
        find_pair(self.iter(), name)
    }
}

impl<K: AsRef<str>, V: AsRef<str>> HeaderLookup for BTreeMap<K, V> {
    fn header(&self, name: &str) -> Option<&str> {
        find_pair(self.iter(), name)
    }
}

impl<K: AsRef<str>, V: AsRef<str>> HeaderLookup for [(K, V)] {
    fn header(&self, name: &str) -> Option<&str> {
        find_pair(self.iter().map(|(k, v)| (k, v)), name)
    }
}

impl<K: AsRef<str>, V: AsRef<str>, const N: usize> HeaderLookup for [(K, V); N] {
    fn header(&self, name: &str) -> Option<&str> {
        self.as_slice().header(name)
    }
}

impl<K: AsRef<str>, V: AsRef<str>> HeaderLookup for Vec<(K, V)> {
    fn header(&self, name: &str) -> Option<&str> {
        self.as_slice().header(name)
    }
}

#[cfg(feature = "http")]
impl HeaderLookup for http::HeaderMap {
    fn header(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| v.to_str().ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_ignore_case_and_take_the_first_match() {
        let pairs = [("Webhook-Id", "a"), ("webhook-id", "b")];
        assert_eq!(pairs.header("webhook-id"), Some("a"));
        let v: Vec<(String, String)> = vec![("WEBHOOK-TIMESTAMP".into(), "1".into())];
        assert_eq!(v.header(TIMESTAMP_HEADER), Some("1"));
        assert_eq!(v.header(SIGNATURE_HEADER), None);
        let m: HashMap<&str, &str> = HashMap::from([("Webhook-Signature", "v1,x")]);
        assert_eq!(m.header(SIGNATURE_HEADER), Some("v1,x"));
        let b: BTreeMap<String, String> = BTreeMap::from([("webhook-id".into(), "x".into())]);
        let by_ref: &dyn HeaderLookup = &&b;
        assert_eq!(by_ref.header(WEBHOOK_ID_HEADER), Some("x"));
        let s = SignatureHeaders {
            id: "i",
            timestamp: "t",
            signature: "s",
        };
        assert_eq!(
            [
                WEBHOOK_ID_HEADER,
                TIMESTAMP_HEADER,
                SIGNATURE_HEADER,
                "other"
            ]
            .map(|n| s.header(n)),
            [Some("i"), Some("t"), Some("s"), None]
        );
    }

    #[cfg(feature = "http")]
    #[test]
    fn header_map_values_that_are_not_ascii_are_absent() {
        let mut h = http::HeaderMap::new();
        h.insert("webhook-id", http::HeaderValue::from_static("msg_1"));
        h.insert(
            "webhook-signature",
            http::HeaderValue::from_bytes(b"v1,\xff").unwrap_or_else(|e| panic!("{e}")),
        );
        assert_eq!(h.header("webhook-id"), Some("msg_1"));
        assert_eq!(h.header("webhook-signature"), None);
    }
}
