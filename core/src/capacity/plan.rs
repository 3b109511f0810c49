//! Where the spots go. Device mode: spots on a sparse [`ruler`](super::ruler) 1 MiB apart over
//! the whole drive, so that for every real size `R` that is a multiple of 1 MiB two spots are
//! exactly `R` apart, plus a few hundred spots spread evenly (blocks that lose their data) and
//! the last whole 4 KiB block. A drive that wraps at `R` (a write at `P` lands at `P mod R`)
//! then makes a high spot and a low one collide; as the spots are written highest first, the
//! low one is written last and wins, and the high spot reads back the low one's block, which
//! names the address it was written for.
//!
//! Mounted mode ([`Plan::within`]) may write only inside one file's extents: first spots whose
//! aliases `P mod 2^k` under the powers of two all lie inside the file (a drive that wraps at a
//! power of two, as most fakes do, then only ever overwrites the file itself), then a ruler
//! inside the file ([`Plan::ruler_within`]). What a plan rules out is computed from its spots
//! ([`Plan::wrap_cover`]), never assumed. Every address is a multiple of 4 KiB and a u64
//! (32-bit safe).

use super::pattern::BLOCK_U64;
use crate::units::MIB;

/// The smallest power of two whose aliases are checked: 16 MiB.
pub const MIN_ALIAS_POWER: u64 = 16 * MIB;
/// How many base spots a check spreads over the drive unless told otherwise (besides the
/// ruler's): enough that a drive losing 1 % of its blocks is seen (0.99^1024 < 0.01 %).
pub const DEFAULT_SPOTS: u32 = 1024;
/// The step of the wrap sizes a plan rules out, and the ruler's unit: 1 MiB.
pub const WRAP_STEP: u64 = MIB;
/// How many distances [`Plan::ruler_within`] repairs with extra pairs when holes in the file
/// moved ruler marks.
const REPAIRS: usize = 64;
/// How many low offsets [`Plan::within`] tries under the smallest power.
const LOW_SAMPLES: usize = 256;
/// [`Plan::within`] checks aliases from the smallest power `p` of which the file holds at
/// least `p / DENSE` bytes below `p`.
const DENSE: u64 = 4;
/// How many multiples of the smallest power [`Plan::within`] tries around each target.
const REACH: u64 = 64;

/// One spot: a 4 KiB block at a drive address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Spot {
    /// Its position in [`Plan::spots`] (ascending addresses), written into its block.
    pub index: u32,
    /// Its absolute drive address, bytes, a multiple of 4 KiB.
    pub address: u64,
}

/// The spots of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The size the drive claims, bytes.
    pub claimed_bytes: u64,
    /// The powers of two whose aliases were added, ascending, bytes.
    pub powers: Vec<u64>,
    /// How many base spots were chosen (before aliases).
    pub base_spots: u32,
    /// Every spot, base and alias, ascending by address, without duplicates.
    pub spots: Vec<Spot>,
    /// The spots whose addresses are `grid` modulo [`WRAP_STEP`] are the ruler's: their
    /// distances are the wrap sizes the plan rules out ([`Plan::wrap_cover`]), bytes.
    pub grid: u64,
}

/// The powers of two `p` with `min ≤ p < claimed` (`min` rounded up to a power of two).
pub fn powers(min: u64, claimed: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut p = min.max(1).checked_next_power_of_two();
    while let Some(v) = p.filter(|&v| v < claimed) {
        out.push(v);
        p = v.checked_mul(2);
    }
    out
}

/// The aliases of `address` under `powers`: `address mod p` for each `p ≤ address`
/// (a smaller address is its own alias), highest first.
pub fn aliases(address: u64, powers: &[u64]) -> impl Iterator<Item = u64> + '_ {
    powers
        .iter()
        .rev()
        .filter(move |&&p| p <= address)
        .map(move |&p| address % p)
}

/// Sorted, non-overlapping address ranges (start, length), bytes: the drive addresses of a
/// file's extents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ranges(Vec<(u64, u64)>);

impl Ranges {
    /// The ranges `list` (any order, may touch or overlap), merged.
    pub fn new(mut list: Vec<(u64, u64)>) -> Ranges {
        list.retain(|r| r.1 > 0);
        list.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::with_capacity(list.len());
        for (start, len) in list {
            match out.last_mut() {
                Some((s, l)) if start <= *s + *l => *l = (*l).max(start + len - *s),
                _ => out.push((start, len)),
            }
        }
        Ranges(out)
    }

