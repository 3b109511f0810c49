//! The native engine: O_DIRECT with aligned buffers, real queue depth through io_uring, or a
//! pool of `iodepth` threads doing pread/pwrite where io_uring is refused (DESIGN.md, "Two
//! engines").
//!
//! Each job of the profile is one phase, run in order: sequential or random-without-repeats
//! block-aligned offsets, ending after `size` bytes or at `runtime`, whichever comes first
//! (like fio without `time_based`), with `end_fsync` counted in the phase's time. A phase is
//! timed from its first submission to its last completion (or the end of its fsync). Reads
//! never hit holes: a reading phase that finds the file shorter than it needs first writes the
//! rest (not measured).
//!
//! Submodules: [`plan`] (offsets), [`buffers`] (shared aligned buffers), [`stats`] (latency
//! histogram, samples, progress), [`uring`] and [`threads`] (the two I/O paths).

pub mod buffers;
pub mod plan;
pub mod stats;
pub mod threads;
// The architectures the io-uring crate has bindings for (core/Cargo.toml says the same).
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "loongarch64",
    target_arch = "powerpc64"
))]
pub mod uring;
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "loongarch64",
    target_arch = "powerpc64"
)))]
#[path = "uring_none.rs"]
pub mod uring;

use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use self::buffers::{AlignedBuf, IoBuffers};
use self::plan::OffsetPlan;
use self::stats::Meter;
use self::uring::Uring;
use super::testfile::TestFile;
use super::{EngineError, Event, PhaseResult, RunContext};
use crate::i18n::{fill, gettext};
use crate::profile::{Job, Profile, Rw};

/// Buffer alignment for O_DIRECT, bytes (at least; the filesystem's block size if larger).
const MIN_ALIGN: usize = 4096;
/// Largest block size the engine takes, bytes (Linux moves at most about 2 GiB per call).
const MAX_BS: u64 = 1 << 30;
/// Chunk size when writing the missing part of the file before a reading phase, bytes.
const FILL_CHUNK: usize = 1 << 20;

/// Environment variable that forces an I/O path: `io_uring` or `threads`.
pub const IO_PATH_ENV: &str = "AGNOSTICS_NATIVE_IO";

/// Which I/O path the native engine uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoChoice {
    /// io_uring, falling back to threads (with a warning) where it is refused.
    Auto,
    /// io_uring only; refusal is an error.
    Uring,
    /// The thread pool.
    Threads,
}

impl IoChoice {
    /// From [`IO_PATH_ENV`]: `io_uring` → [`IoChoice::Uring`], `threads` →
    /// [`IoChoice::Threads`], anything else or unset → [`IoChoice::Auto`].
    pub fn from_env() -> IoChoice {
        match std::env::var(IO_PATH_ENV).as_deref() {
            Ok("io_uring") => IoChoice::Uring,
            Ok("threads") => IoChoice::Threads,
            _ => IoChoice::Auto,
        }
    }
}

/// Runs the profile's jobs in order on `file`, with the I/O path chosen by
/// [`IoChoice::from_env`] (normally io_uring, else threads). `io_path` receives `io_uring` or
/// `threads`.
///
/// Errors: see [`run_profile_with`].
pub fn run_profile(
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
    io_path: &mut String,
) -> Result<Vec<PhaseResult>, EngineError> {
    run_profile_with(IoChoice::from_env(), profile, file, ctx, io_path)
}

