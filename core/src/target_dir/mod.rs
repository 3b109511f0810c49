//! Targets: where the test runs. Pre-flight checks before a byte is written, the filesystem
//! (`statfs` magic), and the block-device stack behind a directory (st_dev →
//! `/sys/dev/block/MAJ:MIN` → partition → disk, through dm/LVM/crypt), with its transport.
//!
//! Every sysfs read goes through a root path (normally `/sys`) so that tests can point it at a
//! fixture tree. The pieces: [`fs`] (statfs magic, free space), [`mounts`] (mountinfo),
//! [`device`] (the sysfs device stack and transport), and [`list`] (where a test can run).

pub mod cache;
pub mod device;
pub mod fs;
mod list;
pub mod mounts;

pub use cache::cached_reason;
pub use list::{default_target, list};

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::i18n::{fill, gettext};
use crate::report::ErrorKind;

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
        use crate::units::human_bytes;
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
                // Translators: {free} and {needed} are sizes such as "120 MiB" or "21.3 GB".
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

fn inspect_error(path: &Path, e: impl std::fmt::Display) -> TargetError {
    TargetError::Inspect {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Inspects `dir` without the free-space check: filesystem, device stack, transport, warnings.
///
/// The filesystem type comes from the `statfs` magic; the mount point and options from the
/// longest mount-point prefix in `/proc/self/mountinfo`; the device from `st_dev` through
/// `<sysfs_root>/dev/block/MAJ:MIN` (for an anonymous `st_dev`, as on btrfs, from the mount's
/// source device). tmpfs/ramfs have no device and [`Transport::Memory`]; network filesystems
/// have none and [`Transport::Other`].
///
/// Errors: [`TargetError::Missing`], [`TargetError::NotADirectory`], [`TargetError::Inspect`]
/// (stat/statfs/statvfs failed).
pub fn inspect(dir: &Path, sysfs_root: &Path) -> Result<TargetInfo, TargetError> {
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TargetError::Missing {
                path: dir.to_path_buf(),
            })
        }
        Err(e) => return Err(inspect_error(dir, e)),
    };
    if !meta.is_dir() {
        return Err(TargetError::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    let path = std::fs::canonicalize(dir).map_err(|e| inspect_error(dir, e))?;
    let magic = fs::magic(&path).map_err(|e| inspect_error(dir, e))?;
    let space = fs::space(&path).map_err(|e| inspect_error(dir, e))?;
    let table = mounts::read();
    let (major, minor) = device::maj_min(meta.dev());
    let dev = format!("{major}:{minor}");
    let mount = mounts::find(&table, &path, Some(&dev));
    let fs_type = fs::type_name(magic, mount.map(|m| m.fs_type.as_str()));

    // overlayfs writes go to its upper layer: that layer's filesystem and device are the
    // ones measured (Raspberry Pi OS's "Overlay File System" puts it on tmpfs, i.e. memory).
    let upper = if fs_type == "overlay" {
        mount.and_then(|m| overlay_upper(&m.options))
    } else {
        None
    };
    let (device, transport) =
        if fs::is_memory(&fs_type) || upper.as_ref().is_some_and(|u| fs::is_memory(&u.fs_type)) {
            (None, Transport::Memory)
        } else if fs::is_network(&fs_type) {
            (None, Transport::Other)
        } else {
            let sysfs_dev = if let Some(u) = &upper {
                Some(u.dev.clone())
            } else if major != 0 {
                Some(dev)
            } else {
                mount.and_then(|m| source_dev(&m.source))
            };
            match sysfs_dev.and_then(|d| device::resolve(sysfs_root, &d)) {
                Some((info, transport)) => (Some(info), transport),
                None => (None, Transport::Other),
            }
        };

    let options = mount.map(|m| m.options.clone()).unwrap_or_default();
    let read_only = space.read_only || mount.is_some_and(|m| m.is_read_only());
    let mut warnings = warnings_for(&fs_type, mount);
    if fs_type == "overlay" && upper.is_none() {
        warnings.push(gettext(
            "This is an overlay filesystem whose upper layer could not be found: the figures may be memory's or another drive's, not this drive's.",
        ));
    }
    Ok(TargetInfo {
        path,
        fs_type,
        mount_point: mount
            .map(|m| m.mount_point.clone())
            .unwrap_or_else(|| PathBuf::from("/")),
        device,
        transport,
        free_bytes: space.free_bytes,
        total_bytes: space.total_bytes,
        read_only,
        mount_options: options,
        warnings,
    })
}

/// The upper layer of an overlayfs mount, where its writes go.
struct OverlayUpper {
    /// Filesystem type of the upper directory, e.g. `tmpfs`, `ext4`.
    fs_type: String,
    /// `MAJ:MIN` of the upper directory's filesystem (for an anonymous `st_dev`, as on
    /// btrfs, not resolvable through sysfs).
    dev: String,
}

/// The upper layer named by an overlayfs mount's `upperdir=` option, when it is an absolute
/// path that can be inspected from here. `None` otherwise (a read-only overlay has none; a
/// relative path or one in another mount namespace cannot be found).
fn overlay_upper(options: &[String]) -> Option<OverlayUpper> {
    let dir = PathBuf::from(mounts::unescape(mounts::option_value(options, "upperdir")?));
    if !dir.is_absolute() {
        return None;
    }
    let meta = std::fs::metadata(&dir).ok()?;
    let magic = fs::magic(&dir).ok()?;
    let table = mounts::read();
    let (major, minor) = device::maj_min(meta.dev());
    let dev = format!("{major}:{minor}");
    let mount = mounts::find(&table, &dir, Some(&dev));
    Some(OverlayUpper {
        fs_type: fs::type_name(magic, mount.map(|m| m.fs_type.as_str())),
        dev,
    })
}

/// `MAJ:MIN` of a mount source that is a block device node (`/dev/sda2`), for filesystems
/// whose `st_dev` is anonymous (btrfs). `None` for other sources.
fn source_dev(source: &str) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    if !source.starts_with("/dev/") {
        return None;
    }
    let meta = std::fs::metadata(source).ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    let (major, minor) = device::maj_min(meta.rdev());
    Some(format!("{major}:{minor}"))
}

