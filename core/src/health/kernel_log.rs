//! What the kernel logged about one drive: each message sorted into the kind of trouble it
//! tells, and counted. Pure: the messages come from [`super::kmsg`].
//!
//! The shapes matched are the kernel's own format strings:
//! - the block layer's `"%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u
//!   prio class %u"` (`I/O error, dev mmcblk0, sector 2048 op 0x1:(WRITE) …`; older kernels
//!   prefix `blk_update_request: `), and the buffer cache's `"Buffer I/O error on dev %pg,
//!   logical block %llu, lost async page write"`;
//! - file systems: `"EXT4-fs error (device %s): %s:%d: …"`, `"EXT4-fs (%s): Remounting
//!   filesystem read-only"`, `"Aborting journal on device %s."`, `"FAT-fs (%s): error, …"`,
//!   `"FAT-fs (%s): Filesystem has been set read-only"`;
//! - the MMC core and hosts, named by the disk (`"%s: error %d transferring data, sector %u,
//!   nr %u, cmd response %#x, card status %#x"`, `"%s: error %d sending status command"`) or by
//!   the host (`"mmc0: Timeout waiting for hardware interrupt."`, `"mmc0: error -110 whilst
//!   initialising SD card"`, `"mmc0: running CQE recovery"`, `"mmc0: cqhci: timeout for tag
//!   %d"`).
//!
//! A message is about the drive when it names the disk or one of its partitions as a whole
//! word (`mmcblk0`, `mmcblk0p2`; `sda`, `sda1`), or, for MMC messages, starts with the drive's
//! host (`mmc0:`). Each message counts once, as its most serious kind.

use serde::{Deserialize, Serialize};

/// The kinds of trouble, most serious first. JSON: the snake_case names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trouble {
    /// A file system on the drive was remounted read-only (or set read-only).
    ReadOnlyRemount,
    /// A file system on the drive found an error (or aborted its journal).
    FsError,
    /// The block layer or the buffer cache failed a read or write on the drive.
    IoError,
    /// The SD host's command queue engine had to recover.
    CqeRecovery,
    /// A command or transfer timed out (`-110`, "timeout", "timed out", "timing out").
    Timeout,
    /// Any other error the MMC core or host logged for the drive.
    MmcError,
}

/// How many messages of each kind were logged about the drive (JSON: the `kernel_log.counts`
/// object).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TroubleCounts {
    /// [`Trouble::ReadOnlyRemount`] messages.
    pub read_only_remounts: u32,
    /// [`Trouble::FsError`] messages.
    pub fs_errors: u32,
    /// [`Trouble::IoError`] messages.
    pub io_errors: u32,
    /// [`Trouble::CqeRecovery`] messages.
    pub cqe_recoveries: u32,
    /// [`Trouble::Timeout`] messages.
    pub timeouts: u32,
    /// [`Trouble::MmcError`] messages.
    pub mmc_errors: u32,
}

impl TroubleCounts {
    /// Adds one message of `kind`.
    pub fn add(&mut self, kind: Trouble) {
        let n = match kind {
            Trouble::ReadOnlyRemount => &mut self.read_only_remounts,
            Trouble::FsError => &mut self.fs_errors,
            Trouble::IoError => &mut self.io_errors,
            Trouble::CqeRecovery => &mut self.cqe_recoveries,
            Trouble::Timeout => &mut self.timeouts,
            Trouble::MmcError => &mut self.mmc_errors,
        };
        *n = n.saturating_add(1);
    }

    /// True when data was lost or put at risk: I/O errors, file-system errors, read-only
    /// remounts.
    pub fn data_at_risk(&self) -> bool {
        self.read_only_remounts + self.fs_errors + self.io_errors > 0
    }

    /// True when the link or the card misbehaved without losing data: timeouts, MMC errors,
    /// command-queue recoveries.
    pub fn link_trouble(&self) -> bool {
        self.cqe_recoveries + self.timeouts + self.mmc_errors > 0
    }
}

/// The names a drive's messages carry: the disk (`mmcblk0`, `sda`) and its MMC host (`mmc0`),
/// when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriveNames {
    /// The whole disk.
    pub disk: String,
    /// The MMC host the card sits on.
    pub mmc_host: Option<String>,
}

