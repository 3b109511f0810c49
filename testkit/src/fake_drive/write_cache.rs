//! A write cache, as cheap flash has: writes are as fast as the server can take them until a
//! number of bytes has been written, and held to a slow speed after that.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The cache: the first `fast_bytes` written once the drive is made (after its filesystem, when
/// it has one) go at full speed, and every byte after them at `slow_bytes_per_second`, by
/// holding each write request the time its slow bytes take at that speed. The hold is a lower
/// bound on the request's time, whatever else the machine is doing: a test can count on the
/// slow part being at most that fast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteCache {
    /// Bytes written at full speed, counted from when the drive is ready.
    pub fast_bytes: u64,
    /// The speed after them, bytes per second (more than 0).
    pub slow_bytes_per_second: u64,
}

/// The cache and the server's written-bytes count when the drive became ready.
#[derive(Debug)]
pub(super) struct CacheState {
    cache: WriteCache,
    /// `u64::MAX` until [`CacheState::arm`].
    armed_at: AtomicU64,
}

impl CacheState {
    pub(super) fn new(cache: WriteCache) -> CacheState {
        assert!(
            cache.slow_bytes_per_second > 0,
            "a write cache needs a slow speed"
        );
        CacheState {
            cache,
            armed_at: AtomicU64::new(u64::MAX),
        }
    }

    /// Starts counting: `written` is the server's written bytes so far (the filesystem's).
    pub(super) fn arm(&self, written: u64) {
        self.armed_at.store(written, Ordering::SeqCst);
    }

    /// How long a write of `len` bytes is held, the server having written `written` bytes
    /// before it: the time its bytes past the cache take at the slow speed.
    pub(super) fn hold(&self, written: u64, len: u64) -> Duration {
        let armed = self.armed_at.load(Ordering::SeqCst);
        if armed == u64::MAX {
            return Duration::ZERO;
        }
        let done = written.saturating_sub(armed);
        let slow = (done + len).saturating_sub(done.max(self.cache.fast_bytes));
        Duration::from_secs_f64(slow as f64 / self.cache.slow_bytes_per_second as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bytes_past_the_cache_are_held() {
        let c = CacheState::new(WriteCache {
            fast_bytes: 1000,
            slow_bytes_per_second: 100,
        });
        assert_eq!(c.hold(5000, 100), Duration::ZERO, "not armed yet");
        c.arm(500);
        assert_eq!(c.hold(500, 1000), Duration::ZERO);
        assert_eq!(c.hold(1400, 200), Duration::from_secs(1));
        assert_eq!(c.hold(2000, 300), Duration::from_secs(3));
    }
}
