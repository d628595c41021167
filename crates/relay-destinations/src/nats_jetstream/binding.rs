//! The CloudEvents NATS protocol binding's binary content mode, pure: each
//! context attribute (`datacontenttype` too) becomes a header `ce-<name>`,
//! its value percent-encoded as the binding asks (space, `"`, `%` and every
//! byte outside printable ASCII written `%XX`, upper-case hex), so any
//! attribute fits a NATS header line.

use crate::Prepared;

/// The prefix of the binding's attribute headers.
pub const CE_PREFIX: &str = "ce-";

/// `value` as the binding writes a header value.
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if (0x21..=0x7e).contains(&b) && b != b'"' && b != b'%' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `ce-<name>` headers of a binary-mode message (none in structured
/// mode), in the order `prepare` lists the attributes.
pub fn ce_headers(m: &Prepared) -> Vec<(String, String)> {
    m.attributes
        .iter()
        .map(|(name, value)| (format!("{CE_PREFIX}{name}"), percent_encode(value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binding's own example and its list of characters.
    #[test]
    fn values_are_percent_encoded_as_the_binding_says() {
        let cases = [
            ("Euro \u{20AC} \u{1F600}", "Euro%20%E2%82%AC%20%F0%9F%98%80"),
            ("order/1042", "order/1042"),
            ("2026-12-03T15:00:00Z", "2026-12-03T15:00:00Z"),
            ("say \"hi\"", "say%20%22hi%22"),
            ("100%", "100%25"),
            ("a\tb\u{7f}", "a%09b%7F"),
            ("", ""),
        ];
        for (value, want) in cases {
            assert_eq!(percent_encode(value), want, "{value:?}");
        }
    }
}
