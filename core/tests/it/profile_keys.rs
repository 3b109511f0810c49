//! The job-file keys beyond the standard test's (`time_based`, `ramp_time`, `loops`,
//! `numjobs` with `group_reporting`, `thread`, `name`, `description`), run by both engines:
//! on a real file in `/var/tmp` each engine must do the same work (bytes and requests exactly
//! where the work is fixed; at least the runtime where time ends it), and on a throttled loop
//! device no figure may be above the throttle (10 % over it at most; a busy machine measures
//! less, by any amount).
//!
//! The throttled runs happen in a child process (this test binary again, run with the
//! engine as its task, by `ThrottledDisk::run_child`) that a shell moves into the cgroup first.

use crate::common;

use std::path::Path;
use std::sync::atomic::AtomicBool;

use agnostics_core::engine::native::{self, IoChoice};
use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{EngineKind, Event, PhaseResult, RunContext};
use agnostics_core::units::MIB;
use common::*;

/// One job per new key, on an 8 MiB file.
const KEYS_PROFILE: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=4
size=8m
thread
group_reporting
description=\"each new key once\"

[prep]
rw=write
bs=1m

[loops]
stonewall
rw=read
bs=256k
loops=3

[clones]
stonewall
rw=randwrite
bs=64k
numjobs=3

[timed]
stonewall
name=timed-read
rw=read
bs=1m
time_based
runtime=1500ms

[ramped]
stonewall
rw=randread
bs=4k
time_based
ramp_time=1
runtime=1
";

/// The same keys on the throttled device (400 write IOPS, 1200 read IOPS, 12 MiB/s writes).
const THROTTLED_KEYS: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=8
size=32m
thread
group_reporting

[prep]
rw=write
bs=1m

[clones]
stonewall
rw=randwrite
bs=4k
numjobs=4
runtime=6

[loops]
stonewall
rw=randread
bs=4k
size=4m
loops=3

[ramped]
stonewall
rw=randread
bs=4k
time_based
ramp_time=1
runtime=2

[timed-write]
stonewall
rw=write
bs=1m
size=4m
time_based
runtime=3
";

/// The engines to compare: io_uring where this build has it (not on 32-bit arm and x86, where
/// the native engine always uses its threads), the thread pool and fio.
fn engines() -> Vec<&'static str> {
    let mut engines = vec!["threads", "fio"];
    if native::uring::BUILT {
        engines.insert(0, "io_uring");
    }
    engines
}

fn run(engine: &str, text: &str, dir: &Path) -> Vec<PhaseResult> {
    let profile = profile(text);
    let file = TestFile::create(dir, true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let ctx = RunContext {
        run: 1,
        cancel: &cancel,
        on_event: &|_: Event| {},
    };
    let result = match engine {
        "io_uring" => native::run_profile_with(IoChoice::Uring, &profile, &file, &ctx),
        "threads" => native::run_profile_with(IoChoice::Threads, &profile, &file, &ctx),
        _ => agnostics_core::engine::run_profile(EngineKind::Fio, &profile, &file, &ctx),
    }
    .phases;
    file.remove().unwrap();
    result.unwrap_or_else(|e| panic!("{engine}: {e}"))
}

fn phase<'a>(phases: &'a [PhaseResult], name: &str) -> &'a PhaseResult {
    phases
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no phase {name} in {phases:?}"))
}

/// Panics unless `seconds` (measured, f64) show a job that `runtime` (seconds) ended: at least
/// the runtime (less fio's millisecond rounding), and not a job that went on regardless. The
/// upper bound is loose, 2 s past the runtime: a busy machine delays the end by the requests in
/// flight and a status interval, never by seconds.
fn after_runtime(what: &str, seconds: f64, runtime: f64) {
    assert!(
        seconds >= runtime - 0.01,
        "{what}: {seconds} s measured, less than runtime={runtime}"
    );
    assert!(
        seconds <= runtime + 2.0,
        "{what}: {seconds} s measured, the job went on past runtime={runtime}"
    );
}

