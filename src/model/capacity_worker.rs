//! The capacity check on its own thread ([`spawn_check`]): the core's mounted-mode check
//! ([`capacity::check_mounted`]) with its events forwarded to the main loop, at most about
//! ten progress events a second, and a pause after the plan: the check has made its file and
//! knows what it will cost, and waits for the window's answer (**Check** or **Cancel**)
//! before it writes a single spot. A finished check is recorded in the history on this
//! thread, after its file is gone.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agnostics_core::capacity::{
    self, CapacityError, CapacityOptions, CapacityReport, Cost, Event, Phase,
};

use agnostics_core::i18n::{fill, gettext};

use crate::model::capacity_history;
use crate::model::worker::{Events, Worker};

/// Room in the check's channel, in messages.
pub const CHANNEL_CAPACITY: usize = 64;

/// The shortest time between two progress messages: about ten a second.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// Why a check gave no verdict, for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure, for the heading and the way out.
    pub kind: FailureKind,
    /// What happened and what to do, translated.
    pub message: String,
}

/// The kinds of failure the window tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The folder cannot be used (missing, memory, read-only, no space, …).
    Target,
    /// The filesystem cannot map the check's file to places on the card (vfat, btrfs, LVM).
    Unmappable,
    /// Not on a local drive.
    NoDrive,
    /// Another check or test uses the drive.
    Busy,
    /// An earlier, interrupted check could not be undone.
    Recovery,
    /// A read or write failed.
    Io,
    /// Stopped by **Cancel**; its file was removed.
    Cancelled,
}

impl From<&CapacityError> for Failure {
    fn from(error: &CapacityError) -> Failure {
        let kind = match error {
            CapacityError::Target(_) => FailureKind::Target,
            CapacityError::Unmappable { .. } => FailureKind::Unmappable,
            CapacityError::NoDrive { .. } => FailureKind::NoDrive,
            CapacityError::Busy { .. } => FailureKind::Busy,
            CapacityError::RecoveryFailed { .. }
            | CapacityError::RestoreFailed { .. }
            | CapacityError::RecoveryRefused { .. }
            | CapacityError::RecoveryUnreadable { .. } => FailureKind::Recovery,
            CapacityError::Cancelled => FailureKind::Cancelled,
            // Device mode's refusals never come from a mounted check; they read as I/O.
            CapacityError::Io { .. }
            | CapacityError::InUse { .. }
            | CapacityError::Partition { .. }
            | CapacityError::NotABlockDevice { .. }
            | CapacityError::NeedsRoot { .. } => FailureKind::Io,
        };
        let message = match error {
            CapacityError::Target(e) => {
                let advice = agnostics_core::sdtest::advice_for_target(e).text();
                format!("{} {advice}", sentence(&e.message()))
            }
            // The core says `--device`: here the way there is named for a person.
            CapacityError::Unmappable { path, fs_type } => fill(
                &gettext("{path} is on {fs_type}, where the check cannot tell which places on the card its file takes. Check a card formatted as ext4, as Raspberry Pi OS formats it. A whole card can also be checked unmounted, as root, with the command-line tool (agnostics-cli capacity --device)."),
                &[("path", &path.display()), ("fs_type", fs_type)],
            ),
            CapacityError::Io { .. } => fill(
                &gettext("{error}\n\nCheck that the card is still in its reader, and try again."),
                &[("error", &sentence(&error.message()))],
            ),
            other => sentence(&other.message()),
        };
        Failure { kind, message }
    }
}

/// What the check's thread tells the main loop.
#[derive(Debug, Clone)]
pub enum Message {
    /// The check's event (progress at most about ten a second). After
    /// [`Event::Planned`] the thread waits for the window's answer.
    Event(Event),
    /// The check is over and its file is gone: its report, or why there is none; the last
    /// message but for [`Message::Recorded`].
    Finished(Result<Box<CapacityReport>, Failure>),
    /// The finished check went to the history (`None`), or why not.
    Recorded(Option<String>),
}

/// The window's side of a running check: its events, its cancel and the answer to its plan.
#[derive(Debug)]
pub struct Running {
    /// The thread and its channel.
    pub worker: Worker<Message>,
    /// **Check** (true) or **Cancel** (false) after the plan.
    pub answer: mpsc::Sender<bool>,
}

/// Starts the mounted-mode check of the drive behind `target` on a thread named
/// `agnostics-capacity`; a report is recorded in the history at `history` (the default one
/// when `None`). The check pauses after [`Event::Planned`] until [`Running::answer`] says
/// go (true) or stop (false, or the sender dropped, or the worker cancelled).
///
/// Errors: the OS refused to create the thread.
pub fn spawn_check(
    target: PathBuf,
    opts: CapacityOptions,
    history: Option<PathBuf>,
) -> std::io::Result<Running> {
    let (answer, answers) = mpsc::channel::<bool>();
    let worker = Worker::spawn("agnostics-capacity", CHANNEL_CAPACITY, move |events| {
        let mut last_progress: Option<Instant> = None;
        let mut on_event = |event: Event| forward(events, &answers, &mut last_progress, event);
        let result = capacity::check_mounted(&target, &opts, &mut on_event, events.cancel_flag());
        let recorded = result.as_ref().ok().map(|report| {
            let path = history.unwrap_or_else(crate::model::history_store::default_path);
            capacity_history::record(&path, report)
        });
        let finished = result.map(Box::new).map_err(|e| Failure::from(&e));
        events.send(Message::Finished(finished));
        if let Some(recorded) = recorded {
            events.send(Message::Recorded(recorded.err()));
        }
    })?;
    Ok(Running { worker, answer })
}

