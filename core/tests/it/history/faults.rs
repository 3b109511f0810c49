//! A history that cannot be used as it is: a damaged file moved aside, read-only, locked and
//! full databases, migration from the first schema, a WAL file switched to a rollback journal.

use super::*;

pub(crate) fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

pub(crate) fn corrupt_file_is_moved_aside_never_overwritten() {
    let dir = scratch_dir();
    let path = db(dir.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"this is not a database, it is my shopping list\n").unwrap();
    let mut h = History::open(&path).unwrap();
    let Some(HistoryError::Corrupt {
        moved_to: Some(first),
        ..
    }) = h.moved_aside()
    else {
        panic!("moved aside: {:?}", h.moved_aside());
    };
    let first = first.clone();
    assert!(first
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("history.sqlite3.corrupt-"));
    assert_eq!(
        std::fs::read(&first).unwrap(),
        b"this is not a database, it is my shopping list\n"
    );
    let warning = h.moved_aside().unwrap().warning();
    assert!(warning.contains("moved aside"), "{warning}");
    h.record(&report(1, "kitchen", 1, 12.0)).unwrap();
    drop(h);
    // A second damaged file, within the same second: a new name, the first copy untouched.
    std::fs::write(&path, b"garbage two").unwrap();
    let h = History::open(&path).unwrap();
    let Some(HistoryError::Corrupt {
        moved_to: Some(second),
        ..
    }) = h.moved_aside()
    else {
        panic!("moved aside again");
    };
    assert_ne!(&first, second);
    assert_eq!(std::fs::read(second).unwrap(), b"garbage two");
    assert_eq!(
        std::fs::read(&first).unwrap(),
        b"this is not a database, it is my shopping list\n"
    );
    assert_eq!(stored(&h), 0, "a new history");
    drop(h);
    // A file with SQLite's header but damaged pages is moved aside too.
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xA5u8, 8192));
    std::fs::write(&path, &bytes).unwrap();
    let h = History::open(&path).unwrap();
    let Some(HistoryError::Corrupt {
        moved_to: Some(third),
        ..
    }) = h.moved_aside()
    else {
        panic!("damaged pages moved aside: {:?}", h.moved_aside());
    };
    assert_eq!(std::fs::read(third).unwrap(), bytes);
    // Reading only never moves anything.
    drop(h);
    std::fs::write(&path, b"garbage three").unwrap();
    let before = files_in(path.parent().unwrap());
    assert!(matches!(
        History::open_read_only(&path),
        Err(HistoryError::Corrupt { moved_to: None, .. })
    ));
    assert_eq!(files_in(path.parent().unwrap()), before);
}

pub(crate) fn read_only_filesystem() -> Ran {
    require_root("mounts a tmpfs and remounts it read-only")?;
    let fs = Tmpfs::new(4);
    let path = fs.mount.join("history.sqlite3");
    let mut h = History::open(&path).unwrap();
    h.record(&report(1, "kitchen", 1, 12.0)).unwrap();
    drop(h);
    agnostics_testkit::run(
        Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&fs.mount),
    );
    let e = History::open(&path).unwrap_err();
    assert!(matches!(e, HistoryError::ReadOnly { .. }), "{e:?}");
    assert!(e.to_string().contains("cannot be written"), "{e}");
    assert!(e.warning().contains("still reported"), "{}", e.warning());
    // A new file in a read-only folder.
    let e = History::open(&fs.mount.join("sub/new.sqlite3")).unwrap_err();
    assert!(matches!(e, HistoryError::ReadOnly { .. }), "{e:?}");
    let e = History::open(&fs.mount.join("new.sqlite3")).unwrap_err();
    assert!(matches!(e, HistoryError::ReadOnly { .. }), "{e:?}");
    Ok(())
}

