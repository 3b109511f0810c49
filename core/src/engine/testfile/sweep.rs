//! The sweep: finds what killed runs left in a target directory, removes the private
//! directories it can prove are the program's and no live run holds, and reports the rest
//! (see the parent module for the proof).

use std::ffi::{CStr, CString, OsString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::sys::{
    cname, flock, fstat, fstatat, identity, is_dir, is_reg, list_names, open_path_dir,
    open_run_dir_fd, openat, read_small, unlinkat, Stat,
};
use super::{
    is_fio_hook_output, remove_hook_outputs, run_dir_token, stamp_text, unlink_ours, LOCK_NAME,
    OUR_NAMES, STAMP_NAME,
};
use super::{OLD_PREFIX, OLD_SUFFIX};
use crate::i18n::{fill, gettext};

/// What [`sweep`] did in a target directory.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Sweep {
    /// Private directories of killed runs that were removed with everything in them
    /// (`<dir>/.agnostics-run.<hex>`).
    pub removed: Vec<PathBuf>,
    /// Things left in place that the user may want to delete, each with the reason.
    pub left: Vec<Leftover>,
    /// Private directories of this user's live runs (their lock is held): another test is
    /// running in the same directory now, and shares the drive with this one.
    pub busy: Vec<PathBuf>,
}

/// Something [`sweep`] found but did not remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// Its path.
    pub path: PathBuf,
    /// Why it was left.
    pub reason: LeftReason,
}

/// Why [`sweep`] left something in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeftReason {
    /// A loose test file of version 0.1, which cannot be proven ours.
    OldVersion,
    /// A stale private directory that holds names the program did not create (listed); the
    /// program's own files in it were removed.
    Foreign(Vec<String>),
    /// A private directory of ours whose stamp does not match its name: it cannot be proven
    /// the program's.
    Unproven,
    /// Removing failed (the system's message).
    Failed(String),
}

impl Leftover {
    /// A warning for people, translated, naming the path.
    pub fn message(&self) -> String {
        let path = self.path.display().to_string();
        match &self.reason {
            LeftReason::OldVersion => fill(
                &gettext(
                    "{path} looks like a test file of an older version of this program; it was \
                     not removed because it cannot be proven to be the program's: delete it if \
                     you do not need it",
                ),
                &[("path", &path)],
            ),
            LeftReason::Foreign(names) => fill(
                // Translators: {names} is a list of file names.
                &gettext(
                    "{path} was left by an earlier run but also holds files this program did \
                     not create ({names}); they were left where they are",
                ),
                &[("path", &path), ("names", &names.join(", "))],
            ),
            LeftReason::Unproven => fill(
                &gettext(
                    "{path} looks like a folder of this program, but it cannot be proven to be \
                     one; it was not removed",
                ),
                &[("path", &path)],
            ),
            LeftReason::Failed(error) => fill(
                &gettext("{path} was left by an earlier run and could not be removed: {error}"),
                &[("path", &path), ("error", error)],
            ),
        }
    }
}

/// Removes the private directories in `dir` left by killed runs of this program that it can
/// prove are its own and that no live run uses; returns what it removed. See [`sweep`].
pub fn remove_stale(dir: &Path) -> Vec<PathBuf> {
    sweep(dir).removed
}

/// Looks through `dir` (not recursively) for what earlier runs left: removes each stale
/// private directory that is provably ours, reports what it leaves. A directory whose lock a
/// live run (of any process, this one included) holds is not touched, only listed in
/// [`Sweep::busy`]; one that is not ours (another user's) is neither touched nor reported.
/// Errors reading `dir` give an empty result.
pub fn sweep(dir: &Path) -> Sweep {
    let mut out = Sweep::default();
    let Ok(target_fd) = open_path_dir(dir) else {
        return out;
    };
    let Ok(names) = list_names(target_fd.as_fd()) else {
        return out;
    };
    let mut names: Vec<OsString> = names;
    names.sort();
    for name in names {
        let Some(text) = name.to_str() else { continue };
        if let Some(token) = run_dir_token(text) {
            let path = dir.join(&name);
            match sweep_run_dir(target_fd.as_fd(), text, token) {
                Ok(Swept::Removed) => out.removed.push(path),
                Ok(Swept::Skipped) => {}
                Ok(Swept::Busy) => out.busy.push(path),
                Ok(Swept::Left(reason)) => out.left.push(Leftover { path, reason }),
                Err(e) => out.left.push(Leftover {
                    path,
                    reason: LeftReason::Failed(e.to_string()),
                }),
            }
        } else if is_old_test_file(text)
            && fstatat(target_fd.as_fd(), &cname(text)).is_ok_and(|m| is_reg(&m))
        {
            out.left.push(Leftover {
                path: dir.join(&name),
                reason: LeftReason::OldVersion,
            });
        }
    }
    out
}

enum Swept {
    Removed,
    /// Not ours: not mentioned.
    Skipped,
    /// Ours and in use by a live run: not touched.
    Busy,
    Left(LeftReason),
}

