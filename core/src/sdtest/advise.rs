//! The advice that follows from the deciding run.

use crate::advice::Advice;
use crate::report::Report;
use crate::report::RunReport;
use crate::target_dir::{self, Transport};
use crate::verdict::Verdict;

/// The advice that follows from the deciding `run` on the target `info` (`system`: the drive
/// the system runs from). A drive that is not an SD card is said so first, beside the
/// verdict, before any advice about the grade; advice that only an SD card can follow (A1 or
/// A2 cards) is given for SD cards only; a slow sequential write says what reformatting means
/// for this drive and how to do it safely.
pub(super) fn advise(
    report: &mut Report,
    run: &RunReport,
    info: &target_dir::TargetInfo,
    system: bool,
) {
    use crate::verdict::{Metric, Standard};
    let failed = |m| run.check(m, Standard::A1).map(|c| c.verdict) == Some(Verdict::Fail);
    let sd = info.transport == Transport::Sd;
    if !sd {
        report.advice.push(Advice::NotAnSdCard {
            transport: info.transport.as_str().to_owned(),
        });
    }
    // "Your card meets A1" only where the SD targets rate the device.
    if run.verdict == Verdict::Pass && sd {
        report.advice.push(Advice::MeetsA1);
        if run.a2_verdict == Verdict::Pass {
            report.advice.push(Advice::MeetsA2);
        }
    }
    if failed(Metric::SeqWrite) {
        report.advice.push(Advice::SeqWriteSlow);
        report.advice.push(Advice::ReformatSafely { system });
    }
    if failed(Metric::RandWrite) || failed(Metric::RandRead) {
        report.advice.push(if sd {
            Advice::RandomIoSlow
        } else {
            Advice::RandomIoSlowDrive
        });
    }
    if !info.warnings.is_empty() {
        report.advice.push(Advice::CachingFilesystem {
            fs_type: info.fs_type.clone(),
        });
    }
}
