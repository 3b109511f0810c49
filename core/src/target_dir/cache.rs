//! Layers that answer from memory although the test asks for O_DIRECT: a target that passes
//! pre-flight can still be measured from a cache, and such a figure is shown but never graded.
//!
//! Found here, from the filesystem down to the disks (through dm, md and loop stacks, and a
//! loop device's backing file, which is followed to its own filesystem and disks):
//! - FUSE filesystems (`fuse.*`, `fuseblk`, e.g. ntfs-3g, sshfs): the kernel may pass O_DIRECT
//!   to the FUSE program, which is free to serve it from its own or the page cache; nothing
//!   visible from here proves otherwise.
//! - Network filesystems (NFS, CIFS/SMB, 9p, virtiofs, Ceph, AFS): the client may bypass its
//!   page cache, but the server's answers.
//! - ZFS before OpenZFS 2.3 (version from `<sysfs>/module/zfs/version`), which accepts
//!   O_DIRECT and ignores it (the ARC answers); an unknown version counts as old.
//! - A loop device without direct I/O (`<sysfs>/block/loopN/loop/dio` is `0`, or absent as on
//!   kernels before direct-I/O loop support): the loop driver reads and writes its backing file
//!   through the page cache.
//! - A loop device whose backing file is in memory (tmpfs, ramfs) or on any of the above, or
//!   whose backing device node is a RAM disk.
//! - An overlay filesystem whose upper layer (where writes go) cannot be found.
//! - RAM disks (zram, brd `ramN`) anywhere under a dm or md device (a disk that is memory
//!   *first* in the stack is already refused by pre-flight).
//! - Network block devices (`nbdN`): the server's page cache answers.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::{device, fs, mounts, TargetInfo, Transport};
use crate::i18n::{fill, gettext};

/// How deep loop-over-filesystem-over-loop chains are followed.
const MAX_DEPTH: u32 = 8;

/// Why the figures measured in `info` would be a cache's rather than the drive's, as a
/// translated sentence; `None` when every layer found does direct I/O to storage.
///
/// Reads `<sysfs_root>/block/<disk>/loop/{dio,backing_file}` and `<sysfs_root>/module/zfs/
/// version`; follows a loop's backing file with `stat`/`statfs` on the real path. Never fails:
/// what cannot be read is judged as described in the module documentation.
pub fn cached_reason(info: &TargetInfo, sysfs_root: &Path) -> Option<String> {
    if let Some(r) = fs_reason(&info.fs_type, sysfs_root) {
        return Some(r);
    }
    if info.fs_type == "overlay" && super::inspect::overlay_upper(&info.mount_options).is_none() {
        return Some(gettext(
            "this overlay filesystem's upper layer, where its writes go, could not be found: it may be memory",
        ));
    }
    let device = info.device.as_ref()?;
    disks_reason(device, sysfs_root, 0)
}

/// The reason a filesystem of this type answers from memory, if it does.
pub fn fs_reason(fs_type: &str, sysfs_root: &Path) -> Option<String> {
    if fs::is_memory(fs_type) {
        return Some(fill(
            &gettext("{fs_type} is memory, not storage"),
            &[("fs_type", &fs_type)],
        ));
    }
    if fs::is_fuse(fs_type) {
        return Some(fill(
            // Translators: {fs_type} is e.g. fuseblk or fuse.sshfs.
            &gettext("{fs_type} is a FUSE filesystem: it can accept direct I/O and still answer from a cache, so its figures cannot be shown to be the drive's"),
            &[("fs_type", &fs_type)],
        ));
    }
    if fs::is_network(fs_type) {
        return Some(fill(
            &gettext("{fs_type} is a network filesystem: the server's memory answers, not a drive"),
            &[("fs_type", &fs_type)],
        ));
    }
    if fs_type == "zfs" {
        let version = crate::sysfs::read_attr(&sysfs_root.join("module/zfs/version"));
        if !version.as_deref().is_some_and(zfs_honours_direct_io) {
            return Some(fill(
                // Translators: {version} is the ZFS module's version, or "unknown".
                &gettext("ZFS {version} accepts direct I/O but answers from its ARC cache (direct I/O needs OpenZFS 2.3 or later)"),
                &[(
                    "version",
                    &version.unwrap_or_else(|| gettext("of unknown version")),
                )],
            ));
        }
    }
    None
}

/// True for OpenZFS 2.3 and later (`2.3.0-1`, `2.4.1`), which honour O_DIRECT.
fn zfs_honours_direct_io(version: &str) -> bool {
    let mut parts = version
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => (major, minor) >= (2, 3),
        _ => false,
    }
}

