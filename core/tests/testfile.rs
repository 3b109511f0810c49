//! The program's own test file: a unique name, mode 0600, removed only while it is ours;
//! stale files of killed runs removed only when their process is gone; O_DIRECT refusal.

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use agnostics_core::engine::testfile::{remove_stale, TestFile};
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
    let name = a.path().file_name().unwrap().to_str().unwrap().to_owned();
    assert!(
        name.starts_with(&format!(".agnostics-test.{}.", std::process::id())),
        "{name}"
    );
    assert!(name.ends_with(".tmp"));
    let meta = std::fs::symlink_metadata(a.path()).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(meta.len(), 0);
    a.remove().unwrap();
    drop(b);
    assert!(entries(dir.path()).is_empty());
}

fn a_replaced_file_is_not_removed() {
    let dir = scratch_dir();
    let file = TestFile::create(dir.path(), false, "ext4").unwrap();
    let path = file.path().to_path_buf();
    std::fs::remove_file(&path).unwrap();
    // Someone else's file now at that path (a symlink to something precious, here).
    let precious = dir.path().join("precious");
    touch(&precious);
    std::os::unix::fs::symlink(&precious, &path).unwrap();
    file.remove().unwrap();
    assert!(
        std::fs::symlink_metadata(&path).is_ok(),
        "the symlink stays"
    );
    assert!(precious.exists(), "its target stays");
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

fn stale_files_of_dead_processes_are_removed_and_nothing_else() {
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

    let removed = remove_stale(d);
    assert_eq!(removed, vec![stale.clone()]);
    assert!(!stale.exists());
    for p in [&mine, &init, &other_name, &user_file, &dir_named] {
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

agnostics_testkit::main!(
    creates_a_private_uniquely_named_file_and_removes_it,
    a_replaced_file_is_not_removed,
    a_file_recreated_by_our_child_is_reclaimed_and_removed,
    stale_files_of_dead_processes_are_removed_and_nothing_else,
    stale_files_of_other_users_are_kept,
    refused_direct_io_names_the_filesystem_and_leaves_nothing,
);
