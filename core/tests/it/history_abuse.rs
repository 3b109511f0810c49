//! The run history given bad input: a history path that is a folder, a device or an empty
//! file, drive names that would read as ids or carry control characters, and import files
//! that are empty or an empty array. Each is a clear error (or nothing to do) that changes
//! nothing stored. Real SQLite files in scratch folders on `/var/tmp`.

use std::path::{Path, PathBuf};

use agnostics_core::history::{DriveId, DriveIdentity, History, HistoryError, IdentityBasis};
use agnostics_core::report::Report;
use agnostics_core::sample;
use agnostics_testkit::scratch_dir;

const MIB: f64 = 1024.0 * 1024.0;

fn drive(id: &str) -> DriveIdentity {
    DriveIdentity {
        id: id.parse::<DriveId>().unwrap(),
        basis: IdentityBasis::Cid,
        name: None,
    }
}

/// A finished run `run_id` on the drive `drive_id`.
fn report(run_id: &str, drive_id: &str) -> Report {
    sample::report()
        .run_id(run_id)
        .drive(drive(drive_id))
        .run(sample::run(
            1,
            [
                sample::phase("seq-write").bw_bytes(20.0 * MIB),
                sample::phase("rand-4k-write").iops(900.0),
            ],
        ))
        .build()
}

fn db(dir: &Path) -> PathBuf {
    dir.join("history.sqlite3")
}

/// Two drives, `a544bf15…` with one run and `bbbbbb01…` with one run.
fn two_drives(path: &Path) -> History {
    let mut h = History::open(path).unwrap();
    h.record(&report(&"1".repeat(32), "a544bf15e608ae0b"))
        .unwrap();
    h.record(&report(&"2".repeat(32), "bbbbbb0123456789"))
        .unwrap();
    h
}

/// A name another drive has (in any case) is refused, naming that drive: the name would then
/// select neither. A drive may be given its own name again.
fn a_name_another_drive_has_is_refused() {
    let dir = scratch_dir();
    let mut h = two_drives(&db(dir.path()));
    h.name_drive("a544bf15", "Kitchen Pi").unwrap();
    for name in ["Kitchen Pi", "kitchen pi", " KITCHEN PI "] {
        match h.name_drive("bbbbbb01", name) {
            Err(HistoryError::NameTaken { drive, .. }) => assert_eq!(drive, "a544bf15"),
            other => panic!("{name}: {other:?}"),
        }
    }
    h.name_drive("a544bf15", "Kitchen Pi").unwrap();
    assert_eq!(
        h.resolve_drive("Kitchen Pi").unwrap().as_str(),
        "a544bf15e608ae0b"
    );
    let names: Vec<Option<String>> = h.drives().unwrap().into_iter().map(|d| d.name).collect();
    assert_eq!(names.iter().flatten().count(), 1, "{names:?}");
}

