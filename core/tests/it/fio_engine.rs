//! The fio engine: parsing fio's real JSON output (captured from fio 3.33 into
//! `tests/fixtures/fio/`) by job name, every failure an error and never a result, and real
//! runs of the installed fio on files on disk.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use agnostics_core::engine::fio::{self, output};
use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{EngineError, EngineKind, Event, RunContext};
use agnostics_core::profile::Profile;
use common::*;

/// Tests that read or change `AGNOSTICS_FIO` hold this.
static ENV: Mutex<()> = Mutex::new(());

/// A captured fio output. The captures name each job after the profile's section; the
/// program's own job file names them by index (`job0`, …), so the captures of whole runs of a
/// known profile are given those names here, as fio prints them for the engine's job file.
fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let jobs: &[&str] = match name {
        "small-standard.json" => &[
            "prepare-file",
            "seq-write",
            "seq-read",
            "rand-4k-write",
            "rand-4k-read",
        ],
        "enospc-error-lines-first.json" => &["prepare-file", "seq-read"],
        _ => &[],
    };
    jobs.iter().enumerate().fold(text, |text, (index, job)| {
        text.replace(
            &format!("\"jobname\" : \"{job}\""),
            &format!("\"jobname\" : \"{}\"", fio::jobfile::section_name(index)),
        )
    })
}

/// The profile `small-standard.json` was captured with (16 MiB, iodepth 8, runtime 2 s).
fn fixture_profile() -> Profile {
    profile(
        "[global]\ndirect=1\niodepth=8\nsize=16m\nend_fsync=1\n\n\
         [prepare-file]\nrw=write\nbs=512k\n\n[seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=2\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=4k\nruntime=2\nstonewall\n",
    )
}

fn ok() -> ExitStatus {
    ExitStatus::from_raw(0)
}

fn edit_jobs(text: &str, edit: impl FnOnce(&mut Vec<serde_json::Value>)) -> String {
    let mut doc: serde_json::Value = serde_json::from_str(text).unwrap();
    edit(doc["jobs"].as_array_mut().unwrap());
    serde_json::to_string_pretty(&doc).unwrap()
}

fn reads_every_phase_of_real_fio_output_by_name() {
    let results = fio::results_from_output(
        &fixture_profile(),
        &fixture("small-standard.json"),
        "",
        ok(),
    )
    .unwrap();
    let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "prepare-file",
            "seq-write",
            "seq-read",
            "rand-4k-write",
            "rand-4k-read"
        ]
    );
    for r in &results {
        assert_eq!(r.bytes, 16 << 20, "{}", r.name);
        assert_eq!(r.bytes, r.ios * r.bs, "{}", r.name);
        assert!(r.bw_bytes > 0.0 && r.iops > 0.0, "{}", r.name);
        assert!(
            r.lat_us.p50 > 0.0 && r.lat_us.p50 <= r.lat_us.p99,
            "{}",
            r.name
        );
        assert!(r.lat_us.p99 <= r.lat_us.max, "{}", r.name);
        assert!(!r.stopped_by_runtime);
    }
    // Values straight from the fixture: rand-4k-read's `read` block.
    let rr = &results[4];
    let doc: serde_json::Value = serde_json::from_str(&fixture("small-standard.json")).unwrap();
    let read = &doc["jobs"][4]["read"];
    assert_eq!(rr.bw_bytes, read["bw_bytes"].as_f64().unwrap());
    assert_eq!(rr.iops, read["iops"].as_f64().unwrap());
    assert_eq!(rr.ios, 4096);
    assert_eq!(rr.seconds, read["runtime"].as_f64().unwrap() / 1000.0);
    assert_eq!(
        rr.lat_us.p99,
        read["clat_ns"]["percentile"]["99.000000"].as_f64().unwrap() / 1000.0
    );
    assert_eq!(
        rr.lat_us.max,
        read["clat_ns"]["max"].as_f64().unwrap() / 1000.0
    );
}

