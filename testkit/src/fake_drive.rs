//! A fake SD card or USB stick: a real kernel block device (`/dev/loopN`) that claims more
//! capacity than it has, or loses writes, as counterfeit flash does.
//!
//! The layers, from the bottom up:
//! 1. a *backing file* of the real size in a scratch folder on disk ([`crate::scratch_dir`]),
//!    where the data physically lives ([`FakeDrive::backing_path`]);
//! 2. a FUSE file system served by a thread of this process ([`fuser`], mounted through
//!    `fusermount3`), holding one regular file of the *claimed* size, opened with
//!    `FOPEN_DIRECT_IO` so that no page cache hides what the [`Behaviour`] does: each read and
//!    write is split at [`FAKE_BLOCK`] boundaries and each block is mapped (or dropped) on its
//!    own;
//! 3. a loop device over that file (`losetup --sector-size 512`, direct I/O off), the block
//!    device a program under test opens; optionally
//! 4. an ext4 filesystem on it, laid out so that mkfs writes nothing past the first part
//!    of the device ([`FakeDriveBuilder::mounted`]); and
//! 5. a cgroup throttle on the loop device ([`FakeDriveBuilder::throttle`]), as
//!    [`crate::ThrottledDisk`] has, or a write cache that makes writes slow once it is full
//!    ([`FakeDriveBuilder::write_cache`]).
//!
//! The server lives as long as the [`FakeDrive`] guard, so another process doing I/O on the
//! device (and killed with SIGKILL halfway) does not disturb it. Dropping the guard undoes
//! everything in reverse order, even after a failed test. Everything needs root.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use crate::blkio::IoCount;
use crate::{run, BlkioThrottle, Skip, Throttle, CHILD_DIR_ENV, CHILD_TASK_ENV};

mod counters;
mod fuse_fs;
mod write_cache;

use counters::Counters;
pub use counters::Served;
pub use write_cache::WriteCache;

/// The unit the fake drive maps and loses: 4096 bytes. A read or write that spans block
/// boundaries is split, and each block is mapped on its own.
pub const FAKE_BLOCK: u64 = 4096;

/// The name of the one file in the FUSE file system, the loop device's backing file.
pub const FUSE_FILE_NAME: &str = "card.img";

/// How the fake drive maps what a program writes at a *claimed* offset (a byte offset on
/// `/dev/loopN`) to the backing file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// An honest drive: the real size is the claimed size and offset `P` is stored at `P`.
    Genuine,
    /// A drive with `real_bytes` of flash that claims more and wraps addresses: offset `P` is
    /// stored at `P mod real_bytes`, silently overwriting what was there. `real_bytes` must
    /// be a positive multiple of [`FAKE_BLOCK`], no more than the claimed size.
    Wrap {
        /// The real capacity, bytes.
        real_bytes: u64,
    },
    /// A drive as large as it claims that silently drops every write to a fixed,
    /// deterministic set of [`FAKE_BLOCK`] blocks: a read of such a block returns what the
    /// backing file held before (zeros unless a test wrote there through
    /// [`FakeDrive::backing_path`]). Other blocks are stored at their own offset. Which
    /// blocks are lost: [`Behaviour::loses_block`].
    Lossy {
        /// Chooses the set: the same seed loses the same blocks.
        seed: u64,
        /// How many blocks in a million are lost (0 to 1 000 000).
        lost_per_million: u32,
    },
}

impl Behaviour {
    /// The bytes of backing storage a drive claiming `claimed_bytes` really has.
    pub fn real_bytes(&self, claimed_bytes: u64) -> u64 {
        match *self {
            Behaviour::Wrap { real_bytes } => real_bytes,
            Behaviour::Genuine | Behaviour::Lossy { .. } => claimed_bytes,
        }
    }

    /// Where in the backing file the byte at claimed offset `offset` (bytes) is stored; for a
    /// lost block ([`loses_block`](Behaviour::loses_block)), where a read of it is taken from.
    pub fn physical_offset(&self, offset: u64) -> u64 {
        match *self {
            Behaviour::Wrap { real_bytes } => offset % real_bytes,
            Behaviour::Genuine | Behaviour::Lossy { .. } => offset,
        }
    }

