//! The signals that stop a run, and the exit status they give: SIGINT (Ctrl+C), SIGTERM
//! (a service manager, `kill`) and SIGHUP (a closed SSH session or terminal). Each stops the
//! running test the way **Stop** does; the program then exits 128 + the signal's number
//! (130, 143, 129: [`crate::exit_code::ExitCode::Stopped`]), as shells report a program a
//! signal ended. The CLI's commands and the desktop app all use these.

use std::sync::atomic::{AtomicI32, Ordering};

/// A signal a run stops on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT, Ctrl+C in a terminal.
    Interrupt,
    /// SIGTERM, asked to end (`kill`, a service manager, a shutdown).
    Terminate,
    /// SIGHUP, the terminal went away (a closed SSH session).
    HangUp,
}

impl StopSignal {
    /// Every signal a run stops on, in the order their handlers are installed.
    pub const ALL: [StopSignal; 3] = [
        StopSignal::Interrupt,
        StopSignal::Terminate,
        StopSignal::HangUp,
    ];

    /// The signal's number (`libc::SIGINT`, …).
    pub fn number(self) -> i32 {
        match self {
            StopSignal::Interrupt => libc::SIGINT,
            StopSignal::Terminate => libc::SIGTERM,
            StopSignal::HangUp => libc::SIGHUP,
        }
    }

    /// The stop signal with the number `signal`, `None` for any other signal.
    pub fn from_number(signal: i32) -> Option<StopSignal> {
        StopSignal::ALL.into_iter().find(|s| s.number() == signal)
    }
}

/// The numbers of [`StopSignal::ALL`], for signal-handling libraries that take numbers.
pub fn numbers() -> [i32; 3] {
    StopSignal::ALL.map(StopSignal::number)
}

/// The first stop signal a process received: set from a signal handler or the thread that
/// watches signals (an atomic store, safe in a handler), read when the run is over.
#[derive(Debug, Default)]
pub struct FirstSignal(AtomicI32);

impl FirstSignal {
    /// Nothing received yet.
    pub const fn new() -> FirstSignal {
        FirstSignal(AtomicI32::new(0))
    }

    /// Records `signal` unless a signal was recorded before; true when it is the first.
    pub fn record(&self, signal: StopSignal) -> bool {
        self.0
            .compare_exchange(0, signal.number(), Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// The first signal recorded, if any.
    pub fn get(&self) -> Option<StopSignal> {
        StopSignal::from_number(self.0.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_signal_is_known_by_its_number() {
        assert_eq!(
            StopSignal::from_number(libc::SIGHUP),
            Some(StopSignal::HangUp)
        );
        assert_eq!(StopSignal::from_number(libc::SIGUSR1), None);
    }

    #[test]
    fn the_first_signal_is_kept() {
        let first = FirstSignal::new();
        assert_eq!(first.get(), None);
        assert!(first.record(StopSignal::HangUp));
        assert!(!first.record(StopSignal::Interrupt));
        assert_eq!(first.get(), Some(StopSignal::HangUp));
    }
}
