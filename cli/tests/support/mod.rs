//! Shared helpers of the CLI's integration tests: running the binary, small profiles, and (as
//! root) real loop-mounted filesystems and tmpfs mounts that clean up after themselves.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The built `agnostics-cli`.
pub fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agnostics-cli"));
    c.env("LANGUAGE", "en").env("LC_ALL", "C.UTF-8");
    // Keep the tester's own ~/rpdiags.txt out of it.
    c.env(
        "AGNOSTICS_LOG",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("rpdiags-cli-tests.txt"),
    );
    c
}

/// True when running as root (loop devices, mounts).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// A scratch directory on a real disk filesystem (ext4 here), not tmpfs.
pub fn scratch() -> tempfile::TempDir {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tempfile::tempdir_in(base).expect("scratch dir under target/")
}

/// Writes a small profile (two graded-like phases, a few MiB) and returns its path.
pub fn small_profile(dir: &Path, size: &str) -> PathBuf {
    let path = dir.join("small.fio");
    std::fs::write(
        &path,
        format!(
            "[global]\nioengine=libaio\ndirect=1\niodepth=8\nsize={size}\nend_fsync=1\n\n\
             [prepare-file]\nrw=write\nbs=1m\nstonewall\n\n[seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
             [seq-read]\nrw=read\nbs=1m\nstonewall\n\n[rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=1\nstonewall\n\n\
             [rand-4k-read]\nrw=randread\nbs=4k\nruntime=1\nstonewall\n"
        ),
    )
    .unwrap();
    path
}

/// Files the program left in `dir` (its test files are `.agnostics-test*`).
pub fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".agnostics-test"))
                .collect()
        })
        .unwrap_or_default()
}

/// The JSON document on stdout.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// An ext4 filesystem on a loop device over an image file, mounted at `mount`; everything is
/// undone on drop (umount, losetup -d, image removed).
pub struct LoopFs {
    _dir: tempfile::TempDir,
    pub image: PathBuf,
    pub device: String,
    pub mount: PathBuf,
}

impl LoopFs {
    /// `size_mib` MiB image, ext4, mounted with `options` (e.g. "rw", "ro").
    pub fn new(size_mib: u64, options: &str) -> LoopFs {
        let dir = scratch();
        let image = dir.path().join("disk.img");
        let f = std::fs::File::create(&image).unwrap();
        f.set_len(size_mib * 1024 * 1024).unwrap();
        drop(f);
        run(
            "mkfs.ext4",
            &["-q", "-F", "-m", "0", image.to_str().unwrap()],
        );
        let device = run(
            "losetup",
            &["--direct-io=on", "-f", "--show", image.to_str().unwrap()],
        );
        let mount = dir.path().join("mnt");
        std::fs::create_dir(&mount).unwrap();
        let fs = LoopFs {
            _dir: dir,
            image,
            device,
            mount,
        };
        run(
            "mount",
            &["-o", options, &fs.device, fs.mount.to_str().unwrap()],
        );
        fs
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mount).status();
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
    }
}

/// A tmpfs mounted on a scratch directory, unmounted on drop.
pub struct Tmpfs {
    _dir: tempfile::TempDir,
    pub mount: PathBuf,
}

impl Tmpfs {
    pub fn new() -> Tmpfs {
        let dir = scratch();
        let mount = dir.path().join("tmpfs");
        std::fs::create_dir(&mount).unwrap();
        run(
            "mount",
            &[
                "-t",
                "tmpfs",
                "-o",
                "size=600m",
                "tmpfs",
                mount.to_str().unwrap(),
            ],
        );
        Tmpfs { _dir: dir, mount }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mount).status();
    }
}
