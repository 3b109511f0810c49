//! Where a test can run: the writable mounted filesystems on drives, one per device, SD cards
//! first, and the default target (upstream's `/var/tmp`, or an SD card when that is not on one).

use std::path::{Path, PathBuf};

use super::{fs, inspect, mounts, writable, TargetInfo, Transport};

/// The order targets are listed in: SD cards first, then eMMC, USB, NVMe, the rest.
fn transport_rank(t: Transport) -> u8 {
    match t {
        Transport::Sd => 0,
        Transport::Emmc => 1,
        Transport::Usb => 2,
        Transport::Nvme => 3,
        Transport::Other => 4,
        Transport::Virtio => 5,
        Transport::Loop => 6,
        Transport::Memory => 7,
    }
}

/// The mount that stands for its device: mounts of the filesystem's root (`/`) before bind
/// mounts of subdirectories, then the shortest mount point.
fn representative<'a>(entries: &[&'a mounts::MountEntry]) -> Option<&'a mounts::MountEntry> {
    entries.iter().copied().min_by_key(|e| {
        (
            e.root != Path::new("/"),
            e.mount_point.components().count(),
            e.mount_point.clone(),
        )
    })
}

/// Key identifying the filesystem of a mount: its `MAJ:MIN`, or its source for anonymous
/// devices (btrfs subvolumes share the source).
fn mount_key(e: &mounts::MountEntry) -> String {
    if e.dev.starts_with("0:") && e.source.starts_with("/dev/") {
        e.source.clone()
    } else {
        e.dev.clone()
    }
}

/// The directory to offer on the filesystem mounted at `m`: `/var/tmp` for the root
/// filesystem (as upstream), the mount point when this user can write there (e.g.
/// `/media/<user>/CARD`), else the user's home when it lives on that filesystem.
fn offered_dir(m: &mounts::MountEntry, table: &[mounts::MountEntry]) -> Option<PathBuf> {
    let same_fs = |p: &Path| {
        std::fs::canonicalize(p)
            .ok()
            .and_then(|c| mounts::find(table, &c, None).map(mount_key))
            == Some(mount_key(m))
    };
    let usable = |p: &Path| p.is_dir() && writable(p).is_ok() && same_fs(p);
    let mut candidates = Vec::new();
    if m.mount_point == Path::new("/") {
        candidates.push(PathBuf::from("/var/tmp"));
    }
    candidates.push(m.mount_point.clone());
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(PathBuf::from(home));
    }
    candidates.into_iter().find(|p| usable(p))
}

/// Writable mounted filesystems a person could test, each inspected, one per device, sorted
/// with SD cards first (then eMMC, USB, NVMe, …, then by path).
///
/// Left out: pseudo and virtual filesystems (proc, sysfs, cgroup, overlay, squashfs, tmpfs, …),
/// network filesystems, FUSE filesystems without a block device, read-only mounts, memory
/// disks, and filesystems this user cannot write anywhere on.
pub fn list(sysfs_root: &Path) -> Vec<TargetInfo> {
    let table = mounts::read();
    let candidates: Vec<&mounts::MountEntry> = table
        .iter()
        .filter(|e| {
            !fs::is_pseudo(&e.fs_type)
                && !fs::is_network(&e.fs_type)
                && !e.is_read_only()
                && (e.source.starts_with("/dev/") || e.fs_type == "zfs")
                && (!fs::is_fuse(&e.fs_type) || e.fs_type == "fuseblk")
        })
        .collect();
    let mut keys: Vec<String> = candidates.iter().map(|e| mount_key(e)).collect();
    keys.sort();
    keys.dedup();
    let mut out: Vec<TargetInfo> = Vec::new();
    for key in keys {
        let group: Vec<&mounts::MountEntry> = candidates
            .iter()
            .copied()
            .filter(|e| mount_key(e) == key)
            .collect();
        let Some(m) = representative(&group) else {
            continue;
        };
        let Some(dir) = offered_dir(m, &table) else {
            continue;
        };
        let Ok(info) = inspect(&dir, sysfs_root) else {
            continue;
        };
        if info.transport == Transport::Memory || info.read_only {
            continue;
        }
        if out.iter().any(|o| o.path == info.path) {
            continue;
        }
        out.push(info);
    }
    out.sort_by(|a, b| {
        (transport_rank(a.transport), &a.path).cmp(&(transport_rank(b.transport), &b.path))
    });
    out
}

/// The default target: `/var/tmp` like upstream; when that is not on an SD card but a writable
/// SD card filesystem is mounted, that filesystem's directory from [`list`].
pub fn default_target(sysfs_root: &Path) -> PathBuf {
    let var_tmp = PathBuf::from("/var/tmp");
    if inspect(&var_tmp, sysfs_root).is_ok_and(|i| i.transport == Transport::Sd) {
        return var_tmp;
    }
    list(sysfs_root)
        .into_iter()
        .find(|t| t.transport == Transport::Sd)
        .map(|t| t.path)
        .unwrap_or(var_tmp)
}