/// `export` carries each drive's name and `import` gives it to a drive that has none (never
/// over a name given there, nor one another drive has, nor an invalid one); importing the
/// export back is `already_there`, not a conflict.
fn drive_names_survive_export_and_import() {
    let dir = scratch_dir();
    let mut h = two_drives(&db(dir.path()));
    h.name_drive("a544bf15", "Kitchen Pi").unwrap();
    let exported = h.export(&Default::default()).unwrap();
    let names: Vec<Option<&str>> = exported
        .iter()
        .map(|r| r.drive.as_ref().unwrap().name.as_deref())
        .collect();
    assert_eq!(names, [Some("Kitchen Pi"), None]);
    let file = dir.path().join("export.json");
    std::fs::write(&file, serde_json::to_string(&exported).unwrap()).unwrap();
    let again = h.import(&file).unwrap();
    assert_eq!(
        (again.already_there.len(), again.conflicting.len()),
        (2, 0),
        "{again:?}"
    );

    let other = scratch_dir();
    let mut fresh = History::open(&db(other.path())).unwrap();
    assert_eq!(fresh.import(&file).unwrap().added.len(), 2);
    assert_eq!(
        fresh.resolve_drive("Kitchen Pi").unwrap().as_str(),
        "a544bf15e608ae0b"
    );
    // Stored runs carry no name: it is the history's, not the run's.
    let stored = fresh.report(&"1".repeat(32)).unwrap();
    assert_eq!(stored.drive.unwrap().name, None);

    // A history where the drive has a name of its own, and another where another drive has
    // that name: neither changes.
    let third = scratch_dir();
    let mut named = two_drives(&db(third.path()));
    named.name_drive("a544bf15", "Mine").unwrap();
    named.name_drive("bbbbbb01", "Other").unwrap();
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc[1]["drive"]["name"] = serde_json::json!("Mine");
    doc[1]["run_id"] = serde_json::json!("5".repeat(32));
    doc[0]["run_id"] = serde_json::json!("6".repeat(32));
    std::fs::write(&file, doc.to_string()).unwrap();
    assert_eq!(named.import(&file).unwrap().added.len(), 2);
    let mut now: Vec<(String, Option<String>)> = named
        .drives()
        .unwrap()
        .into_iter()
        .map(|d| (d.id.as_str().to_owned(), d.name))
        .collect();
    now.sort();
    assert_eq!(
        now,
        [
            ("a544bf15e608ae0b".to_owned(), Some("Mine".to_owned())),
            ("bbbbbb0123456789".to_owned(), Some("Other".to_owned()))
        ]
    );
    // An invalid name in a document is left out; the runs are imported.
    let fourth = scratch_dir();
    let mut plain = History::open(&db(fourth.path())).unwrap();
    doc[0]["drive"]["name"] = serde_json::json!("bad\u{202e}name");
    doc[1]["drive"].as_object_mut().unwrap().remove("name");
    std::fs::write(&file, doc.to_string()).unwrap();
    assert_eq!(plain.import(&file).unwrap().added.len(), 2);
    assert!(plain.drives().unwrap().iter().all(|d| d.name.is_none()));
}

/// An import document with a string or an array over its bound, or larger than 8 MiB, is
/// refused naming the field (or the size), and nothing of its file is stored; an export of
/// many documents is read whole.
fn import_bounds_strings_arrays_and_documents() {
    use agnostics_core::history::import::{MAX_ARRAY_ITEMS, MAX_DOCUMENT_BYTES, MAX_STRING_BYTES};
    let dir = scratch_dir();
    let mut h = History::open(&db(dir.path())).unwrap();
    let file = dir.path().join("doc.json");
    let good = serde_json::to_value(report(&"7".repeat(32), "a544bf15e608ae0b")).unwrap();
    let cases: Vec<(serde_json::Value, String)> = vec![
        (
            {
                let mut d = good.clone();
                d["target"]["model"] = serde_json::json!("m".repeat(MAX_STRING_BYTES + 1));
                d
            },
            format!("field target.model is {} bytes long", MAX_STRING_BYTES + 1),
        ),
        (
            {
                let mut d = good.clone();
                d["warnings"] = serde_json::json!(vec![""; MAX_ARRAY_ITEMS + 1]);
                d
            },
            format!("field warnings has {} items", MAX_ARRAY_ITEMS + 1),
        ),
        (
            {
                let mut d = good.clone();
                d["target"]["model"] =
                    serde_json::json!("m".repeat(MAX_DOCUMENT_BYTES as usize + 1));
                d
            },
            "a document is larger than 8 MiB".to_owned(),
        ),
    ];
    for (doc, says) in cases {
        // Alone, and as the second document of an array after a good one.
        for text in [
            doc.to_string(),
            serde_json::json!([good.clone(), doc.clone()]).to_string(),
        ] {
            std::fs::write(&file, &text).unwrap();
            match h.import(&file) {
                Err(HistoryError::Malformed { reason, .. }) => {
                    assert!(reason.contains(&says), "{reason}")
                }
                other => panic!("{says}: {other:?}"),
            }
            assert!(h.runs(&Default::default()).unwrap().is_empty(), "{says}");
        }
    }
    let many: Vec<serde_json::Value> = (0..300)
        .map(|i| {
            let mut d = good.clone();
            d["run_id"] = serde_json::json!(format!("{:032x}", 0xc000 + i));
            d
        })
        .collect();
    std::fs::write(&file, serde_json::to_string(&many).unwrap()).unwrap();
    assert_eq!(h.import(&file).unwrap().added.len(), 300);
}

