//! What the drive itself did in a phase: the block layer's own counters for the device the
//! test file's filesystem is on, read before and after the phase (Linux
//! `Documentation/block/stat.rst`: `/sys/dev/block/MAJ:MIN/stat`, whose sector counts are in
//! 512-byte units whatever the device's logical block size).
//!
//! The device is the filesystem's own (a partition such as `mmcblk0p2`, a `dm-0` or `loop3`,
//! or a whole disk such as `vda`): its counters count every request that reached it, from any
//! process, so another program's I/O only ever adds to them. A filesystem without a block
//! device (tmpfs, NFS, overlay, btrfs's anonymous device numbers) has none, and then no phase
//! carries counters.

use std::os::fd::{AsRawFd, BorrowedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::sysfs::{maj_min, read_attr};

/// Bytes in one of the block layer's counted sectors.
pub const SECTOR_BYTES: u64 = 512;

/// How often a phase's requests in flight on the device are looked at.
pub const IN_FLIGHT_TICK: Duration = Duration::from_millis(10);

/// What the device did during one phase, from its block-layer counters (JSON `device_io`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DeviceIo {
    /// The kernel's name of the block device counted, e.g. `mmcblk0p2`, `vda`, `loop3`.
    pub device: String,
    /// Bytes read from the device, u64 (read sectors × 512).
    pub read_bytes: u64,
    /// Bytes written to the device, u64 (written sectors × 512).
    pub written_bytes: u64,
    /// Read requests the device completed (after the block layer merged them), u64.
    pub reads: u64,
    /// Write requests the device completed (after merging), u64.
    pub writes: u64,
    /// Most requests seen in flight on the device at once while the phase ran, looked at
    /// every 10 ms; `None` where the engine cannot look while it runs (fio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight_max: Option<u64>,
}

impl DeviceIo {
    /// The bytes the device moved in the direction of a reading (`write == false`) or writing
    /// phase.
    pub fn bytes_for(&self, write: bool) -> u64 {
        if write {
            self.written_bytes
        } else {
            self.read_bytes
        }
    }
}

/// One reading of a device's `stat` file: the fields a phase's [`DeviceIo`] is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockStat {
    /// Field 1: read requests completed.
    pub reads: u64,
    /// Field 3: sectors read (512 bytes each).
    pub read_sectors: u64,
    /// Field 5: write requests completed.
    pub writes: u64,
    /// Field 7: sectors written (512 bytes each).
    pub write_sectors: u64,
    /// Field 9: requests in flight now.
    pub in_flight: u64,
}

impl BlockStat {
    /// Parses the text of a `stat` file (at least 9 whitespace-separated decimal fields);
    /// `None` when it is not one.
    pub fn parse(text: &str) -> Option<BlockStat> {
        let fields: Vec<u64> = text
            .split_whitespace()
            .take(9)
            .map(|f| f.parse().ok())
            .collect::<Option<_>>()?;
        (fields.len() == 9).then(|| BlockStat {
            reads: fields[0],
            read_sectors: fields[2],
            writes: fields[4],
            write_sectors: fields[6],
            in_flight: fields[8],
        })
    }

    /// What the device did from `self` to `later`, as `device`'s [`DeviceIo`]. A counter
    /// that went down wrapped at 2^32 (an `unsigned long` on a 32-bit kernel) when it was
    /// below that, else it was reset and counts 0.
    pub fn until(&self, later: &BlockStat, device: &str, in_flight_max: Option<u64>) -> DeviceIo {
        DeviceIo {
            device: device.to_owned(),
            read_bytes: delta(self.read_sectors, later.read_sectors).saturating_mul(SECTOR_BYTES),
            written_bytes: delta(self.write_sectors, later.write_sectors)
                .saturating_mul(SECTOR_BYTES),
            reads: delta(self.reads, later.reads),
            writes: delta(self.writes, later.writes),
            in_flight_max,
        }
    }
}

/// `after - before` for a counter that may have wrapped at 2^32.
fn delta(before: u64, after: u64) -> u64 {
    if after >= before {
        after - before
    } else if before <= u64::from(u32::MAX) {
        after + (1u64 << 32) - before
    } else {
        0
    }
}

