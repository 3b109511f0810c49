//! The read-only sweep of the ruler's lowest MiBs after the read-back (device mode: the
//! drive's lowest; mounted mode: those of the ruler inside the check's file, read from the raw
//! disk). The ruler's marks `0, 1, …, k-1` MiB (from its lowest) are consecutive, and every distance of `q` MiB is that between
//! one of them, `a`, and a higher mark. A drive that wraps at a real size `R = q MiB + r` that
//! is no whole number of MiB (`0 < r < 1 MiB`) puts the block of the mark `a + (q+1) MiB` at
//! `a + 1 MiB - r`, between two low marks, where no spot is: the spots all read back their own
//! blocks, but the sweep finds that block where it was not written. Its distance from the
//! address it names is a multiple of `R`, and the smallest such distance is `R`. Nothing is
//! written; the sweep stops at [`MAX_SWEEP`] (a drive over about 64 GB is swept only in
//! part) and when the check is stopped.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};

use super::pattern::{decode, Block, Content, BLOCK, BLOCK_U64};
use super::plan::{Plan, WRAP_STEP};
use super::verdict::Probe;

/// The most the sweep reads: 256 MiB.
pub const MAX_SWEEP: u64 = 256 * WRAP_STEP;
/// Blocks read at once: 1 MiB.
const CHUNK: usize = (WRAP_STEP / BLOCK_U64) as usize;

/// What the sweep found and read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Swept {
    /// Every block of this run found at an address other than the one it names (`distance`
    /// the bytes between the two), outside the spots.
    pub probes: Vec<Probe>,
    /// Bytes read.
    pub bytes: u64,
    /// True when the check was stopped during the sweep (what was swept so far is kept).
    pub cancelled: bool,
}

/// The region to sweep, `(start, end)` bytes: from the lowest spot on the plan's grid (its
/// ruler's marks, `grid` modulo 1 MiB) up to the first whole MiB after it with no spot (the
/// low marks end there), at most [`MAX_SWEEP`] and the plan's reach.
pub fn region(plan: &Plan) -> (u64, u64) {
    let Some(start) = plan
        .spots
        .iter()
        .map(|s| s.address)
        .find(|a| a % WRAP_STEP == plan.grid)
    else {
        return (0, 0);
    };
    let mut u = 0;
    while plan.spot_at(start + u * WRAP_STEP).is_some() {
        u += 1;
    }
    let end = (start + (u * WRAP_STEP).min(MAX_SWEEP)).min(plan.reach() / BLOCK_U64 * BLOCK_U64);
    (start, end)
}

/// Sweeps `file` (the whole device, O_DIRECT, read-only) over [`region`] for the run `key`. A
/// read that fails ends the sweep (what was found so far is kept).
pub fn low_mibs(file: &File, plan: &Plan, key: u64, cancel: &AtomicBool) -> Swept {
    sweep_with(plan, key, cancel, &mut |at, buf| {
        file.read_exact_at(buf, at)
    })
}

/// [`low_mibs`] with `read` filling a buffer from a drive address.
pub(crate) fn sweep_with(
    plan: &Plan,
    key: u64,
    cancel: &AtomicBool,
    read: &mut dyn FnMut(u64, &mut [u8]) -> io::Result<()>,
) -> Swept {
    let (mut at, end) = region(plan);
    let mut out = Swept::default();
    let mut chunk: Vec<Block> = vec![Block([0; BLOCK]); CHUNK];
    while at < end {
        if cancel.load(Ordering::SeqCst) {
            out.cancelled = true;
            break;
        }
        let n = (((end - at) / BLOCK_U64) as usize).min(CHUNK);
        // SAFETY: `Block` is `repr(C)` around `[u8; BLOCK]`, so `n ≤ CHUNK` blocks of the
        // vector are `n * BLOCK` contiguous, initialised bytes, borrowed mutably once.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(chunk.as_mut_ptr().cast::<u8>(), n * BLOCK) };
        if read(at, bytes).is_err() {
            break;
        }
        out.bytes += bytes.len() as u64;
        for (i, block) in chunk[..n].iter().enumerate() {
            let here = at + i as u64 * BLOCK_U64;
            if plan.spot_at(here).is_some() {
                continue;
            }
            if let Content::Ours { address, .. } = decode(block, key) {
                if address != here {
                    out.probes.push(Probe {
                        distance: address.abs_diff(here),
                        at: here,
                        holds: Some(address),
                        swept: true,
                    });
                }
            }
        }
        at += n as u64 * BLOCK_U64;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::spots::{classify, Reading};
    use crate::capacity::{verdict, CapacityVerdict, Found};
    use crate::units::{GIB, MIB};
    use std::collections::HashMap;

    /// Writes `plan` highest first to a drive that stores address `a` at `a mod real`, reads
    /// the spots back and sweeps: the readings and what the sweep found.
    fn run(plan: &Plan, real: u64) -> (Vec<Reading>, Swept) {
        let mut media: HashMap<u64, Box<Block>> = HashMap::new();
        for s in plan.write_order() {
            media.insert(s.address % real, Block::pattern(7, s.address, s.index));
        }
        let get = |a: u64| {
            media
                .get(&(a % real))
                .cloned()
                .unwrap_or_else(Block::zeroed)
        };
        let readings = plan
            .spots
            .iter()
            .map(|s| Reading {
                spot: *s,
                found: classify(&get(s.address), s, 7),
                unsure: None,
            })
            .collect();
        let swept = sweep_with(plan, 7, &AtomicBool::new(false), &mut |at, buf| {
            for (i, b) in buf.chunks_mut(BLOCK).enumerate() {
                b.copy_from_slice(&get(at + (i * BLOCK) as u64).0);
            }
            Ok(())
        });
        (readings, swept)
    }

    #[test]
    fn the_region_is_the_low_marks() {
        let plan = Plan::spread(GIB, 2);
        assert_eq!(region(&plan), (0, 32 * MIB));
        let tb = Plan::spread(1_000_204_886_016, 2);
        assert_eq!(region(&tb), (0, MAX_SWEEP));
    }

    #[test]
    fn a_wrap_at_no_whole_mib_is_found_by_the_sweep_alone() {
        let plan = Plan::spread(GIB, 1024);
        for real in [
            700 * MIB + 12 * 1024,
            1000 * MIB + 4096,
            100 * MIB + 512 * 1024,
            GIB - 8192,
        ] {
            let (readings, swept) = run(&plan, real);
            let j = verdict::judge(&plan, &readings, &swept.probes, 1.0);
            assert_eq!(j.verdict, CapacityVerdict::Fake, "{real}");
            assert_eq!(j.real_bytes, Some(real), "{real}");
            assert_eq!(swept.bytes, 32 * MIB);
        }
    }

    #[test]
    fn a_genuine_drive_sweeps_clean() {
        let plan = Plan::spread(GIB, 1024);
        let (readings, swept) = run(&plan, u64::MAX);
        assert!(readings.iter().all(|r| r.found == Found::Intact));
        assert_eq!(swept.probes, Vec::new());
        let j = verdict::judge(&plan, &readings, &swept.probes, 1.0);
        assert_eq!(j.verdict, CapacityVerdict::Genuine);
    }
}
