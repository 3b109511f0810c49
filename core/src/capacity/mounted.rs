//! Mounted mode: the check through the program's own file. The file is the engine's private
//! test file ([`TestFile`]: `O_CREAT|O_EXCL|O_NOFOLLOW` in a private folder the leftover sweep
//! knows), `fallocate`d to a share of the free space (which writes no data) and mapped with
//! FIEMAP; each spot is written and read through the file with O_DIRECT at its offset in it.
//! Only filesystems that allocate in place and map their files to the drive linearly qualify:
//! ext2/3/4 and XFS on a partition or a whole disk (not LVM, RAID or encryption).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::fiemap::{self, FileExtent};
use super::pattern::{decode, Block, Content, BLOCK_U64};
use super::plan::{Plan, Ranges, Spot, WRAP_STEP};
use super::spots::{self, SpotIo};
use super::verdict::Probe;
use super::{
    recovery, registers, verdict, CapacityError, CapacityOptions, CapacityReport, Cost, DriveFacts,
    Event, Mode, Phase, WRITE_4K_SECONDS,
};
use crate::drive_lock::{self, DriveLock};
use crate::engine::testfile::{self, TestFile};
use crate::sysfs::{dir_of_name, read_attr};
use crate::target_dir::{self, TargetInfo};
use crate::units::MIB;

/// Filesystems whose files mounted mode can map to the drive.
pub const MAPPABLE: [&str; 4] = ["ext4", "ext3", "ext2", "xfs"];
/// The free space left to others: 5 % of the filesystem …
pub const KEEP_SHARE: u64 = 20;
/// … and at least 64 MiB, bytes.
pub const KEEP_MIN: u64 = 64 * MIB;
/// The time assumed for one 4 KiB read when the drive cannot be probed, seconds.
pub const READ_4K_SECONDS: f64 = 0.001;

/// The bytes of the check's file on a filesystem of `total` bytes with `free` free: all but
/// 5 % of `total` and at least 64 MiB, in whole MiB (0 when nothing is left).
pub fn file_bytes(free: u64, total: u64) -> u64 {
    let keep = (total / KEEP_SHARE).max(KEEP_MIN);
    free.saturating_sub(keep) / MIB * MIB
}

/// The check's file as the spots' way: each spot at its offset in the file.
struct FileIo<'a> {
    file: File,
    /// The file's extents with drive addresses, ascending by address.
    map: Vec<FileExtent>,
    path: &'a Path,
}

impl FileIo<'_> {
    fn offset(&self, spot: &Spot) -> io::Result<u64> {
        let i = self.map.partition_point(|e| e.physical <= spot.address);
        i.checked_sub(1)
            .map(|i| &self.map[i])
            .filter(|e| spot.address + BLOCK_U64 <= e.physical + e.length)
            .map(|e| e.logical + (spot.address - e.physical))
            .ok_or_else(|| io::Error::other("a spot outside the file"))
    }
}

impl SpotIo for FileIo<'_> {
    fn read(&mut self, spot: &Spot, buf: &mut Block) -> io::Result<()> {
        let at = self.offset(spot)?;
        self.file.read_exact_at(&mut buf.0, at)
    }

    fn write(&mut self, spot: &Spot, buf: &Block) -> io::Result<()> {
        let at = self.offset(spot)?;
        self.file.write_all_at(&buf.0, at)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn name(&self) -> String {
        self.path.display().to_string()
    }
}

/// The raw disk, read-only, for the speed probe (root or the `disk` group).
struct DiskProbe(File);

