//! The retry policy's pure parts: `Retry-After`, the backoff, and the
//! [`Timer`] the client waits with (injected in tests).

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

/// The statuses retried on any request: Relay refused before doing anything.
pub const RETRY_STATUSES: [u16; 2] = [429, 503];

/// `Retry-After` as the time to wait: delta-seconds or an HTTP date
/// (`None` for anything else).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse::<u64>().ok().map(Duration::from_secs);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// How the client backs off without `Retry-After`: full jitter, uniform in
/// `[0, min(cap, base * 2^attempt)]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    pub base: Duration,
    pub cap: Duration,
}

impl Backoff {
    /// The ceiling of the wait before retry `attempt` (0 for the first).
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.min(30));
        self.base.saturating_mul(factor).min(self.cap)
    }

    /// The wait before retry `attempt`, `fraction` (in `[0, 1)`) of the ceiling.
    pub fn wait(&self, attempt: u32, fraction: f64) -> Duration {
        self.ceiling(attempt).mul_f64(fraction.clamp(0.0, 1.0))
    }
}

/// A random fraction in `[0, 1)` (the backoff's jitter).
pub fn jitter() -> f64 {
    let mut bytes = [0u8; 8];
    // Without randomness the wait is its ceiling: still bounded.
    if getrandom::fill(&mut bytes).is_err() {
        return 1.0;
    }
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}

/// `prefix` and 32 random hex digits (a UUID v4's 122 random bits): a
/// request's id (`req_`) or an event's (`evt_`).
pub fn random_id(prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No randomness at all: unique within this process at least.
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let t = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos() as u64;
        bytes[..8].copy_from_slice(&t.to_le_bytes());
        bytes[8..].copy_from_slice(&n.to_le_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let mut out = String::with_capacity(prefix.len() + 32);
    out.push_str(prefix);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The clock the client reads (`Retry-After` dates) and waits on between
/// retries. The default is the system clock and `tokio::time::sleep`; tests
/// give one that records the waits and returns at once.
pub trait Timer: Send + Sync + 'static {
    fn now(&self) -> SystemTime;
    fn sleep(&self, wait: Duration) -> Pin<Box<dyn Future<Output = ()> + Send>>;
}

/// The system clock and tokio's timer.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemTimer;

impl Timer for SystemTimer {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn sleep(&self, wait: Duration) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(tokio::time::sleep(wait))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_784_000_000);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(12));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(12))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(12));
        assert_eq!(parse_retry_after(&earlier, now), Some(Duration::ZERO));
        for bad in ["", "-3", "1.5", "soon", "Mon, 99 Foo 2026"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad:?}");
        }
    }

    #[test]
    fn the_backoff_doubles_up_to_its_cap_with_full_jitter() {
        let b = Backoff {
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
        };
        let ceilings: Vec<u64> = (0..9).map(|a| b.ceiling(a).as_millis() as u64).collect();
        assert_eq!(
            ceilings,
            [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
        assert_eq!(b.ceiling(u32::MAX), Duration::from_secs(30));
        assert_eq!(b.wait(3, 0.0), Duration::ZERO);
        assert_eq!(b.wait(3, 0.5), Duration::from_secs(2));
        for _ in 0..1000 {
            let f = jitter();
            assert!((0.0..1.0).contains(&f), "{f}");
        }
    }

    #[test]
    fn random_ids_are_uuid_v4_hex_with_their_prefix() {
        let a = random_id("evt_");
        let b = random_id("evt_");
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert!(
            a[4..]
                .bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{a}"
        );
        assert_eq!(&a[16..17], "4", "{a}");
    }
}
