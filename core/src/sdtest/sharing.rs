//! Another test on the same drive: the drives' locks and the watch on them (what a run that
//! shared its drive says is [`crate::judge::not_graded_shared`]'s).

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
