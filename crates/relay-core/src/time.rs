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
            .description(Some(
                "A point in time, RFC 3339; Relay writes UTC with milliseconds \
                 (`2026-11-30T04:52:56.123Z`).",
            ))
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

/// A clock read against a reference clock (the database's, see
/// [`Offset::measure`]): the local clock's `now` plus an offset set from
/// outside. Every node that stamps and compares leases with one of these,
/// its offset measured against the same database, agrees on one time base
/// to within the offsets' error bounds, whatever its own clock says.
pub struct OffsetClock {
    inner: std::sync::Arc<dyn Clock>,
    offset: AtomicI64,
}

impl OffsetClock {
    /// `inner` with no offset yet (until [`OffsetClock::set_offset`]).
    pub fn new(inner: std::sync::Arc<dyn Clock>) -> Self {
        OffsetClock {
            inner,
            offset: AtomicI64::new(0),
        }
    }
    /// The local clock this one adds its offset to.
    pub fn local(&self) -> &dyn Clock {
        &*self.inner
    }
    /// Milliseconds added to the local clock.
    pub fn offset_millis(&self) -> i64 {
        self.offset.load(Ordering::SeqCst)
    }
    pub fn set_offset(&self, millis: i64) {
        self.offset.store(millis, Ordering::SeqCst);
    }
}

impl Clock for OffsetClock {
    fn now(&self) -> Timestamp {
        self.inner.now().plus_millis(self.offset_millis())
    }
}

impl std::fmt::Debug for OffsetClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OffsetClock")
            .field("offset_millis", &self.offset_millis())
            .finish()
    }
}

/// How far a reference clock is ahead of a local one, and how sure that is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offset {
    /// Reference minus local, in milliseconds.
    pub millis: i64,
    /// The offset is right to within this many milliseconds either way.
    pub error_millis: i64,
}

impl Offset {
    /// The offset from one reading `reference` of the reference clock taken
    /// between the local readings `t0` (before the request) and `t1` (after
    /// the answer): the reference was read at some local instant in
    /// `[t0, t1]`, so taking the middle is wrong by at most half the round
    /// trip; one more millisecond covers the readings' truncation to whole
    /// milliseconds. `None` when the local clock went back (`t1 < t0`): no
    /// bound can be given.
    pub fn measure(t0: Timestamp, reference: Timestamp, t1: Timestamp) -> Option<Offset> {
        let round_trip = t1.millis().checked_sub(t0.millis())?;
        if round_trip < 0 {
            return None;
        }
        let mid = t0.millis().checked_add(round_trip / 2)?;
        Some(Offset {
            millis: reference.millis().checked_sub(mid)?,
            error_millis: (round_trip + 1) / 2 + 1,
        })
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

    #[test]
    fn an_offset_is_the_reference_minus_the_middle_of_the_round_trip() {
        let at = Timestamp;
        // The reference is 30 s ahead; the round trip took 10 ms.
        let o = Offset::measure(at(1_000), at(31_005), at(1_010)).unwrap();
        assert_eq!(o.millis, 30_000);
        assert_eq!(o.error_millis, 6);
        // And 30 s behind, with an odd round trip: the bound rounds up.
        let o = Offset::measure(at(100_000), at(70_001), at(100_003)).unwrap();
        assert_eq!(o.millis, -30_000);
        assert_eq!(o.error_millis, 3);
        // An instant answer: the readings' truncation is still allowed for.
        let o = Offset::measure(at(5), at(5), at(5)).unwrap();
        assert_eq!((o.millis, o.error_millis), (0, 1));
    }

    #[test]
    fn the_true_offset_lies_within_the_bound_wherever_in_the_round_trip_it_was_read() {
        let at = Timestamp;
        let (t0, t1, true_offset) = (10_000, 10_040, -1_234);
        for read_at in t0..=t1 {
            let o = Offset::measure(at(t0), at(read_at + true_offset), at(t1)).unwrap();
            assert!(
                (o.millis - true_offset).abs() <= o.error_millis,
                "read at {read_at}: {o:?}"
            );
        }
    }

    #[test]
    fn no_offset_is_measured_when_the_local_clock_went_back() {
        let at = Timestamp;
        assert_eq!(Offset::measure(at(2_000), at(9_000), at(1_999)), None);
        assert_eq!(Offset::measure(at(i64::MIN), at(0), at(i64::MAX)), None);
    }

    #[test]
    fn an_offset_clock_follows_its_local_clock_plus_the_offset() {
        let local = std::sync::Arc::new(ManualClock::new(Timestamp(1_000)));
        let c = OffsetClock::new(local.clone());
        assert_eq!(c.now(), Timestamp(1_000));
        c.set_offset(-30_000);
        assert_eq!(c.now(), Timestamp(-29_000));
        local.advance_millis(60_000);
        assert_eq!(c.now(), Timestamp(31_000));
        assert_eq!(c.offset_millis(), -30_000);
        assert_eq!(c.local().now(), Timestamp(61_000));
    }
}
