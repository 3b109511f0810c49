//! What the fake drive's FUSE server has done, counted by the server itself.

use std::sync::atomic::{AtomicU64, Ordering};

/// What the FUSE server has done since the drive was made, counted by the server itself
/// (requests from the loop device, after the kernel split or merged them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Served {
    /// Read requests answered.
    pub reads: u64,
    /// Bytes returned by reads.
    pub read_bytes: u64,
    /// Write requests answered (all reported as fully written).
    pub writes: u64,
    /// Bytes the writes carried, lost ones included.
    pub written_bytes: u64,
    /// Of `written_bytes`, those silently dropped ([`Behaviour::Lossy`]).
    pub dropped_bytes: u64,
    /// Bytes zeroed by discard and write-zeroes requests (the loop device's
    /// `fallocate(PUNCH_HOLE)` and `fallocate(ZERO_RANGE)`), which are mapped as writes are:
    /// zeros land where a write would, and lost blocks keep what they held.
    pub zeroed_bytes: u64,
}

/// The server's counters, shared with its thread.
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) reads: AtomicU64,
    pub(super) read_bytes: AtomicU64,
    pub(super) writes: AtomicU64,
    pub(super) written_bytes: AtomicU64,
    pub(super) dropped_bytes: AtomicU64,
    pub(super) zeroed_bytes: AtomicU64,
}

impl Counters {
    pub(super) fn snapshot(&self) -> Served {
        Served {
            reads: self.reads.load(Ordering::SeqCst),
            read_bytes: self.read_bytes.load(Ordering::SeqCst),
            writes: self.writes.load(Ordering::SeqCst),
            written_bytes: self.written_bytes.load(Ordering::SeqCst),
            dropped_bytes: self.dropped_bytes.load(Ordering::SeqCst),
            zeroed_bytes: self.zeroed_bytes.load(Ordering::SeqCst),
        }
    }
}
