//! Automatic disabling of an endpoint that keeps failing (reference
//! "Endpoint health"), as a pure rule over a small durable clock.
//!
//! - The failure clock starts only once there have been several failures
//!   within 24 hours with at least 12 hours between the first and the last;
//!   it then counts from that first failure.
//! - One success resets everything.
//! - At 72 hours of continuous failure the tenant is warned (once).
//! - At 5 days the endpoint is disabled (unless the tenant turned automatic
//!   disabling off for it; the caller checks that flag).
//!
//! A `410 Gone` disables at once; that rule lives with the response
//! classification, not here.

use crate::time::Timestamp;

const HOUR: i64 = 3_600_000;
/// The span the first and last failure must cover for the clock to start.
pub const START_SPAN_MILLIS: i64 = 12 * HOUR;
/// …within this window.
pub const WINDOW_MILLIS: i64 = 24 * HOUR;
pub const WARN_AFTER_MILLIS: i64 = 72 * HOUR;
pub const DISABLE_AFTER_MILLIS: i64 = 5 * 24 * HOUR;

/// The durable state: what is stored per endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FailureClock {
    /// The first failure of the window being considered (before the clock starts).
    pub window_first: Option<Timestamp>,
    /// The latest failure.
    pub last_failure: Option<Timestamp>,
    /// When continuous failure began, once the start rule held.
    pub started_at: Option<Timestamp>,
    /// Whether the hour-72 warning was given.
    pub warned: bool,
}

/// What one observation leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observation {
    pub clock: FailureClock,
    /// Warn the tenant now (hour 72).
    pub warn: bool,
    /// Disable the endpoint now (5 days).
    pub disable: bool,
}

impl FailureClock {
    /// A success: the clock is reset.
    pub fn success(self) -> Observation {
        Observation {
            clock: FailureClock::default(),
            warn: false,
            disable: false,
        }
    }

    /// A failed attempt at `now`.
    pub fn failure(self, now: Timestamp) -> Observation {
        let mut c = self;
        if c.started_at.is_none() {
            let first = match c.window_first {
                None => now,
                // The window slid past 24 hours: keep the previous failure
                // when it is recent enough to start a new window, else start here.
                Some(first) if now.millis() - first.millis() > WINDOW_MILLIS => c
                    .last_failure
                    .filter(|p| now.millis() - p.millis() <= WINDOW_MILLIS)
                    .unwrap_or(now),
                Some(first) => first,
            };
            c.window_first = Some(first);
            if now.millis() - first.millis() >= START_SPAN_MILLIS {
                c.started_at = Some(first);
            }
        }
        c.last_failure = Some(now);
        let mut warn = false;
        let mut disable = false;
        if let Some(start) = c.started_at {
            let failing_for = now.millis() - start.millis();
            if failing_for >= WARN_AFTER_MILLIS && !c.warned {
                c.warned = true;
                warn = true;
            }
            disable = failing_for >= DISABLE_AFTER_MILLIS;
        }
        Observation {
            clock: c,
            warn,
            disable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Timestamp = Timestamp(1_800_000_000_000);

    fn at(hours: i64) -> Timestamp {
        T.plus_millis(hours * HOUR)
    }

    /// Failures at the given hours from a fresh clock; the last observation.
    fn walk(hours: &[i64]) -> Observation {
        let mut o = FailureClock::default().success();
        for h in hours {
            o = o.clock.failure(at(*h));
        }
        o
    }

    #[test]
    fn the_clock_starts_only_after_failures_spanning_12_hours_within_24() {
        assert_eq!(
            walk(&[0]).clock.started_at,
            None,
            "one failure is not several"
        );
        assert_eq!(
            walk(&[0, 11]).clock.started_at,
            None,
            "11 h apart is not enough"
        );
        assert_eq!(walk(&[0, 12]).clock.started_at, Some(at(0)));
        assert_eq!(walk(&[0, 6, 12]).clock.started_at, Some(at(0)));
        // 30 h apart: not within 24 h; the window restarts at the later failure.
        assert_eq!(walk(&[0, 30]).clock.started_at, None);
        assert_eq!(walk(&[0, 30, 42]).clock.started_at, Some(at(30)));
        // The window slides to the previous failure when that one is recent.
        assert_eq!(walk(&[0, 10, 30]).clock.started_at, Some(at(10)));
        assert_eq!(walk(&[0, 20]).clock.started_at, Some(at(0)));
    }

    #[test]
    fn warning_at_72_hours_once_and_disabling_at_5_days() {
        let o = walk(&[0, 12, 71]);
        assert!(!o.warn && !o.disable);
        let o = o.clock.failure(at(72));
        assert!(o.warn && !o.disable, "warned at hour 72");
        let o = o.clock.failure(at(100));
        assert!(!o.warn, "warned once");
        assert!(!o.clock.failure(at(119)).disable);
        assert!(o.clock.failure(at(120)).disable, "disabled at 5 days");
    }

    #[test]
    fn one_success_resets_the_clock() {
        let o = walk(&[0, 12, 80]);
        assert!(o.clock.started_at.is_some() && o.clock.warned);
        let reset = o.clock.success();
        assert_eq!(reset.clock, FailureClock::default());
        // Failing again starts from scratch.
        let o = reset.clock.failure(at(81)).clock.failure(at(100));
        assert_eq!(
            o.clock.started_at,
            Some(at(81)),
            "a new clock from the new failures"
        );
        assert!(!o.clock.warned);
        assert!(
            !o.clock.failure(at(200)).disable,
            "119 h since the restart of the clock"
        );
    }
}
