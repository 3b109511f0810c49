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

mod sweep;
mod sys;

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use sweep::{remove_stale, sweep, LeftReason, Leftover, Sweep};
use sys::{
    cname, create_in, create_in_as, flock, fstat, fstatat, identity, is_dir, is_reg, list_names,
    mkdirat, open_path_dir, open_run_dir, openat, read_small, unlinkat,
};

use super::device_io::BlockDevice;
use super::EngineError;

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

/// True for the files fio writes in the private directory for the fio engine's
/// `exec_prerun`/`exec_postrun` hooks: `job<N>.prerun.txt` and `job<N>.postrun.txt` (fio names
/// them after the job's section and the hook, and the program names the sections).
pub fn is_fio_hook_output(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("job") else {
        return false;
    };
    let Some((index, hook)) = rest.split_once('.') else {
        return false;
    };
    !index.is_empty()
        && index.len() <= 6
        && index.bytes().all(|b| b.is_ascii_digit())
        && matches!(hook, "prerun.txt" | "postrun.txt")
}

/// Removes every fio hook output ([`is_fio_hook_output`]) in the directory open at `dir`
/// (regular files only).
fn remove_hook_outputs(dir: BorrowedFd<'_>) -> io::Result<()> {
    for name in list_names(dir)? {
        if let Some(name) = name.to_str().filter(|n| is_fio_hook_output(n)) {
            unlink_ours(dir, name, None)?;
        }
    }
    Ok(())
}

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
    /// The block device whose counters tell what the drive did (see
    /// [`TestFile::block_device`]).
    block_device: Option<BlockDevice>,
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
                block_device: None,
            };
            file.block_device = BlockDevice::of_file(file.run_fd.as_fd(), Path::new("/sys"));
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

    /// The block device the engines read the drive's own counters from: the device of the
    /// file's filesystem (its `st_dev`, in `/sys`), or the one given by
    /// [`TestFile::count_on`]; `None` when there is none.
    pub fn block_device(&self) -> Option<&BlockDevice> {
        self.block_device.as_ref()
    }

    /// Counts on `device` where the filesystem's own device number names no block device
    /// (btrfs and overlay report an anonymous one): the caller found the device behind the
    /// mount. A file whose filesystem has a block device keeps it.
    pub fn count_on(&mut self, device: Option<BlockDevice>) {
        if self.block_device.is_none() {
            self.block_device = device;
        }
    }

    /// Reads and removes the output fio wrote for one of its hooks, `name` (see
    /// [`is_fio_hook_output`]; at most 256 bytes, a regular file, no link followed); `None`
    /// when there is none or `name` is not such a file's.
    pub fn take_hook_output(&self, name: &str) -> Option<String> {
        if !is_fio_hook_output(name) {
            return None;
        }
        let text = read_small(self.run_fd.as_fd(), name);
        let _ = unlink_ours(self.run_fd.as_fd(), name, None);
        text
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

    /// True when the private directory no longer has a name anywhere (its link count is 0:
    /// it was removed, not moved) and nothing is in it.
    fn run_dir_deleted(&self) -> bool {
        fstat(self.run_fd.as_fd()).is_ok_and(|st| st.st_nlink == 0)
            && list_names(self.run_fd.as_fd()).is_ok_and(|names| names.is_empty())
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
        if let Err(e) = remove_hook_outputs(self.run_fd.as_fd()) {
            problems.push(format!("{}: {e}", self.run_dir.display()));
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
            // Deleted with everything in it (`rm -rf` of the target): nothing is left anywhere.
            Err(e) if e.kind() == io::ErrorKind::NotFound && self.run_dir_deleted() => {}
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
    fn fio_hook_outputs_are_only_the_programs_job_names() {
        for ours in [
            "job0.prerun.txt",
            "job4.postrun.txt",
            "job123456.prerun.txt",
        ] {
            assert!(is_fio_hook_output(ours), "{ours}");
        }
        for other in [
            "job.prerun.txt",
            "jobx.prerun.txt",
            "job1234567.prerun.txt",
            "job0.prerun.txt.bak",
            "job0.verify.txt",
            "seq-write.prerun.txt",
            "../job0.prerun.txt",
        ] {
            assert!(!is_fio_hook_output(other), "{other}");
        }
    }

    #[test]
    fn hook_outputs_are_read_once_and_go_with_the_run() {
        // On the disk the tests run from (not tmpfs).
        let base = tempfile::Builder::new()
            .prefix("agnostics-testfile-")
            .tempdir_in(env!("CARGO_MANIFEST_DIR"))
            .or_else(|_| tempfile::tempdir())
            .unwrap();
        let file = TestFile::create(base.path(), false, "ext4").unwrap();
        let write = |name: &str| {
            std::fs::write(file.run_dir().join(name), "1 2 3 4 5 6 7 8 9\n").unwrap();
        };
        write("job0.prerun.txt");
        write("job1.postrun.txt");
        assert_eq!(
            file.take_hook_output("job0.prerun.txt").as_deref(),
            Some("1 2 3 4 5 6 7 8 9\n")
        );
        assert_eq!(file.take_hook_output("job0.prerun.txt"), None);
        assert_eq!(file.take_hook_output("stamp"), None, "not a hook's");
        let run_dir = file.run_dir().to_owned();
        file.remove().unwrap();
        assert!(!run_dir.exists(), "job1.postrun.txt went with it");
    }
}
