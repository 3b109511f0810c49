//! Device mode's recovery files: the original 4 KiB of every spot, saved and fsynced before the
//! first pattern is written, so that a check killed outright (SIGKILL, a power cut) loses
//! nothing: the next check of that card puts the sectors back first.
//!
//! A file belongs to a card, not to a slot or a reader: its [`Header`] keeps the card's size,
//! its CID (SD cards and eMMC, where sysfs shows one), and the SHA-256 of a few *probe*
//! blocks the check reads before its first write and never writes (the card's own content).
//! A file is tried on a device only when all three match; even then a saved block goes back
//! only where the device holds that check's own pattern for that address ([`super::restore`]),
//! so a file tried on the wrong card writes nothing. A file of a card that is not present is
//! listed, never applied; one that can never be applied is forgotten with
//! `agnostics-cli capacity --forget-recovery`.
//!
//! One file per check, `<dir>/<16 hex digits>.bin` (a hash of the card's identity and the
//! check's key), in `/var/lib/agnostics/capacity-recovery` for root, else
//! `$XDG_STATE_HOME/agnostics/capacity-recovery` (`AGNOSTICS_RECOVERY_DIR` names another).
//! How a file is written and checked before it is read: [`super::recovery_file`].

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::pattern::{Block, BLOCK_U64};
use super::recovery_file::{self as rf, Unusable};
pub use super::recovery_file::{Header, Saved};
use super::restore::{self, Applied};
use super::{CapacityError, Event, Recovered};
use crate::i18n::{fill, gettext};
use crate::sysfs::{dir_of_dev, read_attr};

/// The environment variable naming another folder for recovery files.
pub const DIR_VARIABLE: &str = "AGNOSTICS_RECOVERY_DIR";
/// How many probe blocks identify a card's content.
pub const PROBES: usize = 8;

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

/// The CID of the device `dev` (`MAJ:MIN`) as sysfs under `sysfs_root` has it; empty when
/// none (USB readers and sticks, loop devices).
pub fn cid_of(sysfs_root: &Path, dev: &str) -> String {
    dir_of_dev(sysfs_root, dev)
        .and_then(|d| read_attr(&d.join("device/cid")))
        .unwrap_or_default()
}

/// Up to [`PROBES`] probe addresses for a check whose spots are at `spots` (ascending) on a
/// device of `size` bytes: the block right after spots spread over the plan, where that is no
/// spot itself and lies inside the device.
pub fn probes_for(spots: &[u64], size: u64) -> Vec<u64> {
    let n = spots.len();
    let mut out: Vec<u64> = (0..PROBES.min(n))
        .map(|i| spots[i * n / PROBES.min(n).max(1)] + BLOCK_U64)
        .filter(|&a| a + BLOCK_U64 <= size && spots.binary_search(&a).is_err())
        .collect();
    out.dedup();
    out
}

/// The SHA-256 (hex) of the blocks at `probes` on `device` (open with O_DIRECT).
///
/// Errors: a read that fails.
pub fn content_of(device: &File, probes: &[u64]) -> io::Result<String> {
    let mut sum = Sha256::new();
    let mut b = Block::zeroed();
    for &a in probes {
        device.read_exact_at(&mut b.0, a)?;
        sum.update(a.to_le_bytes());
        sum.update(b.0);
    }
    Ok(crate::drive::identity::hex(&sum.finalize()))
}

/// Writes the recovery file of `header` with `saved` (address, original block) in `dir`
/// (made 0700 when missing), durably, and keeps it open and locked: a check that shares the
/// folder sees it is running. Returns its path and the open file (the lock lasts as long).
///
/// Errors: the file system's; `AlreadyExists` when a file of that name is there.
pub fn write(
    dir: &Path,
    header: &Header,
    saved: &[(u64, Box<Block>)],
) -> io::Result<(PathBuf, File)> {
    rf::write(dir, header, saved, true)
}

