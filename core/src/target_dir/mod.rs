//! Targets: where the test runs. Pre-flight checks before a byte is written, the filesystem
//! (`statfs` magic), and the block-device stack behind a directory (st_dev →
//! `/sys/dev/block/MAJ:MIN` → partition → disk, through dm/LVM/crypt), with its transport.
//!
//! Every sysfs read goes through a root path (normally `/sys`) so that tests can point it at a
//! fixture tree. The pieces: [`fs`] (statfs magic, free space), [`mounts`] (mountinfo),
//! [`device`] (the sysfs device stack and transport), [`list`] (where a test can run), and
//! [`MountWatch`] (the mount table's changes, as they happen).

pub mod cache;
mod changed;
pub mod device;
pub mod fs;
mod inspect;
mod list;
pub mod mounts;
mod watch;

pub use cache::cached_reason;
pub use changed::{drive_changed, DriveChange};
pub(crate) use inspect::writable;
pub use inspect::{inspect, is_system_drive, preflight};
pub use list::{default_target, list};
pub use watch::MountWatch;

use std::path::PathBuf;

use crate::error_kind::ErrorKind;

use serde::{Deserialize, Serialize};

/// How the disk under test is attached: the target's `transport` and the card's `kind` alike.
/// JSON as [`Transport::as_str`] (the card's `kind` spells eMMC `MMC`, see
/// [`Transport::card_kind_str`]; both spellings are read in either place).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Transport {
    /// An SD or microSD card (mmc bus, type SD).
    #[serde(rename = "SD")]
    Sd,
    /// Soldered eMMC, or an MMC card (mmc bus, type MMC).
    #[serde(rename = "eMMC", alias = "MMC")]
    Emmc,
    /// A USB drive or card reader.
    #[serde(rename = "USB")]
    Usb,
    /// An NVMe drive.
    #[serde(rename = "NVMe")]
    Nvme,
    /// A virtio disk (virtual machine).
    #[serde(rename = "virtio")]
    Virtio,
    /// A loop device (a file used as a disk).
    #[serde(rename = "loop")]
    Loop,
    /// Memory (tmpfs, ramfs, zram, brd).
    #[serde(rename = "memory")]
    Memory,
    /// Anything else (SATA, SCSI, network filesystems, unknown).
    #[default]
    #[serde(rename = "other")]
    Other,
}

/// The block device behind a target directory.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// The device the filesystem is on, e.g. `mmcblk0p2`, `dm-0`, `sda1`, `loop3`.
    pub name: String,
    /// The whole disk that does the I/O, e.g. `mmcblk0`, `sda`, `nvme0n1`, `loop3`.
    pub disk: String,
    /// The stack from the filesystem's device down to the disk, e.g. `["dm-0", "sda2", "sda"]`.
    pub stack: Vec<String>,
    /// `MAJ:MIN` of the filesystem's device.
    pub dev: String,
    /// Vendor and model as sysfs has them (USB/SCSI `vendor` + `model`, NVMe `model`, SD
    /// `name`), trimmed; `None` when sysfs has none.
    pub model: Option<String>,
    /// For a loop device: its backing file.
    pub backing_file: Option<String>,
    /// Every whole disk under the stack (more than one for md RAID or LVM over several
    /// disks); `disk` is the first.
    #[serde(default)]
    pub disks: Vec<String>,
}

/// A checked target: what the report says about where the test ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetInfo {
    /// The directory, canonicalised.
    pub path: PathBuf,
    /// Filesystem type name, e.g. `ext4`, `vfat`, `tmpfs`, `fuse`.
    pub fs_type: String,
    /// The mount point of the filesystem holding `path`.
    pub mount_point: PathBuf,
    /// The device behind it; `None` for filesystems without one (tmpfs, NFS).
    pub device: Option<DeviceInfo>,
    /// The transport of `device.disk`.
    pub transport: Transport,
    /// Bytes free for this user (statvfs `f_bavail × f_frsize`), u64.
    pub free_bytes: u64,
    /// Total bytes of the filesystem, u64.
    pub total_bytes: u64,
    /// Mounted read-only (statvfs `ST_RDONLY`, or `ro` among the mount options).
    #[serde(default)]
    pub read_only: bool,
    /// The mount's options (per-mount, then superblock), as `/proc/self/mountinfo` has them.
    #[serde(default)]
    pub mount_options: Vec<String>,
    /// Warnings for the report: FUSE, ZFS, NFS/CIFS, compressing btrfs (figures may be cache).
    pub warnings: Vec<String>,
}