    /// True when writes to block `block` (the claimed offset divided by [`FAKE_BLOCK`]) are
    /// silently dropped. Only [`Behaviour::Lossy`] loses blocks: those whose index, hashed
    /// with the seed, falls among `lost_per_million` of a million values.
    pub fn loses_block(&self, block: u64) -> bool {
        match *self {
            Behaviour::Lossy {
                seed,
                lost_per_million,
            } => {
                mix(seed ^ block.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % 1_000_000
                    < u64::from(lost_per_million)
            }
            Behaviour::Genuine | Behaviour::Wrap { .. } => false,
        }
    }

    /// The lost blocks (indices of [`FAKE_BLOCK`] blocks) of a drive claiming
    /// `claimed_bytes`, in order.
    pub fn lost_blocks(&self, claimed_bytes: u64) -> Vec<u64> {
        (0..claimed_bytes / FAKE_BLOCK)
            .filter(|&b| self.loses_block(b))
            .collect()
    }

    /// Why `claimed_bytes` and this behaviour make no drive, if they do not.
    fn invalid(&self, claimed_bytes: u64) -> Option<String> {
        if claimed_bytes == 0 || claimed_bytes % FAKE_BLOCK != 0 {
            return Some(format!(
                "claimed size {claimed_bytes} is not a positive multiple of {FAKE_BLOCK}"
            ));
        }
        match *self {
            Behaviour::Wrap { real_bytes }
                if real_bytes == 0
                    || real_bytes % FAKE_BLOCK != 0
                    || real_bytes > claimed_bytes =>
            {
                Some(format!(
                    "real size {real_bytes} is not a positive multiple of {FAKE_BLOCK} \
                     up to the claimed {claimed_bytes}"
                ))
            }
            Behaviour::Lossy {
                lost_per_million, ..
            } if lost_per_million > 1_000_000 => {
                Some(format!("{lost_per_million} lost blocks per million"))
            }
            _ => None,
        }
    }
}

/// A band of claimed addresses whose writes fail with EIO, as a worn-out part of a card's flash
/// does ([`FakeDriveBuilder::eio_band`]): each [`FAKE_BLOCK`] block in `range` takes its first
/// `writes_before` writes, and every later write to it fails (the whole request, nothing
/// stored). Reads are never refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EioBand {
    /// The claimed offsets, bytes.
    pub range: std::ops::Range<u64>,
    /// How many writes each block takes before refusing: 0 refuses every write.
    pub writes_before: u32,
}

/// SplitMix64's finaliser: a well-spread 64-bit hash of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// How to make a [`FakeDrive`]: its claimed size, behaviour, and the optional filesystem and
/// throttle.
#[derive(Debug, Clone)]
pub struct FakeDriveBuilder {
    claimed_bytes: u64,
    behaviour: Behaviour,
    throttle: Option<Throttle>,
    mounted: bool,
    files: Option<PathBuf>,
    band: Option<EioBand>,
    cache: Option<WriteCache>,
    direct_io: bool,
}

impl FakeDriveBuilder {
    /// Writes are fast until the cache is full, then slow, as [`WriteCache`] says. The loop
    /// device is then made with direct I/O (`losetup --direct-io=on`), so that the kernel
    /// tells a program under test that no page cache stands between it and the drive.
    pub fn write_cache(mut self, cache: WriteCache) -> FakeDriveBuilder {
        self.cache = Some(cache);
        self.direct_io = true;
        self
    }

    /// Writes in `band` fail with EIO ([`EioBand`]).
    pub fn eio_band(mut self, band: EioBand) -> FakeDriveBuilder {
        self.band = Some(band);
        self
    }

    /// Limits I/O to the loop device by processes in a new cgroup as `throttle` says
    /// ([`BlkioThrottle`]: cgroup v2 `io.max` or v1 blkio); run them with
    /// [`FakeDrive::command`] or [`FakeDrive::run_child`].
    pub fn throttle(mut self, throttle: Throttle) -> FakeDriveBuilder {
        self.throttle = Some(throttle);
        self
    }

