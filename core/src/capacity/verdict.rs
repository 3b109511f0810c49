//! From the spots' readings to a verdict: which spots held, where the first bad one is, how
//! far below it everything held, and for a drive that wraps its real size (the modulus, the
//! greatest common divisor of how far each wrapped spot's block landed from where it was
//! written).

use super::pattern::BLOCK_U64;
use super::plan::Plan;
use super::spots::Reading;
use super::{BadSpot, CapacityVerdict, Coverage, Found, SpotCounts, UnsureReason};

/// The share of the drive mounted mode's spots must reach for a verdict of genuine: 0.8 (a
/// filesystem keeps its last block group and metadata out of a file's reach; fakes keep a
/// half or less of what they claim).
pub const COVERED_SHARE: f64 = 0.8;
/// The most bad spots a report lists.
pub const MAX_BAD_SPOTS: usize = 64;

/// What the readings say.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: CapacityVerdict,
    /// The end of the last intact spot below the first bad one (the coverage when none is
    /// bad), bytes.
    pub verified_bytes: u64,
    /// The lowest spot that did not hold its own block (unsure spots not counted).
    pub first_bad_address: Option<u64>,
    /// For a fake: the modulus of the wrap, bytes.
    pub real_bytes: Option<u64>,
    /// How far up the spots reached.
    pub coverage: Coverage,
    /// The tally.
    pub counts: SpotCounts,
    /// The first bad spots, ascending (at most [`MAX_BAD_SPOTS`]).
    pub bad_spots: Vec<BadSpot>,
    /// Why unsure.
    pub unsure: Vec<UnsureReason>,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Judges `readings` (one per spot of `plan`, ascending) of a drive whose spots must reach
