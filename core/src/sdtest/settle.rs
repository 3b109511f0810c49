//! The test's end once the runs are done: the verdicts settled by the judge
//! ([`crate::judge`]), then the advice, the results table and the published figures.

use crate::advice::Advice;
use crate::judge::{settle, Settled};
use crate::report::Report;
use crate::target_dir;

use super::advise::advise;

/// Settles the verdicts once the runs are done ([`crate::judge::settle`]: a cache answering
/// (`cached`), or another test on the drive during the deciding run (`shared`: what that run
/// says), makes the test an error; else the deciding run's verdicts and the card's findings),
/// then the advice. The results table of the profile, when it has one, in every case
/// something was measured. `system`: the target is on the drive the system runs from (see
/// [`target_dir::is_system_drive`]).
pub(super) fn finish(
    report: &mut Report,
    info: &target_dir::TargetInfo,
    cached: Option<String>,
    shared: Option<String>,
    system: bool,
) {
    match settle(report, cached, shared) {
        Settled::Stopped => {}
        // Nothing is graded, so no advice about the grade; a cache in the way still matters.
        Settled::Measured => {
            if !info.warnings.is_empty() {
                report.advice.push(Advice::CachingFilesystem {
                    fs_type: info.fs_type.clone(),
                });
            }
        }
        Settled::Graded(run) => advise(report, &run, info, system),
    }
    report.table = crate::report::table::table(report);
    report.references = crate::references::beside(report);
}
