//! The block-device stack behind a filesystem, read from sysfs: `MAJ:MIN` →
//! `<sysfs>/dev/block/MAJ:MIN` → partition → disk, through device-mapper (LVM, LUKS), md RAID
//! and loop devices, and the transport of the disk that does the I/O.
//!
//! Every path is under a caller-given sysfs root so tests can point it at a fixture tree.

use std::fs;
use std::path::{Path, PathBuf};

use super::{DeviceInfo, Transport};

pub use crate::sysfs::{dir_of_dev, dir_of_name, maj_min, read_attr, read_bounded, MAX_ATTR_BYTES};

fn file_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The devices a stacked device (dm, md) is built on: the entries of its `slaves/`, in name
/// order, canonicalised.
fn slaves(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = fs::read_dir(dir.join("slaves")) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .filter_map(|e| fs::canonicalize(e.path()).ok())
        .collect();
    v.sort();
    v
}

/// Resolves the block device `dev` (`MAJ:MIN`) to its stack and disk.
///
/// Walks `slaves/` down to the devices with none (the first, in name order, when there are
/// several: an md RAID or an LVM volume over two disks lists every disk in
/// [`DeviceInfo::disks`]); a partition (a directory with a `partition` file) is replaced by its
/// parent disk. `None` when sysfs has no such device.
pub fn resolve(sysfs_root: &Path, dev: &str) -> Option<(DeviceInfo, Transport)> {
    let top = dir_of_dev(sysfs_root, dev)?;
    let mut stack = vec![file_name(&top)];
    let mut leaves = Vec::new();
    collect_leaves(&top, &mut stack, &mut leaves, 0);
    let disks: Vec<PathBuf> = leaves.iter().map(|l| disk_of(l)).collect();
    let disk_dir = disks.first().cloned().unwrap_or_else(|| top.clone());
    let disk = file_name(&disk_dir);
    if stack.last() != Some(&disk) {
        stack.push(disk.clone());
    }
    let mut disk_names: Vec<String> = disks.iter().map(|d| file_name(d)).collect();
    disk_names.dedup();
    let transport = transport_of(&disk_dir);
    let info = DeviceInfo {
        name: file_name(&top),
        disk: disk.clone(),
        stack,
        dev: dev.to_owned(),
        model: model_of(&disk_dir, transport),
        backing_file: read_attr(&disk_dir.join("loop/backing_file")),
        disks: disk_names,
    };
    Some((info, transport))
}

/// Depth-first walk of `slaves/`, recording the first chain in `stack` and every leaf.
fn collect_leaves(dir: &Path, stack: &mut Vec<String>, leaves: &mut Vec<PathBuf>, depth: u32) {
    let below = slaves(dir);
    if below.is_empty() || depth > 16 {
        leaves.push(dir.to_path_buf());
        return;
    }
    let first_chain = leaves.is_empty();
    for (i, s) in below.iter().enumerate() {
        if first_chain && i == 0 {
            stack.push(file_name(s));
            collect_leaves(s, stack, leaves, depth + 1);
        } else {
            let mut ignored = Vec::new();
            collect_leaves(s, &mut ignored, leaves, depth + 1);
        }
    }
}

/// The whole disk a block device belongs to: its parent for a partition, itself otherwise.
fn disk_of(dir: &Path) -> PathBuf {
    if dir.join("partition").exists() {
        if let Some(parent) = dir.parent() {
            return parent.to_path_buf();
        }
    }
    dir.to_path_buf()
}

