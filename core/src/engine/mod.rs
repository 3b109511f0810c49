//! Engines: run a profile's jobs, one after another, on the program's own test file and measure
//! each phase.
//!
//! Two engines produce the same [`PhaseResult`]s: [`native`] (Rust, O_DIRECT, io_uring or a
//! thread pool) and [`fio`] (the installed fio, `--output-format=json`). Both write only the
//! [`testfile::TestFile`] the caller created, whatever the profile's `filename`/`directory` say,
//! and lay it out alike ([`layout`]).

pub mod fio;
pub mod layout;
pub mod native;
pub mod randmap;
pub mod testfile;

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::profile::{Profile, Rw};
use crate::report::ErrorKind;

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
    /// Queue depth used.
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
}

/// What a running test tells its observer. At most about ten [`Event::Progress`] a second.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A run of the profile starts (1-based `run` of `runs`).
    RunStarted {
        /// 1-based run number.
        run: u32,
        /// How many runs at most.
        runs: u32,
    },
    /// A phase starts.
    PhaseStarted {
        /// 1-based run number.
        run: u32,
        /// 0-based index of the phase in the profile.
        index: usize,
        /// Number of phases in the profile.
        count: usize,
        /// The job name.
        name: String,
        /// The job's pattern.
        rw: Rw,
        /// The job's block size, bytes.
        bs: u64,
        /// The queue depth the phase runs at.
        iodepth: u32,
    },
    /// The running phase's progress.
    Progress {
        /// 1-based run number.
        run: u32,
        /// 0-based phase index.
        index: usize,
        /// The phase's pattern (whether IOPS or MB/s is its figure).
        rw: Rw,
        /// Fraction done, 0.0 to 1.0: the larger of bytes/size and elapsed/runtime.
        fraction: f64,
        /// Bytes so far in this phase.
        bytes: u64,
        /// I/Os so far in this phase.
        ios: u64,
        /// Seconds since the phase started.
        elapsed_s: f64,
        /// Bandwidth since the last progress event, bytes per second.
        bw_bytes: f64,
        /// IOPS since the last progress event.
        iops: f64,
    },
    /// A per-second sample of the running phase.
    Sample {
        /// 1-based run number.
        run: u32,
        /// 0-based phase index.
        index: usize,
        /// The sample.
        sample: Sample,
    },
    /// A phase ended with this result.
    PhaseFinished {
        /// 1-based run number.
        run: u32,
        /// 0-based phase index.
        index: usize,
        /// What it measured.
        result: PhaseResult,
    },
    /// A warning for the user (e.g. io_uring refused, thread pool used).
    Warning(String),
}

/// What an engine needs besides the profile: where to write, how to report, when to stop.
pub struct RunContext<'a> {
    /// 1-based run number, copied into events.
    pub run: u32,
    /// Set from another thread (or a signal handler) to stop: the engine stops submitting,
    /// waits for in-flight I/O and returns [`EngineError::Cancelled`].
    pub cancel: &'a AtomicBool,
    /// Receives events; called on the engine's thread.
    pub on_event: &'a (dyn Fn(Event) + Sync),
}

impl std::fmt::Debug for RunContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext")
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

