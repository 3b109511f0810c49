//! Where the drive locks' files go when the system's lock folder is missing. A small system
//! that mounts `/run` without making its `lock` folder (an initramfs, a container, a system
//! without systemd) would otherwise leave every test unable to lock its drive, and so unable
//! to tell whether another test uses it. The first test makes the folder as the system would
//! make it (mode 1777) or, when it cannot be made, the lock files go to [`FALLBACK_DIR`],
//! where every test that cannot make it looks too.

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Where the lock files are: `/run/lock`, the directory every user may create files in.
pub const DEFAULT_DIR: &str = "/run/lock";

/// Where the lock files go when [`DEFAULT_DIR`] does not exist and cannot be made (a user
/// other than root on a system whose `/run` has no `lock` folder): `/tmp`.
pub const FALLBACK_DIR: &str = "/tmp";

/// The folder the lock files of `dir` go in: `dir` itself, unless it is the system's
/// [`DEFAULT_DIR`] and does not exist; then that folder made, or [`FALLBACK_DIR`].
pub fn usable(dir: &Path) -> PathBuf {
    usable_dir(dir, Path::new(DEFAULT_DIR), Path::new(FALLBACK_DIR))
}

/// `dir` itself, unless `dir` is the system's `default` and does not exist; then `default`
/// made as the system makes it (mode 1777: every user creates files, none removes another's),
/// or `fallback` when it cannot be made. Another folder that does not exist is kept, and the
/// lock's error names it.
fn usable_dir(dir: &Path, default: &Path, fallback: &Path) -> PathBuf {
    if dir != default || dir.is_dir() {
        return dir.to_owned();
    }
    match std::fs::DirBuilder::new().mode(0o1777).create(dir) {
        // The umask took bits away: every user must be able to create a lock file.
        Ok(()) => match std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o1777)) {
            Ok(()) => dir.to_owned(),
            Err(_) => fallback.to_owned(),
        },
        // Another test made it at the same moment.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => dir.to_owned(),
        Err(_) => fallback.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive_lock::{Drive, DriveLock};

    #[test]
    fn a_missing_system_lock_folder_is_made_world_writable_and_sticky() {
        let run = tempfile::tempdir().unwrap();
        let default = run.path().join("lock");
        let fallback = run.path().join("fallback");
        assert_eq!(usable_dir(&default, &default, &fallback), default);
        let mode = std::fs::metadata(&default).unwrap().permissions().mode();
        assert_eq!(mode & 0o7777, 0o1777);
        // Made once; the second test finds it.
        assert_eq!(usable_dir(&default, &default, &fallback), default);
        assert!(!fallback.exists());
    }

    #[test]
    fn a_system_lock_folder_that_cannot_be_made_gives_way_to_the_fallback() {
        let run = tempfile::tempdir().unwrap();
        let default = run.path().join("no-run").join("lock");
        let fallback = run.path().to_owned();
        assert_eq!(usable_dir(&default, &default, &fallback), fallback);
        assert!(!default.exists());
        let sda = Drive {
            name: "sda".into(),
            dev: "8:0".into(),
        };
        let (lock, errors) = DriveLock::take(&fallback, &[sda]);
        assert!(errors.is_empty());
        assert_eq!(lock.drives().count(), 1);
        assert!(fallback.join("agnostics-8_0.lock").is_file());
    }

    #[test]
    fn a_missing_folder_named_by_the_user_is_not_made() {
        let run = tempfile::tempdir().unwrap();
        let mine = run.path().join("mine");
        let default = run.path().join("lock");
        assert_eq!(usable_dir(&mine, &default, run.path()), mine);
        assert!(!mine.exists());
        assert_eq!(usable(&mine), mine);
    }
}