    /// Formats the loop device as ext4 and mounts it on a scratch folder
    /// ([`FakeDrive::mount_dir`]). The layout keeps mkfs' writes in the first part of the
    /// device, as on a real fake card that works until it fills: 4 KiB blocks, no journal, no
    /// resize inode, no backup superblocks (`sparse_super2`, `num_backup_sb=0`), bitmaps and
    /// inode tables packed at the start (`flex_bg`, `packed_meta_blocks=1`), one inode per
    /// 256 KiB, inode tables left uninitialised (`lazy_itable_init=1`, mounted with
    /// `noinit_itable`), no discard. Files written after mounting may land anywhere, beyond a
    /// wrapping drive's real size too (where the drive already overwrites them): give the
    /// user's files with [`files`](FakeDriveBuilder::files) to have them kept.
    pub fn mounted(mut self) -> FakeDriveBuilder {
        self.mounted = true;
        self
    }

    /// With [`mounted`](FakeDriveBuilder::mounted): the file system is made holding a copy of
    /// the folder `dir` (`mkfs.ext4 -d`), whose files mkfs lays out right after the packed
    /// metadata, in the drive's first part: files a fake card really keeps.
    pub fn files(mut self, dir: &Path) -> FakeDriveBuilder {
        self.files = Some(dir.to_owned());
        self
    }

    /// Makes the drive: backing file, FUSE mount, loop device, then the filesystem and the
    /// throttle if asked for.
    ///
    /// # Errors
    /// [`Skip`] with the reason when this machine cannot make it: not root, no `/dev/fuse`,
    /// no `fusermount3` or `losetup` (or `mkfs.ext4` and `mount` for
    /// [`mounted`](FakeDriveBuilder::mounted)), no cgroup throttle for
    /// [`throttle`](FakeDriveBuilder::throttle).
    ///
    /// # Panics
    /// When the sizes are invalid (see [`Behaviour`]; the claimed size must be a positive
    /// multiple of [`FAKE_BLOCK`]) or a step fails (with the command's stderr); what was set
    /// up so far is undone.
    pub fn build(self) -> Result<FakeDrive, Skip> {
        FakeDrive::require()?;
        if self.mounted {
            for program in ["mkfs.ext4", "mount", "umount"] {
                crate::require_program(program)?;
            }
        }
        if self.throttle.is_some() {
            if let Some(reason) = BlkioThrottle::unavailable() {
                return Err(Skip(reason.to_owned()));
            }
        }
        if let Some(why) = self.behaviour.invalid(self.claimed_bytes) {
            panic!("fake drive: {why}");
        }
        Ok(self.make())
    }

    fn make(self) -> FakeDrive {
        let holder = crate::scratch_dir();
        let backing = holder.path().join("backing.img");
        let fuse_dir = holder.path().join("fuse");
        std::fs::create_dir(&fuse_dir).unwrap_or_else(|e| panic!("{}: {e}", fuse_dir.display()));
        let real_bytes = self.behaviour.real_bytes(self.claimed_bytes);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&backing)
            .and_then(|f| f.set_len(real_bytes).map(|()| f))
            .unwrap_or_else(|e| panic!("{}: {e}", backing.display()));
        let counters = Arc::new(Counters::default());
        let mut drive = FakeDrive {
            group: None,
            mount_dir: None,
            mounted: false,
            device: PathBuf::new(),
            session: None,
            fuse_file: fuse_dir.join(FUSE_FILE_NAME),
            fuse_dir,
            backing,
            holder: Some(holder),
            counters: counters.clone(),
            claimed_bytes: self.claimed_bytes,
            behaviour: self.behaviour,
        };
        let cache = self
            .cache
            .map(|c| Arc::new(write_cache::CacheState::new(c)));
        let fs = fuse_fs::FakeFs::new(file, self.claimed_bytes, self.behaviour, counters)
            .with_band(self.band.clone())
            .with_cache(cache.clone());
        drive.session = Some(fuse_fs::mount(fs, &drive.fuse_dir));
        drive.device = PathBuf::from(run(Command::new("losetup")
            .args([
                "--find",
                "--show",
                if self.direct_io {
                    "--direct-io=on"
                } else {
                    "--direct-io=off"
                },
                "--sector-size",
                "512",
            ])
            .arg(&drive.fuse_file)));
        if self.mounted {
            drive.format_and_mount(self.files.as_deref());
        }
        if let Some(cache) = cache {
            cache.arm(drive.served().written_bytes);
        }
        if let Some(throttle) = self.throttle {
            drive.group = Some(BlkioThrottle::new(&drive.maj_min(), throttle));
        }
        drive
    }
}

