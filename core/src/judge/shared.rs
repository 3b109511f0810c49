//! A run that shared its drive with another test: the two shared its speed, so its figures
//! are lower than the drive's own and are not graded.

use crate::drive_lock;
use crate::report::Report;

/// What a run that shared `drive` with another test says.
fn shared_reason(drive: &drive_lock::Drive) -> String {
    crate::i18n::fill(
        // Translators: {drive} is a kernel device name such as "mmcblk0" or "sda".
        &crate::i18n::gettext(
            "another test used this drive ({drive}) while this one measured: the two shared its \
             speed, so these figures are lower than the drive's own and are not graded",
        ),
        &[("drive", &drive.name)],
    )
}

/// Run `run` shared `drive` with another test: its checks are not graded, each saying why; a
/// profile that only measures has no checks, so its report says it once as a warning. What
/// the run says.
pub(crate) fn not_graded_shared(
    report: &mut Report,
    run: u32,
    drive: &drive_lock::Drive,
) -> String {
    let reason = shared_reason(drive);
    if let Some(r) = report.runs.iter_mut().find(|r| r.run == run) {
        r.not_graded(&reason);
    }
    if !report.graded && !report.warnings.contains(&reason) {
        report.warnings.push(reason.clone());
    }
    reason
}
