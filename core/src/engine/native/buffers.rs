//! I/O buffers for O_DIRECT: aligned, and as many as the drive can use.
//!
//! * **Writes** get one buffer per request in flight, refilled just before each submission
//!   (while no I/O uses it) from a 64 KiB random pool: every 4 KiB block is a pool segment
//!   with each word XORed with a key unique to that block (a fresh 64-bit random key per
//!   request, plus the block's index × an odd constant). So every block differs from every
//!   other in every word: no 4 KiB block written in a run repeats another and the data does
//!   not compress, and a deduplicating or compressing drive, controller or filesystem cannot
//!   finish the work faster than real data. The refill is one load, XOR and store per word
//!   (vectorised), cheaper than drawing every word from a generator. Distinct data in
//!   flight needs its own memory, so how many writes a phase keeps in flight is
//!   [`write_depth`]'s rule: on a slow drive (an SD card) the buffers stay within the lean
//!   [`WRITE_BUDGET`] (2 × 4 MiB, 16 × 512 KiB, 32 × 4 KiB: already more queued than a card
//!   holds), on a fast one the profile's full `iodepth` (fio's own `iodepth × bs`) unless
//!   that is more than a quarter of `MemAvailable`. A drive is fast when an earlier phase of
//!   the run, or the phase's own first [`probe_requests`] writes at the lean depth, moved
//!   [`FAST_BYTES_PER_S`] ([`shows_fast`]).
//! * **Reads** land in discard buffers shared by the in-flight reads (at most [`READ_BUDGET`]
//!   together on a drive not known to be fast, the same budget as the writes on a fast one,
//!   so a fast drive's reads get fio's `iodepth × bs` region and its pages lie like fio's):
//!   their contents are never looked at, and two reads racing into
//!   the same buffer are harmless for a benchmark (each I/O still moves its full length from
//!   the device).
//!
//! A phase's buffers are one region (see [`IoBuffers`]), in transparent huge pages where it
//! holds one, so that each block reaches the device as one request (up to its `max_sectors_kb`)
//! whatever the page allocator's state. They are touched only through raw
//! pointers handed to the kernel (io_uring or pread/pwrite), never through Rust references
//! while I/O may be in flight.

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

use crate::engine::DepthReason;

pub use crate::engine::layout::AlignedBuf;

/// The lean budget: largest total size of a phase's write buffers on a drive not known to be
/// fast, bytes (at least one buffer is always made).
pub const WRITE_BUDGET: u64 = 8 << 20;
/// Speed from which a drive counts as fast, bytes per second: it moves the lean
/// [`WRITE_BUDGET`] in under 50 ms (167.8 MB/s). No SD card in a Pi gets there (the UHS-I
/// bus tops out at 104 MB/s), so a card, or anything as slow (a throttled test device),
/// keeps the lean buffers, judged by what it did, not by what it says it is (a card in a USB
/// reader says USB); a USB or NVMe SSD that gets there has a command queue that two 4 MiB
/// writes leave mostly empty.
pub const FAST_BYTES_PER_S: f64 = WRITE_BUDGET as f64 / 0.05;
/// A writing phase that does not know the drive to be fast starts with the lean buffers and,
/// after its first segment of at least this many bytes, judges the drive by it: 16 MiB, two
/// lean budgets (on a card at 20 MB/s 0.8 s, on a fast SSD tens of ms).
pub const PROBE_BYTES: u64 = 2 * WRITE_BUDGET;

/// Requests in a phase's first segment for blocks of `bs` bytes with `lean` writes in
/// flight: at least [`PROBE_BYTES`] and at least twice the lean depth (so the segment
/// refills every buffer at least once), `max(⌈PROBE_BYTES / bs⌉, 2 × lean)`.
pub fn probe_requests(bs: u64, lean: usize) -> u64 {
    PROBE_BYTES.div_ceil(bs.max(1)).max(2 * lean.max(1) as u64)
}

/// Whether moving `bytes` in `elapsed` shows a drive fast enough for the full write depth:
/// at least [`FAST_BYTES_PER_S`].
pub fn shows_fast(bytes: u64, elapsed: std::time::Duration) -> bool {
    bytes as f64 >= FAST_BYTES_PER_S * elapsed.as_secs_f64()
}