/// `covered_share` of it for a verdict of genuine.
///
/// Precedence: spots that consistently wrapped make it [`CapacityVerdict::Fake`]; else spots
/// that consistently held something else [`CapacityVerdict::LosesData`]; else any spot whose
/// reads disagreed or failed [`CapacityVerdict::Unsure`]; else spots that do not reach
/// `covered_share` of the drive, or not above the largest power of two checked,
/// [`CapacityVerdict::NotCheckedBeyond`]; else [`CapacityVerdict::Genuine`].
pub fn judge(plan: &Plan, readings: &[Reading], covered_share: f64) -> Judgement {
    let mut counts = SpotCounts {
        total: readings.len() as u32,
        base: plan.base_spots,
        ..SpotCounts::default()
    };
    let mut bad_spots = Vec::new();
    let mut unsure = Vec::new();
    let mut first_bad = None;
    let mut modulus = 0u64;
    let mut bad = 0u32;
    for r in readings {
        if let Some(why) = &r.unsure {
            counts.unsure += 1;
            unsure.push(why.clone());
            continue;
        }
        match r.found {
            Found::Intact => counts.intact += 1,
            Found::Wrapped { holds } => {
                counts.wrapped += 1;
                if holds < r.spot.address {
                    modulus = gcd(modulus, r.spot.address - holds);
                }
            }
            Found::Zeros => counts.zeros += 1,
            Found::Garbage => counts.garbage += 1,
            Found::Stale => counts.stale += 1,
        }
        if r.found != Found::Intact {
            bad += 1;
            first_bad.get_or_insert(r.spot.address);
            if bad_spots.len() < MAX_BAD_SPOTS {
                bad_spots.push(BadSpot {
                    address: r.spot.address,
                    found: r.found,
                });
            }
        }
    }
    let claimed = plan.claimed_bytes.max(1);
    let reach = plan.reach();
    let coverage = Coverage {
        bytes: reach,
        share: (reach as f64 / claimed as f64).min(1.0),
    };
    let verified_bytes = match first_bad {
        Some(first) => readings
            .iter()
            .filter(|r| r.spot.address < first && r.found == Found::Intact && r.unsure.is_none())
            .map(|r| r.spot.address + BLOCK_U64)
            .max()
            .unwrap_or(0),
        None => reach,
    };
    let above_powers = plan.powers.last().is_none_or(|&p| reach > p);
    let verdict = if modulus > 0 {
        CapacityVerdict::Fake
    } else if bad > 0 {
        CapacityVerdict::LosesData
    } else if !unsure.is_empty() {
        CapacityVerdict::Unsure
    } else if readings.is_empty() || coverage.share < covered_share || !above_powers {
        CapacityVerdict::NotCheckedBeyond
    } else {
        CapacityVerdict::Genuine
    };
    Judgement {
        verdict,
        verified_bytes,
        first_bad_address: first_bad,
        real_bytes: (modulus > 0).then_some(modulus),
        coverage,
        counts,
        bad_spots,
        unsure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::pattern::Block;
    use crate::capacity::plan::MIN_ALIAS_POWER;
    use crate::capacity::spots::classify;
    use crate::units::{GIB, MIB};

    /// Reads `plan` back from a drive that maps address `a` to `map(a)` (None: reads zeros),
    /// after writing it highest first: a simulation of the drive in memory.
    fn simulate(plan: &Plan, map: &dyn Fn(u64) -> Option<u64>) -> Vec<Reading> {
        let mut media = std::collections::HashMap::new();
        for s in plan.write_order() {
            if let Some(p) = map(s.address) {
                media.insert(p, Block::pattern(1, s.address, s.index));
            }
        }
        plan.spots
            .iter()
            .map(|s| {
                let block = map(s.address)
                    .and_then(|p| media.get(&p).cloned())
                    .unwrap_or_else(Block::zeroed);
                Reading {
                    spot: *s,
                    found: classify(&block, s, 1),
                    unsure: None,
                }
            })
            .collect()
    }

    #[test]
    fn a_genuine_drive() {
        let plan = Plan::spread(8 * GIB, 64, MIN_ALIAS_POWER);
        let j = judge(&plan, &simulate(&plan, &|a| Some(a)), COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::Genuine);
        assert_eq!(j.verified_bytes, 8 * GIB);
        assert_eq!(j.first_bad_address, None);
        assert_eq!(j.counts.intact, j.counts.total);
    }

    #[test]
    fn a_wrap_at_any_power_gives_the_exact_real_size() {
        let claimed = 64_000_000_000;
        let plan = Plan::spread(claimed, 256, MIN_ALIAS_POWER);
        for &real in &plan.powers {
            let j = judge(&plan, &simulate(&plan, &|a| Some(a % real)), COVERED_SHARE);
            assert_eq!(j.verdict, CapacityVerdict::Fake, "{real}");
            assert_eq!(j.real_bytes, Some(real));
            assert!(j.first_bad_address.unwrap() >= real);
            assert!(j.verified_bytes <= real);
        }
    }

    #[test]
    fn dropped_writes_beyond_the_real_size_lose_data() {
        let plan = Plan::spread(4 * GIB, 64, MIN_ALIAS_POWER);
        let real = 3 * GIB;
        let j = judge(
            &plan,
            &simulate(&plan, &|a| (a < real).then_some(a)),
            COVERED_SHARE,
        );
        assert_eq!(j.verdict, CapacityVerdict::LosesData);
        assert!(j.first_bad_address.unwrap() >= real);
        assert!(j.verified_bytes <= real && j.verified_bytes > real - 128 * MIB);
        assert!(j.counts.zeros > 0);
    }

    #[test]
    fn disagreeing_reads_are_unsure_never_fake() {
        let plan = Plan::spread(GIB, 16, MIN_ALIAS_POWER);
        let mut readings = simulate(&plan, &|a| Some(a));
        readings[3].found = Found::Wrapped { holds: 0 };
        readings[3].unsure = Some(UnsureReason::RetriesDisagreed {
            address: readings[3].spot.address,
        });
        let j = judge(&plan, &readings, COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::Unsure);
        assert_eq!(j.real_bytes, None);
    }

    #[test]
    fn spots_that_do_not_reach_far_enough() {
        let file = crate::capacity::plan::Ranges::new(vec![(100 * MIB, 200 * MIB)]);
        let plan = Plan::within(4 * GIB, &file, 64, MIN_ALIAS_POWER);
        let j = judge(&plan, &simulate(&plan, &|a| Some(a)), COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::NotCheckedBeyond);
        assert!(j.coverage.share < 0.1);
        let empty = Plan::within(4 * GIB, &Default::default(), 64, MIN_ALIAS_POWER);
        let j = judge(&empty, &[], COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::NotCheckedBeyond);
        assert_eq!(j.coverage.bytes, 0);
    }
}
