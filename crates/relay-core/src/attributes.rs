//! The rules an event's CloudEvents attributes must satisfy, in one place.
//!
//! The API checks a publish (`subject`, `time`, the size of the delivered
//! body) and a consumer's `source` with these functions, and the envelope
//! builder ([`crate::envelope::Envelope::validate`]) checks every attribute
//! with the same functions, so a value the API accepts is one the engine can
//! deliver: a `202` never ends `dead_lettered` for its attributes.
//!
//! - [`text`]: a String attribute is non-empty and has no control character
//!   (C0, DEL, C1).
//! - [`subject`]: [`text`], at most [`MAX_SUBJECT_LEN`] bytes.
//! - [`source`]: [`text`], at most [`MAX_SOURCE_LEN`] bytes, an RFC 3986
//!   URI-reference ([`crate::uri`]).
//! - [`dataschema`]: [`text`], an absolute URI.
//! - [`event_time`]: the `time` a publish may give.
//! - [`delivered_len_bound`]: the largest body an event can be delivered as,
//!   whatever its consumer's source and sequence number.

use serde_json::value::RawValue;

use crate::envelope::{Envelope, EnvelopeError};
use crate::time::Timestamp;
use crate::uri;

/// The longest consumer `source`, in bytes.
pub const MAX_SOURCE_LEN: usize = 512;
/// The longest `subject`, in bytes.
pub const MAX_SUBJECT_LEN: usize = 1024;
/// How far ahead of Relay's clock a published `time` may be: clock skew
/// between the publisher and Relay, not events from the future.
pub const MAX_TIME_AHEAD_MILLIS: i64 = 5 * 60 * 1000;
/// The earliest published `time`: 1970-01-01T00:00:00Z.
pub const MIN_EVENT_TIME: Timestamp = Timestamp(0);