    /// The ranges, ascending.
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.0
    }

    /// The bytes of the ranges below `end`.
    pub fn bytes_below(&self, end: u64) -> u64 {
        self.0
            .iter()
            .filter(|r| r.0 < end)
            .map(|&(s, l)| (s + l).min(end) - s)
            .sum()
    }

    /// True when the 4 KiB block at `address` lies wholly inside one range.
    pub fn holds_block(&self, address: u64) -> bool {
        let i = self.0.partition_point(|&(s, _)| s <= address);
        i > 0 && {
            let (s, l) = self.0[i - 1];
            address.saturating_add(BLOCK_U64) <= s + l
        }
    }

    /// Up to `n` 4 KiB-aligned block addresses inside the ranges that lie below `below`,
    /// spread evenly over their total length.
    fn samples_below(&self, below: u64, n: usize) -> Vec<u64> {
        let clipped: Vec<(u64, u64)> = self
            .0
            .iter()
            .filter(|r| r.0 < below)
            .map(|&(s, l)| {
                let start = s.next_multiple_of(BLOCK_U64);
                let end = (s + l).min(below) / BLOCK_U64 * BLOCK_U64;
                (start, end.saturating_sub(start))
            })
            .filter(|r| r.1 >= BLOCK_U64)
            .collect();
        let blocks: u64 = clipped.iter().map(|r| r.1 / BLOCK_U64).sum();
        if blocks == 0 {
            return Vec::new();
        }
        let n = (n as u64).min(blocks);
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n {
            let mut k = i * blocks / n + blocks / (2 * n);
            for &(s, l) in &clipped {
                if k < l / BLOCK_U64 {
                    out.push(s + k * BLOCK_U64);
                    break;
                }
                k -= l / BLOCK_U64;
            }
        }
        out
    }
}

impl Plan {
    /// `base` spots spread evenly over the drive's whole 4 KiB blocks (the first block, the
    /// last whole block and evenly between) and the marks of a sparse ruler 1 MiB apart from
    /// address 0 up to the last whole block: every wrap size that is a multiple of 1 MiB below
    /// the claimed size has two spots that far apart. Device mode. A tail shorter than 4 KiB
    /// (a size that is no multiple of 4 KiB) holds no spot.
    pub fn spread(claimed: u64, base: u32) -> Plan {
        let blocks = claimed / BLOCK_U64;
        let Some(last) = blocks.checked_sub(1) else {
            return Plan::from_bases(claimed, Vec::new(), Vec::new());
        };
        let n = u64::from(base.max(2)).min(last + 1);
        let mut all: Vec<u64> = (0..n)
            .map(|i| if n == 1 { 0 } else { i * last / (n - 1) } * BLOCK_U64)
            .collect();
        let m = last * BLOCK_U64 / WRAP_STEP;
        all.extend(super::ruler::marks(m).into_iter().map(|u| u * WRAP_STEP));
        let mut plan = Plan::from_bases(claimed, Vec::new(), Vec::new()).with(all);
        plan.base_spots = n as u32;
        plan
    }

    /// Up to `base` spots spread over `[0, claimed)` such that each spot and every one of its
    /// aliases lies inside `inside` (a file's extents, drive addresses). The aliases checked are
    /// those under the powers of two from `min_power`, raised to the smallest power `p` of which
    /// the file holds at least a quarter below `p` (below the file's lowest address no alias
    /// can be inside it, and just above, too few places qualify), up to below `claimed`. A
    /// drive that wrapped below that power could not hold the filesystem the file is on. Spots are placed as near as the extents allow to evenly spread targets;
    /// a target with no usable place near it is left out. Mounted mode.
    pub fn within(claimed: u64, inside: &Ranges, base: u32, min_power: u64) -> Plan {
        if inside.as_slice().is_empty() {
            return Plan::from_bases(claimed, Vec::new(), Vec::new());
        }
        let floor = powers(min_power, u64::MAX)
            .into_iter()
            .find(|&p| inside.bytes_below(p) >= p / DENSE)
            .unwrap_or(u64::MAX);
        let powers = powers(floor, claimed);
        let usable = |p: u64| {
            p.saturating_add(BLOCK_U64) <= claimed
                && inside.holds_block(p)
                && aliases(p, &powers).all(|a| inside.holds_block(a))
        };
        let low = inside.samples_below(floor.min(claimed), LOW_SAMPLES);
        let last = (claimed / BLOCK_U64).saturating_sub(1);
        let n = u64::from(base.max(2));
        let mut bases = Vec::new();
        for i in 0..n {
            let target = i * last / (n - 1) * BLOCK_U64;
            if let Some(p) = nearest(target, floor, &low, &usable) {
                bases.push(p);
            }
        }
        bases.sort_unstable();
        bases.dedup();
        Plan::from_bases(claimed, bases, powers)
    }

