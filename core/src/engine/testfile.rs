//! The program's own test file: created with O_CREAT|O_EXCL|O_NOFOLLOW under a name pattern the
//! program owns, removed at the end, on error, on cancel; stale ones from killed runs are
//! recognised by name, owner and a dead process, and removed at the next start.
//!
//! The name is `.agnostics-test.<pid>.<16 hex digits>.tmp`. Nothing else is ever deleted: a
//! removal first checks (with `lstat`) that the path is still the regular file this process
//! created (same device and inode), or, for stale files, a regular file of our user whose
//! process is gone. DESIGN.md, "Known faults of the original" (the 256 MiB file left behind).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::EngineError;

/// Start of every test file's name.
const PREFIX: &str = ".agnostics-test.";
/// End of every test file's name.
const SUFFIX: &str = ".tmp";

/// A test file this process created. Removed on [`TestFile::remove`] or drop, only while it is
/// still the very file (device and inode) created here.
#[derive(Debug)]
pub struct TestFile {
    dir: PathBuf,
    path: PathBuf,
    fs_type: String,
    dev: AtomicU64,
    ino: AtomicU64,
    removed: bool,
}

impl TestFile {
    /// Creates a new, empty test file in `dir` (mode 0600, O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC).
    /// With `direct`, probes O_DIRECT on it.
    ///
    /// Errors: [`EngineError::DirectIoRefused`] (naming `fs_type`) when the filesystem refuses
    /// O_DIRECT (EINVAL), the file being removed again; [`EngineError::NoSpace`] or
    /// [`EngineError::Io`] (phase `create`, op `open`) when it cannot be created.
    pub fn create(dir: &Path, direct: bool, fs_type: &str) -> Result<TestFile, EngineError> {
        let (path, file) =
            create_unique(dir).map_err(|e| EngineError::from_io("create", "open", e))?;
        let meta = file
            .metadata()
            .map_err(|e| EngineError::from_io("create", "open", e))?;
        drop(file);
        let test_file = TestFile {
            dir: dir.to_path_buf(),
            path,
            fs_type: fs_type.to_owned(),
            dev: AtomicU64::new(meta.dev()),
            ino: AtomicU64::new(meta.ino()),
            removed: false,
        };
        if direct {
            // The probe; on error `test_file` is dropped, which removes the file.
            test_file.open(true)?;
        }
        Ok(test_file)
    }

    /// The file's absolute or dir-relative path (`dir` joined with the unique name).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory it is in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The filesystem type given at creation (e.g. `ext4`), for messages.
    pub fn fs_type(&self) -> &str {
        &self.fs_type
    }