/// Why an engine stopped without a full result. Each cause has its own [`EngineError::kind`]
/// and its own advice ([`EngineError::advice`]).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The filesystem filled up (ENOSPC, EDQUOT) during `phase`.
    #[error("the drive is full (no space left while running {phase})")]
    NoSpace {
        /// The job that was running.
        phase: String,
    },
    /// A read or write failed during `phase`: EIO, ENODEV, ENXIO (often a card or USB drive
    /// that was pulled out or is failing), or another OS error not listed elsewhere. fio
    /// reports the same errnos as a job's `error`; they become this variant too.
    #[error("{op} failed during {phase}: {source}")]
    Io {
        /// The job that was running.
        phase: String,
        /// `read`, `write`, `fsync`, `open`, …
        op: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The filesystem became read-only while the test ran (EROFS): the kernel remounts a
    /// filesystem read-only after errors, and worn-out cards turn themselves read-only.
    #[error("the drive became read-only during {phase} ({op} refused)")]
    ReadOnly {
        /// The job that was running.
        phase: String,
        /// `read`, `write`, `fsync`, `open`, …
        op: &'static str,
    },
    /// The test file was removed or replaced by something else while the test ran (ENOENT,
    /// ELOOP through a symlink put in its place, ESTALE, or another file at its path).
    #[error("the test file was removed or replaced during {phase}")]
    TestFileGone {
        /// The job that was running (or `open` between jobs).
        phase: String,
    },
    /// The filesystem does not accept O_DIRECT.
    #[error("the filesystem ({fs_type}) does not allow direct I/O (O_DIRECT)")]
    DirectIoRefused {
        /// Filesystem type name, e.g. `tmpfs`.
        fs_type: String,
    },
    /// The cancel flag was set.
    #[error("stopped before the end")]
    Cancelled,
    /// `fio` is not installed.
    #[error("fio is not installed (looked for `{program}`)")]
    FioMissing {
        /// The program name or path looked for.
        program: String,
    },
    /// fio printed nothing for `silent_s` seconds although its `--status-interval=1` makes a
    /// healthy fio print every second: it was stuck (fio 3.33 can deadlock when one of its job
    /// processes is killed, e.g. by the OOM killer) and was stopped.
    #[error("fio stopped responding: nothing from it for {silent_s} s, so it was stopped")]
    FioHung {
        /// Seconds of silence after which the watchdog stopped fio.
        silent_s: u64,
    },
    /// fio failed: non-zero exit, a job's `error` not covered above, missing job or value, or
    /// unparsable output.
    #[error("fio failed: {message}")]
    FioFailed {
        /// fio's own message, or what was missing.
        message: String,
    },
}

impl EngineError {
    /// The report's kind of this error: `no_space`, `io`, `read_only`, `test_file_gone`,
    /// `direct_io_refused`, `cancelled`, `fio_missing`, `fio_hung` or `fio_failed`.
    pub fn kind(&self) -> ErrorKind {
        match self {
            EngineError::NoSpace { .. } => ErrorKind::NoSpace,
            EngineError::Io { .. } => ErrorKind::Io,
            EngineError::ReadOnly { .. } => ErrorKind::ReadOnly,
            EngineError::TestFileGone { .. } => ErrorKind::TestFileGone,
            EngineError::DirectIoRefused { .. } => ErrorKind::DirectIoRefused,
            EngineError::Cancelled => ErrorKind::Cancelled,
            EngineError::FioMissing { .. } => ErrorKind::FioMissing,
            EngineError::FioHung { .. } => ErrorKind::FioHung,
            EngineError::FioFailed { .. } => ErrorKind::FioFailed,
        }
    }

    /// What the user should do about it: one piece of advice per kind.
    pub fn advice(&self) -> crate::advice::Advice {
        use crate::advice::Advice;
        match self {
            EngineError::NoSpace { .. } => Advice::FreeSomeSpace,
            EngineError::Io { .. } => Advice::CheckTheDevice,
            EngineError::ReadOnly { .. } => Advice::BecameReadOnly,
            EngineError::TestFileGone { .. } => Advice::TestFileGone,
            EngineError::DirectIoRefused { .. } => Advice::DirectIoRefused,
            EngineError::Cancelled => Advice::Cancelled,
            EngineError::FioMissing { .. } => Advice::InstallFio,
            EngineError::FioHung { .. } => Advice::FioHung,
            EngineError::FioFailed { .. } => Advice::FioFailed,
        }
    }

