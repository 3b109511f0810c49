//! The FUSE file system of a fake drive: a root folder holding one file of the claimed size,
//! whose reads and writes go to the backing file block by block as the [`Behaviour`] says.

use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fuser::{
    FileAttr, FileType, Filesystem, KernelConfig, MountOption, ReplyAttr, ReplyData,
    ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyWrite, Request, TimeOrNow,
    FUSE_ROOT_ID,
};

use super::{Behaviour, Counters, FAKE_BLOCK, FUSE_FILE_NAME};

/// The inode of the drive's file.
const FILE_INO: u64 = 2;

/// How long the kernel may keep attributes and names: they never change.
const TTL: Duration = Duration::from_secs(3600);

/// The file system: the backing file, the claimed size and the mapping.
pub(super) struct FakeFs {
    backing: File,
    claimed_bytes: u64,
    behaviour: Behaviour,
    counters: Arc<Counters>,
    uid: u32,
    gid: u32,
    made: SystemTime,
    /// Writes that fail with EIO: [`super::EioBand`], and how often each block of it was
    /// written.
    band: Option<(super::EioBand, std::collections::HashMap<u64, u32>)>,
    /// The write cache, when the drive has one.
    cache: Option<Arc<super::write_cache::CacheState>>,
}

impl FakeFs {
    pub(super) fn new(
        backing: File,
        claimed_bytes: u64,
        behaviour: Behaviour,
        counters: Arc<Counters>,
    ) -> FakeFs {
        FakeFs {
            backing,
            claimed_bytes,
            behaviour,
            counters,
            uid: nix::unistd::getuid().as_raw(),
            gid: nix::unistd::getgid().as_raw(),
            made: SystemTime::now(),
            band: None,
            cache: None,
        }
    }

    /// Holds writes past the cache as it says.
    pub(super) fn with_cache(
        mut self,
        cache: Option<Arc<super::write_cache::CacheState>>,
    ) -> FakeFs {
        self.cache = cache;
        self
    }

    /// Makes writes in `band` fail as it says.
    pub(super) fn with_band(mut self, band: Option<super::EioBand>) -> FakeFs {
        self.band = band.map(|b| (b, std::collections::HashMap::new()));
        self
    }

    /// True when the write of the block at claimed offset `at` fails: in the band, once the
    /// block took the writes the band lets through (counted here).
    fn refuses(&mut self, at: u64) -> bool {
        let Some((band, seen)) = &mut self.band else {
            return false;
        };
        if !band.range.contains(&at) {
            return false;
        }
        let n = seen.entry(at / FAKE_BLOCK).or_insert(0);
        if *n >= band.writes_before {
            return true;
        }
        *n += 1;
        false
    }

    fn attr(&self, ino: u64) -> Option<FileAttr> {
        let (kind, perm, size, nlink) = match ino {
            FUSE_ROOT_ID => (FileType::Directory, 0o755, 0, 2),
            FILE_INO => (FileType::RegularFile, 0o600, self.claimed_bytes, 1),
            _ => return None,
        };
        Some(FileAttr {
            ino,
            size,
            blocks: size.div_ceil(512),
            atime: self.made,
            mtime: self.made,
            ctime: self.made,
            crtime: self.made,
            kind,
            perm,
            nlink,
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            blksize: FAKE_BLOCK as u32,
            flags: 0,
        })
    }

    /// The pieces of `len` bytes from claimed offset `offset`, split at block boundaries:
    /// (claimed offset, length) each.
    fn pieces(offset: u64, len: u64) -> impl Iterator<Item = (u64, u64)> {
        let end = offset + len;
        let mut at = offset;
        std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let next = ((at / FAKE_BLOCK + 1) * FAKE_BLOCK).min(end);
            let piece = (at, next - at);
            at = next;
            Some(piece)
        })
    }

    fn read_blocks(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let mut done = 0usize;
        for (at, len) in FakeFs::pieces(offset, buf.len() as u64) {
            let piece = &mut buf[done..done + len as usize];
            self.backing
                .read_exact_at(piece, self.behaviour.physical_offset(at))?;
            done += len as usize;
        }
        Ok(())
    }

    /// Writes `data` at claimed offset `offset`; returns the bytes dropped.
    fn write_blocks(&self, offset: u64, data: &[u8]) -> std::io::Result<u64> {
        let mut done = 0usize;
        let mut dropped = 0;
        for (at, len) in FakeFs::pieces(offset, data.len() as u64) {
            let piece = &data[done..done + len as usize];
            if self.behaviour.loses_block(at / FAKE_BLOCK) {
                dropped += len;
            } else {
                self.backing
                    .write_all_at(piece, self.behaviour.physical_offset(at))?;
            }
            done += len as usize;
        }
        Ok(dropped)
    }

    /// Discard and write-zeroes (from the loop device): writes zeros over `length` bytes
    /// from claimed offset `offset`, mapped as writes are (lost blocks keep what they held).
    fn zero_blocks(&self, offset: u64, length: u64) -> std::io::Result<()> {
        const CHUNK: u64 = 1 << 20;
        let zeros = vec![0; CHUNK as usize];
        let mut at = offset;
        while at < offset + length {
            let len = (offset + length - at).min(CHUNK);
            self.write_blocks(at, &zeros[..len as usize])?;
            at += len;
        }
        self.counters
            .zeroed_bytes
            .fetch_add(length, Ordering::SeqCst);
        Ok(())
    }
}

