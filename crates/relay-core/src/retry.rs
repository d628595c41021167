//! The retry schedule: when the next attempt of a message is due.
//!
//! The reference schedule is 10 attempts over roughly 76 hours; the waits
//! before attempts 1..=10 are 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h,
//! 20 h and 24 h. An endpoint may override the waits before attempts 2..=n
//! (`retry_schedule_seconds`) within operator [`ScheduleBounds`]. A schedule
//! is always a finite list, so there is no infinite retry.
//!
//! # Jitter
//!
//! Every wait gets ±20 % jitter that depends only on the message id and the
//! attempt number, so the same message always gets the same waits (a retried
//! computation after a crash lands on the same time) while different messages
//! spread out:
//!
//! ```text
//! digest = SHA-256( utf8(message_id) || be_u32(attempt_number) )
//! r      = be_u64(digest[0..8])
//! ppm    = 800_000 + (r mod 400_001)            // factor in [0.8, 1.2], parts per million
//! wait   = floor(base_wait_seconds * 1000 * ppm / 1_000_000) milliseconds
//! ```
//!
//! A wait of 0 stays 0. The modulo bias is below 2⁻⁴⁴ and irrelevant here.

use sha2::{Digest, Sha256};

use crate::time::Timestamp;

/// Waits in seconds before attempts 1..=10 of the reference schedule.
pub const REFERENCE_WAITS_SECONDS: [u32; 10] = [
    0, 5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400,
];

/// Lower end of the jitter factor, in parts per million (0.8).
pub const JITTER_MIN_PPM: u64 = 800_000;
/// Upper end of the jitter factor, in parts per million (1.2).
pub const JITTER_MAX_PPM: u64 = 1_200_000;

/// No operator configuration can allow more attempts than this.
pub const HARD_MAX_ATTEMPTS: u32 = 50;

/// Operator limits that a per-endpoint schedule must respect.
///
/// `max_total_window_seconds` is compared with the schedule's worst case,
/// i.e. the sum of its waits with +20 % jitter ([`RetrySchedule::max_window_seconds`]),
/// so a schedule that passes really finishes within the window (before
/// `Retry-After` deferrals and time spent held).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduleBounds {
    /// Shortest wait allowed before attempts 2..=n.
    pub min_wait_seconds: u32,
    /// Longest wait allowed before attempts 2..=n.
    pub max_wait_seconds: u32,
    /// Most attempts allowed, counting the first.
    pub max_attempts: u32,
    /// Longest total of all waits allowed, jitter included.
    pub max_total_window_seconds: u64,
}

impl ScheduleBounds {
    /// The default bounds: waits from 5 s to 24 h, at most 15 attempts, and a
    /// worst-case window of 96 h (the time consumers are told to remember a
    /// `webhook-id`). The reference schedule fits (≈ 90.7 h with jitter).
    pub const DEFAULT: ScheduleBounds = ScheduleBounds {
        min_wait_seconds: 5,
        max_wait_seconds: 86_400,
        max_attempts: 15,
        max_total_window_seconds: 96 * 3_600,
    };

    /// Checks that the bounds themselves make sense (for configuration loading).
    pub fn validate(&self) -> Result<(), BoundsError> {
        if self.max_attempts == 0 {
            return Err(BoundsError::NoAttempts);
        }
        if self.max_attempts > HARD_MAX_ATTEMPTS {
            return Err(BoundsError::AttemptsAboveHardCap {
                max_attempts: self.max_attempts,
                cap: HARD_MAX_ATTEMPTS,
            });
        }
        if self.min_wait_seconds > self.max_wait_seconds {
            return Err(BoundsError::MinAboveMax {
                min_wait_seconds: self.min_wait_seconds,
                max_wait_seconds: self.max_wait_seconds,
            });
        }
        Ok(())
    }
}

impl Default for ScheduleBounds {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Operator bounds that contradict themselves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoundsError {
    #[error("max_attempts must be at least 1")]
    NoAttempts,
    #[error("max_attempts is {max_attempts}; no configuration may allow more than {cap}")]
    AttemptsAboveHardCap { max_attempts: u32, cap: u32 },
    #[error("min_wait_seconds ({min_wait_seconds}) is above max_wait_seconds ({max_wait_seconds})")]
    MinAboveMax {
        min_wait_seconds: u32,
        max_wait_seconds: u32,
    },
}

impl BoundsError {
    /// A stable, machine-readable code.
    pub const fn code(&self) -> &'static str {
        match self {
            BoundsError::NoAttempts => "retry_bounds_no_attempts",
            BoundsError::AttemptsAboveHardCap { .. } => "retry_bounds_attempts_above_cap",
            BoundsError::MinAboveMax { .. } => "retry_bounds_min_above_max",
        }
    }
}

