//! Running one test script the way upstream does, minus upstream's faults (docs/design.md,
//! "Upstream's script protocol").
//!
//! The script runs as `/bin/sh FILE` (`argv[0]` is `sh`), as the current user, with the caller's
//! environment and working folder, stdin from `/dev/null`, and stdout and stderr both on one
//! pipe, so their bytes arrive in the order written. It leads its own process group
//! ([`crate::process_group`]), so that a timeout or a cancel reaches everything it started:
//! SIGTERM to the group, SIGKILL to the group [`RunOptions::kill_grace`] later.
//!
//! When the shell itself has ended, whatever is left of its group (a `sleep 1000 &`) gets
//! SIGKILL at once, the rest of the output is read (waiting at most
//! [`RunOptions::drain_limit`] for the pipe to close), and the runner returns only when no live
//! process of the group is left. The shell is reaped last, so its pid, which names the group,
//! cannot be reused by another process while the runner still signals the group.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::sys::signal::Signal;

use super::{RunOptions, ScriptError, ScriptEvent, ScriptResult, ScriptTest, ScriptVerdict};
use crate::i18n::{fill, ngettext};
use crate::process_group::{ProcessGroup, Stopping};

/// The shell upstream runs every test with.
pub const SHELL: &str = "/bin/sh";

/// How often the runner looks at the cancel flag and the clock while a script is quiet.
const TICK: Duration = Duration::from_millis(50);

/// Bytes read from the pipe at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// Reads per loop turn at most, so that a script printing without pause cannot keep the
/// runner from its timeout and cancel checks.
const READS_PER_TURN: usize = 16;

/// Runs `test` to its end and returns its result (see the module documentation).
///
/// `index` is passed through to the events: [`ScriptEvent::Started`], then any number of
/// [`ScriptEvent::Output`] and at most one [`ScriptEvent::Stopping`], then
/// [`ScriptEvent::Finished`]. When `cancel` becomes true while the script runs, its group gets
/// SIGTERM (then SIGKILL after the grace) and the verdict is ABORTED; past
/// [`RunOptions::timeout`] the same happens with TIMEOUT.
///
/// Errors: the pipe or the process cannot be created ([`ScriptError::Pipe`],
/// [`ScriptError::Spawn`]), or waiting for it fails ([`ScriptError::Wait`]); in the last case
/// its group has been sent SIGKILL.
pub fn run_test(
    index: usize,
    test: &ScriptTest,
    opts: &RunOptions,
    cancel: &AtomicBool,
    on_event: &dyn Fn(ScriptEvent),
) -> Result<ScriptResult, ScriptError> {
    let (group, read_end, started) = spawn(test)?;
    let pid = group.id();
    on_event(ScriptEvent::Started {
        index,
        name: test.name.clone(),
        pid,
    });

    let mut watch = Watch {
        pipe: Some(File::from(read_end)),
        pidfd: pidfd_open(pid),
        buf: vec![0; CHUNK_BYTES],
        head: Vec::new(),
        total_bytes: 0,
        cap: opts.display_cap_bytes,
    };
    let deadline = started.checked_add(opts.timeout);
    let shell = Shell {
        group: &group,
        index,
        on_event,
    };
    // Phase 1: the shell runs.
    let (ended, stop) = match shell.wait_for_end(&mut watch, opts, cancel, deadline) {
        Ok(ended) => ended,
        Err(e) => return Err(fail_wait(test, group, e)),
    };
    // Phase 2: the shell has ended (not yet reaped); end the rest of its group.
    let leftovers = shell.end_group(&mut watch, opts, stop.is_some());

    // Phase 3: reap the shell.
    let status = group.reap().map_err(|source| ScriptError::Wait {
        file: test.file.clone(),
        source,
    })?;
    let exit_code = status.code();
    let signal = status.signal().map(signal_name);
    let verdict = match stop {
        Some(verdict) => verdict,
        None if exit_code == Some(0) => ScriptVerdict::Pass,
        None => ScriptVerdict::Fail,
    };
    let result = ScriptResult {
        name: test.name.clone(),
        description: test.description.clone(),
        file: test.file.clone(),
        verdict,
        exit_code,
        signal,
        seconds: (ended - started).as_secs_f64(),
        pid,
        leftover_processes: leftovers,
        output_bytes: watch.total_bytes,
        output: display_text(&watch.head, watch.total_bytes),
    };
    on_event(ScriptEvent::Finished {
        index,
        result: result.clone(),
    });
    Ok(result)
}

