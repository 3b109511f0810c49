//! I/O buffers for O_DIRECT: aligned, and shared between in-flight requests so that memory
//! stays small (DESIGN.md, "Two engines"; issue: peak RSS under 32 MiB for the standard test,
//! where fio needs 32 × 4 MiB).
//!
//! Two layouts, chosen per phase:
//!
//! * **Private** (when `iodepth × bs` ≤ [`PRIVATE_BUDGET`], e.g. the 4 KiB random phases):
//!   one buffer per request slot. A write slot is filled with random bytes once and, before
//!   each submission, a fresh random word is stamped into every 512-byte sector, so every
//!   block written differs from every other (no block repeats for a deduplicating device).
//! * **Shared** (large blocks, e.g. 4 MiB × 32): writes read from one pool of random bytes
//!   `bs + span` long; request `n` starts at window `n mod windows` (4 KiB steps), so
//!   consecutive blocks differ and several in-flight writes read the same memory (the kernel
//!   only reads it). Reads land in a few discard buffers shared by the in-flight reads: their
//!   contents are never looked at, and two reads racing into the same buffer are harmless for
//!   a benchmark (each I/O still moves its full length from the device).
//!
//! Buffers are touched only through raw pointers handed to the kernel (io_uring or
//! pread/pwrite), never through Rust references while I/O may be in flight.

use std::alloc::Layout;
use std::ptr::NonNull;

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

/// Largest `iodepth × bs` given one buffer per slot, bytes.
pub const PRIVATE_BUDGET: u64 = 8 << 20;
/// Largest total size of shared read targets, bytes (at least one target is always made).
pub const READ_BUDGET: u64 = 8 << 20;
/// Largest extra length of the shared write pool beyond one block, bytes.
pub const MAX_SPAN: u64 = 1 << 20;
/// Step between write windows in the shared pool, bytes (keeps O_DIRECT alignment).
const WINDOW_STEP: usize = 4096;
/// A random word is stamped every this many bytes of a private write buffer.
const STAMP_EVERY: usize = 512;