/// Reads the recovery file `path` (checked as [`super::recovery_file`] says, not locked).
///
/// Errors: `PermissionDenied` for a file refused unread, `InvalidData` for one not whole,
/// `WouldBlock` never (no lock is taken).
pub fn load(path: &Path) -> io::Result<(Header, Saved)> {
    let mut file = rf::open_checked(path, false).map_err(io_error)?;
    rf::read(&mut file, path).map_err(io_error)
}

fn io_error(u: Unusable) -> io::Error {
    match u {
        Unusable::Running => io::Error::new(io::ErrorKind::WouldBlock, "in use by a running check"),
        Unusable::Refused(why) => io::Error::new(io::ErrorKind::PermissionDenied, why),
        Unusable::Torn(why, _) => io::Error::new(io::ErrorKind::InvalidData, why),
    }
}

/// The recovery files in `dir` (by name: 16 hex digits and `.bin`), sorted. Nothing is opened.
pub fn files(dir: &Path) -> Vec<PathBuf> {
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
            name.len() == 20
                && name.ends_with(".bin")
                && name[..16].bytes().all(|b| b.is_ascii_hexdigit())
        })
        .collect();
    v.sort();
    v
}

/// What is known of one recovery file, for listing and forgetting.
#[derive(Debug)]
pub struct Listed {
    /// The file.
    pub path: PathBuf,
    /// Its header, when it could be read.
    pub header: Option<Header>,
    /// Why it cannot be used, when it cannot (running, refused, torn), in words.
    pub problem: Option<String>,
    /// True when a running check holds it.
    pub running: bool,
}

/// Every recovery file in `dir`, with its header where it can be read.
pub fn list(dir: &Path) -> Vec<Listed> {
    files(dir)
        .into_iter()
        .map(|path| {
            let opened = rf::open_checked(&path, true).and_then(|mut f| rf::read(&mut f, &path));
            let (header, problem, running) = match opened {
                Ok((h, _)) => (Some(h), None, false),
                Err(Unusable::Running) => (None, Some(gettext("a check is running with it")), true),
                Err(Unusable::Refused(why)) => (None, Some(why), false),
                Err(Unusable::Torn(why, h)) => (h.map(|h| *h), Some(why), false),
            };
            Listed {
                path,
                header,
                problem,
                running,
            }
        })
        .collect()
}

/// Forgets (removes) the recovery file `path`; the sectors it saved are then lost for good.
///
/// Errors: `WouldBlock` when a running check holds it; the file system's.
pub fn forget(path: &Path) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_file() {
        let file = File::open(path)?;
        // SAFETY: plain syscall on a descriptor we own.
        let rc = unsafe {
            libc::flock(
                std::os::fd::AsRawFd::as_raw_fd(&file),
                libc::LOCK_EX | libc::LOCK_NB,
            )
        };
        if rc != 0 {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "a running check holds it",
            ));
        }
    }
    rf::remove(path)
}

/// The recovery file of the device `dev` (`MAJ:MIN`, sysfs under `sysfs_root`) in `dir`, if
/// any: one saved at that `MAJ:MIN`, or with the CID the device has now. For mounted mode,
/// which cannot put sectors back: a running check's file is not named.
pub fn pending_for(dir: &Path, sysfs_root: &Path, dev: &str) -> Option<PathBuf> {
    let cid = cid_of(sysfs_root, dev);
    files(dir).into_iter().find(|p| {
        load(p).is_ok_and(|(h, _)| h.dev == dev || (!h.cid.is_empty() && h.cid == cid))
            && rf::open_checked(p, true).is_ok()
    })
}

/// The device a check opened, as recovery files are matched against it.
pub(crate) struct Present<'a> {
    /// The device, open O_EXCL and O_DIRECT.
    pub file: &'a File,
    /// Its disk name, e.g. `sdb`.
    pub disk: &'a str,
    /// Its size, bytes.
    pub size: u64,
    /// Its CID, empty when none.
    pub cid: String,
}