/// Starts `/bin/sh FILE` in its own process group with stdout and stderr on one pipe, stdin
/// from `/dev/null`; returns the group, our (non-blocking) end of the pipe and when it
/// started.
///
/// Errors: [`ScriptError::Pipe`], [`ScriptError::Spawn`].
fn spawn(test: &ScriptTest) -> Result<(ProcessGroup, OwnedFd, Instant), ScriptError> {
    let (read_end, write_end) = nix::unistd::pipe2(OFlag::O_CLOEXEC)
        .map_err(|e| ScriptError::Pipe(std::io::Error::from(e)))?;
    // Only our end is non-blocking: the script's writes must block on a full pipe.
    fcntl(read_end.as_raw_fd(), FcntlArg::F_SETFL(OFlag::O_NONBLOCK))
        .map_err(|e| ScriptError::Pipe(std::io::Error::from(e)))?;
    let stderr_end = write_end.try_clone().map_err(ScriptError::Pipe)?;

    let mut command = Command::new(SHELL);
    command
        .arg0("sh")
        .arg(&test.file)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(stderr_end));
    let started = Instant::now();
    let spawned = ProcessGroup::spawn(&mut command);
    // Dropping the command closes our copies of the write end, so that EOF means the
    // script's side is closed.
    drop(command);
    let group = spawned.map_err(|source| ScriptError::Spawn {
        file: test.file.clone(),
        source,
    })?;
    Ok((group, read_end, started))
}

/// The running script's process group, and where its events go.
struct Shell<'a> {
    group: &'a ProcessGroup,
    /// The test's index, passed through to the events.
    index: usize,
    on_event: &'a dyn Fn(ScriptEvent),
}

impl Shell<'_> {
    /// Reads the output until the shell ends, stopping the group (SIGTERM, then SIGKILL after
    /// the grace) on cancel or past `deadline`; returns when the shell ended and, when it was
    /// stopped, the verdict that says why.
    ///
    /// Errors: the shell's state cannot be read (the caller kills and reaps the group).
    fn wait_for_end(
        &self,
        watch: &mut Watch,
        opts: &RunOptions,
        cancel: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<(Instant, Option<ScriptVerdict>), Errno> {
        let mut stop: Option<(ScriptVerdict, Stopping)> = None;
        let ended = loop {
            if self.group.leader_ended()? {
                break Instant::now();
            }
            let now = Instant::now();
            match &mut stop {
                None => {
                    let verdict = if cancel.load(Ordering::SeqCst) {
                        Some(ScriptVerdict::Aborted)
                    } else if deadline.is_some_and(|d| now >= d) {
                        Some(ScriptVerdict::Timeout)
                    } else {
                        None
                    };
                    if let Some(verdict) = verdict {
                        stop = Some((verdict, Stopping::start(self.group, opts.kill_grace)));
                        (self.on_event)(ScriptEvent::Stopping {
                            index: self.index,
                            verdict,
                        });
                    }
                }
                Some((_, stopping)) => stopping.advance(self.group, now),
            }
            let next = match &stop {
                None => deadline,
                Some((_, stopping)) => stopping.next_deadline(),
            };
            let wait = next.map_or(TICK, |n| n.saturating_duration_since(now).min(TICK));
            watch.wait_and_read(wait, self.index, self.on_event, true);
        };
        Ok((ended, stop.map(|(verdict, _)| verdict)))
    }

    /// After the shell ended: SIGKILL to what is left of its group, the rest of the output
    /// read (at most [`RunOptions::drain_limit`]), and every member waited for until then.
    /// Returns how many processes the script left behind, counted only when it ended by
    /// itself (`stopped` false): after a SIGTERM, processes already dying from it would be
    /// counted by chance.
    fn end_group(&self, watch: &mut Watch, opts: &RunOptions, stopped: bool) -> u32 {
        let leftovers = if stopped {
            0
        } else {
            self.group.live_members().len() as u32
        };
        self.group.signal(Signal::SIGKILL);
        let drain_deadline = Instant::now() + opts.drain_limit;
        while watch.pipe.is_some() {
            let now = Instant::now();
            if now >= drain_deadline {
                break;
            }
            watch.wait_and_read(
                (drain_deadline - now).min(TICK),
                self.index,
                self.on_event,
                false,
            );
        }
        watch.pipe = None;
        self.group.kill_members_until(drain_deadline);
        leftovers
    }
}

/// The pipe and the shell, watched together.
struct Watch {
    /// Our end of the output pipe; `None` once it reached EOF.
    pipe: Option<File>,
    /// A pidfd for the shell (readable when it ends), when the kernel has them (Linux 5.3+).
    pidfd: Option<OwnedFd>,
    /// Read buffer.
    buf: Vec<u8>,
    /// The first `cap` bytes of output, for display.
    head: Vec<u8>,
    /// Every byte read.
    total_bytes: u64,
    /// Display cap, bytes.
    cap: usize,
}

