//! How healthy is this drive? A quick look (a few seconds) that writes nothing: what the
//! kernel logged about the drive since it appeared ([`kmsg`], [`kernel_log`]), the SD host's
//! error counters, the card's own wear (an eMMC's life estimates; an SD card's CMD56 health report
//! for the allow-listed formats in [`cmd56`], read through [`mmc_ioctl`]), its speed against
//! its first tests in the history ([`trend`]) and a capacity check that found it fake, weighed
//! into one verdict with advice ([`verdict`]).

pub mod cmd56;
pub mod kernel_log;
pub mod kmsg;
pub mod mmc_ioctl;
pub mod trend;
pub mod verdict;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::card::{wear::EmmcWear, CardInfo};
use crate::drive::{identity::Volume, DriveIdentity};
use crate::history::{History, HistoryError, RunFilter};
use crate::i18n::{fill, gettext};
use crate::target_dir::Transport;
use cmd56::{Cmd56Format, Cmd56Health, Untrusted};
use kernel_log::DriveNames;
use kmsg::{ErrStats, KernelLog};
use trend::SpeedTrend;
use verdict::{Finding, HealthVerdict};

/// What the card itself says of its wear through CMD56 (JSON: the `sd_health` object, its
/// `status` one of the snake_case names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum SdHealth {
    /// Not an SD card in an SD slot (a USB drive, NVMe, an eMMC, a loop device): no report
    /// to ask for.
    NoReport,
    /// An SD card whose maker has no known report format (`mid`: its manufacturer ID).
    UnknownMaker {
        /// The CID's manufacturer ID, when known.
        mid: Option<u8>,
    },
    /// The format is known, but only root may send the card a command.
    NeedsRoot {
        /// The format that would be read.
        format: Cmd56Format,
    },
    /// The card did not answer the read (`error`: the system's words).
    NoAnswer {
        /// The format asked for.
        format: Cmd56Format,
        /// Why, e.g. `Connection timed out (os error 110)`.
        error: String,
    },
    /// The card answered with something that cannot be trusted.
    Untrusted {
        /// The format asked for.
        format: Cmd56Format,
        /// What was wrong with it.
        why: Untrusted,
    },
    /// A trusted report.
    Read {
        /// The report.
        report: Cmd56Health,
    },
}

impl SdHealth {
    /// For people: `12 % of its rated life used`, `this drive reports no health`, …
    pub fn describe(&self) -> String {
        match self {
            SdHealth::NoReport => gettext("this drive reports no health"),
            SdHealth::UnknownMaker { .. } => {
                gettext("this card's maker has no known health report")
            }
            SdHealth::NeedsRoot { .. } => gettext("reading the card's health report needs root"),
            SdHealth::NoAnswer { error, .. } => fill(
                &gettext("the card did not answer its maker's health read: {error}"),
                &[("error", error)],
            ),
            SdHealth::Untrusted { .. } => gettext("this card's health report cannot be trusted"),
            SdHealth::Read { report } => fill(
                // xgettext:no-c-format
                &gettext("{percent} % of its rated life used"),
                &[("percent", &report.life_used_percent)],
            ),
        }
    }
}

/// Everything `health` found (JSON: the document `health --json` prints).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HealthReport {
    /// The whole disk, `mmcblk0`.
    pub device: String,
    /// Its kind (JSON as [`Transport::as_str`]: `SD`, `eMMC`, `USB`, `NVMe`, …).
    pub kind: Transport,
    /// The card's or drive's model, where known.
    pub model: Option<String>,
    /// The drive's identity, as the history knows drives; null when nothing stable is known.
    pub drive: Option<DriveIdentity>,
    /// The kernel log.
    pub kernel_log: KernelLog,
    /// The SD host's debugfs error counters, when root could read them.
    pub err_stats: Option<ErrStats>,
    /// An SD card's own report.
    pub sd_health: SdHealth,
    /// An eMMC's life estimates.
    pub emmc_wear: Option<EmmcWear>,
    /// How many runs of this drive the history holds.
    pub history_runs: u32,
    /// The speed now against the first tests; null with fewer than two comparable runs.
    pub trend: Option<SpeedTrend>,
    /// The capacity check that found the drive fake or losing data, if one did.
    pub found_fake: Option<String>,
    /// The verdict.
    pub verdict: HealthVerdict,
    /// What was found, most serious first.
    pub findings: Vec<Finding>,
    /// What to do, for people.
    pub advice: String,
}

