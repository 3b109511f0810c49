//! `agnostics-cli scripts`: upstream agnostics' test scripts without the window (docs/design.md,
//! "Upstream's script protocol").
//!
//! Finds the `*.sh` tests (each `--dir`, then `agnostics/` under `$XDG_DATA_DIRS`), runs them
//! in name order and writes `~/rpdiags.txt` like upstream's **Run Tests**. Text mode echoes
//! each script's output as it comes (the same bytes the log gets) and its verdict with a short
//! reason; `--json` prints one [`ScriptsReport`] instead. Files that are not tests are named on
//! stderr with the reason. `--list` runs nothing.
//!
//! Exit status: 0 when every test passed (or there was none), 1 when any failed, timed out or
//! was aborted, 2 on an error (a `--dir` that is not a folder, the log cannot be written, the
//! shell cannot be started), 128 + the signal after SIGINT, SIGTERM or SIGHUP (130, 143, 129:
//! the running test is aborted, the rest do not run).

use std::cell::Cell;
use std::sync::Mutex;
use std::time::Duration;

use agnostics_core::exit_code::ExitCode;
use agnostics_core::i18n::{fill, gettext, ngettext};
use agnostics_core::scripts::{
    discover, log_path, run_all, script_dirs, Discovery, LogWriter, RunOptions, ScriptEvent,
    ScriptResult, ScriptsReport,
};

use crate::args::ScriptsArgs;
use crate::output::{emit, To};
use crate::stop_signals::StopWatch;

/// Runs the subcommand; returns the exit status (see the module documentation).
pub fn main(args: &ScriptsArgs) -> i32 {
    let mut report = ScriptsReport::default();
    for dir in &args.dirs {
        if !dir.is_dir() {
            let message = fill(
                &gettext("{dir} is not a folder"),
                &[("dir", &dir.display())],
            );
            return error(args, &report, &message);
        }
    }
    let found = discover(&script_dirs(&args.dirs));
    report.skipped = found.skipped.clone();
    note_skipped(&found);

    if args.list {
        return list(args, &found);
    }
    if found.tests.is_empty() {
        return nothing_to_run(args, &report);
    }

    let log_path = match log_path() {
        Ok(p) => p,
        Err(e) => return error(args, &report, &e.to_string()),
    };
    let mut log = match LogWriter::create(&log_path) {
        Ok(log) => log,
        Err(e) => return error(args, &report, &e.to_string()),
    };

    let signals = StopWatch::start(|_| true);
    let opts = RunOptions {
        timeout: Duration::from_secs(args.timeout),
        ..RunOptions::default()
    };
    let results = Mutex::new(Vec::new());
    let echo = Echo::new(!args.json);
    let on_event = |event: ScriptEvent| {
        if let ScriptEvent::Finished { result, .. } = &event {
            if let Ok(mut r) = results.lock() {
                r.push(result.clone());
            }
        }
        echo.event(&event);
    };
    let outcome = run_all(&found.tests, &opts, &mut log, signals.cancel(), &on_event);
    report.tests = results.into_inner().unwrap_or_default();
    report.log = Some(log.path().to_path_buf());
    let finished = log.finish();

    let failure = match (outcome, finished) {
        (Err(e), _) | (Ok(_), Err(e)) => Some(e.to_string()),
        _ => None,
    };
    if let Some(message) = failure {
        return error(args, &report, &message);
    }
    let code = exit_code(&signals, &report.tests);
    if args.json {
        return print_json(&report, code);
    }
    summary(&report.tests, found.tests.len());
    if let Some(path) = &report.log {
        emit(
            To::Stdout,
            format!(
                "{}\n",
                fill(&gettext("Log: {path}"), &[("path", &path.display())])
            ),
        );
    }
    code
}

/// No test found: the empty report, or a line that says so and where the SD card test is.
fn nothing_to_run(args: &ScriptsArgs, report: &ScriptsReport) -> i32 {
    if args.json {
        return print_json(report, 0);
    }
    emit(
        To::Stdout,
        format!(
            "{}\n",
            gettext(
                "No test scripts found; nothing to run. (The SD card test is “agnostics-cli run”.)"
            )
        ),
    );
    ExitCode::Success.code()
}

/// The exit status of the tests run: stopped by the first stop signal (SIGINT, SIGTERM,
/// SIGHUP: each sets the cancel flag, aborting the running test), else 0 when every test
/// passed and 1 when not.
fn exit_code(signals: &StopWatch, tests: &[ScriptResult]) -> i32 {
    signals
        .exit_code()
        .unwrap_or_else(|| ExitCode::passed_if(tests.iter().all(|t| t.verdict.passed())))
        .code()
}

