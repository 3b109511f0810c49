//! What the engines do when things go wrong, on real parts: reads that must not hit holes on a
//! throttled loop device, a stuck fio stopped by the watchdog, and each cause of an error (a
//! read-only remount, a removed or replaced test file, a device that fails every request, a
//! job error in fio's JSON) with its own kind and advice; long messages shortened for people.
//!
//! Each test runs in a process of its own whose fio watchdog is [`WATCHDOG_S`] (set in its
//! environment, which the tests of other modules in this program do not share). The throttled runs happen in a child process (this binary again, started by
//! `ThrottledDisk::run_child` with the engine as its task) that the blkio group holds.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agnostics_core::advice::Advice;
use agnostics_core::engine::fio;
use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{EngineError, EngineKind, Event, PhaseResult};
use agnostics_core::profile::Profile;
use agnostics_core::report::{ErrorKind, ErrorReport, SHORT_MESSAGE_CHARS};
use agnostics_testkit::{require_program, require_root, Ran};
use common::*;

/// The watchdog limit this binary runs with, seconds.
const WATCHDOG_S: u64 = 4;

/// Held by a test while fio runs in this process: tests find "their" fio as a child of this
/// process, so only one may run at a time.
static FIO_IN_PROCESS: Mutex<()> = Mutex::new(());

/// Read IOPS the hole test's device allows.
const HOLE_READ_IOPS: u64 = 1000;

/// First job: a sequential write of the whole file that stops at 1 s, long before it covers
/// 32 MiB at 4 MiB/s; then random 4 KiB reads over the whole file.
const HOLE_PROFILE: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=16
size=32m

[prepare-file]
rw=write
bs=1m
runtime=1
stonewall

[rand-4k-read]
rw=randread
bs=4k
runtime=3
stonewall
";

fn engine_named(name: &str) -> EngineKind {
    match name {
        "fio" => EngineKind::Fio,
        _ => EngineKind::Native,
    }
}

/// The child's side of the hole test: runs the profile with `engine`, returns the results.
pub(crate) fn child_run(engine: &str, dir: &Path) -> Vec<PhaseResult> {
    let file = TestFile::create(dir, true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let out = run_engine(
        engine_named(engine),
        &profile(HOLE_PROFILE),
        &file,
        &cancel,
        &|_| {},
    );
    file.remove().unwrap();
    out.result.unwrap_or_else(|e| panic!("{engine}: {e}"))
}

fn reads_after_a_short_first_write_reach_the_device() -> Ran {
    ThrottledDisk::require()?;
    require_program("fio")?;
    let disk = ThrottledDisk::new(
        96,
        Throttle {
            write_bps: 4 << 20,
            read_iops: HOLE_READ_IOPS,
            ..Throttle::default()
        },
    );
    for engine in ["native", "fio"] {
        let phases: Vec<PhaseResult> =
            disk.run_child_with(&format!("engine_errors/{engine}"), |child| {
                child.env_remove(fio::WATCHDOG_ENV);
            });
        let first = &phases[0];
        let read = &phases[1];
        eprintln!(
            "{engine}: prepare-file {} bytes (stopped by runtime: {}), rand-4k-read {:.0} IOPS",
            first.bytes, first.stopped_by_runtime, read.iops
        );
        assert!(
            first.bytes < 32 << 20,
            "{engine}: the first job was meant to stop early"
        );
        assert!(
            read.iops <= 1.1 * HOLE_READ_IOPS as f64,
            "{engine}: {:.0} IOPS on a device limited to {HOLE_READ_IOPS}: reads hit holes",
            read.iops
        );
        // No floor: a busy (or emulated) machine measures less than the throttle by any
        // amount; reads that hit holes would be faster than it, which is what is asserted.
        assert!(read.ios > 0 && read.iops > 0.0, "{engine}: {read:?}");
    }
    drop(disk);
    Ok(())
}

/// Processes whose parent is `parent`, from `/proc/<pid>/stat`.
fn children_of(parent: i32) -> Vec<(i32, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid …; comm may hold spaces, so split after the last ')'.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = stat[open + 1..close].to_owned();
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<i32>().ok());
        if ppid == Some(parent) {
            found.push((pid, comm));
        }
    }
    found
}