/// A per-endpoint schedule that breaks one of the operator's bounds.
///
/// `attempt` fields are 1-based attempt numbers: the first listed wait is the
/// wait before attempt 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("the schedule makes {attempts} attempts; at most {max_attempts} are allowed")]
    TooManyAttempts { attempts: u64, max_attempts: u32 },
    #[error(
        "the wait before attempt {attempt} is {wait_seconds} s; the minimum is {min_wait_seconds} s"
    )]
    WaitBelowMinimum {
        attempt: u32,
        wait_seconds: u32,
        min_wait_seconds: u32,
    },
    #[error(
        "the wait before attempt {attempt} is {wait_seconds} s; the maximum is {max_wait_seconds} s"
    )]
    WaitAboveMaximum {
        attempt: u32,
        wait_seconds: u32,
        max_wait_seconds: u32,
    },
    #[error(
        "the waits add up to {window_seconds} s with +20 % jitter; the maximum window is {max_total_window_seconds} s"
    )]
    WindowTooLong {
        window_seconds: u64,
        max_total_window_seconds: u64,
    },
}

impl ScheduleError {
    /// A stable, machine-readable code naming the bound that was broken.
    pub const fn code(&self) -> &'static str {
        match self {
            ScheduleError::TooManyAttempts { .. } => "retry_schedule_too_many_attempts",
            ScheduleError::WaitBelowMinimum { .. } => "retry_schedule_wait_below_minimum",
            ScheduleError::WaitAboveMaximum { .. } => "retry_schedule_wait_above_maximum",
            ScheduleError::WindowTooLong { .. } => "retry_schedule_window_too_long",
        }
    }
}

/// A validated, finite retry schedule.
///
/// It holds the waits before attempts 2..=n; attempt 1 is always immediate.
/// Construct it with [`RetrySchedule::reference`] or [`RetrySchedule::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule {
    retry_waits_seconds: Vec<u32>,
}

impl RetrySchedule {
    /// The reference schedule (10 attempts). It is not subject to bounds.
    pub fn reference() -> Self {
        RetrySchedule {
            retry_waits_seconds: REFERENCE_WAITS_SECONDS[1..].to_vec(),
        }
    }

    /// Validates an endpoint's `retry_schedule_seconds` (the waits before
    /// attempts 2..=n) against `bounds`. An empty list means one attempt and no
    /// retry. The first broken bound is reported, checked in this order:
    /// attempts, each wait from first to last, window.
    pub fn new(
        retry_waits_seconds: &[u32],
        bounds: &ScheduleBounds,
    ) -> Result<Self, ScheduleError> {
        let attempts = retry_waits_seconds.len() as u64 + 1;
        let max_attempts = bounds.max_attempts.min(HARD_MAX_ATTEMPTS);
        if attempts > u64::from(max_attempts) {
            return Err(ScheduleError::TooManyAttempts {
                attempts,
                max_attempts,
            });
        }
        for (attempt, &wait_seconds) in (2u32..).zip(retry_waits_seconds) {
            if wait_seconds < bounds.min_wait_seconds {
                return Err(ScheduleError::WaitBelowMinimum {
                    attempt,
                    wait_seconds,
                    min_wait_seconds: bounds.min_wait_seconds,
                });
            }
            if wait_seconds > bounds.max_wait_seconds {
                return Err(ScheduleError::WaitAboveMaximum {
                    attempt,
                    wait_seconds,
                    max_wait_seconds: bounds.max_wait_seconds,
                });
            }
        }
        let schedule = RetrySchedule {
            retry_waits_seconds: retry_waits_seconds.to_vec(),
        };
        let window_seconds = schedule.max_window_seconds();
        if window_seconds > bounds.max_total_window_seconds {
            return Err(ScheduleError::WindowTooLong {
                window_seconds,
                max_total_window_seconds: bounds.max_total_window_seconds,
            });
        }
        Ok(schedule)
    }

    /// The schedule for an endpoint: its override when it has one (validated),
    /// the reference schedule otherwise.
    pub fn for_endpoint(
        retry_schedule_seconds: Option<&[u32]>,
        bounds: &ScheduleBounds,
    ) -> Result<Self, ScheduleError> {
        match retry_schedule_seconds {
            Some(waits) => Self::new(waits, bounds),
            None => Ok(Self::reference()),
        }
    }

