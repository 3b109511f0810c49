//! Device mode's recovery files: the original 4 KiB of every spot, saved and fsynced before the
//! first pattern is written, so that a check killed outright (SIGKILL, a power cut) loses
//! nothing: the next check puts the sectors back first.
//!
//! One file per device, `<dir>/<16 hex digits>.bin` (a hash of the device's `MAJ:MIN`, size
//! and serial or CID), in `/var/lib/agnostics/capacity-recovery` for root, else
//! `$XDG_STATE_HOME/agnostics/capacity-recovery` (`AGNOSTICS_RECOVERY_DIR` names another). The
//! file: the 8 bytes `AGNCAPRF`, a u32 (little-endian) length and a JSON header ([`Header`]:
//! the device's identity), then each saved block as its u64 address and 4096 bytes, then the
//! SHA-256 of everything before. It is written under a temporary name, fsynced, renamed and its
//! folder fsynced, so a file under its own name is always whole; a temporary file left by a
//! process that is gone was never finished, so nothing was written to the device after it.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::pattern::{Block, BLOCK};
use super::{CapacityError, CapacityOptions, Recovered};
use crate::sysfs::{dir_of_dev, read_attr};

/// The environment variable naming another folder for recovery files.
pub const DIR_VARIABLE: &str = "AGNOSTICS_RECOVERY_DIR";
const MAGIC: &[u8; 8] = b"AGNCAPRF";
/// Refuse headers longer than this, bytes.
const MAX_HEADER: u32 = 64 * 1024;

/// The folder of recovery files: [`DIR_VARIABLE`] when set, else
/// `/var/lib/agnostics/capacity-recovery` for root, else
/// `$XDG_STATE_HOME/agnostics/capacity-recovery` (`~/.local/state/…`).
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os(DIR_VARIABLE).filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if nix::unistd::geteuid().is_root() {
        return PathBuf::from("/var/lib/agnostics/capacity-recovery");
    }
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(|| PathBuf::from("/var/tmp"));
    state.join("agnostics/capacity-recovery")
}

/// Saved blocks: each block's drive address (bytes) and its original 4 KiB.
pub type Saved = Vec<(u64, Box<Block>)>;

/// A device's identity, as a recovery file records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The disk's name when saved, e.g. `sdb`.
    pub disk: String,
    /// Its `MAJ:MIN`.
    pub dev: String,
    /// Its size, bytes.
    pub size_bytes: u64,
    /// Its serial, CID or (loop devices) backing file as sysfs has it; empty when none.
    pub fingerprint: String,
    /// When the file was written, RFC 3339.
    pub created: String,
    /// Blocks saved.
    pub blocks: u32,
}

impl Header {
    /// The header of `disk` (`dev`, `size_bytes`) as sysfs under `sysfs_root` shows it now.
    pub fn of(sysfs_root: &Path, disk: &str, dev: &str, size_bytes: u64) -> Header {
        Header {
            disk: disk.to_owned(),
            dev: dev.to_owned(),
            size_bytes,
            fingerprint: fingerprint(sysfs_root, dev),
            created: super::now_rfc3339(),
            blocks: 0,
        }
    }

    /// The file's name, `<16 hex digits>.bin`.
    pub fn file_name(&self) -> String {
        let h = Sha256::digest(format!(
            "{}|{}|{}",
            self.dev, self.size_bytes, self.fingerprint
        ));
        format!("{}.bin", crate::drive::identity::hex(&h[..8]))
    }

    /// True when `other` (read from sysfs now) is the same device: the same size and serial
    /// (CID, backing file) under any `MAJ:MIN` (a USB stick plugged back in comes back as
    /// another disk), or, without a serial, the same size at the same `MAJ:MIN`.
    pub fn same_device(&self, other: &Header) -> bool {
        self.size_bytes == other.size_bytes
            && self.fingerprint == other.fingerprint
            && (self.dev == other.dev || !self.fingerprint.is_empty())
    }

    /// True when this file may be of the device `dev` (`MAJ:MIN`) now: saved at that
    /// `MAJ:MIN`, or with the serial the device has now.
    fn maybe_of(&self, sysfs_root: &Path, dev: &str) -> bool {
        self.dev == dev
            || (!self.fingerprint.is_empty() && self.fingerprint == fingerprint(sysfs_root, dev))
    }
}

/// The device's serial as sysfs has it: an SD card's or eMMC's CID, a USB or SCSI serial or
/// WWID, a loop device's backing file; empty when none.
fn fingerprint(sysfs_root: &Path, dev: &str) -> String {
    let Some(dir) = dir_of_dev(sysfs_root, dev) else {
        return String::new();
    };
    [
        "device/cid",
        "device/serial",
        "device/wwid",
        "wwid",
        "loop/backing_file",
    ]
    .iter()
    .find_map(|a| read_attr(&dir.join(a)))
    .unwrap_or_default()
}

