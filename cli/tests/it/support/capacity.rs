//! Helpers of the capacity check's tests: a fresh recovery folder, SHA-256 of files, a
//! user's files laid out on a mounted fake drive and read back from it, and a bare loop device.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use agnostics_testkit::fake_drive::FakeDrive;
use agnostics_testkit::run;

/// A fresh, empty folder for recovery files (mode 0700, as a check wants its folder), under
/// the test target's scratch folder: unique in this test binary.
pub fn recovery_dir() -> PathBuf {
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "recovery/{}-{}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

/// The SHA-256 of the file (or device) at `path`, hex, as `sha256sum` prints it.
pub fn sha256(path: &Path) -> String {
    run(Command::new("sha256sum").arg(path))
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

/// Every regular file under `dir` (not lost+found) with its SHA-256, sorted.
pub fn files_and_sums(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_file() {
            out.push((p.clone(), sha256(&p)));
        } else if p.is_dir() && !p.ends_with("lost+found") {
            out.extend(files_and_sums(&p));
        }
    }
    out.sort();
    out
}

/// Two files of the user's (300 000 bytes each), for a mounted fake made holding them
/// (`FakeDriveBuilder::files`: laid out by mkfs in the part the fake really keeps), and their
/// checksums.
pub fn users_files() -> (tempfile::TempDir, Vec<(PathBuf, String)>) {
    let dir = super::scratch();
    for (i, name) in ["notes.txt", "photo.jpg"].iter().enumerate() {
        let bytes: Vec<u8> = (0..300_000u32)
            .map(|n| (n.wrapping_mul(31) as u8) ^ i as u8)
            .collect();
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let sums = files_and_sums(dir.path());
    (dir, sums)
}

/// The user's files on the mounted fake, read from the drive (after a remount, not from the
/// page cache), with their checksums under the names `users_files` gave them; a test's
/// `filler` folder is left out.
pub fn users_files_on(drive: &mut FakeDrive, users: &Path) -> Vec<(PathBuf, String)> {
    drive.remount();
    let mount = drive.mount_dir().unwrap().to_owned();
    files_and_sums(&mount)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(mount.join("filler")))
        .map(|(p, sum)| (users.join(p.strip_prefix(&mount).unwrap()), sum))
        .collect()
}

/// A bare loop device over an image of `size_mib` MiB (direct I/O on), detached on drop.
pub struct BareLoop {
    /// The loop device, e.g. `/dev/loop3`.
    pub device: PathBuf,
    _dir: tempfile::TempDir,
}

impl BareLoop {
    /// The device over a new image of `size_mib` MiB with some of the user's data in each MiB.
    pub fn new(size_mib: u64) -> BareLoop {
        let dir = agnostics_testkit::scratch_dir();
        let image = dir.path().join("disk.img");
        let f = std::fs::File::create(&image).unwrap();
        f.set_len(size_mib << 20).unwrap();
        // Some data everywhere, so that a sector not put back would show.
        use std::os::unix::fs::FileExt;
        for i in 0..size_mib {
            f.write_all_at(
                format!("block {i} of the user's data").as_bytes(),
                (i << 20) + 4096 * (i % 7),
            )
            .unwrap();
        }
        drop(f);
        let device = PathBuf::from(run(Command::new("losetup")
            .args(["--direct-io=on", "-f", "--show"])
            .arg(&image)));
        BareLoop { device, _dir: dir }
    }
}

impl Drop for BareLoop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.device).status();
    }
}
