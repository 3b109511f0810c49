//! Another test on the same drive: the drives' locks, and what a run that shared its drive says.

use crate::drive_lock::{self, DriveLock, ShareWatch};
use crate::report::Report;
use crate::target_dir;

use super::TestOptions;

/// The drives a test with `opts` would lock (see [`drive_lock::drives`]); empty when its
/// folder cannot be inspected. With [`drive_lock::busy`], what a user interface asks before it
/// starts a test: whether another test or capacity check uses one of them now.
pub fn drives(opts: &TestOptions) -> Vec<drive_lock::Drive> {
    target_dir::inspect(&opts.target, &opts.sysfs_root)
        .map(|info| drive_lock::drives(&info, &opts.sysfs_root))
        .unwrap_or_default()
}

/// Takes the locks of the drives the test uses and starts watching them for other tests. A
/// lock that cannot be taken is a warning: the test runs, but cannot tell.
pub(super) fn watch_drives(
    opts: &TestOptions,
    info: &target_dir::TargetInfo,
    report: &mut Report,
) -> ShareWatch {
    let (lock, errors) =
        DriveLock::take(&opts.lock_dir, &drive_lock::drives(info, &opts.sysfs_root));
    for e in &errors {
        report.warnings.push(crate::i18n::fill(
            // Translators: {error} names the lock file and what the system said.
            &crate::i18n::gettext(
                "could not tell whether another test uses this drive at the same time: {error}",
            ),
            &[("error", &e)],
        ));
    }
    ShareWatch::start(lock)
}

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
pub(super) fn not_graded_shared(
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