impl Watch {
    /// Waits up to `wait` for output (or, with `watch_leader`, for the shell's end) and reads
    /// what is there, sending it on as [`ScriptEvent::Output`].
    fn wait_and_read(
        &mut self,
        wait: Duration,
        index: usize,
        on_event: &dyn Fn(ScriptEvent),
        watch_leader: bool,
    ) {
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(2);
        if let Some(pipe) = &self.pipe {
            fds.push(libc::pollfd {
                fd: pipe.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
        }
        if let (true, Some(pidfd)) = (watch_leader, &self.pidfd) {
            fds.push(libc::pollfd {
                fd: pidfd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
        }
        let timeout_ms = wait.as_millis().clamp(0, i32::MAX as u128) as libc::c_int;
        if fds.is_empty() {
            std::thread::sleep(wait);
            return;
        }
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs for the whole call, and
        // the descriptors in it stay open (owned by `self`) until it returns.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if ready <= 0 || fds[0].revents == 0 || self.pipe.is_none() {
            // Timeout, EINTR (a signal for the program: look at the flags again), or only the
            // pidfd is ready.
            return;
        }
        self.read_available(index, on_event);
    }

    /// Reads what the pipe holds (at most [`READS_PER_TURN`] chunks); drops the pipe at EOF.
    fn read_available(&mut self, index: usize, on_event: &dyn Fn(ScriptEvent)) {
        let Some(pipe) = self.pipe.as_mut() else {
            return;
        };
        for _ in 0..READS_PER_TURN {
            match pipe.read(&mut self.buf) {
                Ok(0) => {
                    self.pipe = None;
                    return;
                }
                Ok(n) => {
                    let chunk = &self.buf[..n];
                    self.total_bytes += n as u64;
                    let room = self.cap.saturating_sub(self.head.len());
                    self.head.extend_from_slice(&chunk[..room.min(n)]);
                    on_event(ScriptEvent::Output {
                        index,
                        chunk: chunk.to_vec(),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    // A read error on a pipe means there is nothing more to read.
                    self.pipe = None;
                    return;
                }
            }
        }
    }
}

/// Ends the group after a wait error, reaps what can be reaped, and builds the error.
fn fail_wait(test: &ScriptTest, group: ProcessGroup, errno: Errno) -> ScriptError {
    group.signal(Signal::SIGKILL);
    let _ = group.reap();
    ScriptError::Wait {
        file: test.file.clone(),
        source: std::io::Error::from(errno),
    }
}

/// A pidfd for `pid`, or `None` where the kernel has no `pidfd_open` (before Linux 5.3); then
/// the runner notices the shell's end at its next tick instead of at once.
fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1; it touches
    // no memory of ours.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// `SIGSEGV` for 11, `signal 40` for a signal without a name.
pub fn signal_name(signal: i32) -> String {
    Signal::try_from(signal)
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|_| format!("signal {signal}"))
}

/// The display copy of an output: `head` (the first bytes) as lossy UTF-8, and when
/// `total_bytes` is more, a last line "… (N bytes more)". A character cut in two at the cap is
/// left out rather than shown as U+FFFD.
pub fn display_text(head: &[u8], total_bytes: u64) -> String {
    let truncated = total_bytes > head.len() as u64;
    let shown = if truncated {
        &head[..complete_utf8_prefix(head)]
    } else {
        head
    };
    let mut text = String::from_utf8_lossy(shown).into_owned();
    if truncated {
        let more = total_bytes - shown.len() as u64;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&fill(
            // Translators: the end of a test's output shown cut short; the log has it all.
            &ngettext(
                "… ({count} byte more)",
                "… ({count} bytes more)",
                more.min(u64::from(u32::MAX)) as u32,
            ),
            &[("count", &more)],
        ));
    }
    text
}

/// The length of `bytes` without a UTF-8 sequence cut short at its end.
fn complete_utf8_prefix(bytes: &[u8]) -> usize {
    // Look back at most 3 bytes for the lead byte of the last sequence.
    for back in 1..=bytes.len().min(4) {
        let i = bytes.len() - back;
        let b = bytes[i];
        if b & 0xc0 == 0x80 {
            continue; // continuation byte
        }
        let need = match b {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        return if back < need { i } else { bytes.len() };
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names_are_upstream_style() {
        assert_eq!(signal_name(11), "SIGSEGV");
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(40), "signal 40");
    }

    #[test]
    fn display_copy_of_short_output_is_whole() {
        assert_eq!(display_text(b"ok\n", 3), "ok\n");
        assert_eq!(display_text(b"caf\xe9\n", 5), "caf\u{FFFD}\n");
    }

    #[test]
    fn display_copy_says_how_much_is_left_out() {
        assert_eq!(display_text(b"abc", 10), "abc\n… (7 bytes more)");
        // "é" is two bytes; the cap cut it after the first.
        assert_eq!(display_text(b"ab\xc3", 10), "ab\n… (8 bytes more)");
        assert_eq!(display_text("aé".as_bytes(), 10), "aé\n… (7 bytes more)");
    }
}