/// Puts back every recovery file in `dir` that is of the card `present`: files of other
/// cards are listed ([`Event::Note`]), running checks' files left alone. Returns what was
/// put back.
///
/// Errors: [`CapacityError::RecoveryRefused`] for a folder or file this program did not make
/// as it makes them (nothing is read from it); [`CapacityError::RecoveryUnreadable`] for a
/// torn file of this card.
pub(crate) fn restore_on(
    dir: &Path,
    present: &Present<'_>,
    on_event: &mut dyn FnMut(Event),
) -> Result<Vec<Recovered>, CapacityError> {
    rf::check_dir(dir).map_err(|why| CapacityError::RecoveryRefused {
        file: dir.to_path_buf(),
        why,
    })?;
    sweep_unfinished(dir);
    let mut done = Vec::new();
    for path in files(dir) {
        let opened = rf::open_checked(&path, true).and_then(|mut f| {
            let (h, s) = rf::read(&mut f, &path)?;
            Ok((f, h, s))
        });
        let (_locked, header, saved) = match opened {
            Ok(x) => x,
            Err(Unusable::Running) => {
                on_event(Event::Note(fill(
                    &gettext("{file} belongs to a check running now; it is left alone."),
                    &[("file", &path.display())],
                )));
                continue;
            }
            Err(Unusable::Refused(why)) => {
                return Err(CapacityError::RecoveryRefused { file: path, why })
            }
            Err(Unusable::Torn(why, header)) => {
                if header.as_ref().is_some_and(|h| of_card(h, present)) {
                    return Err(CapacityError::RecoveryUnreadable {
                        disk: present.disk.to_owned(),
                        file: path,
                        why,
                    });
                }
                if header.is_none() {
                    on_event(Event::Note(fill(
                        &gettext(
                            "The recovery file {file} cannot be read ({why}) and is left alone; \
                             forget it with `agnostics-cli capacity --forget-recovery {file}`.",
                        ),
                        &[("file", &path.display()), ("why", &why)],
                    )));
                }
                continue;
            }
        };
        if !of_card(&header, present) {
            on_event(Event::Note(listed_text(&header, &path)));
            continue;
        }
        let applied = restore::apply(present.file, header.key, &saved);
        if !applied.found_ours() {
            on_event(Event::Note(listed_text(&header, &path)));
            continue;
        }
        let failed = keep_left(&path, &header, &saved, &applied)
            .map_err(|e| CapacityError::io(format!("update {}", path.display()), e))?;
        let r = Recovered {
            disk: present.disk.to_owned(),
            blocks: applied.written + applied.in_place,
            verified: failed.is_empty(),
            failed: failed.len() as u32,
            failed_addresses: failed.into_iter().take(64).collect(),
        };
        on_event(Event::Recovered(r.clone()));
        done.push(r);
    }
    Ok(done)
}

/// True when the file of `header` may be the card `present`'s: the same size, the same CID
/// (or none on both), and the probe blocks' content unchanged.
fn of_card(header: &Header, present: &Present<'_>) -> bool {
    header.size_bytes == present.size
        && header.cid == present.cid
        && header.probes.iter().all(|&a| a + BLOCK_U64 <= present.size)
        && content_of(present.file, &header.probes).is_ok_and(|c| c == header.content)
}

/// After `applied`: removes the file at `path` when every block is back, else rewrites it
/// with the blocks that are not. Returns the addresses not back.
pub(crate) fn keep_left(
    path: &Path,
    header: &Header,
    saved: &[(u64, Box<Block>)],
    applied: &Applied,
) -> io::Result<Vec<u64>> {
    if applied.whole() {
        rf::remove(path)?;
        return Ok(Vec::new());
    }
    let left: Vec<(u64, Box<Block>)> = saved
        .iter()
        .filter(|(a, _)| applied.left.iter().any(|(l, _)| l == a))
        .map(|(a, b)| (*a, b.clone()))
        .collect();
    let dir = path.parent().unwrap_or(Path::new("."));
    rf::write(dir, header, &left, false)?;
    Ok(left.iter().map(|(a, _)| *a).collect())
}

