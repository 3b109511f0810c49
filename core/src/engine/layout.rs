//! The test file's layout, shared by both engines: its size before the first phase
//! ([`pre_size`]), the data that keeps reads off holes ([`unwritten_reads`], [`lay_out`]), and
//! the buffer alignment O_DIRECT needs ([`alignment`], [`AlignedBuf`]).
//!
//! A read of a hole is answered from the page tables without touching the device and
//! measures nothing, so every byte a reading phase reaches holds data written before it: the
//! native engine writes what is missing just before a reading phase, the fio engine (which
//! cannot be told to) writes it before fio starts.

use std::alloc::Layout;
use std::os::unix::fs::FileExt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

use super::hugepages::{self, huge_page_size};
use super::testfile::TestFile;
use super::EngineError;
use crate::profile::{Job, Profile};

/// Buffer alignment for O_DIRECT, bytes (at least; the filesystem's block size if larger).
pub const MIN_ALIGN: usize = 4096;
/// Largest alignment taken from a filesystem's block size, bytes.
const MAX_ALIGN: u64 = 64 << 10;
/// Chunk size when writing the missing part of the file before reading, bytes.
const FILL_CHUNK: usize = 1 << 20;

/// Gives a fresh test file the profile's size when the profile's first job writes the whole
/// of it (the standard test's `prepare-file`), as the fio engine needs so that fio does not
/// lay the file out itself; both engines then write the same kind of file. Returns whether
/// it did.
///
/// Errors: [`EngineError::NoSpace`] or [`EngineError::Io`] (phase `setup`, op `truncate`).
pub fn pre_size(profile: &Profile, file: &TestFile) -> Result<bool, EngineError> {
    let size = profile.file_size_bytes();
    let writes_all = profile
        .jobs
        .first()
        .is_some_and(|j| j.rw.is_write() && j.size_bytes == size);
    if writes_all {
        file.open(false)?
            .set_len(size)
            .map_err(|e| EngineError::from_io("setup", "truncate", e))?;
    }
    Ok(writes_all)
}

/// The part of a pre-sized test file (see [`pre_size`]) that a reading job may reach before
/// any job has surely written it, as `(from, to)` byte offsets, or `None` when every block a
/// read touches is written by an earlier job that cannot stop early.
///
/// A writing job with a `runtime` may end before covering its `size` (a slow card), so it
/// counts as writing nothing; one without covers `[0, size)` rounded down to its block size
/// (sequential and random-without-repeats plans both cover every block). The fio engine fills
/// this range before fio starts, because fio, unlike the native engine, cannot be told to
/// write what a read is about to reach: without it a read of a hole is answered from the
/// page tables without touching the device, and measures nothing.
pub fn unwritten_reads(profile: &Profile) -> Option<(u64, u64)> {
    let mut covered = 0u64;
    let mut range: Option<(u64, u64)> = None;
    for job in &profile.jobs {
        let planned = job
            .size_bytes
            .checked_div(job.bs)
            .map_or(0, |blocks| blocks * job.bs);
        if job.rw.is_write() {
            if job.runtime.is_none_or(|r| r.is_zero()) {
                covered = covered.max(planned);
            }
        } else if covered < planned {
            range = Some(match range {
                Some((from, to)) => (from.min(covered), to.max(planned)),
                None => (covered, planned),
            });
            // Filled before the run: later reads below `planned` find data.
            covered = planned;
        }
    }
    range
}

/// Buffer alignment for `file`, bytes: [`MIN_ALIGN`] (4096), or its filesystem's block size
/// when that is a larger power of two (up to 64 KiB). Never fails: an unreadable block size
/// gives 4096.
pub fn alignment(file: &std::fs::File) -> usize {
    use std::os::unix::fs::MetadataExt;
    let blksize = file.metadata().map(|m| m.blksize()).unwrap_or(0);
    if blksize.is_power_of_two() && blksize as usize > MIN_ALIGN && blksize <= MAX_ALIGN {
        blksize as usize
    } else {
        MIN_ALIGN
    }
}

/// Writes fresh pseudo-random data into `file` from `from` (rounded down to the file's
/// [`alignment`]) up to `needed` bytes (offsets, `u64`), then fsyncs, so that reads below
/// `needed` never hit holes. Not measured. `job` names the phase in errors; `cancel`, when
/// given, is checked before every 1 MiB chunk. Nothing to do when `from ≥ needed`.
///
/// Errors: [`EngineError::Cancelled`] when `cancel` is set; [`EngineError::NoSpace`],
/// [`EngineError::Io`] (op `write` or `fsync`) and the other kinds
/// [`EngineError::from_io`] gives.
pub fn lay_out(
    file: &std::fs::File,
    from: u64,
    needed: u64,
    job: &Job,
    cancel: Option<&AtomicBool>,
) -> Result<(), EngineError> {
    if from >= needed {
        return Ok(());
    }
    let align = alignment(file);
    let mut buf = AlignedBuf::new(FILL_CHUNK, align);
    let mut rng = SmallRng::seed_from_u64(rand::random());
    let mut offset = from / align as u64 * align as u64;
    while offset < needed {
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Err(EngineError::Cancelled);
        }
        // Fresh data for every chunk, like the write phases (no block repeats); the kernel has
        // copied or written the chunk when the call returns.
        buf.fill_random(&mut rng);
        // SAFETY: `buf` is initialised and FILL_CHUNK long; no I/O is in flight on it, and
        // this shared view ends before the next refill.
        let data = unsafe { std::slice::from_raw_parts(buf.as_ptr(), buf.len()) };
        let len = (needed - offset).min(FILL_CHUNK as u64) as usize;
        file.write_all_at(&data[..len], offset)
            .map_err(|e| EngineError::from_io(&job.name, "write", e))?;
        offset += len as u64;
    }
    file.sync_all()
        .map_err(|e| EngineError::from_io(&job.name, "fsync", e))
}

