//! Device mode: the check on a whole, unmounted device. Only a whole disk is checked (a
//! partition's addresses are not the drive's, so its aliases would not collide where the drive
//! wraps); a disk that is mounted, holds a mounted partition or is claimed by the kernel (LVM,
//! RAID, swap: `O_EXCL` fails with `EBUSY`) is refused. Every spot's original 4 KiB is saved
//! to a [`super::recovery`] file before the first write and written back after the check, on
//! an error and when stopped; the restore is verified by reading back.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::pattern::Block;
use super::plan::{Plan, Spot};
use super::recovery::{self, Header};
use super::spots::{self, SpotIo};
use super::sweep;
use super::{
    registers, verdict, CapacityError, CapacityOptions, CapacityReport, Claims, Cost, DriveFacts,
    Event, Mode, Phase, RegisterFinding, Restore, WRITE_4K_SECONDS,
};
use crate::drive::identity::Volume;
use crate::drive::DriveIdentity;
use crate::drive_lock::{Drive, DriveLock};
use crate::i18n::{fill, gettext};
use crate::sysfs::{dir_of_dev, read_attr};
use crate::target_dir::{device as stack, mounts};

/// `BLKGETSIZE64`: `_IOR(0x12, 114, size_t)`. The size of `size_t` is part of the number
/// (0x80081272 on 64-bit programs, 0x80041272 on 32-bit ones such as armhf), although the
/// kernel writes a u64 either way.
const BLKGETSIZE64: libc::c_ulong =
    (2 << 30) | ((std::mem::size_of::<libc::size_t>() as libc::c_ulong) << 16) | (0x12 << 8) | 114;

/// Opens a block device read-write, O_DIRECT and O_EXCL (refused with `EBUSY` while it or a
/// partition of it is mounted or held by the kernel).
pub fn open_exclusive(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT | libc::O_EXCL | libc::O_CLOEXEC)
        .open(path)
}

/// The size of the open block device `file`, bytes (`BLKGETSIZE64`).
pub fn size_of(file: &File) -> io::Result<u64> {
    const _: () = assert!(std::mem::size_of::<libc::size_t>() != 8 || BLKGETSIZE64 == 0x8008_1272);
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which is valid for the call.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64 as _, &mut size) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(size)
}

/// The device as the spots' way: each spot at its own address.
struct DeviceIo<'a> {
    file: &'a File,
    path: &'a Path,
}

impl SpotIo for DeviceIo<'_> {
    fn read(&mut self, spot: &Spot, buf: &mut Block) -> io::Result<()> {
        self.file.read_exact_at(&mut buf.0, spot.address)
    }
    fn write(&mut self, spot: &Spot, buf: &Block) -> io::Result<()> {
        self.file.write_all_at(&buf.0, spot.address)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
    fn name(&self) -> String {
        self.path.display().to_string()
    }
}

/// The disk behind the node `device`: (name, `MAJ:MIN`, its sysfs folder).
///
/// Errors: [`CapacityError::NotABlockDevice`], [`CapacityError::Partition`].
fn whole_disk(device: &Path, sysfs: &Path) -> Result<(String, String, PathBuf), CapacityError> {
    let not_block = || CapacityError::NotABlockDevice {
        device: device.to_path_buf(),
    };
    let meta = std::fs::metadata(device).map_err(|_| not_block())?;
    if !meta.file_type().is_block_device() {
        return Err(not_block());
    }
    let (maj, min) = crate::sysfs::maj_min(meta.rdev());
    let dev = format!("{maj}:{min}");
    let dir = dir_of_dev(sysfs, &dev).ok_or_else(not_block)?;
    let name = |d: &Path| {
        d.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if dir.join("partition").exists() {
        let disk = dir.parent().map(&name).unwrap_or_default();
        return Err(CapacityError::Partition {
            device: device.to_path_buf(),
            disk: format!("/dev/{disk}"),
        });
    }
    Ok((name(&dir), dev, dir))
}

/// Why the disk at `dir` (`dev`) is in use: a mount of it or of a partition, or a holder (dm,
/// md) of either; `None` when free.
fn in_use(dir: &Path, dev: &str) -> Option<String> {
    let mut devs = vec![(dev.to_owned(), String::new())];
    let mut holders = Vec::new();
    let mut look = |d: &Path| {
        if let Ok(rd) = std::fs::read_dir(d.join("holders")) {
            holders.extend(
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned()),
            );
        }
    };
    look(dir);
    if let Ok(rd) = std::fs::read_dir(dir) {
        for p in rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("partition").exists())
        {
            if let Some(d) = read_attr(&p.join("dev")) {
                let n = p.file_name().map(|n| n.to_string_lossy().into_owned());
                devs.push((d, n.unwrap_or_default()));
            }
            look(&p);
        }
    }
    let mounts = mounts::read();
    for (d, part) in &devs {
        if let Some(m) = mounts.iter().find(|m| &m.dev == d) {
            let what = if part.is_empty() {
                m.source.clone()
            } else {
                part.clone()
            };
            return Some(fill(
                &gettext("{what} is mounted on {path}"),
                &[("what", &what), ("path", &m.mount_point.display())],
            ));
        }
    }
    holders
        .first()
        .map(|h| fill(&gettext("{holder} uses it"), &[("holder", h)]))
}