impl SpotIo for DiskProbe {
    fn read(&mut self, spot: &Spot, buf: &mut Block) -> io::Result<()> {
        self.0.read_exact_at(&mut buf.0, spot.address)
    }
    fn write(&mut self, _: &Spot, _: &Block) -> io::Result<()> {
        Err(io::ErrorKind::PermissionDenied.into())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn name(&self) -> String {
        String::new()
    }
}

/// Seconds per 4 KiB read of `disk`, from 16 spots of `plan` read on the raw disk; the assumed
/// [`READ_4K_SECONDS`] when the disk cannot be opened.
fn read_cost(disk: &str, plan: &Plan) -> f64 {
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags_direct()
        .open(Path::new("/dev").join(disk));
    opened
        .ok()
        .and_then(|f| spots::probe_reads(&mut DiskProbe(f), plan, 16))
        .unwrap_or(READ_4K_SECONDS)
}

trait DirectOpen {
    fn custom_flags_direct(&mut self) -> &mut Self;
}

impl DirectOpen for std::fs::OpenOptions {
    fn custom_flags_direct(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(libc::O_DIRECT | libc::O_CLOEXEC)
    }
}

/// The drive under `info`: (facts, partition start in bytes, disk size in bytes).
fn drive_of(info: &TargetInfo, sysfs: &Path) -> Result<(DriveFacts, u64, u64), CapacityError> {
    let Some(dev) = &info.device else {
        return Err(CapacityError::NoDrive {
            path: info.path.clone(),
        });
    };
    let linear = dev.stack.len() <= 2 && dev.disks.len() <= 1;
    let disk_dir = dir_of_name(sysfs, &dev.disk);
    let part_dir = dir_of_name(sysfs, &dev.name);
    let (Some(disk_dir), Some(part_dir), true) = (disk_dir, part_dir, linear) else {
        return Err(CapacityError::Unmappable {
            path: info.path.clone(),
            fs_type: format!("{} ({})", info.fs_type, dev.stack.join(" → ")),
        });
    };
    let sectors = |dir: &Path, attr: &str| {
        read_attr(&dir.join(attr))
            .and_then(|s| s.parse::<u64>().ok())
            .map(|n| n.saturating_mul(512))
    };
    let start = if dev.name == dev.disk {
        0
    } else {
        sectors(&part_dir, "start").unwrap_or(0)
    };
    let size = sectors(&disk_dir, "size").unwrap_or(0);
    let facts = DriveFacts {
        disk: dev.disk.clone(),
        dev: read_attr(&disk_dir.join("dev")).unwrap_or_else(|| dev.dev.clone()),
        model: dev.model.clone(),
        transport: info.transport,
        partition: Some(dev.name.clone()),
        partition_start: Some(start),
        target: Some(info.path.clone()),
        fs_type: Some(info.fs_type.clone()),
    };
    Ok((facts, start, size))
}

/// Takes the drives' lock of `info`; [`CapacityError::Busy`] when another check or test
/// holds it too.
pub(crate) fn lock(info: &TargetInfo, opts: &CapacityOptions) -> Result<DriveLock, CapacityError> {
    let drives = drive_lock::drives(info, &opts.sysfs_root);
    super::locking::take(&opts.lock_dir, &drives, false, &mut |_| {})
}

/// Reserves `bytes` for `file` without writing (fallocate mode 0); on ENOSPC, half as much, up
/// to four times. Returns the bytes reserved.
fn reserve(file: &File, mut bytes: u64, info: &TargetInfo) -> Result<u64, CapacityError> {
    for _ in 0..4 {
        if bytes < BLOCK_U64 {
            return Ok(0);
        }
        let len = libc::off_t::try_from(bytes).unwrap_or(libc::off_t::MAX);
        // SAFETY: plain syscall on a descriptor we own.
        if unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len) } == 0 {
            return Ok(bytes);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOSPC) => bytes = bytes / 2 / MIB * MIB,
            Some(libc::EOPNOTSUPP) => {
                return Err(CapacityError::Unmappable {
                    path: info.path.clone(),
                    fs_type: info.fs_type.clone(),
                })
            }
            _ => {
                return Err(CapacityError::io(
                    format!("fallocate in {}", info.path.display()),
                    e,
                ))
            }
        }
    }
    Ok(0)
}

/// [`super::check_mounted`].
pub(crate) fn check(
    target: &Path,
    opts: &CapacityOptions,
    on_event: &mut dyn FnMut(Event),
    cancel: &AtomicBool,
) -> Result<CapacityReport, CapacityError> {
    let begun = Instant::now();
    let started = super::now_rfc3339();
    on_event(Event::Phase {
        phase: Phase::Planning,
        total: 0,
    });
    let info = target_dir::preflight(target, 0, &opts.sysfs_root)?;
    if !MAPPABLE.contains(&info.fs_type.as_str()) {
        return Err(CapacityError::Unmappable {
            path: info.path.clone(),
            fs_type: info.fs_type.clone(),
        });
    }
    let (facts, start, claimed) = drive_of(&info, &opts.sysfs_root)?;
    if let Some(file) = recovery::pending_for(&opts.recovery_dir, &opts.sysfs_root, &facts.dev) {
        return Err(CapacityError::RecoveryFailed {
            disk: facts.disk.clone(),
            file,
            why: crate::i18n::gettext(
                "the device is mounted now; unmount it and check it with --device",
            ),
        });
    }
    let _lock = lock(&info, opts)?;
    testfile::remove_stale(&info.path);
    let test_file = TestFile::create(&info.path, true, &info.fs_type).map_err(|e| {
        CapacityError::io(
            format!("create a file in {}", info.path.display()),
            io::Error::other(e.to_string()),
        )
    })?;
    let span = Span {
        info: &info,
        disk: &facts.disk,
        start,
        claimed,
    };
    let result = through_file(&test_file, &span, opts, on_event, cancel);
    let removed = test_file.remove();
    let (plan, readings, probes, bytes_written, bytes_read) = result?;
    removed.map_err(|e| CapacityError::io("remove the check's file", e))?;
    let judged = verdict::judge(&plan, &readings, &probes, opts.covered_share);
    let registers = registers::read(&opts.sysfs_root, &facts.disk, claimed, (&info).into());
    Ok(super::Parts {
        started,
        begun,
        mode: Mode::Mounted,
        drive: facts,
        plan,
        judged,
        registers,
        bytes_written,
        bytes_read,
        restore: None,
        recovered: Vec::new(),
    }
    .report())
}

