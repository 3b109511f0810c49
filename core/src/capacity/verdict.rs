//! From the spots' readings to a verdict: which spots held, where the first bad one is, how
//! far below it everything held, and for a drive that wraps its real size: every wrapped spot
//! and the block it read back lie a multiple of the real size apart, so their greatest common
//! divisor is a multiple of it, and exactly it when two spots were the real size apart (which a
//! ruler plan has for every size that is a multiple of 1 MiB). It is never reported above the
//! lowest address that lost its data to a wrap.

use super::pattern::BLOCK_U64;
use super::plan::{Plan, WRAP_STEP};
use super::spots::Reading;
use super::{BadSpot, CapacityVerdict, Coverage, Found, SpotCounts, UnsureReason};

/// The share of the drive mounted mode's spots must reach for a verdict of genuine: 0.8 (a
/// filesystem keeps its last block group and metadata out of a file's reach; fakes keep a
/// half or less of what they claim). Device mode reaches the last whole 4 KiB block.
pub const COVERED_SHARE: f64 = 0.8;
/// The most bad spots a report lists.
pub const MAX_BAD_SPOTS: usize = 64;

/// A read of the raw drive at `at`, outside the spots. Mounted mode: for a wrap size
/// `distance` that no two spots are apart, where a drive wrapping at `distance` put the highest
/// spot's block. Device mode's sweep of the lowest MiBs: a block of this run found where it was
/// not written, `distance` bytes from the address it names (a multiple of the real size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The wrap size it checks, bytes (a multiple of [`WRAP_STEP`]).
    pub distance: u64,
    /// The address read, bytes.
    pub at: u64,
    /// The address of this run's block found there, when it was one written for another
    /// address.
    pub holds: Option<u64>,
    /// True for device mode's sweep: `at` and `holds` are a multiple of the real size apart.
    /// False for mounted mode's probe of the wrap size `distance`.
    pub swept: bool,
}

/// What the readings say.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: CapacityVerdict,
    /// The end of the last intact spot below the first bad one (the coverage when none is
    /// bad), at most the real size, bytes.
    pub verified_bytes: u64,
    /// The lowest spot that did not hold its own block (unsure spots not counted), or for a
    /// wrap seen only by a probe, the spot whose block landed elsewhere.
    pub first_bad_address: Option<u64>,
    /// For a fake: the real size, bytes (see the module's documentation).
    pub real_bytes: Option<u64>,
    /// How far the evidence reaches: the highest spot, or the wrap sizes ruled out when they
    /// stop below it, and no more than the distance from the lowest spot to the highest.
    pub coverage: Coverage,
    /// Every wrap size that is a multiple of 1 MiB up to this one was ruled out or seen,
    /// bytes.
    pub wraps_checked_bytes: u64,
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

/// The wrap sizes, in units of [`WRAP_STEP`], that `plan`'s grid spots and the `probes` that
/// could be read rule out: the largest `w` with every size `1..=w` covered.
fn wraps_checked(plan: &Plan, probes: &[Probe]) -> u64 {
    let mut cover = plan.wrap_cover();
    for p in probes {
        let d = (p.distance / WRAP_STEP) as usize;
        if p.distance % WRAP_STEP == 0 && d > 0 {
            if cover.len() <= d {
                cover.resize(d + 1, false);
            }
            cover[d] = true;
        }
    }
    super::ruler::covered_up_to(&cover)
}

/// The tally of `readings`, with the wrap evidence: (gcd of the distances, the lowest address
/// that lost its data to a wrap).
struct Tally {
    counts: SpotCounts,
    bad_spots: Vec<BadSpot>,
    unsure: Vec<UnsureReason>,
    first_bad: Option<u64>,
    modulus: u64,
    wrapped_from: Option<u64>,
    bad: u32,
}

