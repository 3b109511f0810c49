//! A test file left by a killed `agnostics-cli` (SIGKILL cannot be handled) is removed by the
//! next run, which says so exactly once: not once per run of a three-run test.

use crate::support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agnostics_testkit::{scratch_dir, test_files};
use support::Run;

/// Keeps the first run busy for many seconds even on a fast disk.
const SLOW_PROFILE: &str = "[global]\ndirect=1\niodepth=1\nsize=128m\nruntime=60\n\n\
                            [slow-write]\nrw=randwrite\nbs=4k\nstonewall\n";

/// Small, with every graded job, so the test runs three times.
const SMALL_PROFILE: &str = "[global]\ndirect=1\niodepth=4\nsize=4m\n\n\
                             [seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
                             [rand-4k-write]\nrw=randwrite\nbs=4k\nstonewall\n\n\
                             [rand-4k-read]\nrw=randread\nbs=4k\nstonewall\n";

fn cli(target: &Path, log: &Path, profile: &Path) -> Command {
    let mut cmd = Run::new()
        .target(target)
        .profile(profile)
        .env("AGNOSTICS_LOG", log)
        .env("AGNOSTICS_HISTORY", log.with_extension("history.sqlite3"))
        .env("LC_ALL", "C")
        .command();
    cmd.stdin(Stdio::null());
    cmd
}

/// Leaves a killed run's test file in `target`.
fn leave_a_stale_file(target: &Path, log: &Path, profile: &Path) {
    let mut child = cli(target, log, profile)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start agnostics-cli");
    let start = Instant::now();
    while test_files(target).is_empty() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    assert!(
        !test_files(target).is_empty(),
        "SIGKILL leaves the test file"
    );
}

fn mentions(out: &Output, needle: &str) -> usize {
    String::from_utf8_lossy(&out.stdout).matches(needle).count()
        + String::from_utf8_lossy(&out.stderr).matches(needle).count()
}

fn a_killed_runs_file_is_removed_and_reported_once() {
    let scratch = scratch_dir();
    let target = scratch.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let slow = scratch.path().join("slow.fio");
    std::fs::write(&slow, SLOW_PROFILE).unwrap();
    let small = scratch.path().join("small.fio");
    std::fs::write(&small, SMALL_PROFILE).unwrap();
    let log = scratch.path().join("rpdiags.txt");

    // The text report.
    leave_a_stale_file(&target, &log, &slow);
    let out = cli(&target, &log, &small).output().expect("run");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        mentions(&out, "left by an earlier run"),
        1,
        "said once: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(test_files(&target), Vec::<String>::new());
    // The note names the folder chosen, not the program's hidden folder in it.
    assert_eq!(mentions(&out, ".agnostics-run."), 0);
    assert_eq!(
        mentions(
            &out,
            &format!(
                "removed the test folder left by an earlier run in {}",
                target.display()
            )
        ),
        1
    );

    // The JSON report: one warning, while the report has three runs.
    leave_a_stale_file(&target, &log, &slow);
    let out = cli(&target, &log, &small)
        .arg("--json")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("left by an earlier run").count(), 1, "{text}");
    assert!(
        text.matches("\"rand-4k-read\"").count() >= 3,
        "three runs in the report: {text}"
    );
    assert_eq!(test_files(&target), Vec::<String>::new());
}

agnostics_testkit::test_list!(a_killed_runs_file_is_removed_and_reported_once);
