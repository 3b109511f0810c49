//! Telling that two tests share one drive. A test measures what the drive does for it alone;
//! a second test on the same drive at the same time (another folder, another user, the app
//! and `agnostics-cli`) takes part of the drive's speed, and both tests' figures are too low
//! (a 700 IOPS drive measured 334 IOPS and was graded FAIL).
//!
//! Every test holds a shared lock on one file per whole disk it uses,
//! `/run/lock/agnostics-MAJ_MIN.lock` (the disk's `MAJ:MIN` as sysfs has it), for as long as
//! it measures. The lock is an open file description lock (`F_OFD_SETLK`, `F_RDLCK`), which
//! any user can take on a file any user can read: a test never waits for another, and never
//! stops one. [`ShareWatch`] asks the kernel every [`POLL`] whether anyone else holds a lock on
//! the same file (`F_OFD_GETLK`), so a test started after this one is seen as well as one
//! started before it.
//!
//! The lock files are never removed (a removed file would part two tests that hold its old
//! copy); `/run/lock` is emptied at boot. Test suites that run many tests on one disk at once
//! give each test its own directory with [`DIR_VARIABLE`].

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::target_dir::TargetInfo;

pub use crate::lock_dir::DEFAULT_DIR;

/// The environment variable that names another directory for the lock files
/// (`AGNOSTICS_LOCK_DIR`); tests of this program use it so that their own tests, run at once on
/// one disk, are not told of each other.
pub const DIR_VARIABLE: &str = "AGNOSTICS_LOCK_DIR";

/// How often [`ShareWatch`] asks whether another test holds a lock: 250 ms.
pub const POLL: Duration = Duration::from_millis(250);

/// The lock directory: [`DIR_VARIABLE`] when set and not empty, else [`DEFAULT_DIR`].
pub fn default_dir() -> PathBuf {
    std::env::var_os(DIR_VARIABLE)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_DIR))
}

/// One drive a test uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drive {
    /// Its kernel name, e.g. `mmcblk0`, `sda`; what the user reads.
    pub name: String,
    /// `MAJ:MIN`, e.g. `179:0`; what the lock file is named after.
    pub dev: String,
}

impl Drive {
    /// The lock file's name, e.g. `agnostics-179_0.lock`.
    pub fn file_name(&self) -> String {
        format!("agnostics-{}.lock", self.dev.replace(':', "_"))
    }
}

/// The drives a test in `info` uses: every whole disk under its filesystem (`MAJ:MIN` from
/// `<sysfs_root>/class/block/DISK/dev`); where sysfs names no disk, the filesystem's own
/// device. Empty when the filesystem has no block device (NFS): then nothing is locked.
pub fn drives(info: &TargetInfo, sysfs_root: &Path) -> Vec<Drive> {
    let Some(dev) = &info.device else {
        return Vec::new();
    };
    let disks = if dev.disks.is_empty() {
        std::slice::from_ref(&dev.disk)
    } else {
        &dev.disks[..]
    };
    let mut found: Vec<Drive> = disks
        .iter()
        .filter_map(|disk| {
            let dir = crate::sysfs::dir_of_name(sysfs_root, disk)?;
            let maj_min = crate::sysfs::read_attr(&dir.join("dev"))?;
            valid_dev(&maj_min).then(|| Drive {
                name: disk.clone(),
                dev: maj_min,
            })
        })
        .collect();
    if found.is_empty() && valid_dev(&dev.dev) {
        found.push(Drive {
            name: dev.name.clone(),
            dev: dev.dev.clone(),
        });
    }
    found.dedup_by(|a, b| a.dev == b.dev);
    found
}