    /// An endpoint's schedule as it was accepted: its override
    /// (`retry_schedule_seconds`, checked against the operator's bounds when
    /// it was set, see [`RetrySchedule::new`]) or the reference schedule.
    /// It is not checked again: an override the bounds allowed when it was
    /// set is used as set, never replaced by another schedule later
    /// (tightened bounds refuse new overrides, they do not rewrite old
    /// ones). Only the hard cap holds: at most [`HARD_MAX_ATTEMPTS`]
    /// attempts, which no accepted override exceeds.
    pub fn stored(retry_schedule_seconds: Option<&[u32]>) -> Self {
        match retry_schedule_seconds {
            Some(waits) => RetrySchedule {
                retry_waits_seconds: waits[..waits.len().min(HARD_MAX_ATTEMPTS as usize - 1)]
                    .to_vec(),
            },
            None => Self::reference(),
        }
    }

    /// The waits before attempts 2..=n, as configured.
    pub fn retry_waits_seconds(&self) -> &[u32] {
        &self.retry_waits_seconds
    }

    /// How many attempts the schedule makes, counting the first.
    pub fn max_attempts(&self) -> u32 {
        u32::try_from(self.retry_waits_seconds.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1)
    }

    /// The configured wait before 1-based `attempt`, without jitter; `None`
    /// when the schedule has no such attempt.
    pub fn base_wait_seconds(&self, attempt: u32) -> Option<u32> {
        match attempt {
            0 => None,
            1 => Some(0),
            n => self
                .retry_waits_seconds
                .get(usize::try_from(n - 2).ok()?)
                .copied(),
        }
    }

    /// The jittered wait before 1-based `attempt` of `message_id`, in milliseconds.
    pub fn wait_millis(&self, message_id: &str, attempt: u32) -> Option<i64> {
        let base = self.base_wait_seconds(attempt)?;
        Some(jittered_wait_millis(base, message_id, attempt))
    }

    /// The sum of the configured waits, without jitter.
    pub fn nominal_window_seconds(&self) -> u64 {
        self.retry_waits_seconds.iter().map(|&w| u64::from(w)).sum()
    }

    /// The longest the schedule can take with jitter: 1.2 × the nominal window, rounded up.
    pub fn max_window_seconds(&self) -> u64 {
        self.nominal_window_seconds().saturating_mul(6).div_ceil(5)
    }
}

impl Default for RetrySchedule {
    fn default() -> Self {
        Self::reference()
    }
}

/// The jitter factor for `attempt` of `message_id`, in parts per million,
/// within [`JITTER_MIN_PPM`, `JITTER_MAX_PPM`]. See the module documentation.
pub fn jitter_ppm(message_id: &str, attempt: u32) -> u64 {
    let digest = Sha256::new()
        .chain_update(message_id.as_bytes())
        .chain_update(attempt.to_be_bytes())
        .finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let r = u64::from_be_bytes(first);
    JITTER_MIN_PPM + r % (JITTER_MAX_PPM - JITTER_MIN_PPM + 1)
}

/// `base_seconds` with the jitter of `attempt` of `message_id`, in milliseconds.
pub fn jittered_wait_millis(base_seconds: u32, message_id: &str, attempt: u32) -> i64 {
    if base_seconds == 0 {
        return 0;
    }
    let millis =
        u128::from(base_seconds) * 1_000 * u128::from(jitter_ppm(message_id, attempt)) / 1_000_000;
    i64::try_from(millis).unwrap_or(i64::MAX)
}

/// When the next attempt is due, given the attempts that already counted
/// against the schedule and the time the last one finished (`now`).
///
/// `attempts_used = 0` gives `now` (the first attempt is immediate). `None`
/// means the schedule is exhausted: every attempt has been used.
pub fn next_attempt_at(
    schedule: &RetrySchedule,
    message_id: &str,
    attempts_used: u32,
    now: Timestamp,
) -> Option<Timestamp> {
    let attempt = attempts_used.checked_add(1)?;
    let wait = schedule.wait_millis(message_id, attempt)?;
    Some(now.plus_millis(wait))
}

#[cfg(test)]
mod stored_tests {
    use super::*;

    #[test]
    fn a_stored_override_is_used_as_accepted_even_outside_todays_bounds() {
        let tight = ScheduleBounds {
            min_wait_seconds: 60,
            ..ScheduleBounds::DEFAULT
        };
        let waits = [10, 30];
        assert!(RetrySchedule::new(&waits, &tight).is_err());
        let s = RetrySchedule::stored(Some(&waits));
        assert_eq!(s.retry_waits_seconds(), &waits);
        assert_eq!(s.max_attempts(), 3);
        assert_eq!(RetrySchedule::stored(None), RetrySchedule::reference());
        assert_eq!(
            RetrySchedule::stored(Some(&[])).max_attempts(),
            1,
            "an empty override: one attempt, no retry"
        );
        let endless = vec![60; 500];
        assert_eq!(
            RetrySchedule::stored(Some(&endless)).max_attempts(),
            HARD_MAX_ATTEMPTS,
            "never more than the hard cap"
        );
    }
}

#[cfg(test)]
mod tests;
