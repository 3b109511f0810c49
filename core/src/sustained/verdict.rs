//! The one judge of the sustained write test: from what was written and read back to the
//! [`SustainedResult`] (the cliff, the speeds, the worst latency, the markings) and the run's
//! verdict. The test measures; it is not graded, except that a card that returned wrong data
//! fails: it never passes.

use crate::card::CardInfo;
use crate::verdict::Verdict;

use super::measure::{latency, Written};
use super::plan::Plan;
use super::verify::Verified;
use super::{cliff, markings, SustainedResult};

/// The result of a sustained test that wrote `written` (planned as `plan`) and read back
/// `verified`, on `card` (its SD Status for the claims, its link for what this computer can
/// show).
pub fn judge(
    plan: &Plan,
    written: Written,
    verified: &Verified,
    card: Option<&CardInfo>,
) -> SustainedResult {
    let cliff = cliff::find(&written.units);
    let seconds = |units: &[cliff::Unit]| units.iter().map(|u| u.seconds).sum::<f64>();
    let bytes = |units: &[cliff::Unit]| units.iter().map(|u| u.bytes).sum::<u64>();
    let speed = |units: &[cliff::Unit]| {
        let s = seconds(units);
        if s > 0.0 {
            bytes(units) as f64 / s
        } else {
            0.0
        }
    };
    let (before, after) = match cliff {
        Some(c) => (
            speed(&written.units[..c.unit]),
            Some(speed(&written.units[c.unit..])),
        ),
        None => (speed(&written.units), None),
    };
    let sustained = after.unwrap_or(before);
    let link = card
        .and_then(|c| c.link.as_ref())
        .map(|l| l.practical_bw_bytes.unwrap_or(l.max_bw_bytes));
    let ssr = card.and_then(|c| c.ssr.as_ref());
    let lat = latency(&written.latencies_us);
    SustainedResult {
        planned_bytes: plan.max_bytes,
        unit_bytes: plan.unit_bytes,
        unit_from_card: plan.unit_from_card,
        written_bytes: written.bytes,
        settled_early: written.settled,
        cliff_bytes: cliff.map(|c| c.bytes),
        before_bytes_per_second: before,
        after_bytes_per_second: after,
        sustained_bytes_per_second: sustained,
        max_latency_us: lat.max,
        p99_latency_us: lat.p99,
        verified_bytes: verified.bytes,
        corrupt_blocks: verified.corrupt_blocks,
        first_corrupt_bytes: verified.first_corrupt,
        link_bytes_per_second: link,
        markings: markings::judge(sustained, link, ssr),
        samples: written.samples,
    }
}

/// The run's verdict: FAIL when any block read back wrong, else NOT_GRADED (the test
/// measures; it never passes).
pub fn verdict(result: &SustainedResult) -> Verdict {
    if result.corrupt_blocks > 0 {
        Verdict::Fail
    } else {
        Verdict::NotGraded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PhaseResult;
    use crate::sustained::SpeedSample;

    const MIB: u64 = 1 << 20;

    fn written(speeds_mb: &[f64]) -> Written {
        let units: Vec<cliff::Unit> = speeds_mb
            .iter()
            .map(|s| cliff::Unit {
                bytes: 4 * MIB,
                seconds: (4 * MIB) as f64 / (s * 1e6),
            })
            .collect();
        Written {
            bytes: 4 * MIB * units.len() as u64,
            latencies_us: units.iter().map(|u| u.seconds * 1e6).collect(),
            units,
            samples: vec![SpeedSample {
                bytes: 4 * MIB,
                bytes_per_second: 1.0,
            }],
            settled: false,
            phase: PhaseResult::default(),
        }
    }

    fn verified(bytes: u64, corrupt_blocks: u64) -> Verified {
        Verified {
            bytes,
            corrupt_blocks,
            first_corrupt: (corrupt_blocks > 0).then_some(0),
            phase: PhaseResult::default(),
        }
    }

    #[test]
    fn speeds_either_side_of_the_cliff_and_the_markings_from_after_it() {
        let plan = Plan::new(1 << 40, None, 40 * MIB).unwrap();
        let w = written(&[40.0, 40.0, 40.0, 8.0, 8.0, 8.0, 8.0]);
        let r = judge(&plan, w, &verified(28 * MIB, 0), None);
        assert_eq!(r.cliff_bytes, Some(12 * MIB));
        assert!((r.before_bytes_per_second - 40e6).abs() < 1.0);
        assert!((r.after_bytes_per_second.unwrap() - 8e6).abs() < 1.0);
        assert_eq!(
            r.sustained_bytes_per_second,
            r.after_bytes_per_second.unwrap()
        );
        assert_eq!(markings::best_met(&r.markings), ["C6", "V6"]);
        assert!((r.max_latency_us - (4 * MIB) as f64 / 8.0).abs() < 1e-6);
        assert_eq!(verdict(&r), Verdict::NotGraded);
    }

    #[test]
    fn no_cliff_gives_one_speed_and_corrupt_data_fails() {
        let plan = Plan::new(1 << 40, None, 40 * MIB).unwrap();
        let r = judge(
            &plan,
            written(&[20.0; 6]),
            &verified(24 * MIB - 8192, 2),
            None,
        );
        assert_eq!((r.cliff_bytes, r.after_bytes_per_second), (None, None));
        assert!((r.sustained_bytes_per_second - 20e6).abs() < 1.0);
        assert_eq!(r.corrupt_blocks, 2);
        assert_eq!(verdict(&r), Verdict::Fail);
    }
}
