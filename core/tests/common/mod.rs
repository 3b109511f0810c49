//! Helpers shared by the engine tests: scratch directories on a real disk, small profiles,
//! an event recorder, and (as root) a small loop-mounted ext4 filesystem that is torn down on
//! drop.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{self, EngineError, EngineKind, Event, PhaseResult, RunContext};
use agnostics_core::profile::Profile;

/// Translation catalogues and locales for the i18n tests (also used by cli/tests).
pub mod locale;
/// A reader of the `.po` catalogues (also used by cli/tests).
pub mod po;

/// A scratch directory on the real disk (/var/tmp is ext4 here, not tmpfs).
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("agnostics-engine-test.")
        .tempdir_in("/var/tmp")
        .expect("a scratch directory under /var/tmp")
}

/// Parses a profile text, panicking with the parser's message on error.
pub fn profile(text: &str) -> Profile {
    Profile::parse(text, "test.fio", None).unwrap_or_else(|e| panic!("bad test profile: {e}"))
}

/// A small version of the standard test: `size`, iodepth 8, 1 MiB sequential blocks, 4 KiB
/// random blocks limited to `runtime` seconds.
pub fn small_standard(size: &str, runtime: u32) -> Profile {
    profile(&format!(
        "[global]\nioengine=libaio\ndirect=1\niodepth=8\nsize={size}\nend_fsync=1\n\n\
         [prepare-file]\nrw=write\nbs=512k\nstonewall\n\n\
         [seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime={runtime}\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=4k\nruntime={runtime}\nstonewall\n"
    ))
}

/// Collects every event an engine sends.
#[derive(Debug, Default)]
pub struct Recorder {
    pub events: Mutex<Vec<Event>>,
}

impl Recorder {
    pub fn push(&self, e: Event) {
        self.events.lock().unwrap().push(e);
    }
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut self.events.lock().unwrap())
    }
}

/// What one engine run gave.
#[derive(Debug)]
pub struct Outcome {
    pub result: Result<Vec<PhaseResult>, EngineError>,
    pub events: Vec<Event>,
    pub io_path: String,
}

/// Runs `profile` with `kind` on `file`; `on_event` sees each event before it is recorded
/// (to set `cancel`, for instance).
pub fn run_engine(
    kind: EngineKind,
    profile: &Profile,
    file: &TestFile,
    cancel: &AtomicBool,
    on_event: &(dyn Fn(&Event) + Sync),
) -> Outcome {
    let recorder = Recorder::default();
    let sink = |e: Event| {
        on_event(&e);
        recorder.push(e);
    };
    let ctx = RunContext {
        run: 1,
        cancel,
        on_event: &sink,
    };
    let mut io_path = String::new();
    let result = engine::run_profile(kind, profile, file, &ctx, &mut io_path);
    Outcome {
        result,
        events: recorder.take(),
        io_path,
    }
}

/// Names of the entries of `dir`.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// True when running as root (loop devices, mounts, cgroups).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A small ext4 filesystem on a loop device (direct I/O on), mounted on a scratch directory.
/// Torn down in reverse order on drop: unmount, detach, remove the image.
#[derive(Debug)]
pub struct LoopFs {
    pub image: PathBuf,
    pub device: String,
    pub mount: PathBuf,
    holder: Option<tempfile::TempDir>,
    mounted: bool,
}

impl LoopFs {
    /// An ext4 filesystem of `size_mib` MiB. Needs root.
    pub fn new(size_mib: u64) -> LoopFs {
        let holder = scratch_dir();
        let image = holder.path().join("disk.img");
        let mount = holder.path().join("mnt");
        std::fs::create_dir(&mount).unwrap();
        let f = std::fs::File::create(&image).unwrap();
        f.set_len(size_mib << 20).unwrap();
        drop(f);
        let mut fs = LoopFs {
            image: image.clone(),
            device: String::new(),
            mount: mount.clone(),
            holder: Some(holder),
            mounted: false,
        };
        fs.device = run(Command::new("losetup")
            .args(["--direct-io=on", "-f", "--show"])
            .arg(&image));
        run(Command::new("mkfs.ext4").args([
            "-q",
            "-F",
            "-E",
            "lazy_itable_init=0,lazy_journal_init=0",
            &fs.device,
        ]));
        run(Command::new("mount").arg(&fs.device).arg(&mount));
        fs.mounted = true;
        fs
    }

    /// The device's `MAJ:MIN`.
    pub fn maj_min(&self) -> String {
        use std::os::unix::fs::MetadataExt;
        let rdev = std::fs::metadata(&self.device).unwrap().rdev();
        format!("{}:{}", libc::major(rdev), libc::minor(rdev))
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(&self.mount).status();
        }
        if !self.device.is_empty() {
            let _ = Command::new("losetup").arg("-d").arg(&self.device).status();
        }
        let _ = std::fs::remove_file(&self.image);
        drop(self.holder.take());
    }
}

/// Where cgroup v1's blkio controller is mounted.
pub const BLKIO_ROOT: &str = "/sys/fs/cgroup/blkio";

/// A cgroup-v1 blkio group that throttles one block device (DESIGN.md, "Testing against a card
/// whose speed is known"). Removed on drop, after moving any process left in it back to the
/// root group.
#[derive(Debug)]
pub struct BlkioThrottle {
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

    /// A new group limiting device `maj_min` to these write/read IOPS and write bytes/s
    /// (reads unlimited in bytes).
    pub fn new(maj_min: &str, write_iops: u64, read_iops: u64, write_bps: u64) -> BlkioThrottle {
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
            ("blkio.throttle.write_iops_device", write_iops),
            ("blkio.throttle.read_iops_device", read_iops),
            ("blkio.throttle.write_bps_device", write_bps),
        ] {
            let path = group.dir.join(file);
            std::fs::write(&path, format!("{maj_min} {value}\n"))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        group
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

/// The throttled test's profile: the standard test's shape at 64 MiB, 5 s random phases.
pub const THROTTLED_PROFILE: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=32
size=64m
end_fsync=1

[prepare-file]
rw=write
bs=512k
stonewall

[seq-write]
rw=write
bs=4m
stonewall

[seq-read]
rw=read
bs=4m
stonewall

[rand-4k-write]
rw=randwrite
bs=4k
runtime=5
stonewall

[rand-4k-read]
rw=randread
bs=4k
runtime=5
stonewall
";

/// The throttle: 400 write IOPS, 1200 read IOPS, 12 MiB/s writes.
pub const WRITE_IOPS: u64 = 400;
pub const READ_IOPS: u64 = 1200;
pub const WRITE_BPS: u64 = 12 << 20;

/// Panics unless `measured` is within 10 % of `expected`.
pub fn assert_within_10_percent(what: &str, measured: f64, expected: f64) {
    let error = (measured - expected).abs() / expected;
    assert!(
        error <= 0.10,
        "{what}: measured {measured:.1}, throttle {expected:.1} ({:.1} % off)",
        error * 100.0
    );
}
