//! Telling that this process was stopped while it measured: SIGSTOP, Ctrl+Z (SIGTSTP), a
//! debugger, or the machine suspended. A stopped process has not measured the drive: the
//! seconds it was stopped count in a phase's time but no request was in flight, so its
//! figure is too low (a paused random-write phase graded FAIL at a fifth of its speed).
//!
//! [`PauseWatch`] runs a thread that wakes every [`TICK`]; when it wakes [`GAP`] or more after
//! its last tick (CLOCK_MONOTONIC: wall-clock changes do not count), the whole gap is time the
//! process was stopped. A busy machine delays a 100 ms sleep by milliseconds, never by
//! seconds.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the watch thread wakes: 100 ms.
pub const TICK: Duration = Duration::from_millis(100);

/// A step between two ticks this long or longer was a stop, not a late wake-up: 5 s.
pub const GAP: Duration = Duration::from_secs(5);

#[derive(Debug)]
struct Shared {
    /// Milliseconds the process was found stopped, in total.
    stopped_ms: AtomicU64,
    /// The last tick.
    last: Mutex<Instant>,
    quit: AtomicBool,
}

impl Shared {
    /// Counts the time since the last tick when it is a stop, and starts the next step.
    fn tick(&self) {
        let now = Instant::now();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let step = now.saturating_duration_since(*last);
        if step >= GAP {
            let ms = u64::try_from(step.as_millis()).unwrap_or(u64::MAX);
            self.stopped_ms.fetch_add(ms, Ordering::SeqCst);
        }
        *last = now;
    }
}

/// A running watch for stops of this process; the thread ends when it is dropped.
#[derive(Debug)]
pub struct PauseWatch {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PauseWatch {
    /// Starts the watch thread (named `agnostics-pause`). Where a thread cannot be started,
    /// the watch still counts the stops seen at each [`PauseWatch::stopped`] call.
    pub fn start() -> PauseWatch {
        let shared = Arc::new(Shared {
            stopped_ms: AtomicU64::new(0),
            last: Mutex::new(Instant::now()),
            quit: AtomicBool::new(false),
        });
        let for_thread = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("agnostics-pause".into())
            .spawn(move || {
                while !for_thread.quit.load(Ordering::SeqCst) {
                    std::thread::sleep(TICK);
                    for_thread.tick();
                }
            })
            .ok();
        PauseWatch { shared, thread }
    }

    /// The time this process was found stopped since the watch started, whole milliseconds
    /// (a stop that has just ended counts already: the call ticks too).
    pub fn stopped(&self) -> Duration {
        self.shared.tick();
        Duration::from_millis(self.shared.stopped_ms.load(Ordering::SeqCst))
    }
}

impl Drop for PauseWatch {
    fn drop(&mut self) {
        self.shared.quit.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_stop_counts_nothing() {
        let w = PauseWatch::start();
        std::thread::sleep(TICK * 3);
        assert_eq!(w.stopped(), Duration::ZERO);
    }

    #[test]
    fn a_step_past_the_gap_counts_whole() {
        let w = PauseWatch::start();
        // As if the process had been stopped for 7 s before this tick.
        *w.shared.last.lock().unwrap() = Instant::now() - Duration::from_secs(7);
        let stopped = w.stopped();
        assert!(stopped >= Duration::from_secs(7), "{stopped:?}");
        assert!(stopped < Duration::from_secs(8), "{stopped:?}");
    }
}