pub(crate) fn locked_database() {
    let dir = scratch_dir();
    let path = db(dir.path());
    let mut h = History::open(&path).unwrap();
    h.set_busy_timeout(Duration::from_millis(200)).unwrap();
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let e = h.record(&report(1, "kitchen", 1, 12.0)).unwrap_err();
    assert!(matches!(e, HistoryError::Locked { .. }), "{e:?}");
    assert!(e.to_string().contains("locked"), "{e}");
    other.execute_batch("COMMIT").unwrap();
    h.record(&report(1, "kitchen", 1, 12.0)).unwrap();
    assert_eq!(stored(&h), 1);
}

pub(crate) fn full_disk() -> Ran {
    require_root("mounts a small tmpfs")?;
    let fs = Tmpfs::new(1);
    let path = fs.mount.join("history.sqlite3");
    let mut h = History::open(&path).unwrap();
    h.record(&report(1, "kitchen", 1, 12.0)).unwrap();
    // Fill what is left.
    let filler = fs.mount.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let block = vec![0u8; 64 * 1024];
    loop {
        use std::io::Write;
        if f.write_all(&block).is_err() {
            break;
        }
    }
    let _ = f.sync_all();
    let mut big = report(2, "kitchen", 2, 12.0);
    big.warnings.push("x".repeat(256 * 1024));
    let e = h.record(&big).unwrap_err();
    assert!(matches!(e, HistoryError::Full { .. }), "{e:?}");
    assert!(e.to_string().contains("full"), "{e}");
    drop(f);
    std::fs::remove_file(&filler).unwrap();
    // What was stored before is still there.
    assert_eq!(stored(&h), 1);
    Ok(())
}

pub(crate) fn migrates_from_the_first_schema() {
    let dir = scratch_dir();
    let path = dir.path().join("v1.sqlite3");
    let old = report(1, "kitchen", 1, 12.0).redacted();
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(schema::V1).unwrap();
        c.execute_batch("PRAGMA user_version = 1").unwrap();
        c.execute(
            "INSERT INTO runs VALUES (?1, ?2, 0, ?3, 'sd_bench', NULL, 'native', 'PASS', 'PASS', 'finished', ?4)",
            rusqlite::params![
                old.run_id,
                old.started,
                drive("kitchen").id.as_str(),
                serde_json::to_string(&old).unwrap()
            ],
        )
        .unwrap();
        c.execute(
            "INSERT INTO drives VALUES (?1, 'cid', 'Kitchen Pi card')",
            [drive("kitchen").id.as_str()],
        )
        .unwrap();
    }
    let h = History::open(&path).unwrap();
    let runs = h.runs(&RunFilter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].drive_name.as_deref(), Some("Kitchen Pi card"));
    assert_eq!(h.report(&old.run_id).unwrap(), old);
    drop(h);
    let c = rusqlite::Connection::open(&path).unwrap();
    let version: u32 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, schema::VERSION);
    let transport: String = c
        .query_row("SELECT transport FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        transport, "SD",
        "v2 filled the new column from the documents"
    );
}

/// A history that an earlier version kept in WAL mode: opened for writing, it is switched to
/// the rollback journal with its runs intact, and leaves no `-wal` or `-shm` file.
pub(crate) fn a_wal_history_is_switched_to_a_rollback_journal() {
    let dir = scratch_dir();
    let path = db(dir.path());
    {
        let mut h = History::open(&path).unwrap();
        h.record(&report(1, "kitchen", 1, 12.0)).unwrap();
    }
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        let mode: String = c
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
    let mut h = History::open(&path).unwrap();
    assert_eq!(stored(&h), 1);
    h.record(&report(2, "kitchen", 2, 11.0)).unwrap();
    drop(h);
    let mode: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete");
    assert_eq!(stored(&History::open_read_only(&path).unwrap()), 2);
    let names = files_in(path.parent().unwrap());
    assert!(
        !names
            .iter()
            .any(|n| n.ends_with("-wal") || n.ends_with("-shm")),
        "{names:?}"
    );
}
