//! The program's own test file, in a private directory of its own inside the target, and the
//! sweep that removes what a killed run left behind, only when it is provably ours.
//!
//! Each run makes `<target>/.agnostics-run.<16 hex digits>` (mkdir mode 0700), opens it with
//! O_DIRECTORY|O_NOFOLLOW and checks that it is a directory owned by our effective uid, mode
//! 0700, with the same device and inode as the name in the target. Everything the program
//! writes lives inside it, under names the program chooses ([`TEST_FILE_NAME`],
//! [`JOB_FILE_NAME`], and a lock and a stamp file), and is opened relative to the directory's
//! descriptor (openat, O_NOFOLLOW): renaming the directory, or putting a symlink in its place,
//! redirects nothing. The fio engine runs fio with its working directory set through the same
//! descriptor.
//!
//! The lock file is held with `flock(LOCK_EX)` for the whole run (fio inherits it, so it is
//! held as long as any fio process of the run lives); the stamp file holds the random token
//! that is also in the directory's name. A stale directory is removed by [`sweep`] only when
//! its name matches, `lstat` says a directory owned by our euid with mode 0700, its lock can be
//! taken without waiting, and its stamp matches (or every file in it is empty, the case of a
//! run killed while it was setting up); then only the names the program creates there are
//! removed (regular files, never symlinks) and the directory itself, and anything else in it
//! is left and reported.
//!
//! Loose `.agnostics-test.<pid>.<hex>.tmp` files of version 0.1 cannot be proven ours: they are
//! never removed, only reported.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::EngineError;
use crate::i18n::{fill, gettext};

/// Start of the name of every private run directory; 16 lowercase hex digits follow.
pub const RUN_DIR_PREFIX: &str = ".agnostics-run.";
/// The test file's name inside the private directory.
pub const TEST_FILE_NAME: &str = "test-file";
/// The fio engine's job file's name inside the private directory.
pub const JOB_FILE_NAME: &str = "fio-job";
/// The lock file, held with `flock(LOCK_EX)` while the run lives.
const LOCK_NAME: &str = "lock";
/// The stamp file, holding [`stamp_text`] of the directory's token.
const STAMP_NAME: &str = "stamp";
/// Every name the program creates in its private directory, in the order they are removed
/// (the lock last, so that it is held until everything else is gone).
const OUR_NAMES: [&str; 4] = [TEST_FILE_NAME, JOB_FILE_NAME, STAMP_NAME, LOCK_NAME];

/// Start and end of the loose test files of version 0.1 (`.agnostics-test.<pid>.<hex>.tmp`).
const OLD_PREFIX: &str = ".agnostics-test.";
const OLD_SUFFIX: &str = ".tmp";

/// A test file this process created, in its private directory, with the directory's lock
/// held. Removed (with the directory) on [`TestFile::remove`] or drop; only names the program
/// created are removed, and the test file only while it is still the very file (device and
/// inode) made here.
#[derive(Debug)]
pub struct TestFile {
    dir: PathBuf,
    run_dir: PathBuf,
    path: PathBuf,
    run_name: CString,
    target_fd: OwnedFd,
    run_fd: OwnedFd,
    /// Holds `flock(LOCK_EX)`; closed last.
    lock: Option<OwnedFd>,
    run_identity: (u64, u64),
    fs_type: String,
    dev: AtomicU64,
    ino: AtomicU64,
    removed: bool,
}

