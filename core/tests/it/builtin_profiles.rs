//! The built-in profiles (`standard`, `quick`, `qd1`, `matrix`, `sustained`): the shipped job
//! files are the built-in ones and parse; each but `sustained` (which is not run by the engines
//! and has tests of its own: `sustained_data`, and the CLI's `sustained`) runs through the
//! whole test on a real file in `/var/tmp` with both
//! engines (shrunk to a few MiB and a second or two, except `quick`, which also runs as shipped);
//! and on a throttled loop device, `qd1` and `matrix` measure no figure above its throttle (10 %
//! over it at most; a busy machine measures less). The throttled runs happen in a child process (this
//! binary again) that a shell moves into the throttled cgroup first.

use crate::common;

use std::path::Path;
use std::sync::atomic::AtomicBool;

use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{EngineKind, Event, PhaseResult, RunContext};
use agnostics_core::profile::{builtin, Builtin, Profile};
use agnostics_core::report::table::ResultTable;
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_core::verdict::Verdict;
use common::*;

/// The built-in profile `name`, its file size and time limits replaced (a test-only change of
/// the shipped text: every other key is as shipped).
fn shrunk(name: &str, size: &str, runtime: &str) -> Profile {
    let b = Builtin::find(name).unwrap();
    let mut text = String::new();
    for line in b.text.lines() {
        let line = if line.starts_with("size=") {
            format!("size={size}")
        } else if line.starts_with("runtime=") && line != "runtime=0" {
            format!("runtime={runtime}")
        } else {
            line.to_owned()
        };
        text.push_str(&line);
        text.push('\n');
    }
    let mut p = Profile::parse(&text, &format!("{name}.fio (shrunk)"), None).unwrap();
    p.name = b.profile().name;
    p.builtin = Some(b.which);
    p
}

fn shipped_files_are_the_builtin_ones_and_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/profiles");
    for b in &builtin::ALL {
        let path = dir.join(format!("{}.fio", b.name));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, b.text, "{}", path.display());
        let loaded = Profile::load(&path).unwrap();
        assert_eq!(loaded.jobs, b.profile().jobs, "{}", b.name);
        assert!(
            loaded.warnings.is_empty(),
            "{}: {:?}",
            b.name,
            loaded.warnings
        );
    }
    let matrix = Builtin::find("matrix").unwrap().profile();
    let depth = |job: &str| matrix.job(job).unwrap().iodepth;
    assert_eq!(
        (depth("seq1m-q8t1-read"), depth("rnd4k-q32t1-write")),
        (8, 32)
    );
    let qd1 = Builtin::find("qd1").unwrap().profile();
    assert!(qd1.jobs.iter().all(|j| j.iodepth == 1 && j.direct));
}

/// Runs `profile` through the whole test in a scratch folder of `/var/tmp`.
fn run(profile: Profile, engine: EngineKind) -> agnostics_core::report::Report {
    let dir = scratch_dir();
    let opts = TestOptions {
        target: dir.path().to_path_buf(),
        profile,
        engine,
        runs: 3,
        sysfs_root: "/sys".into(),
        lock_dir: agnostics_testkit::private_lock_dir(std::path::Path::new(env!(
            "CARGO_TARGET_TMPDIR"
        ))),
    };
    let report = sdtest::run(&opts, &AtomicBool::new(false), &|_| {});
    assert!(
        entries(dir.path()).is_empty(),
        "left {:?}",
        entries(dir.path())
    );
    report
}