/// Runs the profile's jobs in order on `file` with the given I/O path, sending
/// [`Event::PhaseStarted`], [`Event::Progress`], [`Event::Sample`] and
/// [`Event::PhaseFinished`] through `ctx`, and an [`Event::Warning`] when io_uring is refused.
///
/// Errors: [`EngineError::Cancelled`] when `ctx.cancel` is set (after the requests in flight
/// have completed); [`EngineError::NoSpace`] on ENOSPC/EDQUOT; [`EngineError::ReadOnly`] on
/// EROFS; [`EngineError::TestFileGone`] when the test file was removed or replaced (ENOENT,
/// ELOOP, ESTALE, another file at its path); [`EngineError::Io`] on any other failed read,
/// write, fsync or open (including a block size above 1 GiB, op `plan`);
/// [`EngineError::DirectIoRefused`] when O_DIRECT is refused. With [`IoChoice::Uring`], a
/// refused io_uring is [`EngineError::Io`] (op `io_uring_setup`).
pub fn run_profile_with(
    choice: IoChoice,
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
    io_path: &mut String,
) -> Result<Vec<PhaseResult>, EngineError> {
    let max_depth = profile.jobs.iter().map(|j| j.iodepth).max().unwrap_or(1);
    let mut ring = match choice {
        IoChoice::Threads => None,
        // A build without the io_uring path (32-bit arm and x86) measures with the threads
        // as a matter of course: no warning on every run.
        IoChoice::Auto if !uring::BUILT => None,
        IoChoice::Uring => Some(
            Uring::new(max_depth)
                .map_err(|e| EngineError::from_io("setup", "io_uring_setup", e))?,
        ),
        IoChoice::Auto => match Uring::new(max_depth) {
            Ok(ring) => Some(ring),
            Err(e) => {
                (ctx.on_event)(Event::Warning(fill(
                    &gettext(
                        "io_uring is not available ({error}); measuring with a pool of \
                         {threads} threads instead",
                    ),
                    &[("error", &e), ("threads", &max_depth)],
                )));
                None
            }
        },
    };
    *io_path = if ring.is_some() {
        "io_uring"
    } else {
        "threads"
    }
    .to_owned();

    let count = profile.jobs.len();
    let mut results = Vec::with_capacity(count);
    // The file starts empty; like the fio engine it gets the profile's size when the first job
    // writes all of it. `data_end`: every byte below it has been written (holes read as
    // zeros without touching the device, so reads must stay below it).
    pre_size(profile, file)?;
    let mut data_end = 0u64;
    for (index, job) in profile.jobs.iter().enumerate() {
        if ctx.cancel.load(Ordering::SeqCst) {
            return Err(EngineError::Cancelled);
        }
        let result = run_job(job, index, count, file, ctx, ring.as_mut(), &mut data_end)?;
        (ctx.on_event)(Event::PhaseFinished {
            run: ctx.run,
            index,
            result: result.clone(),
        });
        results.push(result);
    }
    Ok(results)
}

/// Gives a fresh test file the profile's size when the profile's first job writes the whole
/// of it (the standard test's `prepare-file`), as the fio engine does so that fio does not
/// lay the file out itself; both engines then write the same kind of file. Returns whether
/// it did.
///
/// Errors: [`EngineError::NoSpace`] or [`EngineError::Io`] (phase `setup`, op `truncate`).
pub fn pre_size(profile: &Profile, file: &TestFile) -> Result<bool, EngineError> {
    let size = profile.file_size_bytes();
    let writes_all = profile
        .jobs
        .first()
        .is_some_and(|j| j.rw.is_write() && j.size_bytes == size);
    if writes_all {
        file.open(false)?
            .set_len(size)
            .map_err(|e| EngineError::from_io("setup", "truncate", e))?;
    }
    Ok(writes_all)
}

/// The part of a pre-sized test file (see [`pre_size`]) that a reading job may reach before
/// any job has surely written it, as `(from, to)` byte offsets, or `None` when every block a
/// read touches is written by an earlier job that cannot stop early.
///
/// A writing job with a `runtime` may end before covering its `size` (a slow card), so it
/// counts as writing nothing; one without covers `[0, size)` rounded down to its block size
/// (sequential and random-without-repeats plans both cover every block). The fio engine fills
/// this range before fio starts, because fio, unlike the native engine, cannot be told to
/// write what a read is about to reach: without it a read of a hole is answered from the
/// page tables without touching the device, and measures nothing.
pub fn unwritten_reads(profile: &Profile) -> Option<(u64, u64)> {
    let mut covered = 0u64;
    let mut range: Option<(u64, u64)> = None;
    for job in &profile.jobs {
        let planned = job
            .size_bytes
            .checked_div(job.bs)
            .map_or(0, |blocks| blocks * job.bs);
        if job.rw.is_write() {
            if job.runtime.is_none_or(|r| r.is_zero()) {
                covered = covered.max(planned);
            }
        } else if covered < planned {
            range = Some(match range {
                Some((from, to)) => (from.min(covered), to.max(planned)),
                None => (covered, planned),
            });
            // Filled before the run: later reads below `planned` find data.
            covered = planned;
        }
    }
    range
}

