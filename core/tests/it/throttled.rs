//! Both engines against a device whose speed is known by construction: a loop device with ext4,
//! throttled by a cgroup (v2 `io.max`, or v1 blkio) to 400 write IOPS, 1200 read IOPS and 12 MiB/s
//! of writes. No engine may measure more than a limit allows (10 % over it at most; a busy
//! machine measures less, by any amount), and the A1 checks must be what the figures give: FAIL
//! (at most 440 < 500 IOPS), FAIL (at most 1320 < 1500 IOPS), and for the sequential write PASS at
//! full speed (12 MiB/s ≥ 10000 KiB/s), else what the measured figure gives.
//!
//! The measuring runs in a child process (this test binary again, which runs `throttled_child_run`
//! when `ThrottledDisk::run_child` starts it) that a shell moves into the group before it
//! starts. Needs root, a blkio or io controller, and fio; elsewhere the test is reported as ignored
//! with the reason.

use crate::common;

use std::path::Path;
use std::sync::atomic::AtomicBool;

use agnostics_core::engine::native::{self, IoChoice};
use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{DepthLimit, DepthReason, EngineKind, Event, PhaseResult, RunContext};
use agnostics_core::judge;
use agnostics_core::verdict::{Metric, Standard, Verdict};
use common::*;

/// The child's side, in the throttled group: measures `engine` on a test file in `dir` and
/// returns the phases.
pub(crate) fn throttled_child_run(engine: &str, dir: &Path) -> Vec<PhaseResult> {
    let profile = profile(THROTTLED_PROFILE);
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

fn both_engines_measure_the_throttle_and_grade_it() -> agnostics_testkit::Ran {
    ThrottledDisk::require()?;
    agnostics_testkit::require_program("fio")?;
    let disk = ThrottledDisk::new(192, THROTTLE);
    for engine in ["threads", "fio", "io_uring"] {
        if engine == "io_uring" {
            // The native engine's io_uring path, where this build has one (not on 32-bit arm
            // and x86).
            agnostics_testkit::require(
                agnostics_core::engine::native::uring::BUILT,
                format!(
                    "this build has no io_uring path on {}",
                    std::env::consts::ARCH
                ),
            )?;
        }
        let phases: Vec<PhaseResult> = disk.run_child(&format!("throttled/{engine}"));
        let phase = |name: &str| phases.iter().find(|p| p.name == name).unwrap();
        eprintln!(
            "{engine}: seq-write {:.0} B/s, rand-4k-write {:.1} IOPS, rand-4k-read {:.1} IOPS",
            phase("seq-write").bw_bytes,
            phase("rand-4k-write").iops,
            phase("rand-4k-read").iops
        );
        assert_paced_by_throttle(
            &format!("{engine} seq-write B/s"),
            phase("seq-write").bw_bytes,
            WRITE_BPS as f64,
        );
        assert_paced_by_throttle(
            &format!("{engine} rand-4k-write IOPS"),
            phase("rand-4k-write").iops,
            WRITE_IOPS as f64,
        );
        assert_paced_by_throttle(
            &format!("{engine} rand-4k-read IOPS"),
            phase("rand-4k-read").iops,
            READ_IOPS as f64,
        );
        if engine != "fio" {
            // A drive this slow never shows itself fast, not even in the first phase's own
            // first 16 MiB: every writing phase keeps the lean 8 MiB of buffers.
            let depth = |name: &str| (phase(name).iodepth, phase(name).depth_limit);
            let lean = Some(DepthLimit {
                asked: 32,
                reason: DepthReason::Lean,
                budget_bytes: 8 << 20,
            });
            assert_eq!(depth("prepare-file"), (16, lean), "{engine}");
            assert_eq!(depth("seq-write"), (2, lean), "{engine}");
            assert_eq!(depth("rand-4k-write"), (32, None), "{engine}");
        }
        let checks = judge::checks(&phases, Standard::A1);
        let verdict_of = |m: Metric| checks.iter().find(|c| c.metric == m).unwrap().verdict;
        // PASS at full speed (12 MiB/s ≥ 10000 KiB/s); a busy machine may measure less, and the
        // verdict is then what the figure gives.
        let seq = phase("seq-write").bw_bytes / 1024.0;
        let expected = if seq >= 10_000.0 {
            Verdict::Pass
        } else {
            Verdict::Fail
        };
        assert_eq!(
            verdict_of(Metric::SeqWrite),
            expected,
            "{engine}: {seq} KiB/s"
        );
        assert_eq!(verdict_of(Metric::RandWrite), Verdict::Fail, "{engine}");
        assert_eq!(verdict_of(Metric::RandRead), Verdict::Fail, "{engine}");
        let left: Vec<String> = entries(disk.path())
            .into_iter()
            .filter(|n| n != "lost+found")
            .collect();
        assert!(left.is_empty(), "{engine} left {left:?}");
    }
    drop(disk);
    Ok(())
}

agnostics_testkit::test_list!(both_engines_measure_the_throttle_and_grade_it);