/// A fake drive made by [`FakeDriveBuilder::build`]: the guard of its backing file, FUSE
/// server, loop device and, if asked for, filesystem and cgroup. Dropping it undoes them in
/// reverse order (the cgroup first, so that nothing left in it is throttled while the rest
/// is undone): unmount the filesystem (lazily if busy), detach the loop device, unmount the
/// FUSE file system (`fusermount3 -u`, lazily with `-z` if busy), remove the files and
/// folders.
pub struct FakeDrive {
    group: Option<BlkioThrottle>,
    mount_dir: Option<PathBuf>,
    mounted: bool,
    device: PathBuf,
    session: Option<fuser::BackgroundSession>,
    fuse_dir: PathBuf,
    fuse_file: PathBuf,
    backing: PathBuf,
    holder: Option<tempfile::TempDir>,
    counters: Arc<Counters>,
    claimed_bytes: u64,
    behaviour: Behaviour,
}

impl std::fmt::Debug for FakeDrive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeDrive")
            .field("device", &self.device)
            .field("claimed_bytes", &self.claimed_bytes)
            .field("behaviour", &self.behaviour)
            .field("backing", &self.backing)
            .field("mount_dir", &self.mount_dir)
            .field("group", &self.group.as_ref().map(|g| &g.dir))
            .finish()
    }
}

impl FakeDrive {
    /// `Err(Skip)` with the reason when this machine cannot make a fake drive: not root, no
    /// `/dev/fuse`, no `fusermount3` (Debian's `fuse3`) or no `losetup`.
    pub fn require() -> Result<(), Skip> {
        crate::require_root("a FUSE mount and a loop device")?;
        crate::require_path(Path::new("/dev/fuse"), "the FUSE device")?;
        crate::require_program("fusermount3")?;
        crate::require_program("losetup")
    }

    /// A builder for a drive that claims `claimed_bytes` (a positive multiple of
    /// [`FAKE_BLOCK`]) and behaves as `behaviour` says.
    pub fn builder(claimed_bytes: u64, behaviour: Behaviour) -> FakeDriveBuilder {
        FakeDriveBuilder {
            claimed_bytes,
            behaviour,
            throttle: None,
            mounted: false,
            files: None,
            band: None,
            cache: None,
            direct_io: false,
        }
    }

    /// A bare drive (no filesystem, no throttle) claiming `claimed_bytes`.
    ///
    /// # Errors
    /// As [`FakeDriveBuilder::build`].
    ///
    /// # Panics
    /// As [`FakeDriveBuilder::build`].
    pub fn new(claimed_bytes: u64, behaviour: Behaviour) -> Result<FakeDrive, Skip> {
        FakeDrive::builder(claimed_bytes, behaviour).build()
    }

    /// The loop device, `/dev/loopN`, of [`claimed_bytes`](FakeDrive::claimed_bytes) bytes
    /// with 512-byte logical sectors.
    pub fn device(&self) -> &Path {
        &self.device
    }