/// On a fast drive the write buffers take at most `MemAvailable / MEM_SHARE` (a quarter):
/// on a 512 MiB Pi Zero 2 W (about 350-400 MiB available after boot) 87-100 MiB, which
/// leaves the rest of the system three quarters of what it had.
pub const MEM_SHARE: u64 = 4;
/// Largest total size of shared read targets, bytes (at least one target is always made).
pub const READ_BUDGET: u64 = 8 << 20;
/// Size of the random pool write buffers are made from, bytes (a power of two; it stays in
/// the CPU's cache).
pub const POOL_BYTES: usize = 64 << 10;
/// Step between the keys of consecutive blocks: 2^64 / φ, odd, so `key + b × STEP` never
/// repeats within a request.
const STEP: u64 = 0x9e37_79b9_7f4a_7c15;

/// Words in a 4 KiB block, the unit the key changes with.
const BLOCK_WORDS: usize = 4096 / 8;

/// Fills the `len` bytes at `ptr` block by block (4 KiB, the last one maybe shorter): block
/// `b` is the pool's segment `b mod (pool / 4 KiB)` with every word XORed with `key + b ×
/// STEP`. A tail shorter than a word gets bytes of one more such word. `pool.len()` is a
/// multiple of [`BLOCK_WORDS`].
///
/// # Safety
/// `ptr` is aligned for u64 and starts `len` initialised bytes that no I/O and no reference
/// uses meanwhile.
unsafe fn fill_keyed(ptr: *mut u8, len: usize, pool: &[u64], key: u64) {
    let words = len / 8;
    assert_eq!(ptr as usize % std::mem::align_of::<u64>(), 0);
    // SAFETY: `len ≥ words × 8` initialised bytes, aligned for u64 (asserted above), owned
    // exclusively by the caller's contract while this slice lives.
    let out = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u64>(), words) };
    let segments = pool.len() / BLOCK_WORDS;
    let mut blocks = 0usize;
    for (b, block) in out.chunks_mut(BLOCK_WORDS).enumerate() {
        let k = key.wrapping_add((b as u64).wrapping_mul(STEP));
        let segment = &pool[(b % segments) * BLOCK_WORDS..];
        for (word, p) in block.iter_mut().zip(segment) {
            *word = *p ^ k;
        }
        blocks = b + 1;
    }
    let tail = len - words * 8;
    if tail > 0 {
        let k = key.wrapping_add((blocks as u64).wrapping_mul(STEP));
        let word = (pool[words % pool.len()] ^ k).to_ne_bytes();
        // SAFETY: the last `tail` (< 8) bytes of the range, owned exclusively as above.
        unsafe { std::ptr::copy_nonoverlapping(word.as_ptr(), ptr.add(words * 8), tail) };
    }
}

/// How many write buffers (= writes in flight) a phase gets, and why fewer than asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteDepth {
    /// Write buffers of `bs` bytes, at least 1 and at most the depth asked.
    pub buffers: usize,
    /// The memory budget they fit in, bytes.
    pub budget: u64,
    /// What limited them below the depth asked, if anything did.
    pub limited_by: Option<DepthReason>,
}

/// The rule for a writing phase's buffers, for `wanted` requests in flight (`iodepth` ×
/// clones) of `bs` bytes:
///
/// * not `fast` (nothing in this run has moved [`FAST_BYTES_PER_S`] yet: the first phase
///   starts so, and judges the drive after its first segment, see [`probe_requests`]), or
///   `mem_available` unknown: the lean [`WRITE_BUDGET`], 8 MiB;
/// * `fast`: `max(WRITE_BUDGET, min(wanted × bs, mem_available / MEM_SHARE))`, i.e. fio's
///   own `iodepth × bs` unless a quarter of `MemAvailable` is less.
///
/// Buffers are `budget / bs`, clamped to `1..=wanted`. `limited_by` is `Memory` when a fast
/// drive's depth was cut by `MemAvailable`, `Lean` when the lean budget cut it.
pub fn write_depth(bs: u64, wanted: usize, fast: bool, mem_available: Option<u64>) -> WriteDepth {
    let bs = bs.max(1);
    let wanted = wanted.max(1);
    let asked_bytes = (wanted as u64).saturating_mul(bs);
    let (budget, cut) = match (fast, mem_available) {
        (true, Some(mem)) => {
            let share = mem / MEM_SHARE;
            (
                WRITE_BUDGET.max(asked_bytes.min(share)),
                DepthReason::Memory,
            )
        }
        _ => (WRITE_BUDGET, DepthReason::Lean),
    };
    let buffers = (budget / bs).clamp(1, wanted as u64) as usize;
    WriteDepth {
        buffers,
        budget,
        limited_by: (buffers < wanted).then_some(cut),
    }
}

