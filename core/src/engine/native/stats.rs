//! Measuring a phase: totals, a log-linear latency histogram (fixed memory, about 1.6 %
//! resolution), per-second samples and progress events at most ten a second.

use std::time::{Duration, Instant};

use crate::engine::{Event, LatencyUs, RunContext, Sample};
use crate::profile::Rw;

/// Sub-buckets per power of two: 2^6 = 64, so a bucket is at most 1/64 of its value wide.
const SUB_BITS: u32 = 6;
const SUB: usize = 1 << SUB_BITS;
/// Buckets: values below 64 ns one each, then 64 per power of two up to 2^64.
const BUCKETS: usize = SUB * (64 - SUB_BITS as usize + 1);

/// Completion latencies in nanoseconds, counted in log-linear buckets: exact below 64 ns, then
/// 64 buckets per power of two. Percentiles are the middle of the bucket they fall in, which is
/// within 1/128 of the true value; the maximum is exact.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    counts: Vec<u64>,
    total: u64,
    max_ns: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram {
            counts: vec![0; BUCKETS],
            total: 0,
            max_ns: 0,
        }
    }
}

impl LatencyHistogram {
    fn index(ns: u64) -> usize {
        if ns < SUB as u64 {
            return ns as usize;
        }
        let power = 63 - ns.leading_zeros(); // >= SUB_BITS
        let shift = power - SUB_BITS;
        let sub = ((ns >> shift) as usize) & (SUB - 1);
        (power - SUB_BITS + 1) as usize * SUB + sub
    }

    /// The smallest value and the width of bucket `index`, ns.
    fn bounds(index: usize) -> (u64, u64) {
        if index < SUB {
            return (index as u64, 1);
        }
        let group = (index / SUB) as u32; // >= 1
        let sub = (index % SUB) as u64;
        let shift = group - 1;
        let low = ((SUB as u64) | sub) << shift;
        (low, 1u64 << shift)
    }

    /// Counts one latency of `ns` nanoseconds.
    pub fn record(&mut self, ns: u64) {
        self.counts[Self::index(ns)] += 1;
        self.total += 1;
        self.max_ns = self.max_ns.max(ns);
    }

    /// How many latencies were counted.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The `p`-th percentile (0 < p ≤ 100) in nanoseconds (f64): the middle of the bucket
    /// holding the `ceil(p/100 × count)`-th smallest value, at most the maximum; 0 when empty.
    pub fn percentile_ns(&self, p: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((p / 100.0) * self.total as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (index, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let (low, width) = Self::bounds(index);
                let mid = low as f64 + (width as f64 - 1.0) / 2.0;
                return mid.min(self.max_ns as f64);
            }
        }
        self.max_ns as f64
    }

    /// p50, p99 and max in microseconds.
    pub fn summary_us(&self) -> LatencyUs {
        LatencyUs {
            p50: self.percentile_ns(50.0) / 1000.0,
            p99: self.percentile_ns(99.0) / 1000.0,
            max: self.max_ns as f64 / 1000.0,
        }
    }
}

/// Least time between two [`Event::Progress`] of a phase.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);
/// A last partial second shorter than this is not a sample of its own (unless it is the only
/// one), so a few milliseconds of tail cannot show as a wild rate.
const MIN_TAIL: Duration = Duration::from_millis(250);

/// What a finished phase measured.
#[derive(Debug, Clone)]
pub struct Totals {
    pub bytes: u64,
    pub ios: u64,
    pub seconds: f64,
    pub lat_us: LatencyUs,
    pub samples: Vec<Sample>,
}

/// Counts completions of a running phase and sends its samples and progress events.
pub struct Meter<'a> {
    ctx: &'a RunContext<'a>,
    index: usize,
    rw: Rw,
    planned_bytes: u64,
    runtime: Option<Duration>,
    start: Instant,
    last_completion: Instant,
    bytes: u64,
    ios: u64,
    hist: LatencyHistogram,
    samples: Vec<Sample>,
    sample_bytes: u64,
    sample_ios: u64,
    progress_at: Instant,
    progress_bytes: u64,
    progress_ios: u64,
}

impl std::fmt::Debug for Meter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meter")
            .field("index", &self.index)
            .field("bytes", &self.bytes)
            .field("ios", &self.ios)
            .finish_non_exhaustive()
    }
}

