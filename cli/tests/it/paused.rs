//! A run whose process is stopped while it measures (SIGSTOP, as a debugger or `kill -STOP`
//! does; Ctrl+Z sends SIGTSTP to the same effect) for 6 s, then continued: with either engine
//! it ends with the error `paused` and the verdict ERROR, not a figure that includes seconds
//! without I/O (the native engine graded a paused phase at a fraction of its speed), and
//! fio's watchdog (here 3 s) does not count the stop as fio's silence. The test file is
//! removed. Real files on `/var/tmp` (ext4, for O_DIRECT).

use crate::support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use agnostics_testkit::{require, require_program, test_files, Ran};

/// One time-based random-write phase of 10 s on a 16 MiB file.
const TIMED: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=4
size=16m

[rand-4k-write]
rw=randwrite
bs=4k
time_based
runtime=10
";

fn a_stopped_run_is_paused_not_graded(engine: &str) -> Ran {
    let base = Path::new("/var/tmp");
    require(base.is_dir(), "needs /var/tmp (ext4 for O_DIRECT)")?;
    if engine == "fio" {
        require_program("fio")?;
    }
    let dir = agnostics_testkit::scratch_dir_in(base);
    let target = dir.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let profile = dir.path().join("timed.fio");
    std::fs::write(&profile, TIMED).unwrap();
    let child = support::Run::new()
        .env("AGNOSTICS_FIO_WATCHDOG_S", "3")
        .args(["--json", "--runs", "1", "--engine", engine])
        .target(&target)
        .profile(&profile)
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let start = Instant::now();
    while test_files(&target).is_empty() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !test_files(&target).is_empty(),
        "{engine}: the test never started"
    );
    // Into the measured phase, then stopped for longer than the watchdog's limit.
    std::thread::sleep(Duration::from_secs(2));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
    std::thread::sleep(Duration::from_secs(6));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).unwrap();
    let out = child.wait_with_output().unwrap();
    let doc = support::json(&out);
    assert_eq!(out.status.code(), Some(2), "{engine}: {doc:#}");
    assert_eq!(doc["error"]["kind"], "paused", "{engine}: {doc:#}");
    assert_eq!(doc["verdict"], "ERROR", "{engine}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("paused for") && message.contains("“Random 4K write”"),
        "{engine}: {message}"
    );
    assert!(test_files(&target).is_empty(), "{engine}: test file left");
    Ok(())
}

fn the_native_engine_says_a_stopped_run_was_paused() -> Ran {
    a_stopped_run_is_paused_not_graded("native")
}

fn fio_stopped_with_us_is_paused_not_hung() -> Ran {
    a_stopped_run_is_paused_not_graded("fio")
}

agnostics_testkit::test_list!(
    the_native_engine_says_a_stopped_run_was_paused,
    fio_stopped_with_us_is_paused_not_hung,
);