/// A CloudEvents String: non-empty, without control characters.
pub fn text(attribute: &'static str, value: &str) -> Result<(), EnvelopeError> {
    if value.is_empty() {
        return Err(EnvelopeError::Empty { attribute });
    }
    if value
        .chars()
        .any(|c| matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'))
    {
        return Err(EnvelopeError::ControlCharacter { attribute });
    }
    Ok(())
}

/// The `subject` attribute.
pub fn subject(value: &str) -> Result<(), EnvelopeError> {
    text("subject", value)?;
    if value.len() > MAX_SUBJECT_LEN {
        return Err(EnvelopeError::TooLong {
            attribute: "subject",
            max: MAX_SUBJECT_LEN,
        });
    }
    Ok(())
}

/// The `source` attribute: a consumer's source.
pub fn source(value: &str) -> Result<(), EnvelopeError> {
    text("source", value)?;
    if value.len() > MAX_SOURCE_LEN {
        return Err(EnvelopeError::TooLong {
            attribute: "source",
            max: MAX_SOURCE_LEN,
        });
    }
    if !uri::is_uri_reference(value) {
        return Err(EnvelopeError::NotUriReference {
            attribute: "source",
        });
    }
    Ok(())
}

/// The source a consumer gets when it is created without one.
pub fn default_source(external_id: &str) -> String {
    format!("/consumers/{external_id}")
}

/// The `dataschema` attribute.
pub fn dataschema(value: &str) -> Result<(), EnvelopeError> {
    text("dataschema", value)?;
    if !uri::is_absolute_uri(value) {
        return Err(EnvelopeError::NotAbsoluteUri {
            attribute: "dataschema",
        });
    }
    Ok(())
}

/// The `dataschema` of an event type's version.
pub fn dataschema_uri(event_type: &str, version: i64) -> String {
    format!("urn:relay:event-type:{event_type}:v{version}")
}

/// A published `time` (when the event happened): from [`MIN_EVENT_TIME`] to
/// [`MAX_TIME_AHEAD_MILLIS`] after `now`. Err is a sentence for the client.
pub fn event_time(time: Timestamp, now: Timestamp) -> Result<(), String> {
    if time < MIN_EVENT_TIME {
        return Err("must not be before 1970-01-01T00:00:00Z".into());
    }
    if time > now.plus_millis(MAX_TIME_AHEAD_MILLIS) {
        return Err(format!(
            "must not be more than {} minutes after Relay's clock ({})",
            MAX_TIME_AHEAD_MILLIS / 60_000,
            now.to_rfc3339()
        ));
    }
    Ok(())
}

/// An upper bound of the length of `e`'s delivered body, in bytes, for any
/// consumer and sequence number: `e.source` and `e.seq` are ignored and the
/// longest of each is counted ([`MAX_SOURCE_LEN`], `i64::MIN` written as a
/// String), and so is the longest endpoint version an attempt may add.
/// Every other attribute counts as given (an endpoint's shape of `data` is
/// never longer than `data`: `relay_core::shape::project`). The bound is sound because
/// [`source`] refuses longer sources, in the API and in the envelope alike.
///
/// The payload is not copied: the body is built around a one-byte stand-in
/// and the payload's length added.
pub fn delivered_len_bound(e: &Envelope<'_>) -> Result<usize, EnvelopeError> {
    let longest_source = "s".repeat(MAX_SOURCE_LEN);
    let stand_in = RawValue::from_string("0".to_string()).map_err(|_| EnvelopeError::Encoding)?;
    let shell = Envelope {
        source: &longest_source,
        seq: Some(i64::MIN),
        endpoint_version: Some(i64::MIN),
        data: e.data.map(|_| &*stand_in),
        ..*e
    };
    let shell_len = shell.to_json()?.len();
    Ok(match e.data {
        Some(d) => shell_len - 1 + d.get().len(),
        None => shell_len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Environment;

    const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn text_attributes() {
        let cases: &[(&str, Option<&str>)] = &[
            ("order_123", None),
            ("a/b\u{2028}c", None),
            ("tést ünïcode with spaces", None),
            ("", Some("envelope_empty_attribute")),
            ("a\nb", Some("envelope_control_character")),
            ("a\tb", Some("envelope_control_character")),
            ("a\rb", Some("envelope_control_character")),
            ("nul\u{0}", Some("envelope_control_character")),
            ("del\u{7f}", Some("envelope_control_character")),
            ("c1\u{85}", Some("envelope_control_character")),
            ("c1\u{9f}", Some("envelope_control_character")),
            ("after c1 \u{a0}", None),
        ];
        for (value, code) in cases {
            assert_eq!(
                text("subject", value).err().map(|e| e.code()),
                *code,
                "{value:?}"
            );
            assert_eq!(subject(value).err().map(|e| e.code()), *code, "{value:?}");
        }
        assert!(subject(&"x".repeat(MAX_SUBJECT_LEN)).is_ok());
        assert_eq!(
            subject(&"x".repeat(MAX_SUBJECT_LEN + 1)).map_err(|e| e.code()),
            Err("envelope_too_long")
        );
        // Bytes, not characters.
        assert!(subject(&"é".repeat(MAX_SUBJECT_LEN / 2 + 1)).is_err());
    }

    #[test]
    fn sources() {
        let cases: &[(&str, Option<&str>)] = &[
            ("https://acme.example/orders", None),
            ("/consumers/acme", None),
            ("/consumers/a:b@c.d_e-f", None),
            ("urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66", None),
            ("", Some("envelope_empty_attribute")),
            ("a\u{0}", Some("envelope_control_character")),
            ("/a\nb", Some("envelope_control_character")),
            ("a b", Some("envelope_not_uri_reference")),
            ("/consumers/a|b", Some("envelope_not_uri_reference")),
            ("tenant/ü", Some("envelope_not_uri_reference")),
            ("/a\"b", Some("envelope_not_uri_reference")),
            ("a#b#c", Some("envelope_not_uri_reference")),
            ("bad%zz", Some("envelope_not_uri_reference")),
        ];
        for (value, code) in cases {
            assert_eq!(source(value).err().map(|e| e.code()), *code, "{value:?}");
        }
        assert!(source(&format!("/{}", "x".repeat(MAX_SOURCE_LEN - 1))).is_ok());
        assert_eq!(
            source(&format!("/{}", "x".repeat(MAX_SOURCE_LEN))).map_err(|e| e.code()),
            Err("envelope_too_long")
        );
    }

    #[test]
    fn default_sources_follow_the_rule_for_ids_without_a_bar() {
        assert_eq!(default_source("acme"), "/consumers/acme");
        // Every character an external id may have but `|` keeps the default
        // source a URI reference (`validate::client_id`).
        assert!(source(&default_source("A-z_0.9:/@x")).is_ok());
        assert!(source(&default_source("a|b")).is_err());
    }

    #[test]
    fn dataschemas() {
        assert!(dataschema(&dataschema_uri("order.shipped", 3)).is_ok());
        assert_eq!(
            dataschema_uri("order.shipped", 3),
            "urn:relay:event-type:order.shipped:v3"
        );
        for (value, code) in [
            ("", "envelope_empty_attribute"),
            ("/relative", "envelope_not_absolute_uri"),
            ("https://x/a b", "envelope_not_absolute_uri"),
        ] {
            assert_eq!(
                dataschema(value).map_err(|e| e.code()),
                Err(code),
                "{value}"
            );
        }
    }

    #[test]
    fn event_times() {
        let now = Timestamp(1_800_000_000_000);
        let cases: &[(Timestamp, bool)] = &[
            (now, true),
            (Timestamp(0), true),
            (Timestamp(-1), false),
            (Timestamp(i64::MIN), false),
            (now.plus_millis(MAX_TIME_AHEAD_MILLIS), true),
            (now.plus_millis(MAX_TIME_AHEAD_MILLIS + 1), false),
            (Timestamp(i64::MAX), false),
            (now.plus_millis(-10 * 365 * 86_400_000), true),
        ];
        for (t, ok) in cases {
            assert_eq!(event_time(*t, now).is_ok(), *ok, "{t:?}");
        }
    }

    fn raw(s: &str) -> Box<RawValue> {
        match RawValue::from_string(s.to_string()) {
            Ok(r) => r,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    fn envelope<'a>(data: Option<&'a RawValue>, subject: Option<&'a str>) -> Envelope<'a> {
        Envelope {
            id: "evt_01JC8ZQ4Z8Y3V6X7W5T2R1P0NM",
            source: "/ignored",
            event_type: "order.shipped",
            time: Some(Timestamp(1_764_478_376_123)),
            subject,
            dataschema: Some("urn:relay:event-type:order.shipped:v3"),
            data,
            seq: None,
            traceparent: Some(TP),
            environment: Some(Environment::Live),
            endpoint_version: None,
        }
    }

    #[test]
    fn the_bound_covers_every_source_and_seq_and_is_reached() {
        let data = raw(r#"{"k":"v","n":[1,2,3]}"#);
        let longest = format!("/{}", "x".repeat(MAX_SOURCE_LEN - 1));
        for (data, subject) in [
            (Some(&*data), Some("order/1")),
            (Some(&*data), None),
            (None, Some("a\u{2028}b \"quoted\" \\")),
            (None, None),
        ] {
            let e = envelope(data, subject);
            let bound = delivered_len_bound(&e).map_err(|e| e.code());
            let Ok(bound) = bound else {
                panic!("{bound:?}")
            };
            for source in ["/c", "/consumers/acme", "urn:x:y", longest.as_str()] {
                for seq in [
                    None,
                    Some(1),
                    Some(-1),
                    Some(i64::from(i32::MAX) + 1),
                    Some(i64::MAX),
                    Some(i64::MIN),
                ] {
                    for endpoint_version in [None, Some(1), Some(i64::MAX), Some(i64::MIN)] {
                        let actual = Envelope {
                            source,
                            seq,
                            endpoint_version,
                            ..e
                        };
                        let len = actual.to_json().map(|b| b.len());
                        assert!(
                            len.as_ref().is_ok_and(|l| *l <= bound),
                            "{len:?} > {bound} for {source} {seq:?} {endpoint_version:?}"
                        );
                    }
                }
            }
            // Reached with the longest source, sequence number and endpoint version.
            let worst = Envelope {
                source: &longest,
                seq: Some(i64::MIN),
                endpoint_version: Some(i64::MIN),
                ..e
            };
            assert_eq!(worst.to_json().map(|b| b.len()).ok(), Some(bound));
        }
    }

    #[test]
    fn the_bound_refuses_what_the_envelope_refuses() {
        let e = envelope(None, Some("a\nb"));
        assert_eq!(
            delivered_len_bound(&e).map_err(|e| e.code()),
            Err("envelope_control_character")
        );
    }

    proptest::proptest! {
        #[test]
        fn the_bound_holds_for_any_payload_and_source(
            payload in "[ -~é\u{2028}]{0,200}",
            source in "/[a-z0-9:@._~-]{0,511}",
            seq in proptest::option::of(proptest::num::i64::ANY),
        ) {
            let Ok(json) = serde_json::to_string(&payload) else { return Ok(()) };
            let data = raw(&json);
            let e = envelope(Some(&data), Some("s"));
            let bound = delivered_len_bound(&e).unwrap_or(0);
            let actual = Envelope { source: &source, seq, endpoint_version: seq, ..e };
            let len = actual.to_json().map(|b| b.len()).unwrap_or(usize::MAX);
            proptest::prop_assert!(len <= bound, "{} > {}", len, bound);
        }
    }
}