/// A name of 6 or more hex digits is refused: it could be another drive's short id, and
/// `forget --drive` with that id would then remove the wrong drive's runs.
fn a_name_that_reads_as_an_id_is_refused() {
    let dir = scratch_dir();
    let mut h = two_drives(&db(dir.path()));
    for name in ["bbbbbb01", "BBBBBB", "deadbeef", "111111"] {
        let e = h.name_drive("a544bf15", name).unwrap_err();
        assert!(matches!(e, HistoryError::NameLikeId(_)), "{name}: {e:?}");
        assert!(e.to_string().contains("hex digits"), "{e}");
    }
    // Short hex, or hex with a word, is a name like any other.
    h.name_drive("a544bf15", "beef").unwrap();
    h.name_drive("a544bf15", "Card bbbbbb01").unwrap();
    assert_eq!(
        h.resolve_drive("Card bbbbbb01").unwrap().as_str(),
        "a544bf15e608ae0b"
    );
    assert_eq!(
        h.resolve_drive("bbbbbb01").unwrap().as_str(),
        "bbbbbb0123456789"
    );
}

/// A drive's id prefix selects that drive even when a history (written before names were
/// checked) holds that prefix as another drive's name.
fn an_id_prefix_wins_over_a_stored_name() {
    let dir = scratch_dir();
    let path = db(dir.path());
    drop(two_drives(&path));
    // As an older program stored it.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE drives SET name = 'bbbbbb01' WHERE drive_id = 'a544bf15e608ae0b'",
        [],
    )
    .unwrap();
    drop(conn);
    let mut h = History::open(&path).unwrap();
    assert_eq!(
        h.resolve_drive("bbbbbb01").unwrap().as_str(),
        "bbbbbb0123456789"
    );
    assert_eq!(h.forget_drive("bbbbbb01").unwrap(), 1);
    // The named drive's run is still there.
    assert_eq!(h.runs(&Default::default()).unwrap().len(), 1);
    assert!(h.report(&"1".repeat(32)).is_ok());
    // With no drive of that prefix left, the name selects its drive.
    assert_eq!(
        h.resolve_drive("bbbbbb01").unwrap().as_str(),
        "a544bf15e608ae0b"
    );
}

/// A refused name is shown with its control characters escaped and cut to 40 characters, so
/// that the message cannot recolour or clear the terminal.
fn a_bad_name_is_shown_escaped_and_short() {
    let dir = scratch_dir();
    let mut h = two_drives(&db(dir.path()));
    let e = h.name_drive("a544bf15", "bad\x1b[31mred").unwrap_err();
    assert!(matches!(e, HistoryError::BadName(_)), "{e:?}");
    let text = e.to_string();
    assert!(!text.contains('\x1b'), "{text:?}");
    assert!(text.contains("bad\\u{1b}[31mred"), "{text}");
    // A bidi override would show "Kitchen" reversed and hide what follows.
    let e = h
        .name_drive("a544bf15", "card \u{202e}nehctiK")
        .unwrap_err();
    assert!(matches!(e, HistoryError::BadName(_)), "{e:?}");
    assert!(e.to_string().contains("card \\u{202e}nehctiK"), "{e}");
    let e = h.name_drive("a544bf15", &"x".repeat(1000)).unwrap_err();
    let text = e.to_string();
    assert!(text.contains(&format!("{}…", "x".repeat(40))), "{text}");
    assert!(!text.contains(&"x".repeat(41)), "{text}");
    // Nothing was named.
    assert!(h.drives().unwrap().iter().all(|d| d.name.is_none()));
}

