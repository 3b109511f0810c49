//! `agnostics-cli capacity`: is the card genuine? The capacity check in mounted mode (the
//! default, through the program's own file) or device mode (`--device`, the whole unmounted
//! device, after a y/N question or `--yes`), with the plan said before anything is written, a
//! progress bar on a terminal, the text or JSON report, the history, and the exit status of the
//! verdict: 0 genuine, 1 fake or loses data, 2 unsure, not checked far enough or an error,
//! 128 + the signal when SIGINT, SIGTERM or SIGHUP stopped it (everything written undone).

use std::io::{BufRead, IsTerminal};
use std::sync::atomic::AtomicBool;

use agnostics_core::capacity::{
    self, text, CapacityError, CapacityOptions, CapacityReport, Event, Mode, Phase,
};
use agnostics_core::exit_code::ExitCode;
use agnostics_core::history::History;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::target_dir;
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::CapacityArgs;
use crate::output::{emit, To};
use crate::stop_signals::StopWatch;

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
    let signals = watch_signals();
    let bar = Progress::new(std::io::stderr().is_terminal() && !args.json);
    let result = check(args, &opts, &bar, signals.cancel());
    bar.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            // What was put back before the check stopped is said here: no report says it.
            for r in bar.recovered.take() {
                emit(To::Stderr, format!("{}\n", text::recovered_text(&r)));
            }
            let code = fail(args, &e.message());
            return match (&e, signals.exit_code()) {
                (CapacityError::Cancelled, Some(signal)) => signal.code(),
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
    let printed = print(args, &report);
    if printed != 0 {
        return printed;
    }
    // A signal that came once every spot was read back (while the saved sectors were put
    // back) stopped nothing: the verdict stands and is printed, and the exit status still
    // says that the program was asked to stop, as the help promises.
    let code = match report.verdict.exit_code() {
        // Sectors left unrestored are no clean bill of health.
        ExitCode::Success if report.restore.as_ref().is_some_and(|r| r.failed > 0) => {
            ExitCode::NoVerdict
        }
        code => code,
    };
    signals.exit_code().unwrap_or(code).code()
}

/// The check `args` ask for, in device or mounted mode, its events shown by `bar`.
fn check(
    args: &CapacityArgs,
    opts: &CapacityOptions,
    bar: &Progress,
    cancel: &AtomicBool,
) -> Result<CapacityReport, CapacityError> {
    let mode = if args.device.is_some() {
        Mode::Device
    } else {
        Mode::Mounted
    };
    let mut on_event = |e: Event| bar.event(e, mode);
    match &args.device {
        Some(device) => capacity::check_device(device, opts, &mut on_event, cancel),
        None => {
            let target = args
                .target
                .clone()
                .unwrap_or_else(|| target_dir::default_target(&args.sysfs_root));
            capacity::check_mounted(&target, opts, &mut on_event, cancel)
        }
    }
}

/// Prints `report` on stdout, as JSON with `--json`; returns the exit status of printing (0, or
/// [`ExitCode::NoVerdict`]'s when the document could not be written).
fn print(args: &CapacityArgs, report: &CapacityReport) -> i32 {
    if args.json {
        match serde_json::to_string_pretty(report) {
            Ok(j) => emit(To::Stdout, format!("{j}\n")),
            Err(e) => {
                emit(To::Stderr, format!("agnostics-cli: {e}\n")).max(ExitCode::NoVerdict.code())
            }
        }
    } else {
        emit(
            To::Stdout,
            agnostics_core::report::terminal_safe(&text::to_text(report)),
        )
    }
}

/// Says `message` (an error) on stderr, and with `--json` as `{"error": {"message": …}}` on
/// stdout; returns [`ExitCode::NoVerdict`]'s status.
pub(crate) fn fail(args: &CapacityArgs, message: &str) -> i32 {
    emit(To::Stderr, format!("agnostics-cli: {message}\n"));
    if args.json {
        let doc = serde_json::json!({ "error": { "message": message } });
        emit(To::Stdout, format!("{doc}\n"));
    }
    ExitCode::NoVerdict.code()
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

/// Watches SIGINT, SIGTERM and SIGHUP: each stops the check, and says that it stops once what
/// it wrote is undone.
fn watch_signals() -> StopWatch {
    StopWatch::start(|_| {
        let stopping = gettext(
            "Stopping: undoing what the check wrote (its file is removed, or the saved \
             sectors put back) before exiting.",
        );
        emit(To::Stderr, format!("{stopping}\n"));
        true
    })
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