/// A zero-initialised heap buffer aligned for O_DIRECT.
#[derive(Debug)]
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the buffer is plain memory owned by this value; it is only read or written through
// raw pointers by the kernel or by the one thread that owns a slot (see the module docs).
unsafe impl Send for AlignedBuf {}
// SAFETY: as above; shared access never creates Rust references into the memory.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// `len` bytes (at least 1) aligned to `align` (a power of two). Aborts on out of memory
    /// like any Rust allocation.
    pub fn new(len: usize, align: usize) -> AlignedBuf {
        let layout = Layout::from_size_align(len.max(1), align).expect("valid buffer layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, layout }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Always false: a buffer has at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The start of the memory.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Fills the whole buffer with random bytes. Needs exclusive access (no I/O in flight).
    pub fn fill_random(&mut self, rng: &mut SmallRng) {
        // SAFETY: `&mut self` proves no other reference exists and no I/O uses it; the
        // memory is initialised (zeroed at allocation) and `len` bytes long.
        let slice = unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len()) };
        rng.fill_bytes(slice);
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this very layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// The buffers of one phase.
#[derive(Debug)]
pub enum IoBuffers {
    /// One buffer per slot.
    Private {
        /// Slot buffers, `bs` bytes each.
        slots: Vec<AlignedBuf>,
        /// True when the phase writes (slots hold random data and get stamped).
        write: bool,
    },
    /// Shared write pool with rotating windows.
    SharedWrite {
        /// `bs + span` random bytes.
        pool: AlignedBuf,
        /// Number of window positions.
        windows: u64,
    },
    /// A few discard buffers shared by in-flight reads.
    SharedRead {
        /// Targets, `bs` bytes each.
        targets: Vec<AlignedBuf>,
    },
}

impl IoBuffers {
    /// Buffers for `depth` slots of `bs` bytes, aligned to `align`, for a writing or reading
    /// phase. Write data is random (seeded from `seed`), never zeros.
    pub fn new(bs: usize, depth: usize, align: usize, write: bool, seed: u64) -> IoBuffers {
        let mut rng = SmallRng::seed_from_u64(seed);
        let depth = depth.max(1);
        if (depth as u64).saturating_mul(bs as u64) <= PRIVATE_BUDGET {
            let slots = (0..depth)
                .map(|_| {
                    let mut b = AlignedBuf::new(bs, align);
                    if write {
                        b.fill_random(&mut rng);
                    }
                    b
                })
                .collect();
            IoBuffers::Private { slots, write }
        } else if write {
            let span = (bs as u64).min(MAX_SPAN) as usize / WINDOW_STEP * WINDOW_STEP;
            let mut pool = AlignedBuf::new(bs + span, align.max(WINDOW_STEP));
            pool.fill_random(&mut rng);
            IoBuffers::SharedWrite {
                pool,
                windows: (span / WINDOW_STEP) as u64 + 1,
            }
        } else {
            let count = (READ_BUDGET / bs.max(1) as u64).clamp(1, depth as u64) as usize;
            let targets = (0..count).map(|_| AlignedBuf::new(bs, align)).collect();
            IoBuffers::SharedRead { targets }
        }
    }

    /// Bytes of memory the buffers take.
    pub fn footprint(&self) -> usize {
        match self {
            IoBuffers::Private { slots, .. } => slots.iter().map(AlignedBuf::len).sum(),
            IoBuffers::SharedWrite { pool, .. } => pool.len(),
            IoBuffers::SharedRead { targets } => targets.iter().map(AlignedBuf::len).sum(),
        }
    }

    /// Where request number `seq` in slot `slot` reads from or writes to (`bs` bytes).
    ///
    /// For a private write slot this first stamps fresh random words into the slot's
    /// buffer, using `rng`: the caller must own the slot (no I/O in flight on it).
    pub fn prepare(&self, slot: usize, seq: u64, rng: &mut SmallRng) -> *mut u8 {
        match self {
            IoBuffers::Private { slots, write } => {
                let buf = &slots[slot % slots.len()];
                if *write {
                    stamp(buf, rng);
                }
                buf.as_ptr()
            }
            IoBuffers::SharedWrite { pool, windows } => {
                let window = (seq % windows) as usize;
                // SAFETY: window * WINDOW_STEP ≤ span, and the pool is bs + span long.
                unsafe { pool.as_ptr().add(window * WINDOW_STEP) }
            }
            IoBuffers::SharedRead { targets } => targets[slot % targets.len()].as_ptr(),
        }
    }
}

/// Writes one random u64 at the start of every 512-byte sector of `buf`.
fn stamp(buf: &AlignedBuf, rng: &mut SmallRng) {
    let base = buf.as_ptr();
    let mut at = 0;
    while at + 8 <= buf.len() {
        let word = rng.next_u64().to_ne_bytes();
        // SAFETY: `at + 8 ≤ len`; the caller owns this slot, so no I/O and no reference
        // touches the buffer while we write it.
        unsafe { std::ptr::copy_nonoverlapping(word.as_ptr(), base.add(at), 8) };
        at += STAMP_EVERY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(ptr: *mut u8, len: usize) -> Vec<u8> {
        // SAFETY: test only, no I/O in flight; ptr points into a live buffer of ≥ len bytes.
        unsafe { std::slice::from_raw_parts(ptr, len).to_vec() }
    }

    #[test]
    fn standard_test_phases_stay_within_the_memory_budget() {
        // prepare-file, seq-write, seq-read, rand-4k-write, rand-4k-read at iodepth 32.
        for (bs, write) in [
            (512 << 10, true),
            (4 << 20, true),
            (4 << 20, false),
            (4096, true),
            (4096, false),
        ] {
            let b = IoBuffers::new(bs, 32, 4096, write, 1);
            assert!(b.footprint() <= 9 << 20, "bs {bs}: {} bytes", b.footprint());
        }
    }

    #[test]
    fn buffers_are_aligned_and_write_data_is_not_zeros() {
        let mut rng = SmallRng::seed_from_u64(3);
        for (bs, depth) in [(4096, 32), (4 << 20, 32)] {
            let b = IoBuffers::new(bs, depth, 4096, true, 7);
            for seq in 0..40 {
                let p = b.prepare((seq % depth as u64) as usize, seq, &mut rng);
                assert_eq!(p as usize % 4096, 0);
                let data = bytes(p, bs);
                let zeros = data.iter().filter(|&&x| x == 0).count();
                assert!(zeros < bs / 100, "{zeros} zero bytes of {bs}");
            }
        }
    }

    #[test]
    fn consecutive_writes_carry_different_data() {
        let mut rng = SmallRng::seed_from_u64(3);
        for (bs, depth) in [(4096usize, 4usize), (4 << 20, 32)] {
            let b = IoBuffers::new(bs, depth, 4096, true, 9);
            let first = bytes(b.prepare(0, 0, &mut rng), bs);
            let second = bytes(b.prepare(1 % depth, 1, &mut rng), bs);
            let again = bytes(b.prepare(0, depth as u64, &mut rng), bs);
            assert_ne!(first, second);
            assert_ne!(first, again, "a slot's reuse carries new data");
        }
    }
}
