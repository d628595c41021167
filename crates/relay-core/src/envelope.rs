//! The CloudEvents 1.0 structured-mode JSON body of a delivery.
//!
//! [`Envelope::to_json`] writes the bytes directly: attribute strings are
//! escaped by serde_json, and `data` is copied verbatim from the tenant's
//! [`RawValue`], never parsed and re-serialized, so the consumer receives the
//! exact bytes that were published (and signed).
//!
//! Attributes, in this order: `specversion` ("1.0"), `id`, `source`, `type`,
//! `subject`, `time` (RFC 3339, UTC, milliseconds), `datacontenttype`
//! ("application/json", present exactly when `data` is), `dataschema`, and
//! the extensions `seq`, `traceparent`, `environment`, `endpointversion`
//! (the endpoint version that shaped `data`), then `data`. An
//! attribute without a value is omitted, never written as `null`.
//!
//! `seq` is a CloudEvents Integer, which is 32-bit signed; a value outside that
//! range (over two billion events for one subject) is written as a decimal
//! String instead, so the event stays valid.
//!
//! Values are checked against the CloudEvents rules that a malformed input
//! could break (see [`EnvelopeError`]), by the functions of
//! [`crate::attributes`] that the API uses at publish and when a consumer's
//! `source` is set: an error here means a bug or bad stored data, and the
//! engine dead-letters the message rather than send an invalid event.

use std::io::Write as _;

use serde_json::value::RawValue;

use crate::attributes;
use crate::model::{Environment, Event};
use crate::time::Timestamp;
use crate::traceparent;

/// The `content-type` of a structured-mode CloudEvents request.
pub const CONTENT_TYPE: &str = "application/cloudevents+json";
/// The `datacontenttype` of `data`.
pub const DATA_CONTENT_TYPE: &str = "application/json";
/// The CloudEvents version written.
pub const SPEC_VERSION: &str = "1.0";

/// The extension attribute naming the endpoint version that shaped `data`.
pub const ENDPOINT_VERSION: &str = "endpointversion";

/// One event as delivered, borrowing its parts.
#[derive(Debug, Clone, Copy)]
pub struct Envelope<'a> {
    /// The event id (equal to `webhook-id`).
    pub id: &'a str,
    /// The consumer-facing source; never the internal tenant id.
    pub source: &'a str,
    pub event_type: &'a str,
    /// When the event happened.
    pub time: Option<Timestamp>,
    pub subject: Option<&'a str>,
    /// The versioned schema URI (absolute).
    pub dataschema: Option<&'a str>,
    /// The payload, exactly as published.
    pub data: Option<&'a RawValue>,
    /// Monotonic per subject within tenant and environment.
    pub seq: Option<i64>,
    /// A W3C version-00 `traceparent`.
    pub traceparent: Option<&'a str>,
    pub environment: Option<Environment>,
    /// The endpoint version whose settings shaped `data` (the extension
    /// `endpointversion`); absent when `data` is the event's whole data as
    /// published before endpoint versions existed.
    pub endpoint_version: Option<i64>,
}

