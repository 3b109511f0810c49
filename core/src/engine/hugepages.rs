//! Transparent huge pages for large I/O buffers: the kernel's huge page size, and the advice
//! that a buffer's memory be given in huge pages.
//!
//! The block layer makes one segment of each run of physically neighbouring pages, and a
//! device takes at most `max_segments` segments per request. A buffer of 4 KiB pages that the
//! page allocator handed out scattered therefore reaches the device as several requests per
//! block (on a virtio disk with 254 segments, 5 to 8 requests per 4 MiB read), how many
//! depending on the state of the allocator's free lists at that moment, not on the drive. A
//! buffer in huge pages is a few segments per block, so each block reaches the device as the
//! profile's request (up to the device's `max_sectors_kb`), the same in every run.

use std::sync::OnceLock;

/// Where the kernel says how large a transparent huge page is, bytes.
const HPAGE_SIZE_FILE: &str = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size";

/// The kernel's transparent huge page size, bytes (`hpage_pmd_size`: 2 MiB on x86-64 and on
/// arm64 with 4 KiB pages, 32 MiB on a 16 KiB-page arm64 kernel such as the Pi 5's), or `None`
/// where the kernel has none (32-bit ARM, a kernel built without them): then buffers are
/// plain pages. Read once per process.
pub fn huge_page_size() -> Option<usize> {
    static SIZE: OnceLock<Option<usize>> = OnceLock::new();
    *SIZE.get_or_init(|| {
        let text = std::fs::read_to_string(HPAGE_SIZE_FILE).ok()?;
        parse_size(&text)
    })
}

/// A power of two above 4096 from `hpage_pmd_size`'s text.
fn parse_size(text: &str) -> Option<usize> {
    let size: usize = text.trim().parse().ok()?;
    (size.is_power_of_two() && size > 4096).then_some(size)
}

/// Asks the kernel to give the whole huge pages of the `len` bytes at `ptr` in huge pages
/// (`madvise(MADV_HUGEPAGE)`, which works where the system's THP mode is `always` or
/// `madvise`), before any of them is touched. Returns the bytes advised: `len` rounded down to
/// `huge`, or 0 when the kernel refused.
///
/// # Safety
/// `ptr` is aligned to `huge` (a power of two) and starts `len` bytes of one anonymous
/// mapping that this caller owns.
pub unsafe fn advise(ptr: *mut u8, len: usize, huge: usize) -> usize {
    let advised = len / huge * huge;
    if advised == 0 {
        return 0;
    }
    // SAFETY: the caller's range, page aligned (aligned to `huge`); the advice changes how
    // the pages are backed, never their contents.
    let rc = unsafe { libc::madvise(ptr.cast(), advised, libc::MADV_HUGEPAGE) };
    if rc == 0 {
        advised
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_is_a_power_of_two_above_a_page() {
        assert_eq!(parse_size("2097152\n"), Some(2 << 20));
        assert_eq!(parse_size("33554432"), Some(32 << 20));
        assert_eq!(parse_size("4096"), None);
        assert_eq!(parse_size("3000000"), None);
        assert_eq!(parse_size("x"), None);
    }

    #[test]
    fn this_kernel_says_its_size_when_it_has_them() {
        let has = std::path::Path::new(HPAGE_SIZE_FILE).exists();
        assert_eq!(huge_page_size().is_some(), has);
    }
}