/// `MemAvailable` from `/proc/meminfo`, bytes; `None` where it cannot be read.
pub fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&text)
}

/// The `MemAvailable:` line of a `/proc/meminfo` text (kB, i.e. KiB), in bytes.
fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The buffers of one phase: `count` buffers of `bs` bytes, back to back in one aligned
/// region (each starts at a multiple of `bs` from an `align`ed start, so each is aligned as
/// O_DIRECT needs when `bs` is a multiple of `align`).
///
/// The block layer makes one segment of each run of physically neighbouring pages and a
/// device takes `max_segments` of them per request, so how many requests a large block
/// becomes depends on how the region's pages lie. In 4 KiB pages that is the page
/// allocator's state at the moment: on this machine's virtio disk (254 segments) the same
/// 4 MiB read became 5 to 8 requests from run to run, for either engine. So the region is
/// made in transparent huge pages where the kernel has them and it holds one
/// ([`AlignedBuf::huge`]; the fio engine has glibc do the same for fio's buffers): every block
/// then reaches the device as the profile's request, up to the device's `max_sectors_kb`, in
/// every run.
#[derive(Debug)]
pub struct IoBuffers {
    region: AlignedBuf,
    bs: usize,
    count: usize,
    /// For writes, [`POOL_BYTES`] random bytes, only ever read after creation; `None` for
    /// reads.
    pool: Option<Vec<u64>>,
}

impl IoBuffers {
    /// Buffers for up to `depth` requests of `bs` bytes, aligned to `align`, for a writing or
    /// reading phase: `min(depth, WRITE_BUDGET / bs)` write buffers (at least one), or
    /// `min(depth, READ_BUDGET / bs)` read targets (at least one). Write buffers start out
    /// filled from a generator seeded with `seed` (never zeros) and are refilled by every
    /// [`IoBuffers::prepare`].
    pub fn new(bs: usize, depth: usize, align: usize, write: bool, seed: u64) -> IoBuffers {
        IoBuffers::with_write_budget(bs, depth, align, write, seed, WRITE_BUDGET)
    }

    /// [`IoBuffers::new`] with the buffers within `write_budget` bytes instead of the lean
    /// [`WRITE_BUDGET`] (see [`write_depth`]); read targets within the larger of
    /// `write_budget` and [`READ_BUDGET`].
    pub fn with_write_budget(
        bs: usize,
        depth: usize,
        align: usize,
        write: bool,
        seed: u64,
        write_budget: u64,
    ) -> IoBuffers {
        let bs = bs.max(1);
        let depth = depth.max(1) as u64;
        let budget = if write {
            write_budget
        } else {
            write_budget.max(READ_BUDGET)
        };
        let count = (budget / bs as u64).clamp(1, depth) as usize;
        let region = AlignedBuf::huge(bs * count, align);
        let pool = write.then(|| {
            let mut rng = SmallRng::seed_from_u64(seed);
            let pool: Vec<u64> = (0..POOL_BYTES / 8).map(|_| rng.next_u64()).collect();
            for slot in 0..count {
                // SAFETY: slot `slot` of the new region: bs bytes, nothing else uses them.
                unsafe { fill_keyed(region.as_ptr().add(slot * bs), bs, &pool, rng.next_u64()) };
            }
            pool
        });
        IoBuffers {
            region,
            bs,
            count,
            pool,
        }
    }

    /// Bytes of the buffers advised into transparent huge pages (see [`AlignedBuf::huge`]):
    /// the region rounded down to whole huge pages, 0 where the kernel has none.
    pub fn huge_bytes(&self) -> usize {
        self.region.huge_bytes()
    }

    /// Bytes of memory the buffers take.
    pub fn footprint(&self) -> usize {
        self.region.len() + self.pool.as_ref().map_or(0, |p| p.len() * 8)
    }

    /// How many requests may be in flight at once with these buffers: the number of write
    /// buffers, or `usize::MAX` for reads (which share their targets).
    pub fn max_in_flight(&self) -> usize {
        match self.pool {
            Some(_) => self.count,
            None => usize::MAX,
        }
    }

