//! A cgroup that throttles one block device, so that a test device has a speed known by
//! construction: a cgroup-v1 `blkio` group (`blkio.throttle.*_device`), or a cgroup-v2 group
//! with the `io` controller (`io.max`), whichever this machine's hierarchy offers. cgroup v2 is
//! the default on Debian 12 and Raspberry Pi OS; v1 is found on older or hybrid set-ups.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::is_root;

/// Where cgroup v1's blkio controller is mounted.
pub const BLKIO_ROOT: &str = "/sys/fs/cgroup/blkio";

/// Where the cgroup-v2 (unified) hierarchy is mounted when it is the only one.
pub const CGROUP2_ROOT: &str = "/sys/fs/cgroup";

/// The four throttles of a group for one device; a zero is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Throttle {
    /// Writes, bytes per second (v1 `blkio.throttle.write_bps_device`, v2 `wbps`).
    pub write_bps: u64,
    /// Reads, bytes per second (v1 `blkio.throttle.read_bps_device`, v2 `rbps`).
    pub read_bps: u64,
    /// Writes, operations per second (v1 `blkio.throttle.write_iops_device`, v2 `wiops`).
    pub write_iops: u64,
    /// Reads, operations per second (v1 `blkio.throttle.read_iops_device`, v2 `riops`).
    pub read_iops: u64,
}

/// Which cgroup hierarchy a throttle lives in, and its root folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hierarchy {
    /// cgroup v1's `blkio` controller, mounted at the folder.
    V1(PathBuf),
    /// The cgroup-v2 hierarchy mounted at the folder, with the `io` controller available.
    V2(PathBuf),
}

impl Hierarchy {
    /// The hierarchy of this machine that can throttle a device: cgroup v2 at
    /// [`CGROUP2_ROOT`] when it is mounted there with the `io` controller, else cgroup v1's
    /// blkio at [`BLKIO_ROOT`]; `Err` with the reason when neither is there.
    pub fn detect() -> Result<Hierarchy, &'static str> {
        Hierarchy::detect_in(Path::new(CGROUP2_ROOT), Path::new(BLKIO_ROOT))
    }

    /// As [`detect`](Hierarchy::detect), with the two places given (a fixture folder in tests).
    pub fn detect_in(v2_root: &Path, v1_blkio: &Path) -> Result<Hierarchy, &'static str> {
        // A cgroup2 mount has cgroup.controllers at its root; a v1 (or hybrid) set-up has a
        // tmpfs of per-controller mounts there instead.
        if let Ok(controllers) = std::fs::read_to_string(v2_root.join("cgroup.controllers")) {
            if controllers.split_whitespace().any(|c| c == "io") {
                return Ok(Hierarchy::V2(v2_root.to_path_buf()));
            }
        }
        if v1_blkio.join("blkio.throttle.write_iops_device").exists() {
            return Ok(Hierarchy::V1(v1_blkio.to_path_buf()));
        }
        if v2_root.join("cgroup.controllers").exists() {
            Err("needs the io controller of cgroup v2 (not in /sys/fs/cgroup/cgroup.controllers)")
        } else {
            Err("needs cgroup v2 with the io controller, or cgroup v1's blkio at /sys/fs/cgroup/blkio")
        }
    }

    /// The hierarchy's root folder.
    pub fn root(&self) -> &Path {
        match self {
            Hierarchy::V1(root) | Hierarchy::V2(root) => root,
        }
    }
}

/// A cgroup limiting one device, made under the root of its [`Hierarchy`]. Removed on drop,
/// after moving any process left in it (this one included) back to the root group.
#[derive(Debug)]
pub struct BlkioThrottle {
    /// The group's folder.
    pub dir: PathBuf,
    /// The hierarchy it is in.
    pub hierarchy: Hierarchy,
}