/// The first reason among every disk under `device` (dm and md list several).
fn disks_reason(device: &super::DeviceInfo, sysfs_root: &Path, depth: u32) -> Option<String> {
    let mut disks = device.disks.clone();
    if disks.is_empty() {
        disks.push(device.disk.clone());
    }
    disks.iter().find_map(|d| disk_reason(d, sysfs_root, depth))
}

/// The reason a whole disk answers from memory, if it does.
fn disk_reason(disk: &str, sysfs_root: &Path, depth: u32) -> Option<String> {
    let dir = crate::sysfs::dir_of_name(sysfs_root, disk)?;
    let transport = device::transport_of(&dir);
    if transport == Transport::Memory {
        return Some(fill(
            &gettext("{disk} is a RAM disk: memory, not storage"),
            &[("disk", &disk)],
        ));
    }
    if disk.starts_with("nbd") {
        return Some(fill(
            &gettext("{disk} is a network block device: the server's memory answers, not a drive"),
            &[("disk", &disk)],
        ));
    }
    if transport != Transport::Loop {
        return None;
    }
    let backing = crate::sysfs::read_attr(&dir.join("loop/backing_file"));
    let shown = backing.clone().unwrap_or_else(|| gettext("unknown"));
    if crate::sysfs::read_attr(&dir.join("loop/dio")).as_deref() != Some("1") {
        return Some(fill(
            // Translators: {disk} is e.g. loop3, {file} the loop device's backing file.
            &gettext("{disk} is a loop device without direct I/O: it reads and writes its backing file {file} through the page cache"),
            &[("disk", &disk), ("file", &shown)],
        ));
    }
    let file = PathBuf::from(backing?.trim_end_matches(" (deleted)"));
    backing_reason(&file, sysfs_root, depth).map(|why| {
        fill(
            // Translators: {why} says why the backing file's storage is memory or a cache.
            &gettext(
                "{disk} is a loop device whose backing file {file} is not on direct storage: {why}",
            ),
            &[("disk", &disk), ("file", &file.display()), ("why", &why)],
        )
    })
}

/// The reason the storage holding a loop device's backing file answers from memory: its
/// filesystem, then the disks under that filesystem. `None` when it cannot be inspected (a
/// file in another mount namespace): the loop does direct I/O and nothing more is known.
fn backing_reason(file: &Path, sysfs_root: &Path, depth: u32) -> Option<String> {
    if depth >= MAX_DEPTH {
        return None;
    }
    let meta = std::fs::metadata(file).ok()?;
    if meta.file_type().is_block_device() {
        // A loop over a device node: that device does the I/O.
        let (major, minor) = crate::sysfs::maj_min(meta.rdev());
        let (info, _) = device::resolve(sysfs_root, &format!("{major}:{minor}"))?;
        return disks_reason(&info, sysfs_root, depth + 1);
    }
    let magic = fs::magic(file).ok()?;
    let (major, minor) = crate::sysfs::maj_min(meta.dev());
    let dev = format!("{major}:{minor}");
    let table = mounts::read();
    let mount = mounts::find(&table, file, Some(&dev));
    let fs_type = fs::type_name(magic, mount.map(|m| m.fs_type.as_str()));
    if let Some(r) = fs_reason(&fs_type, sysfs_root) {
        return Some(r);
    }
    let (info, _) = device::resolve(sysfs_root, &dev)?;
    disks_reason(&info, sysfs_root, depth + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zfs_versions() {
        assert!(zfs_honours_direct_io("2.3.0-1"));
        assert!(zfs_honours_direct_io("2.4.1"));
        assert!(zfs_honours_direct_io("3.0"));
        assert!(!zfs_honours_direct_io("2.2.2-0ubuntu9.1"));
        assert!(!zfs_honours_direct_io("0.8.6"));
        assert!(!zfs_honours_direct_io("garbage"));
    }

    #[test]
    fn filesystems_that_answer_from_memory() {
        let none = Path::new("/nonexistent-sysfs");
        for t in [
            "fuseblk",
            "fuse.sshfs",
            "nfs4",
            "cifs",
            "9p",
            "virtiofs",
            "zfs",
        ] {
            assert!(fs_reason(t, none).is_some(), "{t}");
        }
        for t in ["ext4", "xfs", "btrfs", "vfat", "f2fs"] {
            assert!(fs_reason(t, none).is_none(), "{t}");
        }
    }
}