fn tally(readings: &[Reading], base: u32) -> Tally {
    let mut t = Tally {
        counts: SpotCounts {
            total: readings.len() as u32,
            base,
            ..SpotCounts::default()
        },
        bad_spots: Vec::new(),
        unsure: Vec::new(),
        first_bad: None,
        modulus: 0,
        wrapped_from: None,
        bad: 0,
    };
    for r in readings {
        if let Some(why) = &r.unsure {
            t.counts.unsure += 1;
            t.unsure.push(why.clone());
            continue;
        }
        match r.found {
            Found::Intact => t.counts.intact += 1,
            Found::Wrapped { holds } => {
                t.counts.wrapped += 1;
                t.wrap(r.spot.address, holds);
            }
            Found::Zeros => t.counts.zeros += 1,
            Found::Garbage => t.counts.garbage += 1,
            Found::Stale => t.counts.stale += 1,
        }
        if r.found != Found::Intact {
            t.bad += 1;
            t.first_bad.get_or_insert(r.spot.address);
            if t.bad_spots.len() < MAX_BAD_SPOTS {
                t.bad_spots.push(BadSpot {
                    address: r.spot.address,
                    found: r.found,
                });
            }
        }
    }
    t
}

impl Tally {
    /// Address `a` read back the block written for `b`: they are a multiple of the real size
    /// apart, and the higher one has no storage of its own.
    fn wrap(&mut self, a: u64, b: u64) {
        if a != b {
            self.modulus = gcd(self.modulus, a.abs_diff(b));
            let high = a.max(b);
            self.wrapped_from = Some(self.wrapped_from.map_or(high, |w| w.min(high)));
        }
    }
}

