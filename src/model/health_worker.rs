//! The Health group's look at a drive (`agnostics_core::health::check`: the kernel log since
//! boot, the card's own wear report, its speed against its first tests in the history), and
//! what the history alone says of a drive that is not connected. [`check_folder`] reads the
//! kernel log, sysfs and the history (up to a few seconds), so it runs off the main loop
//! (`gio::spawn_blocking`); [`not_connected`] is pure.

use std::path::Path;

use agnostics_core::card;
use agnostics_core::drive::identity::Volume;
use agnostics_core::health::trend::{speed_trend, SpeedTrend};
use agnostics_core::health::verdict::HealthVerdict;
use agnostics_core::health::{self, HealthReport, Sources};
use agnostics_core::history::{History, RunSummary};
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::target_dir;

/// The kernel log the check reads: `/dev/kmsg`.
pub const KERNEL_LOG: &str = "/dev/kmsg";

/// The device folder CMD56 reads go through (as root only): `/dev`.
pub const DEV_ROOT: &str = "/dev";

/// What the Health group shows.
#[derive(Debug, Clone, PartialEq)]
pub enum HealthState {
    /// The check runs.
    Checking,
    /// The drive was looked at.
    Checked(Box<HealthReport>),
    /// A drive of the history that is not connected now: only its runs speak.
    NotConnected(HistoryHealth),
    /// The drive could not be looked at (a sentence for people).
    Failed(String),
}

/// What the history alone says of a drive: its trend against its first runs, whether a
/// capacity check found it fake, and the verdict these two give.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryHealth {
    /// The newest run against the first ones; `None` with fewer than two comparable runs.
    pub trend: Option<SpeedTrend>,
    /// How many runs of the drive the history holds.
    pub runs: u32,
    /// True when a capacity check found the drive fake or losing data.
    pub found_fake: bool,
    /// `failing` when found fake, `worn` when its writes fell by a marked decline, else
    /// `unknown` (the kernel log and the card's own report need the drive).
    pub verdict: HealthVerdict,
}

/// What the history says of a drive that is not connected, from its runs `runs` (any
/// order, as the history lists them) and whether a capacity check found it fake.
pub fn not_connected(runs: &[RunSummary], found_fake: bool) -> HistoryHealth {
    let trend = speed_trend(runs);
    let verdict = if found_fake {
        HealthVerdict::Failing
    } else if trend.as_ref().is_some_and(SpeedTrend::declined) {
        HealthVerdict::Worn
    } else {
        HealthVerdict::Unknown
    };
    HistoryHealth {
        trend,
        runs: u32::try_from(runs.len()).unwrap_or(u32::MAX),
        found_fake,
        verdict,
    }
}

/// Looks at the drive holding the folder `dir` (sysfs under `sysfs_root`), with its runs in
/// the history at `history` (none when the file does not exist). Errors, as sentences: the
/// folder cannot be inspected, is on no block device (tmpfs, a network share), its disk is
/// not in sysfs, or the history cannot be read.
pub fn check_folder(dir: &Path, sysfs_root: &Path, history: &Path) -> Result<HealthReport, String> {
    let info = target_dir::inspect(dir, sysfs_root).map_err(|e| e.to_string())?;
    let Some(device) = &info.device else {
        return Err(fill(
            &gettext("{path} is on no drive whose health can be read ({fs_type})"),
            &[("path", &dir.display()), ("fs_type", &info.fs_type)],
        ));
    };
    let card = card::identify(sysfs_root, &device.disk).ok_or_else(|| {
        fill(
            &gettext("The drive {device} is not known to the system any more"),
            &[("device", &device.disk)],
        )
    })?;
    let history = if history.exists() {
        Some(History::open_read_only(history).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let sources = Sources {
        sysfs_root,
        kernel_log: Path::new(KERNEL_LOG),
        dev_root: Path::new(DEV_ROOT),
    };
    health::check(&card, Some(Volume::from(&info)), sources, history.as_ref())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_on_no_block_device_says_so() {
        let err = check_folder(
            Path::new("/proc"),
            Path::new("/sys"),
            Path::new("/nonexistent"),
        )
        .unwrap_err();
        assert!(err.contains("/proc"), "{err}");
    }

    #[test]
    fn a_drive_without_runs_is_unknown_when_not_connected() {
        let h = not_connected(&[], false);
        assert_eq!(h.verdict, HealthVerdict::Unknown);
        assert_eq!(h.runs, 0);
        assert!(h.trend.is_none());
        assert_eq!(not_connected(&[], true).verdict, HealthVerdict::Failing);
    }
}
