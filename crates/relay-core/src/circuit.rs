//! The per-endpoint circuit breaker, as a value.
//!
//! Closed: attempts flow; each failure (a retried failure: a 5xx, 401, 407,
//! 409, 429, a timeout or a connection error) adds one to a count of
//! consecutive failures, a success resets it. At `failure_threshold` the
//! circuit opens for `cool_down`: no attempt is made (the schedule is
//! suspended, not consumed). Then it is half-open: one probe goes through; a
//! success closes it, a failure opens it again for another `cool_down`.
//! Permanent outcomes (a 4xx the endpoint chose, a redirect) say nothing
//! about its health and leave the breaker as it is.

use serde::Serialize;
use utoipa::ToSchema;

use crate::time::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerConfig {
    pub failure_threshold: u32,
    /// Milliseconds the circuit stays open before a probe.
    pub cool_down_millis: i64,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            failure_threshold: 5,
            cool_down_millis: 30_000,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum Circuit {
    Closed {
        consecutive_failures: u32,
    },
    Open {
        until: Timestamp,
    },
    /// A probe may go (or is in flight).
    HalfOpen {
        probe_in_flight: bool,
    },
}

impl Default for Circuit {
    fn default() -> Self {
        Circuit::Closed {
            consecutive_failures: 0,
        }
    }
}

/// What an attempt told the breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Success,
    Failure,
    /// Says nothing about the endpoint's health (permanent outcomes, no attempt).
    Neutral,
}

impl Circuit {
    /// The circuit as it stands at `now` (an open one whose cool-down has
    /// passed is half-open).
    pub fn at(self, now: Timestamp) -> Circuit {
        match self {
            Circuit::Open { until } if now >= until => Circuit::HalfOpen {
                probe_in_flight: false,
            },
            other => other,
        }
    }

    /// Whether an attempt may start now, and the circuit after starting it.
    pub fn try_start(self, now: Timestamp) -> Option<Circuit> {
        match self.at(now) {
            closed @ Circuit::Closed { .. } => Some(closed),
            Circuit::HalfOpen {
                probe_in_flight: false,
            } => Some(Circuit::HalfOpen {
                probe_in_flight: true,
            }),
            Circuit::HalfOpen { .. } | Circuit::Open { .. } => None,
        }
    }

    /// The circuit after an attempt that started under it ended with `signal`.
    pub fn record(self, signal: Signal, now: Timestamp, config: BreakerConfig) -> Circuit {
        let open = Circuit::Open {
            until: now.plus_millis(config.cool_down_millis),
        };
        match (self.at(now), signal) {
            (_, Signal::Success) => Circuit::Closed {
                consecutive_failures: 0,
            },
            (
                Circuit::Closed {
                    consecutive_failures,
                },
                Signal::Failure,
            ) => {
                let n = consecutive_failures.saturating_add(1);
                if n >= config.failure_threshold {
                    open
                } else {
                    Circuit::Closed {
                        consecutive_failures: n,
                    }
                }
            }
            (Circuit::HalfOpen { .. }, Signal::Failure) => open,
            // Failures of attempts that started before it opened change nothing.
            (o @ Circuit::Open { .. }, Signal::Failure) => o,
            (Circuit::HalfOpen { .. }, Signal::Neutral) => Circuit::HalfOpen {
                probe_in_flight: false,
            },
            (other, Signal::Neutral) => other,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Circuit::Closed { .. } => "closed",
            Circuit::Open { .. } => "open",
            Circuit::HalfOpen { .. } => "half_open",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: BreakerConfig = BreakerConfig {
        failure_threshold: 3,
        cool_down_millis: 1000,
    };
    const T: Timestamp = Timestamp(1_000_000);

    #[test]
    fn consecutive_failures_open_and_a_success_resets() {
        let mut c = Circuit::default();
        for _ in 0..2 {
            c = c.record(Signal::Failure, T, C);
        }
        assert_eq!(
            c,
            Circuit::Closed {
                consecutive_failures: 2
            }
        );
        assert_eq!(c.record(Signal::Success, T, C), Circuit::default());
        c = c.record(Signal::Neutral, T, C);
        assert_eq!(
            c,
            Circuit::Closed {
                consecutive_failures: 2
            },
            "neutral keeps the count"
        );
        c = c.record(Signal::Failure, T, C);
        assert_eq!(
            c,
            Circuit::Open {
                until: T.plus_millis(1000)
            }
        );
        assert_eq!(
            c.try_start(T.plus_millis(999)),
            None,
            "no attempt while open"
        );
    }

    #[test]
    fn half_open_lets_one_probe_through_and_decides_on_it() {
        let open = Circuit::Open { until: T };
        let probing = open.try_start(T).expect("a probe after the cool-down");
        assert_eq!(
            probing,
            Circuit::HalfOpen {
                probe_in_flight: true
            }
        );
        assert_eq!(probing.try_start(T), None, "one probe at a time");
        assert_eq!(probing.record(Signal::Success, T, C), Circuit::default());
        assert_eq!(
            probing.record(Signal::Failure, T, C),
            Circuit::Open {
                until: T.plus_millis(1000)
            }
        );
        assert_eq!(
            probing.record(Signal::Neutral, T, C),
            Circuit::HalfOpen {
                probe_in_flight: false
            },
            "a neutral probe frees the slot for another"
        );
        // Late failures of attempts from before it opened do not extend it.
        assert_eq!(open.record(Signal::Failure, T.plus_millis(-1), C), open);
    }
}
