//! The program's own test file: a private folder (mode 0700) with a uniquely named file (mode
//! 0600), removed only while it is ours; loose files of version 0.1 kept and reported; O_DIRECT
//! refusal.

use crate::common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use agnostics_core::engine::testfile::{remove_stale, sweep, LeftReason, TestFile};
use agnostics_core::engine::EngineError;
use common::*;

/// A pid that belonged to a process that has exited (a reaped child).
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn touch(path: &Path) {
    std::fs::write(path, b"x").unwrap();
}

fn creates_a_private_uniquely_named_file_and_removes_it() {
    let dir = scratch_dir();
    let a = TestFile::create(dir.path(), true, "ext4").unwrap();
    let b = TestFile::create(dir.path(), true, "ext4").unwrap();
    assert_ne!(a.path(), b.path());
    assert_eq!(a.run_dir().parent().unwrap(), dir.path());
    assert_eq!(a.path().parent().unwrap(), a.run_dir());
    let name = a
        .run_dir()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let hex = name.strip_prefix(".agnostics-run.").expect(&name);
    assert!(
        hex.len() == 16 && hex.bytes().all(|c| c.is_ascii_hexdigit()),
        "{name}"
    );
    let dir_meta = std::fs::symlink_metadata(a.run_dir()).unwrap();
    assert!(dir_meta.is_dir());
    assert_eq!(dir_meta.permissions().mode() & 0o7777, 0o700);
    let meta = std::fs::symlink_metadata(a.path()).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(meta.len(), 0);
    let mut inside = entries(a.run_dir());
    inside.sort();
    assert_eq!(inside, ["lock", "stamp", "test-file"]);
    a.remove().unwrap();
    drop(b);
    assert!(entries(dir.path()).is_empty());
}

fn a_replaced_file_is_not_removed_and_the_leftover_is_named() {
    let dir = scratch_dir();
    let file = TestFile::create(dir.path(), false, "ext4").unwrap();
    let path = file.path().to_path_buf();
    let run_dir = file.run_dir().to_path_buf();
    std::fs::remove_file(&path).unwrap();
    // Someone else's file now at that path (a symlink to something precious, here).
    let precious = dir.path().join("precious");
    touch(&precious);
    std::os::unix::fs::symlink(&precious, &path).unwrap();
    let err = file
        .remove()
        .expect_err("the folder cannot go while it holds the symlink");
    assert!(
        err.to_string().contains(&run_dir.display().to_string()),
        "{err}"
    );
    assert!(
        std::fs::symlink_metadata(&path).is_ok(),
        "the symlink stays"
    );
    assert_eq!(std::fs::read(&precious).unwrap(), b"x", "its target stays");
}

fn a_file_recreated_by_our_child_is_reclaimed_and_removed() {
    let dir = scratch_dir();
    let file = TestFile::create(dir.path(), false, "ext4").unwrap();
    let path = file.path().to_path_buf();
    // Keep the old inode alive so that the new file cannot reuse its number.
    let _old = std::fs::File::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    touch(&path);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    file.reclaim().unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
    file.remove().unwrap();
    assert!(!path.exists());
}

fn loose_files_of_version_0_1_are_kept_and_reported() {
    let dir = scratch_dir();
    let d = dir.path();
    let stale = d.join(format!(
        ".agnostics-test.{}.0123456789abcdef.tmp",
        dead_pid()
    ));
    let mine = d.join(format!(
        ".agnostics-test.{}.0123456789abcdef.tmp",
        std::process::id()
    ));
    let init = d.join(".agnostics-test.1.0123456789abcdef.tmp");
    let other_name = d.join(format!(".agnostics-test.{}.tmp", dead_pid()));
    let user_file = d.join("notes.txt");
    for p in [&stale, &mine, &init, &other_name, &user_file] {
        touch(p);
    }
    let link = d.join(format!(
        ".agnostics-test.{}.fedcba9876543210.tmp",
        dead_pid()
    ));
    std::os::unix::fs::symlink(&user_file, &link).unwrap();
    let dir_named = d.join(format!(
        ".agnostics-test.{}.00000000000000aa.tmp",
        dead_pid()
    ));
    std::fs::create_dir(&dir_named).unwrap();

    let swept = sweep(d);
    assert!(swept.removed.is_empty(), "{swept:?}");
    assert!(remove_stale(d).is_empty());
    let mut reported: Vec<_> = swept.left.iter().map(|l| l.path.clone()).collect();
    reported.sort();
    let mut expected = vec![stale.clone(), mine.clone(), init.clone()];
    expected.sort();
    assert_eq!(reported, expected);
    for left in &swept.left {
        assert_eq!(left.reason, LeftReason::OldVersion);
        assert!(left.message().contains(&left.path.display().to_string()));
    }
    for p in [&stale, &mine, &init, &other_name, &user_file, &dir_named] {
        assert!(p.exists(), "{} kept", p.display());
    }
    assert!(std::fs::symlink_metadata(&link).is_ok(), "symlink kept");
}

fn stale_files_of_other_users_are_kept() -> agnostics_testkit::Ran {
    agnostics_testkit::require_root("chown")?;
    let dir = scratch_dir();
    let theirs = dir.path().join(format!(
        ".agnostics-test.{}.0123456789abcdef.tmp",
        dead_pid()
    ));
    touch(&theirs);
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    assert!(remove_stale(dir.path()).is_empty());
    assert!(theirs.exists());
    Ok(())
}

fn refused_direct_io_names_the_filesystem_and_leaves_nothing() -> agnostics_testkit::Ran {
    agnostics_testkit::require_root("mounts a ramfs")?;
    let dir = scratch_dir();
    let mnt = dir.path().join("ram");
    std::fs::create_dir(&mnt).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "ramfs", "ramfs"])
        .arg(&mnt)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mount ramfs");
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(&mnt);
    match TestFile::create(&mnt, true, "ramfs") {
        Err(EngineError::DirectIoRefused { fs_type }) => assert_eq!(fs_type, "ramfs"),
        other => panic!("expected DirectIoRefused, got {other:?}"),
    }
    assert!(entries(&mnt).is_empty());
    // Without O_DIRECT the same filesystem is fine.
    let file = TestFile::create(&mnt, false, "ramfs").unwrap();
    file.remove().unwrap();
    Ok(())
}

agnostics_testkit::test_list!(
    creates_a_private_uniquely_named_file_and_removes_it,
    a_replaced_file_is_not_removed_and_the_leftover_is_named,
    a_file_recreated_by_our_child_is_reclaimed_and_removed,
    loose_files_of_version_0_1_are_kept_and_reported,
    stale_files_of_other_users_are_kept,
    refused_direct_io_names_the_filesystem_and_leaves_nothing,
);