/// Warnings for filesystems whose figures may not be the drive's: FUSE, ZFS, network
/// filesystems, btrfs with compression.
fn warnings_for(fs_type: &str, mount: Option<&mounts::MountEntry>) -> Vec<String> {
    let mut w = Vec::new();
    if fs::is_fuse(fs_type) {
        w.push(fill(
            // Translators: {fs_type} is e.g. fuse.sshfs or fuseblk.
            &gettext("{fs_type} is a FUSE filesystem: the figures may be the cache's or the FUSE program's, not the drive's."),
            &[("fs_type", &fs_type)],
        ));
    } else if fs_type == "zfs" {
        w.push(gettext(
            "ZFS caches and may compress data: the figures may be the cache's or compression's, not the drive's.",
        ));
    } else if fs::is_network(fs_type) {
        w.push(fill(
            &gettext("{fs_type} is a network filesystem: the figures are the network's and the server's, not a local drive's."),
            &[("fs_type", &fs_type)],
        ));
    } else if fs_type == "btrfs"
        && mount.is_some_and(|m| m.has_option("compress") || m.has_option("compress-force"))
    {
        w.push(gettext(
            "This btrfs filesystem is mounted with compression: the figures may be the cache's or compression's, not the drive's.",
        ));
    }
    w
}

/// True when this user may create files in `path` (access(2) with `W_OK | X_OK`).
pub(crate) fn writable(path: &Path) -> Result<(), nix::Error> {
    use nix::unistd::{access, AccessFlags};
    access(path, AccessFlags::W_OK | AccessFlags::X_OK)
}

/// Every pre-flight check, in order: exists, is a directory, not a kernel interface (proc,
/// sysfs, …), not a read-only mount, is writable, not memory (tmpfs, ramfs, hugetlbfs, an
/// overlay whose upper layer is memory, a zram/brd disk), at least [`needed_bytes`] free.
/// Writes nothing.
///
/// The read-only check comes before the permission check so that root on a read-only mount
/// is told the mount is read-only. Memory means tmpfs/ramfs or a zram/brd disk.
///
/// Errors: every [`TargetError`] variant, the first check that fails.
pub fn preflight(
    dir: &Path,
    file_size_bytes: u64,
    sysfs_root: &Path,
) -> Result<TargetInfo, TargetError> {
    let info = inspect(dir, sysfs_root)?;
    if fs::is_kernel_interface(&info.fs_type) {
        return Err(TargetError::NotStorage {
            path: info.path.clone(),
            fs_type: info.fs_type.clone(),
        });
    }
    if info.read_only {
        return Err(TargetError::ReadOnly {
            path: info.path.clone(),
        });
    }
    match writable(&info.path) {
        Ok(()) => {}
        Err(nix::Error::EROFS) => {
            return Err(TargetError::ReadOnly {
                path: info.path.clone(),
            })
        }
        Err(_) => {
            return Err(TargetError::NotWritable {
                path: info.path.clone(),
            })
        }
    }
    if fs::is_memory(&info.fs_type) || info.transport == Transport::Memory {
        let upper = (info.fs_type == "overlay")
            .then(|| overlay_upper(&info.mount_options))
            .flatten();
        let fs_type = match (&info.device, upper) {
            (_, Some(u)) => format!("{} over {}", info.fs_type, u.fs_type),
            (Some(d), None) if !fs::is_memory(&info.fs_type) => {
                format!("{}, {}", d.disk, info.fs_type)
            }
            _ => info.fs_type.clone(),
        };
        return Err(TargetError::Memory {
            path: info.path.clone(),
            fs_type,
        });
    }
    let needed = needed_bytes(file_size_bytes);
    if info.free_bytes < needed {
        return Err(TargetError::NoSpace {
            path: info.path.clone(),
            free_bytes: info.free_bytes,
            needed_bytes: needed,
        });
    }
    Ok(info)
}

/// A scratch directory for tests, on the same disk as the build (not /tmp, which may be
/// tmpfs): `<workspace>/target/tmp-tests/…`, removed when dropped.
#[cfg(test)]
pub(crate) fn scratch_dir() -> tempfile::TempDir {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/tmp-tests");
    std::fs::create_dir_all(&base).unwrap();
    tempfile::tempdir_in(base).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn mount_sources_give_the_device_behind_an_anonymous_st_dev() {
        // btrfs reports an anonymous st_dev (0:N); its mount source names the real device.
        // Check the fallback against every mount whose st_dev is real.
        use std::os::unix::fs::FileTypeExt;
        let mut checked = 0;
        for m in mounts::read() {
            let is_block =
                std::fs::metadata(&m.source).is_ok_and(|md| md.file_type().is_block_device());
            if is_block && !m.dev.starts_with("0:") {
                assert_eq!(
                    source_dev(&m.source).as_deref(),
                    Some(m.dev.as_str()),
                    "{m:?}"
                );
                checked += 1;
            }
        }
        assert_eq!(source_dev("tmpfs"), None);
        assert_eq!(source_dev("/dev/null"), None);
        println!("checked {checked} mounts");
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
