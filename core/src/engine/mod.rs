//! Engines: run a profile's jobs, one after another, on the program's own test file and measure
//! each phase.
//!
//! Two engines produce the same [`PhaseResult`]s: [`native`] (Rust, O_DIRECT, io_uring or a
//! thread pool) and [`fio`] (the installed fio, `--output-format=json`). Both write only the
//! [`testfile::TestFile`] the caller created, whatever the profile's `filename`/`directory` say,
//! and lay it out alike ([`layout`]).

pub mod device_io;
pub mod fio;
pub mod hugepages;
pub mod layout;
pub mod native;
pub mod pause;
pub mod randmap;
pub mod testfile;

mod error;
mod event;

pub use error::EngineError;
pub use event::{run_line, Event, Rerun, RunContext};

use serde::{Deserialize, Serialize};

use crate::profile::{Profile, Rw};

/// Which engine measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// The built-in Rust engine (default).
    #[default]
    Native,
    /// The installed `fio` program.
    Fio,
}

impl EngineKind {
    /// `native` or `fio`.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::Native => "native",
            EngineKind::Fio => "fio",
        }
    }
}

/// Completion latency percentiles of a phase, in microseconds (f64).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LatencyUs {
    /// Median completion latency, µs.
    pub p50: f64,
    /// 99th percentile completion latency, µs.
    pub p99: f64,
    /// Largest completion latency, µs.
    pub max: f64,
}

/// One per-second sample of a running phase.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Sample {
    /// Seconds since the phase started at the end of this sample's interval (f64).
    pub t_s: f64,
    /// Bandwidth over the interval, bytes per second (f64).
    pub bw_bytes: f64,
    /// I/O operations per second over the interval (f64).
    pub iops: f64,
}

/// What one phase (one fio job) measured.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PhaseResult {
    /// The job name, e.g. `seq-write`.
    pub name: String,
    /// The pattern (JSON: fio's spelling, `read`, `write`, `randread`, `randwrite`).
    pub rw: Rw,
    /// Block size, bytes.
    pub bs: u64,
    /// Queue depth used, per clone: the depth the phase ended at (a native writing phase
    /// that starts lean may grow after its first 16 MiB, see `native::buffers::write_depth`).
    pub iodepth: u32,
    /// Bytes transferred, u64.
    pub bytes: u64,
    /// I/O operations completed, u64.
    pub ios: u64,
    /// Elapsed seconds from the first submission to the end (including `end_fsync`), f64.
    pub seconds: f64,
    /// Bandwidth, bytes per second (f64): `bytes / seconds`.
    pub bw_bytes: f64,
    /// I/O operations per second (f64): `ios / seconds`.
    pub iops: f64,
    /// Completion latency, µs.
    pub lat_us: LatencyUs,
    /// Per-second samples, in order.
    pub samples: Vec<Sample>,
    /// True when the phase ended at its `runtime` limit before covering its `size`.
    pub stopped_by_runtime: bool,
    /// What the drive itself did during the phase, from the block layer's counters of the
    /// filesystem's device; `None` when there is no block device behind the test file or
    /// its counters could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_io: Option<Box<device_io::DeviceIo>>,
    /// Why [`PhaseResult::iodepth`] is below the profile's `iodepth`, when it is (the native
    /// engine's write buffers, see `native::buffers::write_depth`); absent (JSON: no key) when
    /// the phase ran at the depth the profile asks, and always for the fio engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_limit: Option<DepthLimit>,
}

/// Why a phase kept fewer requests in flight than its profile asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthLimit {
    /// The profile's `iodepth` (per clone).
    pub asked: u32,
    /// What limited it.
    pub reason: DepthReason,
    /// The write buffers' memory budget the depth fits in, bytes.
    pub budget_bytes: u64,
}

/// What limited a phase's depth (JSON: `lean`, `memory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DepthReason {
    /// Neither an earlier phase of the run nor the phase's own first 16 MiB showed a drive
    /// fast enough to use more (an SD card or anything as slow), or the phase ended within
    /// those 16 MiB: the lean budget of 8 MiB.
    Lean,
    /// A fast drive, but `iodepth × bs` is more than a quarter of `MemAvailable`.
    Memory,
}

/// How an engine did its I/O. JSON (and the text report): `io_uring`, `threads`, or `fio `
/// followed by fio's ioengine (`fio libaio`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IoPath {
    /// The native engine on io_uring.
    IoUring,
    /// The native engine on a pool of threads (io_uring refused or not chosen).
    Threads,
    /// fio, with this ioengine (the profile's first job's, e.g. `libaio`).
    Fio {
        /// fio's `ioengine`.
        ioengine: String,
    },
}

impl IoPath {
    /// The path named by `text` as [`IoPath`]'s `Display` writes it, or `None`.
    pub fn parse(text: &str) -> Option<IoPath> {
        match text {
            "io_uring" => Some(IoPath::IoUring),
            "threads" => Some(IoPath::Threads),
            _ => text
                .strip_prefix("fio ")
                .filter(|e| !e.is_empty())
                .map(|e| IoPath::Fio {
                    ioengine: e.to_owned(),
                }),
        }
    }
}

impl std::fmt::Display for IoPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IoPath::IoUring => f.write_str("io_uring"),
            IoPath::Threads => f.write_str("threads"),
            IoPath::Fio { ioengine } => write!(f, "fio {ioengine}"),
        }
    }
}

impl Serialize for IoPath {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for IoPath {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        IoPath::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown I/O path {text:?}")))
    }
}

/// What an engine did with a profile: the I/O path it used and one result per job, or why it
/// stopped.
#[derive(Debug)]
pub struct EngineRun {
    /// The I/O path, `None` when the engine stopped before choosing one (e.g. io_uring was
    /// demanded and refused).
    pub io_path: Option<IoPath>,
    /// One result per job, in profile order, or the error that stopped the run.
    pub phases: Result<Vec<PhaseResult>, EngineError>,
}

impl EngineRun {
    /// A run that stopped with `error` before choosing an I/O path.
    pub fn failed(error: EngineError) -> EngineRun {
        EngineRun {
            io_path: None,
            phases: Err(error),
        }
    }
}

/// Runs every job of `profile` on `file` with the chosen engine, in order, and says what it
/// did ([`EngineRun`]: the I/O path, e.g. `io_uring`, `threads`, `fio libaio`, and one
/// result per job in profile order).
///
/// Errors (in [`EngineRun::phases`]): see [`EngineError`]; on error or cancel the caller
/// still owns and removes `file`.
pub fn run_profile(
    kind: EngineKind,
    profile: &Profile,
    file: &testfile::TestFile,
    ctx: &RunContext<'_>,
) -> EngineRun {
    match kind {
        EngineKind::Native => native::run_profile(profile, file, ctx),
        EngineKind::Fio => fio::run_profile(profile, file, ctx),
    }
}