fn each_key_does_the_same_work_on_both_engines() -> agnostics_testkit::Ran {
    agnostics_testkit::require_program("fio")?;
    let dir = scratch_dir();
    for engine in engines() {
        let phases = run(engine, KEYS_PROFILE, dir.path());
        let names: Vec<&str> = phases.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            ["prep", "loops", "clones", "timed-read", "ramped"],
            "{engine}: `name=` renames the job"
        );
        for p in &phases {
            // fio resets its byte and request counters at the ramp's end apart, so they may
            // disagree by the requests in flight then.
            let slack = if p.name == "ramped" { 4 * p.bs } else { 0 };
            assert!(
                p.bytes.abs_diff(p.ios * p.bs) <= slack,
                "{engine} {}: {} bytes, {} ios",
                p.name,
                p.bytes,
                p.ios
            );
            assert_eq!(p.iodepth, 4, "{engine} {}: iodepth is per clone", p.name);
        }
        let loops = phase(&phases, "loops");
        assert_eq!((loops.bytes, loops.ios), (24 * MIB, 96), "{engine} loops=3");
        assert!(!loops.stopped_by_runtime, "{engine}");
        let clones = phase(&phases, "clones");
        assert_eq!(
            (clones.bytes, clones.ios),
            (24 * MIB, 384),
            "{engine} numjobs=3"
        );
        let timed = phase(&phases, "timed-read");
        after_runtime(&format!("{engine} time_based"), timed.seconds, 1.5);
        assert!(timed.stopped_by_runtime, "{engine}");
        assert!(
            timed.bytes > 8 * MIB,
            "{engine}: time_based goes on past size: {} bytes",
            timed.bytes
        );
        let ramped = phase(&phases, "ramped");
        after_runtime(
            &format!("{engine} seconds measured after the ramp"),
            ramped.seconds,
            1.0,
        );
        assert!(ramped.ios > 0, "{engine}");
        eprintln!(
            "{engine}: timed-read {} bytes in {:.2} s, ramped {} ios in {:.2} s",
            timed.bytes, timed.seconds, ramped.ios, ramped.seconds
        );
    }
    Ok(())
}

/// The child's side, in the throttled group: runs [`THROTTLED_KEYS`] with `engine` in `dir`
/// and returns the phases.
pub(crate) fn throttled_child_run(engine: &str, dir: &Path) -> Vec<PhaseResult> {
    run(engine, THROTTLED_KEYS, dir)
}

fn each_key_measures_the_throttle_on_both_engines() -> agnostics_testkit::Ran {
    ThrottledDisk::require()?;
    agnostics_testkit::require_program("fio")?;
    let disk = ThrottledDisk::new(128, THROTTLE);
    for engine in engines() {
        let phases: Vec<PhaseResult> = disk.run_child(&format!("profile_keys/{engine}"));
        let clones = phase(&phases, "clones");
        let loops = phase(&phases, "loops");
        let ramped = phase(&phases, "ramped");
        let timed = phase(&phases, "timed-write");
        eprintln!(
            "{engine}: clones {:.1} IOPS, loops {:.1} IOPS, ramped {:.1} IOPS, \
             timed-write {:.0} B/s ({} bytes)",
            clones.iops, loops.iops, ramped.iops, timed.bw_bytes, timed.bytes
        );
        assert_paced_by_throttle(
            &format!("{engine} numjobs=4 write IOPS"),
            clones.iops,
            WRITE_IOPS as f64,
        );
        assert_eq!(
            (loops.bytes, loops.ios),
            (12 * MIB, 3072),
            "{engine} loops=3"
        );
        assert_paced_by_throttle(
            &format!("{engine} loops=3 read IOPS"),
            loops.iops,
            READ_IOPS as f64,
        );
        assert_paced_by_throttle(
            &format!("{engine} ramp_time read IOPS"),
            ramped.iops,
            READ_IOPS as f64,
        );
        after_runtime(&format!("{engine} ramped"), ramped.seconds, 2.0);
        assert_paced_by_throttle(
            &format!("{engine} time_based write B/s"),
            timed.bw_bytes,
            WRITE_BPS as f64,
        );
        assert!(
            timed.bytes > 4 * MIB,
            "{engine}: time_based wraps past size"
        );
        let left: Vec<String> = entries(disk.path())
            .into_iter()
            .filter(|n| n != "lost+found")
            .collect();
        assert!(left.is_empty(), "{engine} left {left:?}");
    }
    drop(disk);
    Ok(())
}

agnostics_testkit::test_list!(
    each_key_does_the_same_work_on_both_engines,
    each_key_measures_the_throttle_on_both_engines
);
