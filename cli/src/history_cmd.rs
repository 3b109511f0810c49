//! `agnostics-cli history`: the runs recorded on this machine (newest first, as a table, JSON or
//! CSV), and `show`, `name`, `import`, `export` and `forget`. The store is the history file
//! (`$AGNOSTICS_HISTORY`, else `$XDG_STATE_HOME/agnostics/history.sqlite3`); commands that only
//! read it open it read-only and treat a missing file as an empty history, so listing never
//! creates one.

use std::path::Path;

use agnostics_core::exit_code::ExitCode;
use agnostics_core::history::{
    DriveSummary, History, HistoryError, Outcome, RunFilter, RunSummary,
};
use agnostics_core::i18n::{fill, gettext, ngettext};
use agnostics_core::profile::Builtin;
use agnostics_core::report;
use agnostics_core::units::mb_per_s;

use crate::args::{
    HistoryArgs, HistoryCommand, HistoryDrivesArgs, HistoryExportArgs, HistoryForgetArgs,
    HistoryImportArgs, HistoryListArgs, HistoryNameArgs, HistoryShowArgs,
};
use crate::history_open::{
    aligned, fail, not_recorded, open_for_reading, path, print_json, short_id, short_time,
};
use crate::output::{emit, To};

/// Runs `history` and its subcommands; returns the exit status: 0, or 2 after an error said on
/// stderr (an unknown run or drive, a file that cannot be read or imported, a store that
/// cannot be opened).
pub fn main(args: &HistoryArgs) -> i32 {
    match &args.command {
        None => list(&args.list),
        Some(HistoryCommand::Show(a)) => show(a),
        Some(HistoryCommand::Drives(a)) => drives(a),
        Some(HistoryCommand::Name(a)) => name(a),
        Some(HistoryCommand::Import(a)) => import(a),
        Some(HistoryCommand::Export(a)) => export(a),
        Some(HistoryCommand::Forget(a)) => forget(a),
        Some(HistoryCommand::Capacity(a)) => crate::history_capacity::list(a),
    }
}

/// The filter of `--drive` and `--profile`: a built-in profile's name (`standard`) selects the
/// name its reports carry (`sd_bench`).
fn filter(drive: &Option<String>, profile: &Option<String>) -> RunFilter {
    RunFilter {
        drive: drive.clone(),
        profile: profile.as_ref().map(|p| match Builtin::find(p) {
            Some(b) => b.profile().name,
            None => p.clone(),
        }),
    }
}

/// The recorded runs that `filter` selects, newest first (none when there is no file yet).
///
/// Errors: [`HistoryError::NotFound`] for a drive that is not in the history (also when there
/// is no history yet), and the store's errors.
fn runs(path: &Path, filter: &RunFilter) -> Result<Vec<RunSummary>, HistoryError> {
    match open_for_reading(path)? {
        Some(h) => h.runs(filter),
        None => match &filter.drive {
            Some(drive) => Err(HistoryError::NotFound(drive.clone())),
            None => Ok(Vec::new()),
        },
    }
}

/// `history`: the table (or JSON array, or CSV), newest first; in text mode the file's path
/// on stderr.
fn list(args: &HistoryListArgs) -> i32 {
    let path = path();
    let runs = match runs(&path, &filter(&args.filter.drive, &args.filter.profile)) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if args.json {
        return print_json(&runs);
    }
    if args.csv {
        return print_csv(&runs);
    }
    let code = if runs.is_empty() {
        let none = if args.filter.drive.is_some() || args.filter.profile.is_some() {
            gettext("No recorded runs match.")
        } else {
            gettext("No runs recorded yet: each `agnostics-cli run` adds its result here.")
        };
        emit(To::Stdout, format!("{none}\n"))
    } else {
        emit(To::Stdout, table(&runs))
    };
    let file = fill(&gettext("History: {path}"), &[("path", &path.display())]);
    emit(To::Stderr, format!("{file}\n"));
    code
}

/// A figure for the table: MB/s with one decimal, or whole IOPS, rounded down as the run's
/// own table (so 499.7 IOPS is 499, not the 500 it missed); `—` when not measured.
fn figure(value: Option<f64>, iops: bool) -> String {
    use agnostics_core::figure::down_text;
    match value {
        Some(v) if iops => down_text(v, 0),
        Some(v) => down_text(mb_per_s(v), 1),
        None => "—".to_owned(),
    }
}

