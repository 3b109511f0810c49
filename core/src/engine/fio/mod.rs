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

pub mod jobfile;
pub mod output;

use std::io::{BufRead, BufReader, Read};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use self::jobfile::{job_file_text, section_name, JobFile};
use self::output::{final_output, FioOutput, JobProblem};
use super::testfile::TestFile;
use super::{EngineError, Event, PhaseResult, RunContext, Sample};
use crate::profile::Profile;

/// Environment variable naming the fio program to run (a path or a name in `PATH`).
pub const FIO_ENV: &str = "AGNOSTICS_FIO";
/// How long fio gets to exit after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(5);
/// How often the engine looks at cancel and fio's state.
const POLL: Duration = Duration::from_millis(100);
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

/// What the stdout reader tells the wait loop.
enum Heard {
    /// fio printed a line (it is alive).
    Line,
    /// fio printed a complete status or result document.
    Snapshot(Box<FioOutput>),
}

/// The fio program to run: `$AGNOSTICS_FIO` if set and not empty, else `fio`.
pub fn fio_program() -> PathBuf {
    match std::env::var_os(FIO_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from("fio"),
    }
}

/// Runs the profile's jobs with fio on `file` and returns one result per job, in profile order.
/// `io_path` receives `fio <ioengine>` (the first job's engine, e.g. `fio libaio`).
///
/// Errors: [`EngineError::FioMissing`] when the program cannot be found;
/// [`EngineError::Cancelled`] when `ctx.cancel` is set (fio gets SIGTERM, then SIGKILL after
/// 5 s); [`EngineError::FioHung`] when fio prints nothing for [`watchdog_limit`] (its process
/// group is killed); the cause a job's errno names (see [`results_from_output`]);
/// [`EngineError::FioFailed`] with fio's message for a non-zero exit, any other job error, a
/// missing job or value, or output that is not fio's JSON; [`EngineError::Io`] when the job
/// file cannot be written.
pub fn run_profile(
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
    io_path: &mut String,
) -> Result<Vec<PhaseResult>, EngineError> {
    run_profile_with(&fio_program(), profile, file, ctx, io_path)
}

