//! A finished test's verdicts, once its runs are done: a cache answering, or another test on
//! the drive during the deciding run, makes the test an error, and an error makes both
//! verdicts ERROR; else the deciding run's verdicts, a run the card's link cannot carry not
//! graded (the test is then an error), and A2 not graded without command queueing.

use crate::advice::Advice;
use crate::report::{ErrorKind, ErrorReport, Report, RunReport};
use crate::verdict::Verdict;

use super::not_graded::{a2_without_queueing, cached, implausible};

/// What is left to say once the verdicts are settled.
#[derive(Debug)]
pub(crate) enum Settled {
    /// An error stopped the test (its own, a cache, another test, an implausible figure), or
    /// nothing was measured: the verdicts are ERROR and the advice is the error's.
    Stopped,
    /// A profile that only measures: nothing graded, so no advice about the grade.
    Measured,
    /// Graded: the deciding run, for the advice on its figures.
    Graded(RunReport),
}

/// Settles `report`'s verdicts once the runs are done. `cached`: why a cache answered (the
/// target's caches or the drive's own counters), `shared`: what the deciding run says when
/// another test used its drive. Sets the report's findings ([`crate::card::findings`]), and the
/// error and its advice when the test ends in one.
pub(crate) fn settle(
    report: &mut Report,
    cached_reason: Option<String>,
    shared: Option<String>,
) -> Settled {
    if let Some(reason) = cached_reason {
        cached(report, reason);
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
        return Settled::Stopped;
    }
    let Some(run) = report.deciding_run().cloned() else {
        return Settled::Stopped;
    };
    report.verdict = run.verdict;
    report.a2_verdict = run.a2_verdict;
    // What the card claims against what was measured; a figure the link cannot carry is
    // not graded.
    report.findings = crate::card::findings(report.card.as_ref(), &run.phases);
    if let Some(message) = implausible(report) {
        report.verdict = Verdict::Error;
        report.a2_verdict = Verdict::Error;
        report.error = Some(ErrorReport::new(
            ErrorKind::Implausible,
            message,
            Advice::ImplausibleResult.text(),
        ));
        report.advice.push(Advice::ImplausibleResult);
        return Settled::Stopped;
    }
    if !report.graded {
        return Settled::Measured;
    }
    // A2 figures need a host that queues commands: without it, A2 is not graded.
    a2_without_queueing(report);
    Settled::Graded(report.deciding_run().cloned().unwrap_or(run))
}
