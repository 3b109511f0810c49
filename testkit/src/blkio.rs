//! A cgroup-v1 blkio group that throttles one block device (DESIGN.md, "Testing against a card
//! whose speed is known").

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::is_root;

/// Where cgroup v1's blkio controller is mounted.
pub const BLKIO_ROOT: &str = "/sys/fs/cgroup/blkio";

/// The four throttles of a blkio group for one device; a zero is not written (no limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Throttle {
    /// Writes, bytes per second (`blkio.throttle.write_bps_device`).
    pub write_bps: u64,
    /// Reads, bytes per second (`blkio.throttle.read_bps_device`).
    pub read_bps: u64,
    /// Writes, operations per second (`blkio.throttle.write_iops_device`).
    pub write_iops: u64,
    /// Reads, operations per second (`blkio.throttle.read_iops_device`).
    pub read_iops: u64,
}

/// A blkio group under [`BLKIO_ROOT`] limiting one device. Removed on drop, after moving any
/// process left in it (this one included) back to the root group.
#[derive(Debug)]
pub struct BlkioThrottle {
    /// The group's folder.
    pub dir: PathBuf,
}

impl BlkioThrottle {
    /// Why the throttle cannot be made here, if it cannot: not root, or no cgroup-v1 blkio
    /// controller with throttling.
    pub fn unavailable() -> Option<&'static str> {
        if !is_root() {
            return Some("needs root (loop device, mount, cgroup)");
        }
        if !Path::new(BLKIO_ROOT)
            .join("blkio.throttle.write_iops_device")
            .exists()
        {
            return Some("needs the cgroup-v1 blkio controller at /sys/fs/cgroup/blkio");
        }
        None
    }

    /// A new group limiting device `maj_min` (`"7:0"`) as `throttle` says.
    ///
    /// # Panics
    /// When the group cannot be made or a limit cannot be written (the group is removed).
    pub fn new(maj_min: &str, throttle: Throttle) -> BlkioThrottle {
        let dir = Path::new(BLKIO_ROOT).join(format!(
            "agnostics-test-{}-{:08x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let group = BlkioThrottle { dir };
        for (file, value) in [
            ("blkio.throttle.write_bps_device", throttle.write_bps),
            ("blkio.throttle.read_bps_device", throttle.read_bps),
            ("blkio.throttle.write_iops_device", throttle.write_iops),
            ("blkio.throttle.read_iops_device", throttle.read_iops),
        ] {
            if value == 0 {
                continue;
            }
            let path = group.dir.join(file);
            std::fs::write(&path, format!("{maj_min} {value}\n"))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        group
    }

    /// Moves process `pid` (and so the threads and children it starts afterwards) into the
    /// group.
    ///
    /// # Panics
    /// When `cgroup.procs` cannot be written.
    pub fn add_process(&self, pid: u32) {
        let path = self.dir.join("cgroup.procs");
        std::fs::write(&path, pid.to_string())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    /// A command that runs `program args…` inside the group: a shell moves itself into it,
    /// then execs the program (so the program and its children are throttled from the start).
    pub fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg("echo $$ > \"$0\" && exec \"$@\"")
            .arg(self.dir.join("cgroup.procs"))
            .arg(program);
        cmd
    }
}

impl Drop for BlkioThrottle {
    fn drop(&mut self) {
        // Processes still in the group would keep it (and the mount) busy.
        if let Ok(procs) = std::fs::read_to_string(self.dir.join("cgroup.procs")) {
            for pid in procs.split_whitespace() {
                let _ = std::fs::write(Path::new(BLKIO_ROOT).join("cgroup.procs"), pid);
            }
        }
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("could not remove the cgroup {}", self.dir.display());
    }
}