/// [`run_profile`] with the fio program given (a path, or a name looked up in `PATH`).
///
/// Errors: as [`run_profile`].
pub fn run_profile_with(
    program: &Path,
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
    io_path: &mut String,
) -> Result<Vec<PhaseResult>, EngineError> {
    *io_path = format!(
        "fio {}",
        profile
            .jobs
            .first()
            .map(|j| j.ioengine.as_str())
            .unwrap_or("libaio")
    );

    prepare_file(profile, file)?;
    // Nothing from the user or the filesystem goes into the job file or fio's command line:
    // fio works in the run's private directory (entered through its descriptor, so renaming
    // it or putting a symlink in its place changes nothing) on names the program chose.
    let job_file = JobFile::create(file.run_dir_fd(), &job_file_text(profile))
        .map_err(|e| EngineError::from_io("setup", "write job file", e))?;

    let mut command = Command::new(program);
    command
        .arg("--output-format=json")
        .arg("--status-interval=1")
        .arg(job_file.name())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group, so that cancel can stop fio and the job processes it forks.
    command.process_group(0);
    let run_dir = file.run_dir_fd().as_raw_fd();
    let lock = file.lock_fd().map(|fd| fd.as_raw_fd());
    // SAFETY: the closure runs in the child between fork and exec and only calls prctl,
    // fchdir and fcntl, which are async-signal-safe, on descriptors that stay open for as long
    // as `file` lives (beyond the spawn). fio gets SIGTERM if the thread that started it dies;
    // it starts in the private directory; it inherits the run's lock, so that the directory
    // counts as in use as long as any fio process lives.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::fchdir(run_dir) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(lock) = lock {
                let flags = libc::fcntl(lock, libc::F_GETFD);
                if flags < 0 || libc::fcntl(lock, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            EngineError::FioMissing {
                program: program.display().to_string(),
            }
        } else {
            EngineError::FioFailed {
                message: format!("cannot run {}: {e}", program.display()),
            }
        }
    })?;

    let (snapshots_tx, snapshots) = mpsc::channel::<Heard>();
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let stdout_reader = std::thread::spawn(move || read_stdout(stdout, &snapshots_tx));
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(stderr).read_to_string(&mut text);
        text
    });

    let mut live = Live::new(profile, ctx);
    let watchdog = watchdog_limit();
    let mut last_heard = Instant::now();
    let status = loop {
        if ctx.cancel.load(Ordering::SeqCst) {
            stop(&mut child);
            let _ = stdout_reader.join();
            let _ = stderr_reader.join();
            let _ = file.reclaim();
            return Err(EngineError::Cancelled);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                stop(&mut child);
                let _ = file.reclaim();
                return Err(EngineError::FioFailed {
                    message: format!("cannot wait for fio: {e}"),
                });
            }
        }
        if last_heard.elapsed() >= watchdog {
            // A stuck fio does not act on SIGTERM: its whole group is killed at once.
            kill_group(&mut child);
            let _ = stdout_reader.join();
            let _ = stderr_reader.join();
            let _ = file.reclaim();
            return Err(EngineError::FioHung {
                silent_s: watchdog.as_secs(),
            });
        }
        match snapshots.recv_timeout(POLL) {
            Ok(Heard::Line) => last_heard = Instant::now(),
            Ok(Heard::Snapshot(snapshot)) => {
                last_heard = Instant::now();
                live.snapshot(&snapshot);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            // stdout closed: fio is about to exit (should it get stuck instead, the watchdog
            // still runs).
            Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(POLL / 10),
        }
    };
    let stdout_text = stdout_reader.join().unwrap_or_default();
    let stderr_text = stderr_reader.join().unwrap_or_default();
    drop(job_file);
    // fio may have re-created the file (it does when it lays one out): keep it ours, so that
    // it is removed.
    let _ = file.reclaim();

    let results = results_from_output(profile, &stdout_text, &stderr_text, status)?;
    Ok(live.finish(results))
}

/// Gives the test file the profile's size before fio starts, so that fio does not lay it out
/// itself (fio unlinks and re-creates a file it extends), and fills with data what a read
/// could reach before a job surely wrote it, as the native engine does, so that reads never
/// hit holes: the whole file when the profile does not begin by writing all of it, else the
/// range [`super::native::unwritten_reads`] gives (when the first job may stop at its
/// `runtime` before covering the file).
///
/// Errors: [`EngineError::NoSpace`], [`EngineError::ReadOnly`], [`EngineError::Io`], … from
/// sizing or writing the file.
fn prepare_file(profile: &Profile, file: &TestFile) -> Result<(), EngineError> {
    let job = profile.jobs.first().expect("a profile has a job");
    let (from, to) = if super::native::pre_size(profile, file)? {
        match super::native::unwritten_reads(profile) {
            Some(range) => range,
            None => return Ok(()),
        }
    } else {
        (0, profile.file_size_bytes())
    };
    let handle = file.open(job.direct)?;
    super::native::lay_out(&handle, from, to, job)
}