impl DriveNames {
    /// True when `word` is the disk or one of its partitions (`mmcblk0p2` for a disk whose
    /// name ends in a digit, else `sda1`).
    fn is_ours(&self, word: &str) -> bool {
        let Some(rest) = word.strip_prefix(self.disk.as_str()) else {
            return false;
        };
        let digits = if self.disk.ends_with(|c: char| c.is_ascii_digit()) {
            match rest.strip_prefix('p') {
                Some(d) => d,
                None => return rest.is_empty(),
            }
        } else {
            rest
        };
        rest.is_empty() || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
    }

    /// True when `message` names the disk or a partition as a whole word.
    fn names_disk(&self, message: &str) -> bool {
        message
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| self.is_ours(w))
    }

    /// True when `message` is the drive's MMC host speaking (`mmc0: …`).
    fn is_host_of(&self, message: &str) -> bool {
        self.mmc_host.as_deref().is_some_and(|h| {
            message
                .strip_prefix(h)
                .is_some_and(|rest| rest.starts_with(':'))
        })
    }
}

/// The kind of trouble `message` (one kernel log message, without its record header) tells
/// about the drive `names`; `None` when it is not about the drive or tells no trouble.
pub fn classify(message: &str, names: &DriveNames) -> Option<Trouble> {
    let host = names.is_host_of(message);
    if !host && !names.names_disk(message) {
        return None;
    }
    let lower = message.to_ascii_lowercase();
    let has = |s: &str| lower.contains(s);
    if has("remounting filesystem read-only") || has("has been set read-only") {
        return Some(Trouble::ReadOnlyRemount);
    }
    if has("-fs error (device ") || has("aborting journal on device") || fat_error(&lower) {
        return Some(Trouble::FsError);
    }
    if has(" error, dev ") || has("buffer i/o error on dev") {
        return Some(Trouble::IoError);
    }
    if has("cqe recovery") || (has("cqhci") && has("recover")) {
        return Some(Trouble::CqeRecovery);
    }
    if has("-110") || has("timeout") || has("timed out") || has("timing out") {
        return Some(Trouble::Timeout);
    }
    if is_mmc(&lower, names) && (has("error") || has("failed") || has("stuck")) {
        return Some(Trouble::MmcError);
    }
    None
}

/// True when `message` is the kernel announcing that the drive (this medium) appeared: a new
/// card, a new disk, a loop device attached, a medium put into a reader. Messages before the
/// newest announcement are about an earlier medium under the same name and do not count.
///
/// The shapes matched are the kernel's own format strings:
/// - the MMC block driver's `"%s: %s %s %s%s"` (`mmcblk0: mmc0:aaaa SD32G 29.7 GiB`) and the
///   MMC core's `"%s: new %s%s%s%s%s%s card at address %04x"` / `"%s: new %s card on SPI"`
///   from the drive's host (`mmc0: new high speed SDHC card at address aaaa`);
/// - the SCSI disk driver's `"%llu %d-byte logical blocks: (%s/%s)"` under its `[sda]` prefix
///   (`sd 0:0:0:0: [sda] 61067264 512-byte logical blocks: (31.3 GB/29.1 GiB)`), printed on the
///   first scan and whenever a new medium changes the capacity;
/// - the block layer's `"%s: detected capacity change from %lld to %lld"` from 0 to more
///   (`loop3: detected capacity change from 0 to 131072`, a medium in a card reader).
pub fn announces(message: &str, names: &DriveNames) -> bool {
    let disk = names.disk.as_str();
    if let Some(rest) = message
        .strip_prefix(disk)
        .and_then(|r| r.strip_prefix(": "))
    {
        if let Some(to) = rest.strip_prefix("detected capacity change from 0 to ") {
            return to.trim().parse::<u64>().is_ok_and(|n| n > 0);
        }
        // `mmcblk0: mmc0:aaaa …`: the first word is `<host>:<rca>`.
        if disk.starts_with("mmcblk") {
            let first = rest.split(' ').next().unwrap_or("");
            return first
                .split_once(':')
                .is_some_and(|(h, rca)| is_mmc_host(h) && !rca.is_empty());
        }
        return false;
    }
    if names.is_host_of(message) {
        let rest = &message[names.mmc_host.as_deref().map_or(0, str::len) + 1..];
        return rest.starts_with(" new ")
            && (rest.contains(" card at address ") || rest.ends_with(" card on SPI"));
    }
    message.starts_with("sd ")
        && message.contains(&format!(" [{disk}] "))
        && message.contains("-byte logical blocks: (")
}

