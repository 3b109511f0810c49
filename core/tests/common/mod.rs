//! Helpers shared by the engine tests: small profiles, an event recorder, the throttled test's
//! profile and limits. The real-system fixtures (scratch folders on disk, loop-mounted ext4,
//! blkio throttles) are `agnostics-testkit`'s, re-exported here for the tests' `use common::*`.

#![allow(dead_code)]

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{self, EngineError, EngineKind, Event, PhaseResult, RunContext};
use agnostics_core::profile::Profile;
// Not every test binary that includes this module uses each of them.
#[allow(unused_imports)]
pub use agnostics_testkit::{is_root, scratch_dir, BlkioThrottle, LoopFs, Throttle, ThrottledDisk};

/// Translation catalogues and locales for the i18n tests (also used by cli/tests).
pub mod locale;
/// A reader of the `.po` catalogues (also used by cli/tests).
pub mod po;

/// Parses a profile text, panicking with the parser's message on error.
pub fn profile(text: &str) -> Profile {
    Profile::parse(text, "test.fio", None).unwrap_or_else(|e| panic!("bad test profile: {e}"))
}

/// A small version of the standard test: `size`, iodepth 8, 1 MiB sequential blocks, 4 KiB
/// random blocks limited to `runtime` seconds.
pub fn small_standard(size: &str, runtime: u32) -> Profile {
    profile(&format!(
        "[global]\nioengine=libaio\ndirect=1\niodepth=8\nsize={size}\nend_fsync=1\n\n\
         [prepare-file]\nrw=write\nbs=512k\nstonewall\n\n\
         [seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime={runtime}\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=4k\nruntime={runtime}\nstonewall\n"
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

/// The throttled test's profile: the standard test's shape at 64 MiB, 5 s random phases.
pub const THROTTLED_PROFILE: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=32
size=64m
end_fsync=1

[prepare-file]
rw=write
bs=512k
stonewall

[seq-write]
rw=write
bs=4m
stonewall

[seq-read]
rw=read
bs=4m
stonewall

[rand-4k-write]
rw=randwrite
bs=4k
runtime=5
stonewall

[rand-4k-read]
rw=randread
bs=4k
runtime=5
stonewall
";

/// The throttle: 400 write IOPS, 1200 read IOPS, 12 MiB/s writes.
pub const WRITE_IOPS: u64 = 400;
pub const READ_IOPS: u64 = 1200;
pub const WRITE_BPS: u64 = 12 << 20;

/// [`WRITE_IOPS`], [`READ_IOPS`] and [`WRITE_BPS`] as a blkio throttle (reads unlimited in
/// bytes).
pub const THROTTLE: Throttle = Throttle {
    write_bps: WRITE_BPS,
    read_bps: 0,
    write_iops: WRITE_IOPS,
    read_iops: READ_IOPS,
};

/// Panics unless `measured` (a rate: IOPS or bytes per second, f64) is a figure the throttle
/// `limit` (same unit) allows: positive and at most `limit` + 10 % (blkio's accounting slices
/// let a short burst through).
///
/// The throttle is a ceiling: no engine can measure more than the device allows, however busy
/// the machine, so a figure above it is a wrong measurement. There is no floor: a machine
/// whose cores are busy with other work slows a run by any amount (a queue depth 1 write ran
/// at 26 % of its limit beside two `yes` loops and two compilers).
pub fn assert_paced_by_throttle(what: &str, measured: f64, limit: f64) {
    assert!(
        measured <= limit * 1.10,
        "{what}: measured {measured:.1}, faster than the throttle {limit:.1} allows"
    );
    assert!(measured > 0.0, "{what}: measured {measured}");
}
