//! The native engine: O_DIRECT with aligned buffers, real queue depth through io_uring, or a
//! pool of `iodepth` threads doing pread/pwrite where io_uring is refused (docs/design.md,
//! "Two engines").
//!
//! Each job of the profile is one phase, run in order: sequential or random-without-repeats
//! block-aligned offsets, ending after `size` bytes (`loops` times over) or at `runtime`,
//! whichever comes first, or (fio's `time_based`) starting over until `runtime`, with
//! `end_fsync` after each pass counted in the phase's time. A job's `numjobs` clones run at
//! once, each over the whole `size` with its own offsets and its own `iodepth` requests in
//! flight, and are measured as one (fio's `group_reporting`); the result's `iodepth` is per
//! clone. A phase is timed from its first submission, or the end of its `ramp_time`, to its
//! last completion (or the end of its fsync); nothing that completes in the ramp counts. Reads
//! never hit holes: a reading phase that finds the file shorter than it needs first writes the
//! rest (not measured).
//!
//! Every write carries fresh pseudo-random data (no 4 KiB block repeats, nothing compresses),
//! which needs one buffer per write in flight: on a drive not shown to be fast (an SD card)
//! writes of large blocks keep fewer requests in flight than `iodepth` (2 × 4 MiB, the lean 8
//! MiB), on a fast one the full `iodepth` within a quarter of `MemAvailable` (see
//! [`buffers::write_depth`]). A drive shows itself fast in an earlier phase of the run, or in
//! the phase's own first 16 MiB written at the lean depth: then the phase goes on, same
//! offsets, same measurement, at the full depth. The phase's result reports the depth it
//! ended at and, when that is below the profile's, why (`depth_limit`).
//!
//! Submodules: [`plan`] (offsets), [`buffers`] (aligned buffers, fresh data for every
//! write), `depth` (a phase's write depth, lean or grown), [`stats`] (latency histogram,
//! samples, progress), [`uring`] and [`threads`] (the two I/O paths).

pub mod buffers;
mod depth;
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
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use self::buffers::IoBuffers;
use self::depth::Depth;
use self::plan::OffsetPlan;
use self::stats::{Meter, Totals};
use self::uring::Uring;
use super::device_io::PhaseCounters;
use super::layout::{alignment, lay_out, pre_size};
use super::testfile::TestFile;
use super::{DepthLimit, EngineError, EngineRun, Event, IoPath, PhaseResult, RunContext};
use crate::i18n::{fill, gettext};
use crate::profile::{Job, Profile};