/// The tests that load the disk run one at a time: another's I/O on the same disk would slow
/// the throttled device's requests and so its queue-depth-1 figures.
static DISK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn every_builtin_runs_on_both_engines() -> agnostics_testkit::Ran {
    let _alone = DISK.lock().unwrap_or_else(|e| e.into_inner());
    agnostics_testkit::require_program("fio")?;
    for engine in [EngineKind::Native, EngineKind::Fio] {
        for b in builtin::ALL
            .iter()
            .filter(|b| b.which != builtin::BuiltinProfile::Sustained)
        {
            let report = run(shrunk(b.name, "8m", "1"), engine);
            let what = format!("{} with {}", b.name, engine.as_str());
            assert!(report.error.is_none(), "{what}: {:?}", report.error);
            let run = report.runs.last().unwrap();
            assert_eq!(run.phases.len(), b.profile().jobs.len(), "{what}");
            assert!(run.phases.iter().all(|p| p.ios > 0), "{what}");
            if b.graded {
                assert!(report.graded);
                assert_ne!(report.verdict, Verdict::NotGraded, "{what}");
                assert_eq!(run.checks.len(), 6, "{what}");
                assert!(report.table.is_none(), "{what}");
            } else {
                assert!(!report.graded, "{what}");
                assert_eq!(report.runs.len(), 1, "{what}: one run only");
                assert_eq!(
                    (report.verdict, report.a2_verdict, report.exit_code()),
                    (Verdict::NotGraded, Verdict::NotGraded, 0),
                    "{what}"
                );
                assert!(run.checks.is_empty(), "{what}");
            }
            match (b.name, &report.table) {
                ("matrix", Some(ResultTable::Matrix { rows })) => {
                    assert_eq!(rows.len(), 4);
                    assert!(rows.iter().all(|r| r.read.is_some() && r.write.is_some()));
                }
                ("qd1", Some(ResultTable::Qd1 { rows })) => {
                    assert_eq!(rows.len(), 4);
                    assert!(rows.iter().all(|r| r.result.is_some()));
                }
                ("standard" | "quick", None) => {}
                (name, table) => panic!("{name} with {}: table {table:?}", engine.as_str()),
            }
        }
    }
    // The shipped quick profile as it is (32 MiB, its own time limits).
    let report = run(
        Builtin::find("quick").unwrap().profile(),
        EngineKind::Native,
    );
    assert_eq!(report.verdict, Verdict::NotGraded, "{:?}", report.error);
    let text = agnostics_core::report::to_text(&report);
    assert!(text.contains("not graded"), "{text}");
    assert!(
        !text.contains("KB/sec") && !text.contains("ERROR"),
        "{text}"
    );
    Ok(())
}

/// The throttles: 12 MiB/s of writes, 8 MiB/s of reads, 400 write and 500 read IOPS. One
/// request at a time reaches these: at queue depth 1 each request's own service time adds to
/// the throttle's wait, so the limits are set low enough that the wait dominates (at 24 MiB/s
/// of 1 MiB reads on a busy disk, queue depth 1 came out 15 % short; at 1200 read IOPS the
/// throttle's timer, not the limit, sets the pace).
const LIMITS: Throttle = Throttle {
    write_bps: 12 * 1024 * 1024,
    read_bps: 8 * 1024 * 1024,
    write_iops: 400,
    read_iops: 500,
};

/// The child's side, in the throttled group: `task` is an engine and a built-in profile's
/// name (`"fio qd1"`); runs the shrunk profile and returns its phases.
pub(crate) fn child_run(task: &str, dir: &Path) -> Vec<PhaseResult> {
    let (engine, name) = task.split_once(' ').expect("an engine and a profile");
    let profile = shrunk(name, "16m", "3");
    let file = TestFile::create(dir, true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let ctx = RunContext {
        run: 1,
        cancel: &cancel,
        on_event: &|_: Event| {},
    };
    let kind = if engine == "fio" {
        EngineKind::Fio
    } else {
        EngineKind::Native
    };
    let phases = agnostics_core::engine::run_profile(kind, &profile, &file, &ctx).phases;
    file.remove().unwrap();
    phases.unwrap_or_else(|e| panic!("{name} with {engine}: {e}"))
}

fn qd1_and_matrix_measure_the_throttle() -> agnostics_testkit::Ran {
    ThrottledDisk::require()?;
    agnostics_testkit::require_program("fio")?;
    let _alone = DISK.lock().unwrap_or_else(|e| e.into_inner());
    let disk = ThrottledDisk::new(96, LIMITS);
    for engine in ["native", "fio"] {
        for name in ["qd1", "matrix"] {
            let phases: Vec<PhaseResult> =
                disk.run_child(&format!("builtin_profiles/{engine} {name}"));
            for p in phases.iter().filter(|p| p.name != "prepare-file") {
                let what = format!("{name} {} with {engine}", p.name);
                // Bytes against a bandwidth limit, requests against an IOPS one; the 16 MiB
                // phases last about a second, so the throttle's one-slice burst is counted,
                // and the requests in flight when the clock started.
                let in_flight = u64::from(p.iodepth);
                let (done, expected, request) = match (p.rw.is_write(), p.bs >= 1024 * 1024) {
                    (true, true) => (p.bytes, LIMITS.write_bps, p.bs * in_flight),
                    (false, true) => (p.bytes, LIMITS.read_bps, p.bs * in_flight),
                    (true, false) => (p.ios, LIMITS.write_iops, in_flight),
                    (false, false) => (p.ios, LIMITS.read_iops, in_flight),
                };
                eprintln!(
                    "{what}: {done} in {:.3} s (throttle {expected}/s)",
                    p.seconds
                );
                assert_amount_paced_by_throttle(
                    &what,
                    done as f64,
                    p.seconds,
                    expected as f64,
                    request as f64,
                );
            }
        }
    }
    drop(disk);
    Ok(())
}

agnostics_testkit::test_list!(
    shipped_files_are_the_builtin_ones_and_parse,
    every_builtin_runs_on_both_engines,
    qd1_and_matrix_measure_the_throttle
);
