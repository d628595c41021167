//! The delivery window: whether a waiting message's remaining attempts can
//! still be made in time, given how long its endpoint makes it wait.
//!
//! A message's **window** runs from its creation to the earlier of
//!
//! - the end of its schedule's span: `created_at` + the longest its
//!   schedule's waits can take with jitter
//!   ([`crate::retry::RetrySchedule::max_window_seconds`], the figure the
//!   operator's `max_total_window_seconds` bounds; consumers keep a
//!   `webhook-id` for that long), and
//! - its event's time-to-live (`expires_at`), past which it is `expired`.
//!
//! An attempt is made only at a time before the window's end.
//!
//! The attempts still to make are the next one, due at `next_attempt_at`,
//! and those after it, each the schedule's wait (jitter included) after the
//! one before. When a rate-limited or backlogged endpoint makes the message
//! wait, its next attempt can start only when the endpoint can take it
//! (`endpoint_ready_at`: after the tokens its rate limit gives the messages
//! ahead of it), and every later attempt moves with it.
//!
//! **Rule.** The message *fits* when at least one of its remaining attempts
//! can start before the window's end; it is told how many can. When none
//! can, but one could if the endpoint did not make it wait, the endpoint's
//! rate limit or backlog has pushed all of them out of the window: the
//! message ends `window_exceeded` now, without an attempt, instead of
//! holding its place (and a token) in the backlog only to be attempted too
//! late or to expire. When none could even without that wait, the rule
//! does not decide ([`Fit::Outside`]): the TTL ends the message `expired`,
//! and a window that passed while the message was held (paused, disabled,
//! circuit open) does not count against it.

use crate::time::Timestamp;

/// What the window rule is told about one waiting message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowFacts<'a> {
    pub now: Timestamp,
    pub created_at: Timestamp,
    /// The longest its schedule's waits take with jitter, in milliseconds.
    pub schedule_span_millis: i64,
    /// The event's time-to-live end, if it has one.
    pub expires_at: Option<Timestamp>,
    /// When the schedule has the next attempt due.
    pub next_attempt_at: Timestamp,
    /// The waits (milliseconds, jitter included) before each attempt after
    /// the next one, in order: one fewer than the attempts remaining.
    pub later_waits_millis: &'a [i64],
    /// When the endpoint can next take this message, given its rate limit
    /// and the messages ahead of it (`now` when nothing holds it back).
    pub endpoint_ready_at: Timestamp,
}

/// The rule's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// This many of the remaining attempts can start before the window ends
    /// (at least one).
    Fits { attempts: u32 },
    /// None can, because the endpoint makes it wait (without that wait at
    /// least one could): the message ends `window_exceeded`.
    WindowExceeded,
    /// None can even without the endpoint's wait: its own schedule or its
    /// time-to-live ends it (`expired`, `exhausted`), not this rule. So is a
    /// message whose window passed while it was held (time held does not
    /// count against it).
    Outside,
}

/// The end of the message's window: the earlier of its schedule's span and
/// its event's time-to-live.
pub fn window_end(
    created_at: Timestamp,
    schedule_span_millis: i64,
    expires_at: Option<Timestamp>,
) -> Timestamp {
    let span_end = created_at.plus_millis(schedule_span_millis.max(0));
    match expires_at {
        Some(ttl) => span_end.min(ttl),
        None => span_end,
    }
}

/// Applies the rule (module documentation) to `facts`.
pub fn fit(facts: &WindowFacts<'_>) -> Fit {
    let end = window_end(
        facts.created_at,
        facts.schedule_span_millis,
        facts.expires_at,
    );
    let due = facts.now.max(facts.next_attempt_at);
    let attempts = attempts_before(
        end,
        due.max(facts.endpoint_ready_at),
        facts.later_waits_millis,
    );
    if attempts > 0 {
        Fit::Fits { attempts }
    } else if attempts_before(end, due, facts.later_waits_millis) > 0 {
        Fit::WindowExceeded
    } else {
        Fit::Outside
    }
}

/// How many attempts, the first at `first` and each later one its wait
/// after the one before, start before `end`.
fn attempts_before(end: Timestamp, first: Timestamp, later_waits_millis: &[i64]) -> u32 {
    let mut at = first;
    let mut attempts = 0u32;
    for wait in std::iter::once(&0i64).chain(later_waits_millis) {
        at = at.plus_millis((*wait).max(0));
        if at >= end {
            break;
        }
        attempts += 1;
    }
    attempts
}