/// Why a directory cannot be tested. Each message says what happened; the report's advice
/// says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// The path does not exist.
    #[error("{path} does not exist")]
    Missing {
        /// The path as given.
        path: PathBuf,
    },
    /// The path is not a directory.
    #[error("{path} is not a directory")]
    NotADirectory {
        /// The path as given.
        path: PathBuf,
    },
    /// The user may not create files there.
    #[error("{path} is not writable by this user")]
    NotWritable {
        /// The path.
        path: PathBuf,
    },
    /// The filesystem is mounted read-only (or the card's lock switch is on).
    #[error("{path} is on a read-only filesystem")]
    ReadOnly {
        /// The path.
        path: PathBuf,
    },
    /// tmpfs, ramfs or zram: memory, not storage.
    #[error("{path} is in memory ({fs_type}), not on storage")]
    Memory {
        /// The path.
        path: PathBuf,
        /// `tmpfs`, `ramfs`, `zram`, …
        fs_type: String,
    },
    /// A kernel interface (proc, sysfs, cgroup, …): no drive is behind it.
    #[error("{path} is a kernel interface ({fs_type}), not storage")]
    NotStorage {
        /// The path.
        path: PathBuf,
        /// `proc`, `sysfs`, …
        fs_type: String,
    },
    /// Not enough free space for the test file.
    #[error("not enough free space in {path}: {free_bytes} bytes free, {needed_bytes} needed")]
    NoSpace {
        /// The path.
        path: PathBuf,
        /// Bytes free, u64.
        free_bytes: u64,
        /// Bytes needed: the profile's file size + 10 % + 32 MiB, u64.
        needed_bytes: u64,
    },
    /// Any other failure to inspect the path (stat, statfs).
    #[error("cannot inspect {path}: {message}")]
    Inspect {
        /// The path.
        path: PathBuf,
        /// The OS error text.
        message: String,
    },
}

impl Transport {
    /// The name as the report's JSON spells it: `SD`, `eMMC`, `USB`, `NVMe`, `virtio`, `loop`,
    /// `memory`, `other` (untranslated; the app has its own words for people).
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Sd => "SD",
            Transport::Emmc => "eMMC",
            Transport::Usb => "USB",
            Transport::Nvme => "NVMe",
            Transport::Virtio => "virtio",
            Transport::Loop => "loop",
            Transport::Memory => "memory",
            Transport::Other => "other",
        }
    }

    /// The name as the card's `kind` spells it in JSON and `agnostics-cli card`: as
    /// [`Transport::as_str`], except `MMC` for eMMC (the card's type as the kernel names it).
    pub fn card_kind_str(self) -> &'static str {
        match self {
            Transport::Emmc => "MMC",
            other => other.as_str(),
        }
    }
}

/// Serde for [`crate::card::CardInfo::kind`]: a [`Transport`] written as
/// [`Transport::card_kind_str`], read in either spelling.
pub mod card_kind_spelling {
    use super::Transport;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `kind` as [`Transport::card_kind_str`].
    pub fn serialize<S: Serializer>(kind: &Transport, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(kind.card_kind_str())
    }

    /// Reads a transport name (`MMC` or `eMMC` for eMMC).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Transport, D::Error> {
        Transport::deserialize(d)
    }
}

impl TargetError {
    /// The report's kind of this error: `missing`, `not_a_directory`, `not_writable`,
    /// `read_only`, `memory`, `not_storage`, `no_space` or `inspect`.
    pub fn kind(&self) -> ErrorKind {
        match self {
            TargetError::Missing { .. } => ErrorKind::Missing,
            TargetError::NotADirectory { .. } => ErrorKind::NotADirectory,
            TargetError::NotWritable { .. } => ErrorKind::NotWritable,
            TargetError::ReadOnly { .. } => ErrorKind::ReadOnly,
            TargetError::Memory { .. } => ErrorKind::Memory,
            TargetError::NotStorage { .. } => ErrorKind::NotStorage,
            TargetError::NoSpace { .. } => ErrorKind::NoSpace,
            TargetError::Inspect { .. } => ErrorKind::Inspect,
        }
    }
}