    /// Every buffer as `(start, length in bytes)`, in the order [`IoBuffers::index_of`]
    /// numbers them (for registering them with the kernel).
    pub fn regions(&self) -> Vec<(*mut u8, usize)> {
        (0..self.count).map(|i| (self.buffer(i), self.bs)).collect()
    }

    /// The start of buffer `index` (< count).
    fn buffer(&self, index: usize) -> *mut u8 {
        assert!(index < self.count, "buffer {index} of {}", self.count);
        // SAFETY: index < count, so the offset stays inside the region of count × bs bytes.
        unsafe { self.region.as_ptr().add(index * self.bs) }
    }

    /// Which of [`IoBuffers::regions`] the request in `slot` uses (what
    /// [`IoBuffers::prepare`] returns the start of).
    pub fn index_of(&self, slot: usize) -> usize {
        match self.pool {
            Some(_) => slot,
            None => slot % self.count,
        }
    }

    /// Where the request in slot `slot` reads from or writes to (`bs` bytes). For a write
    /// this first refills the slot's buffer from the pool with keys from a fresh word of
    /// `rng`: the caller must own the slot (no I/O in flight on it), and
    /// `slot < max_in_flight()`.
    ///
    /// # Panics
    /// For a write, when `slot ≥ max_in_flight()` (two requests would share a buffer).
    pub fn prepare(&self, slot: usize, rng: &mut SmallRng) -> *mut u8 {
        let ptr = self.buffer(self.index_of(slot));
        if let Some(pool) = &self.pool {
            // SAFETY: the slot's own buffer, bs bytes; the caller owns the slot (no I/O in
            // flight on it, no reference to it).
            unsafe { fill_keyed(ptr, self.bs, pool, rng.next_u64()) };
        }
        ptr
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

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
            let limit = (8 << 20) + POOL_BYTES;
            assert!(b.footprint() <= limit, "bs {bs}: {} bytes", b.footprint());
        }
    }

    #[test]
    fn writes_in_flight_are_limited_by_the_budget_not_below_one() {
        assert_eq!(IoBuffers::new(4096, 32, 4096, true, 1).max_in_flight(), 32);
        assert_eq!(
            IoBuffers::new(512 << 10, 32, 4096, true, 1).max_in_flight(),
            16
        );
        assert_eq!(
            IoBuffers::new(4 << 20, 32, 4096, true, 1).max_in_flight(),
            2
        );
        assert_eq!(
            IoBuffers::new(64 << 20, 32, 4096, true, 1).max_in_flight(),
            1
        );
        assert_eq!(IoBuffers::new(4096, 1, 4096, true, 1).max_in_flight(), 1);
        assert_eq!(
            IoBuffers::new(4 << 20, 32, 4096, false, 1).max_in_flight(),
            usize::MAX
        );
    }

    #[test]
    fn buffers_are_aligned_and_write_data_is_not_zeros() {
        let mut rng = SmallRng::seed_from_u64(3);
        for bs in [4096, 4 << 20] {
            let b = IoBuffers::new(bs, 32, 4096, true, 7);
            for seq in 0..8 {
                let p = b.prepare(seq % b.max_in_flight(), &mut rng);
                assert_eq!(p as usize % 4096, 0);
                let data = bytes(p, bs);
                let zeros = data.iter().filter(|&&x| x == 0).count();
                assert!(zeros < bs / 100, "{zeros} zero bytes of {bs}");
            }
        }
    }

    #[test]
    fn every_4k_block_prepared_is_new() {
        let mut rng = SmallRng::seed_from_u64(3);
        for (bs, depth) in [(4096usize, 4usize), (512 << 10, 32), (4 << 20, 32)] {
            let b = IoBuffers::new(bs, depth, 4096, true, 9);
            let mut seen = HashSet::new();
            for seq in 0..40 {
                let data = bytes(b.prepare(seq % b.max_in_flight(), &mut rng), bs);
                for block in data.chunks(4096) {
                    assert!(seen.insert(block.to_vec()), "bs {bs}: a block repeats");
                }
            }
        }
    }

    #[test]
    fn blocks_made_from_the_same_pool_segment_differ_in_every_word() {
        let mut rng = SmallRng::seed_from_u64(5);
        // 64 KiB buffers: blocks 0..16 use every pool segment once; two requests reuse them.
        let b = IoBuffers::new(64 << 10, 2, 4096, true, 11);
        let first = bytes(b.prepare(0, &mut rng), 64 << 10);
        let second = bytes(b.prepare(1, &mut rng), 64 << 10);
        for (x, y) in first.chunks(4096).zip(second.chunks(4096)) {
            for (u, v) in x.chunks(8).zip(y.chunks(8)) {
                assert_ne!(u, v, "a word repeats");
            }
        }
    }

    #[test]
    fn a_tail_shorter_than_a_word_is_filled() {
        let pool: Vec<u64> = (1..=POOL_BYTES as u64 / 8).collect();
        let buf = AlignedBuf::new(4096 + 4, 4096);
        // SAFETY: test only: the buffer is 4100 bytes, aligned, and used by nothing else.
        unsafe { fill_keyed(buf.as_ptr(), buf.len(), &pool, 7) };
        let data = bytes(buf.as_ptr(), 4100);
        assert_ne!(&data[4096..], &[0, 0, 0, 0]);
    }

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_drive_not_known_to_be_fast_keeps_the_lean_budget() {
        // The standard test on an SD card: prepare-file, seq-write, rand-4k-write.
        let d = write_depth(512 << 10, 32, false, Some(8 << 30));
        assert_eq!((d.buffers, d.budget), (16, 8 * MIB));
        assert_eq!(d.limited_by, Some(DepthReason::Lean));
        let d = write_depth(4 * MIB, 32, false, Some(8 << 30));
        assert_eq!((d.buffers, d.limited_by), (2, Some(DepthReason::Lean)));
        let d = write_depth(4096, 32, false, Some(8 << 30));
        assert_eq!((d.buffers, d.limited_by), (32, None));
        // Fast, but MemAvailable cannot be read: lean too.
        let d = write_depth(4 * MIB, 32, true, None);
        assert_eq!((d.buffers, d.limited_by), (2, Some(DepthReason::Lean)));
        // A 64 MiB block still gets one buffer.
        assert_eq!(write_depth(64 * MIB, 32, false, None).buffers, 1);
    }

    #[test]
    fn a_fast_drive_gets_fio_s_depth_within_a_quarter_of_mem_available() {
        // This VM (23 GiB available): 32 × 4 MiB = 128 MiB, fio's own buffers.
        let d = write_depth(4 * MIB, 32, true, Some(23 << 30));
        assert_eq!((d.buffers, d.budget, d.limited_by), (32, 128 * MIB, None));
        // A Pi Zero 2 W after boot: 350 MiB available → 87.5 MiB → 21 × 4 MiB.
        let d = write_depth(4 * MIB, 32, true, Some(350 * MIB));
        assert_eq!((d.buffers, d.budget), (21, 350 * MIB / 4));
        assert_eq!(d.limited_by, Some(DepthReason::Memory));
        // 400 MiB available → 100 MiB → 25 × 4 MiB.
        assert_eq!(write_depth(4 * MIB, 32, true, Some(400 * MIB)).buffers, 25);
        // A 4 GiB Pi (3.5 GiB available): 896 MiB share, all 32.
        let d = write_depth(4 * MIB, 32, true, Some(3584 * MIB));
        assert_eq!((d.buffers, d.limited_by), (32, None));
        // prepare-file: 32 × 512 KiB = 16 MiB.
        let d = write_depth(512 << 10, 32, true, Some(350 * MIB));
        assert_eq!((d.buffers, d.budget, d.limited_by), (32, 16 * MIB, None));
        // Almost no memory: never below the lean budget.
        let d = write_depth(4 * MIB, 32, true, Some(20 * MIB));
        assert_eq!((d.buffers, d.budget), (2, 8 * MIB));
        assert_eq!(d.limited_by, Some(DepthReason::Memory));
        // Queue depth 1 stays 1.
        assert_eq!(write_depth(MIB, 1, true, Some(350 * MIB)).buffers, 1);
    }

    #[test]
    fn the_fast_threshold_is_the_lean_budget_in_50_ms() {
        assert_eq!(FAST_BYTES_PER_S, 167_772_160.0);
    }

    #[test]
    fn the_first_segment_is_16_mib_and_refills_every_lean_buffer() {
        assert_eq!(probe_requests(512 << 10, 16), 32);
        assert_eq!(probe_requests(4 << 20, 2), 4);
        assert_eq!(probe_requests(1 << 20, 8), 16);
        assert_eq!(probe_requests(64 << 20, 1), 2);
        assert_eq!(probe_requests(4096, 32), 4096);
    }

    #[test]
    fn fast_is_16_mib_in_100_ms() {
        use std::time::Duration;
        assert!(shows_fast(16 << 20, Duration::from_millis(100)));
        assert!(!shows_fast(16 << 20, Duration::from_millis(101)));
        assert!(!shows_fast(16 << 20, Duration::from_millis(800)));
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:        3884120 kB\nMemFree:  100 kB\nMemAvailable:     358400 kB\n";
        assert_eq!(parse_mem_available(text), Some(350 * MIB));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
        assert!(mem_available().is_some_and(|m| m > 0));
    }

    #[test]
    fn a_budget_of_fio_s_depth_makes_a_buffer_per_request() {
        let d = write_depth(4 * MIB, 32, true, Some(23 << 30));
        let b = IoBuffers::with_write_budget(4 << 20, 32, 4096, true, 1, d.budget);
        assert_eq!(b.max_in_flight(), 32);
        assert_eq!(b.footprint() as u64, 128 * MIB + POOL_BYTES as u64);
    }

    #[test]
    fn a_fast_drive_s_reads_get_fio_s_region_and_a_card_s_stay_lean() {
        let fast = write_depth(4 * MIB, 32, true, Some(23 << 30));
        let b = IoBuffers::with_write_budget(4 << 20, 32, 4096, false, 1, fast.budget);
        assert_eq!(b.footprint() as u64, 128 * MIB);
        let lean = write_depth(4 * MIB, 32, false, Some(23 << 30));
        let b = IoBuffers::with_write_budget(4 << 20, 32, 4096, false, 1, lean.budget);
        assert_eq!(b.footprint() as u64, READ_BUDGET);
    }

    /// The `VmFlags` of the mapping of `/proc/self/smaps` that holds `addr`.
    fn vm_flags(addr: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ').filter(|(r, _)| r.contains('-')) {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        inside = (lo..hi).contains(&addr);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return flags.trim().to_owned();
                }
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    #[test]
    fn large_buffers_are_in_huge_pages_and_small_ones_in_plain_ones() {
        use crate::engine::hugepages::huge_page_size;
        let fast = write_depth(4 * MIB, 32, true, Some(23 << 30));
        for write in [true, false] {
            let b = IoBuffers::with_write_budget(4 << 20, 32, 4096, write, 1, fast.budget);
            let expected = huge_page_size().map_or(0, |_| 128 << 20);
            assert_eq!(b.huge_bytes(), expected, "write {write}");
            if let Some(huge) = huge_page_size() {
                let start = b.regions()[0].0 as usize;
                assert_eq!(start % huge, 0);
                // The kernel took the advice for the whole region: one mapping, flag `hg`.
                for (ptr, _) in b.regions() {
                    let flags = vm_flags(ptr as usize);
                    assert!(flags.split(' ').any(|f| f == "hg"), "{flags}");
                }
            }
        }
        // prepare-file at the full depth: 32 × 512 KiB = 16 MiB.
        let prep = write_depth(512 << 10, 32, true, Some(23 << 30));
        let b = IoBuffers::with_write_budget(512 << 10, 32, 4096, true, 1, prep.budget);
        assert_eq!(b.huge_bytes(), huge_page_size().map_or(0, |_| 16 << 20));
        // A card: the lean 8 MiB in huge pages too, and the memory taken is unchanged.
        for (bs, write) in [(4 << 20, true), (512 << 10, true), (4 << 20, false)] {
            let b = IoBuffers::new(bs, 32, 4096, write, 1);
            assert_eq!(b.huge_bytes(), huge_page_size().map_or(0, |_| 8 << 20));
            let pool = if write { POOL_BYTES } else { 0 };
            assert_eq!(b.footprint(), (8 << 20) + pool);
        }
        // 32 × 4 KiB (the random phases): less than a huge page, plain pages.
        assert_eq!(IoBuffers::new(4096, 32, 4096, true, 1).huge_bytes(), 0);
    }

    #[test]
    #[should_panic]
    fn a_write_slot_beyond_the_buffers_is_refused() {
        let b = IoBuffers::new(4 << 20, 32, 4096, true, 1);
        let _ = b.prepare(2, &mut SmallRng::seed_from_u64(1));
    }
}
