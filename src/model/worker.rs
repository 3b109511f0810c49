//! The bridge between a job on its own thread and the main loop, for the SD card test and the
//! test scripts alike: [`Worker::spawn`] runs a closure on a named thread, which sends its
//! events over a bounded [`async_channel`]; [`Worker::attach`] hands them, in order, to a
//! closure on the main loop, which awaits them without ever blocking. Cancel goes the other
//! way through a shared flag.
//!
//! The SD card test ([`spawn_test`]): the engine sends at most about ten progress events a
//! second. Progress and per-second samples are sent with [`Events::send_lossy`] and dropped
//! when the window is behind, so that a busy main loop can never slow down the measurement;
//! the rare events that change what the window shows (run and phase starts and ends,
//! warnings) and the final report wait for room.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use agnostics_core::engine::Event;
use agnostics_core::report::Report;
use agnostics_core::sdtest::{self, TestOptions};
use gtk::glib;

use crate::model::history_store::{self, RecordOutcome};

/// Room in the SD card test's channel, in messages: a few seconds of progress events.
pub const CHANNEL_CAPACITY: usize = 64;

/// The job's end of the channel, on its thread.
#[derive(Debug)]
pub struct Events<E> {
    sender: async_channel::Sender<E>,
    cancel: Arc<AtomicBool>,
}

impl<E> Events<E> {
    /// Sends `event`, waiting for room. When nobody listens any more (the window went away)
    /// the job is cancelled; returns false then.
    pub fn send(&self, event: E) -> bool {
        if self.sender.send_blocking(event).is_err() {
            self.cancel.store(true, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// Sends `event` if there is room, else drops it (a figure that is stale anyway when the
    /// main loop is behind). Returns true when it was sent.
    pub fn send_lossy(&self, event: E) -> bool {
        self.sender.try_send(event).is_ok()
    }

    /// The job's cancel flag: set by [`Worker::cancel`], or when nobody listens any more.
    pub fn cancel_flag(&self) -> &AtomicBool {
        &self.cancel
    }
}

/// A job running on its own thread, sending events of type `E`.
///
/// Dropping a `Worker` whose job is still running cancels it and waits for the thread, so a
/// job always gets to clean up (the engine removes its test file, the scripts' process groups
/// are stopped). Its owners drop it after the job's last event, when the thread has ended and
/// joining it is immediate, so the main loop is not held up.
#[derive(Debug)]
pub struct Worker<E> {
    receiver: async_channel::Receiver<E>,
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl<E: Send + 'static> Worker<E> {
    /// Runs `job` on a new thread named `name`, with a channel of room for `capacity`
    /// events (at least 1). The channel closes when `job` returns.
    ///
    /// Errors: the OS refused to create the thread (out of memory or thread limit).
    pub fn spawn<F>(name: &str, capacity: usize, job: F) -> std::io::Result<Worker<E>>
    where
        F: FnOnce(&Events<E>) + Send + 'static,
    {
        let (sender, receiver) = async_channel::bounded(capacity.max(1));
        let cancel = Arc::new(AtomicBool::new(false));
        let events = Events {
            sender,
            cancel: Arc::clone(&cancel),
        };
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || job(&events))?;
        Ok(Worker {
            receiver,
            cancel,
            thread: Some(thread),
        })
    }

    /// The job's events, for the main loop to `recv().await` (or a test to
    /// `recv_blocking`). The channel closes after the job's last event.
    pub fn receiver(&self) -> async_channel::Receiver<E> {
        self.receiver.clone()
    }

    /// Calls `on_event` on the main loop (the thread-default main context) with each event,
    /// in the order the job sent them, until the channel closes or `on_event` returns
    /// [`std::ops::ControlFlow::Break`].
    pub fn attach<F>(&self, mut on_event: F)
    where
        F: FnMut(E) -> std::ops::ControlFlow<()> + 'static,
    {
        let receiver = self.receiver();
        glib::spawn_future_local(async move {
            while let Ok(event) = receiver.recv().await {
                if on_event(event).is_break() {
                    break;
                }
            }
        });
    }

    /// Asks the job to stop (sets its cancel flag).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// True once [`Worker::cancel`] was called, or the job found nobody listening.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }
}

impl<E> Drop for Worker<E> {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            // Waits for the job to clean up; after its last event this returns at once.
            let _ = thread.join();
        }
    }
}

/// What the SD card test's thread tells the main loop.
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

/// Starts the SD card test `opts` on a new thread named `agnostics-test`; its report is
/// recorded in the run history at `history` (the history's default path when `None`) on that
/// thread, after the test file is gone. The worker's cancel stops the engine: it stops
/// submitting, waits for the I/O in flight, removes its file and finishes with a report whose
/// error kind is `cancelled`.
///
/// Errors: the OS refused to create the thread (out of memory or thread limit).
pub fn spawn_test(opts: TestOptions, history: Option<PathBuf>) -> std::io::Result<Worker<Message>> {
    Worker::spawn("agnostics-test", CHANNEL_CAPACITY, move |events| {
        let report = sdtest::run(&opts, events.cancel_flag(), &|event| forward(events, event));
        // The history never costs a result: whatever it says, the report follows.
        let path = history.unwrap_or_else(history_store::default_path);
        let recorded = history_store::record(&path, &report);
        events.send(Message::Recorded(Box::new(recorded)));
        // The window may be gone already; then nobody needs the report.
        events.send(Message::Finished(Box::new(report)));
    })
}

/// Sends one engine event to the main loop (called on the worker thread).
fn forward(events: &Events<Message>, event: Event) {
    let lossy = matches!(event, Event::Progress { .. } | Event::Sample { .. });
    let message = Message::Event(event);
    if lossy {
        // A full channel means the window is behind: this figure is stale anyway.
        events.send_lossy(message);
    } else {
        // Nobody listening any more (the window went away) stops the test.
        events.send(message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events<E>(capacity: usize) -> (Events<E>, async_channel::Receiver<E>) {
        let (sender, receiver) = async_channel::bounded(capacity);
        let cancel = Arc::new(AtomicBool::new(false));
        (Events { sender, cancel }, receiver)
    }

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
        let (events, receiver) = events(2);
        for run in 0..10 {
            forward(&events, progress(run));
        }
        assert_eq!(receiver.len(), 2);
        assert!(!events.cancel_flag().load(Ordering::SeqCst));
    }

    #[test]
    fn a_closed_window_cancels_the_test() {
        let (events, receiver) = events(2);
        drop(receiver);
        forward(&events, Event::Warning("x".into()));
        assert!(events.cancel_flag().load(Ordering::SeqCst));
    }

    #[test]
    fn events_arrive_in_order_and_the_channel_closes_after_the_last() {
        let worker = Worker::spawn("agnostics-test-order", 1, |events| {
            for i in 0..100u32 {
                events.send(i);
            }
        })
        .unwrap();
        let receiver = worker.receiver();
        let got: Vec<u32> = std::iter::from_fn(|| receiver.recv_blocking().ok()).collect();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
        assert!(!worker.is_cancelled());
    }

    #[test]
    fn dropping_a_running_worker_cancels_its_job_and_waits_for_it() {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let worker = Worker::<()>::spawn("agnostics-test-drop", 1, move |events| {
            while !events.cancel_flag().load(Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            done_tx.send(()).unwrap();
        })
        .unwrap();
        drop(worker);
        // The job has ended by the time drop returns.
        assert!(done_rx.try_recv().is_ok());
    }

    #[test]
    fn a_refused_target_finishes_with_an_error_report() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let missing = dir.path().join("no such folder");
        let worker = spawn_test(
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