/// The largest partition of the disk at `dir`, else the disk: where its filesystem identity is.
fn main_volume(dir: &Path, disk: &str) -> String {
    let size = |p: &Path| read_attr(&p.join("size")).and_then(|s| s.parse::<u64>().ok());
    std::fs::read_dir(dir)
        .ok()
        .and_then(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("partition").exists())
                .max_by_key(|p| size(p).unwrap_or(0))
        })
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| disk.to_owned())
}

/// `ext4` when the volume's superblock has the ext2/3/4 magic (0xEF53 at byte 1080), else "".
fn ext_or_nothing(volume: &str) -> &'static str {
    let mut magic = [0u8; 2];
    let read =
        File::open(Path::new("/dev").join(volume)).and_then(|f| f.read_exact_at(&mut magic, 1080));
    if read.is_ok() && magic == [0x53, 0xEF] {
        "ext4"
    } else {
        ""
    }
}

/// The device opened for a check: its disk's name, `MAJ:MIN` and sysfs folder, its lock, what
/// was restored of an earlier check, and the device open O_EXCL with its size.
struct Opened {
    disk: String,
    dev: String,
    dir: PathBuf,
    _lock: DriveLock,
    recovered: Vec<super::Recovered>,
    file: File,
    size: u64,
}

/// Root, a whole disk, its lock, not in use, opened O_EXCL, any recovery file of this card
/// put back.
fn open_for_check(
    device: &Path,
    opts: &CapacityOptions,
    on_event: &mut dyn FnMut(Event),
) -> Result<Opened, CapacityError> {
    if !nix::unistd::geteuid().is_root() {
        return Err(CapacityError::NeedsRoot {
            device: device.to_path_buf(),
        });
    }
    let (disk, dev, dir) = whole_disk(device, &opts.sysfs_root)?;
    let drive = Drive {
        name: disk.clone(),
        dev: dev.clone(),
    };
    let lock = super::locking::take(&opts.lock_dir, &[drive], true, on_event)?;
    if let Some(why) = in_use(&dir, &dev) {
        return Err(CapacityError::InUse {
            device: device.to_path_buf(),
            why,
        });
    }
    let file = open_exclusive(device).map_err(|e| match e.raw_os_error() {
        Some(libc::EBUSY) => CapacityError::InUse {
            device: device.to_path_buf(),
            why: gettext("the kernel or another program holds it"),
        },
        _ => CapacityError::io(format!("open {}", device.display()), e),
    })?;
    let size = size_of(&file)
        .map_err(|e| CapacityError::io(format!("size of {}", device.display()), e))?;
    let present = recovery::Present {
        file: &file,
        disk: &disk,
        size,
        cid: recovery::cid_of(&opts.sysfs_root, &dev),
    };
    let recovered = recovery::restore_on(&opts.recovery_dir, &present, on_event)?;
    Ok(Opened {
        disk,
        dev,
        dir,
        _lock: lock,
        recovered,
        file,
        size,
    })
}

