//! A source's rate limit: a token bucket refilled at `rate` per second,
//! as deep as one second of it. Pure: the caller keeps the state and
//! passes the time.

use relay_core::time::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    tokens: f64,
    at: Timestamp,
}

impl Bucket {
    /// A full bucket at `now`.
    pub fn full(rate: u32, now: Timestamp) -> Self {
        Bucket {
            tokens: f64::from(rate.max(1)),
            at: now,
        }
    }

    /// Takes a token if there is one at `now`; refills first.
    pub fn take(&mut self, rate: u32, now: Timestamp) -> bool {
        let rate = f64::from(rate.max(1));
        let elapsed = (now.millis() - self.at.millis()).max(0) as f64 / 1000.0;
        self.tokens = (self.tokens + elapsed * rate).min(rate);
        self.at = Timestamp::from_millis(now.millis().max(self.at.millis()));
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_of_burst_then_the_rate() {
        let t0 = Timestamp::from_millis(1_000_000);
        let mut b = Bucket::full(10, t0);
        for _ in 0..10 {
            assert!(b.take(10, t0));
        }
        assert!(!b.take(10, t0));
        assert!(!b.take(10, t0.plus_millis(50)));
        assert!(b.take(10, t0.plus_millis(100)));
        assert!(!b.take(10, t0.plus_millis(100)));
        // A clock that goes back does not mint tokens.
        assert!(!b.take(10, t0));
        let mut b = Bucket::full(10, t0);
        for _ in 0..10 {
            b.take(10, t0);
        }
        assert!(b.take(10, t0.plus_seconds(60)));
    }
}
