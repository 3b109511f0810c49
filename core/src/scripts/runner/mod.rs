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

mod output;

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::sys::signal::Signal;

pub use self::output::display_text;
use self::output::Watch;
use super::{RunOptions, ScriptError, ScriptEvent, ScriptResult, ScriptTest, ScriptVerdict};
use crate::process_group::{ProcessGroup, Stopping};

/// The shell upstream runs every test with.
pub const SHELL: &str = "/bin/sh";

/// How often the runner looks at the cancel flag and the clock while a script is quiet.
pub(super) const TICK: Duration = Duration::from_millis(50);

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

    let mut watch = Watch::new(read_end, pid, opts.display_cap_bytes);
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

/// Ends the group after a wait error, reaps what can be reaped, and builds the error.
fn fail_wait(test: &ScriptTest, group: ProcessGroup, errno: Errno) -> ScriptError {
    group.signal(Signal::SIGKILL);
    let _ = group.reap();
    ScriptError::Wait {
        file: test.file.clone(),
        source: std::io::Error::from(errno),
    }
}

/// `SIGSEGV` for 11, `signal 40` for a signal without a name.
pub fn signal_name(signal: i32) -> String {
    Signal::try_from(signal)
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|_| format!("signal {signal}"))
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
}