    /// The loop device's kernel name, `loopN` (as in `/sys/block`).
    pub fn loop_name(&self) -> String {
        self.device
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The loop device's `MAJ:MIN`, as cgroup files and `/dev/block` name it.
    ///
    /// # Panics
    /// When the device node cannot be read.
    pub fn maj_min(&self) -> String {
        use std::os::unix::fs::MetadataExt;
        let rdev = std::fs::metadata(&self.device)
            .unwrap_or_else(|e| panic!("{}: {e}", self.device.display()))
            .rdev();
        format!("{}:{}", libc::major(rdev), libc::minor(rdev))
    }

    /// Where the ext4 filesystem is mounted ([`FakeDriveBuilder::mounted`]); `None` for a
    /// bare drive.
    pub fn mount_dir(&self) -> Option<&Path> {
        self.mount_dir.as_deref()
    }

    /// The size the drive claims, bytes: the size of the loop device and of the FUSE file.
    pub fn claimed_bytes(&self) -> u64 {
        self.claimed_bytes
    }

    /// The size it really has, bytes: the size of the backing file.
    pub fn real_bytes(&self) -> u64 {
        self.behaviour.real_bytes(self.claimed_bytes)
    }

    /// How it maps and loses blocks.
    pub fn behaviour(&self) -> Behaviour {
        self.behaviour
    }

    /// The backing file, where the data physically is ([`real_bytes`](FakeDrive::real_bytes)
    /// long). Reading it shows where a write went; writing it changes what the drive reads
    /// back (the server reads it on every request, with no cache of its own).
    pub fn backing_path(&self) -> &Path {
        &self.backing
    }

    /// The FUSE file of the claimed size that the loop device is attached to.
    pub fn fuse_file(&self) -> &Path {
        &self.fuse_file
    }

    /// `len` bytes of the backing file from byte `offset` (fewer past its end).
    ///
    /// # Panics
    /// When the backing file cannot be read.
    pub fn read_backing(&self, offset: u64, len: usize) -> Vec<u8> {
        let file = std::fs::File::open(&self.backing)
            .unwrap_or_else(|e| panic!("{}: {e}", self.backing.display()));
        let mut buf = vec![0; len];
        let mut done = 0;
        while done < len {
            match file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => panic!("{}: {e}", self.backing.display()),
            }
        }
        buf.truncate(done);
        buf
    }

