//! The history never writes through a symbolic link or into another user's file: a history
//! path (or its journal) that is a link, dangling or not, is refused with
//! [`HistoryError::Symlink`]; as root, a file another user owns is refused with
//! [`HistoryError::NotOwned`]; the files behind are left byte for byte as they were, and no
//! file appears where a dangling link points. Reading through a link still works. Real files
//! in scratch folders on `/var/tmp`; the ownership tests need root (chown) and are reported
//! as ignored elsewhere.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use agnostics_core::history::{History, HistoryError};
use agnostics_testkit::{require_root, scratch_dir, Ran};

/// A SQLite file of "another program": one table, one row.
fn someone_elses_database(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("CREATE TABLE mine (x); INSERT INTO mine VALUES (42);")
        .unwrap();
}

/// Owner, mode and bytes of `path`: what must not change.
fn state(path: &Path) -> (u32, u32, Vec<u8>) {
    let m = std::fs::metadata(path).unwrap();
    (m.uid(), m.mode(), std::fs::read(path).unwrap())
}

fn symlink_error(path: &Path) {
    match History::open(path) {
        Err(HistoryError::Symlink { path: p }) => assert_eq!(p, path),
        other => panic!("{}: {other:?}", path.display()),
    }
}

fn a_link_to_an_empty_file_or_a_database_is_refused() -> Ran {
    let dir = scratch_dir();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, b"").unwrap();
    let db = dir.path().join("theirs.sqlite3");
    someone_elses_database(&db);
    for target in [&empty, &db] {
        let before = state(target);
        let link = dir.path().join("history.sqlite3");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(target, &link).unwrap();
        symlink_error(&link);
        assert_eq!(state(target), before, "{} changed", target.display());
        let message = History::open(&link).unwrap_err().to_string();
        assert!(
            message.contains("is a symbolic link") && message.contains("AGNOSTICS_HISTORY"),
            "{message}"
        );
    }
    // No journal, lock or WAL file was made beside the target either.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["empty", "history.sqlite3", "theirs.sqlite3"]);
    Ok(())
}

fn a_dangling_link_makes_no_file() -> Ran {
    let dir = scratch_dir();
    let target = dir.path().join("nowhere/else.sqlite3");
    std::fs::create_dir(dir.path().join("nowhere")).unwrap();
    let link = dir.path().join("history.sqlite3");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    symlink_error(&link);
    assert!(!target.exists(), "a file was made at the link's target");
    Ok(())
}

fn a_journal_link_is_refused() -> Ran {
    let dir = scratch_dir();
    let path = dir.path().join("history.sqlite3");
    History::open(&path).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"keep me").unwrap();
    let journal = dir.path().join("history.sqlite3-journal");
    std::os::unix::fs::symlink(&victim, &journal).unwrap();
    match History::open(&path) {
        Err(HistoryError::Symlink { path: p }) => assert_eq!(p, journal),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    Ok(())
}

fn reading_through_a_link_still_works() -> Ran {
    let dir = scratch_dir();
    let real = dir.path().join("real.sqlite3");
    History::open(&real).unwrap();
    let link = dir.path().join("history.sqlite3");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let h = History::open_read_only(&link).unwrap();
    assert!(h.runs(&Default::default()).unwrap().is_empty());
    Ok(())
}

/// As root: another user's empty file and another user's database, at the history's own
/// path (no link), are refused and left as they were; so is a history whose journal another
/// user owns.
fn another_users_file_is_refused() -> Ran {
    require_root("chowns files to another user")?;
    let dir = scratch_dir();
    let nobody = nix::unistd::Uid::from_raw(65534);
    let empty = dir.path().join("empty.sqlite3");
    std::fs::write(&empty, b"").unwrap();
    let db = dir.path().join("theirs.sqlite3");
    someone_elses_database(&db);
    for path in [&empty, &db] {
        nix::unistd::chown(path.as_path(), Some(nobody), None).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let before = state(path);
        match History::open(path) {
            Err(HistoryError::NotOwned {
                path: p,
                owner,
                user,
            }) => {
                assert_eq!(&p, path);
                assert_eq!((owner.as_str(), user.as_str()), ("nobody", "root"));
            }
            other => panic!("{}: {other:?}", path.display()),
        }
        assert_eq!(state(path), before, "{} changed", path.display());
    }
    let mine = dir.path().join("history.sqlite3");
    History::open(&mine).unwrap();
    let journal = dir.path().join("history.sqlite3-journal");
    std::fs::write(&journal, b"").unwrap();
    nix::unistd::chown(journal.as_path(), Some(nobody), None).unwrap();
    assert!(matches!(
        History::open(&mine),
        Err(HistoryError::NotOwned { .. })
    ));
    Ok(())
}

agnostics_testkit::test_list!(
    a_link_to_an_empty_file_or_a_database_is_refused,
    a_dangling_link_makes_no_file,
    a_journal_link_is_refused,
    reading_through_a_link_still_works,
    another_users_file_is_refused
);