fn fio_processes_of(parent: i32) -> Vec<i32> {
    children_of(parent)
        .into_iter()
        .filter(|(_, comm)| comm == "fio")
        .map(|(pid, _)| pid)
        .collect()
}

/// How a watched fio run ended.
struct Watched {
    result: Result<Vec<PhaseResult>, EngineError>,
    /// From the moment `act` was done on fio to the engine's return.
    took: Duration,
}

/// Runs a long fio job through the engine on a scratch folder and, once fio reports progress
/// (and `settle` later), calls `act(fio's pid)`; fio runs its jobs as threads of that process. Checks that the test file
/// is gone and no fio process is left afterwards. A run still going 60 s after the limit
/// (the watchdog broken) has its fio killed, so that the test fails instead of hanging.
fn watch_fio(settle: Duration, act: &(dyn Fn(i32) + Sync)) -> Watched {
    let _alone = FIO_IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir();
    let profile = profile(
        "[global]\nioengine=libaio\ndirect=1\niodepth=4\nsize=1g\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=60\n",
    );
    let me = std::process::id() as i32;
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let acted_at: Mutex<Option<Instant>> = Mutex::new(None);
    let fio_pid: Mutex<Option<i32>> = Mutex::new(None);
    let progress = AtomicBool::new(false);
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            while !done.load(Ordering::SeqCst) {
                if acted_at.lock().unwrap().is_none() && progress.load(Ordering::SeqCst) {
                    if let Some(&fio_main) = fio_processes_of(me).first() {
                        std::thread::sleep(settle);
                        act(fio_main);
                        *acted_at.lock().unwrap() = Some(Instant::now());
                        *fio_pid.lock().unwrap() = Some(fio_main);
                    }
                }
                if start.elapsed() > Duration::from_secs(WATCHDOG_S + 60) {
                    if let Some(pid) = *fio_pid.lock().unwrap() {
                        let _ = nix::sys::signal::kill(
                            nix::unistd::Pid::from_raw(-pid),
                            nix::sys::signal::Signal::SIGKILL,
                        );
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let out = run_engine(EngineKind::Fio, &profile, &file, &cancel, &|e| {
            if let Event::Progress { .. } = e {
                progress.store(true, Ordering::SeqCst);
            }
        });
        done.store(true, Ordering::SeqCst);
        out.result
    });
    let ended = Instant::now();
    let acted = acted_at
        .lock()
        .unwrap()
        .expect("found fio while it ran its job");
    drop(file);
    let left = entries(dir.path());
    assert!(left.is_empty(), "left {left:?}");
    let fio_main = fio_pid.lock().unwrap().unwrap();
    assert!(
        !Path::new(&format!("/proc/{fio_main}")).exists(),
        "fio {fio_main} is still there"
    );
    assert!(
        fio_processes_of(fio_main).is_empty(),
        "fio's job processes are still there"
    );
    Watched {
        result,
        took: ended - acted,
    }
}

fn signal(pid: i32, signal: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal)
        .unwrap_or_else(|e| panic!("{signal} to {pid}: {e}"));
}

fn assert_stopped_by_the_watchdog(watched: &Watched) {
    let Err(e @ EngineError::FioHung { .. }) = &watched.result else {
        panic!("expected fio_hung, got {:?}", watched.result);
    };
    assert!(
        watched.took <= Duration::from_secs(WATCHDOG_S + 5),
        "the watchdog took {:?}",
        watched.took
    );
    assert!(watched.took >= Duration::from_secs(WATCHDOG_S) - Duration::from_millis(1500));
    assert_eq!(e.kind().as_str(), "fio_hung");
    assert_eq!(e.advice(), Advice::FioHung);
    let report = ErrorReport::from_engine(e);
    assert!(
        report.message.contains(&WATCHDOG_S.to_string()),
        "{report:?}"
    );
}