/// Sends one event of the check to the main loop (on the check's thread): progress at most
/// every [`PROGRESS_INTERVAL`] (and the last step of a phase), dropped when the window is
/// behind; the plan, then waits for the answer.
fn forward(
    events: &Events<Message>,
    answers: &mpsc::Receiver<bool>,
    last_progress: &mut Option<Instant>,
    event: Event,
) {
    match event {
        Event::Progress { done, total, .. } => {
            let due = last_progress.is_none_or(|t| t.elapsed() >= PROGRESS_INTERVAL);
            if (due || done >= total) && events.send_lossy(Message::Event(event)) {
                *last_progress = Some(Instant::now());
            }
        }
        Event::Planned(_) => {
            if events.send(Message::Event(event)) && !wait_for_go(events, answers) {
                events.cancel_flag().store(true, Ordering::SeqCst);
            }
        }
        other => {
            events.send(Message::Event(other));
        }
    }
}

/// Waits for the window's answer to the plan: true for go; false for stop, a window gone or
/// a cancel.
fn wait_for_go(events: &Events<Message>, answers: &mpsc::Receiver<bool>) -> bool {
    loop {
        if events.cancel_flag().load(Ordering::SeqCst) {
            return false;
        }
        match answers.recv_timeout(Duration::from_millis(100)) {
            Ok(go) => return go,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return false,
        }
    }
}

/// The share of the whole check done when `phase` is at `done` of `total`: planning counts
/// nothing, writing and reading share the bar as the plan's estimate shares their time.
pub fn overall_fraction(cost: Option<&Cost>, phase: Phase, done: u64, total: u64) -> f64 {
    let within = if total == 0 {
        0.0
    } else {
        (done as f64 / total as f64).clamp(0.0, 1.0)
    };
    let writing = write_share(cost);
    match phase {
        Phase::Planning | Phase::Saving => 0.0,
        Phase::Writing => within * writing,
        Phase::Reading => writing + within * (1.0 - writing),
        Phase::Restoring => 1.0,
    }
}

/// The writes' share of the check's time, from the plan's estimate (writes at
/// [`capacity::WRITE_4K_SECONDS`] each); one half without a plan.
fn write_share(cost: Option<&Cost>) -> f64 {
    let Some(cost) = cost.filter(|c| c.estimated_seconds > 0.0) else {
        return 0.5;
    };
    let writes = f64::from(cost.spots) * capacity::WRITE_4K_SECONDS;
    (writes / cost.estimated_seconds).clamp(0.1, 0.9)
}

/// `text` with its first letter upper-case and a full stop at its end: the core's messages
/// are made to follow "Error: ".
fn sentence(text: &str) -> String {
    let mut chars = text.trim().chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return String::new(),
    };
    if !out.ends_with(['.', '!', '?', '…']) {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(spots: u32, seconds: f64) -> Cost {
        Cost {
            spots,
            base_spots: spots,
            bytes_written: u64::from(spots) * 4096,
            bytes_read: u64::from(spots) * 4096,
            estimated_seconds: seconds,
            coverage: 1.0,
        }
    }

    #[test]
    fn the_bar_moves_through_writing_then_reading() {
        // 500 writes at 4 ms are 2 s of a 4 s estimate: half the bar.
        let plan = cost(500, 4.0);
        assert_eq!(overall_fraction(Some(&plan), Phase::Planning, 0, 0), 0.0);
        assert_eq!(
            overall_fraction(Some(&plan), Phase::Writing, 250, 500),
            0.25
        );
        assert_eq!(overall_fraction(Some(&plan), Phase::Writing, 500, 500), 0.5);
        assert_eq!(
            overall_fraction(Some(&plan), Phase::Reading, 250, 500),
            0.75
        );
        assert_eq!(overall_fraction(Some(&plan), Phase::Reading, 500, 500), 1.0);
        assert_eq!(overall_fraction(None, Phase::Reading, 0, 0), 0.5);
    }

    #[test]
    fn messages_read_as_sentences() {
        assert_eq!(sentence("the check was stopped"), "The check was stopped.");
        assert_eq!(sentence("done."), "Done.");
        assert_eq!(sentence(""), "");
    }

    #[test]
    fn progress_is_sent_at_most_ten_times_a_second() {
        let worker = Worker::spawn("agnostics-capacity-rate", 1000, |events| {
            let (_answer, answers) = mpsc::channel();
            let mut last = None;
            for done in 1..=1000u64 {
                let event = Event::Progress {
                    phase: Phase::Writing,
                    done,
                    total: 1000,
                };
                forward(events, &answers, &mut last, event);
            }
        })
        .unwrap();
        let receiver = worker.receiver();
        let got: Vec<Message> = std::iter::from_fn(|| receiver.recv_blocking().ok()).collect();
        // Sent in well under a second: the first and the last.
        assert!(got.len() <= 3, "{} messages", got.len());
        assert!(matches!(
            got.last(),
            Some(Message::Event(Event::Progress { done: 1000, .. }))
        ));
    }

    #[test]
    fn the_check_waits_for_the_answer_to_its_plan() {
        let (answer, answers) = mpsc::channel();
        let worker = Worker::spawn("agnostics-capacity-plan", 4, move |events| {
            let mut last = None;
            forward(events, &answers, &mut last, Event::Planned(cost(10, 1.0)));
            let go = !events.cancel_flag().load(Ordering::SeqCst);
            events.send(Message::Recorded(go.then(String::new)));
        })
        .unwrap();
        let receiver = worker.receiver();
        assert!(matches!(
            receiver.recv_blocking(),
            Ok(Message::Event(Event::Planned(_)))
        ));
        answer.send(false).unwrap();
        assert!(matches!(
            receiver.recv_blocking(),
            Ok(Message::Recorded(None))
        ));
        assert!(
            worker.is_cancelled(),
            "Cancel after the plan stops the check"
        );
    }
}