/// A zero-initialised heap buffer aligned for O_DIRECT, its pages given memory when it is
/// made, in address order (not later by whichever kernel worker first pins them for a read).
#[derive(Debug)]
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
    /// Bytes from the start advised into huge pages (see [`AlignedBuf::huge`]).
    huge_bytes: usize,
}

// SAFETY: the buffer is plain memory owned by this value; it is only read or written through
// raw pointers by the kernel or by the one thread that owns a slot (see the module docs).
unsafe impl Send for AlignedBuf {}
// SAFETY: as above; shared access never creates Rust references into the memory.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// `len` bytes (at least 1) aligned to `align` (a power of two), in plain pages. Aborts
    /// on out of memory like any Rust allocation.
    pub fn new(len: usize, align: usize) -> AlignedBuf {
        AlignedBuf::with_pages(len, align, None)
    }

    /// [`AlignedBuf::new`], but in transparent huge pages where the kernel has them and `len`
    /// holds at least one: the start aligned to [`huge_page_size`] and its whole huge pages
    /// advised before they are touched (see [`hugepages::advise`]); elsewhere, or for a
    /// shorter `len`, plain pages. The memory taken is the same `len`.
    pub fn huge(len: usize, align: usize) -> AlignedBuf {
        let huge = huge_page_size().filter(|&h| h > align && len >= h);
        AlignedBuf::with_pages(len, align, huge)
    }

    fn with_pages(len: usize, align: usize, huge: Option<usize>) -> AlignedBuf {
        let align = huge.map_or(align, |h| h.max(align));
        let layout = Layout::from_size_align(len.max(1), align).expect("valid buffer layout");
        // SAFETY: the layout has a non-zero size. Not zeroed here: the advice must come
        // before the first touch, and the whole buffer is zeroed just below.
        let raw = unsafe { std::alloc::alloc(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        // SAFETY: the allocation just made, aligned to `h` (the layout's alignment), owned
        // here; large allocations are anonymous mappings of their own.
        let huge_bytes = huge.map_or(0, |h| unsafe { hugepages::advise(raw, layout.size(), h) });
        // Zeroing touches every page in address order, so each is given memory now.
        // SAFETY: `layout.size()` bytes at `raw`, allocated above, used by nothing else yet.
        unsafe { std::ptr::write_bytes(raw, 0, layout.size()) };
        AlignedBuf {
            ptr,
            layout,
            huge_bytes,
        }
    }

    /// Bytes from the start that were advised into huge pages (0 for plain pages); the
    /// kernel gives huge pages where it has free ones, plain pages for the rest.
    pub fn huge_bytes(&self) -> usize {
        self.huge_bytes
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

    /// Fills the whole buffer with fresh pseudo-random bytes from `rng`. Needs exclusive
    /// access (no I/O in flight).
    pub fn fill_random(&mut self, rng: &mut SmallRng) {
        fill_fresh(self, rng);
    }
}

/// Writes fresh pseudo-random words over all of `buf` (a whole number of 8-byte words:
/// buffers are multiples of 512 bytes; a tail shorter than a word gets bytes).
///
/// The caller guarantees that no I/O and no reference uses the buffer meanwhile.
fn fill_fresh(buf: &AlignedBuf, rng: &mut SmallRng) {
    let words = buf.len() / 8;
    let base = buf.as_ptr();
    for i in 0..words {
        // SAFETY: `i * 8 + 8 ≤ len`; `write_unaligned` needs no alignment (the buffer is
        // aligned anyway); the caller owns the buffer exclusively.
        unsafe {
            base.add(i * 8)
                .cast::<u64>()
                .write_unaligned(rng.next_u64())
        };
    }
    let tail = buf.len() - words * 8;
    if tail > 0 {
        let word = rng.next_u64().to_ne_bytes();
        // SAFETY: the last `tail` (< 8) bytes of the buffer, owned exclusively as above.
        unsafe { std::ptr::copy_nonoverlapping(word.as_ptr(), base.add(words * 8), tail) };
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this very layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_buffers_are_aligned_and_filled() {
        let mut rng = SmallRng::seed_from_u64(1);
        for (len, align) in [(4096, 4096), (4096 + 4, 4096), (1 << 20, 65536)] {
            let mut buf = AlignedBuf::new(len, align);
            assert_eq!(buf.as_ptr() as usize % align, 0);
            buf.fill_random(&mut rng);
            // SAFETY: test only, no I/O in flight; the buffer is `len` initialised bytes.
            let data = unsafe { std::slice::from_raw_parts(buf.as_ptr(), buf.len()) };
            let zeros = data.iter().filter(|&&b| b == 0).count();
            assert!(zeros < len / 50, "{zeros} zero bytes of {len}");
            assert_ne!(&data[len - 4..], &[0, 0, 0, 0]);
        }
    }
}
