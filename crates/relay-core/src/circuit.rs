//! The per-endpoint circuit breaker, as a value.
//!
//! Closed: attempts flow; each failure (a retried failure: a 5xx, 401, 407,
//! 409, 429, a timeout or a connection error) adds one to a count of
//! consecutive failures, a success resets it. At `failure_threshold` the
//! circuit opens for `cool_down`: no attempt is made (the schedule is
//! suspended, not consumed). Then it is half-open: up to `half_open_probes`
//! attempts (a few, default 3) go through; the first success closes it, a
//! failure opens it again for another `cool_down`.
//! Permanent outcomes (a 4xx the endpoint chose, a redirect) leave the
//! breaker as it is: the endpoint answered, it is not overloaded. They do
//! count toward automatic disabling ([`Signal::Rejected`]): an endpoint that
//! refuses everything fails continuously.

use serde::Serialize;
use utoipa::ToSchema;

use crate::outcome::{Outcome, PermanentReason};
use crate::time::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerConfig {
    pub failure_threshold: u32,
    /// Milliseconds the circuit stays open before a probe.
    pub cool_down_millis: i64,
    /// How many probes may be in flight at once while half-open (at least 1).
    pub half_open_probes: u32,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            failure_threshold: 5,
            cool_down_millis: 30_000,
            half_open_probes: 3,
        }
    }
}

/// An endpoint's circuit breaker, by `state`: `closed` (attempts go;
/// failures are counted), `open` (no attempt until `until`), `half_open`
/// (a few probes go; the first success closes it, a failure opens it again).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum Circuit {
    /// Attempts go.
    Closed {
        /// Failures in a row since the last success; at the threshold (5 by
        /// default) the circuit opens.
        consecutive_failures: u32,
    },
    /// No attempt is made (the schedule is suspended, not consumed).
    Open {
        /// When probes may start.
        until: Timestamp,
    },
    /// Probes may go, up to the configured number at once.
    HalfOpen {
        /// Probes being attempted now.
        probes_in_flight: u32,
    },
}

impl Default for Circuit {
    fn default() -> Self {
        Circuit::Closed {
            consecutive_failures: 0,
        }
    }
}

/// What an attempt told the endpoint's health: the breaker and the
/// automatic-disable clock ([`crate::autodisable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Success,
    /// A retried failure: counts for the breaker and the disable clock.
    Failure,
    /// The endpoint answered but refused the message (a non-retried 4xx, a
    /// redirect, a broker's rejection): the disable clock counts it as a
    /// failure, the breaker does not (the endpoint is not overloaded).
    Rejected,
    /// Says nothing about the endpoint's health (the consumer's own abort,
    /// a failed manual attempt, no attempt). A deferral (`Retry-After`) is a
    /// [`Signal::Failure`].
    Neutral,
}

impl Signal {
    /// What an attempt's outcome says of its endpoint's health. Manual
    /// attempts (resends, test sends) say nothing: a tenant probing a broken
    /// endpoint must not trip its breaker or move its disable clock.
    pub fn of(outcome: &Outcome, manual: bool) -> Signal {
        if manual {
            return match outcome {
                Outcome::Delivered => Signal::Success,
                _ => Signal::Neutral,
            };
        }
        match outcome {
            Outcome::Delivered => Signal::Success,
            Outcome::Retry { .. } | Outcome::Deferred { .. } | Outcome::Exhausted { .. } => {
                Signal::Failure
            }
            Outcome::Permanent { reason, .. } => match reason {
                PermanentReason::RedirectNotFollowed
                | PermanentReason::RejectedByEndpoint
                | PermanentReason::EndpointGone => Signal::Rejected,
                PermanentReason::AbortedByConsumer => Signal::Neutral,
            },
            // A broker or object store that refused the message answered.
            Outcome::DeadLettered { .. } => Signal::Rejected,
        }
    }
}

impl Circuit {
    /// The circuit as it stands at `now` (an open one whose cool-down has
    /// passed is half-open).
    pub fn at(self, now: Timestamp) -> Circuit {
        match self {
            Circuit::Open { until } if now >= until => Circuit::HalfOpen {
                probes_in_flight: 0,
            },
            other => other,
        }
    }

    /// How many more attempts may start now: `None` when the circuit does
    /// not limit them (closed), else the probes left (0 while open).
    pub fn room(self, now: Timestamp, config: BreakerConfig) -> Option<u32> {
        match self.at(now) {
            Circuit::Closed { .. } => None,
            Circuit::HalfOpen { probes_in_flight } => Some(
                config
                    .half_open_probes
                    .max(1)
                    .saturating_sub(probes_in_flight),
            ),
            Circuit::Open { .. } => Some(0),
        }
    }