/// True for an MMC host's name: `mmc` and a number.
fn is_mmc_host(word: &str) -> bool {
    word.strip_prefix("mmc")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `FAT-fs (sda1): error, …` (fs/fat's `__fat_fs_error`).
fn fat_error(lower: &str) -> bool {
    lower.starts_with("fat-fs (") && lower.contains("): error")
}

/// True for messages of the MMC core, block driver or host: the host speaking, or an
/// `mmcblk` disk named at the start (`mmcblk0: error -84 transferring data …`).
fn is_mmc(lower: &str, names: &DriveNames) -> bool {
    names.is_host_of(lower) || (names.disk.starts_with("mmcblk") && lower.starts_with("mmcblk"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mmc() -> DriveNames {
        DriveNames {
            disk: "mmcblk0".into(),
            mmc_host: Some("mmc0".into()),
        }
    }

    fn sda() -> DriveNames {
        DriveNames {
            disk: "sda".into(),
            mmc_host: None,
        }
    }

    /// Each line of the fixture file `kernel-log/<name>` with the kind it must count as
    /// (`kind<TAB>message`, kind `-` for none).
    fn fixture(name: &str) -> Vec<(Option<Trouble>, String)> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/kernel-log")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        text.lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (kind, message) = l.split_once('\t').expect("kind<TAB>message");
                let kind = match kind {
                    "-" => None,
                    k => Some(serde_json::from_value(serde_json::json!(k)).unwrap()),
                };
                (kind, message.to_owned())
            })
            .collect()
    }

    #[test]
    fn sd_card_lines_sorted_as_the_fixture_says() {
        let lines = fixture("mmcblk0.txt");
        assert!(lines.len() >= 20, "{} lines", lines.len());
        for (kind, message) in lines {
            assert_eq!(classify(&message, &mmc()), kind, "{message}");
        }
    }

    #[test]
    fn usb_drive_lines_sorted_as_the_fixture_says() {
        for (kind, message) in fixture("sda.txt") {
            assert_eq!(classify(&message, &sda()), kind, "{message}");
        }
    }

    #[test]
    fn other_drives_and_hosts_are_not_ours() {
        let names = mmc();
        assert!(!names.is_ours("mmcblk01"));
        assert!(!names.is_ours("mmcblk0boot0"));
        assert!(!names.is_ours("mmcblk0rpmb"));
        assert!(names.is_ours("mmcblk0p12"));
        assert!(names.is_ours("mmcblk0"));
        assert!(!sda().is_ours("sdab"));
        assert!(sda().is_ours("sda3"));
        assert!(!sda().is_ours("sdap1"));
        assert_eq!(
            classify("mmc1: Timeout waiting for hardware interrupt.", &names),
            None
        );
        assert_eq!(
            classify("mmc10: Timeout waiting for hardware interrupt.", &names),
            None
        );
    }

    #[test]
    fn announcements_are_told_as_the_fixture_says() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/kernel-log/announcements.txt");
        let text = std::fs::read_to_string(path).unwrap();
        let mut seen = 0;
        for line in text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let f: Vec<&str> = line.splitn(4, '\t').collect();
            let names = DriveNames {
                disk: f[0].into(),
                mmc_host: (f[1] != "-").then(|| f[1].into()),
            };
            assert_eq!(announces(f[3], &names), f[2] == "yes", "{line}");
            assert_eq!(classify(f[3], &names), None, "{line}");
            seen += 1;
        }
        assert_eq!(seen, 25);
    }

    #[test]
    fn counts_add_up_by_kind() {
        let mut c = TroubleCounts::default();
        c.add(Trouble::Timeout);
        c.add(Trouble::Timeout);
        c.add(Trouble::IoError);
        assert_eq!(c.timeouts, 2);
        assert_eq!(c.io_errors, 1);
        assert!(c.data_at_risk());
        assert!(c.link_trouble());
        assert!(!TroubleCounts::default().data_at_risk());
    }
}