/// `--list`: the tests found, run nothing.
fn list(args: &ScriptsArgs, found: &Discovery) -> i32 {
    if args.json {
        #[derive(serde::Serialize)]
        struct Listing<'a> {
            tests: &'a [agnostics_core::scripts::ScriptTest],
            skipped: &'a [agnostics_core::scripts::Skipped],
        }
        let listing = Listing {
            tests: &found.tests,
            skipped: &found.skipped,
        };
        return match serde_json::to_string_pretty(&listing) {
            Ok(text) => emit(To::Stdout, format!("{text}\n")),
            Err(e) => {
                emit(To::Stderr, format!("agnostics-cli: {e}\n"));
                ExitCode::NoVerdict.code()
            }
        };
    }
    if found.tests.is_empty() {
        emit(
            To::Stdout,
            format!("{}\n", gettext("No test scripts found.")),
        );
    }
    for test in &found.tests {
        emit(To::Stdout, format!("{}\n", test.name));
        for line in test.description.lines() {
            emit(To::Stdout, format!("    {line}\n"));
        }
        emit(To::Stdout, format!("    {}\n", test.file.display()));
    }
    ExitCode::Success.code()
}

/// Names each file that is not listed, with the reason, on stderr.
fn note_skipped(found: &Discovery) {
    for skipped in &found.skipped {
        emit(
            To::Stderr,
            format!(
                "agnostics-cli: {}\n",
                fill(
                    // Translators: a *.sh file that is not listed as a test, and why.
                    &gettext("not listing {file}: {reason}"),
                    &[
                        ("file", &skipped.file.display()),
                        ("reason", &skipped.message())
                    ],
                )
            ),
        );
    }
}

/// Reports an error (stderr; in JSON mode also the document with its `error`) and returns 2.
fn error(args: &ScriptsArgs, report: &ScriptsReport, message: &str) -> i32 {
    emit(To::Stderr, format!("agnostics-cli: {message}\n"));
    if args.json {
        let mut report = report.clone();
        report.error = Some(message.to_owned());
        return print_json(&report, ExitCode::NoVerdict.code());
    }
    ExitCode::NoVerdict.code()
}

/// Prints the report as JSON and returns `code` (2 if it cannot be serialised).
fn print_json(report: &ScriptsReport, code: i32) -> i32 {
    match serde_json::to_string_pretty(report) {
        Ok(text) => match emit(To::Stdout, format!("{text}\n")) {
            0 => code,
            failed => failed,
        },
        Err(e) => {
            emit(To::Stderr, format!("agnostics-cli: {e}\n"));
            ExitCode::NoVerdict.code()
        }
    }
}

/// "N of M tests passed." and which did not run after a cancel.
fn summary(results: &[ScriptResult], listed: usize) {
    let passed = results.iter().filter(|r| r.verdict.passed()).count();
    emit(
        To::Stdout,
        format!(
            "{}\n",
            fill(
                &ngettext(
                    "{passed} of {total} test passed.",
                    "{passed} of {total} tests passed.",
                    results.len() as u32
                ),
                &[("passed", &passed), ("total", &results.len())],
            )
        ),
    );
    if results.len() < listed {
        let skipped = listed - results.len();
        emit(
            To::Stdout,
            format!(
                "{}\n",
                fill(
                    &ngettext(
                        "{count} test did not run.",
                        "{count} tests did not run.",
                        skipped as u32
                    ),
                    &[("count", &skipped)],
                )
            ),
        );
    }
}

/// Text mode's live view: each test's name, its output as it comes, its verdict.
struct Echo {
    enabled: bool,
    at_line_start: Cell<bool>,
}

impl Echo {
    fn new(enabled: bool) -> Echo {
        Echo {
            enabled,
            at_line_start: Cell::new(true),
        }
    }

    fn event(&self, event: &ScriptEvent) {
        if !self.enabled {
            return;
        }
        match event {
            ScriptEvent::Started { name, .. } => {
                let title = fill(&gettext("Test: {name}"), &[("name", name)]);
                emit(To::Stdout, format!("== {title} ==\n"));
                self.at_line_start.set(true);
            }
            ScriptEvent::Output { chunk, .. } => {
                // The script's bytes as they are: its output need not be UTF-8.
                emit(To::Stdout, chunk);
                if let Some(&last) = chunk.last() {
                    self.at_line_start.set(last == b'\n');
                }
            }
            ScriptEvent::Stopping { .. } => {}
            ScriptEvent::Finished { result, .. } => {
                let reason = result.reason();
                let line = if reason.is_empty() {
                    fill(
                        &gettext("{name}: {verdict}"),
                        &[("name", &result.name), ("verdict", &result.verdict)],
                    )
                } else {
                    fill(
                        &gettext("{name}: {verdict} ({reason})"),
                        &[
                            ("name", &result.name),
                            ("verdict", &result.verdict),
                            ("reason", &reason),
                        ],
                    )
                };
                let start = if self.at_line_start.get() { "" } else { "\n" };
                emit(To::Stdout, format!("{start}{line}\n\n"));
                self.at_line_start.set(true);
            }
        }
    }
}