/// Writes the recovery file of `header` with `saved` (address, original block) in `dir`
/// (made 0700 when missing), durably: temporary name, fsync, rename, fsync of the folder.
/// Returns its path.
///
/// Errors: the file system's; `AlreadyExists` when a recovery file of this device is there
/// (restore it first).
pub fn write(dir: &Path, header: &Header, saved: &[(u64, Box<Block>)]) -> io::Result<PathBuf> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let mut header = header.clone();
    header.blocks = saved.len() as u32;
    let path = dir.join(header.file_name());
    if path.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists", path.display()),
        ));
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        header.file_name(),
        std::process::id()
    ));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)?;
    let json = serde_json::to_vec(&header).map_err(io::Error::other)?;
    let mut body = Vec::with_capacity(12 + json.len() + saved.len() * (8 + BLOCK) + 32);
    body.extend_from_slice(MAGIC);
    body.extend_from_slice(&(json.len() as u32).to_le_bytes());
    body.extend_from_slice(&json);
    for (address, block) in saved {
        body.extend_from_slice(&address.to_le_bytes());
        body.extend_from_slice(&block.0);
    }
    let sum = Sha256::digest(&body);
    body.extend_from_slice(&sum);
    let written = file.write_all(&body).and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, &path)?;
    File::open(dir)?.sync_all()?;
    Ok(path)
}

/// Reads a recovery file: its header and saved blocks.
///
/// Errors: the file system's; `InvalidData` for a file that is not whole (bad magic or
/// checksum).
pub fn load(path: &Path) -> io::Result<(Header, Saved)> {
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    let bad = |why: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {why}", path.display()),
        )
    };
    if bytes.len() < 12 + 32 || &bytes[..8] != MAGIC {
        return Err(bad("not a recovery file"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 32);
    if Sha256::digest(body)[..] != *sum {
        return Err(bad("its checksum does not match"));
    }
    let len = u32::from_le_bytes(body[8..12].try_into().expect("4 bytes"));
    if len > MAX_HEADER || 12 + len as usize > body.len() {
        return Err(bad("its header is too long"));
    }
    let header: Header =
        serde_json::from_slice(&body[12..12 + len as usize]).map_err(|e| bad(&e.to_string()))?;
    let rest = &body[12 + len as usize..];
    if rest.len() % (8 + BLOCK) != 0 || rest.len() / (8 + BLOCK) != header.blocks as usize {
        return Err(bad("its blocks are not whole"));
    }
    let saved = rest
        .chunks_exact(8 + BLOCK)
        .map(|c| {
            let mut b = Block::zeroed();
            b.0.copy_from_slice(&c[8..]);
            (u64::from_le_bytes(c[..8].try_into().expect("8 bytes")), b)
        })
        .collect();
    Ok((header, saved))
}

/// The header of a recovery file that may not be whole (torn, truncated): the header is
/// at its start, so it tells whose the file is even when its blocks cannot be used.
fn header_of_torn(path: &Path) -> Option<Header> {
    let mut start = vec![0u8; 12 + MAX_HEADER as usize];
    let n = File::open(path)
        .and_then(|f| f.read_at(&mut start, 0))
        .ok()?;
    let start = &start[..n];
    if start.len() < 12 || &start[..8] != MAGIC {
        return None;
    }
    let len = u32::from_le_bytes(start[8..12].try_into().ok()?) as usize;
    serde_json::from_slice(start.get(12..12 + len)?).ok()
}

/// Writes every saved block back to `device` (open with O_DIRECT), flushes, reads each back
/// and compares. Returns the bytes written and read.
///
/// Errors: what failed, in words (a write, the flush, a block that reads back otherwise).
pub fn put_back(device: &File, saved: &[(u64, Box<Block>)]) -> Result<(u64, u64), String> {
    for (address, block) in saved {
        device
            .write_all_at(&block.0, *address)
            .map_err(|e| format!("write at byte {address}: {e}"))?;
    }
    device.sync_data().map_err(|e| format!("fdatasync: {e}"))?;
    let mut check = Block::zeroed();
    for (address, block) in saved {
        device
            .read_exact_at(&mut check.0, *address)
            .map_err(|e| format!("read at byte {address}: {e}"))?;
        if check.0 != block.0 {
            return Err(format!("the block at byte {address} reads back otherwise"));
        }
    }
    let bytes = saved.len() as u64 * BLOCK as u64;
    Ok((bytes, bytes))
}

/// The recovery files in `dir` (whole ones, by name), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            name.len() == 20 && name.ends_with(".bin") && !name.starts_with('.')
        })
        .collect();
    v.sort();
    v
}

