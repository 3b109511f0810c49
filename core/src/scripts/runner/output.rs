//! What a running script prints: our end of its pipe read as the bytes come (each chunk an
//! event), watched together with the shell's pidfd, the first bytes kept for display, and the
//! display copy of the whole output.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use std::time::Duration;

use crate::i18n::{fill, ngettext};
use crate::scripts::ScriptEvent;

/// Bytes read from the pipe at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// Reads per loop turn at most, so that a script printing without pause cannot keep the
/// runner from its timeout and cancel checks.
const READS_PER_TURN: usize = 16;

/// The pipe and the shell, watched together.
pub(super) struct Watch {
    /// Our end of the output pipe; `None` once it reached EOF.
    pub(super) pipe: Option<File>,
    /// A pidfd for the shell (readable when it ends), when the kernel has them (Linux 5.3+).
    pub(super) pidfd: Option<OwnedFd>,
    /// Read buffer.
    pub(super) buf: Vec<u8>,
    /// The first `cap` bytes of output, for display.
    pub(super) head: Vec<u8>,
    /// Every byte read.
    pub(super) total_bytes: u64,
    /// Display cap, bytes.
    pub(super) cap: usize,
}

impl Watch {
    /// Watches our end of the pipe and the shell `pid`, keeping the first `cap` bytes.
    pub(super) fn new(pipe: OwnedFd, pid: u32, cap: usize) -> Watch {
        Watch {
            pipe: Some(File::from(pipe)),
            pidfd: pidfd_open(pid),
            buf: vec![0; CHUNK_BYTES],
            head: Vec::new(),
            total_bytes: 0,
            cap,
        }
    }

    /// Waits up to `wait` for output (or, with `watch_leader`, for the shell's end) and reads
    /// what is there, sending it on as [`ScriptEvent::Output`].
    pub(super) fn wait_and_read(
        &mut self,
        wait: Duration,
        index: usize,
        on_event: &dyn Fn(ScriptEvent),
        watch_leader: bool,
    ) {
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(2);
        if let Some(pipe) = &self.pipe {
            fds.push(libc::pollfd {
                fd: pipe.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
        }
        if let (true, Some(pidfd)) = (watch_leader, &self.pidfd) {
            fds.push(libc::pollfd {
                fd: pidfd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
        }
        let timeout_ms = wait.as_millis().clamp(0, i32::MAX as u128) as libc::c_int;
        if fds.is_empty() {
            std::thread::sleep(wait);
            return;
        }
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs for the whole call, and
        // the descriptors in it stay open (owned by `self`) until it returns.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if ready <= 0 || fds[0].revents == 0 || self.pipe.is_none() {
            // Timeout, EINTR (a signal for the program: look at the flags again), or only the
            // pidfd is ready.
            return;
        }
        self.read_available(index, on_event);
    }

    /// Reads what the pipe holds (at most [`READS_PER_TURN`] chunks); drops the pipe at EOF.
    fn read_available(&mut self, index: usize, on_event: &dyn Fn(ScriptEvent)) {
        let Some(pipe) = self.pipe.as_mut() else {
            return;
        };
        for _ in 0..READS_PER_TURN {
            match pipe.read(&mut self.buf) {
                Ok(0) => {
                    self.pipe = None;
                    return;
                }
                Ok(n) => {
                    let chunk = &self.buf[..n];
                    self.total_bytes += n as u64;
                    let room = self.cap.saturating_sub(self.head.len());
                    self.head.extend_from_slice(&chunk[..room.min(n)]);
                    on_event(ScriptEvent::Output {
                        index,
                        chunk: chunk.to_vec(),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    // A read error on a pipe means there is nothing more to read.
                    self.pipe = None;
                    return;
                }
            }
        }
    }
}

/// A pidfd for `pid`, or `None` where the kernel has no `pidfd_open` (before Linux 5.3); then
/// the runner notices the shell's end at its next tick instead of at once.
fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1; it touches
    // no memory of ours.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// The display copy of an output: `head` (the first bytes) as lossy UTF-8, and when
/// `total_bytes` is more, a last line "… (N bytes more)". A character cut in two at the cap is
/// left out rather than shown as U+FFFD.
pub fn display_text(head: &[u8], total_bytes: u64) -> String {
    let truncated = total_bytes > head.len() as u64;
    let shown = if truncated {
        &head[..complete_utf8_prefix(head)]
    } else {
        head
    };
    let mut text = String::from_utf8_lossy(shown).into_owned();
    if truncated {
        let more = total_bytes - shown.len() as u64;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&fill(
            // Translators: the end of a test's output shown cut short; the log has it all.
            &ngettext(
                "… ({count} byte more)",
                "… ({count} bytes more)",
                more.min(u64::from(u32::MAX)) as u32,
            ),
            &[("count", &more)],
        ));
    }
    text
}

/// The length of `bytes` without a UTF-8 sequence cut short at its end.
fn complete_utf8_prefix(bytes: &[u8]) -> usize {
    // Look back at most 3 bytes for the lead byte of the last sequence.
    for back in 1..=bytes.len().min(4) {
        let i = bytes.len() - back;
        let b = bytes[i];
        if b & 0xc0 == 0x80 {
            continue; // continuation byte
        }
        let need = match b {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        return if back < need { i } else { bytes.len() };
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_copy_of_short_output_is_whole() {
        assert_eq!(display_text(b"ok\n", 3), "ok\n");
        assert_eq!(display_text(b"caf\xe9\n", 5), "caf\u{FFFD}\n");
    }

    #[test]
    fn display_copy_says_how_much_is_left_out() {
        assert_eq!(display_text(b"abc", 10), "abc\n… (7 bytes more)");
        // "é" is two bytes; the cap cut it after the first.
        assert_eq!(display_text(b"ab\xc3", 10), "ab\n… (8 bytes more)");
        assert_eq!(display_text("aé".as_bytes(), 10), "aé\n… (7 bytes more)");
    }
}
