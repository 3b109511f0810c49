//! Where a file's blocks are on its filesystem's device: the `FS_IOC_FIEMAP` ioctl
//! (Documentation/filesystems/fiemap.rst), asked with `FIEMAP_FLAG_SYNC`, a batch of extents
//! at a time. Physical offsets are relative to the device the filesystem is on (a partition).

use std::io;
use std::os::fd::AsRawFd;

/// `_IOWR('f', 11, struct fiemap)`.
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
const FIEMAP_FLAG_SYNC: u32 = 0x0000_0001;
const FIEMAP_EXTENT_LAST: u32 = 0x0000_0001;
/// Flags of an extent whose physical place is not a plain, known range of the device: unknown,
/// delayed allocation, encoded, encrypted, not aligned, inline, tail-packed, shared.
const NOT_PLAIN: u32 = 0x0000_0002
    | 0x0000_0004
    | 0x0000_0008
    | 0x0000_0080
    | 0x0000_0100
    | 0x0000_0200
    | 0x0000_0400
    | 0x0000_2000;
/// Extents asked for at a time.
const BATCH: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Extent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

#[repr(C)]
struct Request {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
    extents: [Extent; BATCH],
}

/// One extent of a file: `length` bytes at `logical` in the file are at `physical` on the
/// filesystem's device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileExtent {
    /// Offset in the file, bytes.
    pub logical: u64,
    /// Offset on the filesystem's device, bytes.
    pub physical: u64,
    /// Length, bytes.
    pub length: u64,
}

/// The extents of `file` with a plain physical place, in file order (extents the filesystem
/// marks unknown, delayed, encoded, inline or shared are left out).
///
/// Errors: the ioctl's (`EOPNOTSUPP`/`ENOTTY` where the filesystem has no FIEMAP).
pub fn extents(file: &std::fs::File) -> io::Result<Vec<FileExtent>> {
    let mut out = Vec::new();
    let mut start = 0u64;
    loop {
        let mut req = Box::new(Request {
            start,
            length: u64::MAX - start,
            flags: FIEMAP_FLAG_SYNC,
            mapped_extents: 0,
            extent_count: BATCH as u32,
            reserved: 0,
            extents: [Extent::default(); BATCH],
        });
        // SAFETY: `req` is a valid, writable `struct fiemap` with room for `extent_count`
        // extents, as the ioctl expects; it lives across the call.
        let rc = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP as _, &mut *req) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = (req.mapped_extents as usize).min(BATCH);
        if n == 0 {
            return Ok(out);
        }
        let mut last = false;
        for e in &req.extents[..n] {
            if e.flags & NOT_PLAIN == 0 && e.length > 0 {
                out.push(FileExtent {
                    logical: e.logical,
                    physical: e.physical,
                    length: e.length,
                });
            }
            last |= e.flags & FIEMAP_EXTENT_LAST != 0;
            start = e.logical.saturating_add(e.length);
        }
        if last {
            return Ok(out);
        }
    }
}
