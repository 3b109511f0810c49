//! The fio engine: runs the installed fio on the same profile and test file with
//! `--output-format=json` and reads each job's result by its section name, mapped back to the
//! profile's job name. fio runs inside the test file's private directory (see
//! [`super::testfile`]) on a job file that holds nothing from the user or the filesystem.
//!
//! fio is found through the `AGNOSTICS_FIO` environment variable, else as `fio` in `PATH`.
//! While it runs, its `--status-interval=1` snapshots give live progress and per-second
//! samples; the results come from its final JSON. fio missing, a non-zero exit, a job's
//! `error`, a missing job or a missing value all end the run with an error carrying fio's own
//! message, never with a result (upstream printed PASS when fio failed).

pub mod iolog;
pub mod jobfile;
pub mod output;

mod live;
mod process;
mod results;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use self::results::{results_from_output, results_from_parsed};

use self::jobfile::{job_file_counting, JobFile};
use self::live::Live;
use self::process::{fio_command, spawn, watch, Readers};
use super::device_io::{BlockStat, DeviceIo};
use super::layout;
use super::testfile::TestFile;
use super::{EngineError, EngineRun, IoPath, PhaseResult, RunContext};
use crate::profile::Profile;

/// Environment variable naming the fio program to run (a path or a name in `PATH`).
pub const FIO_ENV: &str = "AGNOSTICS_FIO";
/// How long fio gets to exit after SIGTERM before SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_secs(5);
/// How often the engine looks at cancel and fio's state.
pub(crate) const POLL: Duration = Duration::from_millis(100);
/// Environment variable setting the watchdog's limit, whole seconds (at least 1) of silence
/// from fio after which it is taken to be stuck and stopped; unset, empty or not a positive
/// number: [`DEFAULT_WATCHDOG`].
pub const WATCHDOG_ENV: &str = "AGNOSTICS_FIO_WATCHDOG_S";
/// How long fio may print nothing before the watchdog stops it: 60 s. With
/// `--status-interval=1` a healthy fio prints a status every second, however slow the device
/// (the status comes from fio's main process, not from the jobs waiting for I/O), so a minute
/// of silence is sixty missed statuses: generous enough for a machine under heavy load or
/// swapping, short enough that a stuck fio (fio 3.33 can deadlock when one of its job
/// processes is killed) does not leave the program hanging with the test file in place.
pub const DEFAULT_WATCHDOG: Duration = Duration::from_secs(60);

