//! Upstream agnostics' script protocol (docs/design.md, "Upstream's script protocol"):
//! other packages drop `*.sh` tests into `agnostics/` under a data directory; each names and
//! describes itself with `#NAME=` / `#DESC=` lines; each runs as `/bin/sh FILE`; exit status 0
//! is PASS. Everything lands in `~/rpdiags.txt`.
//!
//! - [`mod@discover`]: finding and parsing the scripts ([`discover::discover`], [`ScriptTest`]).
//! - [`runner`]: running one script in its own process group, with a timeout, cancel and a
//!   SIGKILL after a grace period ([`runner::run_test`]).
//! - [`log`]: the `rpdiags.txt` log in upstream's format ([`log::LogWriter`],
//!   [`log::log_sd_test`] for the built-in SD card test).
//! - [`run_all`] ties them together: runs a list of tests in order, streams every byte of
//!   output into the log and reports [`ScriptEvent`]s to the caller (the CLI, the GUI's worker).
//!
//! What differs from upstream on purpose: a timeout (default 30 minutes) and a SIGKILL 5 s after
//! the SIGTERM; no process of a test's group outlives the test; a script's name is plain text,
//! never Pango markup; the upstream `sdtest.sh` is not listed next to the built-in SD card test;
//! the log says why a test failed (exit status, signal, timeout) before `Test FAIL`.

pub mod discover;
pub mod log;
pub mod runner;

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::i18n::{fill, gettext};

pub use crate::process_group::live_group_members;
pub use discover::{discover, script_dirs, Discovery, ScriptTest, SkipReason, Skipped};
pub use log::{default_log_path, log_path, log_sd_test, LogWriter};
pub use runner::run_test;

/// The verdict on one script. JSON spells it `PASS`, `FAIL`, `ABORTED`, `TIMEOUT`.
///
/// The log knows only upstream's three endings: TIMEOUT is logged as `Test FAIL` after a
/// `Timed out after N s` line, ABORTED as `Test aborted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ScriptVerdict {
    /// The script exited with status 0.
    Pass,
    /// The script exited with another status, or a signal killed it.
    Fail,
    /// The user cancelled it (the whole process group got SIGTERM, then SIGKILL).
    Aborted,
    /// It ran longer than [`RunOptions::timeout`] (then as for ABORTED).
    Timeout,
}

impl ScriptVerdict {
    /// `PASS`, `FAIL`, `ABORTED` or `TIMEOUT` (as in JSON; not translated).
    pub fn as_str(self) -> &'static str {
        match self {
            ScriptVerdict::Pass => "PASS",
            ScriptVerdict::Fail => "FAIL",
            ScriptVerdict::Aborted => "ABORTED",
            ScriptVerdict::Timeout => "TIMEOUT",
        }
    }

    /// True only for PASS.
    pub fn passed(self) -> bool {
        self == ScriptVerdict::Pass
    }
}

impl std::fmt::Display for ScriptVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How scripts are run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// Give up on a script after this long (default 30 minutes): SIGTERM to its group.
    pub timeout: Duration,
    /// After the SIGTERM (timeout or cancel), wait this long before SIGKILL (default 5 s).
    pub kill_grace: Duration,
    /// After the script itself has exited, wait at most this long for the end of its output
    /// (default 2 s). A process that left the group (`setsid`) but kept the pipe open cannot
    /// hold the runner longer than this.
    pub drain_limit: Duration,
    /// How many bytes of output [`ScriptResult::output`] keeps for display (default 64 KiB).
    /// The log always gets every byte.
    pub display_cap_bytes: usize,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            timeout: Duration::from_secs(30 * 60),
            kill_grace: Duration::from_secs(5),
            drain_limit: Duration::from_secs(2),
            display_cap_bytes: 64 * 1024,
        }
    }
}

/// The result of one script: what the JSON's `tests` array holds.
///
/// JSON: `name`, `description`, `file`, `verdict`, `exit_code` (null when a signal ended it),
/// `signal` (e.g. `"SIGSEGV"`, null when it exited), `seconds`, plus `pid`, `leftover_processes`,
/// `output_bytes` and `output` (the display copy).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScriptResult {
    /// The test's name (`#NAME=`), plain text.
    pub name: String,
    /// The test's description (`#DESC=`, escapes expanded), plain text.
    pub description: String,
    /// The script file.
    pub file: PathBuf,
    /// The verdict.
    pub verdict: ScriptVerdict,
    /// The shell's exit status, when it exited (also for TIMEOUT/ABORTED if it exited on the
    /// SIGTERM).
    pub exit_code: Option<i32>,
    /// The signal that ended the shell, by name (`SIGSEGV`, `SIGKILL`; `signal 40` for one
    /// without a name).
    pub signal: Option<String>,
    /// Wall-clock seconds from start to the end of the script's process (f64).
    pub seconds: f64,
    /// The shell's process id, which is also its process group id.
    pub pid: u32,
    /// Processes of the group still alive when the script ended by itself (background
    /// children), which the runner then killed with SIGKILL. 0 for ABORTED and TIMEOUT, where
    /// the whole group was being stopped anyway.
    pub leftover_processes: u32,
    /// Every byte of output the script wrote (stdout and stderr), u64.
    pub output_bytes: u64,
    /// The output for display: the first [`RunOptions::display_cap_bytes`] bytes, invalid
    /// UTF-8 replaced by U+FFFD, then "… (N bytes more)" when there was more.
    pub output: String,
}

