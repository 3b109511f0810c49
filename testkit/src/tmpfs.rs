//! A tmpfs mounted on a scratch folder for a test.

use std::path::PathBuf;
use std::process::Command;

use crate::{run, scratch_dir, Mounted};

/// A tmpfs of a given size mounted on `mount`, a folder in a fresh scratch folder; unmounted on
/// drop, then the scratch folder is removed. Needs root.
#[derive(Debug)]
pub struct Tmpfs {
    /// The mount point.
    pub mount: PathBuf,
    // Field order is drop order: unmount, then remove the folder.
    _mounted: Mounted,
    _holder: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size_mib` MiB (`mount -t tmpfs -o size=<n>m tmpfs <dir>`).
    ///
    /// # Panics
    /// When the folder cannot be made or `mount` fails (not root, for instance).
    pub fn new(size_mib: u64) -> Tmpfs {
        let holder = scratch_dir();
        let mount = holder.path().join("tmpfs");
        std::fs::create_dir(&mount).unwrap_or_else(|e| panic!("{}: {e}", mount.display()));
        run(Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size_mib}m"), "tmpfs"])
            .arg(&mount));
        Tmpfs {
            _mounted: Mounted(mount.clone()),
            mount,
            _holder: holder,
        }
    }
}