/// Stops fio and the job processes it forked (its process group): SIGTERM, then SIGKILL when
/// fio has not exited after [`TERM_GRACE`]; reaps it.
fn stop(child: &mut Child) {
    let group = i32::try_from(child.id())
        .ok()
        .map(|pid| nix::unistd::Pid::from_raw(-pid));
    let signal_group = |signal| {
        if let Some(group) = group {
            let _ = nix::sys::signal::kill(group, signal);
        }
    };
    signal_group(nix::sys::signal::Signal::SIGTERM);
    let deadline = Instant::now() + TERM_GRACE;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            // Job processes left behind would keep the pipes open.
            signal_group(nix::sys::signal::Signal::SIGKILL);
            return;
        }
        std::thread::sleep(POLL / 2);
    }
    signal_group(nix::sys::signal::Signal::SIGKILL);
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills fio's process group (fio and its job processes) with SIGKILL and reaps fio.
fn kill_group(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(-pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Reads fio's stdout to the end, telling of each line and sending each complete JSON
/// document as it arrives (fio prints `{` and `}` alone on their lines around each); returns
/// the whole text.
fn read_stdout(stdout: impl Read, snapshots: &mpsc::Sender<Heard>) -> String {
    let mut all = String::new();
    let mut current: Option<String> = None;
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        all.push_str(&line);
        let _ = snapshots.send(Heard::Line);
        if line.starts_with('{') {
            current = Some(String::new());
        }
        if let Some(doc) = current.as_mut() {
            doc.push_str(&line);
            if line.trim_end() == "}" {
                if let Ok(out) = serde_json::from_str::<FioOutput>(doc) {
                    let _ = snapshots.send(Heard::Snapshot(Box::new(out)));
                }
                current = None;
            }
        }
    }
    all
}

/// fio's own error lines (`fio: …`) from both streams, at most a few, joined.
fn fio_messages(stdout: &str, stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .chain(stdout.lines().take_while(|l| !l.starts_with('{')))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let fio_lines: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("fio:"))
        .collect();
    let chosen = if fio_lines.is_empty() {
        lines
    } else {
        fio_lines
    };
    chosen.into_iter().take(4).collect::<Vec<_>>().join("; ")
}

/// Turns fio's output (its whole stdout and stderr, and how it exited) into one result per
/// job of `profile`, in profile order, each found under its section name
/// ([`jobfile::section_name`] of its index: `job0`, `job1`, …) and named after the profile's
/// job.
///
/// Errors: the cause a job's errno names ([`EngineError::from_fio_errno`]: ENOSPC/EDQUOT →
/// [`EngineError::NoSpace`], EROFS → [`EngineError::ReadOnly`], ENOENT/ELOOP/ESTALE →
/// [`EngineError::TestFileGone`], EIO/ENODEV/ENXIO → [`EngineError::Io`]);
/// [`EngineError::FioFailed`] (with fio's own `fio: …` lines) when a job reports another
/// error, fio exited with a failure, or a job or value is missing from its JSON.
pub fn results_from_output(
    profile: &Profile,
    stdout: &str,
    stderr: &str,
    status: std::process::ExitStatus,
) -> Result<Vec<PhaseResult>, EngineError> {
    let messages = fio_messages(stdout, stderr);
    let failed = |what: String| EngineError::FioFailed {
        message: if messages.is_empty() {
            what
        } else {
            format!("{what}: {messages}")
        },
    };
    let parsed = final_output(stdout);
    // A job's own error says most about what happened; look at those first.
    if let Ok(out) = &parsed {
        for (index, job) in profile.jobs.iter().enumerate() {
            if let Some(found) = out.job(&section_name(index)) {
                let op = if job.rw.is_write() { "write" } else { "read" };
                if let Some(e) = EngineError::from_fio_errno(&job.name, op, found.error) {
                    return Err(e);
                }
                if found.error != 0 {
                    let errno = std::io::Error::from_raw_os_error(found.error);
                    return Err(failed(format!("job {} failed ({errno})", job.name)));
                }
            }
        }
    }
    if !status.success() {
        return Err(failed(format!("fio exited with {status}")));
    }
    let out = parsed.map_err(failed)?;
    let mut results = Vec::with_capacity(profile.jobs.len());
    for (index, job) in profile.jobs.iter().enumerate() {
        match out.phase(job, &section_name(index)) {
            Ok(result) => results.push(result),
            Err(JobProblem::Missing) => {
                return Err(failed(format!("no job named {} in fio's output", job.name)))
            }
            Err(JobProblem::Error(errno)) => {
                let errno = std::io::Error::from_raw_os_error(errno);
                return Err(failed(format!("job {} failed ({errno})", job.name)));
            }
            Err(JobProblem::MissingValue(key)) => {
                return Err(failed(format!(
                    "fio's output for job {} has no {key}",
                    job.name
                )))
            }
            Err(JobProblem::Inconsistent(why)) => {
                return Err(failed(format!(
                    "fio's output for job {} contradicts itself: {why}",
                    job.name
                )))
            }
        }
    }
    Ok(results)
}