    /// Opens the file read-write (O_NOFOLLOW|O_CLOEXEC, plus O_DIRECT with `direct`) and checks
    /// that it is still the file created here.
    ///
    /// Errors: [`EngineError::DirectIoRefused`] when O_DIRECT is refused (EINVAL);
    /// [`EngineError::TestFileGone`] (phase `open`) when it was removed or replaced;
    /// [`EngineError::ReadOnly`] or [`EngineError::Io`] (phase `open`, op `open`) when it
    /// cannot be opened for another reason.
    pub fn open(&self, direct: bool) -> Result<File, EngineError> {
        let mut flags = libc::O_NOFOLLOW | libc::O_CLOEXEC;
        if direct {
            flags |= libc::O_DIRECT;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(flags)
            .open(&self.path)
            .map_err(|e| {
                if direct && e.raw_os_error() == Some(libc::EINVAL) {
                    EngineError::DirectIoRefused {
                        fs_type: self.fs_type.clone(),
                    }
                } else {
                    EngineError::from_io("open", "open", e)
                }
            })?;
        let meta = file
            .metadata()
            .map_err(|e| EngineError::from_io("open", "open", e))?;
        if (meta.dev(), meta.ino()) != self.identity() {
            return Err(EngineError::test_file_replaced("open"));
        }
        Ok(file)
    }

    fn identity(&self) -> (u64, u64) {
        (
            self.dev.load(Ordering::SeqCst),
            self.ino.load(Ordering::SeqCst),
        )
    }

    /// Takes over the file now at this path after a child process (fio) re-created it: fio
    /// unlinks and re-creates a file it has to lay out. The path is adopted only when `lstat`
    /// shows a regular file owned by our effective uid; its mode is set back to 0600. Safe
    /// because the name is unique (pid and 64 random bits) and only this process and its
    /// child used it; in a sticky directory such as /var/tmp no other user can replace it.
    ///
    /// Errors: the path cannot be inspected, or holds something that is not ours (then the
    /// old identity is kept and nothing will be removed).
    pub fn reclaim(&self) -> io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::symlink_metadata(&self.path)?;
        if !meta.file_type().is_file() || meta.uid() != nix::unistd::geteuid().as_raw() {
            return Err(io::Error::other(
                "the test file's path holds something that is not ours",
            ));
        }
        if (meta.dev(), meta.ino()) != self.identity() {
            self.dev.store(meta.dev(), Ordering::SeqCst);
            self.ino.store(meta.ino(), Ordering::SeqCst);
            std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(())
    }

    /// Removes the file now. Does nothing (and succeeds) when the path no longer names the
    /// file created here (someone removed or replaced it: that file is not ours).
    ///
    /// Errors: the unlink failed.
    pub fn remove(mut self) -> io::Result<()> {
        self.removed = true;
        let (dev, ino) = self.identity();
        remove_if_ours(&self.path, dev, ino)
    }
}

impl Drop for TestFile {
    fn drop(&mut self) {
        if !self.removed {
            self.removed = true;
            let (dev, ino) = self.identity();
            let _ = remove_if_ours(&self.path, dev, ino);
        }
    }
}

fn remove_if_ours(path: &Path, dev: u64, ino: u64) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() && meta.dev() == dev && meta.ino() == ino => {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                other => other,
            }
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn create_unique(dir: &Path) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    let mut last = None;
    for _ in 0..16 {
        let name = format!("{PREFIX}{pid}.{:016x}{SUFFIX}", rand::random::<u64>());
        let path = dir.join(name);
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists)))
}

/// The process id in a test file's name, when `name` follows the pattern exactly
/// (`.agnostics-test.<pid>.<16 hex>.tmp`).
fn pid_of(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (pid, random) = rest.split_once('.')?;
    if random.len() != 16 || !random.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse::<i32>().ok().filter(|p| *p > 0)
}

/// True unless `kill(pid, 0)` says no such process (ESRCH). A process of another user
/// (EPERM) is alive.
fn process_alive(pid: i32) -> bool {
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(e) => e != nix::errno::Errno::ESRCH,
    }
}

/// Removes test files in `dir` left by runs of this program whose process is gone and that
/// belong to this user; returns what it removed.
///
/// A file is removed only when its name follows the pattern exactly, `lstat` says it is a
/// regular file (not a symlink) owned by our effective uid, and the pid in its name is not a
/// running process (`kill(pid, 0)` fails with ESRCH). Errors reading `dir` or removing a file
/// are ignored (nothing is removed then).
pub fn remove_stale(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    let uid = nix::unistd::geteuid().as_raw();
    let me = std::process::id() as i32;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(pid_of) else {
            continue;
        };
        if pid == me || process_alive(pid) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.file_type().is_file() || meta.uid() != uid {
            continue;
        }
        if remove_if_ours(&path, meta.dev(), meta.ino()).is_ok() {
            removed.push(path);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pid_only_from_exact_pattern() {
        assert_eq!(
            pid_of(".agnostics-test.123.0123456789abcdef.tmp"),
            Some(123)
        );
        assert_eq!(pid_of(".agnostics-test.123.0123456789abcdef.tmpx"), None);
        assert_eq!(pid_of(".agnostics-test.123.0123456789abcde.tmp"), None);
        assert_eq!(pid_of(".agnostics-test.12a.0123456789abcdef.tmp"), None);
        assert_eq!(pid_of(".agnostics-test..0123456789abcdef.tmp"), None);
        assert_eq!(pid_of(".agnostics-test.0.0123456789abcdef.tmp"), None);
        assert_eq!(pid_of("agnostics-test.1.0123456789abcdef.tmp"), None);
        assert_eq!(pid_of(".agnostics-test.1.012345678/abcdef.tmp"), None);
    }
}
