//! Another program holding a drive's lock file, as a test or capacity check of another
//! process does: a `sleep` child that inherits an open file description with a shared lock
//! on the file, so that the kernel names that child as the lock's holder. Killed on drop.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{Child, Command};

/// A child process holding a shared lock on a lock file until dropped.
#[derive(Debug)]
pub struct LockHolder {
    child: Child,
}

impl LockHolder {
    /// Creates `path` if absent, takes a shared open file description lock on the whole file
    /// and leaves it to a new `sleep` process (this process's copy of the description is
    /// closed, so the child alone holds it).
    ///
    /// # Panics
    /// When the file cannot be opened or locked, or `sleep` cannot start.
    pub fn spawn(path: &Path) -> LockHolder {
        use nix::fcntl::{fcntl, open, FcntlArg, OFlag};
        use nix::sys::stat::Mode;
        // No O_CLOEXEC: the child inherits the description.
        let raw = open(
            path,
            OFlag::O_RDWR | OFlag::O_CREAT,
            Mode::from_bits_truncate(0o644),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // SAFETY: `open` returned a new descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: flock is plain old data; all-zero is a valid value of every field.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        lock.l_type = libc::F_RDLCK as libc::c_short;
        lock.l_whence = libc::SEEK_SET as libc::c_short;
        fcntl(fd.as_raw_fd(), FcntlArg::F_OFD_SETLK(&lock))
            .unwrap_or_else(|e| panic!("a lock on {}: {e}", path.display()));
        let child = Command::new("sleep")
            .arg("600")
            .spawn()
            .unwrap_or_else(|e| panic!("sleep starts: {e}"));
        drop(fd);
        LockHolder { child }
    }

    /// The holder's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for LockHolder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