fn sweep_run_dir(target: BorrowedFd<'_>, name: &str, token: u64) -> io::Result<Swept> {
    let cname_dir = cname(name);
    let Some((meta, run_fd)) = open_if_ours(target, &cname_dir)? else {
        return Ok(Swept::Skipped);
    };
    // The lock first: a live run holds it from before its stamp exists until after its files
    // are gone.
    let _lock = match take_lock(run_fd.as_fd())? {
        Lock::Taken(lock) => lock,
        Lock::Held => return Ok(Swept::Busy),
        Lock::NotOurs => return Ok(Swept::Left(LeftReason::Unproven)),
    };
    let (mut foreign, all_empty) = survey(run_fd.as_fd())?;
    let stamped = read_small(run_fd.as_fd(), STAMP_NAME).is_some_and(|s| s == stamp_text(token));
    if !stamped && !all_empty {
        return Ok(Swept::Left(LeftReason::Unproven));
    }
    remove_hook_outputs(run_fd.as_fd())?;
    for name in OUR_NAMES {
        unlink_ours(run_fd.as_fd(), name, None)?;
    }
    if !foreign.is_empty() {
        foreign.sort();
        return Ok(Swept::Left(LeftReason::Foreign(foreign)));
    }
    match fstatat(target, &cname_dir) {
        Ok(now) if identity(&now) == identity(&meta) => {
            unlinkat(target, &cname_dir, libc::AT_REMOVEDIR)?;
            Ok(Swept::Removed)
        }
        _ => Ok(Swept::Skipped),
    }
}

/// The directory `name` in `target`, opened without following a symlink, with its `lstat`,
/// when it is a directory owned by our euid with mode 0700 and the descriptor is the same
/// inode as the name; `None` when it is not (someone else's, or replaced meanwhile).
fn open_if_ours(target: BorrowedFd<'_>, name: &CStr) -> io::Result<Option<(Stat, OwnedFd)>> {
    let meta = fstatat(target, name)?;
    let euid = nix::unistd::geteuid().as_raw();
    if !is_dir(&meta) || meta.st_uid != euid || meta.st_mode & 0o7777 != 0o700 {
        return Ok(None);
    }
    let Ok(run_fd) = open_run_dir_fd(target, name) else {
        return Ok(None);
    };
    if identity(&fstat(run_fd.as_fd())?) != identity(&meta) {
        return Ok(None);
    }
    Ok(Some((meta, run_fd)))
}

/// What trying a stale directory's lock file found.
enum Lock {
    /// Taken without waiting (held until dropped), or `None` when there is no lock file.
    Taken(Option<OwnedFd>),
    /// A live run holds it.
    Held,
    /// Something other than a regular file under the lock's name (a symlink, a directory).
    NotOurs,
}

/// Tries to take the lock in the private directory open at `run_dir` without waiting.
fn take_lock(run_dir: BorrowedFd<'_>) -> io::Result<Lock> {
    let flags = libc::O_RDWR | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK;
    match openat(run_dir, &cname(LOCK_NAME), flags, 0) {
        Ok(lock) => {
            if !is_reg(&fstat(lock.as_fd())?) {
                return Ok(Lock::NotOurs);
            }
            match flock(lock.as_fd(), libc::LOCK_EX | libc::LOCK_NB) {
                Ok(()) => Ok(Lock::Taken(Some(lock))),
                Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Ok(Lock::Held),
                Err(e) => Err(e),
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Lock::Taken(None)),
        // A symlink (ELOOP) or something else in its place: not the program's.
        Err(_) => Ok(Lock::NotOurs),
    }
}

/// The names in the private directory open at `run_dir` that the program did not create (or
/// that are not regular files), and whether every one of the program's files there is empty.
fn survey(run_dir: BorrowedFd<'_>) -> io::Result<(Vec<String>, bool)> {
    let mut foreign = Vec::new();
    let mut all_empty = true;
    for entry in &list_names(run_dir)? {
        let ours = entry
            .to_str()
            .is_some_and(|e| OUR_NAMES.contains(&e) || is_fio_hook_output(e));
        let meta = fstatat(run_dir, &CString::new(entry.as_bytes()).expect("no NUL"))?;
        if ours && is_reg(&meta) {
            all_empty &= meta.st_size == 0;
        } else {
            foreign.push(entry.to_string_lossy().into_owned());
        }
    }
    Ok((foreign, all_empty))
}

/// True when `name` follows version 0.1's pattern exactly (`.agnostics-test.<pid>.<16 hex>.tmp`).
fn is_old_test_file(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(OLD_PREFIX)
        .and_then(|r| r.strip_suffix(OLD_SUFFIX))
    else {
        return false;
    };
    let Some((pid, random)) = rest.split_once('.') else {
        return false;
    };
    random.len() == 16
        && random.bytes().all(|b| b.is_ascii_hexdigit())
        && !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_files_follow_the_exact_pattern() {
        assert!(is_old_test_file(".agnostics-test.123.0123456789abcdef.tmp"));
        assert!(!is_old_test_file(
            ".agnostics-test.123.0123456789abcdef.tmpx"
        ));
        assert!(!is_old_test_file(".agnostics-test.123.0123456789abcde.tmp"));
        assert!(!is_old_test_file(
            ".agnostics-test.12a.0123456789abcdef.tmp"
        ));
        assert!(!is_old_test_file(".agnostics-test..0123456789abcdef.tmp"));
    }
}