/// The recovery file of this check, written before the first pattern: the card's identity
/// (size, CID, the probe blocks' content) and the run's `key`. Returns its header, its path
/// and the open, locked file.
fn save_recovery(
    opened: &Opened,
    opts: &CapacityOptions,
    plan: &Plan,
    key: u64,
    saved: &recovery::Saved,
) -> Result<(Header, PathBuf, File), CapacityError> {
    let spots: Vec<u64> = plan.spots.iter().map(|s| s.address).collect();
    let probes = recovery::probes_for(&spots, opened.size);
    let content = recovery::content_of(&opened.file, &probes)
        .map_err(|e| CapacityError::io(format!("read /dev/{}", opened.disk), e))?;
    let header = Header {
        disk: opened.disk.clone(),
        dev: opened.dev.clone(),
        size_bytes: opened.size,
        cid: recovery::cid_of(&opts.sysfs_root, &opened.dev),
        probes,
        content,
        key,
        created: super::now_rfc3339(),
        blocks: 0,
    };
    let (path, file) = recovery::write(&opts.recovery_dir, &header, saved).map_err(|e| {
        CapacityError::io(
            format!(
                "save the original sectors in {}",
                opts.recovery_dir.display()
            ),
            e,
        )
    })?;
    Ok((header, path, file))
}

/// [`super::check_device`].
pub(crate) fn check(
    device: &Path,
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
    let opened = open_for_check(device, opts, on_event)?;
    let file = &opened.file;
    let claimed = opened.size;
    let plan = Plan::spread(claimed, opts.spots);
    let mut io = DeviceIo { file, path: device };
    let (saved, read_s) = save(&mut io, &plan, on_event, cancel)?;
    on_event(Event::Planned(cost(&plan, claimed, read_s)));
    let key = rand::random::<u64>();
    let (header, recovery_file, locked) = save_recovery(&opened, opts, &plan, key, &saved)?;
    let outcome = spots::write_all(&mut io, &plan, key, on_event, cancel)
        .and_then(|w| spots::read_back(&mut io, &plan, key, on_event, cancel).map(|r| (w, r)));
    // The verdict comes from the read-back (and the sweep) alone: a drive that also fails the
    // put-back is still told as what it is.
    let swept = match &outcome {
        Ok(_) => sweep::low_mibs(file, &plan, key, cancel),
        Err(_) => sweep::Swept::default(),
    };
    let judged = outcome
        .as_ref()
        .ok()
        .map(|(_, (readings, _))| verdict::judge(&plan, readings, &swept.probes, 1.0));
    let kept = Kept {
        header: &header,
        path: &recovery_file,
        disk: &opened.disk,
    };
    let (restore, rw, rr) = put_back(file, &saved, &kept, on_event)?;
    drop(locked);
    let (written, read) = match outcome {
        Err(_) if restore.failed > 0 => {
            return Err(CapacityError::RestoreFailed {
                disk: opened.disk.clone(),
                file: recovery_file,
                why: failed_text(&restore),
            })
        }
        other => other.map(|(w, (_, r))| (w, r))?,
    };
    let Some(judged) = judged.filter(|_| !swept.cancelled) else {
        return Err(CapacityError::Cancelled);
    };
    let registers = registers_of(&opened, opts, claimed);
    let transport = stack::transport_of(&opened.dir);
    let bytes_read = read + rr + plan.bytes() + swept.bytes;
    Ok(super::Parts {
        started,
        begun,
        mode: Mode::Device,
        drive: DriveFacts {
            disk: opened.disk.clone(),
            dev: opened.dev.clone(),
            model: stack::model_of(&opened.dir, transport),
            transport,
            ..DriveFacts::default()
        },
        plan,
        judged,
        registers,
        bytes_written: written + rw,
        bytes_read,
        restore: Some(restore),
        recovered: opened.recovered,
    }
    .report())
}

/// What the check of `plan` on a device of `claimed` bytes costs, a 4 KiB read taking
/// `read_s` seconds: twice the plan's bytes written (the pattern, then the originals put
/// back), three times read.
fn cost(plan: &Plan, claimed: u64, read_s: f64) -> Cost {
    Cost {
        spots: plan.spots.len() as u32,
        base_spots: plan.base_spots,
        bytes_written: 2 * plan.bytes(),
        bytes_read: 3 * plan.bytes(),
        estimated_seconds: plan.spots.len() as f64 * 2.0 * (read_s + WRITE_4K_SECONDS),
        coverage: plan.span_share(claimed),
    }
}