impl TestFile {
    /// Creates a private directory in `dir` and a new, empty test file in it (mode 0600,
    /// O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC), takes its lock and writes its stamp. With
    /// `direct`, probes O_DIRECT on the file. `dir` may be any path (any bytes); it is opened
    /// once, and nothing from it ever reaches a job file.
    ///
    /// Errors: [`EngineError::DirectIoRefused`] (naming `fs_type`) when the filesystem refuses
    /// O_DIRECT (EINVAL), everything being removed again; [`EngineError::NoSpace`] or
    /// [`EngineError::Io`] (phase `create`, op `open`, the message naming the path) when the
    /// directory or file cannot be created, or the directory is not ours after creating it.
    pub fn create(dir: &Path, direct: bool, fs_type: &str) -> Result<TestFile, EngineError> {
        let fail = |path: &Path, e: io::Error| EngineError::from_io("create", "open", at(path, e));
        let target_fd = open_path_dir(dir).map_err(|e| fail(dir, e))?;
        let mut last = None;
        for _ in 0..16 {
            let token = rand::random::<u64>();
            let name = format!("{RUN_DIR_PREFIX}{token:016x}");
            let run_dir = dir.join(&name);
            let run_name = CString::new(name).expect("no NUL in a hex name");
            match mkdirat(target_fd.as_fd(), &run_name, 0o700) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    last = Some(e);
                    continue;
                }
                Err(e) => return Err(fail(&run_dir, e)),
            }
            let run_fd = match open_run_dir(target_fd.as_fd(), &run_name) {
                Ok(fd) => fd,
                // Removed at once by a sweep that found it empty: try another name.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    last = Some(e);
                    continue;
                }
                Err(e) => return Err(fail(&run_dir, e)),
            };
            let run_identity = identity(&fstat(run_fd.as_fd()).map_err(|e| fail(&run_dir, e))?);
            let mut file = TestFile {
                dir: dir.to_path_buf(),
                path: run_dir.join(TEST_FILE_NAME),
                run_dir,
                run_name,
                target_fd,
                run_fd,
                lock: None,
                run_identity,
                fs_type: fs_type.to_owned(),
                dev: AtomicU64::new(0),
                ino: AtomicU64::new(0),
                removed: false,
            };
            // On error `file` is dropped, which removes what was made so far.
            file.set_up(token)
                .map_err(|e| EngineError::from_io("create", "open", e))?;
            if direct {
                file.open(true)?;
            }
            return Ok(file);
        }
        let e = last.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists));
        Err(fail(dir, e))
    }

    /// Lock, stamp, test file, in that order: until the stamp is written every file in the
    /// directory is empty, so that a run killed at any moment leaves something [`sweep`] can
    /// prove is ours.
    fn set_up(&mut self, token: u64) -> io::Result<()> {
        let in_dir = |name: &str| self.run_dir.join(name);
        // Read-only: a descriptor open for writing would keep the filesystem from being
        // remounted read-only while the run lives, and flock needs none.
        let lock = create_in_as(self.run_fd.as_fd(), LOCK_NAME, libc::O_RDONLY)
            .map_err(|e| at(&in_dir(LOCK_NAME), e))?;
        flock(lock.as_fd(), libc::LOCK_EX | libc::LOCK_NB)
            .map_err(|e| at(&in_dir(LOCK_NAME), e))?;
        self.lock = Some(lock);
        let stamp =
            create_in(self.run_fd.as_fd(), STAMP_NAME).map_err(|e| at(&in_dir(STAMP_NAME), e))?;
        File::from(stamp)
            .write_all(stamp_text(token).as_bytes())
            .map_err(|e| at(&in_dir(STAMP_NAME), e))?;
        let test = create_in(self.run_fd.as_fd(), TEST_FILE_NAME).map_err(|e| at(&self.path, e))?;
        let (dev, ino) = identity(&fstat(test.as_fd()).map_err(|e| at(&self.path, e))?);
        self.dev.store(dev, Ordering::SeqCst);
        self.ino.store(ino, Ordering::SeqCst);
        Ok(())
    }

    /// The test file's path, `<dir>/.agnostics-run.<hex>/test-file`, for messages and tests.
    /// The program itself never opens it by this path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The target directory it is in (as given to [`TestFile::create`]).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The private directory's path, `<dir>/.agnostics-run.<hex>`, for messages.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// The private directory, open (O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC): what the engines open
    /// files relative to, and fio's working directory (set with `fchdir`).
    pub fn run_dir_fd(&self) -> BorrowedFd<'_> {
        self.run_fd.as_fd()
    }

    /// The lock file's descriptor (O_CLOEXEC, `flock(LOCK_EX)` held). A child process that
    /// works on the file (fio) should inherit it (clear FD_CLOEXEC in the child) so that the
    /// lock is held as long as it lives.
    pub fn lock_fd(&self) -> Option<BorrowedFd<'_>> {
        self.lock.as_ref().map(|l| l.as_fd())
    }

    /// The filesystem type given at creation (e.g. `ext4`), for messages.
    pub fn fs_type(&self) -> &str {
        &self.fs_type
    }

    /// Opens the file read-write relative to the private directory (openat,
    /// O_NOFOLLOW|O_CLOEXEC, plus O_DIRECT with `direct`) and checks that it is still the file
    /// created here.
    ///
    /// Errors: [`EngineError::DirectIoRefused`] when O_DIRECT is refused (EINVAL);
    /// [`EngineError::TestFileGone`] (phase `open`) when it was removed or replaced;
    /// [`EngineError::ReadOnly`] or [`EngineError::Io`] (phase `open`, op `open`) when it
    /// cannot be opened for another reason.
    pub fn open(&self, direct: bool) -> Result<File, EngineError> {
        let mut flags = libc::O_RDWR | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        if direct {
            flags |= libc::O_DIRECT;
        }
        let fd = openat(self.run_fd.as_fd(), &cname(TEST_FILE_NAME), flags, 0).map_err(|e| {
            if direct && e.raw_os_error() == Some(libc::EINVAL) {
                EngineError::DirectIoRefused {
                    fs_type: self.fs_type.clone(),
                }
            } else {
                EngineError::from_io("open", "open", at(&self.path, e))
            }
        })?;
        let meta = fstat(fd.as_fd()).map_err(|e| EngineError::from_io("open", "open", e))?;
        if !is_reg(&meta) || identity(&meta) != self.identity() {
            return Err(EngineError::test_file_replaced("open"));
        }
        Ok(File::from(fd))
    }

    fn identity(&self) -> (u64, u64) {
        (
            self.dev.load(Ordering::SeqCst),
            self.ino.load(Ordering::SeqCst),
        )
    }

    /// Takes over the file now named [`TEST_FILE_NAME`] in the private directory after a
    /// child process (fio) re-created it: fio unlinks and re-creates a file it has to lay out.
    /// Adopted only when `fstatat` (no symlinks followed) shows a regular file owned by our
    /// effective uid; its mode is set back to 0600. Safe because only this process and its
    /// child can create names in the private directory (mode 0700, ours).
    ///
    /// Errors: the name cannot be inspected, or holds something that is not ours (then the
    /// old identity is kept and nothing will be removed).
    pub fn reclaim(&self) -> io::Result<()> {
        let name = cname(TEST_FILE_NAME);
        let meta = fstatat(self.run_fd.as_fd(), &name)?;
        if !is_reg(&meta) || meta.st_uid != nix::unistd::geteuid().as_raw() {
            return Err(io::Error::other(format!(
                "{}: the test file's name holds something that is not ours",
                self.path.display()
            )));
        }
        if identity(&meta) != self.identity() {
            let fd = openat(
                self.run_fd.as_fd(),
                &name,
                libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0,
            )?;
            let now = fstat(fd.as_fd())?;
            if !is_reg(&now) || identity(&now) != identity(&meta) {
                return Err(io::Error::other(
                    "the test file changed while being reclaimed",
                ));
            }
            // SAFETY: plain syscall on a descriptor we own.
            if unsafe { libc::fchmod(fd.as_raw_fd(), 0o600) } != 0 {
                return Err(io::Error::last_os_error());
            }
            let (dev, ino) = identity(&now);
            self.dev.store(dev, Ordering::SeqCst);
            self.ino.store(ino, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Removes the test file, the other files the program made in the private directory, and
    /// the directory. A test file that is no longer the one created here is not removed.
    ///
    /// Errors: something could not be removed; the message names each path left behind (a
    /// directory moved away or replaced by someone else, a file that could not be unlinked,
    /// names the program did not create).
    pub fn remove(mut self) -> io::Result<()> {
        self.removed = true;
        self.clean_up()
    }

    fn clean_up(&mut self) -> io::Result<()> {
        // fio may have re-created the file without the engine reclaiming it (an early error):
        // a regular file of ours in our private folder is still the run's.
        let _ = self.reclaim();
        let mut problems = Vec::new();
        for name in OUR_NAMES {
            if name == LOCK_NAME {
                continue;
            }
            let expected = (name == TEST_FILE_NAME).then(|| self.identity());
            if let Err(e) = unlink_ours(self.run_fd.as_fd(), name, expected) {
                problems.push(format!("{}: {e}", self.run_dir.join(name).display()));
            }
        }
        if let Err(e) = unlink_ours(self.run_fd.as_fd(), LOCK_NAME, None) {
            problems.push(format!("{}: {e}", self.run_dir.join(LOCK_NAME).display()));
        }
        // The directory goes only while its name still is this directory.
        match fstatat(self.target_fd.as_fd(), &self.run_name) {
            Ok(meta) if is_dir(&meta) && identity(&meta) == self.run_identity => {
                if let Err(e) = unlinkat(self.target_fd.as_fd(), &self.run_name, libc::AT_REMOVEDIR)
                {
                    if e.kind() != io::ErrorKind::NotFound {
                        let left = list_names(self.run_fd.as_fd()).unwrap_or_default();
                        problems.push(format!(
                            "{}: {e}{}",
                            self.run_dir.display(),
                            describe_names(&left)
                        ));
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => problems.push(format!(
                "{}: the program's folder was moved away by someone else and is left where it is",
                self.run_dir.display()
            )),
            Err(e) => problems.push(format!("{}: {e}", self.run_dir.display())),
            Ok(_) => problems.push(format!(
                "{}: the program's folder was replaced by someone else and is left where it is",
                self.run_dir.display()
            )),
        }
        self.lock = None;
        if problems.is_empty() {
            Ok(())
        } else {
            Err(io::Error::other(problems.join("; ")))
        }
    }
}

impl Drop for TestFile {
    fn drop(&mut self) {
        if !self.removed {
            self.removed = true;
            let _ = self.clean_up();
        }
    }
}

/// What [`sweep`] did in a target directory.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Sweep {
    /// Private directories of killed runs that were removed with everything in them
    /// (`<dir>/.agnostics-run.<hex>`).
    pub removed: Vec<PathBuf>,
    /// Things left in place that the user may want to delete, each with the reason.
    pub left: Vec<Leftover>,
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
/// live run (of any process, this one included) holds is neither touched nor reported, nor is
/// one that is not ours (another user's). Errors reading `dir` give an empty result.
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
    /// Not ours, or in use: not mentioned.
    Skipped,
    Left(LeftReason),
}

fn sweep_run_dir(target: BorrowedFd<'_>, name: &str, token: u64) -> io::Result<Swept> {
    let cname_dir = cname(name);
    let meta = fstatat(target, &cname_dir)?;
    let euid = nix::unistd::geteuid().as_raw();
    if !is_dir(&meta) || meta.st_uid != euid || meta.st_mode & 0o7777 != 0o700 {
        return Ok(Swept::Skipped);
    }
    let run_fd = match open_run_dir_fd(target, &cname_dir) {
        Ok(fd) => fd,
        Err(_) => return Ok(Swept::Skipped),
    };
    if identity(&fstat(run_fd.as_fd())?) != identity(&meta) {
        return Ok(Swept::Skipped);
    }
    // The lock first: a live run holds it from before its stamp exists until after its files
    // are gone.
    let _lock = match openat(
        run_fd.as_fd(),
        &cname(LOCK_NAME),
        libc::O_RDWR | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK,
        0,
    ) {
        Ok(lock) => {
            if !is_reg(&fstat(lock.as_fd())?) {
                return Ok(Swept::Left(LeftReason::Unproven));
            }
            match flock(lock.as_fd(), libc::LOCK_EX | libc::LOCK_NB) {
                Ok(()) => Some(lock),
                Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => return Ok(Swept::Skipped),
                Err(e) => return Err(e),
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        // A symlink (ELOOP) or something else in its place: not the program's.
        Err(_) => return Ok(Swept::Left(LeftReason::Unproven)),
    };
    let entries = list_names(run_fd.as_fd())?;
    let mut foreign = Vec::new();
    let mut all_empty = true;
    for entry in &entries {
        let entry_text = entry.to_string_lossy().into_owned();
        let ours = entry.to_str().is_some_and(|e| OUR_NAMES.contains(&e));
        let meta = fstatat(
            run_fd.as_fd(),
            &CString::new(entry.as_bytes()).expect("no NUL"),
        )?;
        if ours && is_reg(&meta) {
            all_empty &= meta.st_size == 0;
        } else {
            foreign.push(entry_text);
        }
    }
    let stamped = read_small(run_fd.as_fd(), STAMP_NAME).is_some_and(|s| s == stamp_text(token));
    if !stamped && !all_empty {
        return Ok(Swept::Left(LeftReason::Unproven));
    }
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

/// The text of a private directory's stamp file.
fn stamp_text(token: u64) -> String {
    format!("agnostics run {token:016x}\n")
}

/// The token in a private directory's name, when `name` is exactly
/// `.agnostics-run.<16 lowercase hex digits>`.
fn run_dir_token(name: &str) -> Option<u64> {
    let hex = name.strip_prefix(RUN_DIR_PREFIX)?;
    if hex.len() != 16 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
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

/// Unlinks `name` in `dir` when it is a regular file (never a symlink or directory) and, with
/// `expected`, has that device and inode. Absent is success; anything else in its place is
/// left (success).
fn unlink_ours(dir: BorrowedFd<'_>, name: &str, expected: Option<(u64, u64)>) -> io::Result<()> {
    let name = cname(name);
    match fstatat(dir, &name) {
        Ok(meta) if is_reg(&meta) && expected.is_none_or(|e| e == identity(&meta)) => {
            match unlinkat(dir, &name, 0) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                other => other,
            }
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// ` (it holds a, b)` for a non-empty list of names, else nothing.
fn describe_names(names: &[OsString]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let list: Vec<String> = names
        .iter()
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    format!(" (it holds {})", list.join(", "))
}

/// `e` with `path` in its message; ENOSPC and EDQUOT are kept as they are (they become
/// [`EngineError::NoSpace`]), as is EINVAL (O_DIRECT refused).
fn at(path: &Path, e: io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(libc::ENOSPC | libc::EDQUOT | libc::EINVAL | libc::ELOOP | libc::ESTALE) => e,
        _ => io::Error::new(e.kind(), format!("{}: {e}", path.display())),
    }
}

fn cname(name: &str) -> CString {
    CString::new(name).expect("the program's names have no NUL")
}

fn cpath(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Opens a user-given directory path (symlinks in it followed: the user chose it).
fn open_path_dir(dir: &Path) -> io::Result<OwnedFd> {
    let path = cpath(dir)?;
    // SAFETY: a valid C string; the result is a new descriptor we own.
    let fd = check(unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    })?;
    // SAFETY: `fd` was just opened and is owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn open_run_dir_fd(target: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    openat(
        target,
        name,
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        0,
    )
}

/// Opens the directory just made and proves it is ours: a directory owned by our euid, set
/// to mode 0700, with the same device and inode as the name in `target` now.
fn open_run_dir(target: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    let fd = open_run_dir_fd(target, name)?;
    let meta = fstat(fd.as_fd())?;
    if !is_dir(&meta) || meta.st_uid != nix::unistd::geteuid().as_raw() {
        return Err(io::Error::other(
            "the program's new folder was replaced by someone else's",
        ));
    }
    // The umask may have taken bits away; never more than 0700 is asked for.
    // SAFETY: plain syscall on a descriptor we own.
    check(unsafe { libc::fchmod(fd.as_raw_fd(), 0o700) })?;
    let meta = fstat(fd.as_fd())?;
    let named = fstatat(target, name)?;
    if meta.st_mode & 0o7777 != 0o700 || identity(&named) != identity(&meta) {
        return Err(io::Error::other(
            "the program's new folder was replaced by someone else's",
        ));
    }
    Ok(fd)
}

fn openat(
    dir: BorrowedFd<'_>,
    name: &CStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    // SAFETY: a valid descriptor and C string; the result is a new descriptor we own.
    let fd = check(unsafe {
        libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, mode as libc::c_uint)
    })?;
    // SAFETY: `fd` was just opened and is owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Creates `name` in `dir`: O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, read-write, mode 0600.
fn create_in(dir: BorrowedFd<'_>, name: &str) -> io::Result<OwnedFd> {
    create_in_as(dir, name, libc::O_RDWR)
}

/// Creates `name` in `dir` (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0600) opened with
/// `access` (`O_RDONLY` or `O_RDWR`).
fn create_in_as(dir: BorrowedFd<'_>, name: &str, access: libc::c_int) -> io::Result<OwnedFd> {
    openat(
        dir,
        &cname(name),
        access | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        0o600,
    )
}

fn mkdirat(dir: BorrowedFd<'_>, name: &CStr, mode: libc::mode_t) -> io::Result<()> {
    // SAFETY: a valid descriptor and C string.
    check(unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), mode) }).map(drop)
}

fn unlinkat(dir: BorrowedFd<'_>, name: &CStr, flags: libc::c_int) -> io::Result<()> {
    // SAFETY: a valid descriptor and C string.
    check(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), flags) }).map(drop)
}

fn flock(fd: BorrowedFd<'_>, op: libc::c_int) -> io::Result<()> {
    // SAFETY: plain syscall on a valid descriptor.
    check(unsafe { libc::flock(fd.as_raw_fd(), op) }).map(drop)
}

// The 64-bit stat: on 32-bit targets plain `stat` has a 32-bit st_size and st_ino, and
// fstat fails with EOVERFLOW on a file of 2 GiB or more or an inode number past 2^32 (XFS,
// btrfs).
type Stat = libc::stat64;

fn fstat(fd: BorrowedFd<'_>) -> io::Result<Stat> {
    // SAFETY: `st` is written by the kernel before it is read.
    let mut st: Stat = unsafe { std::mem::zeroed() };
    check(unsafe { libc::fstat64(fd.as_raw_fd(), &mut st) })?;
    Ok(st)
}

/// `lstat` of `name` in `dir` (AT_SYMLINK_NOFOLLOW).
fn fstatat(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Stat> {
    // SAFETY: `st` is written by the kernel before it is read.
    let mut st: Stat = unsafe { std::mem::zeroed() };
    check(unsafe {
        libc::fstatat64(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })?;
    Ok(st)
}

// `dev_t` and `ino_t` are narrower than 64 bits on some 32-bit targets.
#[allow(clippy::unnecessary_cast)]
fn identity(st: &Stat) -> (u64, u64) {
    (st.st_dev as u64, st.st_ino as u64)
}

fn is_reg(st: &Stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFREG
}

fn is_dir(st: &Stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFDIR
}

/// The names in the directory open at `dir` (without `.` and `..`).
fn list_names(dir: BorrowedFd<'_>) -> io::Result<Vec<OsString>> {
    let dup = dir.try_clone_to_owned()?;
    // A fresh open of "." so that the directory offset is our own.
    let fd = openat(
        dup.as_fd(),
        c".",
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        0,
    )?;
    // SAFETY: fdopendir takes over `fd` (released from OwnedFd); closedir closes it.
    let stream = unsafe { libc::fdopendir(std::os::fd::IntoRawFd::into_raw_fd(fd)) };
    if stream.is_null() {
        return Err(io::Error::last_os_error());
    }
    let mut names = Vec::new();
    loop {
        // SAFETY: `stream` is a valid DIR*; errno is reset to tell the end from an error.
        unsafe { *libc::__errno_location() = 0 };
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            let errno = io::Error::last_os_error();
            unsafe { libc::closedir(stream) };
            if errno.raw_os_error().unwrap_or(0) != 0 {
                return Err(errno);
            }
            break;
        }
        // SAFETY: d_name is a NUL-terminated array inside the entry.
        let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) };
        let bytes = name.to_bytes();
        if bytes != b"." && bytes != b".." {
            names.push(OsString::from_vec(bytes.to_vec()));
        }
    }
    Ok(names)
}

/// The contents of `name` in `dir` when it is a small regular file (no symlink followed).
fn read_small(dir: BorrowedFd<'_>, name: &str) -> Option<String> {
    let fd = openat(
        dir,
        &cname(name),
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK,
        0,
    )
    .ok()?;
    if !is_reg(&fstat(fd.as_fd()).ok()?) {
        return None;
    }
    let mut text = String::new();
    File::from(fd).take(256).read_to_string(&mut text).ok()?;
    Some(text)
}

/// Whether `name` is one the program gives a private directory (for tests and listings).
pub fn is_run_dir_name(name: &OsStr) -> bool {
    name.to_str().and_then(run_dir_token).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_dir_names_are_exact() {
        assert_eq!(
            run_dir_token(".agnostics-run.0123456789abcdef"),
            Some(0x0123456789abcdef)
        );
        assert_eq!(run_dir_token(".agnostics-run.0123456789ABCDEF"), None);
        assert_eq!(run_dir_token(".agnostics-run.0123456789abcde"), None);
        assert_eq!(run_dir_token(".agnostics-run.0123456789abcdef0"), None);
        assert_eq!(run_dir_token("agnostics-run.0123456789abcdef"), None);
    }

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