    /// The SHA-256 (lowercase hex) of the backing file's bytes in `range` (byte offsets,
    /// clipped to the file), to show that nothing in a region changed.
    ///
    /// # Panics
    /// When the backing file cannot be read.
    pub fn backing_sha256(&self, range: std::ops::Range<u64>) -> String {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        let mut at = range.start;
        while at < range.end {
            let want = (range.end - at).min(1 << 20) as usize;
            let chunk = self.read_backing(at, want);
            if chunk.is_empty() {
                break;
            }
            hasher.update(&chunk);
            at += chunk.len() as u64;
        }
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// What the FUSE server has done so far.
    pub fn served(&self) -> Served {
        self.counters.snapshot()
    }

    /// The loop device's own counters (`/sys/block/loopN/stat`; bytes are its 512-byte
    /// sectors times 512).
    ///
    /// # Panics
    /// When the file cannot be read or parsed.
    pub fn device_stat(&self) -> IoCount {
        let path = Path::new("/sys/block").join(self.loop_name()).join("stat");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        IoCount::from_block_stat(&text)
            .unwrap_or_else(|| panic!("{}: cannot parse {text:?}", path.display()))
    }

    /// The cgroup of [`FakeDriveBuilder::throttle`], if the drive has one.
    pub fn group(&self) -> Option<&BlkioThrottle> {
        self.group.as_ref()
    }

    /// The I/O the throttle's cgroup has accounted to this device so far (v1
    /// `blkio.throttle.io_service_bytes` and `io_serviced`, v2 `io.stat`); `None` without a
    /// throttle.
    ///
    /// # Panics
    /// When the group's files cannot be read.
    pub fn group_io(&self) -> Option<IoCount> {
        let maj_min = self.maj_min();
        self.group.as_ref().map(|g| g.io_count(&maj_min))
    }

    /// Moves this process (and the threads and children it starts afterwards) into the
    /// throttle's cgroup; the drop moves it back.
    ///
    /// # Panics
    /// When the drive has no throttle, or as [`BlkioThrottle::add_process`].
    pub fn throttle_this_process(&self) {
        self.group
            .as_ref()
            .expect("a fake drive built with a throttle")
            .add_process(std::process::id());
    }

    /// A command running `program`, inside the throttle's cgroup from its start when the
    /// drive has one (arguments and environment are the caller's to add).
    pub fn command(&self, program: &Path) -> Command {
        match &self.group {
            Some(group) => group.command(program),
            None => Command::new(program),
        }
    }

    /// Runs this test binary again through [`command`](FakeDrive::command), as a child doing
    /// `task`, as [`crate::ThrottledDisk::run_child`] does: its `main` must call
    /// [`crate::serve_child`] first, which hands the task the mount dir of a mounted drive,
    /// or else the loop device's path; what the task returns comes back here, parsed.
    ///
    /// # Panics
    /// When the child cannot start, fails (with its output), prints no result or one that is
    /// not a `T`.
    pub fn run_child<T: serde::de::DeserializeOwned>(&self, task: &str) -> T {
        self.run_child_with(task, |_| {})
    }

    /// As [`run_child`](FakeDrive::run_child), with `edit` changing the child's command first
    /// (to add environment variables, say).
    ///
    /// # Panics
    /// As [`run_child`](FakeDrive::run_child).
    pub fn run_child_with<T: serde::de::DeserializeOwned>(
        &self,
        task: &str,
        edit: impl FnOnce(&mut Command),
    ) -> T {
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut cmd = self.command(&exe);
        cmd.env(CHILD_TASK_ENV, task)
            .env(CHILD_DIR_ENV, self.mount_dir().unwrap_or(&self.device));
        edit(&mut cmd);
        crate::throttled::child_result(task, &mut cmd)
    }

    /// Unmounts the filesystem and mounts it again (the same options), so that what a test
    /// reads afterwards comes from the device, not from the page cache.
    ///
    /// # Panics
    /// When the drive is not [`mounted`](FakeDriveBuilder::mounted) or a step fails.
    pub fn remount(&mut self) {
        let dir = self.mount_dir.clone().expect("a mounted fake drive");
        run(Command::new("umount").arg(&dir));
        self.mounted = false;
        self.mount_fs(&dir);
    }

    /// mkfs.ext4 on the loop device, then mount on a new folder beside the backing file.
    fn format_and_mount(&mut self, files: Option<&Path>) {
        let dir = self.backing.with_file_name("mnt");
        std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        self.mount_dir = Some(dir.clone());
        run(Command::new("mkfs.ext4")
            .args(["-q", "-F", "-b", "4096", "-m", "0", "-i", "262144"])
            .args(["-O", "^has_journal,^resize_inode,sparse_super2,flex_bg"])
            .args([
                "-E",
                "num_backup_sb=0,packed_meta_blocks=1,lazy_itable_init=1,nodiscard",
            ])
            .args(
                files
                    .map(|d| [std::ffi::OsStr::new("-d"), d.as_os_str()])
                    .into_iter()
                    .flatten(),
            )
            .arg(&self.device));
        self.mount_fs(&dir);
    }

    fn mount_fs(&mut self, dir: &Path) {
        run(Command::new("mount")
            .args(["-t", "ext4", "-o", "noinit_itable"])
            .arg(&self.device)
            .arg(dir));
        self.mounted = true;
    }

    /// Detaches the loop device and waits (up to 5 s) until the kernel has let go of it.
    fn detach_loop(&mut self) {
        if self.device.as_os_str().is_empty() {
            return;
        }
        let _ = Command::new("losetup").arg("-d").arg(&self.device).status();
        let backing = Path::new("/sys/block")
            .join(self.loop_name())
            .join("loop/backing_file");
        for _ in 0..50 {
            let still = std::fs::read_to_string(&backing)
                .is_ok_and(|f| Path::new(f.trim()) == self.fuse_file);
            if !still {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        self.device = PathBuf::new();
    }

    /// Unmounts the FUSE file system (lazily if still busy) and ends the server's thread when
    /// it has stopped.
    fn unmount_fuse(&mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        let unmounted = Command::new("fusermount3")
            .arg("-u")
            .arg(&self.fuse_dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !unmounted {
            // Still held (by a loop device that some process keeps open): detach it from the
            // tree now; the server goes on answering until the last user lets go.
            let _ = Command::new("fusermount3")
                .args(["-u", "-z"])
                .arg(&self.fuse_dir)
                .status();
            drop(session);
            return;
        }
        for _ in 0..50 {
            if session.guard.is_finished() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        drop(session);
    }
}

impl Drop for FakeDrive {
    fn drop(&mut self) {
        drop(self.group.take());
        if self.mounted {
            if let Some(dir) = &self.mount_dir {
                drop(crate::Mounted(dir.clone()));
            }
            self.mounted = false;
        }
        self.detach_loop();
        self.unmount_fuse();
        let _ = std::fs::remove_file(&self.backing);
        drop(self.holder.take());
    }
}