/// The registers of the checked device, with its main volume's partition and file system.
fn registers_of(
    opened: &Opened,
    opts: &CapacityOptions,
    claimed: u64,
) -> (Claims, Vec<RegisterFinding>, Option<DriveIdentity>) {
    let volume_name = main_volume(&opened.dir, &opened.disk);
    let volume = Volume {
        path: Path::new("/nonexistent"),
        partition: Some(&volume_name),
        fs_type: ext_or_nothing(&volume_name),
    };
    registers::read(&opts.sysfs_root, &opened.disk, claimed, volume)
}

/// `N sectors (at bytes A, B, …)`: the blocks a restore left, in words for an error.
fn failed_text(r: &Restore) -> String {
    let at: Vec<String> = r.failed_addresses.iter().map(u64::to_string).collect();
    format!("{} of {} at bytes {}", r.failed, r.blocks, at.join(", "))
}

/// This check's recovery file: its header, where it is, and the disk's name.
struct Kept<'a> {
    header: &'a Header,
    path: &'a Path,
    disk: &'a str,
}

/// Puts the saved blocks back where the device holds this check's pattern (the Restoring
/// phase), every one tried; removes the recovery file when all are back, else keeps in it
/// only those that are not. Returns what was done, and the bytes written and read.
///
/// Errors: [`CapacityError::Io`] when the recovery file cannot be removed or rewritten.
fn put_back(
    file: &File,
    saved: &recovery::Saved,
    kept: &Kept<'_>,
    on_event: &mut dyn FnMut(Event),
) -> Result<(Restore, u64, u64), CapacityError> {
    let total = saved.len() as u64;
    on_event(Event::Phase {
        phase: Phase::Restoring,
        total,
    });
    let recovery_file = kept.path;
    let applied = super::restore::apply(file, kept.header.key, saved);
    let left = recovery::keep_left(recovery_file, kept.header, saved, &applied).map_err(|e| {
        CapacityError::io(
            format!("update {} (of {})", recovery_file.display(), kept.disk),
            e,
        )
    })?;
    on_event(Event::Progress {
        phase: Phase::Restoring,
        done: total,
        total,
    });
    let restore = Restore {
        blocks: saved.len() as u32,
        verified: left.is_empty(),
        failed: left.len() as u32,
        kept_in: (!left.is_empty()).then(|| recovery_file.to_path_buf()),
        failed_addresses: left.into_iter().take(64).collect(),
    };
    Ok((restore, applied.bytes_written, applied.bytes_read))
}

/// Reads every spot's original block (the Saving phase). Returns them with the seconds per
/// read.
///
/// Errors: [`CapacityError::Io`] for a read that fails (nothing was written yet),
/// [`CapacityError::Cancelled`].
fn save(
    io: &mut DeviceIo<'_>,
    plan: &Plan,
    on_event: &mut dyn FnMut(Event),
    cancel: &AtomicBool,
) -> Result<(recovery::Saved, f64), CapacityError> {
    let total = plan.spots.len();
    on_event(Event::Phase {
        phase: Phase::Saving,
        total: total as u64,
    });
    let start = Instant::now();
    let mut saved = Vec::with_capacity(total);
    for (i, spot) in plan.spots.iter().enumerate() {
        if cancel.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(CapacityError::Cancelled);
        }
        let mut b = Block::zeroed();
        io.read(spot, &mut b).map_err(|e| {
            CapacityError::io(format!("read {} at byte {}", io.name(), spot.address), e)
        })?;
        saved.push((spot.address, b));
        if (i + 1) % 32 == 0 || i + 1 == total {
            on_event(Event::Progress {
                phase: Phase::Saving,
                done: (i + 1) as u64,
                total: total as u64,
            });
        }
    }
    let per = start.elapsed().as_secs_f64() / total.max(1) as f64;
    Ok((saved, per))
}