/// Judges `readings` (one per spot of `plan`, ascending) and the raw `probes` (mounted mode)
/// of a drive whose spots must reach `covered_share` of its whole 4 KiB blocks for a verdict of
/// genuine (1 in device mode).
///
/// Precedence: spots that consistently wrapped, or a probe that found a spot's block, make it
/// [`CapacityVerdict::Fake`]; else spots that consistently held something else
/// [`CapacityVerdict::LosesData`]; else any spot whose reads disagreed or failed
/// [`CapacityVerdict::Unsure`]; else spots that do not reach `covered_share` of the drive, or a
/// wrap size (a multiple of 1 MiB up to the highest spot) that no two spots and no probe
/// rule out, [`CapacityVerdict::NotCheckedBeyond`]; else [`CapacityVerdict::Genuine`]: every
/// spot held, and every wrap size that is a multiple of 1 MiB below the last whole 4 KiB block
/// was ruled out. The coverage is how far that evidence reaches: the highest spot, or the
/// wrap sizes ruled out when they stop below it.
pub fn judge(plan: &Plan, readings: &[Reading], probes: &[Probe], covered_share: f64) -> Judgement {
    let mut t = tally(readings, plan.base_spots);
    // A probe that found a spot's block elsewhere: the drive wraps at its size or at another
    // size that puts the block there too; the smallest such size is never more than the real
    // one (the real size's own probe finds it, and no two spots rule it out). A block the
    // sweep found is a multiple of the real size from where it was written.
    let mut probed: Option<u64> = None;
    for p in probes {
        let Some(holds) = p.holds else { continue };
        // Of two addresses that share a place, the higher has none of its own.
        let high = holds.max(p.at);
        t.first_bad = Some(t.first_bad.map_or(high, |f| f.min(high)));
        if p.swept {
            t.wrap(p.at, holds);
        } else {
            probed = Some(probed.map_or(p.distance, |d| d.min(p.distance)));
        }
    }
    let whole = plan.claimed_bytes / BLOCK_U64 * BLOCK_U64;
    let reach = plan.reach();
    let wraps_checked_bytes = wraps_checked(plan, probes).saturating_mul(WRAP_STEP);
    // How far the evidence reaches: the highest spot, or less where a wrap size below it was
    // not ruled out.
    let top = reach.saturating_sub(BLOCK_U64) / WRAP_STEP * WRAP_STEP;
    let checked = if wraps_checked_bytes < top {
        wraps_checked_bytes
    } else {
        reach
    };
    // Nor more than the spots spread over: a file high up a nearly full filesystem reaches the
    // drive's end, yet its spots see only the top of it.
    let checked = checked.min(plan.span());
    let coverage = Coverage {
        bytes: checked,
        share: (checked as f64 / whole.max(1) as f64).min(1.0),
    };
    let verified_bytes = match t.first_bad {
        Some(first) => readings
            .iter()
            .filter(|r| r.spot.address < first && r.found == Found::Intact && r.unsure.is_none())
            .map(|r| r.spot.address + BLOCK_U64)
            .max()
            .unwrap_or(0),
        None => checked,
    };
    // Every wrap size that is a multiple of 1 MiB and leaves a whole block above it.
    let needed = whole.saturating_sub(BLOCK_U64) / WRAP_STEP * WRAP_STEP;
    let verdict = if t.modulus > 0 || probed.is_some() {
        CapacityVerdict::Fake
    } else if t.bad > 0 {
        CapacityVerdict::LosesData
    } else if !t.unsure.is_empty() {
        CapacityVerdict::Unsure
    } else if readings.is_empty() || coverage.share < covered_share || wraps_checked_bytes < needed
    {
        CapacityVerdict::NotCheckedBeyond
    } else {
        CapacityVerdict::Genuine
    };
    let from_spots = (t.modulus > 0).then(|| t.modulus.min(t.wrapped_from.unwrap_or(u64::MAX)));
    // Spots that wrapped (and swept blocks) give the real size's multiples, with a pair exactly
    // the real size apart where the spots cover it; only without them the probes' smallest size.
    let real_bytes = from_spots.or(probed);
    Judgement {
        verdict,
        // A spot above the real size with no partner below it reads back well, yet nothing
        // above the real size is kept.
        verified_bytes: verified_bytes.min(real_bytes.unwrap_or(u64::MAX)),
        first_bad_address: t.first_bad,
        real_bytes,
        coverage,
        wraps_checked_bytes,
        counts: t.counts,
        bad_spots: t.bad_spots,
        unsure: t.unsure,
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
        let plan = Plan::spread(8 * GIB, 64);
        let j = judge(&plan, &simulate(&plan, &|a| Some(a)), &[], 1.0);
        assert_eq!(j.verdict, CapacityVerdict::Genuine);
        assert_eq!(j.verified_bytes, 8 * GIB);
        assert_eq!(j.first_bad_address, None);
        assert_eq!(j.counts.intact, j.counts.total);
    }

    #[test]
    fn a_wrap_at_any_power_gives_the_exact_real_size() {
        let claimed = 64_000_000_000;
        let plan = Plan::spread(claimed, 256);
        for real in (4..36)
            .map(|k| 1u64 << k)
            .filter(|&p| p >= MIB && p < claimed)
        {
            let j = judge(&plan, &simulate(&plan, &|a| Some(a % real)), &[], 1.0);
            assert_eq!(j.verdict, CapacityVerdict::Fake, "{real}");
            assert_eq!(j.real_bytes, Some(real));
            assert!(j.first_bad_address.unwrap() >= real);
            assert!(j.verified_bytes <= real);
        }
    }

    #[test]
    fn dropped_writes_beyond_the_real_size_lose_data() {
        let plan = Plan::spread(4 * GIB, 64);
        let real = 3 * GIB;
        let j = judge(
            &plan,
            &simulate(&plan, &|a| (a < real).then_some(a)),
            &[],
            1.0,
        );
        assert_eq!(j.verdict, CapacityVerdict::LosesData);
        assert!(j.first_bad_address.unwrap() >= real);
        assert!(j.verified_bytes <= real && j.verified_bytes > real - 128 * MIB);
        assert!(j.counts.zeros > 0);
    }

    #[test]
    fn disagreeing_reads_are_unsure_never_fake() {
        let plan = Plan::spread(GIB, 16);
        let mut readings = simulate(&plan, &|a| Some(a));
        readings[3].found = Found::Wrapped { holds: 0 };
        readings[3].unsure = Some(UnsureReason::RetriesDisagreed {
            address: readings[3].spot.address,
        });
        let j = judge(&plan, &readings, &[], COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::Unsure);
        assert_eq!(j.real_bytes, None);
    }

    #[test]
    fn spots_that_do_not_reach_far_enough() {
        let file = crate::capacity::plan::Ranges::new(vec![(100 * MIB, 200 * MIB)]);
        let plan = Plan::within(4 * GIB, &file, 64, MIN_ALIAS_POWER);
        let j = judge(&plan, &simulate(&plan, &|a| Some(a)), &[], 1.0);
        assert_eq!(j.verdict, CapacityVerdict::NotCheckedBeyond);
        assert!(j.coverage.share < 0.1);
        let empty = Plan::within(4 * GIB, &Default::default(), 64, MIN_ALIAS_POWER);
        let j = judge(&empty, &[], &[], COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::NotCheckedBeyond);
        assert_eq!(j.coverage.bytes, 0);
    }

    #[test]
    fn a_wrap_at_a_whole_mib_of_a_gib_gives_the_exact_real_size() {
        // The ruler alone (two spread spots: the first and the last block). Every 11th MiB and
        // the sizes of the issue (the plan's tests check a pair for every MiB).
        let plan = Plan::spread(GIB, 2);
        let sizes = (1..1024).step_by(11).chain([100, 700, 1000, 1023]);
        for real in sizes.map(|m| m * MIB) {
            let j = judge(&plan, &simulate(&plan, &|a| Some(a % real)), &[], 1.0);
            assert_eq!(j.verdict, CapacityVerdict::Fake, "{real}");
            assert_eq!(j.real_bytes, Some(real));
            assert!(j.first_bad_address.unwrap() >= real);
            assert!(j.verified_bytes <= real);
        }
    }

    #[test]
    fn a_wrap_below_1_mib_is_seen_and_never_overstated() {
        let plan = Plan::spread(GIB, 256);
        for real in [4096, 64 * 1024, 512 * 1024] {
            let j = judge(&plan, &simulate(&plan, &|a| Some(a % real)), &[], 1.0);
            assert_eq!(j.verdict, CapacityVerdict::Fake, "{real}");
            assert_eq!(j.real_bytes, Some(real));
        }
    }

    #[test]
    fn writes_dropped_beyond_any_size_lose_data_below_it() {
        let plan = Plan::spread(GIB, 64);
        for real in [100 * MIB, 700 * MIB, 1000 * MIB, GIB - 4096] {
            let j = judge(
                &plan,
                &simulate(&plan, &|a| (a < real).then_some(a)),
                &[],
                1.0,
            );
            assert_eq!(j.verdict, CapacityVerdict::LosesData, "{real}");
            assert!(j.first_bad_address.unwrap() >= real);
            assert!(j.verified_bytes <= real);
        }
    }

    #[test]
    fn a_size_that_is_no_multiple_of_4_kib_is_genuine_up_to_its_last_whole_block() {
        let claimed = 16 * MIB + 512;
        let plan = Plan::spread(claimed, DEFAULT_SPOTS_FOR_TESTS);
        let j = judge(&plan, &simulate(&plan, &|a| Some(a)), &[], 1.0);
        assert_eq!(j.verdict, CapacityVerdict::Genuine);
        assert_eq!(j.verified_bytes, 16 * MIB);
        assert_eq!(j.coverage.bytes, 16 * MIB);
        assert_eq!(j.coverage.share, 1.0);
        assert_eq!(j.wraps_checked_bytes, 15 * MIB);
    }

    const DEFAULT_SPOTS_FOR_TESTS: u32 = crate::capacity::plan::DEFAULT_SPOTS;

    #[test]
    fn a_plan_that_leaves_wrap_sizes_open_is_not_genuine() {
        // Spots only in the top 70 MiB of a 1 GiB drive (a mounted filesystem with little
        // free space): a wrap at 700 MiB puts nothing on any spot.
        let file = crate::capacity::plan::Ranges::new(vec![(954 * MIB, 70 * MIB)]);
        let (grid, ruler) = Plan::ruler_within(&file);
        let plan = Plan {
            grid,
            ..Plan::within(GIB, &file, 256, MIN_ALIAS_POWER)
        }
        .with(ruler);
        let j = judge(&plan, &simulate(&plan, &|a| Some(a)), &[], COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::NotCheckedBeyond);
        assert!(
            j.wraps_checked_bytes < 70 * MIB,
            "{}",
            j.wraps_checked_bytes
        );
        assert!(j.coverage.share < 0.1, "{}", j.coverage.share);
        // A probe that finds a spot's block where a 700 MiB wrap puts it: fake, 700 MiB.
        let top = plan.spots.last().unwrap().address;
        let probe = Probe {
            distance: 700 * MIB,
            at: top - 700 * MIB,
            holds: Some(top),
            swept: false,
        };
        let j = judge(
            &plan,
            &simulate(&plan, &|a| Some(a)),
            &[probe],
            COVERED_SHARE,
        );
        assert_eq!(j.verdict, CapacityVerdict::Fake);
        assert_eq!(j.real_bytes, Some(700 * MIB));
    }
}