    /// The plan of the base spots `bases` (multiples of 4 KiB) with their aliases under
    /// `powers`.
    pub fn from_bases(claimed: u64, bases: Vec<u64>, powers: Vec<u64>) -> Plan {
        let base_spots = bases.len() as u32;
        let mut all: Vec<u64> = bases
            .iter()
            .flat_map(|&b| std::iter::once(b).chain(aliases(b, &powers)))
            .collect();
        all.sort_unstable();
        all.dedup();
        let spots = all
            .into_iter()
            .enumerate()
            .map(|(i, address)| Spot {
                index: i as u32,
                address,
            })
            .collect();
        Plan {
            claimed_bytes: claimed,
            powers,
            base_spots,
            spots,
            grid: 0,
        }
    }

    /// This plan with the spots at `extra` (multiples of 4 KiB, no aliases added) too,
    /// re-indexed.
    pub fn with(mut self, extra: Vec<u64>) -> Plan {
        let mut all: Vec<u64> = self.spots.iter().map(|s| s.address).chain(extra).collect();
        all.sort_unstable();
        all.dedup();
        self.spots = all
            .into_iter()
            .enumerate()
            .map(|(i, address)| Spot {
                index: i as u32,
                address,
            })
            .collect();
        self
    }

    /// Which wrap sizes the plan's grid spots rule out: `out[d]` is true when two of them are
    /// `d` × [`WRAP_STEP`] apart (see [`super::ruler::covered`]).
    pub fn wrap_cover(&self) -> Vec<bool> {
        let units: Vec<u64> = self
            .spots
            .iter()
            .filter(|s| s.address % WRAP_STEP == self.grid)
            .map(|s| s.address / WRAP_STEP)
            .collect();
        super::ruler::covered(&units)
    }

    /// The addresses of a sparse ruler inside `inside` (a file's extents): 1 MiB apart, all
    /// at the same offset within their MiB as the start of the file's longest extent (returned
    /// first), from the lowest such block inside the file to the highest. A mark that falls in
    /// a hole of the file moves to the nearest block of the grid inside it; distances that
    /// leaves uncovered get a pair of their own, up to [`REPAIRS`] of them. Mounted mode.
    pub fn ruler_within(inside: &Ranges) -> (u64, Vec<u64>) {
        let Some(&(start, _)) = inside.as_slice().iter().max_by_key(|r| r.1) else {
            return (0, Vec::new());
        };
        let grid = start.next_multiple_of(BLOCK_U64) % WRAP_STEP;
        let at = |u: u64| u * WRAP_STEP + grid;
        let ok = |u: u64| inside.holds_block(at(u));
        let (first, end) = match (inside.as_slice().first(), inside.as_slice().last()) {
            (Some(f), Some(l)) => (f.0 / WRAP_STEP, (l.0 + l.1) / WRAP_STEP + 1),
            _ => return (grid, Vec::new()),
        };
        let (Some(lo), Some(hi)) = (
            (first..end).find(|&u| ok(u)),
            (first..end).rev().find(|&u| ok(u)),
        ) else {
            return (grid, Vec::new());
        };
        let nearest = |u: u64| {
            (0..=8)
                .flat_map(|k| [u + k, u.saturating_sub(k)])
                .find(|&v| v >= lo && v <= hi && ok(v))
        };
        let mut units: Vec<u64> = super::ruler::marks(hi - lo)
            .into_iter()
            .filter_map(|u| nearest(lo + u))
            .collect();
        let mut cover = super::ruler::covered(&units);
        let mut repairs = 0;
        while let Some(d) = cover.iter().skip(1).position(|&c| !c).map(|i| i as u64 + 1) {
            let pair = (lo..=hi.saturating_sub(d))
                .take(4096)
                .find(|&a| ok(a) && ok(a + d));
            match pair {
                Some(a) if repairs < REPAIRS => {
                    units.extend([a, a + d]);
                    cover = super::ruler::covered(&units);
                    repairs += 1;
                }
                _ => break,
            }
        }
        (grid, units.into_iter().map(at).collect())
    }

    /// The spots in the order they are written: highest address first, so that a low alias
    /// is written after every spot that wraps onto it.
    pub fn write_order(&self) -> impl Iterator<Item = &Spot> {
        self.spots.iter().rev()
    }

    /// Bytes written (and read back): 4 KiB per spot.
    pub fn bytes(&self) -> u64 {
        self.spots.len() as u64 * BLOCK_U64
    }

