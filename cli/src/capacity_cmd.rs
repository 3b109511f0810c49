//! `agnostics-cli capacity`: is the card genuine? The capacity check in mounted mode (the
//! default, through the program's own file) or device mode (`--device`, the whole unmounted
//! device, after a y/N question or `--yes`), with the plan said before anything is written, a
//! progress bar on a terminal, the text or JSON report, the history, and the exit status of the
//! verdict: 0 genuine, 1 fake or loses data, 2 unsure, not checked far enough or an error,
//! 128 + the signal when SIGINT, SIGTERM or SIGHUP stopped it (everything written undone).

use std::io::{BufRead, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use agnostics_core::capacity::{
    self, text, CapacityError, CapacityOptions, CapacityReport, CapacityVerdict, Event, Mode, Phase,
};
use agnostics_core::history::History;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::signals::{FirstSignal, StopSignal};
use agnostics_core::target_dir;
use indicatif::{ProgressBar, ProgressStyle};
use signal_hook::iterator::Signals;

use crate::args::CapacityArgs;
use crate::output::{emit, To};

/// Exit status of a genuine drive.
pub const GENUINE: i32 = 0;
/// Exit status of a fake drive or one that loses data.
pub const BAD: i32 = 1;
/// Exit status of an unsure check, one that could not reach far enough, or an error.
pub const NO_VERDICT: i32 = 2;

/// The exit status of `verdict`.
fn exit_code(verdict: CapacityVerdict) -> i32 {
    match verdict {
        CapacityVerdict::Genuine => GENUINE,
        CapacityVerdict::Fake | CapacityVerdict::LosesData => BAD,
        CapacityVerdict::NotCheckedBeyond | CapacityVerdict::Unsure => NO_VERDICT,
    }
}

/// Runs the subcommand; returns the exit status.
/// (`--forget-recovery` is [`crate::capacity_forget`]'s.)
pub fn main(args: &CapacityArgs) -> i32 {
    let opts = CapacityOptions {
        spots: args.spots,
        sysfs_root: args.sysfs_root.clone(),
        ..CapacityOptions::default()
    };
    if let Some(device) = &args.device {
        if !args.yes && !confirmed(device) {
            return fail(
                args,
                &fill(
                    &gettext(
                        "not checking {device}: device mode writes to the raw device (every \
                         sector is saved first and put back); add --yes to go ahead",
                    ),
                    &[("device", &device.display())],
                ),
            );
        }
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let first = watch_signals(Arc::clone(&cancel));
    let bar = Progress::new(std::io::stderr().is_terminal() && !args.json);
    let mode = if args.device.is_some() {
        Mode::Device
    } else {
        Mode::Mounted
    };
    let mut on_event = |e: Event| bar.event(e, mode);
    let result = match &args.device {
        Some(device) => capacity::check_device(device, &opts, &mut on_event, &cancel),
        None => {
            let target = args
                .target
                .clone()
                .unwrap_or_else(|| target_dir::default_target(&args.sysfs_root));
            capacity::check_mounted(&target, &opts, &mut on_event, &cancel)
        }
    };
    bar.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            // What was put back before the check stopped is said here: no report says it.
            for r in bar.recovered.take() {
                emit(To::Stderr, format!("{}\n", text::recovered_text(&r)));
            }
            let code = fail(args, &e.message());
            return match (&e, first.exit_code()) {
                (CapacityError::Cancelled, Some(signal)) => signal,
                _ => code,
            };
        }
    };
    if args.json {
        // The document holds them as data; the person reading stderr is told once.
        for r in bar.recovered.take() {
            emit(To::Stderr, format!("{}\n", text::recovered_text(&r)));
        }
    }
    if !args.no_history {
        record(&report);
    }
    let printed = if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(j) => emit(To::Stdout, format!("{j}\n")),
            Err(e) => emit(To::Stderr, format!("agnostics-cli: {e}\n")).max(NO_VERDICT),
        }
    } else {
        emit(
            To::Stdout,
            agnostics_core::report::terminal_safe(&text::to_text(&report)),
        )
    };
    if printed != 0 {
        return printed;
    }
    // A signal that came once every spot was read back (while the saved sectors were put
    // back) stopped nothing: the verdict stands and is printed, and the exit status still
    // says that the program was asked to stop, as the help promises.
    let code = match exit_code(report.verdict) {
        // Sectors left unrestored are no clean bill of health.
        GENUINE if report.restore.as_ref().is_some_and(|r| r.failed > 0) => NO_VERDICT,
        code => code,
    };
    first.exit_code().unwrap_or(code)
}