/// The drive column: the name (or model/kind) and the short id.
fn drive_cell(run: &RunSummary) -> String {
    match &run.drive {
        Some(id) => format!("{} ({})", run.drive_label, short_id(&id.to_string())),
        None => run.drive_label.clone(),
    }
}

/// The verdict column: the verdict, and how the run ended when it did not finish.
fn verdict_cell(run: &RunSummary) -> String {
    match run.outcome {
        Outcome::Finished => run.verdict.as_str().to_owned(),
        other => format!("{} ({})", run.shown_verdict().as_str(), other.as_str()),
    }
}

/// A drive's verdict column: its latest graded run's verdict (PASS or FAIL), with that run's
/// date when a later run was not graded (a Quick check, an error), so that one ungraded run
/// does not hide the grade; the latest run's verdict when none of its runs was graded.
fn drive_verdict_cell(drive: &DriveSummary) -> String {
    match &drive.last_graded {
        Some(graded) if graded.run == drive.last.run => verdict_cell(graded),
        Some(graded) => format!("{} ({})", verdict_cell(graded), short_time(&graded.started)),
        None => verdict_cell(&drive.last),
    }
}

/// The runs as an aligned text table: date, run, drive, profile, engine, verdict, then the
/// four figures (right-aligned).
fn table(runs: &[RunSummary]) -> String {
    let head = vec![
        gettext("Date"),
        gettext("Run"),
        gettext("Drive"),
        gettext("Profile"),
        gettext("Engine"),
        gettext("Verdict"),
        gettext("Seq write MB/s"),
        gettext("Seq read MB/s"),
        gettext("4K write IOPS"),
        gettext("4K read IOPS"),
    ];
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                short_time(&r.started),
                short_id(&r.run.to_string()),
                report::visible(&drive_cell(r)),
                report::visible(&r.profile),
                r.engine.as_str().to_owned(),
                verdict_cell(r),
                figure(r.seq_write_bw, false),
                figure(r.seq_read_bw, false),
                figure(r.rand_write_iops, true),
                figure(r.rand_read_iops, true),
            ]
        })
        .collect();
    aligned(&head, &rows, 6)
}

/// The CSV header: one column per field of a run's summary; figures in MB/s (10^6 bytes per
/// second) and IOPS, empty when not measured.
const CSV_HEADER: [&str; 14] = [
    "run_id",
    "started",
    "drive_id",
    "drive_name",
    "drive_label",
    "profile",
    "engine",
    "verdict",
    "a2_verdict",
    "outcome",
    "seq_write_mb_s",
    "seq_read_mb_s",
    "rand_4k_write_iops",
    "rand_4k_read_iops",
];

/// `runs` as CSV (RFC 4180, a header row): full ids, RFC 3339 times, figures with a `.`
/// decimal point whatever the locale, so spreadsheets and scripts read them alike.
pub(crate) fn csv_text(runs: &[RunSummary]) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_HEADER)?;
    let num =
        |v: Option<f64>, decimals: usize| v.map(|v| format!("{v:.decimals$}")).unwrap_or_default();
    for r in runs {
        w.write_record(
            [
                r.run.to_string(),
                r.started.clone(),
                r.drive.as_ref().map(|d| d.to_string()).unwrap_or_default(),
                r.drive_name.clone().unwrap_or_default(),
                r.drive_label.clone(),
                r.profile.clone(),
                r.engine.as_str().to_owned(),
                r.verdict.as_str().to_owned(),
                r.a2_verdict.as_str().to_owned(),
                r.outcome.as_str().to_owned(),
                num(r.seq_write_bw.map(mb_per_s), 3),
                num(r.seq_read_bw.map(mb_per_s), 3),
                num(r.rand_write_iops, 1),
                num(r.rand_read_iops, 1),
            ]
            // Names and labels come from documents: no terminal escapes in the table.
            .map(|field| report::visible(&field)),
        )?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(std::io::Error::other(e.to_string())))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn print_csv(runs: &[RunSummary]) -> i32 {
    match csv_text(runs) {
        Ok(text) => emit(To::Stdout, text),
        Err(e) => {
            emit(To::Stderr, format!("agnostics-cli: {e}\n"));
            ExitCode::NoVerdict.code()
        }
    }
}

