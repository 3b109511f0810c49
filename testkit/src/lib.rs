//! Real-system fixtures shared by the integration tests of `agnostics-core`, `agnostics-cli`
//! and `agnostics`: scratch folders on a disk filesystem, a loop-mounted ext4 filesystem,
//! a tmpfs mount, a block-device throttle (cgroup v2 `io.max`, or cgroup v1 blkio) that gives a
//! device a speed known by construction ([`ThrottledDisk`]), a fake SD card or USB stick that
//! wraps or loses writes ([`FakeDrive`]), the sysfs tree of a card from
//! `testkit/fixtures/cards`, the listing of test files left behind, the shared test
//! [`profiles`], and the project's translation catalogues ([`po`], [`locale`]).
//!
//! Everything that mounts, attaches or creates a cgroup needs root (check [`is_root`] first and
//! skip with a message otherwise) and is undone by a guard's `Drop`, even when the test fails.
//! Helpers panic with the failing command and its stderr: they are for tests only.

use std::path::{Path, PathBuf};
use std::process::Command;

mod blkio;
mod card;
pub mod fake_drive;
pub mod harness;
pub mod locale;
mod lock_holder;
mod loopfs;
pub mod po;
pub mod profiles;
mod throttled;
mod tmpfs;

pub use blkio::{BlkioThrottle, Hierarchy, IoCount, Throttle, BLKIO_ROOT, CGROUP2_ROOT};
pub use card::{
    card_fixtures_dir, card_sysfs, fio_jobs_dir, fixture_files, ios_fixture, mmc_host_tree,
    pi_model_tree, write_card_tree, MmcHost, MMC_CARD_DIR,
};
pub use fake_drive::{
    Behaviour, EioBand, FakeDrive, FakeDriveBuilder, Served, WriteCache, FAKE_BLOCK,
};
pub use harness::{require, require_path, require_program, require_root, skip, Ran, Skip};
pub use lock_holder::LockHolder;
pub use loopfs::{LoopFs, LoopFsBuilder};
pub use throttled::{serve_child, ThrottledDisk, CHILD_DIR_ENV, CHILD_TASK_ENV};
pub use tmpfs::Tmpfs;

/// True when running as root (loop devices, mounts, cgroups).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Where [`scratch_dir`] makes its folders: `/var/tmp`, on the disk (ext4 here), whereas
/// `/tmp` may be tmpfs.
pub const SCRATCH_BASE: &str = "/var/tmp";

/// A fresh scratch folder on a disk filesystem (under [`SCRATCH_BASE`]), removed on drop.
///
/// # Panics
/// When the folder cannot be made.
pub fn scratch_dir() -> tempfile::TempDir {
    scratch_dir_in(Path::new(SCRATCH_BASE))
}

/// A fresh scratch folder under `base` (which must be on a disk filesystem, such as a crate's
/// `CARGO_TARGET_TMPDIR`), removed on drop.
///
/// # Panics
/// When the folder cannot be made.
pub fn scratch_dir_in(base: &Path) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("agnostics-scratch.")
        .tempdir_in(base)
        .unwrap_or_else(|e| panic!("a scratch folder under {}: {e}", base.display()))
}

/// A new, empty directory for the drives' lock files of one test (`base/locks/PID-N`, made
/// world-writable and sticky like `/run/lock`), so that tests run at once on one disk are not
/// told of each other: set it as `TestOptions::lock_dir`, or as `AGNOSTICS_LOCK_DIR` for a
/// program. Kept after the test (a few bytes), under `base` (a crate's `CARGO_TARGET_TMPDIR`).
///
/// # Panics
/// When the directory cannot be made.
pub fn private_lock_dir(base: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let dir = base.join("locks").join(format!(
        "{}-{}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)))
        .unwrap_or_else(|e| panic!("a lock directory {}: {e}", dir.display()));
    dir
}

/// Runs `cmd` and returns its stdout, trimmed.
///
/// # Panics
/// When the command cannot start or exits unsuccessfully (with its stderr in the message).
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// What the program left in `dir`, sorted: its private run folders (`.agnostics-run.*`), each
/// followed by everything in it as `<folder>/<name>`, and loose test files of version 0.1
/// (`.agnostics-test*`); empty when `dir` cannot be read. A test asserts this is empty after a
/// run: nothing must be left behind.
pub fn test_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".agnostics-run.") {
            if let Ok(inside) = std::fs::read_dir(entry.path()) {
                for item in inside.filter_map(Result::ok) {
                    found.push(format!("{name}/{}", item.file_name().to_string_lossy()));
                }
            }
            found.push(name);
        } else if name.starts_with(".agnostics-test") {
            found.push(name);
        }
    }
    found.sort();
    found
}

/// A mount made by a test at `path`, unmounted on drop (lazily, `umount -l`, if still busy).
#[derive(Debug)]
pub struct Mounted(pub PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.0)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
}

/// The uid and gid of `nobody`, as which [`as_nobody`] runs a command.
pub const NOBODY: u32 = 65534;

/// This test binary, copied into a fresh folder under [`SCRATCH_BASE`] that everyone may enter
/// and run (mode 0755), so that it can run as another user wherever the checkout lives (a
/// clone in `/root` is closed to `nobody`). Keep the returned folder alive while the copy runs.
///
/// # Panics
/// When the binary cannot be found or copied.
pub fn exe_copy_for_others() -> (tempfile::TempDir, PathBuf) {
    copy_for_others(&std::env::current_exe().expect("the test binary's path"))
}

/// A copy of `program` in a fresh scratch folder that every user can enter and run (mode
/// 0755), so that another user can run it wherever the checkout lives. Keep the returned
/// folder alive while the copy runs.
///
/// # Panics
/// When the program cannot be copied.
pub fn copy_for_others(program: &Path) -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch_dir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("open the scratch folder to everyone");
    let copy = dir.path().join(program.file_name().expect("a file name"));
    std::fs::copy(program, &copy).unwrap_or_else(|e| panic!("copy {}: {e}", program.display()));
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755))
        .expect("make the copy runnable by everyone");
    (dir, copy)
}

/// Runs this test binary as `nobody` (uid and gid [`NOBODY`]) with the environment `envs` added,
/// from a copy made by [`exe_copy_for_others`], in `/`; returns its output. Needs root.
///
/// # Panics
/// When the copy cannot be made or the process cannot start.
pub fn as_nobody(envs: &[(&str, &std::ffi::OsStr)]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let (_dir, copy) = exe_copy_for_others();
    let mut cmd = Command::new(&copy);
    cmd.current_dir("/").uid(NOBODY).gid(NOBODY);
    // Root's supplementary groups are dropped too: std calls setgroups(0) when it sets a uid
    // as root.
    for (k, v) in envs {
        cmd.env(k, v);
    }
    // While the copy was written, another test thread may have forked a child that still
    // holds the written file open until it execs: the kernel then refuses to run the copy
    // (ETXTBSY) for that moment. Try again until the child has moved on.
    let mut tries = 0;
    loop {
        match cmd.output() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 250 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => {
                return other.unwrap_or_else(|e| panic!("run {} as nobody: {e}", copy.display()))
            }
        }
    }
}