/// Says `message` (an error) on stderr, and with `--json` as `{"error": {"message": …}}` on
/// stdout; returns [`NO_VERDICT`].
pub(crate) fn fail(args: &CapacityArgs, message: &str) -> i32 {
    emit(To::Stderr, format!("agnostics-cli: {message}\n"));
    if args.json {
        let doc = serde_json::json!({ "error": { "message": message } });
        emit(To::Stdout, format!("{doc}\n"));
    }
    NO_VERDICT
}

/// Asks on the terminal whether to write to `device`; false when stdin is not a terminal or
/// the answer is not yes.
fn confirmed(device: &std::path::Path) -> bool {
    let question = fill(
        &gettext(
            "Check {device}? The data at every spot is saved to a recovery file, overwritten \
             with test data, and put back. [y/N] ",
        ),
        &[("device", &device.display())],
    );
    ask(&question)
}

/// Asks `question` on the terminal; true for a yes. False when stdin is not a terminal.
pub(crate) fn ask(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    emit(To::Stderr, question);
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    let answer = answer.trim().to_lowercase();
    // Translators: the answers that mean yes to a [y/N] question, separated by |.
    let yes = gettext("y|yes");
    answer == "y" || answer == "yes" || yes.split('|').any(|y| y == answer)
}

/// Stores `report` in the history; a history that cannot be written costs a warning.
fn record(report: &CapacityReport) {
    let stored =
        History::open(&History::default_path()).and_then(|mut h| h.record_capacity(report));
    if let Err(e) = stored {
        let warning = fill(&gettext("warning: {error}"), &[("error", &e.warning())]);
        emit(To::Stderr, format!("agnostics-cli: {warning}\n"));
    }
}

/// Sets `cancel` on the first SIGINT, SIGTERM or SIGHUP, and says that the check stops once
/// what it wrote is undone. Returns the first signal received.
fn watch_signals(cancel: Arc<AtomicBool>) -> Arc<FirstSignal> {
    let first = Arc::new(FirstSignal::new());
    let Ok(mut signals) = Signals::new(agnostics_core::signals::numbers()) else {
        return first;
    };
    let seen = Arc::clone(&first);
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if let Some(signal) = StopSignal::from_number(signal) {
                seen.record(signal);
            }
            cancel.store(true, Ordering::SeqCst);
            let stopping = gettext(
                "Stopping: undoing what the check wrote (its file is removed, or the saved \
                 sectors put back) before exiting.",
            );
            emit(To::Stderr, format!("{stopping}\n"));
        }
    });
    first
}

/// The progress bar on stderr (a terminal only); the plan and notes are said on stderr in any
/// case. Recovery files put back are kept to be said once: the report says them, or, when the
/// check stops with an error, the command does.
struct Progress {
    bar: Option<ProgressBar>,
    recovered: std::cell::RefCell<Vec<capacity::Recovered>>,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        let bar = enabled.then(|| {
            let bar = ProgressBar::new(1);
            bar.set_style(
                ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            recovered: std::cell::RefCell::new(Vec::new()),
        }
    }

    fn say(&self, line: String) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                emit(To::Stderr, format!("{line}\n"));
            }
        }
    }

    fn event(&self, event: Event, mode: Mode) {
        match event {
            Event::Planned(cost) => self.say(text::plan_text(&cost, mode)),
            Event::Recovered(r) => self.recovered.borrow_mut().push(r),
            Event::Note(note) => self.say(note),
            Event::Phase { phase, total } => {
                if let Some(bar) = &self.bar {
                    bar.set_prefix(phase_name(phase));
                    bar.set_length(total.max(1));
                    bar.set_position(0);
                }
            }
            Event::Progress { done, total, .. } => {
                if let Some(bar) = &self.bar {
                    bar.set_length(total.max(1));
                    bar.set_position(done);
                }
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn phase_name(phase: Phase) -> String {
    match phase {
        Phase::Planning => gettext("Planning"),
        Phase::Saving => gettext("Saving"),
        Phase::Writing => gettext("Writing"),
        Phase::Reading => gettext("Reading"),
        Phase::Restoring => gettext("Restoring"),
    }
}
