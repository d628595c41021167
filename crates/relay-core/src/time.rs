//! Time as a value.
//!
//! [`Timestamp`] is unix milliseconds; it is stored as an integer and shown on
//! the wire as RFC 3339 in UTC. [`Clock`] is the only way code asks for "now",
//! so tests inject a [`ManualClock`] and walk days of schedule in microseconds.

use std::sync::atomic::{AtomicI64, Ordering};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A point in time: milliseconds since the unix epoch, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub const fn from_millis(ms: i64) -> Self {
        Timestamp(ms)
    }
    pub const fn millis(self) -> i64 {
        self.0
    }
    pub const fn unix_seconds(self) -> i64 {
        self.0.div_euclid(1000)
    }
    pub const fn plus_millis(self, ms: i64) -> Self {
        Timestamp(self.0.saturating_add(ms))
    }
    pub const fn plus_seconds(self, s: i64) -> Self {
        self.plus_millis(s.saturating_mul(1000))
    }

    /// RFC 3339 in UTC with millisecond precision, e.g. `2026-11-30T04:52:56.123Z`.
    pub fn to_rfc3339(self) -> String {
        let nanos = i128::from(self.0) * 1_000_000;
        match OffsetDateTime::from_unix_timestamp_nanos(nanos) {
            Ok(t) => t.format(&Rfc3339).unwrap_or_else(|_| self.0.to_string()),
            Err(_) => self.0.to_string(),
        }
    }

    /// Parses an RFC 3339 timestamp with any offset.
    pub fn parse_rfc3339(s: &str) -> Option<Self> {
        let t = OffsetDateTime::parse(s, &Rfc3339).ok()?;
        let millis = t.unix_timestamp_nanos() / 1_000_000;
        i64::try_from(millis).ok().map(Timestamp)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Timestamp::parse_rfc3339(&s).ok_or_else(|| {
            serde::de::Error::custom("expected an RFC 3339 timestamp such as 2026-01-31T12:00:00Z")
        })
    }
}

impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::DateTime,
            )))
            .into()
    }
}

impl utoipa::ToSchema for Timestamp {}

/// The source of "now". Production uses the system clock; tests use [`ManualClock`].
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// A clock that only moves when told to.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start: Timestamp) -> Self {
        ManualClock(AtomicI64::new(start.0))
    }
    pub fn set(&self, t: Timestamp) {
        self.0.store(t.0, Ordering::SeqCst);
    }
    pub fn advance_millis(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trips_at_millisecond_precision() {
        let t = Timestamp(1_764_478_376_123);
        let s = t.to_rfc3339();
        assert_eq!(s, "2025-11-30T04:52:56.123Z");
        assert_eq!(Timestamp::parse_rfc3339(&s), Some(t));
        assert_eq!(
            Timestamp::parse_rfc3339("2025-11-30T05:52:56.123+01:00"),
            Some(t)
        );
        assert_eq!(Timestamp::parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let c = ManualClock::new(Timestamp(10));
        assert_eq!(c.now(), Timestamp(10));
        c.advance_millis(5);
        assert_eq!(c.now(), Timestamp(15));
    }
}
