//! Another program holding a drive's lock file, as a test or capacity check of another
//! process does: a `sleep` child that inherits an open file description with a shared lock
//! on the file, so that the kernel names that child as the lock's holder. Killed on drop.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
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
        // O_CLOEXEC, cleared in the `sleep` child alone: a program another test thread starts
        // at this moment must not inherit the description and be named as a holder too.
        let raw = open(
            path,
            OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_CLOEXEC,
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
        let inherited = fd.as_raw_fd();
        let mut sleep = Command::new("sleep");
        sleep.arg("600");
        // SAFETY: the closure runs in the forked child before exec and calls only fcntl, which
        // is async-signal-safe; it touches no memory shared with the parent.
        unsafe {
            sleep.pre_exec(move || {
                if libc::fcntl(inherited, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = sleep
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