/// Largest block size the engine takes, bytes (Linux moves at most about 2 GiB per call).
const MAX_BS: u64 = 1 << 30;

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
/// [`IoChoice::from_env`] (normally io_uring, else threads); the run's I/O path is
/// [`IoPath::IoUring`] or [`IoPath::Threads`].
///
/// Errors: see [`run_profile_with`].
pub fn run_profile(profile: &Profile, file: &TestFile, ctx: &RunContext<'_>) -> EngineRun {
    run_profile_with(IoChoice::from_env(), profile, file, ctx)
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
/// refused io_uring is [`EngineError::Io`] (op `io_uring_setup`) and the run has no I/O path.
pub fn run_profile_with(
    choice: IoChoice,
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
) -> EngineRun {
    let max_depth = profile
        .jobs
        .iter()
        .map(|j| j.iodepth.max(1).saturating_mul(j.numjobs.max(1)))
        .max()
        .unwrap_or(1);
    let ring = match choice {
        IoChoice::Threads => None,
        // A build without the io_uring path (32-bit arm and x86) measures with the threads
        // as a matter of course: no warning on every run.
        IoChoice::Auto if !uring::BUILT => None,
        IoChoice::Uring => match Uring::new(max_depth) {
            Ok(ring) => Some(ring),
            Err(e) => return EngineRun::failed(EngineError::from_io("setup", "io_uring_setup", e)),
        },
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
    let io_path = if ring.is_some() {
        IoPath::IoUring
    } else {
        IoPath::Threads
    };
    EngineRun {
        io_path: Some(io_path),
        phases: run_jobs(profile, file, ctx, ring),
    }
}

/// Runs the profile's jobs in order on `file`, on `ring` or (without one) the thread pool.
fn run_jobs(
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
    mut ring: Option<Uring>,
) -> Result<Vec<PhaseResult>, EngineError> {
    let count = profile.jobs.len();
    let mut results = Vec::with_capacity(count);
    // The file starts empty; like the fio engine it gets the profile's size when the first job
    // writes all of it. `data_end`: every byte below it has been written (holes read as
    // zeros without touching the device, so reads must stay below it).
    pre_size(profile, file)?;
    let mut data_end = 0u64;
    let pauses = crate::engine::pause::PauseWatch::start();
    // The fastest phase so far, bytes per second: whether the drive is fast enough for more
    // write buffers than the lean budget (see `buffers::write_depth`).
    let mut fastest = 0f64;
    for (index, job) in profile.jobs.iter().enumerate() {
        if ctx.cancel.load(Ordering::SeqCst) {
            return Err(EngineError::Cancelled);
        }
        let stopped_before = pauses.stopped();
        let fast = fastest >= buffers::FAST_BYTES_PER_S;
        let (result, showed_fast) = run_job(
            job,
            index,
            count,
            file,
            ctx,
            ring.as_mut(),
            &mut data_end,
            fast,
        )?;
        fastest = fastest.max(result.bw_bytes);
        if showed_fast {
            fastest = fastest.max(buffers::FAST_BYTES_PER_S);
        }
        // A phase during which this process was stopped has not measured the drive.
        let stopped = pauses.stopped().saturating_sub(stopped_before);
        if !stopped.is_zero() {
            return Err(EngineError::Paused {
                phase: job.name.clone(),
                stopped_s: stopped.as_secs(),
            });
        }
        (ctx.on_event)(Event::PhaseFinished {
            run: ctx.run,
            index,
            result: result.clone(),
        });
        results.push(result);
    }
    Ok(results)
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
    /// Seed for the per-thread random generators (write data).
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

    /// A random generator for write data (each call gives a different stream).
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

/// Runs one job as a phase: plans its offsets, fills what its reads would find missing, runs
/// its I/O on the ring (or the thread pool), and measures it. `data_end` is how much of the
/// file holds data, bytes, updated by writes; `fast`: an earlier phase showed the drive
/// fast enough for the profile's full write depth ([`buffers::write_depth`]). Returns the
/// result and whether the phase itself showed the drive fast (its first segment, see
/// [`Depth::first_segment`]).
#[allow(clippy::too_many_arguments)]
fn run_job(
    job: &Job,
    index: usize,
    count: usize,
    file: &TestFile,
    ctx: &RunContext<'_>,
    ring: Option<&mut Uring>,
    data_end: &mut u64,
    fast: bool,
) -> Result<(PhaseResult, bool), EngineError> {
    check_block_size(job)?;
    let handle = file.open(job.direct)?;
    let align = alignment(&handle);
    let seed = rand::random::<u64>();
    let span = plan_for(job, seed, 0).planned_bytes();
    fill_for_reads(&handle, job, span, ctx, data_end)
        .map_err(|e| refused_on_the_data_path(job, align, file, e))?;
    let depth = Depth::new(job, align, seed, fast, buffers::mem_available());
    let clones = job.numjobs.max(1) as usize;
    announce(ctx, job, index, count, depth.in_flight.div_ceil(clones));
    // What the drive does from here (the fill for reads above is not the phase's).
    let counters = file.block_device().and_then(PhaseCounters::start);
    // Measuring starts after the ramp (fio's `ramp_time`), and the runtime with it.
    let planned = if job.time_based { 0 } else { job.work_bytes() };
    let measured_from = Instant::now() + job.ramp_time.unwrap_or_default();
    let mut meter = Meter::new(ctx, index, job.rw, planned, job.runtime, measured_from);
    let passes = run_passes(job, &handle, ctx, ring, depth, seed, &mut meter)
        .map_err(|e| refused_on_the_data_path(job, align, file, e))?;
    let totals = meter.finish(passes.fsync_end);
    let device_io = counters.and_then(PhaseCounters::finish).map(Box::new);
    if job.rw.is_write() {
        *data_end = (*data_end).max(passes.covered);
    }
    if let Some(ramp) = job.ramp_time.filter(|_| totals.ios == 0) {
        return Err(EngineError::EndedInRamp {
            phase: job.name.clone(),
            ramp_ms: u64::try_from(ramp.as_millis()).unwrap_or(u64::MAX),
        });
    }
    let mut result = phase_result(
        job,
        passes.in_flight.div_ceil(clones),
        totals,
        passes.ending,
    );
    result.device_io = device_io;
    result.depth_limit = passes.depth_limit;
    Ok((result, passes.showed_fast))
}

/// A pass's offsets: the job's plan with `seed`, for pass `pass` of its `loops`.
fn plan_for(job: &Job, seed: u64, pass: u64) -> OffsetPlan {
    OffsetPlan::with_clones(
        job.size_bytes,
        job.bs,
        job.rw.is_random(),
        seed.wrapping_add(pass),
        job.numjobs.max(1),
        job.time_based,
    )
}

/// What a phase's passes did.
#[derive(Debug)]
struct Passes {
    /// The start of the file all written, bytes (see [`OffsetPlan::covered_bytes`]).
    covered: u64,
    /// When the last `end_fsync` ended.
    fsync_end: Option<Instant>,
    ending: Ending,
    /// Requests in flight at most at the end, all clones together.
    in_flight: usize,
    depth_limit: Option<DepthLimit>,
    /// The first segment showed the drive fast.
    showed_fast: bool,
}

/// Runs a phase's passes (fio's `loops`: the work again, each pass ending with its requests
/// in flight and its `end_fsync`; a `time_based` plan never runs out, so it has one pass), all
/// measured by the one `meter`. A phase that starts lean ([`Depth::first_segment`]) stops
/// submitting after its first segment, waits for it, and continues the same plan at the
/// fast depth when the segment moved [`buffers::FAST_BYTES_PER_S`], else at the lean one.
fn run_passes(
    job: &Job,
    handle: &std::fs::File,
    ctx: &RunContext<'_>,
    mut ring: Option<&mut Uring>,
    mut depth: Depth,
    seed: u64,
    meter: &mut Meter<'_>,
) -> Result<Passes, EngineError> {
    let align = alignment(handle);
    let mut covered = 0u64;
    let mut fsync_end = None;
    let mut ending = Ending::Done;
    let mut showed_fast = false;
    for pass in 0..u64::from(job.loops.max(1)) {
        let mut plan = plan_for(job, seed, pass);
        if let Some(requests) = depth.first_segment().filter(|_| pass == 0) {
            plan.hold_after(requests);
        }
        loop {
            let began = Instant::now();
            let outcome = run_segment(
                job,
                handle,
                ctx,
                ring.as_deref_mut(),
                &depth,
                seed,
                &mut plan,
                meter,
            );
            ending = match outcome {
                Ok(ending) => ending,
                Err(failure) => {
                    if failure.abandoned {
                        // The kernel may still write into these buffers: never free them.
                        std::mem::forget(depth);
                    }
                    return Err(failure.error);
                }
            };
            if ending == Ending::Cancelled {
                return Err(EngineError::Cancelled);
            }
            if ending != Ending::Done || !plan.held() {
                break;
            }
            plan.release();
            let moved = plan.handed() * job.bs;
            if buffers::shows_fast(moved, began.elapsed()) {
                showed_fast = true;
                depth = depth.grown(job, align, seed.rotate_left(32));
            } else {
                depth.keep();
            }
        }
        covered = covered.max(plan.covered_bytes());
        fsync_end = end_fsync(job, handle)?.or(fsync_end);
        if ending != Ending::Done {
            break;
        }
    }
    Ok(Passes {
        covered,
        fsync_end,
        ending,
        in_flight: depth.in_flight,
        depth_limit: depth.limit(job),
        showed_fast,
    })
}

/// Runs `plan` on the ring (or the thread pool) with `depth`'s buffers until it is done, at
/// its hold, or stopped.
#[allow(clippy::too_many_arguments)]
fn run_segment(
    job: &Job,
    handle: &std::fs::File,
    ctx: &RunContext<'_>,
    ring: Option<&mut Uring>,
    depth: &Depth,
    seed: u64,
    plan: &mut OffsetPlan,
    meter: &mut Meter<'_>,
) -> Result<Ending, Failure> {
    let io = PhaseIo {
        name: &job.name,
        write: job.rw.is_write(),
        fd: handle.as_raw_fd(),
        bs: job.bs,
        depth: depth.in_flight,
        runtime: job.runtime,
        cancel: ctx.cancel,
        buffers: &depth.buffers,
        seed,
    };
    match ring {
        Some(ring) => ring.run_phase(&io, plan, meter),
        None => threads::run_phase(&io, plan, meter),
    }
}

/// EINVAL from a read or write of a job with O_DIRECT whose block size is a multiple of the
/// file's alignment (the buffers are aligned to it, the offsets are multiples of the block
/// size): the filesystem accepted O_DIRECT at open but refuses it on the data path, as FUSE
/// (bindfs) does on Linux 6.1. That is [`EngineError::DirectIoRefused`], not an I/O error.
fn refused_on_the_data_path(
    job: &Job,
    align: usize,
    file: &TestFile,
    e: EngineError,
) -> EngineError {
    match e {
        EngineError::Io {
            op: "read" | "write",
            ref source,
            ..
        } if job.direct
            && source.raw_os_error() == Some(libc::EINVAL)
            && job.bs % align as u64 == 0 =>
        {
            EngineError::DirectIoRefused {
                fs_type: file.fs_type().to_owned(),
            }
        }
        e => e,
    }
}

/// Before a reading job: writes data (not measured) from `data_end` up to the `planned`
/// bytes the job reads, so that no read hits a hole, and moves `data_end` there.
fn fill_for_reads(
    handle: &std::fs::File,
    job: &Job,
    planned: u64,
    ctx: &RunContext<'_>,
    data_end: &mut u64,
) -> Result<(), EngineError> {
    if !job.rw.is_write() && *data_end < planned {
        lay_out(handle, *data_end, planned, job, Some(ctx.cancel))?;
        *data_end = planned;
    }
    Ok(())
}

/// Tells the observer the phase starts, at the depth it runs at.
fn announce(ctx: &RunContext<'_>, job: &Job, index: usize, count: usize, depth: usize) {
    (ctx.on_event)(Event::PhaseStarted {
        run: ctx.run,
        index,
        count,
        name: job.name.clone(),
        rw: job.rw,
        bs: job.bs,
        iodepth: u32::try_from(depth).unwrap_or(job.iodepth),
    });
}

/// A writing job's `end_fsync`: syncs the file and returns when it ended (counted in the
/// phase's time); `None` for other jobs.
fn end_fsync(job: &Job, handle: &std::fs::File) -> Result<Option<Instant>, EngineError> {
    if job.end_fsync && job.rw.is_write() {
        handle
            .sync_all()
            .map_err(|e| EngineError::from_io(&job.name, "fsync", e))?;
        Ok(Some(Instant::now()))
    } else {
        Ok(None)
    }
}

/// Refuses a block size outside 1 byte to [`MAX_BS`].
fn check_block_size(job: &Job) -> Result<(), EngineError> {
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
    Ok(())
}

/// The phase's result from its measured totals: bandwidth (bytes/s) and IOPS over its time
/// (0 when no time passed), the depth it ran at, whether its runtime stopped it.
fn phase_result(job: &Job, depth: usize, totals: Totals, ending: Ending) -> PhaseResult {
    let per_second = |count: f64| {
        if totals.seconds > 0.0 {
            count / totals.seconds
        } else {
            0.0
        }
    };
    PhaseResult {
        name: job.name.clone(),
        rw: job.rw,
        bs: job.bs,
        iodepth: u32::try_from(depth).unwrap_or(job.iodepth),
        bytes: totals.bytes,
        ios: totals.ios,
        seconds: totals.seconds,
        bw_bytes: per_second(totals.bytes as f64),
        iops: per_second(totals.ios as f64),
        lat_us: totals.lat_us,
        samples: totals.samples,
        stopped_by_runtime: ending == Ending::Runtime,
        device_io: None,
        depth_limit: None,
    }
}