/// The block device a file's filesystem is on, by its counters' file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDevice {
    /// The kernel's name, e.g. `mmcblk0p2`.
    pub name: String,
    /// Major and minor number.
    pub maj_min: (u64, u64),
    /// Its `stat` file.
    pub stat: PathBuf,
}

impl BlockDevice {
    /// The device of the filesystem holding the open file `fd`, found under `sysfs_root`
    /// (`/sys` on a running system); `None` when the filesystem has no block device (major 0:
    /// tmpfs, NFS, overlay, btrfs) or its counters cannot be read.
    pub fn of_file(fd: BorrowedFd<'_>, sysfs_root: &Path) -> Option<BlockDevice> {
        // SAFETY: fstat on a valid descriptor into a zeroed stat buffer.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return None;
        }
        BlockDevice::of_dev(st.st_dev as u64, sysfs_root)
    }

    /// The block device with device number `dev` (a `dev_t`) under `sysfs_root`; `None` for
    /// major 0 or when sysfs has no readable `stat` for it.
    pub fn of_dev(dev: u64, sysfs_root: &Path) -> Option<BlockDevice> {
        let (major, minor) = maj_min(dev);
        BlockDevice::of_number(major, minor, sysfs_root)
    }

    /// The block device `MAJ:MIN` as the kernel prints it (such as `179:2`) under
    /// `sysfs_root`; `None` when it is not such a number, major 0, or sysfs has no readable
    /// `stat` for it.
    pub fn of_maj_min(text: &str, sysfs_root: &Path) -> Option<BlockDevice> {
        let (major, minor) = text.trim().split_once(':')?;
        BlockDevice::of_number(major.parse().ok()?, minor.parse().ok()?, sysfs_root)
    }

    /// The block device numbered `major`:`minor` under `sysfs_root`; `None` for major 0 or
    /// when sysfs has no readable `stat` for it.
    pub fn of_number(major: u64, minor: u64, sysfs_root: &Path) -> Option<BlockDevice> {
        if major == 0 {
            return None;
        }
        let dir = sysfs_root.join(format!("dev/block/{major}:{minor}"));
        let name = read_attr(&dir.join("uevent"))
            .and_then(|u| {
                u.lines()
                    .find_map(|l| l.strip_prefix("DEVNAME=").map(str::to_owned))
            })
            .or_else(|| {
                std::fs::canonicalize(&dir)
                    .ok()?
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            })?;
        let device = BlockDevice {
            name,
            maj_min: (major, minor),
            stat: dir.join("stat"),
        };
        device.read().ok()?;
        Some(device)
    }

    /// Reads the counters now.
    ///
    /// Errors: the `stat` file cannot be read (the device went away) or is not one.
    pub fn read(&self) -> std::io::Result<BlockStat> {
        let text = std::fs::read_to_string(&self.stat)?;
        BlockStat::parse(&text).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{} is not a block device's stat file", self.stat.display()),
            )
        })
    }
}

/// The counters of one phase while it runs: read at [`PhaseCounters::start`], and every
/// [`IN_FLIGHT_TICK`] on a thread of its own for the most requests in flight, until
/// [`PhaseCounters::finish`].
#[derive(Debug)]
pub struct PhaseCounters {
    device: BlockDevice,
    before: BlockStat,
    stop: Arc<AtomicBool>,
    max: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl PhaseCounters {
    /// Reads `device`'s counters and starts watching its requests in flight; `None` when the
    /// counters cannot be read.
    pub fn start(device: &BlockDevice) -> Option<PhaseCounters> {
        let before = device.read().ok()?;
        let stop = Arc::new(AtomicBool::new(false));
        let max = Arc::new(AtomicU64::new(before.in_flight));
        let thread = {
            let (stop, max, device) = (Arc::clone(&stop), Arc::clone(&max), device.clone());
            std::thread::Builder::new()
                .name("device-in-flight".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        if let Ok(now) = device.read() {
                            max.fetch_max(now.in_flight, Ordering::Relaxed);
                        }
                        std::thread::park_timeout(IN_FLIGHT_TICK);
                    }
                })
                .ok()
        };
        Some(PhaseCounters {
            device: device.clone(),
            before,
            stop,
            max,
            thread,
        })
    }

    /// Stops watching and reads the counters again: what the device did since
    /// [`PhaseCounters::start`] (with `in_flight_max` when the watching thread ran), or `None`
    /// when the counters can no longer be read.
    pub fn finish(mut self) -> Option<DeviceIo> {
        let in_flight_max = self.stop_watching();
        let after = self.device.read().ok()?;
        let max = in_flight_max.map(|m| m.max(after.in_flight));
        Some(self.before.until(&after, &self.device.name, max))
    }

    fn stop_watching(&mut self) -> Option<u64> {
        let thread = self.thread.take()?;
        self.stop.store(true, Ordering::Relaxed);
        thread.thread().unpark();
        thread.join().ok()?;
        Some(self.max.load(Ordering::Relaxed))
    }
}