fn jobs_in_another_order_give_the_same_results() {
    let text = fixture("small-standard.json");
    let reversed = edit_jobs(&text, |jobs| jobs.reverse());
    let a = fio::results_from_output(&fixture_profile(), &text, "", ok()).unwrap();
    let b = fio::results_from_output(&fixture_profile(), &reversed, "", ok()).unwrap();
    assert_eq!(a, b);
}

fn an_extra_job_does_not_shift_the_others() {
    let text = fixture("small-standard.json");
    let extra = edit_jobs(&text, |jobs| {
        let mut added = jobs[1].clone();
        added["jobname"] = "someone-elses-job".into();
        added["write"]["bw_bytes"] = 1.into();
        jobs.insert(0, added);
    });
    let a = fio::results_from_output(&fixture_profile(), &text, "", ok()).unwrap();
    let b = fio::results_from_output(&fixture_profile(), &extra, "", ok()).unwrap();
    assert_eq!(a, b);
}

fn error_lines_before_the_json_are_skipped_and_a_full_disk_is_no_space() {
    let stdout = fixture("enospc-error-lines-first.json");
    assert!(stdout.starts_with("fio: ENOSPC"));
    let out = output::final_output(&stdout).expect("the JSON after fio's error lines");
    assert_eq!(out.job("job0").unwrap().error, 28);
    let profile = profile(
        "[global]\ndirect=1\niodepth=8\nsize=64m\nend_fsync=1\n\n\
         [prepare-file]\nrw=write\nbs=512k\n\n[seq-read]\nrw=read\nbs=1m\nstonewall\n",
    );
    let stderr = fixture("enospc-error-lines-first.stderr");
    match fio::results_from_output(&profile, &stdout, &stderr, ExitStatus::from_raw(2 << 8)) {
        Err(EngineError::NoSpace { phase }) => assert_eq!(phase, "prepare-file"),
        other => panic!("expected NoSpace, got {other:?}"),
    }
}

fn a_job_error_is_fio_failed_never_a_result() {
    let text = edit_jobs(&fixture("small-standard.json"), |jobs| {
        // EINVAL: fio's own failure (EIO and the like are the device's: engine_errors.rs).
        jobs[3]["error"] = 22.into();
    });
    let stderr = "fio: io_u error on file /x: Invalid argument: write offset=0, buflen=4096\n";
    match fio::results_from_output(&fixture_profile(), &text, stderr, ok()) {
        Err(EngineError::FioFailed { message }) => {
            assert!(message.contains("rand-4k-write"), "{message}");
            assert!(message.contains("Invalid argument"), "{message}");
        }
        other => panic!("expected FioFailed, got {other:?}"),
    }
}

fn a_missing_job_is_fio_failed() {
    let text = edit_jobs(&fixture("small-standard.json"), |jobs| {
        jobs.retain(|j| j["jobname"] != "job2");
    });
    match fio::results_from_output(&fixture_profile(), &text, "", ok()) {
        Err(EngineError::FioFailed { message }) => assert!(message.contains("seq-read")),
        other => panic!("expected FioFailed, got {other:?}"),
    }
}

fn a_missing_value_is_fio_failed() {
    for (key, path) in [
        ("write.bw_bytes", &["write", "bw_bytes"][..]),
        ("write.iops", &["write", "iops"][..]),
        (
            "write.clat_ns.percentile.99.000000",
            &["write", "clat_ns", "percentile", "99.000000"][..],
        ),
    ] {
        let text = edit_jobs(&fixture("small-standard.json"), |jobs| {
            let mut v = &mut jobs[1];
            for p in &path[..path.len() - 1] {
                v = &mut v[*p];
            }
            v.as_object_mut().unwrap().remove(path[path.len() - 1]);
        });
        match fio::results_from_output(&fixture_profile(), &text, "", ok()) {
            Err(EngineError::FioFailed { message }) => {
                assert!(message.contains(key), "{key}: {message}");
                assert!(message.contains("seq-write"), "{message}");
            }
            other => panic!("{key}: expected FioFailed, got {other:?}"),
        }
    }
}