    /// What happened, for people, translated (the `Display` form stays English for logs).
    pub fn message(&self) -> String {
        use crate::i18n::{fill, gettext};
        match self {
            EngineError::NoSpace { phase } => fill(
                // Translators: {phase} is a fio job name such as "seq-write".
                &gettext("the drive is full (no space left while running {phase})"),
                &[("phase", phase)],
            ),
            EngineError::Io { phase, op, source } => fill(
                // Translators: {op} is "read", "write", "fsync" or "open"; {error} is the system's message.
                &gettext("{op} failed during {phase}: {error}"),
                &[("op", op), ("phase", phase), ("error", source)],
            ),
            EngineError::ReadOnly { phase, op } => fill(
                // Translators: {phase} is a fio job name; {op} is "read", "write", "fsync" or "open".
                &gettext("the drive became read-only during {phase} ({op} refused)"),
                &[("phase", phase), ("op", op)],
            ),
            EngineError::TestFileGone { phase } => fill(
                // Translators: {phase} is a fio job name, or "open" between jobs.
                &gettext("the test file was removed or replaced during {phase}"),
                &[("phase", phase)],
            ),
            EngineError::DirectIoRefused { fs_type } => fill(
                &gettext("the filesystem ({fs_type}) does not allow direct I/O (O_DIRECT)"),
                &[("fs_type", fs_type)],
            ),
            EngineError::Cancelled => gettext("stopped before the end"),
            EngineError::FioMissing { program } => fill(
                &gettext("fio is not installed (looked for “{program}”)"),
                &[("program", program)],
            ),
            EngineError::FioHung { silent_s } => fill(
                &gettext(
                    "fio stopped responding: nothing from it for {seconds} s, so it was stopped",
                ),
                &[("seconds", silent_s)],
            ),
            EngineError::FioFailed { message } => {
                fill(&gettext("fio failed: {error}"), &[("error", message)])
            }
        }
    }

    /// The error for a test file that is no longer the one the program created (another file
    /// or a symlink now at its path), found while `phase` opened it.
    pub fn test_file_replaced(phase: &str) -> EngineError {
        EngineError::TestFileGone {
            phase: phase.to_owned(),
        }
    }

    /// Maps an OS error during `phase`/`op` to its cause: ENOSPC/EDQUOT →
    /// [`EngineError::NoSpace`]; EROFS → [`EngineError::ReadOnly`]; ENOENT, ELOOP, ESTALE →
    /// [`EngineError::TestFileGone`] (the engines only open the program's own file, with
    /// O_NOFOLLOW, so these mean it was removed or a symlink put in its place; not for phase
    /// `create`, where the folder is what is missing); anything else
    /// (EIO, ENODEV, ENXIO, …) → [`EngineError::Io`].
    pub fn from_io(phase: &str, op: &'static str, source: std::io::Error) -> EngineError {
        match errno_of(&source) {
            Some(libc::ENOSPC | libc::EDQUOT) => EngineError::NoSpace {
                phase: phase.to_owned(),
            },
            Some(libc::EROFS) => EngineError::ReadOnly {
                phase: phase.to_owned(),
                op,
            },
            // Creating the file in a folder that is gone is not the file going missing.
            Some(libc::ENOENT | libc::ELOOP | libc::ESTALE) if phase != "create" => {
                EngineError::TestFileGone {
                    phase: phase.to_owned(),
                }
            }
            _ => EngineError::Io {
                phase: phase.to_owned(),
                op,
                source,
            },
        }
    }

    /// The error for errno `errno` that fio reported as job `phase`'s `error` (the job
    /// `op`s, `read` or `write`), when it has a cause of its own: the errnos
    /// [`EngineError::from_io`] maps, and EIO, ENODEV, ENXIO (the device failed or went away,
    /// as for the native engine). `None` for any other errno (fio's own failure).
    pub fn from_fio_errno(phase: &str, op: &'static str, errno: i32) -> Option<EngineError> {
        match errno {
            libc::ENOSPC
            | libc::EDQUOT
            | libc::EROFS
            | libc::ENOENT
            | libc::ELOOP
            | libc::ESTALE
            | libc::EIO
            | libc::ENODEV
            | libc::ENXIO => Some(EngineError::from_io(
                phase,
                op,
                std::io::Error::from_raw_os_error(errno),
            )),
            _ => None,
        }
    }
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

/// The errno behind `e`: its raw OS error, or, for an error that carries a message instead
/// (a path added for people), the errno its kind stands for.
fn errno_of(e: &std::io::Error) -> Option<i32> {
    use std::io::ErrorKind;
    e.raw_os_error().or(match e.kind() {
        ErrorKind::StorageFull => Some(libc::ENOSPC),
        ErrorKind::QuotaExceeded => Some(libc::EDQUOT),
        ErrorKind::ReadOnlyFilesystem => Some(libc::EROFS),
        ErrorKind::NotFound => Some(libc::ENOENT),
        _ => None,
    })
}