/// The note of a recovery file of another card (or of nothing found on this one).
fn listed_text(header: &Header, path: &Path) -> String {
    fill(
        &gettext(
            "A check of {disk} ({size}, begun {created}) was interrupted; its recovery file \
             {file} is not of this card and is left alone. Insert that card and run the check \
             again, or forget the file with `agnostics-cli capacity --forget-recovery {file}`.",
        ),
        &[
            ("disk", &header.disk),
            ("size", &crate::units::si_bytes(header.size_bytes)),
            ("created", &header.created),
            ("file", &path.display()),
        ],
    )
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
        let ours = e.metadata().is_ok_and(|m| {
            std::os::unix::fs::MetadataExt::uid(&m) == nix::unistd::geteuid().as_raw()
        });
        if name.starts_with('.') && !alive && ours {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn header() -> Header {
        Header {
            disk: "sdz".into(),
            dev: "8:240".into(),
            size_bytes: 1 << 30,
            cid: String::new(),
            probes: vec![4096],
            content: "c".into(),
            key: 7,
            created: "2026-01-01T00:00:00+00:00".into(),
            blocks: 0,
        }
    }

    fn dir() -> tempfile::TempDir {
        let d = crate::target_dir::scratch_dir();
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        d
    }

    #[test]
    fn a_recovery_file_reads_back_as_written_and_a_torn_one_is_refused() {
        let dir = dir();
        let saved = vec![
            (0, Block::pattern(1, 0, 0)),
            (1 << 29, Block::pattern(1, 1 << 29, 1)),
        ];
        let (path, locked) = write(dir.path(), &header(), &saved).unwrap();
        assert_eq!(path.file_name().unwrap().len(), 20);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let (h, back) = load(&path).unwrap();
        assert_eq!(h.blocks, 2);
        assert_eq!(back.len(), 2);
        assert_eq!(back[1].0, 1 << 29);
        assert_eq!(back[1].1 .0, saved[1].1 .0);
        // Held by this "running check": listed as running, not forgotten.
        assert!(list(dir.path())[0].running);
        assert_eq!(forget(&path).unwrap_err().kind(), io::ErrorKind::WouldBlock);
        assert_eq!(
            write(dir.path(), &header(), &saved).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        drop(locked);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 100;
        bytes[at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(load(&path).unwrap_err().kind(), io::ErrorKind::InvalidData);
        forget(&path).unwrap();
        assert!(files(dir.path()).is_empty());
    }

    #[test]
    fn files_not_made_as_this_program_makes_them_are_refused_unread() {
        let dir = dir();
        let saved = vec![(0, Block::zeroed())];
        let (path, locked) = write(dir.path(), &header(), &saved).unwrap();
        drop(locked);
        let refused = |p: &Path| load(p).unwrap_err().kind() == io::ErrorKind::PermissionDenied;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(refused(&path), "mode 0644");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        // Another name: the header's name is not the file's.
        let other = dir.path().join("0123456789abcdef.bin");
        std::fs::rename(&path, &other).unwrap();
        assert!(refused(&other), "renamed");
        std::fs::rename(&other, &path).unwrap();
        // Larger than its header says.
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.set_len(std::fs::metadata(&path).unwrap().len() + 1)
            .unwrap();
        assert!(refused(&path), "oversized");
        std::fs::remove_file(&path).unwrap();
        // A FIFO and a link: refused at once, never waited on or followed.
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        assert!(refused(&path), "fifo");
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        assert!(refused(&path), "link");
        // A folder others can write to is refused as a whole.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(rf::check_dir(dir.path()).is_err());
    }

    #[test]
    fn probes_avoid_spots_and_the_end() {
        let spots = [0, 4096, 8192, 1 << 20];
        let p = probes_for(&spots, (1 << 20) + 4096);
        assert_eq!(p, vec![12288]);
    }
}
