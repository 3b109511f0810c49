//! Running the fio process: its command line (in the run's private directory, holding the
//! run's lock), its own process group, readers for its two streams, and the wait for it with
//! cancel and the watchdog.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::live::Live;
use super::output::FioOutput;
use super::{watchdog_limit, POLL, TERM_GRACE};
use crate::engine::testfile::TestFile;
use crate::engine::{EngineError, RunContext};
use crate::process_group::ProcessGroup;

/// What the stdout reader tells the wait loop.
enum Heard {
    /// fio printed a line (it is alive).
    Line,
    /// fio printed a complete status or result document.
    Snapshot(Box<FioOutput>),
}

/// The glibc tunable that makes `malloc` ask for transparent huge pages for its large blocks
/// (glibc 2.35 and later; older ones ignore it).
const MALLOC_HUGE_PAGES: &str = "glibc.malloc.hugetlb=1";

/// fio's `GLIBC_TUNABLES`: `existing` (the program's own, if set) with [`MALLOC_HUGE_PAGES`]
/// added unless it already names `glibc.malloc.hugetlb`. fio allocates its `iodepth × bs` of
/// buffers with one `malloc`; in huge pages each block reaches the device as one request, as
/// the native engine's buffers do (see `native::buffers::IoBuffers`), instead of as many as
/// the page allocator's scatter of 4 KiB pages gives.
fn glibc_tunables(existing: Option<&OsStr>) -> OsString {
    match existing.filter(|e| !e.is_empty()) {
        None => OsString::from(MALLOC_HUGE_PAGES),
        Some(e) if e.to_string_lossy().contains("glibc.malloc.hugetlb") => e.to_owned(),
        Some(e) => {
            let mut joined = e.to_owned();
            joined.push(":");
            joined.push(MALLOC_HUGE_PAGES);
            joined
        }
    }
}

/// fio's command line for the job file named `job_file` in `file`'s private directory: JSON
/// output with a status every second, no stdin, both streams piped, its buffers in huge pages
/// ([`glibc_tunables`]); in the child, SIGTERM when the starting thread dies, the private
/// directory as working directory and the run's lock kept open.
pub(super) fn fio_command(program: &Path, job_file: &str, file: &TestFile) -> Command {
    let mut command = Command::new(program);
    command
        .env(
            "GLIBC_TUNABLES",
            glibc_tunables(std::env::var_os("GLIBC_TUNABLES").as_deref()),
        )
        .arg("--output-format=json")
        .arg("--status-interval=1")
        .arg(job_file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
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
    command
}

/// Starts `command` in its own process group, so that cancel can stop fio and the job
/// processes it forks.
///
/// Errors: [`EngineError::FioMissing`] when the program is not found, else
/// [`EngineError::FioFailed`].
pub(super) fn spawn(program: &Path, command: &mut Command) -> Result<ProcessGroup, EngineError> {
    ProcessGroup::spawn(command).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            EngineError::FioMissing {
                program: program.display().to_string(),
            }
        } else {
            EngineError::FioFailed {
                message: format!("cannot run {}: {e}", program.display()),
            }
        }
    })
}

/// fio's stdout and stderr, each read to its end on a thread of its own.
pub(super) struct Readers {
    stdout: JoinHandle<String>,
    stderr: JoinHandle<String>,
    /// What the stdout reader hears, as it hears it.
    heard: mpsc::Receiver<Heard>,
}

impl Readers {
    /// Takes the group's child's piped streams and starts reading them.
    pub(super) fn start(group: &mut ProcessGroup) -> Readers {
        let (heard_tx, heard) = mpsc::channel::<Heard>();
        let stdout = group.child_mut().stdout.take().expect("piped stdout");
        let stderr = group.child_mut().stderr.take().expect("piped stderr");
        let stdout = std::thread::spawn(move || read_stdout(stdout, &heard_tx));
        let stderr = std::thread::spawn(move || read_stderr(stderr));
        Readers {
            stdout,
            stderr,
            heard,
        }
    }

    /// Waits for both streams to end; their whole text (stdout, stderr).
    fn join(self) -> (String, String) {
        (
            self.stdout.join().unwrap_or_default(),
            self.stderr.join().unwrap_or_default(),
        )
    }
}