/// fio that prints nothing (here: its processes stopped with SIGSTOP) is stopped by the
/// watchdog within its limit, its process group killed and the test file removed.
fn a_silent_fio_is_stopped_by_the_watchdog() -> Ran {
    require_program("fio")?;
    // The whole process group (fio runs in its own): a job process left running would print
    // when it ends, which is a sign of life.
    let watched = watch_fio(Duration::from_millis(1500), &|fio_main| {
        signal(-fio_main, nix::sys::signal::Signal::SIGSTOP)
    });
    eprintln!("stopped {:?} after fio went silent", watched.took);
    assert_stopped_by_the_watchdog(&watched);
    Ok(())
}

/// fio killed (SIGKILL, as the OOM killer does; its jobs are threads, so they die with it)
/// ends the run at once with a failure naming the signal, the test file removed and no fio
/// left.
fn a_killed_fio_ends_the_run_with_an_error() -> Ran {
    require_program("fio")?;
    let watched = watch_fio(Duration::from_millis(500), &|fio_main| {
        signal(fio_main, nix::sys::signal::Signal::SIGKILL)
    });
    match &watched.result {
        Err(EngineError::FioFailed { message }) => {
            assert!(message.contains("signal"), "{message}");
            assert!(watched.took <= Duration::from_secs(WATCHDOG_S + 5));
        }
        other => panic!("expected fio_failed, got {other:?}"),
    }
    Ok(())
}

/// Runs the native engine on a two-job profile in `dir`, calling `between` with the file's
/// path when the first job has finished (and closed the file).
fn native_with_change_between(dir: &Path, between: &(dyn Fn(&Path) + Sync)) -> EngineError {
    let profile = profile(
        "[global]\ndirect=1\niodepth=4\nsize=4m\n\n\
         [seq-write]\nrw=write\nbs=1m\nstonewall\n\n[seq-read]\nrw=read\nbs=1m\nstonewall\n",
    );
    let file = TestFile::create(dir, true, "ext4").unwrap();
    let path = file.path().to_path_buf();
    let cancel = AtomicBool::new(false);
    let out = run_engine(EngineKind::Native, &profile, &file, &cancel, &|e| {
        if let Event::PhaseFinished { index: 0, .. } = e {
            between(&path);
        }
    });
    drop(file);
    out.result.expect_err("the run must fail")
}

fn a_removed_test_file_is_test_file_gone() -> Ran {
    let dir = scratch_dir();
    let e = native_with_change_between(dir.path(), &|p| std::fs::remove_file(p).unwrap());
    assert_eq!(e.kind().as_str(), "test_file_gone", "{e:?}");
    assert_eq!(e.advice(), Advice::TestFileGone);
    Ok(())
}

fn a_symlink_in_place_of_the_test_file_is_test_file_gone() -> Ran {
    let dir = scratch_dir();
    let other = dir.path().join("someone-elses-file");
    std::fs::write(&other, b"keep me").unwrap();
    let e = native_with_change_between(dir.path(), &|p| {
        std::fs::remove_file(p).unwrap();
        symlink(&other, p).unwrap();
    });
    assert_eq!(e.kind().as_str(), "test_file_gone", "{e:?}");
    assert_eq!(std::fs::read(&other).unwrap(), b"keep me");
    Ok(())
}

fn another_file_in_place_of_the_test_file_is_test_file_gone() -> Ran {
    let dir = scratch_dir();
    let e = native_with_change_between(dir.path(), &|p| {
        // Made while the old file still exists, so that it cannot reuse its inode.
        let other = p.with_extension("new");
        std::fs::write(&other, vec![0u8; 4 << 20]).unwrap();
        std::fs::rename(&other, p).unwrap();
    });
    assert_eq!(e.kind().as_str(), "test_file_gone", "{e:?}");
    Ok(())
}

