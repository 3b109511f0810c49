//! The test's verdicts once the runs are done: a cache answering, another test on the drive,
//! a figure the link cannot carry, A2 without command queueing, then the advice.

use crate::advice::Advice;
use crate::report::{ErrorKind, ErrorReport, Report};
use crate::target_dir;
use crate::verdict::Verdict;

use super::advise::advise;

/// Settles the verdicts once the runs are done: a cache answering, or another test on the
/// drive during the deciding run (`shared`: what that run says), makes the test an error, an
/// error makes both verdicts ERROR; else the deciding run's verdicts, the card's findings (a
/// run the link cannot carry is not graded, and the test is an error), and the advice. The
/// results table of the profile, when it has one, in every case something was measured.
/// `system`: the target is on the drive the system runs from (see
/// [`target_dir::is_system_drive`]).
pub(super) fn finish(
    report: &mut Report,
    info: &target_dir::TargetInfo,
    cached: Option<String>,
    shared: Option<String>,
    system: bool,
) {
    settle(report, info, cached, shared, system);
    report.table = crate::report::table::table(report);
    report.references = crate::references::beside(report);
}

fn settle(
    report: &mut Report,
    info: &target_dir::TargetInfo,
    cached: Option<String>,
    shared: Option<String>,
    system: bool,
) {
    if let Some(reason) = cached {
        not_graded_cached(report, reason);
    }
    if let (Some(reason), None) = (shared, &report.error) {
        report.error = Some(ErrorReport::new(
            ErrorKind::SharedDrive,
            reason,
            Advice::SharedDrive.text(),
        ));
        report.advice.push(Advice::SharedDrive);
    }
    if report.error.is_some() {
        report.verdict = Verdict::Error;
        report.a2_verdict = Verdict::Error;
        return;
    }
    let Some(run) = report.deciding_run().cloned() else {
        return;
    };
    report.verdict = run.verdict;
    report.a2_verdict = run.a2_verdict;
    // What the card claims against what was measured; a figure the link cannot carry is
    // not graded.
    report.findings = crate::card::findings(report.card.as_ref(), &run.phases);
    if let Some(message) = not_graded_implausible(report) {
        report.verdict = Verdict::Error;
        report.a2_verdict = Verdict::Error;
        report.error = Some(ErrorReport::new(
            ErrorKind::Implausible,
            message,
            Advice::ImplausibleResult.text(),
        ));
        report.advice.push(Advice::ImplausibleResult);
        return;
    }
    if !report.graded {
        // Nothing is graded, so no advice about the grade; a cache in the way still matters.
        if !info.warnings.is_empty() {
            report.advice.push(Advice::CachingFilesystem {
                fs_type: info.fs_type.clone(),
            });
        }
        return;
    }
    // A2 figures need a host that queues commands: without it, A2 is not graded.
    if let Some(reason) = report.card.as_ref().and_then(|c| c.a2_not_graded_reason()) {
        for r in &mut report.runs {
            r.a2_not_graded(&reason);
        }
        report.a2_verdict = Verdict::Error;
    }
    let run = report.deciding_run().cloned().unwrap_or(run);
    advise(report, &run, info, system);
}

/// Every run not graded because a cache answered (`reason`), and, unless another error came
/// first, the test's error.
fn not_graded_cached(report: &mut Report, reason: String) {
    for run in &mut report.runs {
        run.not_graded(&reason);
    }
    if report.error.is_none() {
        report.error = Some(ErrorReport::new(
            ErrorKind::Cached,
            reason,
            Advice::CachedResult.text(),
        ));
        report.advice.push(Advice::CachedResult);
    }
}

/// Every run is checked, not only the deciding one: no run that the link cannot carry keeps a
/// PASS anywhere (its checks, its verdicts, the compat lines, the log). The first such finding,
/// if any.
pub(crate) fn not_graded_implausible(report: &mut Report) -> Option<String> {
    let mut first_implausible = None;
    for r in &mut report.runs {
        let found = crate::card::findings(report.card.as_ref(), &r.phases);
        if let Some(f) = found.iter().find(|f| f.is_implausible()) {
            let text = f.text();
            r.not_graded(&text);
            first_implausible.get_or_insert(text);
        }
    }
    first_implausible
}