/// Where the check's file is: its folder, the disk, the partition's start and the disk's
/// size, bytes.
struct Span<'a> {
    info: &'a TargetInfo,
    disk: &'a str,
    start: u64,
    claimed: u64,
}

/// What the spots found: the plan that ran, its readings, the raw probes, bytes written and
/// read.
type Found = (Plan, Vec<spots::Reading>, Vec<Probe>, u64, u64);

/// Reserves and maps the check's file, plans the spots inside it, says the plan, writes and
/// reads them back in two passes ([`two_passes`]: the ruler only where the raw disk's blocks
/// at the spots could be saved first, [`with_ruler`]) and, when every spot held, probes the
/// raw disk for the wrap sizes no two spots rule out ([`probe`]); then writes the saved blocks
/// back ([`put_back`]).
fn through_file(
    test_file: &TestFile,
    span: &Span<'_>,
    opts: &CapacityOptions,
    on_event: &mut dyn FnMut(Event),
    cancel: &AtomicBool,
) -> Result<Found, CapacityError> {
    let info = span.info;
    let file = test_file.open(true).map_err(|e| {
        CapacityError::io(
            format!("open {}", test_file.path().display()),
            io::Error::other(e.to_string()),
        )
    })?;
    let space = target_dir::fs::space(&info.path)
        .map_err(|e| CapacityError::io(format!("statvfs {}", info.path.display()), e.into()))?;
    let reserved = reserve_high(&file, space.free_bytes, space.total_bytes, info)?;
    let map = mapped(test_file, &file, reserved, span)?;
    let ranges = Ranges::new(map.iter().map(|e| (e.physical, e.length)).collect());
    let first = Plan::within(span.claimed, &ranges, opts.spots, opts.min_alias_bytes);
    let raw = open_raw(span.disk);
    let (plan, saved) = match raw.as_ref().map(|r| with_ruler(&first, &ranges, r)) {
        Some(Some((plan, saved))) => (plan, Some(saved)),
        _ => (first.clone(), None),
    };
    let mut io = FileIo {
        file,
        map,
        path: test_file.path(),
    };
    let read_s = read_cost(span.disk, &plan);
    on_event(Event::Planned(Cost {
        spots: plan.spots.len() as u32,
        base_spots: plan.base_spots,
        // With the saved blocks: each spot's pattern, then what was there.
        bytes_written: plan.bytes() * if saved.is_some() { 2 } else { 1 },
        bytes_read: plan.bytes() * if saved.is_some() { 2 } else { 1 },
        estimated_seconds: plan.spots.len() as f64 * (read_s + WRITE_4K_SECONDS),
        coverage: plan.span_share(span.claimed),
    }));
    let key = rand::random::<u64>();
    let result = two_passes(&mut io, [&first, &plan], key, on_event, cancel);
    let (probes, raw_read) = match (&result, &raw) {
        (Ok((ran, ..)), Some(raw)) => look_raw(raw, ran, key, cancel),
        _ => (Vec::new(), 0),
    };
    let ran = result.as_ref().map_or(&plan, |r| &r.0);
    let saved_read = saved.as_ref().map_or(0, |s| s.len() as u64 * BLOCK_U64);
    let restored = saved
        .map(|saved| put_back(&mut io, ran, &saved))
        .transpose();
    let (ran, readings, written, read) = result?;
    let put = restored
        .map_err(|e| CapacityError::io(format!("write {}", test_file.path().display()), e))?
        .unwrap_or(0);
    Ok((
        ran,
        readings,
        probes,
        written + put,
        read + raw_read + saved_read,
    ))
}

