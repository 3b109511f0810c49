//! Where the write speed fell for good: the cliff a card's write cache leaves when it fills.
//!
//! The series is the speed of each allocation unit written, in order (bytes of the unit over
//! the seconds its requests took, bytes per second). The cliff is the first unit `i` (at least
//! [`MIN_BEFORE`] units before it, at least [`WINDOW`] from it to the end) such that, with
//! `before` the median speed of the units before `i`:
//! - unit `i` itself is slower than [`FALL`] × `before`, and
//! - every sliding median of [`WINDOW`] units from `i` on (the last full window standing for
//!   the windows that run past the end) stays below [`FALL`] × `before`;
//!
//! and the fall is placed at the first of the units below [`FALL`] × `before` that lead, one
//! after another, into `i` (never the first unit).
//!
//! So one slow unit among fast ones (a stall) is no cliff, one fast unit among slow ones does
//! not undo one, one odd unit among the first three (a controller's buffer taking the first
//! request) does not set the speed before, and a speed that comes back later was not a fall
//! "for good". `cliff_bytes` is the bytes written before the unit where the fall began.

/// How far the speed must fall: below this share of the median speed before it (0.6: a fall
/// of more than 40 %).
pub const FALL: f64 = 0.6;

/// Units in each sliding median.
pub const WINDOW: usize = 3;

/// Units before a cliff, at least: the median of three is not moved by one odd unit.
pub const MIN_BEFORE: usize = 3;

/// One allocation unit written: its size and how long its requests took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// Bytes of the unit.
    pub bytes: u64,
    /// Seconds its write requests took, summed (f64).
    pub seconds: f64,
}