/// When a rate-limited endpoint can take the message with `ahead` messages
/// before it in its backlog: its bucket holds `tokens` (fractional) at `now`
/// and refills at `rate_per_second`; each message ahead takes one token, and
/// so does this one. `now` when a token is there for it.
pub fn rate_limited_ready_at(
    now: Timestamp,
    rate_per_second: u32,
    tokens: f64,
    ahead: u64,
) -> Timestamp {
    if rate_per_second == 0 {
        return now;
    }
    let needed = ahead as f64 + 1.0 - tokens.max(0.0);
    if needed <= 0.0 {
        return now;
    }
    let millis = (needed * 1000.0 / f64::from(rate_per_second)).ceil();
    now.plus_millis(millis.min(i64::MAX as f64 / 2.0) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Timestamp = Timestamp(1_800_000_000_000);

    fn at(seconds: i64) -> Timestamp {
        NOW.plus_seconds(seconds)
    }

    #[test]
    fn the_window_ends_at_the_earlier_of_the_span_and_the_ttl() {
        let created = at(-100);
        assert_eq!(window_end(created, 1_000_000, None), at(900));
        assert_eq!(window_end(created, 1_000_000, Some(at(50))), at(50));
        assert_eq!(window_end(created, 60_000, Some(at(50))), at(-40));
        assert_eq!(window_end(created, -5, None), created, "no negative span");
    }

    #[test]
    fn the_rule_table() {
        // (case, created, span s, ttl, next due, later waits s, endpoint ready) → fit
        type Row = (
            &'static str,
            i64,
            i64,
            Option<i64>,
            i64,
            &'static [i64],
            i64,
            Fit,
        );
        let fits = |attempts| Fit::Fits { attempts };
        let rows: &[Row] = &[
            (
                "nothing holds it back",
                0,
                3_600,
                None,
                0,
                &[5, 300],
                0,
                fits(3),
            ),
            (
                "a short wait for the endpoint",
                0,
                3_600,
                None,
                0,
                &[5, 300],
                10,
                fits(3),
            ),
            (
                "the last retry is pushed out",
                0,
                400,
                None,
                0,
                &[5, 300],
                100,
                fits(2),
            ),
            (
                "only the next attempt still fits",
                0,
                400,
                None,
                0,
                &[300],
                200,
                fits(1),
            ),
            (
                "the endpoint takes it after the span",
                0,
                400,
                None,
                0,
                &[300],
                400,
                Fit::WindowExceeded,
            ),
            (
                "long after the span",
                0,
                400,
                None,
                0,
                &[],
                10_000,
                Fit::WindowExceeded,
            ),
            (
                "the ttl ends first",
                0,
                3_600,
                Some(30),
                0,
                &[5, 300],
                29,
                fits(1),
            ),
            (
                "ready exactly at the ttl",
                0,
                3_600,
                Some(30),
                0,
                &[5, 300],
                30,
                Fit::WindowExceeded,
            ),
            (
                "ready past the ttl",
                0,
                3_600,
                Some(30),
                0,
                &[5, 300],
                31,
                Fit::WindowExceeded,
            ),
            (
                "due later than the endpoint is ready",
                0,
                3_600,
                Some(30),
                20,
                &[],
                5,
                fits(1),
            ),
            (
                "its own next retry is past the ttl",
                0,
                3_600,
                Some(30),
                40,
                &[],
                0,
                Fit::Outside,
            ),
            (
                "its own next retry is past the ttl, and it waits",
                0,
                3_600,
                Some(30),
                40,
                &[],
                50,
                Fit::Outside,
            ),
            (
                "an old message near its span's end",
                -3_590,
                3_600,
                None,
                0,
                &[5],
                5,
                fits(1),
            ),
            (
                "an old message past its span's end",
                -3_590,
                3_600,
                None,
                0,
                &[5],
                10,
                Fit::WindowExceeded,
            ),
            (
                "the last attempt, in time",
                0,
                3_600,
                None,
                0,
                &[],
                3_599,
                fits(1),
            ),
            (
                "held past its span (time held does not count)",
                -3_700,
                3_600,
                None,
                0,
                &[5],
                60,
                Fit::Outside,
            ),
        ];
        for (case, created, span, ttl, due, later, ready, expected) in rows {
            let later_millis: Vec<i64> = later.iter().map(|s| s * 1000).collect();
            let facts = WindowFacts {
                now: NOW,
                created_at: at(*created),
                schedule_span_millis: span * 1000,
                expires_at: ttl.map(at),
                next_attempt_at: at(*due),
                later_waits_millis: &later_millis,
                endpoint_ready_at: at(*ready),
            };
            assert_eq!(fit(&facts), *expected, "{case}");
        }
    }

    #[test]
    fn a_rate_limit_makes_each_message_wait_for_the_tokens_of_those_ahead() {
        // 2 per second, bucket empty: the 1st waits 0.5 s, the 4th 2 s.
        assert_eq!(rate_limited_ready_at(NOW, 2, 0.0, 0), NOW.plus_millis(500));
        assert_eq!(
            rate_limited_ready_at(NOW, 2, 0.0, 3),
            NOW.plus_millis(2_000)
        );
        // Half a token there: the first needs another half.
        assert_eq!(rate_limited_ready_at(NOW, 2, 0.5, 0), NOW.plus_millis(250));
        // Tokens for it and the one ahead: at once.
        assert_eq!(rate_limited_ready_at(NOW, 2, 2.0, 1), NOW);
        assert_eq!(rate_limited_ready_at(NOW, 0, 0.0, 99), NOW, "no limit");
        assert_eq!(rate_limited_ready_at(NOW, 1, 0.0, 9), at(10));
    }
}
