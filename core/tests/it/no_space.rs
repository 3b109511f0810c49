//! A filesystem that fills up during the test: every engine and I/O path reports `NoSpace` in
//! the phase that ran out of room (prepare-file: a 64 MiB file on a 24 MiB filesystem) and the
//! test file goes. One table, one named test per engine; each needs root (a loop device).

use crate::common;

use std::path::Path;
use std::sync::atomic::AtomicBool;

use agnostics_core::engine::native::{self, IoChoice};
use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{fio, EngineError, Event, RunContext};
use agnostics_testkit::harness::Test;
use agnostics_testkit::LoopFs;
use common::{entries, small_standard, Recorder};

/// An engine and I/O path to fill the filesystem with.
#[derive(Clone, Copy, Debug)]
enum Engine {
    /// The native engine on this I/O path.
    Native(IoChoice),
    /// The installed fio.
    Fio,
}

/// Each engine, one test each.
const ENGINES: &[(&str, Engine)] = &[
    (
        "full_filesystem_is_no_space_and_the_file_goes_on_io_uring",
        Engine::Native(IoChoice::Uring),
    ),
    (
        "full_filesystem_is_no_space_and_the_file_goes_on_threads",
        Engine::Native(IoChoice::Threads),
    ),
    (
        "full_filesystem_under_fio_is_no_space_and_the_file_goes",
        Engine::Fio,
    ),
];

fn require_fio() -> agnostics_testkit::Ran {
    let found = std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    agnostics_testkit::require(found, "needs fio (fio --version did not run)")
}

fn fills_up(engine: Engine) -> agnostics_testkit::Ran {
    agnostics_testkit::require_root("a loop device")?;
    match engine {
        Engine::Fio => require_fio()?,
        Engine::Native(IoChoice::Uring) => agnostics_testkit::require(
            native::uring::BUILT,
            format!(
                "this build has no io_uring path on {} (the pool of threads is tested)",
                std::env::consts::ARCH
            ),
        )?,
        Engine::Native(_) => {}
    }
    let fs = LoopFs::new(24);
    let profile = small_standard("64m", 2);
    let file = TestFile::create(&fs.mount, true, "ext4").unwrap();
    let recorder = Recorder::default();
    let cancel = AtomicBool::new(false);
    let sink = |e: Event| recorder.push(e);
    let ctx = RunContext {
        run: 1,
        cancel: &cancel,
        on_event: &sink,
    };
    let done = match engine {
        Engine::Native(choice) => native::run_profile_with(choice, &profile, &file, &ctx),
        Engine::Fio => fio::run_profile_with(Path::new("fio"), &profile, &file, &ctx),
    };
    match done.phases {
        Err(EngineError::NoSpace { phase }) => assert_eq!(phase, "prepare-file"),
        other => panic!("{engine:?}: expected NoSpace, got {other:?}"),
    }
    file.remove().unwrap();
    let left: Vec<String> = entries(&fs.mount)
        .into_iter()
        .filter(|n| n != "lost+found")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    Ok(())
}

pub(crate) fn tests() -> Vec<Test> {
    ENGINES
        .iter()
        .map(|&(name, engine)| Test::new(name, move || fills_up(engine)))
        .collect()
}