/// The transport of the whole disk whose sysfs directory is `disk_dir` (canonical).
///
/// Loop devices; memory (`zram*`, `ram*`); `mmcblk*` by the card's `device/type` (`SD` →
/// [`Transport::Sd`], `MMC` → [`Transport::Emmc`]); a path through `/usb` → USB; `nvme` →
/// NVMe; `virtio` → virtio; anything else → [`Transport::Other`].
pub fn transport_of(disk_dir: &Path) -> Transport {
    let name = file_name(disk_dir);
    let path = disk_dir.to_string_lossy();
    if name.starts_with("loop") {
        Transport::Loop
    } else if name.starts_with("zram") || is_ram_disk(&name) {
        Transport::Memory
    } else if name.starts_with("mmcblk") {
        match read_attr(&disk_dir.join("device/type")).as_deref() {
            Some("SD") => Transport::Sd,
            Some("MMC") => Transport::Emmc,
            _ => Transport::Other,
        }
    } else if path.contains("/usb") {
        Transport::Usb
    } else if name.starts_with("nvme") || path.contains("/nvme") {
        Transport::Nvme
    } else if path.contains("/virtio") {
        Transport::Virtio
    } else {
        Transport::Other
    }
}

/// `ram0`, `ram15` (brd), not `ramdisk-foo` or other names that merely start with "ram".
fn is_ram_disk(name: &str) -> bool {
    name.strip_prefix("ram")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The transport of the disk named `disk` (e.g. `mmcblk0`, `sda`), for callers that know only
/// the name. [`Transport::Other`] when sysfs has no such disk.
pub fn transport_of_name(sysfs_root: &Path, disk: &str) -> Transport {
    match dir_of_name(sysfs_root, disk) {
        Some(dir) => transport_of(&dir),
        None => Transport::Other,
    }
}

/// Vendor and model as sysfs has them: USB/SCSI/SATA `device/vendor` + `device/model`, NVMe
/// `device/model`, SD/eMMC `device/name`; trimmed, `None` when there is none.
pub fn model_of(disk_dir: &Path, transport: Transport) -> Option<String> {
    let dev = disk_dir.join("device");
    match transport {
        Transport::Sd | Transport::Emmc => read_attr(&dev.join("name")),
        Transport::Nvme => read_attr(&dev.join("model")),
        Transport::Loop | Transport::Memory | Transport::Virtio => None,
        Transport::Usb | Transport::Other => {
            let vendor = read_attr(&dev.join("vendor"));
            let model = read_attr(&dev.join("model"));
            match (vendor, model) {
                (Some(v), Some(m)) => Some(format!("{v} {m}")),
                (v, m) => m.or(v),
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod fixture {
    //! A fake sysfs tree, built the way the kernel lays one out.

    use std::fs;
    use std::os::unix::fs::symlink;
    use std::path::Path;

    /// Creates `root/<dir>` with the attribute files `files` (name, content).
    pub fn device(root: &Path, dir: &str, files: &[(&str, &str)]) {
        let d = root.join(dir);
        fs::create_dir_all(&d).unwrap();
        for (name, content) in files {
            fs::write(d.join(name), format!("{content}\n")).unwrap();
        }
    }

    /// `root/<link>` → `<target>` (relative, as sysfs has them).
    pub fn link(root: &Path, link: &str, target: &str) {
        let l = root.join(link);
        fs::create_dir_all(l.parent().unwrap()).unwrap();
        symlink(target, l).unwrap();
    }

    pub const MMC_CARD: &str = "devices/platform/soc/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa";

    /// An SD card `mmcblk0` with partition `mmcblk0p2` (179:2), as on a Raspberry Pi.
    pub fn sd_card(root: &Path) {
        device(root, MMC_CARD, &[("type", "SD"), ("name", "SD64G")]);
        let disk = format!("{MMC_CARD}/block/mmcblk0");
        device(root, &disk, &[("dev", "179:0")]);
        device(
            root,
            &format!("{disk}/mmcblk0p2"),
            &[("dev", "179:2"), ("partition", "2")],
        );
        link(root, &format!("{disk}/device"), "../../../mmc0:aaaa");
        link(root, "dev/block/179:2", &format!("../../{disk}/mmcblk0p2"));
        link(root, "dev/block/179:0", &format!("../../{disk}"));
        link(root, "block/mmcblk0", &format!("../{disk}"));
        link(
            root,
            "class/block/mmcblk0p2",
            &format!("../../{disk}/mmcblk0p2"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::*;
    use super::*;

    #[test]
    fn hostile_attribute_files_neither_hang_nor_fill_memory() {
        let root = crate::target_dir::scratch_dir();
        let dir = root.path();
        // A FIFO nobody writes to: a blocking open would wait forever.
        nix::unistd::mkfifo(
            &dir.join("fifo"),
            nix::sys::stat::Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        assert_eq!(read_attr(&dir.join("fifo")), None);
        // An endless device: reading it whole would fill memory.
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero")).unwrap();
        assert_eq!(read_attr(&dir.join("zero")), None);
        // A directory and a symlink loop are simply absent.
        fs::create_dir(dir.join("subdir")).unwrap();
        assert_eq!(read_attr(&dir.join("subdir")), None);
        std::os::unix::fs::symlink("loop", dir.join("loop")).unwrap();
        assert_eq!(read_attr(&dir.join("loop")), None);
        // A huge file is read only up to the limit.
        let big = dir.join("big");
        fs::write(&big, vec![b'7'; 3 * MAX_ATTR_BYTES as usize]).unwrap();
        assert_eq!(read_bounded(&big).unwrap().len() as u64, MAX_ATTR_BYTES);
        fs::write(dir.join("ok"), b" 0x1b\n").unwrap();
        assert_eq!(read_attr(&dir.join("ok")).as_deref(), Some("0x1b"));
    }

    #[test]
    fn device_names_never_lead_out_of_the_block_class() {
        let root = crate::target_dir::scratch_dir();
        sd_card(root.path());
        for name in ["", ".", "..", "../..", "../../etc", "a/b", "mmcblk0\0x"] {
            assert_eq!(dir_of_name(root.path(), name), None, "{name:?}");
        }
        assert!(dir_of_name(root.path(), "mmcblk0").is_some());
    }

    #[test]
    fn resolves_sd_partition_to_its_card() {
        let root = crate::target_dir::scratch_dir();
        sd_card(root.path());
        let (info, transport) = resolve(root.path(), "179:2").unwrap();
        assert_eq!(transport, Transport::Sd);
        assert_eq!(info.name, "mmcblk0p2");
        assert_eq!(info.disk, "mmcblk0");
        assert_eq!(info.stack, ["mmcblk0p2", "mmcblk0"]);
        assert_eq!(info.model.as_deref(), Some("SD64G"));
        assert_eq!(info.dev, "179:2");
    }

    #[test]
    fn emmc_is_told_apart_by_its_type() {
        let root = crate::target_dir::scratch_dir();
        sd_card(root.path());
        fs::write(root.path().join(MMC_CARD).join("type"), "MMC\n").unwrap();
        assert_eq!(resolve(root.path(), "179:2").unwrap().1, Transport::Emmc);
        assert_eq!(transport_of_name(root.path(), "mmcblk0"), Transport::Emmc);
    }

    #[test]
    fn resolves_luks_on_lvm_down_to_the_card() {
        let root = crate::target_dir::scratch_dir();
        let r = root.path();
        sd_card(r);
        // dm-1 (LUKS) on dm-0 (LVM) on mmcblk0p2.
        device(r, "devices/virtual/block/dm-0", &[("dev", "253:0")]);
        device(r, "devices/virtual/block/dm-1", &[("dev", "253:1")]);
        link(
            r,
            "devices/virtual/block/dm-0/slaves/mmcblk0p2",
            &format!(
                "../../../../{}/block/mmcblk0/mmcblk0p2",
                MMC_CARD.trim_start_matches("devices/")
            ),
        );
        link(r, "devices/virtual/block/dm-1/slaves/dm-0", "../../dm-0");
        link(r, "dev/block/253:1", "../../devices/virtual/block/dm-1");
        let (info, transport) = resolve(r, "253:1").unwrap();
        assert_eq!(info.stack, ["dm-1", "dm-0", "mmcblk0p2", "mmcblk0"]);
        assert_eq!(info.disk, "mmcblk0");
        assert_eq!(transport, Transport::Sd);
    }

    #[test]
    fn md_raid_lists_every_disk() {
        let root = crate::target_dir::scratch_dir();
        let r = root.path();
        for (n, usb) in [("sda", "usb1/1-1"), ("sdb", "usb2/2-1")] {
            let disk = format!(
                "devices/pci0000:00/0000:00:14.0/{usb}/1-1:1.0/host0/target0:0:0/0:0:0:0/block/{n}"
            );
            device(r, &disk, &[]);
            device(r, &format!("{disk}/{n}1"), &[("partition", "1")]);
            device(
                r,
                &format!("{disk}/../../"),
                &[("vendor", "Generic "), ("model", "Card Reader  ")],
            );
        }
        device(r, "devices/virtual/block/md0", &[]);
        link(r, "devices/virtual/block/md0/slaves/sda1", "../../../../pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sda/sda1");
        link(r, "devices/virtual/block/md0/slaves/sdb1", "../../../../pci0000:00/0000:00:14.0/usb2/2-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sdb/sdb1");
        link(r, "dev/block/9:0", "../../devices/virtual/block/md0");
        let (info, transport) = resolve(r, "9:0").unwrap();
        assert_eq!(info.disk, "sda");
        assert_eq!(info.disks, ["sda", "sdb"]);
        assert_eq!(info.stack, ["md0", "sda1", "sda"]);
        assert_eq!(transport, Transport::Usb);
    }

    #[test]
    fn usb_and_nvme_models() {
        let root = crate::target_dir::scratch_dir();
        let r = root.path();
        let usb = "devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host1/target1:0:0/1:0:0:0";
        device(
            r,
            usb,
            &[("vendor", "SanDisk "), ("model", "Extreme         ")],
        );
        device(r, &format!("{usb}/block/sdb"), &[]);
        link(r, &format!("{usb}/block/sdb/device"), "../../../1:0:0:0");
        link(r, "dev/block/8:16", &format!("../../{usb}/block/sdb"));
        let (info, t) = resolve(r, "8:16").unwrap();
        assert_eq!(
            (t, info.model.as_deref()),
            (Transport::Usb, Some("SanDisk Extreme"))
        );

        let nvme = "devices/pci0000:00/0000:00:1d.0/0000:01:00.0/nvme/nvme0";
        device(
            r,
            nvme,
            &[
                ("model", "WD Blue SN570 1TB   "),
                ("firmware_rev", "234110WD"),
            ],
        );
        device(r, &format!("{nvme}/nvme0n1"), &[]);
        link(r, &format!("{nvme}/nvme0n1/device"), "../../nvme0");
        link(r, "dev/block/259:0", &format!("../../{nvme}/nvme0n1"));
        let (info, t) = resolve(r, "259:0").unwrap();
        assert_eq!(
            (t, info.model.as_deref()),
            (Transport::Nvme, Some("WD Blue SN570 1TB"))
        );
    }

    #[test]
    fn memory_and_loop_names() {
        assert_eq!(
            transport_of(Path::new("/sys/devices/virtual/block/zram0")),
            Transport::Memory
        );
        assert_eq!(
            transport_of(Path::new("/sys/devices/virtual/block/ram3")),
            Transport::Memory
        );
        assert_eq!(
            transport_of(Path::new("/sys/devices/virtual/block/loop2")),
            Transport::Loop
        );
        assert_eq!(
            transport_of(Path::new("/sys/devices/virtual/block/ramdisk")),
            Transport::Other
        );
    }

    #[test]
    fn unknown_device_is_none() {
        let root = crate::target_dir::scratch_dir();
        assert!(resolve(root.path(), "1:99").is_none());
        assert!(dir_of_name(root.path(), "../etc").is_none());
    }

    #[test]
    fn maj_min_decodes_dev_t() {
        assert_eq!(maj_min(0xfe00), (254, 0));
        assert_eq!(maj_min(0x703), (7, 3));
        // A minor above 255 spills into the high bits: nvme 259:300.
        assert_eq!(maj_min(0x0011_032c), (259, 300));
    }
}