/// The watchdog's limit: [`WATCHDOG_ENV`] when it holds a positive number of seconds, else
/// [`DEFAULT_WATCHDOG`].
pub fn watchdog_limit() -> Duration {
    std::env::var(WATCHDOG_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .map_or(DEFAULT_WATCHDOG, Duration::from_secs)
}

/// The fio program to run: `$AGNOSTICS_FIO` if set and not empty, else `fio`.
pub fn fio_program() -> PathBuf {
    match std::env::var_os(FIO_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from("fio"),
    }
}

/// Runs the profile's jobs with fio on `file` and returns one result per job, in profile order.
/// The run's I/O path is [`IoPath::Fio`] with the first job's ioengine (`fio libaio`).
///
/// Errors: [`EngineError::FioMissing`] when the program cannot be found;
/// [`EngineError::Cancelled`] when `ctx.cancel` is set (fio gets SIGTERM, then SIGKILL after
/// 5 s); [`EngineError::FioHung`] when fio prints nothing for [`watchdog_limit`] (its process
/// group is killed); the cause a job's errno names (see [`results_from_output`]);
/// [`EngineError::FioFailed`] with fio's message for a non-zero exit, any other job error, a
/// missing job or value, or output that is not fio's JSON; [`EngineError::Io`] when the job
/// file cannot be written.
pub fn run_profile(profile: &Profile, file: &TestFile, ctx: &RunContext<'_>) -> EngineRun {
    run_profile_with(&fio_program(), profile, file, ctx)
}

/// [`run_profile`] with the fio program given (a path, or a name looked up in `PATH`).
///
/// Errors: as [`run_profile`].
pub fn run_profile_with(
    program: &Path,
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
) -> EngineRun {
    let ioengine = profile
        .jobs
        .first()
        .map(|j| j.ioengine.as_str())
        .unwrap_or("libaio");
    EngineRun {
        io_path: Some(IoPath::Fio {
            ioengine: ioengine.to_owned(),
        }),
        phases: run_fio(program, profile, file, ctx),
    }
}

/// Runs fio on the profile's jobs and returns one result per job, in profile order.
fn run_fio(
    program: &Path,
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
) -> Result<Vec<PhaseResult>, EngineError> {
    prepare_file(profile, file)?;
    // Nothing from the user or the filesystem goes into the job file or fio's command line:
    // fio works in the run's private directory (entered through its descriptor, so renaming
    // it or putting a symlink in its place changes nothing) on names the program chose.
    let device = file.block_device();
    let text = job_file_counting(profile, device.map(|d| d.maj_min));
    let Ran {
        status,
        stdout: stdout_text,
        stderr: stderr_text,
        live,
    } = run_job_text(program, profile, &text, file, ctx)?;

    let results = match results_from_output(profile, &stdout_text, &stderr_text, status) {
        Ok(results) => results,
        // fio skips a job whose exec_prerun hook fails, yet reports no error and exits 0
        // with its JSON: the job did no I/O, and its values are missing or contradict it.
        // Name the hook then, for such a job only; any other failure is told as it is.
        Err(e @ EngineError::FioFailed { .. }) if status.success() => {
            let Ok(out) = output::final_output(&stdout_text) else {
                return Err(e);
            };
            let ran = |index: usize| {
                let section = jobfile::section_name(index);
                out.job(&section).is_some_and(|job| job.io_bytes() > 0)
                    || file
                        .take_hook_output(&format!("{section}.prerun.txt"))
                        .is_some()
            };
            return Err(skipped_by_hook(profile, device.map(|d| d.maj_min), ran).unwrap_or(e));
        }
        Err(e) => return Err(e),
    };
    let mut results = live.finish(results);
    for (index, result) in results.iter_mut().enumerate() {
        result.device_io = device_io_of(file, index).map(Box::new);
    }
    Ok(results)
}

/// How fio ran one job file: its exit, its whole stdout and stderr (the first
/// 1 MiB of it), and the live events it gave so far.
pub struct Ran<'a> {
    /// How fio exited.
    pub status: std::process::ExitStatus,
    /// Its whole stdout (the status snapshots and the final JSON).
    pub stdout: String,
    /// Its stderr, the first 1 MiB.
    pub stderr: String,
    live: Live<'a>,
}

impl std::fmt::Debug for Ran<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ran")
            .field("status", &self.status)
            .field("stdout", &self.stdout)
            .field("stderr", &self.stderr)
            .finish_non_exhaustive()
    }
}

impl Ran<'_> {
    /// Announces the phases fio finished, with the samples its snapshots gave, and returns
    /// `results` (one per job of the profile run, in order) with those samples.
    pub fn finish(self, results: Vec<PhaseResult>) -> Vec<PhaseResult> {
        self.live.finish(results)
    }
}

/// Runs `program` on the job file `text`, whose sections are `profile`'s jobs in order
/// ([`jobfile::section_name`] of each index), in `file`'s private directory (the job file is
/// written there as [`JOB_FILE_NAME`](super::testfile::JOB_FILE_NAME) and removed after),
/// giving live events as fio's status snapshots come. `text` must name nothing from the user
/// or the filesystem (see [`jobfile`]).
///
/// Errors: [`EngineError::Io`] when the job file cannot be written; [`EngineError::FioMissing`],
/// [`EngineError::Cancelled`], [`EngineError::FioHung`], [`EngineError::Paused`] or
/// [`EngineError::FioFailed`] as for [`run_profile`].
pub fn run_job_text<'a>(
    program: &Path,
    profile: &'a Profile,
    text: &str,
    file: &TestFile,
    ctx: &'a RunContext<'a>,
) -> Result<Ran<'a>, EngineError> {
    let job_file = JobFile::create(file.run_dir_fd(), text)
        .map_err(|e| EngineError::from_io("setup", "write job file", e))?;
    let mut command = fio_command(program, job_file.name(), file);
    let mut group = spawn(program, &mut command)?;
    let readers = Readers::start(&mut group);
    let mut live = Live::new(profile, ctx);
    let (status, stdout, stderr) = watch(group, readers, &mut live, ctx, file)?;
    drop(job_file);
    // fio may have re-created the file (it does when it lays one out): keep it ours, so that
    // it is removed.
    let _ = file.reclaim();
    Ok(Ran {
        status,
        stdout,
        stderr,
        live,
    })
}

