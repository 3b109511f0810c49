//! `agnostics-cli run`: the standard test or `--profile NAME|FILE`, with a progress bar on a
//! terminal, the text report (upstream's compat lines first for a graded run), `--json` or
//! `--markdown`, and the exit status of the verdict (0 for a profile that only measures, when
//! every job was measured). Each run is recorded in the history (unless `--no-history`), and
//! the text and JSON say how it compares with the drive's earlier runs of the same profile; a
//! history that cannot be written costs one warning, never the result or the exit status.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use agnostics_core::advice::Advice;
use agnostics_core::engine::{run_line, EngineKind, Event};
use agnostics_core::exit_code::ExitCode;
use agnostics_core::figure::nearest_text;
use agnostics_core::headline::{headline, CapacityKnown, Speed};
use agnostics_core::history::trend::{self, Trend};
use agnostics_core::history::{History, HistoryError};
use agnostics_core::i18n::{fill, gettext, ngettext};
use agnostics_core::profile::Profile;
use agnostics_core::report::{self, ErrorKind};
use agnostics_core::scripts;
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_core::target_dir;
use agnostics_core::units::mb_per_s;
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::{EngineArg, RunArgs};
use crate::output::{emit, To};
use crate::stop_signals::StopWatch;

/// Runs the subcommand; returns the exit status: the report's ([`Report::exit_code`]), 128 +
/// the signal when one stopped the test, 2 when the report could not be printed or the
/// profile was refused.
///
/// [`Report::exit_code`]: agnostics_core::report::Report::exit_code
pub fn main(args: &RunArgs) -> i32 {
    let engine = match args.engine {
        EngineArg::Native => EngineKind::Native,
        EngineArg::Fio => EngineKind::Fio,
    };
    let profile = match &args.profile {
        Some(path) => match Profile::by_name_or_path(path) {
            Ok(p) => p,
            Err(e) => return refuse_profile(args, engine, path, &e),
        },
        None => Profile::sd_bench(),
    };
    let target_dir = args
        .target
        .clone()
        .unwrap_or_else(|| target_dir::default_target(&args.sysfs_root));
    let opts = TestOptions {
        target: target_dir,
        profile,
        engine,
        runs: args.runs,
        sysfs_root: args.sysfs_root.clone(),
        lock_dir: agnostics_core::drive_lock::default_dir(),
    };

    // Told before the test starts, in the app's words: both tests would go ungraded.
    let drives = sdtest::drives(&opts);
    if let Some(busy) = agnostics_core::drive_lock::busy(&opts.lock_dir, &drives) {
        let warning = fill(&gettext("warning: {error}"), &[("error", &busy.text())]);
        emit(To::Stderr, format!("agnostics-cli: {warning}\n"));
    }

    announce(args, &opts);
    let over = Arc::new(AtomicBool::new(false));
    let signals = watch_signals(Arc::clone(&over));

    let bar = Progress::new(std::io::stderr().is_terminal() && !args.json && !args.markdown);
    let on_event = |event: Event| bar.event(event);
    let report = sdtest::run(&opts, signals.cancel(), &on_event);
    // The test has ended (its file removed): a signal from now on changes nothing, and says
    // so, while the result is stored and printed.
    over.store(true, Ordering::SeqCst);
    bar.finish();

    let recorded = if args.no_history {
        Recorded::Skipped
    } else {
        record(&report)
    };
    let code = print_report(args, &report, &recorded);
    log_report(args, &report);
    if let Some(warning) = recorded.warning() {
        let warning = fill(&gettext("warning: {error}"), &[("error", &warning)]);
        emit(To::Stderr, format!("agnostics-cli: {warning}\n"));
    }
    if code != 0 {
        return code;
    }
    let cancelled = report.error.as_ref().is_some_and(|e| e.is_cancelled());
    match signals.exit_code() {
        Some(code) if cancelled => code.code(),
        _ => report.exit_code(),
    }
}