/// Waits for fio to exit, giving `live` each snapshot it prints; returns how it exited and
/// its whole stdout and stderr.
///
/// Errors, after stopping fio's group and reclaiming the test file:
/// [`EngineError::Cancelled`] when `ctx.cancel` is set, [`EngineError::FioHung`] when fio
/// prints nothing for the watchdog's limit ([`watchdog_limit`]; time this process was stopped
/// is not fio's silence), [`EngineError::FioFailed`] when it cannot be waited for,
/// [`EngineError::Paused`] when this process was stopped while fio ran (fio's figures then
/// include the stop when Ctrl+Z stopped it too; which it was cannot be told from here).
pub(super) fn watch(
    mut group: ProcessGroup,
    readers: Readers,
    live: &mut Live<'_>,
    ctx: &RunContext<'_>,
    file: &TestFile,
) -> Result<(ExitStatus, String, String), EngineError> {
    let watchdog = watchdog_limit();
    let mut last_heard = Instant::now();
    // Time this process was stopped does not count as fio's silence: fio may have gone on
    // (only this process stopped) or stopped with it (Ctrl+Z stops the whole group).
    let pauses = crate::engine::pause::PauseWatch::start();
    let mut stopped_at_last_heard = Duration::ZERO;
    let status = loop {
        if ctx.cancel.load(Ordering::SeqCst) {
            let _ = group.stop(TERM_GRACE);
            let _ = readers.join();
            let _ = file.reclaim();
            return Err(EngineError::Cancelled);
        }
        match group.child_mut().try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                let _ = group.stop(TERM_GRACE);
                let _ = file.reclaim();
                return Err(EngineError::FioFailed {
                    message: format!("cannot wait for fio: {e}"),
                });
            }
        }
        let silent = last_heard
            .elapsed()
            .saturating_sub(pauses.stopped().saturating_sub(stopped_at_last_heard));
        if silent >= watchdog {
            // A stuck fio does not act on SIGTERM: its whole group is killed at once.
            let _ = group.kill(TERM_GRACE);
            let _ = readers.join();
            let _ = file.reclaim();
            return Err(EngineError::FioHung {
                silent_s: watchdog.as_secs(),
            });
        }
        match readers.heard.recv_timeout(POLL) {
            Ok(Heard::Line) => {
                last_heard = Instant::now();
                stopped_at_last_heard = pauses.stopped();
            }
            Ok(Heard::Snapshot(snapshot)) => {
                last_heard = Instant::now();
                stopped_at_last_heard = pauses.stopped();
                live.snapshot(&snapshot);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            // stdout closed: fio is about to exit (should it get stuck instead, the watchdog
            // still runs).
            Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(POLL / 10),
        }
    };
    let (stdout, stderr) = readers.join();
    let stopped = pauses.stopped();
    if !stopped.is_zero() {
        let _ = file.reclaim();
        return Err(EngineError::Paused {
            phase: live.running_phase().unwrap_or("fio").to_owned(),
            stopped_s: stopped.as_secs(),
        });
    }
    Ok((status, stdout, stderr))
}

/// The most of fio's stderr kept, bytes: 1 MiB. fio prints one line (about 150 bytes) per
/// block that fails a verify pass; a card that returns wrong data everywhere must not make the
/// program hold them all.
pub(super) const STDERR_KEEP: u64 = 1 << 20;

/// Reads fio's stderr to the end; the first [`STDERR_KEEP`] bytes of it, as text.
fn read_stderr(stderr: impl Read) -> String {
    let mut reader = BufReader::new(stderr);
    let mut kept = Vec::new();
    let _ = (&mut reader).take(STDERR_KEEP).read_to_end(&mut kept);
    let _ = std::io::copy(&mut reader, &mut std::io::sink());
    String::from_utf8_lossy(&kept).into_owned()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_s_malloc_is_asked_for_huge_pages_beside_the_caller_s_tunables() {
        assert_eq!(glibc_tunables(None), "glibc.malloc.hugetlb=1");
        assert_eq!(
            glibc_tunables(Some(OsStr::new(""))),
            "glibc.malloc.hugetlb=1"
        );
        assert_eq!(
            glibc_tunables(Some(OsStr::new("glibc.malloc.check=3"))),
            "glibc.malloc.check=3:glibc.malloc.hugetlb=1"
        );
        assert_eq!(
            glibc_tunables(Some(OsStr::new("glibc.malloc.hugetlb=0"))),
            "glibc.malloc.hugetlb=0"
        );
    }
}