    /// The end of the highest spot, bytes: how far up the drive the plan reaches (0 for no
    /// spots).
    pub fn reach(&self) -> u64 {
        self.spots.last().map_or(0, |s| s.address + BLOCK_U64)
    }

    /// The bytes between the lowest spot and the end of the highest: how much of the drive
    /// the spots see (a file high up a nearly full filesystem reaches the drive's end, yet
    /// its spots see only the top of it).
    pub fn span(&self) -> u64 {
        self.reach() - self.spots.first().map_or(0, |s| s.address)
    }

    /// The share of a drive of `claimed` bytes that the spots can vouch for, 0 to 1: the
    /// most a check on this plan can call checked.
    pub fn span_share(&self, claimed: u64) -> f64 {
        let whole = claimed / BLOCK_U64 * BLOCK_U64;
        (self.span() as f64 / whole.max(1) as f64).min(1.0)
    }

    /// The spot at `address`, if any.
    pub fn spot_at(&self, address: u64) -> Option<&Spot> {
        self.spots
            .binary_search_by_key(&address, |s| s.address)
            .ok()
            .map(|i| &self.spots[i])
    }
}

/// The usable address nearest `target`: `hi + x` for `x` among the `low` offsets and `hi` the
/// multiples of `floor` around `target`, nearest first, trying at most [`REACH`] multiples on
/// each side.
fn nearest(target: u64, floor: u64, low: &[u64], usable: &dyn Fn(u64) -> bool) -> Option<u64> {
    let mut best: Option<u64> = None;
    let centre = if floor == u64::MAX { 0 } else { target / floor };
    let dist = |p: u64| p.abs_diff(target);
    for step in 0..=REACH {
        for j in [centre.checked_add(step), centre.checked_sub(step)]
            .into_iter()
            .flatten()
        {
            let hi = if floor == u64::MAX {
                0
            } else {
                match j.checked_mul(floor) {
                    Some(v) => v,
                    None => continue,
                }
            };
            for &x in low {
                let Some(p) = hi.checked_add(x) else { continue };
                if best.is_none_or(|b| dist(p) < dist(b)) && usable(p) {
                    best = Some(p);
                }
            }
        }
        // A later multiple is at least (step - 1) × floor away.
        if let (Some(b), true) = (best, floor != u64::MAX) {
            if dist(b) < step.saturating_sub(1).saturating_mul(floor) {
                break;
            }
        }
        if floor == u64::MAX {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::GIB;

    #[test]
    fn powers_run_from_the_smallest_to_below_the_claimed_size() {
        assert_eq!(
            powers(16 * MIB, 64 * MIB + 1),
            [16 * MIB, 32 * MIB, 64 * MIB]
        );
        assert_eq!(powers(16 * MIB, 64 * MIB), [16 * MIB, 32 * MIB]);
        assert_eq!(powers(16 * MIB, 8 * MIB), Vec::<u64>::new());
        assert_eq!(powers(1, 5), [1, 2, 4]);
        assert_eq!(powers(3 << 62, u64::MAX), Vec::<u64>::new());
        assert_eq!(powers(1 << 63, u64::MAX), [1 << 63]);
    }

    #[test]
    fn the_ruler_covers_every_wrap_size_up_to_the_last_block() {
        // A "32 GB" and a "1 TB" card, 1 GiB, and sizes that are no multiple of 1 MiB or 4 KiB.
        for claimed in [
            32_000_000_000,
            1_000_204_886_016,
            GIB,
            16 * MIB + 512,
            8 * GIB + 12345 * 4096,
            5 * 4096,
        ] {
            let plan = Plan::spread(claimed, DEFAULT_SPOTS);
            let last_block = (claimed / 4096 - 1) * 4096;
            assert_eq!(plan.spots.first().unwrap().address, 0);
            assert_eq!(plan.spots.last().unwrap().address, last_block);
            assert_eq!(plan.reach(), claimed / 4096 * 4096);
            let covered = crate::capacity::ruler::covered_up_to(&plan.wrap_cover());
            assert_eq!(covered, last_block / MIB, "{claimed}");
            for s in &plan.spots {
                assert_eq!(s.address % 4096, 0);
                assert!(s.address + 4096 <= claimed);
            }
            for (i, w) in plan.spots.windows(2).enumerate() {
                assert!(w[0].address < w[1].address);
                assert_eq!(w[0].index as usize, i);
            }
            assert!(plan.powers.is_empty());
            assert_eq!(plan.bytes(), plan.spots.len() as u64 * 4096);
        }
        // Small on a Pi: a few thousand spots for 1 TB, a few hundred besides the spread ones
        // for 32 GB.
        let tb = Plan::spread(1_000_204_886_016, DEFAULT_SPOTS).spots.len();
        assert!((2900..3100).contains(&tb), "{tb}");
        let gb32 = Plan::spread(32_000_000_000, DEFAULT_SPOTS).spots.len();
        assert!((1350..1450).contains(&gb32), "{gb32}");
    }

    #[test]
    fn spots_are_written_highest_first() {
        let plan = Plan::spread(GIB, 16);
        let order: Vec<u64> = plan.write_order().map(|s| s.address).collect();
        assert!(order.windows(2).all(|w| w[0] > w[1]));
        assert_eq!(order.len(), plan.spots.len());
    }

    #[test]
    fn a_wrap_at_any_mib_makes_two_spots_exactly_that_far_apart() {
        let claimed = 3 * GIB + 12345 * 4096;
        let plan = Plan::spread(claimed, 64);
        for r in (MIB..claimed).step_by(MIB as usize) {
            let collide = plan
                .spots
                .iter()
                .filter(|s| s.address >= r)
                .any(|s| plan.spot_at(s.address - r).is_some());
            assert!(collide, "no pair {r} apart");
        }
    }

    #[test]
    fn a_ruler_inside_a_file_with_holes() {
        // A 4 GiB drive; the file starts at 37 MiB + 12 KiB, with a few blocks missing every
        // 128 MiB (backup superblocks).
        let mut list = Vec::new();
        let mut at = 37 * MIB + 12288;
        while at < 3900 * MIB {
            list.push((at, 128 * MIB - 16384));
            at += 128 * MIB;
        }
        let file = Ranges::new(list);
        let (grid, ruler) = Plan::ruler_within(&file);
        assert_eq!(grid, 12288);
        let plan = Plan::within(4 * GIB, &file, 64, MIN_ALIAS_POWER);
        let plan = Plan { grid, ..plan }.with(ruler);
        for s in &plan.spots {
            assert!(file.holds_block(s.address), "{}", s.address);
        }
        let span = (plan.reach() - 4096 - 37 * MIB) / MIB;
        let covered = crate::capacity::ruler::covered_up_to(&plan.wrap_cover());
        assert!(covered + 2 >= span, "{covered} of {span}");
        assert!(plan.spots.len() < 400, "{}", plan.spots.len());
    }

    #[test]
    fn ranges_merge_and_hold_whole_blocks() {
        let r = Ranges::new(vec![(8192, 4096), (0, 4096), (4096, 4096), (20_000, 100)]);
        assert_eq!(r.as_slice(), &[(0, 12288), (20_000, 100)]);
        assert!(r.holds_block(0) && r.holds_block(8192));
        assert!(!r.holds_block(12288));
        assert!(!r.holds_block(20_000));
    }

    #[test]
    fn within_keeps_every_spot_and_alias_inside_the_file() {
        // A 4 GiB "drive" with a partition from 256 MiB; the file has three extents.
        let claimed = 4 * GIB;
        let file = Ranges::new(vec![
            (300 * MIB, 200 * MIB),
            (600 * MIB, 1400 * MIB),
            (2100 * MIB, 1900 * MIB),
        ]);
        let plan = Plan::within(claimed, &file, 128, MIN_ALIAS_POWER);
        assert_eq!(plan.powers, [512 * MIB, GIB, 2 * GIB]);
        // Only addresses whose low 512 MiB fall inside the first extent qualify: about 8 of
        // each 16 targets per 512 MiB find a place of their own.
        assert!(plan.base_spots > 48, "{}", plan.base_spots);
        for s in &plan.spots {
            assert!(file.holds_block(s.address), "{}", s.address);
            for a in aliases(s.address, &plan.powers) {
                assert!(file.holds_block(a));
                assert!(plan.spot_at(a).is_some());
            }
        }
        // Spread up to near the end of the file.
        assert!(plan.reach() > 3900 * MIB, "{}", plan.reach());
    }

    #[test]
    fn within_an_empty_or_small_file() {
        let plan = Plan::within(GIB, &Ranges::default(), 64, MIN_ALIAS_POWER);
        assert!(plan.spots.is_empty());
        assert_eq!(plan.reach(), 0);
        let file = Ranges::new(vec![(100 * MIB, 10 * MIB)]);
        let plan = Plan::within(GIB, &file, 64, MIN_ALIAS_POWER);
        assert!(!plan.spots.is_empty());
        assert!(plan.reach() <= 110 * MIB);
        for s in &plan.spots {
            assert!(file.holds_block(s.address));
        }
    }
}