/// `MAJ:MIN` with both parts decimal: nothing else becomes part of a file name.
fn valid_dev(text: &str) -> bool {
    text.split_once(':').is_some_and(|(maj, min)| {
        [maj, min]
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 10 && p.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Why a drive's lock could not be taken: the test runs, but cannot tell whether another test
/// uses that drive.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The lock file could not be opened or created (no such directory, no permission, a
    /// symbolic link at its place: `ELOOP`).
    #[error("{path}: {source}")]
    Open {
        /// The lock file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Something other than a regular file is at the lock file's place.
    #[error("{path} is not a regular file")]
    NotAFile {
        /// The lock file.
        path: PathBuf,
    },
    /// The kernel refused the lock.
    #[error("{path}: {source}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// The locks of one test, held until dropped.
#[derive(Debug)]
pub struct DriveLock {
    held: Vec<(Drive, File)>,
}

impl DriveLock {
    /// Takes a shared lock on each of `drives` in `dir`, creating lock files (mode 0644) as
    /// needed; never waits. The locks that could be taken, and why each other one could not.
    /// A drive whose lock someone holds exclusively (no test of this program does) is kept as
    /// held without a lock, so that [`DriveLock::shared`] names it.
    pub fn take(dir: &Path, drives: &[Drive]) -> (DriveLock, Vec<LockError>) {
        let mut held = Vec::new();
        let mut errors = Vec::new();
        let dir = crate::lock_dir::usable(dir);
        for drive in drives {
            match lock_one(&dir.join(drive.file_name())) {
                Ok(file) => held.push((drive.clone(), file)),
                Err(e) => errors.push(e),
            }
        }
        (DriveLock { held }, errors)
    }

    /// The first drive another holder has a lock on too: another test uses it now. `None`
    /// when no other holder is seen (or the kernel cannot be asked).
    pub fn shared(&self) -> Option<&Drive> {
        self.held
            .iter()
            .find(|(_, file)| other_holder(file))
            .map(|(drive, _)| drive)
    }

    /// The drives locked.
    pub fn drives(&self) -> impl Iterator<Item = &Drive> {
        self.held.iter().map(|(d, _)| d)
    }

    /// The first drive another holder has a lock on too, with its lock file's owner (uid) and
    /// the processes that hold a lock on that file, where the system tells (root sees every
    /// process; others may see only their own).
    pub fn shared_by(&self) -> Option<(&Drive, u32, Vec<Holder>)> {
        let (drive, file) = self.held.iter().find(|(_, file)| other_holder(file))?;
        let owner = file.metadata().map(|m| m.uid()).unwrap_or(u32::MAX);
        Some((drive, owner, holders(file)))
    }
}

/// Another test or capacity check found on a drive before a test starts: the drive, and the
/// processes that hold its lock where the system tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Busy {
    /// The drive in use.
    pub drive: Drive,
    /// The processes that hold its lock (empty when the system does not tell).
    pub holders: Vec<Holder>,
}

impl Busy {
    /// What a person reads before the test starts (translated): which drive, which program
    /// where the system tells, and why two tests at once are not graded.
    pub fn text(&self) -> String {
        use crate::i18n::{fill, gettext};
        let why = gettext(
            "Two tests at once share the drive's speed, so neither would be graded. Wait until \
             it has finished, or start later.",
        );
        let who = match self.holders.first() {
            Some(h) => fill(
                // Translators: {drive} is a kernel device name such as "mmcblk0";
                // {command} the program's name, such as "agnostics-cli"; {pid} its number.
                &gettext(
                    "Another test or capacity check is using this drive ({drive}) now: {command}, \
                     process {pid}.",
                ),
                &[
                    ("drive", &self.drive.name),
                    ("command", &h.command),
                    ("pid", &h.pid),
                ],
            ),
            None => fill(
                // Translators: {drive} is a kernel device name such as "mmcblk0".
                &gettext("Another test or capacity check is using this drive ({drive}) now."),
                &[("drive", &self.drive.name)],
            ),
        };
        format!("{who} {why}")
    }
}

/// The first of `drives` whose lock another test or capacity check holds now (a lock file in
/// `dir` with a lock on it), without taking a lock: a look that no test running sees. `None`
/// when none is held, or a lock file is missing or cannot be read.
pub fn in_use(dir: &Path, drives: &[Drive]) -> Option<Drive> {
    held_file(dir, drives).map(|(drive, _)| drive)
}

/// [`in_use`], with the processes that hold the lock where the system tells.
pub fn busy(dir: &Path, drives: &[Drive]) -> Option<Busy> {
    let (drive, file) = held_file(dir, drives)?;
    Some(Busy {
        drive,
        holders: holders(&file),
    })
}

/// The first of `drives` whose lock file in `dir` someone holds a lock on, with the file
/// opened for reading (never created, never a link or a FIFO).
fn held_file(dir: &Path, drives: &[Drive]) -> Option<(Drive, File)> {
    let dir = crate::lock_dir::usable(dir);
    drives.iter().find_map(|drive| {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(dir.join(drive.file_name()))
            .ok()?;
        let is_file = file.metadata().is_ok_and(|m| m.file_type().is_file());
        (is_file && other_holder(&file)).then(|| (drive.clone(), file))
    })
}

/// A process that holds a lock on a lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// Its user (uid).
    pub uid: u32,
    /// Its command name (`/proc/PID/comm`).
    pub command: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}, {}", self.pid, self.command, self.uid)
    }
}