impl ScriptResult {
    /// A short reason for people (translated): empty for PASS, "exit status 3", "killed by
    /// SIGSEGV", "timed out", "aborted".
    pub fn reason(&self) -> String {
        match self.verdict {
            ScriptVerdict::Pass => String::new(),
            ScriptVerdict::Fail => match (&self.signal, self.exit_code) {
                (Some(signal), _) => fill(
                    // Translators: a test script died from a signal, e.g. "killed by SIGSEGV".
                    &gettext("killed by {signal}"),
                    &[("signal", signal)],
                ),
                (None, Some(code)) => fill(&gettext("exit status {code}"), &[("code", &code)]),
                (None, None) => gettext("failed"),
            },
            ScriptVerdict::Timeout => gettext("timed out"),
            ScriptVerdict::Aborted => gettext("aborted"),
        }
    }
}

/// The document `agnostics-cli scripts --json` prints: `tests` (one [`ScriptResult`] per script
/// run, in order), `log` (the log file written, null when nothing ran), `skipped` (files that
/// are not tests, with the reason), `error` (null, or the message of the error that stopped
/// the session).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScriptsReport {
    /// One result per script that ran, in the order they ran.
    pub tests: Vec<ScriptResult>,
    /// The log file written, or null.
    pub log: Option<PathBuf>,
    /// Files found but not listed, and why.
    pub skipped: Vec<Skipped>,
    /// What stopped the session (log not writable, shell not startable), or null.
    pub error: Option<String>,
}

/// What a running script tells its observer. `index` is the script's position in the list
/// given to [`run_all`] (or the index given to [`run_test`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptEvent {
    /// The script's shell has started.
    Started {
        /// Position in the list.
        index: usize,
        /// The test's name.
        name: String,
        /// The shell's pid (= its process group id).
        pid: u32,
    },
    /// Bytes the script wrote, stdout and stderr interleaved as written. Not necessarily whole
    /// lines nor valid UTF-8.
    Output {
        /// Position in the list.
        index: usize,
        /// The bytes, in order.
        chunk: Vec<u8>,
    },
    /// The runner sent SIGTERM to the group because of a cancel or the timeout; the script has
    /// [`RunOptions::kill_grace`] to end before SIGKILL.
    Stopping {
        /// Position in the list.
        index: usize,
        /// [`ScriptVerdict::Aborted`] or [`ScriptVerdict::Timeout`].
        verdict: ScriptVerdict,
    },
    /// The script has ended and no process of its group is left.
    Finished {
        /// Position in the list.
        index: usize,
        /// Its result.
        result: ScriptResult,
    },
}

/// Why scripts could not be run or logged. A script that fails is a [`ScriptVerdict`], not
/// an error.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// Neither `$HOME` nor the password database gives a home folder for the log.
    #[error("cannot find the home folder for rpdiags.txt (HOME is not set)")]
    NoHome,
    /// The log could not be created or truncated.
    #[error("cannot write the log {path}: {source}")]
    LogCreate {
        /// The log file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Writing to the log failed part-way (disk full, removed card).
    #[error("writing the log {path} failed: {source}")]
    LogWrite {
        /// The log file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The pipe for the script's output could not be made.
    #[error("cannot create a pipe for the test's output: {0}")]
    Pipe(#[source] std::io::Error),
    /// `/bin/sh` could not be started.
    #[error("cannot start /bin/sh for {file}: {source}")]
    Spawn {
        /// The script.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Waiting for or signalling the script's process failed.
    #[error("lost track of the test process for {file}: {source}")]
    Wait {
        /// The script.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Runs `tests` in order, like upstream's **Run Tests**: each with [`run_test`], every byte of
/// its output streamed into `log` between `Test : NAME` and the verdict line.
///
/// Stops after the script that was running when `cancel` was set (that one is ABORTED; the
/// rest do not run, as upstream), so the result may be shorter than `tests`. On an error
/// (a script's shell cannot be started) the log gets an error line and `Test FAIL` for that
/// test and the error is returned. Log write errors do not stop the tests: they are kept in
/// the [`LogWriter`] and returned by [`LogWriter::finish`].
pub fn run_all(
    tests: &[ScriptTest],
    opts: &RunOptions,
    log: &mut LogWriter,
    cancel: &AtomicBool,
    on_event: &dyn Fn(ScriptEvent),
) -> Result<Vec<ScriptResult>, ScriptError> {
    let mut results = Vec::with_capacity(tests.len());
    let log = RefCell::new(log);
    for (index, test) in tests.iter().enumerate() {
        if cancel.load(Ordering::SeqCst) {
            break;
        }
        log.borrow_mut().begin_test(&test.name);
        let tee = |event: ScriptEvent| {
            if let ScriptEvent::Output { chunk, .. } = &event {
                log.borrow_mut().output(chunk);
            }
            on_event(event);
        };
        match run_test(index, test, opts, cancel, &tee) {
            Ok(result) => {
                log.borrow_mut().end_test(&result, opts);
                results.push(result);
            }
            Err(e) => {
                log.borrow_mut().end_test_error(&e.to_string());
                return Err(e);
            }
        }
    }
    Ok(results)
}