fn a_read_only_remount_during_the_run_is_read_only() -> Ran {
    require_root("a loop device and a remount")?;
    let fs = LoopFs::new(32);
    let mount = fs.mount.clone();
    let e = native_with_change_between(&fs.mount, &|_| {
        agnostics_testkit::run(Command::new("mount").args(["-o", "remount,ro"]).arg(&mount));
    });
    let _ = Command::new("mount")
        .args(["-o", "remount,rw"])
        .arg(&fs.mount)
        .status();
    assert_eq!(e.kind().as_str(), "read_only", "{e:?}");
    assert_eq!(e.advice(), Advice::BecameReadOnly);
    assert_ne!(
        e.advice().text(),
        Advice::CheckTheDevice.text(),
        "its own hint"
    );
    Ok(())
}

/// Makes every request to `fs`'s loop device beyond its first MiB fail with EIO, as on a card
/// pulled out: the image is cut to 1 MiB and the loop device told its new size.
fn cut_device(fs: &LoopFs) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(&fs.image)
        .and_then(|f| f.set_len(1 << 20))
        .unwrap();
    agnostics_testkit::run(Command::new("losetup").arg("-c").arg(&fs.device));
}

/// A device that starts failing requests (EIO) during the second phase gives `io` and the
/// device advice on both engines.
fn a_failing_device_is_io_on_both_engines() -> Ran {
    require_root("a loop device")?;
    require_program("fio")?;
    let profile = profile(
        "[global]\nioengine=libaio\ndirect=1\niodepth=4\nsize=16m\n\n\
         [prepare-file]\nrw=write\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=4\nstonewall\n",
    );
    let _alone = FIO_IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner());
    for engine in ["native", "fio"] {
        let fs = LoopFs::new(48);
        let file = TestFile::create(&fs.mount, true, "ext4").unwrap();
        let cancel = AtomicBool::new(false);
        let failed = AtomicBool::new(false);
        let me = std::process::id() as i32;
        let out = std::thread::scope(|s| {
            if engine == "fio" {
                // fio's jobs end within a status interval here: cut the device as soon as
                // fio runs.
                s.spawn(|| {
                    while !failed.load(Ordering::SeqCst) {
                        let running = !fio_processes_of(me).is_empty();
                        if running && !failed.swap(true, Ordering::SeqCst) {
                            cut_device(&fs);
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                });
            }
            let out = run_engine(engine_named(engine), &profile, &file, &cancel, &|e| {
                if let Event::PhaseStarted { index: 1, .. } = e {
                    if engine == "native" && !failed.swap(true, Ordering::SeqCst) {
                        cut_device(&fs);
                    }
                }
            });
            failed.store(true, Ordering::SeqCst);
            out
        });
        // Its filesystem no longer answers: the file goes with the image.
        std::mem::forget(file);
        let e = out.result.expect_err("the run must fail");
        eprintln!("{engine}: {e}");
        assert_eq!(e.kind().as_str(), "io", "{engine}: {e:?}");
        assert_eq!(e.advice(), Advice::CheckTheDevice, "{engine}");
    }
    Ok(())
}

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The profile `small-standard.json` was captured with.
fn fixture_profile() -> Profile {
    profile(
        "[global]\ndirect=1\niodepth=8\nsize=16m\nend_fsync=1\n\n\
         [prepare-file]\nrw=write\nbs=512k\n\n[seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=2\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=4k\nruntime=2\nstonewall\n",
    )
}

fn fio_job_error(errno: i32) -> EngineError {
    use std::os::unix::process::ExitStatusExt;
    let mut doc: serde_json::Value = serde_json::from_str(&fixture("small-standard.json")).unwrap();
    // The engine names fio's sections by index.
    for (index, job) in doc["jobs"].as_array_mut().unwrap().iter_mut().enumerate() {
        job["jobname"] = serde_json::json!(fio::jobfile::section_name(index));
    }
    doc["jobs"][3]["error"] = serde_json::json!(errno);
    let text = serde_json::to_string_pretty(&doc).unwrap();
    fio::results_from_output(
        &fixture_profile(),
        &text,
        "fio: io_u error on file /x: some error\n",
        ExitStatus::from_raw(1 << 8),
    )
    .expect_err("a job error is an error")
}

fn fio_job_errnos_have_their_own_kinds() {
    for (errno, kind) in [
        (libc::EIO, "io"),
        (libc::ENODEV, "io"),
        (libc::ENXIO, "io"),
        (libc::EROFS, "read_only"),
        (libc::ENOENT, "test_file_gone"),
        (libc::ELOOP, "test_file_gone"),
        (libc::ENOSPC, "no_space"),
        (libc::EINVAL, "fio_failed"),
    ] {
        let e = fio_job_error(errno);
        assert_eq!(e.kind().as_str(), kind, "errno {errno}: {e:?}");
        if kind != "fio_failed" {
            assert!(e.message().contains("rand-4k-write"), "{e}");
            // In the report, the step as people know it, not fio's job name.
            let report = agnostics_core::report::ErrorReport::from_engine(&e);
            assert!(report.message.contains("“Random 4K write”"), "{report:?}");
        }
    }
    // The same errno from the native engine is the same kind.
    let native = EngineError::from_io("seq-write", "write", std::io::Error::from_raw_os_error(5));
    assert_eq!(native.kind(), fio_job_error(libc::EIO).kind());
}

fn each_engine_error_kind_has_its_own_hint() {
    use std::collections::HashMap;
    let errors = [
        EngineError::from_io(
            "a",
            "write",
            std::io::Error::from_raw_os_error(libc::ENOSPC),
        ),
        EngineError::from_io("a", "write", std::io::Error::from_raw_os_error(libc::EIO)),
        EngineError::from_io("a", "write", std::io::Error::from_raw_os_error(libc::EROFS)),
        EngineError::from_io("a", "open", std::io::Error::from_raw_os_error(libc::ENOENT)),
        EngineError::DirectIoRefused {
            fs_type: "tmpfs".into(),
        },
        EngineError::Cancelled,
        EngineError::FioMissing {
            program: "fio".into(),
        },
        EngineError::FioHung { silent_s: 60 },
        EngineError::FioFailed {
            message: "x".into(),
        },
    ];
    let mut hints: HashMap<String, ErrorKind> = HashMap::new();
    for e in &errors {
        let hint = e.advice().text();
        if let Some(other) = hints.insert(hint.clone(), e.kind()) {
            panic!("{} and {other} share the hint {hint:?}", e.kind());
        }
        assert!(!hint.contains("shown above"), "{}: {hint}", e.kind());
    }
    assert_eq!(hints.len(), errors.len());
    // Creating the file in a folder that has gone is not the test file going missing.
    let e = EngineError::from_io(
        "create",
        "open",
        std::io::Error::from_raw_os_error(libc::ENOENT),
    );
    assert_eq!(e.kind().as_str(), "io");
}

fn long_messages_are_shortened_with_the_whole_text_in_details() {
    let long = format!(
        "fio: io_u error on file /var/tmp/.agnostics-test.1.0123456789abcdef.tmp: Input/output \
         error: write offset=1048576, buflen=4096 {}",
        "and more text from fio; ".repeat(25)
    );
    assert!(long.chars().count() > 600);
    let e = EngineError::FioFailed {
        message: long.clone(),
    };
    let report = ErrorReport::from_engine(&e);
    assert!(
        report.message.chars().count() <= SHORT_MESSAGE_CHARS,
        "{}",
        report.message
    );
    assert!(report.message.ends_with('…'), "{}", report.message);
    assert!(!report.message.contains('\n'));
    let details = report.details.as_deref().expect("the whole text");
    assert!(details.contains(&long), "{details}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["details"], serde_json::json!(details));

    // A message on several lines keeps its first line.
    let report = ErrorReport::new(
        ErrorKind::FioFailed,
        "first line\nsecond line".into(),
        "h".into(),
    );
    assert_eq!(report.message, "first line…");
    assert_eq!(report.details.as_deref(), Some("first line\nsecond line"));

    // A short message is whole: no details.
    let report = ErrorReport::new(
        ErrorKind::Io,
        "write failed during seq-write".into(),
        "h".into(),
    );
    assert_eq!(report.message, "write failed during seq-write");
    assert_eq!(report.details, None);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["details"], serde_json::Value::Null);
    // Reports written before the field existed still read.
    let old: ErrorReport =
        serde_json::from_str(r#"{"kind":"io","message":"m","hint":"h"}"#).unwrap();
    assert_eq!(old.details, None);
}

/// What the fio engine fills before fio starts: only what a read can reach before a write
/// that cannot stop early has covered it.
fn unwritten_reads_follow_the_writes_that_surely_happen() {
    use agnostics_core::engine::layout::unwritten_reads;
    let mib = 1u64 << 20;
    // The standard shape: the first job writes everything, with no runtime.
    assert_eq!(unwritten_reads(&small_standard("16m", 2)), None);
    // The first write may stop at its runtime: the reads need the whole file.
    assert_eq!(unwritten_reads(&profile(HOLE_PROFILE)), Some((0, 32 * mib)));
    // A write of half the file, then a read of all of it: the other half.
    let p = profile(
        "[global]\nsize=16m\n\n[w]\nrw=write\nbs=1m\nsize=8m\n\n\
         [r]\nrw=randread\nbs=4k\nstonewall\n",
    );
    assert_eq!(unwritten_reads(&p), Some((8 * mib, 16 * mib)));
    // A random write without runtime covers every block of its size.
    let p = profile(
        "[global]\nsize=16m\n\n[w]\nrw=randwrite\nbs=4k\n\n\
         [r]\nrw=read\nbs=1m\nstonewall\n",
    );
    assert_eq!(unwritten_reads(&p), None);
    // A runtime-limited random write before the read covers nothing for sure.
    let p = profile(
        "[global]\nsize=16m\n\n[w]\nrw=write\nbs=1m\n\n\
         [rw]\nrw=randwrite\nbs=4k\nruntime=1\nstonewall\n\n\
         [r]\nrw=randread\nbs=4k\nstonewall\n",
    );
    assert_eq!(unwritten_reads(&p), None);
}

pub(crate) fn tests() -> Vec<agnostics_testkit::harness::Test> {
    use agnostics_testkit::harness::Test;
    // Every fio run of these tests has a short watchdog.
    let watchdog = WATCHDOG_S.to_string();
    let own_process = [(fio::WATCHDOG_ENV, watchdog.as_str())];
    vec![
        Test::new(
            "reads_after_a_short_first_write_reach_the_device",
            reads_after_a_short_first_write_reach_the_device,
        ),
        Test::new(
            "a_silent_fio_is_stopped_by_the_watchdog",
            a_silent_fio_is_stopped_by_the_watchdog,
        ),
        Test::new(
            "a_killed_fio_ends_the_run_with_an_error",
            a_killed_fio_ends_the_run_with_an_error,
        ),
        Test::new(
            "a_removed_test_file_is_test_file_gone",
            a_removed_test_file_is_test_file_gone,
        ),
        Test::new(
            "a_symlink_in_place_of_the_test_file_is_test_file_gone",
            a_symlink_in_place_of_the_test_file_is_test_file_gone,
        ),
        Test::new(
            "another_file_in_place_of_the_test_file_is_test_file_gone",
            another_file_in_place_of_the_test_file_is_test_file_gone,
        ),
        Test::new(
            "a_read_only_remount_during_the_run_is_read_only",
            a_read_only_remount_during_the_run_is_read_only,
        ),
        Test::new(
            "a_failing_device_is_io_on_both_engines",
            a_failing_device_is_io_on_both_engines,
        ),
        Test::new(
            "unwritten_reads_follow_the_writes_that_surely_happen",
            unwritten_reads_follow_the_writes_that_surely_happen,
        ),
        Test::new(
            "fio_job_errnos_have_their_own_kinds",
            fio_job_errnos_have_their_own_kinds,
        ),
        Test::new(
            "each_engine_error_kind_has_its_own_hint",
            each_engine_error_kind_has_its_own_hint,
        ),
        Test::new(
            "long_messages_are_shortened_with_the_whole_text_in_details",
            long_messages_are_shortened_with_the_whole_text_in_details,
        ),
    ]
    .into_iter()
    .map(|t| t.in_own_process(&own_process))
    .collect()
}
