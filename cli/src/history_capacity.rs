//! The capacity checks in `agnostics-cli history`: `history capacity` (the list, as a table or
//! JSON), `history show CHECK`, and the Capacity column and marker of `history drives`,
//! including drives known only from capacity checks.

use agnostics_core::capacity::{text, CapacityVerdict};
use agnostics_core::exit_code::ExitCode;
use agnostics_core::history::{CapacitySummary, CheckedDrive, DriveSummary, History};
use agnostics_core::i18n::gettext;
use agnostics_core::report;
use agnostics_core::units::si_bytes;

use crate::args::HistoryCapacityArgs;
use crate::history_open::{
    aligned, fail, open_for_reading, path, print_json, short_id, short_time,
};
use crate::output::{emit, To};

/// A verdict for the table: `genuine`, `FAKE`, …
fn verdict_word(v: CapacityVerdict) -> String {
    match v {
        CapacityVerdict::Genuine => gettext("genuine"),
        CapacityVerdict::Fake => gettext("FAKE"),
        CapacityVerdict::LosesData => gettext("LOSES DATA"),
        CapacityVerdict::NotCheckedBeyond => gettext("not checked far enough"),
        CapacityVerdict::Unsure => gettext("unsure"),
    }
}

/// The Capacity column of `history drives`: the latest check's verdict, and `(once found
/// fake)` when an earlier check found it fake and the latest did not; `—` when never checked.
pub(crate) fn cell(last: Option<&CapacitySummary>, found_fake: bool) -> String {
    match last {
        Some(c) if found_fake && !c.verdict.is_bad() => format!(
            "{} ({})",
            verdict_word(c.verdict),
            gettext("once found fake")
        ),
        Some(c) => verdict_word(c.verdict),
        None if found_fake => gettext("once found fake"),
        None => "—".to_owned(),
    }
}

/// A row of `history drives` for a drive known only from capacity checks.
pub(crate) fn checked_row(d: &CheckedDrive) -> Vec<String> {
    vec![
        short_id(&d.id.to_string()),
        report::visible(d.name.as_deref().unwrap_or("—")),
        report::visible(&d.label),
        "—".to_owned(),
        "—".to_owned(),
        "—".to_owned(),
        cell(Some(&d.last), d.found_fake),
        "0".to_owned(),
    ]
}

/// `history drives --json`: the drives with runs (each with `last_capacity` and `found_fake`),
/// then the drives known only from capacity checks, with `runs` 0 and `last` and
/// `last_graded` null.
pub(crate) fn drives_json(drives: &[DriveSummary], checked: &[CheckedDrive]) -> i32 {
    let mut all: Vec<serde_json::Value> = Vec::new();
    for d in drives {
        match serde_json::to_value(d) {
            Ok(v) => all.push(v),
            Err(e) => {
                return emit(To::Stderr, format!("agnostics-cli: {e}\n"))
                    .max(ExitCode::NoVerdict.code())
            }
        }
    }
    for d in checked {
        all.push(serde_json::json!({
            "id": d.id,
            "basis": d.basis,
            "name": d.name,
            "label": d.label,
            "kind": null,
            "runs": 0,
            "last": null,
            "last_graded": null,
            "last_capacity": d.last,
            "found_fake": d.found_fake,
            "capacity_checks": d.checks,
        }));
    }
    print_json(&all)
}

/// `history capacity`: the checks, newest first, as a table or a JSON array.
pub(crate) fn list(args: &HistoryCapacityArgs) -> i32 {
    let checks = match open_for_reading(&path()) {
        Ok(Some(h)) => match h.capacity_checks(args.drive.as_deref()) {
            Ok(c) => c,
            Err(e) => return fail(&e),
        },
        Ok(None) => Vec::new(),
        Err(e) => return fail(&e),
    };
    if args.json {
        return print_json(&checks);
    }
    if checks.is_empty() {
        let none = gettext("No capacity checks recorded yet: `agnostics-cli capacity` adds them.");
        return emit(To::Stdout, format!("{none}\n"));
    }
    let head = vec![
        gettext("Date"),
        gettext("Check"),
        gettext("Drive"),
        gettext("Mode"),
        gettext("Verdict"),
        gettext("Claimed"),
        gettext("Verified"),
        gettext("Real"),
    ];
    let rows: Vec<Vec<String>> = checks
        .iter()
        .map(|c| {
            let drive = match &c.drive {
                Some(id) => format!("{} ({})", c.drive_label, short_id(&id.to_string())),
                None => c.drive_label.clone(),
            };
            vec![
                short_time(&c.started),
                short_id(&c.check),
                report::visible(&drive),
                c.mode.as_str().to_owned(),
                verdict_word(c.verdict),
                si_bytes(c.claimed_bytes),
                si_bytes(c.verified_bytes),
                c.real_bytes.map(si_bytes).unwrap_or_else(|| "—".to_owned()),
            ]
        })
        .collect();
    emit(To::Stdout, aligned(&head, &rows, 5))
}

/// `history show CHECK` for a capacity check: its report as the check printed it, or JSON.
pub(crate) fn show(history: &History, check: &str, json: bool) -> i32 {
    match history.capacity_report(check) {
        Ok(r) if json => print_json(&r),
        Ok(r) => emit(To::Stdout, report::terminal_safe(&text::to_text(&r))),
        Err(e) => fail(&e),
    }
}
