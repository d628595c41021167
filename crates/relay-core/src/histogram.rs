//! The latency histogram behind the endpoint health view.
//!
//! Attempt durations are counted into fixed buckets (upper bounds in
//! milliseconds, roughly 1-2-3-5 steps up to the 30 s request timeout, and
//! one open bucket above). Percentiles are read from the counts: the
//! nearest-rank percentile falls in one bucket, and the bucket's upper bound
//! is reported (so a percentile is never understated by more than a bucket
//! width), except in the open bucket, where the largest duration seen is.

/// Upper bounds (inclusive, milliseconds) of the closed buckets. Bucket `i`
/// holds durations in `(BOUNDS[i-1], BOUNDS[i]]`; bucket `BOUNDS.len()` holds
/// the rest.
pub const BOUNDS_MS: &[i64] = &[
    1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1_000, 1_500, 2_000,
    3_000, 5_000, 7_500, 10_000, 15_000, 20_000, 30_000,
];

/// How many buckets there are (the closed ones and the open one).
pub const BUCKETS: usize = BOUNDS_MS.len() + 1;

/// The bucket a duration falls in.
pub fn bucket_of(duration_ms: i64) -> usize {
    BOUNDS_MS.partition_point(|&b| b < duration_ms)
}

/// Counts per bucket, and the largest duration counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    pub counts: [u64; BUCKETS],
    pub max_ms: i64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: [0; BUCKETS],
            max_ms: 0,
        }
    }
}

impl Histogram {
    pub fn record(&mut self, duration_ms: i64) {
        self.add(bucket_of(duration_ms), 1);
        self.max_ms = self.max_ms.max(duration_ms);
    }

    /// Adds `n` to bucket `bucket` (ignored when out of range).
    pub fn add(&mut self, bucket: usize, n: u64) {
        if let Some(c) = self.counts.get_mut(bucket) {
            *c += n;
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The nearest-rank percentile `p` (0–100): the upper bound of the bucket
    /// holding it (the largest duration seen when that is smaller, or when it
    /// is the open bucket). `None` when empty.
    pub fn percentile(&self, p: u32) -> Option<i64> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let rank = (u64::from(p.min(100)) * total).div_ceil(100).max(1);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(match BOUNDS_MS.get(i) {
                    Some(bound) => (*bound).min(self.max_ms.max(1)),
                    None => self.max_ms,
                });
            }
        }
        Some(self.max_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_hold_their_upper_bound() {
        let table = [
            (0, 0),
            (1, 0),
            (2, 1),
            (4, 3),
            (5, 3),
            (6, 4),
            (30_000, BOUNDS_MS.len() - 1),
            (30_001, BOUNDS_MS.len()),
            (i64::MAX, BOUNDS_MS.len()),
        ];
        for (ms, bucket) in table {
            assert_eq!(bucket_of(ms), bucket, "{ms} ms");
        }
        assert!(BOUNDS_MS.windows(2).all(|w| w[0] < w[1]), "ascending");
    }

    #[test]
    fn percentiles_are_bucket_bounds_by_nearest_rank() {
        let mut h = Histogram::default();
        assert_eq!(h.percentile(50), None);
        // 90 fast attempts (4 ms → bucket ≤5), 9 at 120 ms (≤150), 1 at 45 s.
        (0..90).for_each(|_| h.record(4));
        (0..9).for_each(|_| h.record(120));
        h.record(45_000);
        assert_eq!(h.total(), 100);
        assert_eq!(h.percentile(50), Some(5));
        assert_eq!(h.percentile(90), Some(5));
        assert_eq!(h.percentile(91), Some(150));
        assert_eq!(h.percentile(99), Some(150));
        assert_eq!(
            h.percentile(100),
            Some(45_000),
            "the open bucket reports the max"
        );
    }

    #[test]
    fn a_bound_above_every_duration_reports_the_largest_seen() {
        let mut h = Histogram::default();
        h.record(11);
        h.record(12);
        // Both fall in (10, 15]; the largest seen (12) is the better answer.
        assert_eq!(h.percentile(50), Some(12));
        assert_eq!(h.percentile(99), Some(12));
    }

    #[test]
    fn out_of_range_buckets_are_ignored() {
        let mut h = Histogram::default();
        h.add(BUCKETS, 5);
        assert_eq!(h.total(), 0);
    }
}