/// The raw disk's evidence after the read-back of `plan`: its [`probe`]s and the
/// [`sweep`](super::sweep) of the ruler's lowest MiBs, and the bytes read.
fn look_raw(raw: &File, plan: &Plan, key: u64, cancel: &AtomicBool) -> (Vec<Probe>, u64) {
    let probed = probe(raw, plan, key);
    let swept = super::sweep::low_mibs(raw, plan, key, cancel);
    let bytes = probed.len() as u64 * BLOCK_U64 + swept.bytes;
    ([probed, swept.probes].concat(), bytes)
}

/// The extents of the check's file (the first `reserved` bytes) with drive addresses, ascending
/// by address.
///
/// Errors: [`CapacityError::Unmappable`] where FIEMAP is not supported, else
/// [`CapacityError::Io`].
fn mapped(
    test_file: &TestFile,
    file: &File,
    reserved: u64,
    span: &Span<'_>,
) -> Result<Vec<FileExtent>, CapacityError> {
    let info = span.info;
    let unmappable = || CapacityError::Unmappable {
        path: info.path.clone(),
        fs_type: info.fs_type.clone(),
    };
    let extents = match fiemap::extents(file) {
        Ok(e) => e,
        Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::ENOTTY)) => {
            return Err(unmappable())
        }
        Err(e) => {
            return Err(CapacityError::io(
                format!("FIEMAP {}", test_file.path().display()),
                e,
            ))
        }
    };
    let mut map: Vec<FileExtent> = extents
        .into_iter()
        .filter(|e| e.logical < reserved)
        .map(|e| FileExtent {
            physical: e.physical + span.start,
            length: e.length.min(reserved - e.logical),
            ..e
        })
        .collect();
    map.sort_by_key(|e| e.physical);
    Ok(map)
}

/// The raw disk `/dev/<disk>`, read-only, O_DIRECT; `None` when it cannot be opened (not
/// root and not in the `disk` group).
fn open_raw(disk: &str) -> Option<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags_direct()
        .open(Path::new("/dev").join(disk))
        .ok()
}

/// `first` with a ruler inside the file's `ranges` ([`Plan::ruler_within`]), and what the raw
/// disk holds at each of its spots, read before anything is written. On a drive that wraps at
/// any size `R`, a spot at `P` is read from and written to `P mod R`: writing the saved block
/// back at `P` afterwards puts back what was there, whoever it belonged to. `None` when a read
/// fails (the ruler is then left out: without the saved blocks, its writes on a drive that
/// wraps at no power of two could land on other files).
fn with_ruler(first: &Plan, ranges: &Ranges, raw: &File) -> Option<(Plan, Saved)> {
    let (grid, ruler) = Plan::ruler_within(ranges);
    let plan = Plan {
        grid,
        ..first.clone()
    }
    .with(ruler);
    let mut saved = Saved::new();
    for s in &plan.spots {
        let mut block = Block::zeroed();
        raw.read_exact_at(&mut block.0, s.address).ok()?;
        saved.insert(s.address, block);
    }
    Some((plan, saved))
}

/// The raw disk's blocks at the spots before the check, by drive address.
type Saved = std::collections::HashMap<u64, Box<Block>>;

/// Writes `saved` back through the file at every spot of `plan` (see [`with_ruler`]) and
/// flushes. Returns the bytes written.
fn put_back(io: &mut FileIo<'_>, plan: &Plan, saved: &Saved) -> io::Result<u64> {
    let mut written = 0;
    for s in &plan.spots {
        if let Some(block) = saved.get(&s.address) {
            io.write(s, block)?;
            written += BLOCK_U64;
        }
    }
    io.flush()?;
    Ok(written)
}

/// Writes and reads `first` (spots whose power-of-two aliases are all inside the file: a drive
/// that wraps at a power of two overwrites only the file itself), and only when every spot
/// held, the rest of `all` (the ruler), reading every spot of `all` back. Returns the plan
/// that ran, its readings and the bytes written and read.
fn two_passes(
    io: &mut FileIo<'_>,
    [first, all]: [&Plan; 2],
    key: u64,
    on_event: &mut dyn FnMut(Event),
    cancel: &AtomicBool,
) -> Result<(Plan, Vec<spots::Reading>, u64, u64), CapacityError> {
    let w1 = spots::write_all(io, first, key, on_event, cancel)?;
    let (r1, read1) = spots::read_back(io, first, key, on_event, cancel)?;
    let held = |r: &spots::Reading| r.found == super::Found::Intact && r.unsure.is_none();
    if !r1.iter().all(held) {
        return Ok((first.clone(), r1, w1, read1));
    }
    let rest: Vec<u64> = all
        .spots
        .iter()
        .filter(|s| first.spot_at(s.address).is_none())
        .map(|s| s.address)
        .collect();
    let second = Plan::from_bases(all.claimed_bytes, Vec::new(), Vec::new()).with(rest);
    let w2 = spots::write_all(io, &second, key, on_event, cancel)?;
    let (readings, read2) = spots::read_back(io, all, key, on_event, cancel)?;
    Ok((all.clone(), readings, w1 + w2, read1 + read2))
}

