//! Targets: where the test runs. Pre-flight checks before a byte is written, the filesystem
//! (`statfs` magic), and the block-device stack behind a directory (st_dev →
//! `/sys/dev/block/MAJ:MIN` → partition → disk, through dm/LVM/crypt), with its transport.
//!
//! Every sysfs read goes through a root path (normally `/sys`) so that tests can point it at a
//! fixture tree.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How the disk under test is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Transport {
    /// An SD or microSD card (mmc bus, type SD).
    #[serde(rename = "SD")]
    Sd,
    /// Soldered eMMC (mmc bus, type MMC).
    #[serde(rename = "eMMC")]
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
    /// Warnings for the report: FUSE, ZFS, NFS/CIFS, compressing btrfs (figures may be cache).
    pub warnings: Vec<String>,
}

/// Why a directory cannot be tested. Each message says what happened; [`TargetError::hint`]
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

impl TargetError {
    /// A stable machine-readable kind for JSON: `missing`, `not_a_directory`, `not_writable`,
    /// `read_only`, `memory`, `no_space`, `inspect`.
    pub fn kind(&self) -> &'static str {
        match self {
            TargetError::Missing { .. } => "missing",
            TargetError::NotADirectory { .. } => "not_a_directory",
            TargetError::NotWritable { .. } => "not_writable",
            TargetError::ReadOnly { .. } => "read_only",
            TargetError::Memory { .. } => "memory",
            TargetError::NoSpace { .. } => "no_space",
            TargetError::Inspect { .. } => "inspect",
        }
    }
}

/// The free space a profile needs: file size + 10 % + 32 MiB, bytes.
pub fn needed_bytes(file_size_bytes: u64) -> u64 {
    file_size_bytes
        .saturating_add(file_size_bytes / 10)
        .saturating_add(32 * crate::units::MIB)
}

/// Inspects `dir` without the free-space check: filesystem, device stack, transport, warnings.
///
/// Errors: [`TargetError::Missing`], [`TargetError::NotADirectory`], [`TargetError::Inspect`].
pub fn inspect(dir: &Path, sysfs_root: &Path) -> Result<TargetInfo, TargetError> {
    let _ = (dir, sysfs_root);
    Err(TargetError::Inspect {
        path: dir.to_path_buf(),
        message: "not yet".into(),
    })
}

/// Every pre-flight check, in order: exists, is a directory, is writable, not a read-only
/// mount, not memory, at least [`needed_bytes`] free. Writes nothing.
pub fn preflight(
    dir: &Path,
    file_size_bytes: u64,
    sysfs_root: &Path,
) -> Result<TargetInfo, TargetError> {
    let _ = (file_size_bytes, sysfs_root);
    inspect(dir, sysfs_root)
}

/// Writable mounted filesystems a person could test, each inspected (real block devices and
/// their mount points; pseudo filesystems left out), sorted with SD cards first.
pub fn list(sysfs_root: &Path) -> Vec<TargetInfo> {
    let _ = sysfs_root;
    Vec::new()
}

/// The default target: `/var/tmp` like upstream; when that is not on an SD card but a writable
/// SD card filesystem is mounted, that filesystem's mount point (or a writable directory on it).
pub fn default_target(sysfs_root: &Path) -> PathBuf {
    let _ = sysfs_root;
    PathBuf::from("/var/tmp")
}