/// Turns fio's status snapshots into phase, progress and sample events.
struct Live<'a> {
    profile: &'a Profile,
    ctx: &'a RunContext<'a>,
    /// Phases announced with [`Event::PhaseStarted`] so far.
    started: usize,
    /// Per phase: (job_runtime ms, io_bytes, ios) at the last snapshot.
    last: Vec<(u64, u64, u64)>,
    samples: Vec<Vec<Sample>>,
}

impl<'a> Live<'a> {
    fn new(profile: &'a Profile, ctx: &'a RunContext<'a>) -> Live<'a> {
        let n = profile.jobs.len();
        Live {
            profile,
            ctx,
            started: 0,
            last: vec![(0, 0, 0); n],
            samples: vec![Vec::new(); n],
        }
    }

    fn start_up_to(&mut self, index: usize) {
        while self.started <= index && self.started < self.profile.jobs.len() {
            (self.ctx.on_event)(Event::PhaseStarted {
                run: self.ctx.run,
                index: self.started,
                count: self.profile.jobs.len(),
                name: self.profile.jobs[self.started].name.clone(),
            });
            self.started += 1;
        }
    }

    fn snapshot(&mut self, out: &FioOutput) {
        // The running phase: the last job (in profile order) that has begun.
        let mut running = None;
        for index in 0..self.profile.jobs.len() {
            if let Some(found) = out.job(&section_name(index)) {
                if found.job_runtime > 0 || found.io_bytes() > 0 {
                    running = Some((index, found));
                }
            }
        }
        let Some((index, found)) = running else {
            return;
        };
        self.start_up_to(index);
        let job = &self.profile.jobs[index];
        let bytes = found.io_bytes();
        let ios = [&found.read, &found.write]
            .iter()
            .filter_map(|d| d.as_ref().and_then(|d| d.total_ios))
            .sum::<u64>();
        let ms = found.job_runtime;
        let (last_ms, last_bytes, last_ios) = self.last[index];
        if ms <= last_ms {
            return;
        }
        let dt = (ms - last_ms) as f64 / 1000.0;
        let bw = bytes.saturating_sub(last_bytes) as f64 / dt;
        let iops = ios.saturating_sub(last_ios) as f64 / dt;
        self.last[index] = (ms, bytes, ios);
        let sample = Sample {
            t_s: ms as f64 / 1000.0,
            bw_bytes: bw,
            iops,
        };
        self.samples[index].push(sample);
        (self.ctx.on_event)(Event::Sample {
            run: self.ctx.run,
            index,
            sample,
        });
        let elapsed = ms as f64 / 1000.0;
        let mut fraction = bytes as f64 / job.size_bytes.max(1) as f64;
        if let Some(limit) = job.runtime.filter(|r| !r.is_zero()) {
            fraction = fraction.max(elapsed / limit.as_secs_f64());
        }
        (self.ctx.on_event)(Event::Progress {
            run: self.ctx.run,
            index,
            fraction: fraction.clamp(0.0, 1.0),
            bytes,
            ios,
            elapsed_s: elapsed,
            bw_bytes: bw,
            iops,
        });
    }

    /// Announces the phases fio finished (with their snapshot samples) and returns the results.
    fn finish(mut self, mut results: Vec<PhaseResult>) -> Vec<PhaseResult> {
        for (index, result) in results.iter_mut().enumerate() {
            self.start_up_to(index);
            let mut samples = std::mem::take(&mut self.samples[index]);
            if samples.is_empty() && result.seconds > 0.0 {
                // Shorter than fio's one-second status interval: one sample for the phase.
                let sample = Sample {
                    t_s: result.seconds,
                    bw_bytes: result.bw_bytes,
                    iops: result.iops,
                };
                (self.ctx.on_event)(Event::Sample {
                    run: self.ctx.run,
                    index,
                    sample,
                });
                samples.push(sample);
            }
            result.samples = samples;
            (self.ctx.on_event)(Event::PhaseFinished {
                run: self.ctx.run,
                index,
                result: result.clone(),
            });
        }
        results
    }
}