/// A folder or a device as the history is `NotAFile`, for writing and for reading, and is
/// left as it is.
fn a_folder_or_a_device_is_not_a_history() {
    let dir = scratch_dir();
    let folder = dir.path().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    for path in [folder.as_path(), Path::new("/dev/null")] {
        let e = History::open(path).unwrap_err();
        assert!(
            matches!(e, HistoryError::NotAFile { .. }),
            "{path:?}: {e:?}"
        );
        assert!(e.to_string().contains("AGNOSTICS_HISTORY"), "{e}");
        let e = History::open_read_only(path).unwrap_err();
        assert!(
            matches!(e, HistoryError::NotAFile { .. }),
            "{path:?}: {e:?}"
        );
    }
    assert!(folder.is_dir());
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    // A symlink to a folder is refused for writing as a link, and is no file for reading.
    let link = dir.path().join("link.sqlite3");
    std::os::unix::fs::symlink(&folder, &link).unwrap();
    let e = History::open(&link).unwrap_err();
    assert!(matches!(e, HistoryError::Symlink { .. }), "{e:?}");
    let e = History::open_read_only(&link).unwrap_err();
    assert!(matches!(e, HistoryError::NotAFile { .. }), "{e:?}");
}

/// An empty file (made by `touch`, or by a program that stopped before its first write) is a
/// history with nothing recorded, for reading; writing starts it.
fn an_empty_file_is_a_history_not_started() {
    let dir = scratch_dir();
    let path = db(dir.path());
    std::fs::File::create(&path).unwrap();
    let e = History::open_read_only(&path).unwrap_err();
    assert!(matches!(e, HistoryError::NoHistory { .. }), "{e:?}");
    let mut h = History::open(&path).unwrap();
    assert!(h.moved_aside().is_none());
    h.record(&report(&"3".repeat(32), "a544bf15e608ae0b"))
        .unwrap();
    drop(h);
    let h = History::open_read_only(&path).unwrap();
    assert_eq!(h.runs(&Default::default()).unwrap().len(), 1);
}

/// What `export` prints for an empty history (`[]`) imports as nothing; an empty file is
/// refused with a reason that says so.
fn an_empty_export_imports_and_an_empty_file_is_refused() {
    let dir = scratch_dir();
    let path = db(dir.path());
    let empty = History::open(&dir.path().join("empty.sqlite3")).unwrap();
    let array = serde_json::to_string(&empty.export(&Default::default()).unwrap()).unwrap();
    assert_eq!(array, "[]");
    let file = dir.path().join("export.json");
    std::fs::write(&file, &array).unwrap();
    let mut h = two_drives(&path);
    let outcome = h.import(&file).unwrap();
    assert!(outcome.added.is_empty() && outcome.already_there.is_empty());
    assert_eq!(h.runs(&Default::default()).unwrap().len(), 2);
    let blank = dir.path().join("blank.json");
    for contents in ["", "\n  \n"] {
        std::fs::write(&blank, contents).unwrap();
        let e = h.import(&blank).unwrap_err();
        assert!(matches!(e, HistoryError::Malformed { .. }), "{e:?}");
        assert!(e.to_string().contains("the file is empty"), "{e}");
    }
    assert_eq!(h.runs(&Default::default()).unwrap().len(), 2);
}

