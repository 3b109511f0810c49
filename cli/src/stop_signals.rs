//! SIGINT (Ctrl+C), SIGTERM and SIGHUP (a closed SSH session) while a command runs, watched on
//! a thread of its own: a signal that stops the command sets its cancel flag (the command then
//! stops the way it can: a test waits for the requests already sent and removes its file, a
//! capacity check puts back what it wrote, a script is ended), and the first such signal gives
//! the exit status, 128 + its number ([`ExitCode::Stopped`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use agnostics_core::exit_code::ExitCode;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::signals::{FirstSignal, StopSignal};
use signal_hook::iterator::Signals;

use crate::output::{emit, To};

/// The watch on the stop signals, from [`StopWatch::start`] to the process's end.
pub struct StopWatch {
    cancel: Arc<AtomicBool>,
    first: Arc<FirstSignal>,
}

impl StopWatch {
    /// Starts watching. For each signal, `stops` says whether it stops the command (and may
    /// tell the person what happens now, on stderr): when it does, the cancel flag is set and
    /// the first such signal kept. When the signals cannot be watched, a warning says why and
    /// the command runs without the watch.
    pub fn start(stops: impl Fn(StopSignal) -> bool + Send + 'static) -> StopWatch {
        let watch = StopWatch {
            cancel: Arc::new(AtomicBool::new(false)),
            first: Arc::new(FirstSignal::new()),
        };
        let mut signals = match Signals::new(agnostics_core::signals::numbers()) {
            Ok(s) => s,
            Err(e) => {
                let warning = fill(&gettext("warning: {error}"), &[("error", &e)]);
                emit(To::Stderr, format!("agnostics-cli: {warning}\n"));
                return watch;
            }
        };
        let first = Arc::clone(&watch.first);
        let cancel = Arc::clone(&watch.cancel);
        std::thread::spawn(move || {
            for number in signals.forever() {
                let Some(signal) = StopSignal::from_number(number) else {
                    continue;
                };
                if stops(signal) {
                    first.record(signal);
                    cancel.store(true, Ordering::SeqCst);
                }
            }
        });
        watch
    }

    /// The cancel flag a stop signal sets, for the command's engine to read.
    pub fn cancel(&self) -> &Arc<AtomicBool> {
        &self.cancel
    }

    /// [`ExitCode::Stopped`] by the first signal that stopped the command, if any.
    pub fn exit_code(&self) -> Option<ExitCode> {
        self.first.get().map(ExitCode::from)
    }
}