fn a_failed_exit_is_fio_failed_even_with_good_json() {
    let out = fio::results_from_output(
        &fixture_profile(),
        &fixture("small-standard.json"),
        "fio: some failure\n",
        ExitStatus::from_raw(1 << 8),
    );
    match out {
        Err(EngineError::FioFailed { message }) => assert!(message.contains("some failure")),
        other => panic!("expected FioFailed, got {other:?}"),
    }
}

fn no_json_at_all_is_fio_failed() {
    let out = fio::results_from_output(&fixture_profile(), "", "fio: bad option\n", ok());
    assert!(matches!(out, Err(EngineError::FioFailed { .. })), "{out:?}");
}

fn the_last_status_snapshot_is_the_result() {
    let stream = fixture("status-interval-stream.json");
    assert_eq!(output::documents(&stream).len(), 5);
    let out = output::final_output(&stream).unwrap();
    let rr = out.job("rand-4k-read").unwrap();
    assert_eq!(rr.job_runtime, 3000);
    assert_eq!(rr.io_bytes(), 224_571_392);
}

fn run_fio(program: &Path, profile: &Profile, file: &TestFile, cancel: &AtomicBool) -> Outcome {
    run_fio_cancelling(program, profile, file, cancel, false)
}

/// Runs fio; with `cancel_on_progress`, sets `cancel` at the first progress event.
fn run_fio_cancelling(
    program: &Path,
    profile: &Profile,
    file: &TestFile,
    cancel: &AtomicBool,
    cancel_on_progress: bool,
) -> Outcome {
    let recorder = Recorder::default();
    let sink = |e: Event| {
        if cancel_on_progress && matches!(e, Event::Progress { .. }) {
            cancel.store(true, Ordering::SeqCst);
        }
        recorder.push(e);
    };
    let ctx = RunContext {
        run: 1,
        cancel,
        on_event: &sink,
    };
    let done = fio::run_profile_with(program, profile, file, &ctx);
    Outcome {
        result: done.phases,
        events: recorder.take(),
        io_path: done.io_path.map(|p| p.to_string()).unwrap_or_default(),
    }
}

/// Skips unless a working fio is installed (`fio --version` succeeds).
fn require_fio() -> agnostics_testkit::Ran {
    let found = std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    agnostics_testkit::require(found, "needs fio (fio --version did not run)")
}