impl BlkioThrottle {
    /// Why the throttle cannot be made here, if it cannot: not root, or neither cgroup v2 with
    /// the io controller nor cgroup v1's blkio.
    pub fn unavailable() -> Option<&'static str> {
        if !is_root() {
            return Some("needs root (loop device, mount, cgroup)");
        }
        Hierarchy::detect().err()
    }

    /// A new group limiting device `maj_min` (`"7:0"`) as `throttle` says, in this machine's
    /// hierarchy ([`Hierarchy::detect`]).
    ///
    /// # Panics
    /// When there is no hierarchy to throttle with, or the group cannot be made or a limit
    /// cannot be written (the group is removed).
    pub fn new(maj_min: &str, throttle: Throttle) -> BlkioThrottle {
        let hierarchy = Hierarchy::detect().unwrap_or_else(|reason| panic!("{reason}"));
        BlkioThrottle::new_in(hierarchy, maj_min, throttle)
    }

    /// A new group limiting `maj_min` in `hierarchy`. For cgroup v2 the `io` controller is
    /// first enabled for the root's children (`+io` in its `cgroup.subtree_control`, unless
    /// already there; it is left enabled, as systemd has it); the group then gets one line in
    /// `io.max`: `MAJ:MIN riops=N wiops=N rbps=N wbps=N` (`max` for no limit). For v1 each
    /// non-zero limit is written as `MAJ:MIN N` to its `blkio.throttle.*_device` file.
    ///
    /// # Panics
    /// When the group cannot be made or a limit cannot be written (the group is removed).
    pub fn new_in(hierarchy: Hierarchy, maj_min: &str, throttle: Throttle) -> BlkioThrottle {
        if let Hierarchy::V2(root) = &hierarchy {
            enable_io(root).unwrap_or_else(|e| {
                panic!(
                    "enable io in {}/cgroup.subtree_control: {e}",
                    root.display()
                )
            });
        }
        let dir = hierarchy.root().join(format!(
            "agnostics-test-{}-{:08x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let group = BlkioThrottle { dir, hierarchy };
        for (file, line) in limit_lines(&group.hierarchy, maj_min, throttle) {
            let path = group.dir.join(file);
            std::fs::write(&path, line).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
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

/// Reads and writes done on one block device: by its own counters (`/sys/block/NAME/stat`)
/// or as a cgroup accounted them ([`BlkioThrottle::io_count`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoCount {
    /// Read requests completed.
    pub read_ios: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Write requests completed.
    pub write_ios: u64,
    /// Bytes written.
    pub write_bytes: u64,
}

impl IoCount {
    /// From the text of `/sys/block/NAME/stat` (fields 1, 3, 5 and 7: read I/Os, read
    /// sectors, write I/Os, write sectors; a sector is 512 bytes there whatever the device's
    /// sector size); `None` when it has fewer fields or one is not a number.
    pub fn from_block_stat(text: &str) -> Option<IoCount> {
        let fields: Vec<u64> = text
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        Some(IoCount {
            read_ios: *fields.first()?,
            read_bytes: fields.get(2)? * 512,
            write_ios: *fields.get(4)?,
            write_bytes: fields.get(6)? * 512,
        })
    }

    /// The counts after `earlier`, field by field (saturating at zero).
    pub fn since(&self, earlier: &IoCount) -> IoCount {
        IoCount {
            read_ios: self.read_ios.saturating_sub(earlier.read_ios),
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            write_ios: self.write_ios.saturating_sub(earlier.write_ios),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
        }
    }
}

impl BlkioThrottle {
    /// What this group has done on device `maj_min` so far: cgroup v2's `io.stat` line
    /// (`rbytes`, `wbytes`, `rios`, `wios`), or v1's `blkio.throttle.io_service_bytes` and
    /// `blkio.throttle.io_serviced` (`Read` and `Write` lines). Zero when the device has no
    /// line yet.
    ///
    /// # Panics
    /// When the group's files cannot be read.
    pub fn io_count(&self, maj_min: &str) -> IoCount {
        let read = |file: &str| {
            let path = self.dir.join(file);
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        match self.hierarchy {
            Hierarchy::V2(_) => v2_io_count(&read("io.stat"), maj_min),
            Hierarchy::V1(_) => {
                let (read_bytes, write_bytes) =
                    v1_read_write(&read("blkio.throttle.io_service_bytes"), maj_min);
                let (read_ios, write_ios) =
                    v1_read_write(&read("blkio.throttle.io_serviced"), maj_min);
                IoCount {
                    read_ios,
                    read_bytes,
                    write_ios,
                    write_bytes,
                }
            }
        }
    }
}

/// The counts of `maj_min` in cgroup v2's `io.stat` (`MAJ:MIN rbytes=N wbytes=N rios=N …`).
fn v2_io_count(text: &str, maj_min: &str) -> IoCount {
    let mut count = IoCount::default();
    let Some(line) = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(maj_min))
    else {
        return count;
    };
    for pair in line.split_whitespace().skip(1) {
        let Some((key, value)) = pair.split_once('=') else {
            continue;
        };
        let value = value.parse().unwrap_or(0);
        match key {
            "rbytes" => count.read_bytes = value,
            "wbytes" => count.write_bytes = value,
            "rios" => count.read_ios = value,
            "wios" => count.write_ios = value,
            _ => {}
        }
    }
    count
}

/// The `Read` and `Write` values of `maj_min` in a cgroup-v1 blkio file (`MAJ:MIN Read N`).
fn v1_read_write(text: &str, maj_min: &str) -> (u64, u64) {
    let (mut read, mut write) = (0, 0);
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some(maj_min) {
            continue;
        }
        match (words.next(), words.next().and_then(|v| v.parse().ok())) {
            (Some("Read"), Some(v)) => read = v,
            (Some("Write"), Some(v)) => write = v,
            _ => {}
        }
    }
    (read, write)
}

/// Adds `io` to `root/cgroup.subtree_control` unless it is already enabled there.
fn enable_io(root: &Path) -> std::io::Result<()> {
    let control = root.join("cgroup.subtree_control");
    let enabled = std::fs::read_to_string(&control)?;
    if enabled.split_whitespace().any(|c| c == "io") {
        return Ok(());
    }
    std::fs::write(&control, "+io")
}

/// The files of a group to write and the line for each, for `throttle` of device `maj_min`.
fn limit_lines(hierarchy: &Hierarchy, maj_min: &str, t: Throttle) -> Vec<(&'static str, String)> {
    match hierarchy {
        Hierarchy::V2(_) => {
            let limit = |v: u64| {
                if v == 0 {
                    "max".to_owned()
                } else {
                    v.to_string()
                }
            };
            vec![(
                "io.max",
                format!(
                    "{maj_min} riops={} wiops={} rbps={} wbps={}\n",
                    limit(t.read_iops),
                    limit(t.write_iops),
                    limit(t.read_bps),
                    limit(t.write_bps)
                ),
            )]
        }
        Hierarchy::V1(_) => [
            ("blkio.throttle.write_bps_device", t.write_bps),
            ("blkio.throttle.read_bps_device", t.read_bps),
            ("blkio.throttle.write_iops_device", t.write_iops),
            ("blkio.throttle.read_iops_device", t.read_iops),
        ]
        .into_iter()
        .filter(|(_, value)| *value != 0)
        .map(|(file, value)| (file, format!("{maj_min} {value}\n")))
        .collect(),
    }
}

impl Drop for BlkioThrottle {
    fn drop(&mut self) {
        // Processes still in the group would keep it (and the mount) busy.
        if let Ok(procs) = std::fs::read_to_string(self.dir.join("cgroup.procs")) {
            for pid in procs.split_whitespace() {
                let _ = std::fs::write(self.hierarchy.root().join("cgroup.procs"), pid);
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

#[cfg(test)]
mod tests {
    //! The parts that do not need a kernel, on fixture folders laid out as cgroupfs is (this
    //! machine has cgroup v1's blkio; a cgroup2 mount here gets no io controller, which v1
    //! holds). The v1 throttle itself is measured by the throttled tests of core and cli.

    use super::*;

    const T: Throttle = Throttle {
        write_bps: 12 << 20,
        read_bps: 0,
        write_iops: 400,
        read_iops: 1200,
    };

    fn v2_fixture(controllers: &str, subtree: &str) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("cgroup.controllers"), controllers).unwrap();
        std::fs::write(root.path().join("cgroup.subtree_control"), subtree).unwrap();
        root
    }

    #[test]
    fn v2_with_io_is_chosen_over_v1() {
        let v2 = v2_fixture("cpuset cpu io memory pids\n", "");
        let v1 = tempfile::tempdir().unwrap();
        std::fs::write(v1.path().join("blkio.throttle.write_iops_device"), "").unwrap();
        assert_eq!(
            Hierarchy::detect_in(v2.path(), v1.path()),
            Ok(Hierarchy::V2(v2.path().to_path_buf()))
        );
    }

    #[test]
    fn v2_without_io_falls_back_to_v1_or_says_why() {
        // A hybrid set-up: cgroup2 mounted, io bound to v1's blkio.
        let v2 = v2_fixture("hugetlb\n", "");
        let v1 = tempfile::tempdir().unwrap();
        assert!(Hierarchy::detect_in(v2.path(), v1.path())
            .unwrap_err()
            .contains("io controller"));
        std::fs::write(v1.path().join("blkio.throttle.write_iops_device"), "").unwrap();
        assert_eq!(
            Hierarchy::detect_in(v2.path(), v1.path()),
            Ok(Hierarchy::V1(v1.path().to_path_buf()))
        );
        let none = tempfile::tempdir().unwrap();
        assert!(Hierarchy::detect_in(none.path(), none.path())
            .unwrap_err()
            .contains("blkio"));
    }

    #[test]
    fn io_is_enabled_for_the_children_unless_it_already_is() {
        let root = v2_fixture("cpu io memory\n", "cpu memory\n");
        enable_io(root.path()).unwrap();
        // The kernel takes "+io" and lists "cpu io memory" afterwards; the fixture keeps what
        // was written.
        assert_eq!(
            std::fs::read_to_string(root.path().join("cgroup.subtree_control")).unwrap(),
            "+io"
        );
        let enabled = v2_fixture("cpu io memory\n", "cpu io memory\n");
        enable_io(enabled.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(enabled.path().join("cgroup.subtree_control")).unwrap(),
            "cpu io memory\n"
        );
    }

    #[test]
    fn v2_writes_one_io_max_line_with_max_for_no_limit() {
        let v2 = Hierarchy::V2(PathBuf::from("/sys/fs/cgroup"));
        assert_eq!(
            limit_lines(&v2, "7:3", T),
            [(
                "io.max",
                "7:3 riops=1200 wiops=400 rbps=max wbps=12582912\n".to_owned()
            )]
        );
    }

    #[test]
    fn io_counts_are_read_from_each_format() {
        let v1 = "7:3 Read 8192\n7:3 Write 1048576\n7:3 Sync 0\n7:30 Write 5\nTotal 1056768\n";
        assert_eq!(v1_read_write(v1, "7:3"), (8192, 1 << 20));
        assert_eq!(v1_read_write(v1, "7:4"), (0, 0));
        let v2 = "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0\n\
                  7:3 rbytes=4096 wbytes=65536 rios=1 wios=16 dbytes=0 dios=0\n";
        assert_eq!(
            v2_io_count(v2, "7:3"),
            IoCount {
                read_ios: 1,
                read_bytes: 4096,
                write_ios: 16,
                write_bytes: 65536
            }
        );
        let stat =
            "     120        0     9600       40       32        0      256       10        0";
        let count = IoCount::from_block_stat(stat).unwrap();
        assert_eq!(
            count,
            IoCount {
                read_ios: 120,
                read_bytes: 9600 * 512,
                write_ios: 32,
                write_bytes: 256 * 512
            }
        );
        assert_eq!(count.since(&count), IoCount::default());
        assert_eq!(IoCount::from_block_stat("1 2"), None);
    }

    #[test]
    fn v1_writes_each_nonzero_limit_to_its_file() {
        let v1 = Hierarchy::V1(PathBuf::from(BLKIO_ROOT));
        assert_eq!(
            limit_lines(&v1, "7:3", T),
            [
                (
                    "blkio.throttle.write_bps_device",
                    "7:3 12582912\n".to_owned()
                ),
                ("blkio.throttle.write_iops_device", "7:3 400\n".to_owned()),
                ("blkio.throttle.read_iops_device", "7:3 1200\n".to_owned()),
            ]
        );
    }

    #[test]
    fn a_v2_group_is_made_under_the_root_with_io_enabled_and_its_limit() {
        let root = v2_fixture("cpu io memory\n", "\n");
        let group = BlkioThrottle::new_in(Hierarchy::V2(root.path().to_path_buf()), "7:3", T);
        assert_eq!(group.dir.parent(), Some(root.path()));
        assert_eq!(
            std::fs::read_to_string(group.dir.join("io.max")).unwrap(),
            "7:3 riops=1200 wiops=400 rbps=max wbps=12582912\n"
        );
        assert_eq!(
            std::fs::read_to_string(root.path().join("cgroup.subtree_control")).unwrap(),
            "+io"
        );
        // On cgroupfs the interface files go with the folder; here they are plain files, so
        // empty the folder for Drop's rmdir.
        std::fs::remove_file(group.dir.join("io.max")).unwrap();
        let dir = group.dir.clone();
        drop(group);
        assert!(!dir.exists());
    }
}
