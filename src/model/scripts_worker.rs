//! The bridge for **Run Tests**: runs one session of test scripts on its own thread with the
//! core's [`scripts::run_all`] and forwards what happens over a bounded [`async_channel`] to
//! the main loop, on a [`Worker`] like the SD card test's; cancel goes the other way
//! through a shared flag, and the core then stops the running script's whole process group
//! (SIGTERM, SIGKILL after the grace period).
//!
//! The session's log is written here too ([`crate::model::rpdiags::open`]): the header, the SD card
//! test's result when it ran first, then every byte of every script's output. The window is
//! told only when a script starts, is being stopped and has finished (its result carries the
//! capped display copy of its output), so a script that prints megabytes cannot flood the
//! main loop.

use std::path::{Path, PathBuf};

use agnostics_core::report::Report;
use agnostics_core::scripts::{
    self, RunOptions, ScriptEvent, ScriptResult, ScriptTest, ScriptVerdict,
};

use crate::model::worker::{Events, Worker};

/// Room in the channel, in messages: three per script at most, so it is rarely full.
pub const CHANNEL_CAPACITY: usize = 16;

/// What the scripts' thread tells the main loop. `index` is the script's position in the
/// list given to [`spawn`].
#[derive(Debug, Clone)]
pub enum ScriptMessage {
    /// The script's shell has started.
    Started {
        /// Position in the list.
        index: usize,
    },
    /// The script is being stopped (cancel or timeout).
    Stopping {
        /// Position in the list.
        index: usize,
        /// ABORTED or TIMEOUT.
        verdict: ScriptVerdict,
    },
    /// The script has ended, no process of its group is left.
    Finished {
        /// Position in the list.
        index: usize,
        /// Its result.
        result: Box<ScriptResult>,
    },
    /// The session is over; the last message. `Ok`: the log written. `Err`: what stopped the
    /// session or spoiled the log, for people.
    Done(Result<PathBuf, String>),
}

/// Starts a session on a new thread named `agnostics-scripts`: the log at `log` (with `sd`,
/// the SD card test's report, first when it ran), then `tests` in order with `opts`. The
/// worker's cancel stops the session: the running script is ABORTED (its group killed), the
/// rest do not run. Dropping the worker while scripts run cancels them and waits for the
/// thread (at most the core's grace period and output drain limit).
///
/// Errors: the OS refused to create the thread.
pub fn spawn(
    log: PathBuf,
    sd: Option<Report>,
    tests: Vec<ScriptTest>,
    opts: RunOptions,
) -> std::io::Result<Worker<ScriptMessage>> {
    Worker::spawn("agnostics-scripts", CHANNEL_CAPACITY, move |events| {
        let done = session(&log, sd.as_ref(), &tests, &opts, events);
        // The window may be gone already.
        events.send(ScriptMessage::Done(done));
    })
}

/// The whole session, on the worker thread.
fn session(
    log: &Path,
    sd: Option<&Report>,
    tests: &[ScriptTest],
    opts: &RunOptions,
    events: &Events<ScriptMessage>,
) -> Result<PathBuf, String> {
    let mut log = crate::model::rpdiags::open(log, sd).map_err(|e| e.to_string())?;
    let on_event = |event: ScriptEvent| {
        let message = match event {
            ScriptEvent::Started { index, .. } => ScriptMessage::Started { index },
            ScriptEvent::Stopping { index, verdict } => ScriptMessage::Stopping { index, verdict },
            ScriptEvent::Finished { index, result } => ScriptMessage::Finished {
                index,
                result: Box::new(result),
            },
            // Every byte goes to the log; the window shows the result's capped copy.
            ScriptEvent::Output { .. } => return,
        };
        // Nobody listening any more (the window went away) stops the session.
        events.send(message);
    };
    let outcome = scripts::run_all(tests, opts, &mut log, events.cancel_flag(), &on_event);
    let finished = log.finish();
    outcome.map_err(|e| e.to_string())?;
    finished.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &std::path::Path, file: &str, name: &str, body: &str) -> ScriptTest {
        let path = dir.join(file);
        std::fs::write(&path, format!("#NAME={name}\n#DESC=d\n{body}\n")).unwrap();
        ScriptTest {
            name: name.into(),
            description: "d".into(),
            file: path,
        }
    }

    #[test]
    fn big_output_reaches_the_log_but_only_results_reach_the_window() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let log = dir.path().join("rpdiags.txt");
        let tests = vec![
            script(
                dir.path(),
                "big.sh",
                "Big",
                "head -c 300000 /dev/zero | tr '\\0' x; printf '\\377\\n'",
            ),
            script(dir.path(), "three.sh", "Three", "exit 3"),
        ];
        let worker = spawn(log.clone(), None, tests, RunOptions::default()).unwrap();
        let receiver = worker.receiver();
        let mut messages = Vec::new();
        while let Ok(m) = receiver.recv_blocking() {
            messages.push(m);
        }
        assert_eq!(messages.len(), 5, "{messages:?}");
        let verdicts: Vec<ScriptVerdict> = messages
            .iter()
            .filter_map(|m| match m {
                ScriptMessage::Finished { result, .. } => Some(result.verdict),
                _ => None,
            })
            .collect();
        assert_eq!(verdicts, [ScriptVerdict::Pass, ScriptVerdict::Fail]);
        match messages.last() {
            Some(ScriptMessage::Done(Ok(path))) => assert_eq!(path, &log),
            other => panic!("{other:?}"),
        }
        let text = std::fs::read(&log).unwrap();
        assert!(text.len() > 300_000);
        assert!(String::from_utf8_lossy(&text).contains("Test : Three\nExit status 3\nTest FAIL\n"));
    }
}