impl Unit {
    /// The unit's speed, bytes per second (0 when it took no time).
    pub fn speed(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// Where the speed fell, and the speeds on either side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cliff {
    /// Index of the first unit after the fall.
    pub unit: usize,
    /// Bytes written before that unit.
    pub bytes: u64,
}

/// The cliff in `units` (see the module's rule), or `None` when the speed never fell for good.
pub fn find(units: &[Unit]) -> Option<Cliff> {
    let n = units.len();
    if n < MIN_BEFORE + WINDOW {
        return None;
    }
    let speeds: Vec<f64> = units.iter().map(Unit::speed).collect();
    let windows = window_medians(&speeds);
    // The largest window median from each unit on.
    let mut suffix_max = vec![0.0_f64; n];
    let mut top = f64::NEG_INFINITY;
    for j in (0..n).rev() {
        top = top.max(windows[j.min(n - WINDOW)]);
        suffix_max[j] = top;
    }
    let mut before = RunningMedian::default();
    for i in 0..=n - WINDOW {
        if i >= MIN_BEFORE {
            let limit = FALL * before.median();
            if speeds[i] < limit && suffix_max[i] < limit {
                // The fall began at the first of the slow units that lead into this one.
                let mut j = i;
                while j > 1 && speeds[j - 1] < limit {
                    j -= 1;
                }
                let bytes = units[..j].iter().map(|u| u.bytes).sum();
                return Some(Cliff { unit: j, bytes });
            }
        }
        before.push(speeds[i]);
    }
    None
}

/// The median of each full window of [`WINDOW`] speeds, by its first index.
fn window_medians(speeds: &[f64]) -> Vec<f64> {
    speeds.windows(WINDOW).map(median).collect()
}

/// The median of `values` (the mean of the middle two for an even count); 0 when empty.
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The median of the values pushed so far, kept sorted (the series is at most a few thousand
/// units: 4 GiB of 512 KiB units).
#[derive(Debug, Default)]
struct RunningMedian {
    sorted: Vec<f64>,
}

impl RunningMedian {
    fn push(&mut self, x: f64) {
        let at = self.sorted.partition_point(|v| v.total_cmp(&x).is_lt());
        self.sorted.insert(at, x);
    }

    fn median(&self) -> f64 {
        let v = &self.sorted;
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    /// 4 MiB units at these speeds, MB/s.
    fn series(mb_per_s: &[f64]) -> Vec<Unit> {
        mb_per_s
            .iter()
            .map(|&s| Unit {
                bytes: 4 * MIB,
                seconds: (4 * MIB) as f64 / (s * 1e6),
            })
            .collect()
    }

    #[test]
    fn a_cache_that_fills_leaves_its_cliff_at_the_first_slow_unit() {
        let units = series(&[80.0, 82.0, 79.0, 81.0, 80.0, 12.0, 11.0, 12.5, 12.0, 11.8]);
        let cliff = find(&units).unwrap();
        assert_eq!((cliff.unit, cliff.bytes), (5, 20 * MIB));
    }

    #[test]
    fn a_stall_among_fast_units_is_no_cliff() {
        let units = series(&[80.0, 80.0, 5.0, 80.0, 80.0, 80.0, 80.0, 80.0]);
        assert_eq!(find(&units), None);
        // Two stalls in a row: the window median of three still sees a fast unit after them.
        let units = series(&[80.0, 80.0, 5.0, 5.0, 80.0, 80.0, 80.0, 80.0]);
        assert_eq!(find(&units), None);
    }

    #[test]
    fn one_fast_unit_after_the_fall_does_not_undo_it() {
        let units = series(&[60.0, 61.0, 59.0, 20.0, 21.0, 58.0, 20.0, 19.0, 20.0]);
        let cliff = find(&units).unwrap();
        assert_eq!((cliff.unit, cliff.bytes), (3, 12 * MIB));
    }

    #[test]
    fn a_speed_that_comes_back_did_not_fall_for_good() {
        let units = series(&[60.0, 60.0, 20.0, 20.0, 20.0, 60.0, 60.0, 60.0]);
        assert_eq!(find(&units), None);
    }

    #[test]
    fn a_fall_of_less_than_forty_percent_is_no_cliff() {
        // 61 % of the speed before: a slower stretch, not a cliff.
        let units = series(&[50.0, 50.0, 50.0, 30.5, 30.5, 30.5, 30.5]);
        assert_eq!(find(&units), None);
        let units = series(&[50.0, 50.0, 50.0, 29.5, 29.5, 29.5, 29.5]);
        assert_eq!(find(&units).map(|c| c.bytes), Some(12 * MIB));
    }

    #[test]
    fn a_steady_or_short_series_has_no_cliff() {
        assert_eq!(find(&series(&[20.0; 50])), None);
        assert_eq!(find(&series(&[80.0, 10.0, 10.0])), None);
        // A fall after two units is seen once three are known, and placed where it began.
        let cliff = find(&series(&[80.0, 80.0, 10.0, 10.0, 10.0, 10.0])).unwrap();
        assert_eq!((cliff.unit, cliff.bytes), (2, 8 * MIB));
        // One fast unit, then slow: no speed before to fall from.
        assert_eq!(find(&series(&[500.0, 10.0, 10.0, 10.0, 10.0, 10.0])), None);
        assert_eq!(find(&[]), None);
        // The fall needs WINDOW units after it to count.
        assert_eq!(find(&series(&[80.0, 80.0, 80.0, 10.0, 10.0])), None);
        assert_eq!(
            find(&series(&[80.0, 80.0, 80.0, 10.0, 10.0, 10.0])).map(|c| c.unit),
            Some(3)
        );
    }

    #[test]
    fn one_odd_fast_unit_at_the_start_does_not_set_the_speed_before() {
        // The first unit at 500 MB/s (a buffer), the cache at about 60, then the cliff.
        let units = series(&[500.0, 60.0, 62.0, 58.0, 61.0, 10.0, 10.0, 10.5, 9.8]);
        assert_eq!(find(&units).map(|c| c.bytes), Some(20 * MIB));
        // The fast part slowed by a busy machine, unevenly: still the one fall to 5 MB/s.
        let units = series(&[504.0, 200.0, 210.0, 190.0, 5.0, 4.8, 4.8, 4.8, 4.8, 4.8]);
        assert_eq!(find(&units).map(|c| c.bytes), Some(16 * MIB));
    }

    #[test]
    fn a_slow_start_does_not_hide_the_cliff() {
        // The first unit is slow (the card waking up); the median before the cliff is not.
        let units = series(&[15.0, 90.0, 88.0, 91.0, 90.0, 89.0, 9.0, 9.5, 8.8, 9.1]);
        assert_eq!(find(&units).map(|c| c.bytes), Some(24 * MIB));
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }
}