    /// Whether an attempt may start now, and the circuit after starting it.
    pub fn try_start(self, now: Timestamp, config: BreakerConfig) -> Option<Circuit> {
        match self.at(now) {
            closed @ Circuit::Closed { .. } => Some(closed),
            Circuit::HalfOpen { probes_in_flight }
                if probes_in_flight < config.half_open_probes.max(1) =>
            {
                Some(Circuit::HalfOpen {
                    probes_in_flight: probes_in_flight + 1,
                })
            }
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
            // A probe that said nothing of the endpoint's health frees its
            // place for another.
            (Circuit::HalfOpen { probes_in_flight }, Signal::Neutral | Signal::Rejected) => {
                Circuit::HalfOpen {
                    probes_in_flight: probes_in_flight.saturating_sub(1),
                }
            }
            (other, Signal::Neutral | Signal::Rejected) => other,
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
    use crate::outcome::FailureCode;

    const C: BreakerConfig = BreakerConfig {
        failure_threshold: 3,
        cool_down_millis: 1000,
        half_open_probes: 3,
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
        c = c.record(Signal::Rejected, T, C);
        assert_eq!(
            c,
            Circuit::Closed {
                consecutive_failures: 2
            },
            "neutral and rejected keep the count"
        );
        c = c.record(Signal::Failure, T, C);
        assert_eq!(
            c,
            Circuit::Open {
                until: T.plus_millis(1000)
            }
        );
        assert_eq!(
            c.try_start(T.plus_millis(999), C),
            None,
            "no attempt while open"
        );
        assert_eq!(c.room(T.plus_millis(999), C), Some(0));
        assert_eq!(Circuit::default().room(T, C), None, "closed: no limit");
    }

    #[test]
    fn half_open_lets_a_few_probes_through_and_closes_on_success() {
        let open = Circuit::Open { until: T };
        assert_eq!(open.room(T, C), Some(3));
        let mut probing = open;
        for n in 1..=3 {
            probing = probing
                .try_start(T, C)
                .expect("a probe after the cool-down");
            assert_eq!(
                probing,
                Circuit::HalfOpen {
                    probes_in_flight: n
                }
            );
            assert_eq!(probing.room(T, C), Some(3 - n));
        }
        assert_eq!(probing.try_start(T, C), None, "three probes at a time");
        assert_eq!(probing.record(Signal::Success, T, C), Circuit::default());
        assert_eq!(
            probing.record(Signal::Failure, T, C),
            Circuit::Open {
                until: T.plus_millis(1000)
            }
        );
        for s in [Signal::Neutral, Signal::Rejected] {
            let freed = probing.record(s, T, C);
            assert_eq!(
                freed,
                Circuit::HalfOpen {
                    probes_in_flight: 2
                },
                "a probe that says nothing of health frees its place"
            );
            assert!(freed.try_start(T, C).is_some());
        }
        // Late failures of attempts from before it opened do not extend it.
        assert_eq!(open.record(Signal::Failure, T.plus_millis(-1), C), open);
        // One probe at the least, whatever the configuration says.
        let one = BreakerConfig {
            half_open_probes: 0,
            ..C
        };
        let p = open.try_start(T, one).expect("one probe");
        assert_eq!(p.try_start(T, one), None);
    }

    #[test]
    fn what_an_outcome_says_of_health() {
        let code = FailureCode::HttpStatus(400);
        let permanent = |reason| Outcome::Permanent {
            reason,
            error_code: code,
            disable_endpoint: false,
            health_warning: None,
        };
        let cases = [
            (Outcome::Delivered, false, Signal::Success),
            (Outcome::Delivered, true, Signal::Success),
            (
                Outcome::Retry {
                    error_code: code,
                    next_attempt_at: T,
                },
                false,
                Signal::Failure,
            ),
            (
                Outcome::Exhausted { error_code: code },
                false,
                Signal::Failure,
            ),
            (
                Outcome::Exhausted { error_code: code },
                true,
                Signal::Neutral,
            ),
            (
                permanent(PermanentReason::RejectedByEndpoint),
                false,
                Signal::Rejected,
            ),
            (
                permanent(PermanentReason::RedirectNotFollowed),
                false,
                Signal::Rejected,
            ),
            (
                Outcome::DeadLettered {
                    reason: crate::transition::DeadLetterReason::RejectedByDestination,
                    error_code: FailureCode::Refused(crate::outcome::Refusal::Nack),
                },
                false,
                Signal::Rejected,
            ),
            (
                Outcome::DeadLettered {
                    reason: crate::transition::DeadLetterReason::RejectedByDestination,
                    error_code: FailureCode::Refused(crate::outcome::Refusal::Nack),
                },
                true,
                Signal::Neutral,
            ),
            (
                permanent(PermanentReason::AbortedByConsumer),
                false,
                Signal::Neutral,
            ),
            (
                permanent(PermanentReason::RejectedByEndpoint),
                true,
                Signal::Neutral,
            ),
        ];
        for (outcome, manual, want) in cases {
            assert_eq!(
                Signal::of(&outcome, manual),
                want,
                "{outcome:?} manual={manual}"
            );
        }
    }
}