impl TargetError {
    /// What happened, for people, translated (the `Display` form stays English for logs).
    pub fn message(&self) -> String {
        use crate::i18n::{fill, gettext};
        // Space in SI units, like the drive chooser's "21.3 GB free".
        use crate::units::si_bytes as human_bytes;
        match self {
            TargetError::Missing { path } => fill(
                &gettext("{path} does not exist"),
                &[("path", &path.display())],
            ),
            TargetError::NotADirectory { path } => fill(
                &gettext("{path} is not a directory"),
                &[("path", &path.display())],
            ),
            TargetError::NotWritable { path } => fill(
                &gettext("{path} is not writable by this user"),
                &[("path", &path.display())],
            ),
            TargetError::ReadOnly { path } => fill(
                &gettext("{path} is on a read-only filesystem"),
                &[("path", &path.display())],
            ),
            TargetError::Memory { path, fs_type } => fill(
                &gettext("{path} is in memory ({fs_type}), not on storage"),
                &[("path", &path.display()), ("fs_type", fs_type)],
            ),
            TargetError::NotStorage { path, fs_type } => fill(
                &gettext("{path} is a kernel interface ({fs_type}), not storage"),
                &[("path", &path.display()), ("fs_type", fs_type)],
            ),
            TargetError::NoSpace {
                path,
                free_bytes,
                needed_bytes,
            } => fill(
                // Translators: {free} and {needed} are sizes such as "120 MB" or "21.3 GB".
                &gettext("not enough free space in {path}: {free} free, {needed} needed"),
                &[
                    ("path", &path.display()),
                    ("free", &human_bytes(*free_bytes)),
                    ("needed", &human_bytes(*needed_bytes)),
                ],
            ),
            TargetError::Inspect { path, message } => fill(
                &gettext("cannot inspect {path}: {error}"),
                &[("path", &path.display()), ("error", message)],
            ),
        }
    }
}

/// The free space a profile needs: file size + 10 % + 32 MiB, bytes.
pub fn needed_bytes(file_size_bytes: u64) -> u64 {
    file_size_bytes
        .saturating_add(file_size_bytes / 10)
        .saturating_add(32 * crate::units::MIB)
}

/// A scratch directory for tests, on the same disk as the build (not /tmp, which may be
/// tmpfs): `<workspace>/target/tmp-tests/…`, removed when dropped.
#[cfg(test)]
pub(crate) fn scratch_dir() -> tempfile::TempDir {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/tmp-tests");
    std::fs::create_dir_all(&base).unwrap();
    tempfile::tempdir_in(base).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn needed_bytes_adds_ten_percent_and_32_mib() {
        let mib = crate::units::MIB;
        assert_eq!(
            needed_bytes(256 * mib),
            256 * mib + 256 * mib / 10 + 32 * mib
        );
        assert_eq!(needed_bytes(u64::MAX), u64::MAX);
    }

    #[test]
    fn refuses_missing_target() {
        let d = scratch_dir();
        let missing = d.path().join("nope");
        assert_eq!(
            preflight(&missing, 1, Path::new("/sys")),
            Err(TargetError::Missing { path: missing })
        );
    }

    #[test]
    fn refuses_a_file_as_target() {
        let d = scratch_dir();
        let file = d.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        assert_eq!(
            preflight(&file, 1, Path::new("/sys")).unwrap_err().kind(),
            ErrorKind::NotADirectory
        );
    }

    #[test]
    fn inspects_a_directory_on_disk() {
        let d = scratch_dir();
        let info = preflight(d.path(), 1024, Path::new("/sys")).unwrap();
        assert_eq!(info.path, std::fs::canonicalize(d.path()).unwrap());
        assert!(info.total_bytes > 0 && info.free_bytes > 0);
        assert!(!info.read_only);
        assert!(info.path.starts_with(&info.mount_point));
    }

    #[test]
    fn fixture_sysfs_without_the_device_gives_no_device() {
        let d = scratch_dir();
        let empty = scratch_dir();
        let info = inspect(d.path(), empty.path()).unwrap();
        assert_eq!(info.device, None);
        assert_eq!(info.transport, Transport::Other);
    }
}

#[cfg(test)]
mod transport_tests {
    use super::Transport;

    #[test]
    fn as_str_is_the_json_spelling() {
        for t in [
            Transport::Sd,
            Transport::Emmc,
            Transport::Usb,
            Transport::Nvme,
            Transport::Virtio,
            Transport::Loop,
            Transport::Memory,
            Transport::Other,
        ] {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
        }
    }

    #[test]
    fn the_card_kind_spells_emmc_as_mmc_and_reads_both() {
        use crate::card::CardInfo;
        let card = CardInfo {
            kind: Transport::Emmc,
            ..CardInfo::default()
        };
        let json = serde_json::to_value(&card).unwrap();
        assert_eq!(json["kind"], "MMC");
        assert_eq!(serde_json::to_value(Transport::Emmc).unwrap(), "eMMC");
        for spelling in ["MMC", "eMMC"] {
            let mut doc = json.clone();
            doc["kind"] = spelling.into();
            let back: CardInfo = serde_json::from_value(doc).unwrap();
            assert_eq!(back.kind, Transport::Emmc);
            let t: Transport = serde_json::from_value(spelling.into()).unwrap();
            assert_eq!(t, Transport::Emmc);
        }
        for t in [
            Transport::Sd,
            Transport::Usb,
            Transport::Nvme,
            Transport::Virtio,
            Transport::Loop,
            Transport::Memory,
            Transport::Other,
        ] {
            assert_eq!(t.card_kind_str(), t.as_str());
        }
    }
}