/// The most raw reads [`probe`] makes.
const MAX_PROBES: usize = 16_384;

/// For each wrap size (a multiple of 1 MiB up to the highest spot) that no two spots of `plan`
/// are apart, reads the raw disk (O_DIRECT, read-only) where a drive wrapping at that size
/// put the block of the highest spot `s`: at `s mod size`. There it finds that block, or the
/// block of a lower spot written later to the same place: either is one of this run's blocks
/// written for another address. Nothing is written to `raw`; a read that fails is left out
/// (that size stays unchecked), and at most [`MAX_PROBES`] are made.
fn probe(raw: &File, plan: &Plan, key: u64) -> Vec<Probe> {
    probe_with(plan, key, &mut |at, block| {
        raw.read_exact_at(&mut block.0, at)
    })
}

/// [`probe`] with `read` reading the 4 KiB block at a drive address.
fn probe_with(
    plan: &Plan,
    key: u64,
    read: &mut dyn FnMut(u64, &mut Block) -> io::Result<()>,
) -> Vec<Probe> {
    let Some(s) = plan.spots.last().map(|s| s.address) else {
        return Vec::new();
    };
    let cover = plan.wrap_cover();
    let mut out = Vec::new();
    let mut block = Block::zeroed();
    for d in 1..=s / WRAP_STEP {
        if cover.get(d as usize).copied().unwrap_or(false) {
            continue;
        }
        if out.len() >= MAX_PROBES {
            break;
        }
        let size = d * WRAP_STEP;
        let at = s % size;
        if read(at, &mut block).is_err() {
            continue;
        }
        let holds = match decode(&block, key) {
            Content::Ours { address, .. } if address != at => Some(address),
            _ => None,
        };
        out.push(Probe {
            distance: size,
            at,
            holds,
            swept: false,
        });
    }
    out
}

/// Free space the check leaves while its file reaches the top of the filesystem, before the
/// rest of the free share is given back: 16 MiB.
const MARGIN: u64 = 16 * MIB;

/// Reserves the check's file ([`file_bytes`] of the free space) so that it reaches as high up
/// the drive as the free space does: reserves all but [`MARGIN`] (for a moment the filesystem is
/// that full), then gives back the file's lowest blocks (by drive address) with
/// `FALLOC_FL_PUNCH_HOLE` until the share others keep is free again. Where holes cannot be
/// punched, the file is cut to its size instead (its top is given back). Returns the file's
/// size, bytes; the holes are not in its extents.
fn reserve_high(
    file: &File,
    free: u64,
    total: u64,
    info: &TargetInfo,
) -> Result<u64, CapacityError> {
    let want = file_bytes(free, total);
    if want == 0 {
        return Ok(0);
    }
    let reserved = reserve(file, free.saturating_sub(MARGIN) / MIB * MIB, info)?;
    let mut give = reserved.saturating_sub(want);
    if give == 0 {
        return Ok(reserved);
    }
    let mut extents = fiemap::extents(file).unwrap_or_default();
    extents.sort_by_key(|e| e.physical);
    for e in extents {
        if give == 0 {
            break;
        }
        let len = e.length.min(give);
        let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
        let (Ok(at), Ok(n)) = (libc::off_t::try_from(e.logical), libc::off_t::try_from(len)) else {
            break;
        };
        // SAFETY: plain syscall on a descriptor we own.
        if unsafe { libc::fallocate(file.as_raw_fd(), mode, at, n) } != 0 {
            break;
        }
        give -= len;
    }
    if give > 0 {
        file.set_len(reserved - give)
            .map_err(|e| CapacityError::io(format!("truncate in {}", info.path.display()), e))?;
        return Ok(reserved - give);
    }
    Ok(reserved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_leaves_five_percent_and_at_least_64_mib() {
        let gib = 1024 * MIB;
        assert_eq!(
            file_bytes(10 * gib, 32 * gib),
            (10 * gib - 32 * gib / 20) / MIB * MIB
        );
        assert_eq!(file_bytes(100 * MIB, 256 * MIB), 36 * MIB);
        assert_eq!(file_bytes(50 * MIB, 256 * MIB), 0);
    }
}

#[cfg(test)]
mod probe_tests;