/// A document with a run id the history has, but other contents (edited, or forged to
/// replace a run), is `conflicting`: the stored run is kept as it was; the same document
/// again is `already_there`.
fn a_forged_run_id_keeps_the_stored_run() {
    let dir = scratch_dir();
    let mut h = two_drives(&db(dir.path()));
    let id = "1".repeat(32);
    let before = serde_json::to_value(h.report(&id).unwrap()).unwrap();
    let same = dir.path().join("same.json");
    std::fs::write(
        &same,
        serde_json::to_string(&h.report(&id).unwrap()).unwrap(),
    )
    .unwrap();
    let outcome = h.import(&same).unwrap();
    assert_eq!(outcome.already_there.len(), 1, "{outcome:?}");
    assert!(outcome.conflicting.is_empty(), "{outcome:?}");
    // Forged consistently (its checks agree with its figures: the history's own grading
    // finds nothing wrong with it alone).
    let mut forged = h.report(&id).unwrap();
    forged.runs[0].phases[0].seconds += 1.0;
    let file = dir.path().join("forged.json");
    std::fs::write(&file, serde_json::to_string(&forged).unwrap()).unwrap();
    let outcome = h.import(&file).unwrap();
    assert!(outcome.added.is_empty() && outcome.already_there.is_empty());
    assert_eq!(outcome.conflicting.len(), 1, "{outcome:?}");
    assert_eq!(outcome.conflicting[0].0, id);
    assert_eq!(
        serde_json::to_value(h.report(&id).unwrap()).unwrap(),
        before
    );
}

/// The history's figures are rounded down as the run's own table is, so a run that missed a
/// target never shows the target: 499.7 IOPS is 499, 9.99 MB/s is 9.9.
fn figures_are_rounded_down_like_the_report() {
    use agnostics_core::figure::Unit;
    use agnostics_core::history::format_figure;
    assert_eq!(format_figure(499.7, Unit::Iops), "499 IOPS");
    assert_eq!(format_figure(9.99e6, Unit::BytesPerSecond), "9.9 MB/s");
    assert_eq!(format_figure(2.3e6, Unit::BytesPerSecond), "2.3 MB/s");
    assert_eq!(format_figure(12.0 * MIB, Unit::BytesPerSecond), "12.5 MB/s");
}

/// A UTF-8 byte-order mark before the JSON is accepted; a `started` that is not a time, or
/// one years ahead (it would stay the drive's latest run), is refused naming the field.
fn a_bom_is_read_and_implausible_dates_are_refused() {
    let dir = scratch_dir();
    let mut h = History::open(&db(dir.path())).unwrap();
    let file = dir.path().join("run.json");
    let mut doc = serde_json::to_value(report(&"3".repeat(32), "a544bf15e608ae0b")).unwrap();
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(serde_json::to_vec(&doc).unwrap());
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(h.import(&file).unwrap().added.len(), 1);
    for (started, says) in [
        ("yesterday", "not an RFC 3339 time"),
        ("9999-01-01T00:00:00Z", "in the future"),
    ] {
        doc["run_id"] = serde_json::json!("4".repeat(32));
        doc["started"] = serde_json::json!(started);
        std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
        let e = h.import(&file).unwrap_err();
        assert!(matches!(e, HistoryError::Malformed { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("started") && msg.contains(says), "{msg}");
    }
    assert_eq!(h.runs(&Default::default()).unwrap().len(), 1);
}

/// A history path under a regular file (`notes.txt/history.sqlite3`) says a file is in the
/// way, with what to do, not "File exists"; the file is left as it is.
fn a_history_under_a_regular_file_says_so() {
    let dir = scratch_dir();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, b"mine\n").unwrap();
    for path in [
        file.join("history.sqlite3"),
        file.join("a/b/history.sqlite3"),
    ] {
        let e = History::open(&path).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("a file is where the history's folder must be"),
            "{text}"
        );
        assert!(
            text.contains("AGNOSTICS_HISTORY") && !text.contains("os error"),
            "{text}"
        );
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"mine\n");
}

agnostics_testkit::test_list!(
    a_history_under_a_regular_file_says_so,
    a_bom_is_read_and_implausible_dates_are_refused,
    a_name_that_reads_as_an_id_is_refused,
    a_name_another_drive_has_is_refused,
    drive_names_survive_export_and_import,
    import_bounds_strings_arrays_and_documents,
    an_id_prefix_wins_over_a_stored_name,
    a_bad_name_is_shown_escaped_and_short,
    a_folder_or_a_device_is_not_a_history,
    an_empty_file_is_a_history_not_started,
    an_empty_export_imports_and_an_empty_file_is_refused,
    a_forged_run_id_keeps_the_stored_run,
    figures_are_rounded_down_like_the_report,
);
