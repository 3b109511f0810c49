//! A throttled disk: an ext4 filesystem on a loop device whose speed is set by a cgroup
//! throttle ([`BlkioThrottle`]: cgroup v2 `io.max`, or v1 blkio), like a slow SD card whose
//! speed is known by construction; and the child-process protocol that measures inside the
//! throttle.
//!
//! A throttle acts on the processes in its group, so a measurement runs in a child that
//! starts in the group: [`ThrottledDisk::command`] runs any program there, and
//! [`ThrottledDisk::run_child`] runs this test binary again, whose `main` hands the child's
//! task to [`serve_child`] before anything else; the child prints its result as one JSON line
//! after a marker, which the parent parses.

use std::path::Path;
use std::process::Command;

use crate::{BlkioThrottle, LoopFs, Skip, Throttle};

/// The environment variable naming the task of a child started by
/// [`ThrottledDisk::run_child`]; its presence is what makes the test binary a child.
pub const CHILD_TASK_ENV: &str = "AGNOSTICS_THROTTLED_CHILD_TASK";

/// The environment variable giving a child the disk's mount point.
pub const CHILD_DIR_ENV: &str = "AGNOSTICS_THROTTLED_CHILD_DIR";

/// What precedes the child's result (JSON) on its line of stdout.
const RESULT_MARK: &str = "THROTTLED-CHILD-RESULT ";

/// An ext4 filesystem of a given size on a loop device (direct I/O on), throttled by a cgroup.
/// Torn down in reverse order on drop: processes back to the root group, group removed,
/// unmount, detach, image removed.
#[derive(Debug)]
pub struct ThrottledDisk {
    // Field order is drop order: the group goes before the filesystem.
    group: BlkioThrottle,
    fs: LoopFs,
}

impl ThrottledDisk {
    /// `Err(Skip)` with the reason when this machine cannot throttle a disk: not root, or
    /// neither cgroup v2 with the io controller nor cgroup v1's blkio.
    pub fn require() -> Result<(), Skip> {
        match BlkioThrottle::unavailable() {
            Some(reason) => Err(Skip(reason.to_owned())),
            None => Ok(()),
        }
    }

    /// A `size_mib` MiB filesystem (mount's defaults) whose loop device is limited as
    /// `throttle` says. Check [`require`](ThrottledDisk::require) first.
    ///
    /// # Panics
    /// When the filesystem or the group cannot be made (what was made is undone).
    pub fn new(size_mib: u64, throttle: Throttle) -> ThrottledDisk {
        let fs = LoopFs::new(size_mib);
        let group = BlkioThrottle::new(&fs.maj_min(), throttle);
        ThrottledDisk { group, fs }
    }

    /// Limits the same filesystem as `throttle` says from now on: a new group replaces the
    /// old one (a process in the old one is moved back to the root group).
    ///
    /// # Panics
    /// As [`new`](ThrottledDisk::new).
    pub fn rethrottle(&mut self, throttle: Throttle) {
        self.group = BlkioThrottle::new(&self.fs.maj_min(), throttle);
    }

    /// The mounted filesystem's root (writable by root).
    pub fn path(&self) -> &Path {
        &self.fs.mount
    }

    /// The filesystem underneath (its loop device, image and mount point).
    pub fn fs(&self) -> &LoopFs {
        &self.fs
    }

    /// Moves this process (and so the threads and children it starts afterwards) into the
    /// group, for tests that measure in-process (the app's). The group's drop moves it back.
    ///
    /// # Panics
    /// As [`BlkioThrottle::add_process`].
    pub fn throttle_this_process(&self) {
        self.group.add_process(std::process::id());
    }

    /// A command running `program` inside the group from its start (arguments and
    /// environment are the caller's to add).
    pub fn command(&self, program: &Path) -> Command {
        self.group.command(program)
    }

    /// Runs this test binary again inside the group, as a child doing `task`: its `main`
    /// must call [`serve_child`] first. The child sees `task` in [`CHILD_TASK_ENV`] and the
    /// mount point in [`CHILD_DIR_ENV`]; what its task returns comes back here, parsed.
    ///
    /// # Panics
    /// When the child cannot start, fails (with its output), prints no result or one that
    /// is not a `T`.
    pub fn run_child<T: serde::de::DeserializeOwned>(&self, task: &str) -> T {
        self.run_child_with(task, |_| {})
    }

    /// As [`run_child`](ThrottledDisk::run_child), with `edit` changing the child's command
    /// first (to add or remove environment variables, say).
    ///
    /// # Panics
    /// As [`run_child`](ThrottledDisk::run_child).
    pub fn run_child_with<T: serde::de::DeserializeOwned>(
        &self,
        task: &str,
        edit: impl FnOnce(&mut Command),
    ) -> T {
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut cmd = self.command(&exe);
        cmd.env(CHILD_TASK_ENV, task)
            .env(CHILD_DIR_ENV, self.path());
        edit(&mut cmd);
        child_result(task, &mut cmd)
    }
}

/// Runs `cmd`, a child doing `task` that prints its result after [`RESULT_MARK`], and parses
/// that result.
///
/// # Panics
/// When the child cannot start, fails (with its output), prints no result or one that is not
/// a `T`.
pub(crate) fn child_result<T: serde::de::DeserializeOwned>(task: &str, cmd: &mut Command) -> T {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{task}: start the child: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{task}: child failed\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.find(RESULT_MARK).map(|at| &l[at + RESULT_MARK.len()..]))
        .unwrap_or_else(|| panic!("{task}: no result in\n{stdout}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{task}: result {line}: {e}"))
}

/// The child's side of [`ThrottledDisk::run_child`], first thing in a test binary's `main`:
/// when this process is such a child, runs `task` with the task's name and the disk's mount
/// point, prints what it returns for the parent and returns true (`main` then returns);
/// otherwise returns false at once.
///
/// # Panics
/// When the result cannot be written as JSON (and whatever `task` panics with).
pub fn serve_child<T: serde::Serialize>(task: impl FnOnce(&str, &Path) -> T) -> bool {
    let Ok(name) = std::env::var(CHILD_TASK_ENV) else {
        return false;
    };
    let dir = std::env::var_os(CHILD_DIR_ENV).unwrap_or_default();
    let result = task(&name, Path::new(&dir));
    let json = serde_json::to_string(&result).expect("the child's result as JSON");
    println!("{RESULT_MARK}{json}");
    true
}