impl Drop for PhaseCounters {
    fn drop(&mut self) {
        let _ = self.stop_watching();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "  141813    10433  6703154   238687   153785    42445 22729390   166807        3    70904   411647    23954       11  1733352     5713     7314      439\n";

    #[test]
    fn a_stat_line_gives_requests_sectors_and_in_flight() {
        let s = BlockStat::parse(STAT).unwrap();
        assert_eq!(
            s,
            BlockStat {
                reads: 141813,
                read_sectors: 6703154,
                writes: 153785,
                write_sectors: 22729390,
                in_flight: 3,
            }
        );
        // Kernels before 4.18 print 11 fields; 9 are enough.
        assert!(BlockStat::parse("1 2 3 4 5 6 7 8 9").is_some());
        assert!(BlockStat::parse("1 2 3 4 5 6 7 8").is_none());
        assert!(BlockStat::parse("1 2 3 4 x 6 7 8 9 10 11").is_none());
    }

    #[test]
    fn a_phase_is_the_difference_in_bytes_and_requests() {
        let before = BlockStat::parse(STAT).unwrap();
        let after = BlockStat {
            reads: before.reads + 2,
            read_sectors: before.read_sectors + 16,
            writes: before.writes + 50,
            write_sectors: before.write_sectors + 131_096,
            in_flight: 0,
        };
        let io = before.until(&after, "vda", Some(8));
        assert_eq!(
            io,
            DeviceIo {
                device: "vda".into(),
                read_bytes: 8192,
                written_bytes: 67_121_152,
                reads: 2,
                writes: 50,
                in_flight_max: Some(8),
            }
        );
        assert_eq!(io.bytes_for(true), 67_121_152);
        assert_eq!(io.bytes_for(false), 8192);
    }

    #[test]
    fn a_32_bit_counter_that_wrapped_still_counts() {
        let before = BlockStat {
            write_sectors: u64::from(u32::MAX) - 7,
            ..BlockStat::default()
        };
        let after = BlockStat {
            write_sectors: 8,
            ..BlockStat::default()
        };
        assert_eq!(
            before.until(&after, "mmcblk0p2", None).written_bytes,
            16 * 512
        );
        // A 64-bit counter never wraps: one that went down was reset.
        let big = BlockStat {
            write_sectors: 1 << 40,
            ..BlockStat::default()
        };
        assert_eq!(big.until(&after, "sda1", None).written_bytes, 0);
    }

    #[test]
    fn no_block_device_behind_a_major_0_filesystem() {
        assert_eq!(BlockDevice::of_dev(0x2d, Path::new("/sys")), None);
    }

    #[test]
    fn a_device_in_a_sysfs_tree_is_found_by_its_number() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("dev/block/179:2");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("uevent"),
            "MAJOR=179\nMINOR=2\nDEVNAME=mmcblk0p2\n",
        )
        .unwrap();
        std::fs::write(dir.join("stat"), STAT).unwrap();
        let dev = BlockDevice::of_dev(libc::makedev(179, 2), root.path()).unwrap();
        assert_eq!(dev.name, "mmcblk0p2");
        assert_eq!(dev.maj_min, (179, 2));
        assert_eq!(dev.read().unwrap().writes, 153785);
        assert_eq!(BlockDevice::of_maj_min("179:2\n", root.path()), Some(dev));
        assert_eq!(BlockDevice::of_maj_min("179", root.path()), None);
        // No stat file: no counters.
        std::fs::remove_file(dir.join("stat")).unwrap();
        assert_eq!(
            BlockDevice::of_dev(libc::makedev(179, 2), root.path()),
            None
        );
    }
}