/// An attribute value that would make the event invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("`{attribute}` must not be empty")]
    Empty { attribute: &'static str },
    #[error("`{attribute}` contains a control character")]
    ControlCharacter { attribute: &'static str },
    #[error("`{attribute}` is not a URI reference")]
    NotUriReference { attribute: &'static str },
    #[error("`{attribute}` is not an absolute URI")]
    NotAbsoluteUri { attribute: &'static str },
    #[error("`{attribute}` is longer than {max} bytes")]
    TooLong { attribute: &'static str, max: usize },
    #[error("`time` is outside the years 0000..=9999")]
    TimeOutOfRange,
    #[error("`traceparent` is not a valid W3C version-00 value")]
    InvalidTraceparent,
    #[error("the envelope could not be encoded")]
    Encoding,
}

impl EnvelopeError {
    /// A stable, machine-readable code.
    pub const fn code(&self) -> &'static str {
        match self {
            EnvelopeError::Empty { .. } => "envelope_empty_attribute",
            EnvelopeError::ControlCharacter { .. } => "envelope_control_character",
            EnvelopeError::NotUriReference { .. } => "envelope_not_uri_reference",
            EnvelopeError::NotAbsoluteUri { .. } => "envelope_not_absolute_uri",
            EnvelopeError::TooLong { .. } => "envelope_too_long",
            EnvelopeError::TimeOutOfRange => "envelope_time_out_of_range",
            EnvelopeError::InvalidTraceparent => "envelope_invalid_traceparent",
            EnvelopeError::Encoding => "envelope_encoding",
        }
    }
}

/// First and last millisecond that RFC 3339 (four-digit years) can show.
const MIN_RFC3339_MILLIS: i64 = -62_167_219_200_000;
const MAX_RFC3339_MILLIS: i64 = 253_402_300_799_999;

impl<'a> Envelope<'a> {
    /// The envelope of a stored event for a consumer whose CloudEvents source
    /// is `source`. `time` is the event's `time` (when it happened).
    pub fn from_event(event: &'a Event, source: &'a str, dataschema: Option<&'a str>) -> Self {
        Envelope {
            id: &event.id,
            source,
            event_type: &event.event_type,
            time: Some(event.time),
            subject: event.subject.as_deref(),
            dataschema,
            data: Some(&event.data),
            seq: event.seq,
            traceparent: Some(event.traceparent.as_str()).filter(|t| !t.is_empty()),
            environment: Some(event.environment),
            endpoint_version: None,
        }
    }

    /// Checks every attribute against the CloudEvents rules.
    pub fn validate(&self) -> Result<(), EnvelopeError> {
        attributes::text("id", self.id)?;
        attributes::source(self.source)?;
        attributes::text("type", self.event_type)?;
        if let Some(subject) = self.subject {
            attributes::subject(subject)?;
        }
        if let Some(schema) = self.dataschema {
            attributes::dataschema(schema)?;
        }
        if let Some(t) = self.time
            && !(MIN_RFC3339_MILLIS..=MAX_RFC3339_MILLIS).contains(&t.millis())
        {
            return Err(EnvelopeError::TimeOutOfRange);
        }
        if let Some(tp) = self.traceparent
            && traceparent::TraceParent::parse(tp).is_err()
        {
            return Err(EnvelopeError::InvalidTraceparent);
        }
        Ok(())
    }

    /// The JSON body bytes. See the module documentation for the layout.
    pub fn to_json(&self) -> Result<Vec<u8>, EnvelopeError> {
        self.validate()?;
        let data_len = self.data.map_or(0, |d| d.get().len());
        let mut out = Vec::with_capacity(data_len + 512);
        out.extend_from_slice(b"{\"specversion\":\"1.0\"");
        string_attr(&mut out, "id", self.id)?;
        string_attr(&mut out, "source", self.source)?;
        string_attr(&mut out, "type", self.event_type)?;
        if let Some(subject) = self.subject {
            string_attr(&mut out, "subject", subject)?;
        }
        if let Some(time) = self.time {
            string_attr(&mut out, "time", &time.to_rfc3339())?;
        }
        if self.data.is_some() {
            string_attr(&mut out, "datacontenttype", DATA_CONTENT_TYPE)?;
        }
        if let Some(schema) = self.dataschema {
            string_attr(&mut out, "dataschema", schema)?;
        }
        if let Some(seq) = self.seq {
            match i32::try_from(seq) {
                Ok(small) => {
                    write!(out, ",\"seq\":{small}").map_err(|_| EnvelopeError::Encoding)?
                }
                Err(_) => string_attr(&mut out, "seq", &seq.to_string())?,
            }
        }
        if let Some(tp) = self.traceparent {
            string_attr(&mut out, "traceparent", tp)?;
        }
        if let Some(env) = self.environment {
            string_attr(&mut out, "environment", env.as_str())?;
        }
        if let Some(v) = self.endpoint_version {
            match i32::try_from(v) {
                Ok(small) => write!(out, ",\"{ENDPOINT_VERSION}\":{small}")
                    .map_err(|_| EnvelopeError::Encoding)?,
                Err(_) => string_attr(&mut out, ENDPOINT_VERSION, &v.to_string())?,
            }
        }
        if let Some(data) = self.data {
            out.extend_from_slice(b",\"data\":");
            out.extend_from_slice(data.get().as_bytes());
        }
        out.push(b'}');
        Ok(out)
    }
    /// The context attributes of binary content mode, in the order of
    /// [`Envelope::to_json`], each as its canonical string (an Integer as
    /// decimal, a Timestamp as RFC 3339): what a binding puts in headers or
    /// properties (`ce-id`, `cloudEvents_id`, …) while `data` is the body.
    /// `datacontenttype` is among them whenever `data` is present; bindings
    /// that carry it as the message's own content type map it there.
    pub fn attributes(&self) -> Result<Vec<(&'static str, String)>, EnvelopeError> {
        self.validate()?;
        let mut out = Vec::with_capacity(11);
        out.push(("specversion", SPEC_VERSION.to_owned()));
        out.push(("id", self.id.to_owned()));
        out.push(("source", self.source.to_owned()));
        out.push(("type", self.event_type.to_owned()));
        if let Some(subject) = self.subject {
            out.push(("subject", subject.to_owned()));
        }
        if let Some(time) = self.time {
            out.push(("time", time.to_rfc3339()));
        }
        if self.data.is_some() {
            out.push(("datacontenttype", DATA_CONTENT_TYPE.to_owned()));
        }
        if let Some(schema) = self.dataschema {
            out.push(("dataschema", schema.to_owned()));
        }
        if let Some(seq) = self.seq {
            out.push(("seq", seq.to_string()));
        }
        if let Some(tp) = self.traceparent {
            out.push(("traceparent", tp.to_owned()));
        }
        if let Some(env) = self.environment {
            out.push(("environment", env.as_str().to_owned()));
        }
        if let Some(v) = self.endpoint_version {
            out.push((ENDPOINT_VERSION, v.to_string()));
        }
        Ok(out)
    }
}

fn string_attr(out: &mut Vec<u8>, name: &str, value: &str) -> Result<(), EnvelopeError> {
    out.push(b',');
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    serde_json::to_writer(&mut *out, value).map_err(|_| EnvelopeError::Encoding)
}

#[cfg(test)]
mod tests;