/// `history show RUN`: the stored report as the run printed it (text, JSON or Markdown).
fn show(args: &HistoryShowArgs) -> i32 {
    let path = path();
    let history = match open_for_reading(&path) {
        Ok(Some(h)) => h,
        Ok(None) => return not_recorded(&args.run, &path),
        Err(e) => return fail(&e),
    };
    let report = match history.report(&args.run) {
        Ok(r) => r,
        Err(HistoryError::NotFound(_)) if history.capacity_report(&args.run).is_ok() => {
            return crate::history_capacity::show(&history, &args.run, args.json)
        }
        Err(e) => return fail(&e),
    };
    if args.json {
        print_json(&report)
    } else if args.markdown {
        // The drive as the history names it; a history that cannot say names it by its model.
        let name = history.drive_name_of(&report).ok().flatten();
        emit(
            To::Stdout,
            report::terminal_safe(&report::table::to_markdown_named(&report, name.as_deref())),
        )
    } else {
        emit(To::Stdout, report::terminal_safe(&report::to_text(&report)))
    }
}

/// `history drives`: each drive with recorded runs, the most recently tested first.
fn drives(args: &HistoryDrivesArgs) -> i32 {
    let path = path();
    let (history, drives) = match open_for_reading(&path) {
        Ok(Some(h)) => match h.drives() {
            Ok(d) => (Some(h), d),
            Err(e) => return fail(&e),
        },
        Ok(None) => (None, Vec::new()),
        Err(e) => return fail(&e),
    };
    let checked = match &history {
        Some(h) => match h.checked_only_drives() {
            Ok(c) => c,
            Err(e) => return fail(&e),
        },
        None => Vec::new(),
    };
    if args.json {
        return crate::history_capacity::drives_json(&drives, &checked);
    }
    // The Label column: what the drive is (model and kind, from its latest run), beside the
    // Name column; the summary's own label is the name when it has one.
    let model = |d: &agnostics_core::history::DriveSummary| {
        history
            .as_ref()
            .and_then(|h| h.report(&d.last.run.0).ok())
            .map(|r| agnostics_core::history::compare::drive_label(&r))
            .unwrap_or_else(|| d.label.clone())
    };
    if drives.is_empty() && checked.is_empty() {
        let none =
            gettext("No drives recorded yet: each `agnostics-cli run` adds its result here.");
        return emit(To::Stdout, format!("{none}\n"));
    }
    let head = vec![
        gettext("Drive"),
        gettext("Name"),
        gettext("Label"),
        gettext("Kind"),
        gettext("Latest run"),
        gettext("Verdict"),
        gettext("Capacity"),
        gettext("Runs"),
    ];
    let mut rows: Vec<Vec<String>> = drives
        .iter()
        .map(|d| {
            vec![
                short_id(&d.id.to_string()),
                report::visible(d.name.as_deref().unwrap_or("—")),
                report::visible(&model(d)),
                d.kind.as_str().to_owned(),
                short_time(&d.last.started),
                drive_verdict_cell(d),
                crate::history_capacity::cell(d.last_capacity.as_ref(), d.found_fake),
                d.runs.to_string(),
            ]
        })
        .collect();
    rows.extend(checked.iter().map(crate::history_capacity::checked_row));
    emit(To::Stdout, aligned(&head, &rows, 7))
}

/// Opens the history for a change (creating the file when needed), or says why not. A damaged
/// file that had to be moved aside (a new history is started) is said on stderr.
fn open_for_change(path: &Path) -> Result<History, i32> {
    let history = History::open(path).map_err(|e| fail(&e))?;
    if let Some(e) = history.moved_aside() {
        let warning = fill(&gettext("warning: {error}"), &[("error", e)]);
        emit(To::Stderr, format!("agnostics-cli: {warning}\n"));
    }
    Ok(history)
}

