//! OTLP/HTTP protobuf encoding of spans: `ExportTraceServiceRequest`
//! (opentelemetry-proto, `collector/trace/v1`), written by hand.
//!
//! Relay exports a handful of span shapes, so the few messages it needs are
//! encoded here field by field rather than with a protobuf code generator
//! and the OpenTelemetry SDK (no new dependency, nothing added to the build).
//! The field numbers are those of `opentelemetry/proto/trace/v1/trace.proto`,
//! `common/v1/common.proto` and `resource/v1/resource.proto`; the test
//! receiver (`crates/relay/tests/otlp/receiver.py`) decodes what this writes
//! with PyPI's `opentelemetry-proto`.

use super::{Attr, SpanData, Status};

/// `Content-Type` of an OTLP/HTTP protobuf request.
pub const CONTENT_TYPE: &str = "application/x-protobuf";

/// What describes the exporting process (`Resource`, `InstrumentationScope`).
#[derive(Debug, Clone)]
pub struct Origin {
    pub service_name: String,
    pub service_version: &'static str,
    /// `service.instance.id`: this process (the dispatcher's owner id).
    pub instance_id: String,
}

/// One `ExportTraceServiceRequest` of `spans`.
pub fn encode(origin: &Origin, spans: &[SpanData]) -> Vec<u8> {
    let mut resource = Vec::new();
    for (k, v) in [
        ("service.name", origin.service_name.as_str()),
        ("service.version", origin.service_version),
        ("service.instance.id", origin.instance_id.as_str()),
    ] {
        message(&mut resource, 1, &key_value(k, &Attr::Str(v.to_string())));
    }
    let mut scope = Vec::new();
    string(&mut scope, 1, "relay");
    string(&mut scope, 2, origin.service_version);
    let mut scope_spans = Vec::new();
    message(&mut scope_spans, 1, &scope);
    for s in spans {
        message(&mut scope_spans, 2, &span(s));
    }
    let mut resource_spans = Vec::new();
    message(&mut resource_spans, 1, &resource);
    message(&mut resource_spans, 2, &scope_spans);
    let mut request = Vec::new();
    message(&mut request, 1, &resource_spans);
    request
}

fn span(s: &SpanData) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    bytes(&mut out, 1, &s.trace_id);
    bytes(&mut out, 2, &s.span_id);
    if let Some(parent) = &s.parent_span_id {
        bytes(&mut out, 4, parent);
    }
    string(&mut out, 5, s.name);
    varint_field(&mut out, 6, s.kind as u64);
    fixed64(&mut out, 7, s.start_unix_nanos);
    fixed64(&mut out, 8, s.end_unix_nanos);
    for (k, v) in &s.attributes {
        message(&mut out, 9, &key_value(k, v));
    }
    for link in &s.links {
        let mut l = Vec::new();
        bytes(&mut l, 1, &link.trace_id);
        bytes(&mut l, 2, &link.span_id);
        for (k, v) in &link.attributes {
            message(&mut l, 4, &key_value(k, v));
        }
        fixed32(&mut l, 6, flags(link.flags));
        message(&mut out, 13, &l);
    }
    let mut status = Vec::new();
    match &s.status {
        Status::Unset => {}
        Status::Ok => varint_field(&mut status, 3, 1),
        Status::Error(m) => {
            string(&mut status, 2, m);
            varint_field(&mut status, 3, 2);
        }
    }
    message(&mut out, 15, &status);
    fixed32(&mut out, 16, flags(s.flags));
    out
}

/// `SpanFlags`: the W3C trace flags in the low byte, and "the parent's
/// remoteness is known" (bit 8), with "remote" (bit 9) never set: Relay
/// exports only the spans it made itself.
fn flags(trace_flags: u8) -> u32 {
    u32::from(trace_flags) | 0x100
}

fn key_value(key: &str, value: &Attr) -> Vec<u8> {
    let mut any = Vec::new();
    match value {
        Attr::Str(s) => string(&mut any, 1, s),
        Attr::Bool(b) => varint_field(&mut any, 2, u64::from(*b)),
        Attr::Int(i) => varint_field(&mut any, 3, *i as u64),
    }
    let mut kv = Vec::new();
    string(&mut kv, 1, key);
    message(&mut kv, 2, &any);
    kv
}

fn tag(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, (u64::from(field) << 3) | u64::from(wire));
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_field(out: &mut Vec<u8>, field: u32, v: u64) {
    tag(out, field, 0);
    varint(out, v);
}

fn fixed64(out: &mut Vec<u8>, field: u32, v: u64) {
    tag(out, field, 1);
    out.extend_from_slice(&v.to_le_bytes());
}

fn fixed32(out: &mut Vec<u8>, field: u32, v: u32) {
    tag(out, field, 5);
    out.extend_from_slice(&v.to_le_bytes());
}

fn bytes(out: &mut Vec<u8>, field: u32, b: &[u8]) {
    tag(out, field, 2);
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn string(out: &mut Vec<u8>, field: u32, s: &str) {
    bytes(out, field, s.as_bytes());
}

fn message(out: &mut Vec<u8>, field: u32, m: &[u8]) {
    bytes(out, field, m);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_fields_are_protobuf_wire_format() {
        let mut out = Vec::new();
        varint(&mut out, 300);
        assert_eq!(out, [0xac, 0x02]);
        // A negative int64 is ten bytes (two's complement).
        let kv = key_value("n", &Attr::Int(-1));
        assert_eq!(
            kv,
            [
                0x0a, 1, b'n', 0x12, 11, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0xff, 0x01
            ]
        );
        let kv = key_value("k", &Attr::Str("v".into()));
        assert_eq!(kv, [0x0a, 1, b'k', 0x12, 3, 0x0a, 1, b'v']);
        let mut out = Vec::new();
        fixed64(&mut out, 7, 1);
        assert_eq!(out, [0x39, 1, 0, 0, 0, 0, 0, 0, 0]);
    }
}