/// Where `check` reads from: sysfs (`/sys`; debugfs is `<sysfs>/kernel/debug`), the kernel
/// log (`/dev/kmsg`) and the device folder (`/dev`).
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// sysfs.
    pub sysfs_root: &'a Path,
    /// The kernel log.
    pub kernel_log: &'a Path,
    /// The device folder.
    pub dev_root: &'a Path,
}

/// Looks at the drive `card` (as [`crate::card::identify`] read it), whose file system at
/// `volume` (if mounted) identifies it when the device does not, in `history` (if any).
/// Sends the card at most two CMD56 reads, and only as [`cmd56`] allows. Errors: the
/// history's, except a drive the history does not know (no runs).
pub fn check(
    card: &CardInfo,
    volume: Option<Volume<'_>>,
    src: Sources<'_>,
    history: Option<&History>,
) -> Result<HealthReport, HistoryError> {
    let disk_dir = crate::sysfs::dir_of_name(src.sysfs_root, &card.device);
    let host = disk_dir.as_deref().and_then(crate::card::link::mmc_host_of);
    let names = DriveNames {
        disk: card.device.clone(),
        mmc_host: host.clone(),
    };
    let root = nix::unistd::geteuid().is_root();
    let err_stats = host
        .as_deref()
        .filter(|_| root)
        .and_then(|h| kmsg::err_stats(&src.sysfs_root.join("kernel/debug"), h));
    let none = Volume {
        path: Path::new(""),
        partition: None,
        fs_type: "",
    };
    let drive = crate::drive::identity::identify_with(
        Some(card),
        volume.unwrap_or(none),
        src.sysfs_root,
        src.dev_root,
    );
    let (runs, found_fake) = match (history, &drive) {
        (Some(h), Some(d)) => from_history(h, d)?,
        _ => (Vec::new(), None),
    };
    let mut report = HealthReport {
        device: card.device.clone(),
        kind: card.kind,
        model: card.model.clone(),
        drive,
        kernel_log: kmsg::read(src.kernel_log, &names),
        err_stats,
        sd_health: sd_health(card, src.dev_root, root),
        emmc_wear: card.emmc_wear,
        history_runs: u32::try_from(runs.len()).unwrap_or(u32::MAX),
        trend: trend::speed_trend(&runs),
        found_fake,
        verdict: HealthVerdict::Unknown,
        findings: Vec::new(),
        advice: String::new(),
    };
    report.findings = verdict::findings(&report);
    report.verdict = verdict::verdict(&report, &report.findings);
    report.advice = report.verdict.advice();
    Ok(report)
}

/// The drive's runs and the capacity check that found it fake; none for a drive the history
/// does not know.
fn from_history(
    h: &History,
    drive: &DriveIdentity,
) -> Result<(Vec<crate::history::RunSummary>, Option<String>), HistoryError> {
    let filter = RunFilter {
        drive: Some(drive.id.to_string()),
        profile: None,
    };
    let runs = match h.runs(&filter) {
        Ok(r) => r,
        Err(HistoryError::NotFound(_)) => Vec::new(),
        Err(e) => return Err(e),
    };
    Ok((runs, h.found_fake(&drive.id)?))
}

/// The card's own report: asked for only of an SD card on an SD host (`mmcblk*`) whose maker
/// has a known format, and only by root; read twice, trusted only when both agree.
fn sd_health(card: &CardInfo, dev_root: &Path, root: bool) -> SdHealth {
    if card.kind != Transport::Sd || !card.device.starts_with("mmcblk") {
        return SdHealth::NoReport;
    }
    let mid = card.cid.as_ref().and_then(|c| c.mid);
    let Some(format) = mid.and_then(cmd56::format_for) else {
        return SdHealth::UnknownMaker { mid };
    };
    if !root {
        return SdHealth::NeedsRoot { format };
    }
    let device = dev_root.join(&card.device);
    let read = || mmc_ioctl::read_report(&device, format);
    match read().and_then(|first| Ok((first, read()?))) {
        Err(e) => SdHealth::NoAnswer {
            format,
            error: e.to_string(),
        },
        Ok((first, second)) => match cmd56::decode_twice(format, &first, &second) {
            Ok(report) => SdHealth::Read { report },
            Err(why) => SdHealth::Untrusted { format, why },
        },
    }
}

#[cfg(test)]
mod tests;
