//! W3C Trace Context `traceparent` values (version 00).
//!
//! Format: `00-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>`, lowercase
//! hex only. The trace id and the parent id must not be all zeros. Relay
//! re-emits the value in the CloudEvents `traceparent` extension, so it
//! accepts only what a producer may send: version `00` exactly (`ff` is
//! forbidden by the spec; future versions are refused rather than rewritten),
//! with nothing after the flags.

use std::fmt;

/// A parsed, valid version-00 `traceparent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceParent {
    pub trace_id: [u8; 16],
    pub parent_id: [u8; 8],
    pub flags: u8,
}

/// Why a `traceparent` value was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TraceparentError {
    #[error("a traceparent has 55 characters")]
    WrongLength,
    #[error("a traceparent is four fields separated by `-`")]
    Malformed,
    #[error("only version 00 is accepted")]
    UnsupportedVersion,
    #[error("fields must be lowercase hexadecimal")]
    NotLowercaseHex,
    #[error("the trace id must not be all zeros")]
    ZeroTraceId,
    #[error("the parent id must not be all zeros")]
    ZeroParentId,
}

impl TraceparentError {
    pub const fn code(&self) -> &'static str {
        match self {
            TraceparentError::WrongLength => "traceparent_wrong_length",
            TraceparentError::Malformed => "traceparent_malformed",
            TraceparentError::UnsupportedVersion => "traceparent_unsupported_version",
            TraceparentError::NotLowercaseHex => "traceparent_not_lowercase_hex",
            TraceparentError::ZeroTraceId => "traceparent_zero_trace_id",
            TraceparentError::ZeroParentId => "traceparent_zero_parent_id",
        }
    }
}

/// The flag bit that marks a trace as sampled.
pub const FLAG_SAMPLED: u8 = 0x01;

impl TraceParent {
    /// Parses and validates a version-00 value.
    pub fn parse(s: &str) -> Result<Self, TraceparentError> {
        let bytes = s.as_bytes();
        if bytes.len() != 55 {
            return Err(TraceparentError::WrongLength);
        }
        if bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
            return Err(TraceparentError::Malformed);
        }
        let version: [u8; 1] = decode_hex(&bytes[0..2])?;
        if version != [0] {
            return Err(TraceparentError::UnsupportedVersion);
        }
        let trace_id: [u8; 16] = decode_hex(&bytes[3..35])?;
        let parent_id: [u8; 8] = decode_hex(&bytes[36..52])?;
        let [flags]: [u8; 1] = decode_hex(&bytes[53..55])?;
        if trace_id == [0; 16] {
            return Err(TraceparentError::ZeroTraceId);
        }
        if parent_id == [0; 8] {
            return Err(TraceparentError::ZeroParentId);
        }
        Ok(TraceParent {
            trace_id,
            parent_id,
            flags,
        })
    }

    /// A new trace from 24 caller-provided random bytes: the first 16 are the
    /// trace id, the last 8 the parent id; flags `01` (sampled). An all-zero
    /// id (which random bytes give with probability 2⁻⁶⁴ or less) has its last
    /// byte set to 1 so the value is always valid.
    pub fn generate(random: [u8; 24]) -> Self {
        let mut trace_id = [0u8; 16];
        let mut parent_id = [0u8; 8];
        trace_id.copy_from_slice(&random[..16]);
        parent_id.copy_from_slice(&random[16..]);
        if trace_id == [0; 16] {
            trace_id[15] = 1;
        }
        if parent_id == [0; 8] {
            parent_id[7] = 1;
        }
        TraceParent {
            trace_id,
            parent_id,
            flags: FLAG_SAMPLED,
        }
    }

    /// The same trace and flags with `span_id` as the parent: what a span
    /// of this trace passes on to its children.
    pub const fn child(&self, span_id: [u8; 8]) -> Self {
        TraceParent {
            trace_id: self.trace_id,
            parent_id: span_id,
            flags: self.flags,
        }
    }

    pub const fn sampled(&self) -> bool {
        self.flags & FLAG_SAMPLED != 0
    }

    /// The header value's 55 bytes, `00-<trace-id>-<parent-id>-<flags>`,
    /// written without the formatting machinery (every publish makes one).
    fn encode(&self) -> [u8; 55] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [b'-'; 55];
        out[..2].copy_from_slice(b"00");
        let hex = |out: &mut [u8], bytes: &[u8]| {
            for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
                pair[0] = HEX[usize::from(b >> 4)];
                pair[1] = HEX[usize::from(b & 0x0f)];
            }
        };
        hex(&mut out[3..35], &self.trace_id);
        hex(&mut out[36..52], &self.parent_id);
        hex(&mut out[53..55], &[self.flags]);
        out
    }
}

impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let encoded = self.encode();
        // Only ASCII hex digits and dashes were written.
        f.write_str(std::str::from_utf8(&encoded).map_err(|_| fmt::Error)?)
    }
}

/// True when `s` is a valid version-00 `traceparent`.
pub fn is_valid(s: &str) -> bool {
    TraceParent::parse(s).is_ok()
}

/// A new `traceparent` string from 24 random bytes; see [`TraceParent::generate`].
pub fn generate(random: [u8; 24]) -> String {
    TraceParent::generate(random).to_string()
}

/// The span id of Relay's publish span of an event (OpenTelemetry,
/// `docs/telemetry.md`): derived from what identifies the event and its
/// trace, so the dispatcher finds it again from the stored event alone. An
/// event published without a `traceparent` stores this id as its parent
/// (the publish span is the trace's root); one that carried the
/// publisher's keeps it, and its publish span is the publisher's child.
pub fn publish_span_id(
    tenant_id: &str,
    environment: &str,
    event_id: &str,
    trace_id: &[u8; 16],
) -> [u8; 8] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [
        b"relay publish span".as_slice(),
        tenant_id.as_bytes(),
        environment.as_bytes(),
        event_id.as_bytes(),
        trace_id,
    ] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part);
    }
    let digest = h.finalize();
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    if id == [0; 8] {
        id[7] = 1;
    }
    id
}

fn nibble(c: u8) -> Result<u8, TraceparentError> {
    match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        _ => Err(TraceparentError::NotLowercaseHex),
    }
}