fn errno(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

impl Filesystem for FakeFs {
    fn init(&mut self, _req: &Request<'_>, _config: &mut KernelConfig) -> Result<(), i32> {
        Ok(())
    }

    fn lookup(&mut self, _req: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEntry) {
        match self.attr(FILE_INO) {
            Some(attr) if parent == FUSE_ROOT_ID && name == FUSE_FILE_NAME => {
                reply.entry(&TTL, &attr, 0)
            }
            _ => reply.error(libc::ENOENT),
        }
    }

    fn getattr(&mut self, _req: &Request<'_>, ino: u64, _fh: Option<u64>, reply: ReplyAttr) {
        match self.attr(ino) {
            Some(attr) => reply.attr(&TTL, &attr),
            None => reply.error(libc::ENOENT),
        }
    }

    fn setattr(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<u64>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<u32>,
        reply: ReplyAttr,
    ) {
        // The size is fixed, as a drive's is; other changes are accepted and forgotten.
        match self.attr(ino) {
            Some(attr) if size.is_none_or(|s| s == attr.size) => reply.attr(&TTL, &attr),
            Some(_) => reply.error(libc::EPERM),
            None => reply.error(libc::ENOENT),
        }
    }

    fn open(&mut self, _req: &Request<'_>, ino: u64, _flags: i32, reply: ReplyOpen) {
        if ino == FILE_INO {
            reply.opened(0, fuser::consts::FOPEN_DIRECT_IO);
        } else {
            reply.error(libc::EISDIR);
        }
    }

    fn read(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        size: u32,
        _flags: i32,
        _lock_owner: Option<u64>,
        reply: ReplyData,
    ) {
        if ino != FILE_INO || offset < 0 {
            return reply.error(libc::EINVAL);
        }
        let offset = offset as u64;
        let len = u64::from(size).min(self.claimed_bytes.saturating_sub(offset));
        let mut buf = vec![0; len as usize];
        match self.read_blocks(offset, &mut buf) {
            Ok(()) => {
                self.counters.reads.fetch_add(1, Ordering::SeqCst);
                self.counters.read_bytes.fetch_add(len, Ordering::SeqCst);
                reply.data(&buf);
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn write(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        data: &[u8],
        _write_flags: u32,
        _flags: i32,
        _lock_owner: Option<u64>,
        reply: ReplyWrite,
    ) {
        if ino != FILE_INO || offset < 0 {
            return reply.error(libc::EINVAL);
        }
        let offset = offset as u64;
        if offset >= self.claimed_bytes && !data.is_empty() {
            return reply.error(libc::ENOSPC);
        }
        let len = (data.len() as u64).min(self.claimed_bytes - offset);
        let refused: Vec<bool> = FakeFs::pieces(offset, len)
            .map(|(at, _)| self.refuses(at))
            .collect();
        if refused.iter().any(|&r| r) {
            return reply.error(libc::EIO);
        }
        if let Some(cache) = &self.cache {
            let written = self.counters.written_bytes.load(Ordering::SeqCst);
            std::thread::sleep(cache.hold(written, len));
        }
        match self.write_blocks(offset, &data[..len as usize]) {
            Ok(dropped) => {
                self.counters.writes.fetch_add(1, Ordering::SeqCst);
                self.counters.written_bytes.fetch_add(len, Ordering::SeqCst);
                self.counters
                    .dropped_bytes
                    .fetch_add(dropped, Ordering::SeqCst);
                reply.written(len as u32);
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn flush(
        &mut self,
        _req: &Request<'_>,
        _ino: u64,
        _fh: u64,
        _lock_owner: u64,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn fsync(&mut self, _req: &Request<'_>, _ino: u64, _fh: u64, _data: bool, reply: ReplyEmpty) {
        match self.backing.sync_data() {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn fallocate(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        length: i64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        let (Ok(offset), Ok(length)) = (u64::try_from(offset), u64::try_from(length)) else {
            return reply.error(libc::EINVAL);
        };
        if ino != FILE_INO || offset.saturating_add(length) > self.claimed_bytes {
            return reply.error(libc::EINVAL);
        }
        let zero = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_ZERO_RANGE;
        if mode & !(zero | libc::FALLOC_FL_KEEP_SIZE) != 0 {
            return reply.error(libc::EOPNOTSUPP);
        }
        if mode & zero == 0 {
            // Plain allocation: the whole claimed size is there already.
            return reply.ok();
        }
        match self.zero_blocks(offset, length) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn readdir(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        mut reply: ReplyDirectory,
    ) {
        if ino != FUSE_ROOT_ID {
            return reply.error(libc::ENOTDIR);
        }
        let entries = [
            (FUSE_ROOT_ID, FileType::Directory, "."),
            (FUSE_ROOT_ID, FileType::Directory, ".."),
            (FILE_INO, FileType::RegularFile, FUSE_FILE_NAME),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset.max(0) as usize) {
            if reply.add(*ino, i as i64 + 1, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

/// Mounts `fs` on `dir` through `fusermount3` (auto-unmounted if this process dies) and serves
/// it on a background thread.
///
/// # Panics
/// When the mount fails.
pub(super) fn mount(fs: FakeFs, dir: &Path) -> fuser::BackgroundSession {
    let options = [
        MountOption::FSName("agnostics-fake-drive".to_owned()),
        MountOption::AllowOther,
        MountOption::AutoUnmount,
    ];
    fuser::spawn_mount2(fs, dir, &options).unwrap_or_else(|e| {
        panic!(
            "mount the fake drive's FUSE file system on {}: {e}",
            dir.display()
        )
    })
}