fn installed_fio_measures_every_phase_on_a_path_with_a_colon() -> agnostics_testkit::Ran {
    require_fio()?;
    let holder = scratch_dir();
    let dir = holder.path().join("sd:card");
    std::fs::create_dir(&dir).unwrap();
    let profile = small_standard("32m", 2);
    let file = TestFile::create(&dir, true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let out = run_fio(Path::new("fio"), &profile, &file, &cancel);
    let phases = out.result.expect("fio measures every phase");
    assert_eq!(out.io_path, "fio libaio");
    for (p, job) in phases.iter().zip(&profile.jobs) {
        assert_eq!(p.name, job.name);
        assert!(p.ios > 0);
        assert_eq!(p.bytes, p.ios * job.bs, "{}", p.name);
        assert!(!p.samples.is_empty(), "{}", p.name);
    }
    let finished = out
        .events
        .iter()
        .filter(|e| matches!(e, Event::PhaseFinished { .. }))
        .count();
    assert_eq!(finished, profile.jobs.len());
    assert_eq!(std::fs::metadata(file.path()).unwrap().len(), 32 << 20);
    file.remove().unwrap();
    assert!(entries(&dir).is_empty());
    Ok(())
}

fn missing_fio_is_fio_missing() {
    let _guard = ENV.lock().unwrap();
    let dir = scratch_dir();
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    std::env::set_var("AGNOSTICS_FIO", "/nonexistent/fio");
    let out = run_engine(EngineKind::Fio, &fixture_profile(), &file, &cancel, &|_| {});
    std::env::remove_var("AGNOSTICS_FIO");
    match out.result {
        Err(EngineError::FioMissing { program }) => assert_eq!(program, "/nonexistent/fio"),
        other => panic!("expected FioMissing, got {other:?}"),
    }
    drop(file);
    assert!(entries(dir.path()).is_empty());
}

/// A stand-in for fio: a shell script with this body.
fn fake_fio(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("fake-fio");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn failing_fio_is_fio_failed_with_its_message() {
    let tools = tempfile::tempdir().unwrap();
    let dir = scratch_dir();
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let fio = fake_fio(tools.path(), "echo 'fio: failed parsing bs=4x' >&2\nexit 1");
    let out = run_fio(&fio, &fixture_profile(), &file, &cancel);
    match out.result {
        Err(EngineError::FioFailed { message }) => {
            assert!(message.contains("failed parsing bs=4x"), "{message}")
        }
        other => panic!("expected FioFailed, got {other:?}"),
    }
}

fn fio_reporting_a_job_error_with_exit_0_is_fio_failed() {
    let tools = tempfile::tempdir().unwrap();
    let json = edit_jobs(&fixture("small-standard.json"), |jobs| {
        jobs[2]["error"] = 22.into();
    });
    std::fs::write(tools.path().join("out.json"), json).unwrap();
    let fio = fake_fio(
        tools.path(),
        &format!("cat '{}'\nexit 0", tools.path().join("out.json").display()),
    );
    let dir = scratch_dir();
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let out = run_fio(&fio, &fixture_profile(), &file, &cancel);
    match out.result {
        Err(EngineError::FioFailed { message }) => {
            assert!(message.contains("seq-read"), "{message}")
        }
        other => panic!("expected FioFailed, got {other:?}"),
    }
}

fn cancel_stops_fio_and_the_file_goes() -> agnostics_testkit::Ran {
    require_fio()?;
    let dir = scratch_dir();
    // Long enough for status snapshots: 512-byte random reads at depth 1 for up to 20 s.
    let profile = profile(
        "[prep]\nrw=write\nbs=1m\nsize=64m\ndirect=1\niodepth=8\n\n\
         [slow]\nrw=randread\nbs=512\nsize=64m\ndirect=1\niodepth=1\nruntime=20\nstonewall\n",
    );
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let out = run_fio_cancelling(Path::new("fio"), &profile, &file, &cancel, true);
    assert!(out
        .events
        .iter()
        .any(|e| matches!(e, Event::Progress { .. })));
    assert!(
        matches!(out.result, Err(EngineError::Cancelled)),
        "{:?}",
        out.result
    );
    drop(file);
    let left = entries(dir.path());
    assert!(left.is_empty(), "file removed after cancel, left: {left:?}");
    Ok(())
}

/// This module's tests; `missing_fio_is_fio_missing` sets `AGNOSTICS_FIO`, which every test
/// beside it would see, so it runs in a process of its own.
pub(crate) fn tests() -> Vec<agnostics_testkit::harness::Test> {
    let tests = agnostics_testkit::tests!(
        reads_every_phase_of_real_fio_output_by_name,
        jobs_in_another_order_give_the_same_results,
        an_extra_job_does_not_shift_the_others,
        error_lines_before_the_json_are_skipped_and_a_full_disk_is_no_space,
        a_job_error_is_fio_failed_never_a_result,
        a_missing_job_is_fio_failed,
        a_missing_value_is_fio_failed,
        a_failed_exit_is_fio_failed_even_with_good_json,
        no_json_at_all_is_fio_failed,
        the_last_status_snapshot_is_the_result,
        installed_fio_measures_every_phase_on_a_path_with_a_colon,
        missing_fio_is_fio_missing,
        failing_fio_is_fio_failed_with_its_message,
        fio_reporting_a_job_error_with_exit_0_is_fio_failed,
        cancel_stops_fio_and_the_file_goes,
    );
    tests
        .into_iter()
        .map(|t| match t.name() {
            "missing_fio_is_fio_missing" => t.in_own_process(&[]),
            _ => t,
        })
        .collect()
}