/// What `file`'s drive did in job `index` of a job file with the counting hooks (see
/// [`job_file_counting`]); `None` when the file has no drive or the hooks left no counters.
pub fn device_io_of(file: &TestFile, index: usize) -> Option<DeviceIo> {
    counted(file, index, &file.block_device()?.name)
}

/// The error for a run whose job fio skipped because its `exec_prerun` hook failed: the first
/// job that was given the hooks (`counters` set, one thread) that fio did no I/O for and whose
/// hook left no output (`ran(index)` false). fio runs a hook with `system()`, so a system without `/bin/sh` fails
/// every hook. `None` when every hooked job's hook ran, or no job had hooks.
fn skipped_by_hook(
    profile: &Profile,
    counters: Option<(u64, u64)>,
    mut ran: impl FnMut(usize) -> bool,
) -> Option<EngineError> {
    let (major, minor) = counters?;
    let (_, job) = profile
        .jobs
        .iter()
        .enumerate()
        .find(|(index, job)| job.numjobs <= 1 && !ran(*index))?;
    Some(EngineError::FioFailed {
        message: format!(
            "fio skipped job {}: its exec_prerun hook `cat /sys/dev/block/{major}:{minor}/stat` \
             did not run (fio runs hooks with /bin/sh: is it missing?)",
            job.name
        ),
    })
}

/// What the device did in job `index`, from the counters its hooks copied before and after
/// its I/O (see [`job_file_counting`]); `None` when either copy is missing or not a device's
/// counters (a job with clones has none).
fn counted(file: &TestFile, index: usize, device: &str) -> Option<DeviceIo> {
    let section = jobfile::section_name(index);
    let before = file.take_hook_output(&format!("{section}.prerun.txt"));
    let after = file.take_hook_output(&format!("{section}.postrun.txt"));
    let (before, after) = (BlockStat::parse(&before?)?, BlockStat::parse(&after?)?);
    Some(before.until(&after, device, None))
}

/// Gives the test file the profile's size before fio starts, so that fio does not lay it out
/// itself (fio unlinks and re-creates a file it extends), and fills with data what a read
/// could reach before a job surely wrote it, as the native engine does, so that reads never
/// hit holes: the whole file when the profile does not begin by writing all of it, else the
/// range [`layout::unwritten_reads`] gives (when the first job may stop at its
/// `runtime` before covering the file).
///
/// Errors: [`EngineError::NoSpace`], [`EngineError::ReadOnly`], [`EngineError::Io`], … from
/// sizing or writing the file.
fn prepare_file(profile: &Profile, file: &TestFile) -> Result<(), EngineError> {
    let job = profile.jobs.first().expect("a profile has a job");
    let (from, to) = if layout::pre_size(profile, file)? {
        match layout::unwritten_reads(profile) {
            Some(range) => range,
            None => return Ok(()),
        }
    } else {
        (0, profile.file_size_bytes())
    };
    let handle = file.open(job.direct)?;
    layout::lay_out(&handle, from, to, job, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_whose_prerun_hook_left_nothing_is_named_with_the_hook() {
        let mut profile = Profile::sd_bench();
        profile.jobs[0].numjobs = 2;
        // job 0 has clones (no hooks); job 1 is the first hooked job, and its hook did not run.
        let e = skipped_by_hook(&profile, Some((179, 0)), |index| index != 1).unwrap();
        assert_eq!(
            e.to_string(),
            EngineError::FioFailed {
                message: format!(
                    "fio skipped job {}: its exec_prerun hook `cat /sys/dev/block/179:0/stat` \
                     did not run (fio runs hooks with /bin/sh: is it missing?)",
                    profile.jobs[1].name
                )
            }
            .to_string()
        );
    }

    #[test]
    fn hooks_that_ran_or_no_hooks_name_nothing() {
        let profile = Profile::sd_bench();
        assert!(skipped_by_hook(&profile, Some((179, 0)), |_| true).is_none());
        assert!(skipped_by_hook(&profile, None, |_| false).is_none());
    }
}