impl<'a> Meter<'a> {
    /// A meter for phase `index` (pattern `rw`) that plans `planned_bytes` (0: unknown, e.g.
    /// `time_based`) within `runtime`, measuring from `start` (the first submission, or the
    /// end of a ramp, which may be in the future).
    pub fn new(
        ctx: &'a RunContext<'a>,
        index: usize,
        rw: Rw,
        planned_bytes: u64,
        runtime: Option<Duration>,
        start: Instant,
    ) -> Meter<'a> {
        Meter {
            ctx,
            index,
            rw,
            planned_bytes,
            runtime,
            start,
            last_completion: start,
            bytes: 0,
            ios: 0,
            hist: LatencyHistogram::default(),
            samples: Vec::new(),
            sample_bytes: 0,
            sample_ios: 0,
            progress_at: start,
            progress_bytes: 0,
            progress_ios: 0,
        }
    }

    /// When measuring starts (the first submission, or the end of the ramp); the runtime
    /// counts from here.
    pub fn start(&self) -> Instant {
        self.start
    }

    /// Counts one finished request of `bytes` that completed `at` after `latency`.
    /// Completions before the meter's start (in a ramp) are not counted.
    pub fn complete(&mut self, at: Instant, bytes: u64, latency: Duration) {
        if at < self.start {
            return;
        }
        self.tick(at);
        self.bytes += bytes;
        self.ios += 1;
        self.hist
            .record(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX));
        self.last_completion = self.last_completion.max(at);
    }

    /// Closes the seconds that ended by `now` (sending an [`Event::Sample`] for each) and sends
    /// an [`Event::Progress`] when the last one is at least 100 ms old.
    pub fn tick(&mut self, now: Instant) {
        loop {
            let k = self.samples.len() as u64 + 1;
            let boundary = self.start + Duration::from_secs(k);
            if now < boundary {
                break;
            }
            self.close_sample(k as f64, 1.0);
        }
        if now.saturating_duration_since(self.progress_at) >= PROGRESS_EVERY {
            let dt = now.duration_since(self.progress_at).as_secs_f64();
            let elapsed = now.saturating_duration_since(self.start).as_secs_f64();
            let mut fraction = if self.planned_bytes > 0 {
                self.bytes as f64 / self.planned_bytes as f64
            } else {
                0.0
            };
            if let Some(limit) = self.runtime.filter(|r| !r.is_zero()) {
                fraction = fraction.max(elapsed / limit.as_secs_f64());
            }
            (self.ctx.on_event)(Event::Progress {
                run: self.ctx.run,
                index: self.index,
                rw: self.rw,
                fraction: fraction.clamp(0.0, 1.0),
                bytes: self.bytes,
                ios: self.ios,
                elapsed_s: elapsed,
                bw_bytes: (self.bytes - self.progress_bytes) as f64 / dt,
                iops: (self.ios - self.progress_ios) as f64 / dt,
            });
            self.progress_at = now;
            self.progress_bytes = self.bytes;
            self.progress_ios = self.ios;
        }
    }

    fn close_sample(&mut self, t_s: f64, span_s: f64) {
        let sample = Sample {
            t_s,
            bw_bytes: (self.bytes - self.sample_bytes) as f64 / span_s,
            iops: (self.ios - self.sample_ios) as f64 / span_s,
        };
        self.sample_bytes = self.bytes;
        self.sample_ios = self.ios;
        self.samples.push(sample);
        (self.ctx.on_event)(Event::Sample {
            run: self.ctx.run,
            index: self.index,
            sample,
        });
    }

    /// Ends the phase at its last completion, or at `fsync_end` when the phase ended with an
    /// fsync, and returns what it measured.
    pub fn finish(mut self, fsync_end: Option<Instant>) -> Totals {
        let end = fsync_end.map_or(self.last_completion, |t| t.max(self.last_completion));
        // Seconds that closed before the end, then the partial last one.
        let elapsed = end.duration_since(self.start);
        let full = elapsed.as_secs();
        while (self.samples.len() as u64) < full {
            let k = self.samples.len() as f64 + 1.0;
            self.close_sample(k, 1.0);
        }
        let tail = elapsed - Duration::from_secs(full);
        if !tail.is_zero() && (tail >= MIN_TAIL || self.samples.is_empty()) {
            self.close_sample(elapsed.as_secs_f64(), tail.as_secs_f64());
        }
        Totals {
            bytes: self.bytes,
            ios: self.ios,
            seconds: elapsed.as_secs_f64(),
            lat_us: self.hist.summary_us(),
            samples: self.samples,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_in_order_without_gaps() {
        let mut expected_low = 0u64;
        for index in 0..BUCKETS {
            let (low, width) = LatencyHistogram::bounds(index);
            assert_eq!(low, expected_low, "bucket {index}");
            assert_eq!(LatencyHistogram::index(low), index);
            assert_eq!(LatencyHistogram::index(low + (width - 1)), index);
            expected_low = low.wrapping_add(width);
        }
        assert_eq!(expected_low, 0, "the last bucket ends at 2^64");
    }

    #[test]
    fn percentiles_are_within_bucket_resolution() {
        let mut h = LatencyHistogram::default();
        for us in 1..=1000u64 {
            h.record(us * 1000);
        }
        let p50 = h.percentile_ns(50.0);
        let p99 = h.percentile_ns(99.0);
        assert!((p50 - 500_000.0).abs() / 500_000.0 < 0.016, "p50 {p50}");
        assert!((p99 - 990_000.0).abs() / 990_000.0 < 0.016, "p99 {p99}");
        assert_eq!(h.summary_us().max, 1000.0);
        assert_eq!(h.count(), 1000);
    }

    #[test]
    fn empty_histogram_reports_zero() {
        let h = LatencyHistogram::default();
        assert_eq!(h.summary_us(), LatencyUs::default());
    }

    #[test]
    fn single_value_percentiles_do_not_exceed_it() {
        let mut h = LatencyHistogram::default();
        h.record(123_456);
        assert!(h.percentile_ns(50.0) <= 123_456.0);
        assert!(h.percentile_ns(50.0) > 121_000.0);
        assert_eq!(h.percentile_ns(99.0), h.percentile_ns(50.0));
    }
}
