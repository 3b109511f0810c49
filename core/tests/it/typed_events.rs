//! What the engines tell their observers and return is typed: each phase announces its
//! pattern, block size and queue depth ([`Event::PhaseStarted`]), progress says the pattern,
//! results carry the job's [`Rw`], and the run says its I/O path as an [`IoPath`]. Real runs
//! of a small profile on a scratch folder on disk, with each engine (fio where installed).

use crate::common;

use std::sync::atomic::AtomicBool;

use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{EngineKind, Event, IoPath};
use agnostics_core::profile::{Profile, Rw};
use agnostics_testkit::{require_program, Ran};
use common::{run_engine, scratch_dir, small_standard};

/// Runs the small standard profile with `kind` and checks the events and results against
/// the profile; returns the run's I/O path.
fn check(kind: EngineKind) -> String {
    let dir = scratch_dir();
    let profile: Profile = small_standard("4m", 1);
    let file = TestFile::create(dir.path(), true, "ext4").expect("test file");
    let cancel = AtomicBool::new(false);
    let out = run_engine(kind, &profile, &file, &cancel, &|_| {});
    file.remove().expect("remove the test file");
    let phases = out.result.expect("the run");
    let mut started = 0;
    for e in &out.events {
        match e {
            Event::PhaseStarted {
                index,
                name,
                rw,
                bs,
                iodepth,
                ..
            } => {
                let job = &profile.jobs[*index];
                assert_eq!(name, &job.name);
                assert_eq!(*rw, job.rw, "{name}");
                assert_eq!(*bs, job.bs, "{name}");
                assert_eq!(*iodepth, phases[*index].iodepth, "{name}");
                started += 1;
            }
            Event::Progress { index, rw, .. } => {
                assert_eq!(*rw, profile.jobs[*index].rw);
            }
            _ => {}
        }
    }
    assert_eq!(started, profile.jobs.len());
    let patterns: Vec<Rw> = phases.iter().map(|p| p.rw).collect();
    assert_eq!(
        patterns,
        [Rw::Write, Rw::Write, Rw::Read, Rw::RandWrite, Rw::RandRead]
    );
    out.io_path
}

fn native_engine_events_and_results_are_typed() {
    let io_path = check(EngineKind::Native);
    assert!(
        matches!(
            IoPath::parse(&io_path),
            Some(IoPath::IoUring | IoPath::Threads)
        ),
        "{io_path}"
    );
}

fn fio_engine_events_and_results_are_typed() -> Ran {
    require_program("fio")?;
    let io_path = check(EngineKind::Fio);
    assert_eq!(
        IoPath::parse(&io_path),
        Some(IoPath::Fio {
            ioengine: "libaio".into()
        })
    );
    Ok(())
}

/// The I/O path's JSON spelling, and a report's `""` when nothing ran.
fn io_paths_keep_their_spelling() {
    for (path, text) in [
        (IoPath::IoUring, "io_uring"),
        (IoPath::Threads, "threads"),
        (
            IoPath::Fio {
                ioengine: "libaio".into(),
            },
            "fio libaio",
        ),
    ] {
        assert_eq!(serde_json::to_value(&path).unwrap(), text);
        assert_eq!(serde_json::from_value::<IoPath>(text.into()).unwrap(), path);
    }
    assert_eq!(IoPath::parse(""), None);
    assert_eq!(IoPath::parse("fio "), None);
    assert_eq!(IoPath::parse("uring"), None);
}

agnostics_testkit::test_list!(
    native_engine_events_and_results_are_typed,
    fio_engine_events_and_results_are_typed,
    io_paths_keep_their_spelling,
);