/// What one phase's I/O needs, shared with the I/O paths.
#[derive(Debug)]
pub struct PhaseIo<'a> {
    /// The job name, for errors.
    pub name: &'a str,
    /// True for a writing phase.
    pub write: bool,
    /// The open test file.
    pub fd: std::os::fd::RawFd,
    /// Block size, bytes.
    pub bs: u64,
    /// Requests in flight at most.
    pub depth: usize,
    /// The phase's time limit.
    pub runtime: Option<Duration>,
    /// Stop flag.
    pub cancel: &'a AtomicBool,
    /// The phase's buffers.
    pub buffers: &'a IoBuffers,
    /// Seed for the per-thread random generators (write stamps).
    pub seed: u64,
}

impl PhaseIo<'_> {
    /// Why submitting should stop at `now`, if it should: cancel, or the runtime is over.
    pub fn stop_reason(&self, start: Instant, now: Instant) -> Option<Ending> {
        if self.cancel.load(Ordering::SeqCst) {
            return Some(Ending::Cancelled);
        }
        match self.runtime {
            Some(limit) if now.saturating_duration_since(start) >= limit => Some(Ending::Runtime),
            _ => None,
        }
    }

    /// A random generator for write stamps (each call gives a different stream).
    pub fn rng(&self) -> SmallRng {
        SmallRng::seed_from_u64(self.seed ^ rand::random::<u64>())
    }
}

/// How a phase's submitting ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Every planned request was done.
    Done,
    /// The runtime limit was reached first.
    Runtime,
    /// The cancel flag was set.
    Cancelled,
    /// A request failed.
    Failed,
}

/// A failed phase: the error, and whether requests were still in flight when the I/O path
/// gave up on them (then their buffers must not be freed).
#[derive(Debug)]
pub struct Failure {
    /// What went wrong.
    pub error: EngineError,
    /// True when requests may still be in flight.
    pub abandoned: bool,
}