/// Before the sustained write test: the most it writes and about how long it takes (on
/// stdout with the text report, on stderr with `--json` or `--markdown`). With fio, which
/// writes the whole plan, the words say so instead of that it stops early.
fn announce(args: &RunArgs, opts: &TestOptions) {
    if !agnostics_core::sustained::is_sustained(&opts.profile) {
        return;
    }
    if let Some(plan) = agnostics_core::sustained::plan_for(&opts.target, &opts.sysfs_root) {
        let to = if args.json || args.markdown {
            To::Stderr
        } else {
            To::Stdout
        };
        let words = match opts.engine {
            EngineKind::Native => plan.announce(),
            EngineKind::Fio => plan.announce_whole(),
        };
        emit(to, format!("{words}\n"));
    }
}

/// The sustained write test's lines after the text report, when the run was one.
fn sustained_text(report: &report::Report) -> String {
    let Some(result) = report.runs.last().and_then(|r| r.sustained.as_deref()) else {
        return String::new();
    };
    let mut out = String::from("\n");
    for line in agnostics_core::sustained::text::lines(result, report.sd_graded) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// What recording the run in the history gave.
enum Recorded {
    /// `--no-history`.
    Skipped,
    /// Stored (or not a run the history keeps, such as a refused one); the trend against the
    /// drive's earlier runs of the same profile, when there are some, a warning when the
    /// store had to be started afresh (a damaged file moved aside), and what the drive's
    /// capacity checks in the history say of it.
    Stored(Option<Trend>, Option<String>, CapacityKnown),
    /// The store failed (locked, read-only, full, corrupt): the one warning to print. The run
    /// is still reported, logged and ends with its own exit status.
    Failed(String),
}

impl Recorded {
    fn trend(&self) -> Option<&Trend> {
        match self {
            Recorded::Stored(t, _, _) => t.as_ref(),
            Recorded::Skipped | Recorded::Failed(_) => None,
        }
    }

    /// What the history's capacity checks say of the drive (nothing when it was not read).
    fn capacity(&self) -> CapacityKnown {
        match self {
            Recorded::Stored(_, _, c) => *c,
            Recorded::Skipped | Recorded::Failed(_) => CapacityKnown::default(),
        }
    }

    fn warning(&self) -> Option<&str> {
        match self {
            Recorded::Stored(_, w, _) => w.as_deref(),
            Recorded::Failed(w) => Some(w),
            Recorded::Skipped => None,
        }
    }
}

/// Records `report` in the history file ([`History::default_path`]) and reads what the
/// drive's capacity checks there say (nothing, when that cannot be read: the run still counts).
fn record(report: &report::Report) -> Recorded {
    let path = History::default_path();
    let mut history = match History::open(&path) {
        Ok(h) => h,
        Err(e) => return Recorded::Failed(e.warning()),
    };
    let moved = history.moved_aside().map(|e| e.warning());
    let capacity = report
        .drive
        .as_ref()
        .and_then(|d| CapacityKnown::of(&history, &d.id).ok())
        .unwrap_or_default();
    match history.record(report) {
        Ok(r) => Recorded::Stored(r.trend, moved, capacity),
        Err(HistoryError::NotHistory(_)) => Recorded::Stored(None, moved, capacity),
        Err(e) => Recorded::Failed(e.warning()),
    }
}

/// The text that leads the report: when the history holds a capacity check of the drive, the
/// one headline weighing the check with this run's verdict, and what to do when the check
/// outranks the speed; then, for a sustained write test, its one-sentence headline (as the
/// app leads its result with). Empty when there is neither.
fn headline_text(report: &report::Report, capacity: CapacityKnown) -> String {
    let mut out = String::new();
    if capacity.checked() {
        let h = headline(capacity, Some(Speed::of(report)));
        out.push_str(&format!("{}\n", h.title()));
        if let Some(action) = h.action() {
            out.push_str(&format!("{action}\n"));
        }
    }
    if let Some(result) = report.runs.last().and_then(|r| r.sustained.as_deref()) {
        let line = agnostics_core::sustained::text::headline(result, report.sd_graded);
        out.push_str(&format!("{line}\n"));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The JSON document of a run: the report with a top-level `trend` (null when the history has
/// no earlier run of this drive and profile, or was not used).
fn document(report: &report::Report, trend: Option<&Trend>) -> serde_json::Result<String> {
    let mut doc = serde_json::to_value(report)?;
    if let serde_json::Value::Object(map) = &mut doc {
        map.insert("trend".to_owned(), serde_json::to_value(trend)?);
    }
    serde_json::to_string_pretty(&doc)
}

/// The text that follows the report when the drive has earlier runs of the profile: a line
/// per figure (how it compares with them), and after a marked decline, what to do.
fn trend_text(t: &Trend) -> String {
    let mut out = String::from("\n");
    out.push_str(&ngettext(
        "Compared with this drive's earlier run of this profile:",
        "Compared with this drive's earlier runs of this profile:",
        t.earlier_runs,
    ));
    out.push('\n');
    for f in &t.figures {
        out.push_str(&format!("  {}\n", trend::describe(f)));
    }
    let advice = trend::decline_advice(t);
    if !advice.is_empty() {
        out.push('\n');
        out.push_str(&gettext("What to do:"));
        out.push('\n');
        for a in advice {
            out.push_str(&format!("- {a}\n"));
        }
    }
    out
}

/// Prints the report: the JSON document (with `trend`), the Markdown, or the text (led by the
/// drive's headline when a capacity check ran on it, followed by the trend) with the error and
/// its hint on stderr.
/// Returns 0, or the status of a failed print (a closed or full stdout must not lose the log
/// or the exit status, and never panics).
fn print_report(args: &RunArgs, report: &report::Report, recorded: &Recorded) -> i32 {
    let trend = recorded.trend();
    if args.json {
        match document(report, trend) {
            Ok(text) => emit(To::Stdout, format!("{text}\n")),
            Err(e) => {
                emit(To::Stderr, format!("agnostics-cli: {e}\n"));
                ExitCode::NoVerdict.code()
            }
        }
    } else {
        let text = if args.markdown {
            report::table::to_markdown(report)
        } else {
            let mut text = headline_text(report, recorded.capacity());
            text.push_str(&if args.verbose {
                report::to_text_verbose(report)
            } else {
                report::to_text(report)
            });
            text.push_str(&sustained_text(report));
            if let Some(t) = trend {
                text.push_str(&trend_text(t));
            }
            text
        };
        let code = emit(To::Stdout, text);
        if let Some(e) = &report.error {
            emit(
                To::Stderr,
                format!("agnostics-cli: {} — {}\n", e.message, e.hint),
            );
        }
        code
    }
}

/// Like upstream, the SD card test's results go to ~/rpdiags.txt too: says where (in text
/// mode), or warns that it could not.
fn log_report(args: &RunArgs, report: &report::Report) {
    match write_log(report) {
        Ok(path) if !args.json => {
            let log = fill(&gettext("Log: {path}"), &[("path", &path.display())]);
            emit(To::Stderr, format!("{log}\n"));
        }
        Ok(_) => {}
        Err(e) => {
            let warning = fill(&gettext("warning: {error}"), &[("error", &e)]);
            emit(To::Stderr, format!("agnostics-cli: {warning}\n"));
        }
    }
}

/// Reports a profile that cannot be loaded: with `--json`, the refused run's report (every field
/// of a measured one, error kind `profile`); always the message on stderr. Returns the exit
/// status, 2. Nothing ran, so the log is left as it was.
fn refuse_profile(
    args: &RunArgs,
    engine: EngineKind,
    path: &std::path::Path,
    e: &agnostics_core::profile::ProfileError,
) -> i32 {
    let message = fill(&gettext("invalid profile: {error}"), &[("error", e)]);
    if args.json {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let profile = report::ProfileInfo::new(name, Some(path.display().to_string()), 0);
        let advice = Advice::FixTheProfile;
        let error = report::ErrorReport::new(ErrorKind::Profile, message.clone(), advice.text());
        let refused = report::Report::refused(engine, profile, error, advice);
        match document(&refused, None) {
            Ok(text) => emit(To::Stdout, format!("{text}\n")),
            Err(e) => emit(To::Stderr, format!("agnostics-cli: {e}\n")),
        };
    }
    emit(To::Stderr, format!("agnostics-cli: {message}\n"));
    ExitCode::NoVerdict.code()
}

/// What SIGINT, SIGTERM and SIGHUP (a closed SSH session) do during a run: the first sets the
/// cancel flag; the test then stops submitting, waits for the requests already sent to the
/// drive, removes its file and exits 128 + the signal (130 for SIGINT, 129 for SIGHUP). Each
/// signal says on stderr why the program is still waiting: on a slow card the requests in
/// flight (up to iodepth × bs, 128 MiB for the standard test) can take a minute, and neither
/// the program nor the kernel can abandon an O_DIRECT write already sent. A signal once the
/// test has ended (`over` set) stops nothing and only says that the result is being saved and
/// shown.
fn watch_signals(over: Arc<AtomicBool>) -> StopWatch {
    StopWatch::start(move |_| {
        if over.load(Ordering::SeqCst) {
            // Nothing is left to stop: the test file is gone and the result complete.
            let finished = gettext(
                "The test had already finished and its test file is removed: \
                 its result is being saved and shown.",
            );
            emit(To::Stderr, format!("{finished}\n"));
            return false;
        }
        let stopping = gettext(
            "Stopping: waiting for the drive to finish the requests already sent to it \
             (a slow card can take a minute), then removing the test file.",
        );
        emit(To::Stderr, format!("{stopping}\n"));
        true
    })
}

/// Rewrites the log (`$AGNOSTICS_LOG`, else `~/rpdiags.txt`) with this test's results.
fn write_log(report: &report::Report) -> Result<std::path::PathBuf, scripts::ScriptError> {
    let mut log = scripts::LogWriter::create(&scripts::log_path()?)?;
    scripts::log_sd_test(&mut log, report);
    log.finish()
}

/// A progress bar on stderr (only on a terminal): phase name, fraction, and the live figure
/// the phase is graded on (IOPS for random phases, MB/s for sequential ones).
struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        let bar = enabled.then(|| {
            let bar = ProgressBar::new(1000);
            bar.set_style(
                ProgressStyle::with_template("{prefix:>22} [{bar:30}] {percent:>3}% {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        });
        Progress { bar }
    }

    fn event(&self, event: Event) {
        let Some(bar) = &self.bar else { return };
        match event {
            Event::RunStarted { run, runs, again } => {
                if run > 1 {
                    bar.println(run_line(run, runs, again));
                }
            }
            Event::PhaseStarted {
                index, count, name, ..
            } => {
                bar.set_prefix(format!("{name} {}/{count}", index + 1));
                bar.set_position(0);
            }
            Event::Progress {
                rw,
                fraction,
                bw_bytes,
                iops,
                ..
            } => {
                bar.set_position((fraction.clamp(0.0, 1.0) * 1000.0) as u64);
                bar.set_message(if rw.is_random() {
                    format!("{} IOPS", nearest_text(iops, 0))
                } else {
                    format!("{} MB/s", nearest_text(mb_per_s(bw_bytes), 1))
                });
            }
            Event::Warning(w) => {
                bar.println(fill(&gettext("Warning: {warning}"), &[("warning", &w)]))
            }
            Event::PhaseFinished { .. } | Event::Sample { .. } => {}
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
