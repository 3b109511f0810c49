//! The one bridge between the engine and the window: runs [`sdtest::run`] on its own thread and
//! forwards what it says over a bounded [`async_channel`] to the main loop, which awaits it
//! without ever blocking. Cancel goes the other way through a shared flag.
//!
//! The engine sends at most about ten progress events a second (docs/design.md, "Two engines"). Progress
//! and per-second samples are sent with `try_send` and dropped when the window is behind, so
//! that a busy main loop can never slow down the measurement; the rare events that change what
//! the window shows (run and phase starts and ends, warnings) and the final report wait for room.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use agnostics_core::engine::Event;
use agnostics_core::report::Report;
use agnostics_core::sdtest::{self, TestOptions};

use crate::history_store::{self, RecordOutcome};

/// Room in the channel, in messages: a few seconds of progress events.
pub const CHANNEL_CAPACITY: usize = 64;

/// What the worker thread tells the main loop.
#[derive(Debug, Clone)]
pub enum Message {
    /// An event of the running test, in the order the engine sent it.
    Event(Event),
    /// The finished test's report went to the run history (or why not); sent right before
    /// [`Message::Finished`].
    Recorded(Box<RecordOutcome>),
    /// The test is over (passed, failed, stopped by an error or cancelled) and its test file
    /// is gone; this is the last message.
    Finished(Box<Report>),
}

/// A test running on its own thread.
///
/// Dropping a `Worker` whose test is still running cancels it and waits for the thread, so the
/// engine always gets to remove its test file.
#[derive(Debug)]
pub struct Worker {
    receiver: async_channel::Receiver<Message>,
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts `opts` on a new thread named `agnostics-test`; its report is recorded in the
    /// run history at `history` (the history's default path when `None`) on that thread,
    /// after the test file is gone.
    ///
    /// Errors: the OS refused to create the thread (out of memory or thread limit).
    pub fn spawn(opts: TestOptions, history: Option<PathBuf>) -> std::io::Result<Worker> {
        let (sender, receiver) = async_channel::bounded(CHANNEL_CAPACITY);
        let cancel = Arc::new(AtomicBool::new(false));
        let thread_cancel = Arc::clone(&cancel);
        let thread = std::thread::Builder::new()
            .name("agnostics-test".into())
            .spawn(move || {
                let forward = |event: Event| forward(&sender, &thread_cancel, event);
                let report = sdtest::run(&opts, &thread_cancel, &forward);
                // The history never costs a result: whatever it says, the report follows.
                let path = history.unwrap_or_else(history_store::default_path);
                let recorded = history_store::record(&path, &report);
                let _ = sender.send_blocking(Message::Recorded(Box::new(recorded)));
                // The window may be gone already; then nobody needs the report.
                let _ = sender.send_blocking(Message::Finished(Box::new(report)));
            })?;
        Ok(Worker {
            receiver,
            cancel,
            thread: Some(thread),
        })
    }

    /// The messages of this test, for the main loop to `recv().await`. The channel closes after
    /// [`Message::Finished`].
    pub fn receiver(&self) -> async_channel::Receiver<Message> {
        self.receiver.clone()
    }

    /// Asks the test to stop: the engine stops submitting, waits for the I/O in flight, removes
    /// its file and finishes with a report whose error kind is `cancelled`.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// True once [`Worker::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.cancel();
        if let Some(thread) = self.thread.take() {
            // Waits for the engine to clean up; after `Finished` this returns at once.
            let _ = thread.join();
        }
    }
}

/// Sends one engine event to the main loop (called on the worker thread).
fn forward(sender: &async_channel::Sender<Message>, cancel: &AtomicBool, event: Event) {
    let lossy = matches!(event, Event::Progress { .. } | Event::Sample { .. });
    let message = Message::Event(event);
    if lossy {
        // A full channel means the window is behind: this figure is stale anyway.
        let _ = sender.try_send(message);
    } else if sender.send_blocking(message).is_err() {
        // Nobody listens any more (the window went away): stop the test.
        cancel.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(run: u32) -> Event {
        Event::Progress {
            run,
            index: 0,
            rw: agnostics_core::profile::Rw::Write,
            fraction: 0.5,
            bytes: 1,
            ios: 1,
            elapsed_s: 1.0,
            bw_bytes: 1.0,
            iops: 1.0,
        }
    }

    #[test]
    fn progress_is_dropped_rather_than_blocking_when_the_window_is_behind() {
        let (sender, receiver) = async_channel::bounded(2);
        let cancel = AtomicBool::new(false);
        for run in 0..10 {
            forward(&sender, &cancel, progress(run));
        }
        assert_eq!(receiver.len(), 2);
        assert!(!cancel.load(Ordering::SeqCst));
    }

    #[test]
    fn a_closed_window_cancels_the_test() {
        let (sender, receiver) = async_channel::bounded(2);
        drop(receiver);
        let cancel = AtomicBool::new(false);
        forward(&sender, &cancel, Event::Warning("x".into()));
        assert!(cancel.load(Ordering::SeqCst));
    }

    #[test]
    fn a_refused_target_finishes_with_an_error_report() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let missing = dir.path().join("no such folder");
        let worker = Worker::spawn(
            TestOptions::standard(missing),
            Some(dir.path().join("history.sqlite3")),
        )
        .unwrap();
        let receiver = worker.receiver();
        let mut report = None;
        while let Ok(message) = receiver.recv_blocking() {
            if let Message::Finished(r) = message {
                report = Some(r);
            }
        }
        let report = report.expect("a final report");
        assert!(report.error.is_some());
        assert!(report.runs.is_empty());
        assert!(
            !dir.path().join("history.sqlite3").exists(),
            "a refused test is not history"
        );
    }
}