/// `history name DRIVE NAME`: names (or, with "", un-names) a drive.
fn name(args: &HistoryNameArgs) -> i32 {
    let path = path();
    if !path.exists() {
        return not_recorded(&args.drive, &path);
    }
    let mut history = match open_for_change(&path) {
        Ok(h) => h,
        Err(code) => return code,
    };
    let name = args.name.trim();
    match history.name_drive(&args.drive, name) {
        Ok(id) => {
            let text = if name.is_empty() {
                fill(
                    &gettext("Drive {id} has no name now."),
                    &[("id", &short_id(&id.to_string()))],
                )
            } else {
                fill(
                    &gettext("Drive {id} is now called “{name}”."),
                    &[("id", &short_id(&id.to_string())), ("name", &name)],
                )
            };
            emit(To::Stdout, format!("{text}\n"))
        }
        Err(e) => fail(&e),
    }
}

/// `history import FILE...`: each file is added whole or not at all; one that cannot be
/// imported is said on stderr and the others are still imported. Exit 2 when any failed.
fn import(args: &HistoryImportArgs) -> i32 {
    let path = path();
    let mut history = match open_for_change(&path) {
        Ok(h) => h,
        Err(code) => return code,
    };
    let mut code = 0;
    for file in &args.files {
        match history.import(file) {
            Ok(outcome) => {
                let added = outcome.added.len();
                let there = outcome.already_there.len();
                let added_text = fill(
                    &ngettext("{n} run added", "{n} runs added", added as u32),
                    &[("n", &added)],
                );
                let there_text = fill(
                    &ngettext("{n} already there", "{n} already there", there as u32),
                    &[("n", &there)],
                );
                let line = format!("{}: {added_text}, {there_text}\n", file.display());
                if emit(To::Stdout, line) != 0 {
                    code = 2;
                }
                for run in &outcome.conflicting {
                    let warning = fill(
                        &gettext(
                            "{file}: run {run} is already in the history with other contents; \
                             the stored run is kept and this one was not imported \
                             (`agnostics-cli history show {run}` shows it)",
                        ),
                        &[("file", &file.display()), ("run", &short_id(&run.0))],
                    );
                    emit(To::Stderr, format!("agnostics-cli: warning: {warning}\n"));
                }
            }
            Err(e) => {
                // The store's messages for a bad file name it; others (a locked store) do not.
                let message = match &e {
                    HistoryError::Malformed { .. } | HistoryError::Foreign { .. } => e.to_string(),
                    HistoryError::Io { path, .. } if path == file => e.to_string(),
                    _ => format!("{}: {e}", file.display()),
                };
                emit(To::Stderr, format!("agnostics-cli: {message}\n"));
                code = 2;
            }
        }
    }
    code
}

/// `history export`: a JSON array of the (redacted) reports, which `import` reads, or CSV.
fn export(args: &HistoryExportArgs) -> i32 {
    let path = path();
    let filter = filter(&args.drive, &None);
    if args.csv {
        return match runs(&path, &filter) {
            Ok(runs) => print_csv(&runs),
            Err(e) => fail(&e),
        };
    }
    let reports = match open_for_reading(&path) {
        Ok(Some(h)) => match h.export(&filter) {
            Ok(r) => r,
            Err(e) => return fail(&e),
        },
        Ok(None) => match &filter.drive {
            Some(drive) => return fail(&HistoryError::NotFound(drive.clone())),
            None => Vec::new(),
        },
        Err(e) => return fail(&e),
    };
    print_json(&reports)
}

/// `history forget RUN | --drive ID | --all`: says how many runs were removed.
fn forget(args: &HistoryForgetArgs) -> i32 {
    let path = path();
    if !path.exists() {
        if args.all {
            return emit(To::Stdout, format!("{}\n", removed_text(0)));
        }
        let what = args.run.as_deref().or(args.drive.as_deref()).unwrap_or("");
        return not_recorded(what, &path);
    }
    let mut history = match open_for_change(&path) {
        Ok(h) => h,
        Err(code) => return code,
    };
    let removed = if let Some(run) = &args.run {
        history.forget_run(run)
    } else if let Some(drive) = &args.drive {
        history.forget_drive(drive)
    } else {
        history.forget_all()
    };
    match removed {
        Ok(n) => emit(To::Stdout, format!("{}\n", removed_text(n))),
        Err(e) => fail(&e),
    }
}

fn removed_text(n: usize) -> String {
    fill(
        &ngettext("Removed {n} run.", "Removed {n} runs.", n as u32),
        &[("n", &n)],
    )
}
