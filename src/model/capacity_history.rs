//! The capacity checks in the run history, as [`super::history_store`] keeps the runs: each
//! function opens the store, does one thing and closes it, off the main loop (on the check's
//! thread, or in `gio::spawn_blocking`). Errors come back as sentences for people.

use std::path::Path;

use agnostics_core::capacity::CapacityReport;
use agnostics_core::history::{CapacitySummary, DriveId, History, HistoryError};

/// Records the finished check `report` in the history at `path`; a drive found fake or
/// losing data stays marked. Errors: why it was not kept.
pub fn record(path: &Path, report: &CapacityReport) -> Result<(), String> {
    let mut h = History::open(path).map_err(|e| e.warning())?;
    h.record_capacity(report).map_err(|e| e.warning())
}

/// A drive's capacity checks, newest first, and whether one ever found it fake.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DriveChecks {
    /// True when a check once found the drive fake or losing data (the mark stays).
    pub found_fake: bool,
    /// Its checks, newest first.
    pub checks: Vec<CapacitySummary>,
}

/// The capacity checks of drive `id` in the history `h`.
pub fn checks_of(h: &History, id: &DriveId) -> Result<DriveChecks, String> {
    let found_fake = h.found_fake(id).map_err(|e| e.to_string())?.is_some();
    let checks = match h.capacity_checks(Some(id.as_str())) {
        Ok(checks) => checks,
        // A drive that was never checked.
        Err(HistoryError::NotFound(_)) => Vec::new(),
        Err(e) => return Err(e.to_string()),
    };
    Ok(DriveChecks { found_fake, checks })
}

/// The stored report of the check `check` (its id).
pub fn stored_report(path: &Path, check: &str) -> Result<CapacityReport, String> {
    if !path.exists() {
        return Err(HistoryError::NotFound(check.to_owned()).to_string());
    }
    History::open_read_only(path)
        .and_then(|h| h.capacity_report(check))
        .map_err(|e| e.to_string())
}

/// Removes the check `check` (its id) from the history at `path`; its report, for
/// [`record`] to put back (**Undo**). A drive's Found fake mark that this check gave it goes
/// with it, unless another check found it fake too.
pub fn forget(path: &Path, check: &str) -> Result<CapacityReport, String> {
    let mut h = History::open(path).map_err(|e| e.warning())?;
    h.forget_capacity(check).map_err(|e| e.to_string())
}