/// The other processes that hold a lock on the file open as `file`: those with it open whose
/// `/proc/PID/fdinfo/FD` lists a lock (the kernel lists the locks of that open file there;
/// `/proc/locks` names no process for an open file description lock).
pub fn holders(file: &File) -> Vec<Holder> {
    let Ok(meta) = file.metadata() else {
        return Vec::new();
    };
    let me = std::process::id();
    let mut out = Vec::new();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return out;
    };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        let holds = fds.flatten().any(|fd| {
            std::fs::metadata(fd.path())
                .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
                && std::fs::read_to_string(p.path().join("fdinfo").join(fd.file_name()))
                    .is_ok_and(|info| info.lines().any(|l| l.starts_with("lock:")))
        });
        if holds {
            out.push(Holder {
                pid,
                uid: std::fs::metadata(p.path())
                    .map(|m| m.uid())
                    .unwrap_or(u32::MAX),
                command: std::fs::read_to_string(p.path().join("comm"))
                    .map(|c| c.trim().to_owned())
                    .unwrap_or_default(),
            });
        }
    }
    out
}

/// Opens `path` without following a link and without blocking (a FIFO placed there), creating
/// it if absent, and takes a shared lock on the whole file.
fn lock_one(path: &Path) -> Result<File, LockError> {
    let open_error = |source| LockError::Open {
        path: path.to_owned(),
        source,
    };
    let flags = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
    let mut file = None;
    // An existing file is opened without O_CREAT: a file another user made in a sticky
    // directory may not be opened with O_CREAT where fs.protected_regular is set.
    for _ in 0..3 {
        match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(path)
        {
            Ok(f) => {
                file = Some(f);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(open_error(e)),
        }
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(flags)
            .open(path)
        {
            Ok(f) => {
                // Readable by every user whatever the umask: they all take the lock.
                f.set_permissions(std::fs::Permissions::from_mode(0o644))
                    .map_err(open_error)?;
                file = Some(f);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(open_error(e)),
        }
    }
    let file = file.ok_or_else(|| open_error(std::io::ErrorKind::AlreadyExists.into()))?;
    let is_file = file.metadata().map_err(open_error)?.file_type().is_file();
    if !is_file {
        return Err(LockError::NotAFile {
            path: path.to_owned(),
        });
    }
    let lock = whole_file(libc::F_RDLCK);
    match nix::fcntl::fcntl(file.as_raw_fd(), nix::fcntl::FcntlArg::F_OFD_SETLK(&lock)) {
        Ok(_) => Ok(file),
        // Held exclusively by someone: the drive is not ours alone, and the watch says so.
        Err(nix::errno::Errno::EAGAIN | nix::errno::Errno::EACCES) => Ok(file),
        Err(e) => Err(LockError::Lock {
            path: path.to_owned(),
            source: std::io::Error::from(e),
        }),
    }
}

/// A lock of `kind` on the whole file.
fn whole_file(kind: libc::c_int) -> libc::flock {
    // SAFETY: flock is plain old data; all-zero is a valid value of every field.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = kind as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    lock.l_start = 0;
    lock.l_len = 0;
    lock
}

/// Whether a lock on `file` by another open file description exists: an exclusive lock would
/// conflict with it. This description's own lock never conflicts with itself.
fn other_holder(file: &File) -> bool {
    let mut probe = whole_file(libc::F_WRLCK);
    match nix::fcntl::fcntl(
        file.as_raw_fd(),
        nix::fcntl::FcntlArg::F_OFD_GETLK(&mut probe),
    ) {
        Ok(_) => probe.l_type != libc::F_UNLCK as libc::c_short,
        Err(_) => false,
    }
}

#[derive(Debug)]
struct Seen {
    lock: DriveLock,
    /// The drive another test was seen on since the last [`ShareWatch::begin`].
    drive: Mutex<Option<Drive>>,
    quit: AtomicBool,
}

impl Seen {
    fn look(&self) {
        if let Some(d) = self.lock.shared() {
            let mut seen = self.drive.lock().unwrap_or_else(|e| e.into_inner());
            seen.get_or_insert_with(|| d.clone());
        }
    }
}

/// A test's locks and a thread (`agnostics-share`) that looks for other tests on the same
/// drives every [`POLL`]; the thread ends and the locks are released when it is dropped.
#[derive(Debug)]
pub struct ShareWatch {
    seen: Arc<Seen>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ShareWatch {
    /// Watches with `lock`. Where a thread cannot be started, the watch still looks at each
    /// [`ShareWatch::begin`] and [`ShareWatch::end`].
    pub fn start(lock: DriveLock) -> ShareWatch {
        let seen = Arc::new(Seen {
            lock,
            drive: Mutex::new(None),
            quit: AtomicBool::new(false),
        });
        let for_thread = Arc::clone(&seen);
        let thread = std::thread::Builder::new()
            .name("agnostics-share".into())
            .spawn(move || {
                while !for_thread.quit.load(Ordering::SeqCst) {
                    for_thread.look();
                    std::thread::park_timeout(POLL);
                }
            })
            .ok();
        ShareWatch { seen, thread }
    }

    /// Starts a new measurement: forgets what was seen before, and looks now.
    pub fn begin(&self) {
        *self.seen.drive.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.seen.look();
    }

    /// Ends the measurement begun by [`ShareWatch::begin`]: looks once more, and gives the
    /// drive another test was seen on meanwhile, if any.
    pub fn end(&self) -> Option<Drive> {
        self.seen.look();
        self.seen
            .drive
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Drop for ShareWatch {
    fn drop(&mut self) {
        self.seen.quit.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sda() -> Drive {
        Drive {
            name: "sda".into(),
            dev: "8:0".into(),
        }
    }

    #[test]
    fn two_holders_see_each_other_and_one_alone_sees_nobody() {
        let dir = tempfile::tempdir().unwrap();
        let (first, errors) = DriveLock::take(dir.path(), &[sda()]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(first.shared(), None);
        let (second, errors) = DriveLock::take(dir.path(), &[sda()]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(first.shared(), Some(&sda()));
        assert_eq!(second.shared(), Some(&sda()));
        drop(second);
        assert_eq!(first.shared(), None);
        assert!(dir.path().join("agnostics-8_0.lock").is_file());
    }

    #[test]
    fn other_drives_are_not_shared() {
        let dir = tempfile::tempdir().unwrap();
        let (a, _) = DriveLock::take(dir.path(), &[sda()]);
        let sdb = Drive {
            name: "sdb".into(),
            dev: "8:16".into(),
        };
        let (b, _) = DriveLock::take(dir.path(), &[sdb]);
        assert_eq!(a.shared(), None);
        assert_eq!(b.shared(), None);
    }

    #[test]
    fn a_link_or_a_fifo_at_the_lock_path_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join(sda().file_name())).unwrap();
        let (lock, errors) = DriveLock::take(dir.path(), &[sda()]);
        assert_eq!(lock.drives().count(), 0);
        assert!(
            matches!(&errors[..], [LockError::Open { source, .. }] if source.raw_os_error() == Some(libc::ELOOP)),
            "{errors:?}"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");

        let sdb = Drive {
            name: "sdb".into(),
            dev: "8:16".into(),
        };
        nix::unistd::mkfifo(
            &dir.path().join(sdb.file_name()),
            nix::sys::stat::Mode::from_bits_truncate(0o644),
        )
        .unwrap();
        let (lock, errors) = DriveLock::take(dir.path(), &[sdb]);
        assert_eq!(lock.drives().count(), 0);
        assert!(
            matches!(&errors[..], [LockError::NotAFile { .. }]),
            "{errors:?}"
        );
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_the_file() {
        let (lock, errors) = DriveLock::take(Path::new("/nonexistent/agnostics"), &[sda()]);
        assert_eq!(lock.drives().count(), 0);
        assert_eq!(
            errors[0].to_string(),
            "/nonexistent/agnostics/agnostics-8_0.lock: No such file or directory (os error 2)"
        );
    }

    #[test]
    fn the_watch_sees_a_test_that_came_and_went_during_a_measurement() {
        let dir = tempfile::tempdir().unwrap();
        let (mine, _) = DriveLock::take(dir.path(), &[sda()]);
        let watch = ShareWatch::start(mine);
        watch.begin();
        let (other, _) = DriveLock::take(dir.path(), &[sda()]);
        // Held until the thread has seen it (however busy the machine), then gone before
        // the measurement ends.
        for _ in 0..1200 {
            if watch.seen.drive.lock().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(other);
        assert_eq!(watch.end(), Some(sda()));
        watch.begin();
        assert_eq!(watch.end(), None);
    }

    #[test]
    fn a_look_before_a_test_sees_a_holder_and_no_test_sees_the_look() {
        let dir = tempfile::tempdir().unwrap();
        // No lock file yet: nobody has used the drive.
        assert_eq!(in_use(dir.path(), &[sda()]), None);
        assert!(!dir.path().join(sda().file_name()).exists());
        let (running, _) = DriveLock::take(dir.path(), &[sda()]);
        let sdb = Drive {
            name: "sdb".into(),
            dev: "8:16".into(),
        };
        assert_eq!(in_use(dir.path(), &[sdb.clone(), sda()]), Some(sda()));
        let found = busy(dir.path(), &[sda()]).expect("the drive is in use");
        assert_eq!(found.drive, sda());
        // The look took no lock: the running test is still alone on its drive.
        assert_eq!(running.shared(), None);
        assert_eq!(in_use(dir.path(), &[sdb]), None);
        drop(running);
        assert_eq!(in_use(dir.path(), &[sda()]), None);
    }

    #[test]
    fn the_program_holding_the_drive_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let holder = agnostics_testkit::LockHolder::spawn(&dir.path().join(sda().file_name()));
        let found = busy(dir.path(), &[sda()]).expect("the drive is in use");
        let named: Vec<(u32, &str)> = found
            .holders
            .iter()
            .map(|h| (h.pid, h.command.as_str()))
            .collect();
        assert_eq!(named, [(holder.pid(), "sleep")]);
        assert_eq!(
            found.text(),
            format!(
                "Another test or capacity check is using this drive (sda) now: sleep, process \
                 {}. Two tests at once share the drive's speed, so neither would be graded. \
                 Wait until it has finished, or start later.",
                holder.pid()
            )
        );
        drop(holder);
        assert_eq!(busy(dir.path(), &[sda()]), None);
    }

    #[test]
    fn a_holder_the_system_does_not_name_is_still_told() {
        let busy = Busy {
            drive: sda(),
            holders: Vec::new(),
        };
        assert_eq!(
            busy.text(),
            "Another test or capacity check is using this drive (sda) now. Two tests at once \
             share the drive's speed, so neither would be graded. Wait until it has finished, \
             or start later."
        );
    }

    #[test]
    fn only_decimal_maj_min_names_a_file() {
        assert!(valid_dev("179:0"));
        assert!(!valid_dev("179:0/../x"));
        assert!(!valid_dev("8"));
        assert!(!valid_dev(":1"));
    }
}
