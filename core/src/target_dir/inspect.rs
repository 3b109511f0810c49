//! Looking at a target directory: [`inspect`] (its filesystem, mount, the device stack behind
//! it and its transport, with warnings where the figures may not be the drive's) and
//! [`preflight`] (every check before a byte is written).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::{device, fs, mounts, needed_bytes, DeviceInfo, TargetError, TargetInfo, Transport};
use crate::i18n::{fill, gettext};

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
    let meta = directory_meta(dir)?;
    let path = std::fs::canonicalize(dir).map_err(|e| inspect_error(dir, e))?;
    let magic = fs::magic(&path).map_err(|e| inspect_error(dir, e))?;
    let space = fs::space(&path).map_err(|e| inspect_error(dir, e))?;
    let table = mounts::read();
    let (major, minor) = crate::sysfs::maj_min(meta.dev());
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
    let sysfs_dev = if let Some(u) = &upper {
        Some(u.dev.clone())
    } else if major != 0 {
        Some(dev)
    } else {
        mount.and_then(|m| source_dev(&m.source))
    };
    let (device, transport) = device_behind(sysfs_root, &fs_type, upper.as_ref(), sysfs_dev);

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

/// The metadata of `dir`, which must exist and be a directory.
fn directory_meta(dir: &Path) -> Result<std::fs::Metadata, TargetError> {
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
    Ok(meta)
}

/// The disk behind a filesystem of type `fs_type` and its transport: none and
/// [`Transport::Memory`] for memory (or an overlay whose upper layer is memory), none and
/// [`Transport::Other`] for a network filesystem, else the device stack of `sysfs_dev`
/// (`MAJ:MIN`) when sysfs knows it.
fn device_behind(
    sysfs_root: &Path,
    fs_type: &str,
    upper: Option<&OverlayUpper>,
    sysfs_dev: Option<String>,
) -> (Option<DeviceInfo>, Transport) {
    if fs::is_memory(fs_type) || upper.is_some_and(|u| fs::is_memory(&u.fs_type)) {
        (None, Transport::Memory)
    } else if fs::is_network(fs_type) {
        (None, Transport::Other)
    } else {
        match sysfs_dev.and_then(|d| device::resolve(sysfs_root, &d)) {
            Some((info, transport)) => (Some(info), transport),
            None => (None, Transport::Other),
        }
    }
}

/// The upper layer of an overlayfs mount, where its writes go.
pub(super) struct OverlayUpper {
    /// Filesystem type of the upper directory, e.g. `tmpfs`, `ext4`.
    fs_type: String,
    /// `MAJ:MIN` of the upper directory's filesystem (for an anonymous `st_dev`, as on
    /// btrfs, not resolvable through sysfs).
    dev: String,
}

/// The upper layer named by an overlayfs mount's `upperdir=` option, when it is an absolute
/// path that can be inspected from here. `None` otherwise (a read-only overlay has none; a
/// relative path or one in another mount namespace cannot be found).
pub(super) fn overlay_upper(options: &[String]) -> Option<OverlayUpper> {
    let dir = PathBuf::from(mounts::unescape(mounts::option_value(options, "upperdir")?));
    if !dir.is_absolute() {
        return None;
    }
    let meta = std::fs::metadata(&dir).ok()?;
    let magic = fs::magic(&dir).ok()?;
    let table = mounts::read();
    let (major, minor) = crate::sysfs::maj_min(meta.dev());
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
    let (major, minor) = crate::sysfs::maj_min(meta.rdev());
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

/// True when `info` is on the drive the running system is on: the root filesystem, or
/// another filesystem on the same disk as `/` (the boot partition of the system's card).
/// Reformatting such a drive erases the operating system. False when `/` cannot be inspected.
pub fn is_system_drive(info: &TargetInfo, sysfs_root: &Path) -> bool {
    if info.mount_point == Path::new("/") {
        return true;
    }
    let Some(disk) = info.device.as_ref().map(|d| d.disk.clone()) else {
        return false;
    };
    inspect(Path::new("/"), sysfs_root)
        .ok()
        .and_then(|root| root.device)
        .is_some_and(|d| d.disk == disk)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
