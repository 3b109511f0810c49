//! Helpers shared by the engine tests: small profiles parsed, an event recorder, running an
//! engine. The real-system fixtures (scratch folders on disk, loop-mounted ext4, throttled
//! disks) and the throttled test's profile and limits are `agnostics-testkit`'s, re-exported
//! here for the tests' `use common::*`.

#![allow(dead_code)]

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{self, EngineError, EngineKind, Event, PhaseResult, RunContext};
use agnostics_core::profile::Profile;
// Not every test binary that includes this module uses each of them.
#[allow(unused_imports)]
pub use agnostics_testkit::profiles::{
    assert_amount_paced_by_throttle, assert_paced_by_throttle, READ_IOPS, THROTTLE,
    THROTTLED_PROFILE, WRITE_BPS, WRITE_IOPS,
};
#[allow(unused_imports)]
pub use agnostics_testkit::{is_root, scratch_dir, BlkioThrottle, LoopFs, Throttle, ThrottledDisk};

#[allow(unused_imports)]
pub use agnostics_testkit::{locale, po};

/// Parses a profile text, panicking with the parser's message on error.
pub fn profile(text: &str) -> Profile {
    Profile::parse(text, "test.fio", None).unwrap_or_else(|e| panic!("bad test profile: {e}"))
}

/// A small version of the standard test: `size`, iodepth 8, 512 KiB blocks to prepare the
/// file, 1 MiB sequential blocks, 4 KiB random blocks limited to `runtime` seconds.
pub fn small_standard(size: &str, runtime: u32) -> Profile {
    profile(&agnostics_testkit::profiles::small_standard(
        size, "512k", runtime,
    ))
}

/// Collects every event an engine sends.
#[derive(Debug, Default)]
pub struct Recorder {
    pub events: Mutex<Vec<Event>>,
}

impl Recorder {
    pub fn push(&self, e: Event) {
        self.events.lock().unwrap().push(e);
    }
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut self.events.lock().unwrap())
    }
}

/// What one engine run gave.
#[derive(Debug)]
pub struct Outcome {
    pub result: Result<Vec<PhaseResult>, EngineError>,
    pub events: Vec<Event>,
    pub io_path: String,
}

/// Runs `profile` with `kind` on `file`; `on_event` sees each event before it is recorded
/// (to set `cancel`, for instance).
pub fn run_engine(
    kind: EngineKind,
    profile: &Profile,
    file: &TestFile,
    cancel: &AtomicBool,
    on_event: &(dyn Fn(&Event) + Sync),
) -> Outcome {
    let recorder = Recorder::default();
    let sink = |e: Event| {
        on_event(&e);
        recorder.push(e);
    };
    let ctx = RunContext {
        run: 1,
        cancel,
        on_event: &sink,
    };
    let done = engine::run_profile(kind, profile, file, &ctx);
    Outcome {
        result: done.phases,
        events: recorder.take(),
        io_path: done.io_path.map(|p| p.to_string()).unwrap_or_default(),
    }
}

/// Names of the entries of `dir`.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
