//! Reading sysfs: bounded attribute reads and the directory of a block device by `MAJ:MIN`
//! or by name. Every path is under a caller-given sysfs root (`/sys`, or a fixture tree given
//! with `--sysfs-root`), so the card, target, drive and engine readers share one careful
//! reader and tests can point them all at a copy.

use std::fs;
use std::path::{Path, PathBuf};

/// Largest sysfs attribute read, bytes (the kernel's own limit is one page; debugfs `ios` is
/// a few hundred bytes).
pub const MAX_ATTR_BYTES: u64 = 64 * 1024;

/// Reads at most [`MAX_ATTR_BYTES`] of a sysfs attribute (or a file in a copy of sysfs given
/// with `--sysfs-root`). Only a regular file is read, opened without blocking, so that a
/// FIFO, a device node such as `/dev/zero` or a huge file in a hostile tree neither hangs the
/// program nor fills its memory.
///
/// Errors: the open or read failed, or the path is not a regular file (`InvalidInput`).
pub fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_ATTR_BYTES).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads a sysfs attribute (see [`read_bounded`]), trimmed of surrounding white space; `None`
/// when absent, empty or not a regular file.
pub fn read_attr(path: &Path) -> Option<String> {
    let text = read_bounded(path).ok()?;
    let text = String::from_utf8_lossy(&text);
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

/// `MAJ:MIN` of a `dev_t`, as the kernel prints it (glibc's encoding of major and minor).
pub fn maj_min(dev: u64) -> (u64, u64) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major, minor)
}

/// The sysfs directory of a block device given as `MAJ:MIN`, canonicalised; `None` when
/// sysfs has no such device.
pub fn dir_of_dev(sysfs_root: &Path, dev: &str) -> Option<PathBuf> {
    fs::canonicalize(sysfs_root.join("dev/block").join(dev)).ok()
}

/// The sysfs directory of a block device given by name (`sda2`, `dm-0`, `mmcblk0`); `None`
/// when there is none, or the name is empty, `.`, `..` or contains `/` (never a path
/// outside the block class).
pub fn dir_of_name(sysfs_root: &Path, name: &str) -> Option<PathBuf> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        return None;
    }
    ["class/block", "block"]
        .iter()
        .find_map(|d| fs::canonicalize(sysfs_root.join(d).join(name)).ok())
}

/// A number as sysfs prints it: `0x…` hex, else decimal (surrounding white space ignored);
/// `None` for anything else.
pub fn parse_num(text: &str) -> Option<u64> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}