fn run_job(
    job: &Job,
    index: usize,
    count: usize,
    file: &TestFile,
    ctx: &RunContext<'_>,
    ring: Option<&mut Uring>,
    data_end: &mut u64,
) -> Result<PhaseResult, EngineError> {
    if job.bs == 0 || job.bs > MAX_BS {
        return Err(EngineError::from_io(
            &job.name,
            "plan",
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("block size {} is outside 1 byte to 1 GiB", job.bs),
            ),
        ));
    }
    let handle = file.open(job.direct)?;
    let fd = handle.as_raw_fd();
    let align = alignment(&handle);
    let seed = rand::random::<u64>();
    let mut plan = OffsetPlan::new(job.size_bytes, job.bs, job.rw.is_random(), seed);
    if !job.rw.is_write() && *data_end < plan.planned_bytes() {
        lay_out_with(
            &handle,
            *data_end,
            plan.planned_bytes(),
            align,
            job,
            Some(ctx.cancel),
        )?;
        *data_end = plan.planned_bytes();
    }
    let buffers = IoBuffers::new(
        job.bs as usize,
        job.iodepth.max(1) as usize,
        align,
        job.rw.is_write(),
        seed,
    );
    let io = PhaseIo {
        name: &job.name,
        write: job.rw.is_write(),
        fd,
        bs: job.bs,
        depth: job.iodepth.max(1) as usize,
        runtime: job.runtime,
        cancel: ctx.cancel,
        buffers: &buffers,
        seed,
    };

    (ctx.on_event)(Event::PhaseStarted {
        run: ctx.run,
        index,
        count,
        name: job.name.clone(),
    });
    let mut meter = Meter::new(
        ctx,
        index,
        plan.planned_bytes(),
        job.runtime,
        Instant::now(),
    );
    let outcome = match ring {
        Some(ring) => ring.run_phase(&io, &mut plan, &mut meter),
        None => threads::run_phase(&io, &mut plan, &mut meter),
    };
    let ending = match outcome {
        Ok(ending) => ending,
        Err(failure) => {
            if failure.abandoned {
                // The kernel may still write into these buffers: never free them.
                std::mem::forget(buffers);
            }
            return Err(failure.error);
        }
    };
    if ending == Ending::Cancelled {
        return Err(EngineError::Cancelled);
    }
    let fsync_end = if job.end_fsync && job.rw.is_write() {
        handle
            .sync_all()
            .map_err(|e| EngineError::from_io(&job.name, "fsync", e))?;
        Some(Instant::now())
    } else {
        None
    };
    let totals = meter.finish(fsync_end);
    // A sequential write covers [0, bytes); a random one covers the whole plan only when it
    // was not stopped by its runtime.
    match job.rw {
        Rw::Write => *data_end = (*data_end).max(totals.bytes),
        Rw::RandWrite if ending == Ending::Done => {
            *data_end = (*data_end).max(plan.planned_bytes())
        }
        _ => {}
    }
    let bw = if totals.seconds > 0.0 {
        totals.bytes as f64 / totals.seconds
    } else {
        0.0
    };
    let iops = if totals.seconds > 0.0 {
        totals.ios as f64 / totals.seconds
    } else {
        0.0
    };
    Ok(PhaseResult {
        name: job.name.clone(),
        rw: job.rw.as_fio().to_owned(),
        bs: job.bs,
        iodepth: job.iodepth,
        bytes: totals.bytes,
        ios: totals.ios,
        seconds: totals.seconds,
        bw_bytes: bw,
        iops,
        lat_us: totals.lat_us,
        samples: totals.samples,
        stopped_by_runtime: ending == Ending::Runtime,
    })
}

/// Buffer alignment for `file`: 4096 bytes, or its filesystem's block size when that is a
/// larger power of two (up to 64 KiB).
fn alignment(file: &std::fs::File) -> usize {
    use std::os::unix::fs::MetadataExt;
    let blksize = file.metadata().map(|m| m.blksize()).unwrap_or(0);
    if blksize.is_power_of_two() && blksize as usize > MIN_ALIGN && blksize <= 65536 {
        blksize as usize
    } else {
        MIN_ALIGN
    }
}

/// Writes random data into `file` from `from` (rounded down to the buffer alignment) up to
/// `needed` bytes, then fsyncs, so that reads below `needed` never hit holes. Used before
/// reading phases; not measured. `job` names the phase in errors.
///
/// Errors: [`EngineError::NoSpace`] or [`EngineError::Io`] (op `write` or `fsync`).
pub fn lay_out(file: &std::fs::File, from: u64, needed: u64, job: &Job) -> Result<(), EngineError> {
    lay_out_with(file, from, needed, alignment(file), job, None)
}

fn lay_out_with(
    file: &std::fs::File,
    from: u64,
    needed: u64,
    align: usize,
    job: &Job,
    cancel: Option<&AtomicBool>,
) -> Result<(), EngineError> {
    if from >= needed {
        return Ok(());
    }
    let mut buf = AlignedBuf::new(FILL_CHUNK, align);
    buf.fill_random(&mut SmallRng::seed_from_u64(rand::random()));
    // SAFETY: `buf` is initialised and FILL_CHUNK long; no I/O is in flight on it, and this
    // shared view lives only within this function.
    let data = unsafe { std::slice::from_raw_parts(buf.as_ptr(), buf.len()) };
    let mut offset = from / align as u64 * align as u64;
    while offset < needed {
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Err(EngineError::Cancelled);
        }
        let len = (needed - offset).min(FILL_CHUNK as u64) as usize;
        file.write_all_at(&data[..len], offset)
            .map_err(|e| EngineError::from_io(&job.name, "write", e))?;
        offset += len as u64;
    }
    file.sync_all()
        .map_err(|e| EngineError::from_io(&job.name, "fsync", e))
}
