//! The kernel's mount table watched: `/proc/self/mountinfo` kept open, whose poll reports
//! `POLLPRI | POLLERR` once after each change of this process's mount namespace (a mount, an
//! unmount, a remount), so that a list of drives can follow drives plugged in or removed
//! without reading the table on a timer. Linux `proc(5)`, "/proc/pid/mounts": "this file is
//! pollable".

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};

/// An open `/proc/self/mountinfo` to wait on: give [`MountWatch::raw_fd`] to a main loop
/// (waiting for `POLLPRI`), or call [`MountWatch::changed`].
#[derive(Debug)]
pub struct MountWatch {
    file: File,
}

impl MountWatch {
    /// Opens `/proc/self/mountinfo`. Changes made before this call are not reported.
    ///
    /// # Errors
    /// The `io::Error` of opening it (no `/proc`).
    pub fn open() -> io::Result<MountWatch> {
        Ok(MountWatch {
            file: File::open("/proc/self/mountinfo")?,
        })
    }

    /// The open file's descriptor, readable by `poll(2)` for `POLLPRI` (valid while `self`
    /// lives).
    pub fn raw_fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    /// True when the mount table changed since the last poll of this watch (or since it was
    /// opened), waiting at most `timeout_ms` milliseconds (0: not at all, negative: without
    /// end) for a change. Each change is reported once: the poll that reports it also marks
    /// it seen.
    ///
    /// # Errors
    /// The `io::Error` of `poll(2)` (other than `EINTR`, after which it waits again).
    pub fn changed(&self, timeout_ms: i32) -> io::Result<bool> {
        let mut fd = libc::pollfd {
            fd: self.raw_fd(),
            events: libc::POLLPRI,
            revents: 0,
        };
        loop {
            // SAFETY: one valid pollfd, counted as one; the descriptor is open while self is.
            let ready = unsafe { libc::poll(&mut fd, 1, timeout_ms) };
            if ready >= 0 {
                return Ok(ready > 0 && fd.revents & (libc::POLLPRI | libc::POLLERR) != 0);
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }
}

impl AsFd for MountWatch {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
}