/// Removes temporary files left by processes that are gone: they were never finished, so
/// their check wrote nothing.
fn sweep_unfinished(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_suffix(".tmp")
            .and_then(|n| n.rsplit('.').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
        if name.starts_with('.') && !alive {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The recovery file of the device `dev` (`MAJ:MIN`, sysfs under `sysfs_root`) in `dir`, if
/// any: one saved at that `MAJ:MIN`, or of the same serial under another.
pub fn pending_for(dir: &Path, sysfs_root: &Path, dev: &str) -> Option<PathBuf> {
    files(dir)
        .into_iter()
        .find(|p| load(p).is_ok_and(|(h, _)| h.maybe_of(sysfs_root, dev)))
}

/// [`super::restore_pending`], or only the device `only` (`MAJ:MIN`) when given: files saved at
/// that `MAJ:MIN` or of its serial (the drive may have come back under another name), restored
/// to it. A file of a device that is absent, or present with another size or serial, is left
/// alone (another card in the reader now); one of the device `only` that cannot be restored is
/// an error.
pub(crate) fn restore_pending(
    opts: &CapacityOptions,
    only: Option<&str>,
) -> Result<Vec<Recovered>, CapacityError> {
    let dir = &opts.recovery_dir;
    sweep_unfinished(dir);
    let mut done = Vec::new();
    let mut first_error = None;
    for path in files(dir) {
        let (header, saved) = match load(&path) {
            Ok(x) => x,
            Err(e) => {
                // A torn file of another device does not stop the check of this one.
                let header = header_of_torn(&path);
                if let (Some(d), Some(h)) = (only, &header) {
                    if !h.maybe_of(&opts.sysfs_root, d) {
                        continue;
                    }
                }
                first_error.get_or_insert(CapacityError::RecoveryFailed {
                    disk: header.map_or_else(|| "?".into(), |h| h.disk),
                    file: path.clone(),
                    why: e.to_string(),
                });
                continue;
            }
        };
        if only.is_some_and(|d| !header.maybe_of(&opts.sysfs_root, d)) {
            continue;
        }
        match restore_one(opts, &path, &header, &saved, only.unwrap_or(&header.dev)) {
            Ok(Some(r)) => done.push(r),
            Ok(None) => {}
            Err(why) => {
                first_error.get_or_insert(CapacityError::RecoveryFailed {
                    disk: header.disk.clone(),
                    file: path.clone(),
                    why,
                });
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

/// Restores one file's blocks to the device `dev` (`MAJ:MIN`) when it is present and the
/// file's; `Ok(None)` when the device is not there or another.
fn restore_one(
    opts: &CapacityOptions,
    path: &Path,
    header: &Header,
    saved: &[(u64, Box<Block>)],
    dev: &str,
) -> Result<Option<Recovered>, String> {
    let Some(dir) = dir_of_dev(&opts.sysfs_root, dev) else {
        return Ok(None);
    };
    let disk = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let node = Path::new("/dev").join(&disk);
    let device = match super::device::open_exclusive(&node) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
            return Err(crate::i18n::fill(
                &crate::i18n::gettext("{device} is in use (mounted?); unmount it"),
                &[("device", &node.display())],
            ))
        }
        Err(e) => return Err(format!("{}: {e}", node.display())),
    };
    let size = super::device::size_of(&device).map_err(|e| e.to_string())?;
    if !header.same_device(&Header::of(&opts.sysfs_root, &disk, dev, size)) {
        return Ok(None);
    }
    put_back(&device, saved)?;
    std::fs::remove_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(parent) = path.parent() {
        let _ = File::open(parent).and_then(|d| d.sync_all());
    }
    Ok(Some(Recovered {
        disk,
        blocks: saved.len() as u32,
        verified: true,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recovery_file_reads_back_as_written_and_a_torn_one_is_refused() {
        let dir = crate::target_dir::scratch_dir();
        let header = Header {
            disk: "sdz".into(),
            dev: "8:240".into(),
            size_bytes: 1 << 30,
            fingerprint: "serial".into(),
            created: "2026-01-01T00:00:00+00:00".into(),
            blocks: 0,
        };
        let saved = vec![
            (0, Block::pattern(1, 0, 0)),
            (1 << 29, Block::pattern(1, 1 << 29, 1)),
        ];
        let path = write(dir.path(), &header, &saved).unwrap();
        assert_eq!(path.file_name().unwrap().len(), 20);
        let (h, back) = load(&path).unwrap();
        assert_eq!(h.blocks, 2);
        assert!(h.same_device(&header));
        assert_eq!(back.len(), 2);
        assert_eq!(back[1].0, 1 << 29);
        assert_eq!(back[1].1 .0, saved[1].1 .0);
        let sysfs = dir.path().join("no-sysfs");
        assert_eq!(pending_for(dir.path(), &sysfs, "8:240"), Some(path.clone()));
        assert_eq!(pending_for(dir.path(), &sysfs, "8:0"), None);
        // A second file for the same device is refused: the first must be restored.
        assert_eq!(
            write(dir.path(), &header, &saved).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(load(&path).unwrap_err().kind(), io::ErrorKind::InvalidData);
    }
}