fn decode_hex<const N: usize>(hex: &[u8]) -> Result<[u8; N], TraceparentError> {
    let mut out = [0u8; N];
    if hex.len() != 2 * N {
        return Err(TraceparentError::Malformed);
    }
    for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_span_ids_are_derived_per_event_and_trace() {
        let trace = [7u8; 16];
        let a = publish_span_id("ten_1", "live", "evt_1", &trace);
        assert_eq!(a, publish_span_id("ten_1", "live", "evt_1", &trace));
        assert_ne!(a, publish_span_id("ten_2", "live", "evt_1", &trace));
        assert_ne!(a, publish_span_id("ten_1", "test", "evt_1", &trace));
        assert_ne!(a, publish_span_id("ten_1", "live", "evt_2", &trace));
        assert_ne!(a, publish_span_id("ten_1", "live", "evt_1", &[8u8; 16]));
        // Parts are length-prefixed: moving a byte between them changes the id.
        assert_ne!(
            publish_span_id("ab", "c", "e", &trace),
            publish_span_id("a", "bc", "e", &trace)
        );
        assert_ne!(a, [0; 8]);
        let tp =
            TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(
            tp.child([1, 2, 3, 4, 5, 6, 7, 8]).to_string(),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0102030405060708-01"
        );
    }

    #[test]
    fn parse_table() {
        use TraceparentError as E;
        let cases: &[(&str, Result<(), TraceparentError>)] = &[
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                Ok(()),
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
                Ok(()),
            ),
            (
                "00-12345678901234567890123456789012-1234567890123456-01",
                Ok(()),
            ),
            (
                "00-12345678901234567890123456789012-1234567890123456-ff",
                Ok(()),
            ),
            (
                "00-00000000000000000000000000000001-0000000000000001-00",
                Ok(()),
            ),
            (
                "00-00000000000000000000000000000000-1234567890123456-01",
                Err(E::ZeroTraceId),
            ),
            (
                "00-12345678901234567890123456789012-0000000000000000-01",
                Err(E::ZeroParentId),
            ),
            (
                "ff-12345678901234567890123456789012-1234567890123456-01",
                Err(E::UnsupportedVersion),
            ),
            (
                "01-12345678901234567890123456789012-1234567890123456-01",
                Err(E::UnsupportedVersion),
            ),
            (
                "cc-12345678901234567890123456789012-1234567890123456-01",
                Err(E::UnsupportedVersion),
            ),
            (
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
                Err(E::NotLowercaseHex),
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A",
                Err(E::NotLowercaseHex),
            ),
            (
                "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                Err(E::NotLowercaseHex),
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
                Err(E::NotLowercaseHex),
            ),
            (
                "00-12345678901234567890123456789012-1234567890123456-01.",
                Err(E::WrongLength),
            ),
            (
                "00-123456789012345678901234567890123-1234567890123456-01",
                Err(E::WrongLength),
            ),
            (
                "00-12345678901234567890123456789012-123456789012345-01",
                Err(E::WrongLength),
            ),
            (
                "00-12345678901234567890123456789012-1234567890123456-001",
                Err(E::WrongLength),
            ),
            (
                "cc-12345678901234567890123456789012-1234567890123456-01-what-the-future-will-be-like",
                Err(E::WrongLength),
            ),
            (
                "00_12345678901234567890123456789012-1234567890123456-01",
                Err(E::Malformed),
            ),
            (
                "00-12345678901234567890123456789012_1234567890123456-01",
                Err(E::Malformed),
            ),
            (
                "00-1234567890123456789012345678901-21234567890123456-01",
                Err(E::Malformed),
            ),
            (
                " 00-12345678901234567890123456789012-1234567890123456-0",
                Err(E::Malformed),
            ),
            ("", Err(E::WrongLength)),
            // 55 bytes but with a multi-byte character: refused, no panic.
            (
                "00-123456789012345678901234567890é-1234567890123456-01",
                Err(E::NotLowercaseHex),
            ),
            (
                "00-1234567890123456789012345678901é-123456789012345-01",
                Err(E::Malformed),
            ),
            (
                "é0-12345678901234567890123456789012-123456789012345-01",
                Err(E::Malformed),
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(
                TraceParent::parse(value).map(|_| ()),
                *expected,
                "{value:?}"
            );
            assert_eq!(is_valid(value), expected.is_ok());
        }
    }

    #[test]
    fn parse_then_display_round_trips() {
        let s = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let tp = TraceParent::parse(s);
        assert_eq!(tp.map(|t| t.to_string()).as_deref(), Ok(s));
        assert_eq!(tp.map(|t| t.sampled()), Ok(true));
        assert_eq!(
            tp.map(|t| t.parent_id),
            Ok([0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7])
        );
    }

    #[test]
    fn generated_values_are_valid() {
        let mut random = [0u8; 24];
        for (i, b) in random.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37).wrapping_add(11);
        }
        let cases = [
            (random, None),
            (
                [0; 24],
                Some("00-00000000000000000000000000000001-0000000000000001-01"),
            ),
            (
                [0xff; 24],
                Some("00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01"),
            ),
        ];
        for (bytes, expected) in cases {
            let s = generate(bytes);
            assert!(is_valid(&s), "{s}");
            assert_eq!(s.len(), 55);
            if let Some(e) = expected {
                assert_eq!(s, e);
            }
            assert_eq!(TraceParent::parse(&s), Ok(TraceParent::generate(bytes)));
        }
        assert_eq!(&generate(random)[3..9], "0b3055");
    }

    #[test]
    fn error_codes_are_stable() {
        assert_eq!(
            TraceParent::parse("x").map_err(|e| e.code()),
            Err("traceparent_wrong_length")
        );
    }

    proptest::proptest! {
        #[test]
        fn any_input_parses_without_panicking(s in "\\PC{0,80}") {
            let parsed = TraceParent::parse(&s);
            if let Ok(tp) = parsed {
                proptest::prop_assert_eq!(tp.to_string(), s);
            }
        }

        #[test]
        fn any_random_bytes_generate_a_valid_value(bytes in proptest::array::uniform24(proptest::num::u8::ANY)) {
            proptest::prop_assert!(is_valid(&generate(bytes)));
        }
    }
}
