//! The run history on real SQLite files in scratch folders on disk (`/var/tmp`): storing and
//! reading runs, two writers at once, a damaged file moved aside, read-only, locked and full
//! databases, migration from the first schema, import, drive identity from the card fixtures,
//! and the trend and compare rules.
//!
//! One module per concern (store, faults, import, identity, rules); this file holds the sample
//! runs and helpers they share.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agnostics_core::card::CardInfo;
use agnostics_core::figure::Unit;
use agnostics_core::history::{
    self, compare, comparison_markdown, comparison_text, describe, schema, trend, Change, DriveId,
    DriveIdentity, History, HistoryError, IdentityBasis, Outcome, Provenance, RunFilter,
};
use agnostics_core::report::{ErrorKind, Report, TargetReport};
use agnostics_core::sample;
use agnostics_core::target_dir::Transport;
use agnostics_testkit::{require_root, scratch_dir, Ran, Tmpfs};

const MIB: f64 = 1024.0 * 1024.0;

fn drive(name: &str) -> DriveIdentity {
    DriveIdentity {
        id: DriveId::hash(IdentityBasis::Cid, &[name]),
        basis: IdentityBasis::Cid,
        name: None,
    }
}

fn provenance(profile_hash: &str) -> Provenance {
    Provenance {
        program_version: "0.1.0".into(),
        engine: agnostics_core::engine::EngineKind::Native,
        fio_version: None,
        profile_name: "sd_bench".into(),
        profile_hash: profile_hash.into(),
        kernel: Some("6.6.51+rpt-rpi-2712".into()),
        pi_model: Some("Raspberry Pi 5 Model B Rev 1.0".into()),
        cpu_governor: Some("ondemand".into()),
        soc_temp_millicelsius: Some(48_500),
        throttled: Some(0),
        sd_bus_mode: None,
    }
}

fn run_id(n: u32) -> String {
    format!("{n:08x}{:024x}", 0xabcdefu64)
}

/// A finished standard run on `drive_name` with sequential write `seq_mib` MiB/s.
fn report(n: u32, drive_name: &str, day: u32, seq_mib: f64) -> Report {
    sample::report()
        .run_id(&run_id(n))
        .started(&format!("2026-06-{day:02}T12:00:00+02:00"))
        .drive(drive(drive_name))
        .measured_with(provenance("00112233aabbccdd"))
        .run(sample::run(
            1,
            [
                sample::phase("seq-write").bw_bytes(seq_mib * MIB),
                sample::phase("seq-read").bw_bytes(40.0 * MIB),
                sample::phase("rand-4k-write").iops(900.0),
                sample::phase("rand-4k-read").iops(2000.0),
            ],
        ))
        .build()
}

fn db(dir: &Path) -> PathBuf {
    dir.join("state/agnostics/history.sqlite3")
}

fn stored(h: &History) -> usize {
    h.runs(&RunFilter::default()).unwrap().len()
}

mod faults;
mod identity;
mod import;
mod rules;
mod store;

use faults::*;
use identity::*;
use import::*;
use rules::*;
use store::*;

agnostics_testkit::test_list!(
    round_trip,
    trend_through_the_store_and_forgetting,
    a_run_another_test_spoiled_is_stored_as_shared_not_failed,
    ambiguous_and_short_prefixes,
    two_threads_record_at_once,
    history_writer_child,
    two_processes_record_at_once,
    corrupt_file_is_moved_aside_never_overwritten,
    read_only_filesystem,
    locked_database,
    full_disk,
    migrates_from_the_first_schema,
    a_wal_history_is_switched_to_a_rollback_journal,
    verdicts_are_graded_again_from_the_figures,
    device_counters_are_kept_and_judged_again,
    newer_schema_is_left_alone,
    import_validates_and_is_idempotent,
    identity_from_card_fixtures,
    identity_of_usb_nvme_and_filesystems,
    filesystem_uuid_from_the_superblock,
    fat_volume_id,
    provenance_from_a_fixture_tree,
    a_real_run_fills_the_history_fields,
    trend_rule,
    trend_against_runs_that_disagree,
    compare_side_by_side,
);
