//! Mounted mode's raw probes and sweep against simulated drives that wrap: what the spots
//! inside a file cannot see, the raw reads find.

use super::*;
use crate::capacity::plan::MIN_ALIAS_POWER;
use crate::capacity::spots::{classify, Reading};
use crate::capacity::{CapacityVerdict, Found};
use std::collections::HashMap;

const GIB: u64 = 1024 * MIB;

/// The plan of a check whose file holds only the top 70 MiB of a 1 GiB drive.
fn top_70_mib() -> Plan {
    let file = Ranges::new(vec![(954 * MIB, 70 * MIB)]);
    let (grid, ruler) = Plan::ruler_within(&file);
    Plan {
        grid,
        ..Plan::within(GIB, &file, 256, MIN_ALIAS_POWER)
    }
    .with(ruler)
}

/// Writes `plan` (highest first) to a drive that stores address `a` at `a mod real`, then
/// reads the spots back and probes: the readings and the probes.
fn run(plan: &Plan, real: u64) -> (Vec<Reading>, Vec<Probe>) {
    let mut media: HashMap<u64, Box<Block>> = HashMap::new();
    for s in plan.write_order() {
        media.insert(s.address % real, Block::pattern(1, s.address, s.index));
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
            found: classify(&get(s.address), s, 1),
            unsure: None,
        })
        .collect();
    let mut probes = probe_with(plan, 1, &mut |at, block| {
        *block = *get(at);
        Ok(())
    });
    let cancel = AtomicBool::new(false);
    let swept = crate::capacity::sweep::sweep_with(plan, 1, &cancel, &mut |at, buf| {
        for (i, b) in buf.chunks_mut(BLOCK_U64 as usize).enumerate() {
            b.copy_from_slice(&get(at + i as u64 * BLOCK_U64).0);
        }
        Ok(())
    });
    probes.extend(swept.probes);
    (readings, probes)
}

#[test]
fn a_wrap_at_no_whole_mib_is_found_through_a_large_file() {
    // A file from 40 MiB + 12 KiB to the drive's last MiB.
    let file = Ranges::new(vec![(40 * MIB + 12288, 983 * MIB)]);
    let (grid, ruler) = Plan::ruler_within(&file);
    let plan = Plan {
        grid,
        ..Plan::within(GIB, &file, 256, MIN_ALIAS_POWER)
    }
    .with(ruler);
    for real in [700 * MIB + 12 * 1024, 900 * MIB + 4096] {
        let (readings, probes) = run(&plan, real);
        let j = verdict::judge(&plan, &readings, &probes, verdict::COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::Fake, "{real}");
        assert_eq!(j.real_bytes, Some(real), "{real}");
    }
}

#[test]
fn probes_find_any_wrap_the_spots_in_a_small_file_cannot() {
    let plan = top_70_mib();
    for real in [100 * MIB, 300 * MIB, 700 * MIB, 954 * MIB, 1000 * MIB] {
        let (readings, probes) = run(&plan, real);
        assert!(readings.iter().all(|r| r.found == Found::Intact), "{real}");
        let j = verdict::judge(&plan, &readings, &probes, verdict::COVERED_SHARE);
        assert_eq!(j.verdict, CapacityVerdict::Fake, "{real}");
        let found = j.real_bytes.unwrap();
        assert!(found <= real && found > 70 * MIB, "{real}: {found}");
    }
}

#[test]
fn a_genuine_drive_seen_through_a_small_file_is_not_checked_beyond() {
    let plan = top_70_mib();
    let (readings, probes) = run(&plan, u64::MAX);
    assert!(probes.iter().all(|p| p.holds.is_none()));
    let j = verdict::judge(&plan, &readings, &probes, verdict::COVERED_SHARE);
    // Every wrap size below the highest spot is ruled out by the probes, but the spots see
    // only the top 70 MiB of the drive.
    assert_eq!(j.verdict, CapacityVerdict::NotCheckedBeyond);
    assert!(
        j.wraps_checked_bytes >= 1000 * MIB,
        "{}",
        j.wraps_checked_bytes
    );
    assert!(j.coverage.share < 0.1, "{}", j.coverage.share);
    let (readings, _) = run(&plan, u64::MAX);
    let j = verdict::judge(&plan, &readings, &[], verdict::COVERED_SHARE);
    assert_eq!(j.verdict, CapacityVerdict::NotCheckedBeyond);
    assert!(j.wraps_checked_bytes < 70 * MIB);
}
