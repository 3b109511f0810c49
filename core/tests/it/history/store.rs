//! Storing and reading runs: a round trip, the trend through the store, forgetting, id
//! prefixes, and two threads or two processes recording into one file at once.

use super::*;

pub(crate) fn round_trip() {
    let dir = scratch_dir();
    let path = db(dir.path());
    let mut card = CardInfo {
        device: "mmcblk0".into(),
        kind: Transport::Sd,
        model: Some("SD64G".into()),
        ..CardInfo::default()
    };
    card.cid = Some(agnostics_core::card::CidInfo {
        mid: Some(0x9f),
        psn: Some(0x3698_0065),
        pnm: Some("SD64G".into()),
        ..Default::default()
    });
    card.sysfs = Some(agnostics_core::card::mmc::SysfsIds {
        serial: Some("0x36980065".into()),
        ..Default::default()
    });
    let mut r = report(1, "kitchen", 1, 12.0);
    r.card = Some(card);
    let mut h = History::open(&path).unwrap();
    assert!(h.moved_aside().is_none());
    let rec = h.record(&r).unwrap();
    assert_eq!(rec.run.0, run_id(1));
    assert!(!rec.already_there);
    assert!(rec.trend.is_none(), "no earlier run: no trend");
    // Recording it again changes nothing.
    assert!(h.record(&r).unwrap().already_there);
    let runs = h.runs(&RunFilter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].outcome, Outcome::Finished);
    assert_eq!(runs[0].seq_write_bw, Some(12.0 * MIB));
    assert_eq!(runs[0].drive_label, "SD64G (SD)");
    // By a prefix of the id; the stored document is the redacted one, graded again (the
    // sample card's host does not say whether it queues commands: A2 is not graded).
    let back = h.report(&run_id(1)[..8]).unwrap();
    assert_eq!(back, r.redacted().regraded());
    assert_eq!(back.a2_verdict, agnostics_core::verdict::Verdict::Error);
    let json = serde_json::to_string(&back).unwrap();
    assert!(!json.contains("36980065"), "{json}");
    assert!(!json.contains(&0x3698_0065u32.to_string()));
    // A rollback journal on disk (no -wal or -shm), and the drive can be named and found by its name.
    let mode: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete");
    let id = h
        .name_drive(&drive("kitchen").id.as_str()[..6], "Kitchen Pi card")
        .unwrap();
    assert_eq!(id, drive("kitchen").id);
    assert!(matches!(
        h.name_drive("Kitchen Pi card", &"x".repeat(101)),
        Err(HistoryError::BadName(_))
    ));
    let drives = h.drives().unwrap();
    assert_eq!(drives.len(), 1);
    assert_eq!(drives[0].name.as_deref(), Some("Kitchen Pi card"));
    assert_eq!(drives[0].label, "Kitchen Pi card");
    assert_eq!(drives[0].runs, 1);
    let by_name = RunFilter {
        drive: Some("Kitchen Pi card".into()),
        profile: Some("sd_bench".into()),
    };
    assert_eq!(h.runs(&by_name).unwrap().len(), 1);
    // A second history handle sees it too (the file, not a cache).
    drop(h);
    let h = History::open_read_only(&path).unwrap();
    assert_eq!(stored(&h), 1);
    assert!(matches!(
        History::open_read_only(&dir.path().join("none.sqlite3")),
        Err(HistoryError::NoHistory { .. })
    ));
    assert_eq!(
        h.series(&drive("kitchen").id, "sd_bench").unwrap().len(),
        4,
        "one point per figure"
    );
}

pub(crate) fn trend_through_the_store_and_forgetting() {
    let dir = scratch_dir();
    let mut h = History::open(&db(dir.path())).unwrap();
    for (n, mib) in [(1, 12.6), (2, 12.4), (3, 12.6)] {
        h.record(&report(n, "kitchen", n, mib)).unwrap();
    }
    // Another drive and another profile contents do not count.
    h.record(&report(10, "garage", 4, 30.0)).unwrap();
    let mut other = report(11, "kitchen", 4, 30.0);
    other.measured_with = Some(provenance("ffffffffffffffff"));
    h.record(&other).unwrap();
    let rec = h.record(&report(4, "kitchen", 5, 6.3)).unwrap();
    let t = rec.trend.expect("three earlier runs");
    assert_eq!(t.earlier_runs, 3);
    let seq = t.figures.iter().find(|f| f.phase == "seq-write").unwrap();
    assert_eq!(seq.change, Change::Down);
    assert_eq!(seq.earlier_runs, 3);
    assert!(t.decline);
    assert_eq!(
        describe(seq),
        "Sequential write 6.6 MB/s — down 50 % from 13.2 MB/s on 2026-06-03 (3 earlier runs)"
    );
    assert_eq!(history::decline_advice(&t).len(), 3);
    // Failed and cancelled runs are stored as such; a refused one is not history.
    let cancelled = sample::report()
        .run_id(&run_id(20))
        .drive(drive("kitchen"))
        .error(sample::error(ErrorKind::Cancelled, "cancelled"))
        .build();
    assert!(h.record(&cancelled).unwrap().trend.is_none());
    let failed = sample::report()
        .run_id(&run_id(21))
        .run(sample::run(1, [sample::phase("seq-write").bw_bytes(MIB)]))
        .error(sample::error(ErrorKind::Io, "read failed"))
        .build();
    h.record(&failed).unwrap();
    let refused = Report::refused(
        agnostics_core::engine::EngineKind::Native,
        sample::report().build().profile,
        sample::error(ErrorKind::Profile, "bad profile"),
        agnostics_core::advice::Advice::ImplausibleResult,
    );
    assert!(matches!(
        h.record(&refused),
        Err(HistoryError::NotHistory(_))
    ));
    let outcomes: Vec<Outcome> = h
        .runs(&RunFilter::default())
        .unwrap()
        .iter()
        .map(|r| r.outcome)
        .collect();
    assert_eq!(outcomes.len(), 8);
    assert!(outcomes.contains(&Outcome::Cancelled));
    assert!(outcomes.contains(&Outcome::Failed));
    // Forget one run, then a drive, then everything.
    assert_eq!(h.forget_run(&run_id(4)).unwrap(), 1);
    assert!(matches!(
        h.report(&run_id(4)),
        Err(HistoryError::NotFound(_))
    ));
    let e = h.forget_drive("garage").unwrap_err();
    assert!(matches!(e, HistoryError::NotFound(_)), "{e:?}");
    assert!(e.to_string().contains("garage"), "{e}");
    assert_eq!(h.forget_drive(drive("garage").id.as_str()).unwrap(), 1);
    assert_eq!(h.forget_all().unwrap(), 6);
    assert_eq!(stored(&h), 0);
    assert!(h.drives().unwrap().is_empty());
}

pub(crate) fn ambiguous_and_short_prefixes() {
    let dir = scratch_dir();
    let mut h = History::open(&db(dir.path())).unwrap();
    // Two ids sharing their first 8 digits.
    let a = format!("{:08x}{:024x}", 7, 1);
    let b = format!("{:08x}{:024x}", 7, 2);
    for id in [&a, &b] {
        h.record(
            &sample::report()
                .run_id(id)
                .run(sample::run(1, [sample::phase("seq-write").bw_bytes(MIB)]))
                .build(),
        )
        .unwrap();
    }
    assert!(matches!(h.report(&a[..8]), Err(HistoryError::Ambiguous(_))));
    assert!(matches!(h.report(&a[..4]), Err(HistoryError::Ambiguous(_))));
    assert!(matches!(
        h.report("zzzzzzzz"),
        Err(HistoryError::NotFound(_))
    ));
    assert_eq!(h.report(&a).unwrap().run_id, a);
    let bad = sample::report()
        .run_id("not-an-id")
        .run(sample::run(1, [sample::phase("seq-write").bw_bytes(MIB)]))
        .build();
    assert!(matches!(
        h.record(&bad),
        Err(HistoryError::Malformed { .. })
    ));
}

/// Records `n` runs with ids `<tag>…` into `path` from its own handle.
pub(crate) fn writer(path: &Path, tag: u32, n: u32) {
    let mut h = History::open(path).unwrap();
    for i in 0..n {
        h.record(&report(tag * 1000 + i, "kitchen", 1 + i % 28, 12.0))
            .unwrap();
    }
}

pub(crate) fn two_threads_record_at_once() {
    let dir = scratch_dir();
    let path = db(dir.path());
    let threads: Vec<_> = (1..=2)
        .map(|tag| {
            let path = path.clone();
            std::thread::spawn(move || writer(&path, tag, 25))
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(stored(&History::open(&path).unwrap()), 50);
}

/// The child side of [`two_processes_record_at_once`]: with `AGNOSTICS_TEST_HISTORY_CHILD` set
/// to a file, records 25 runs tagged by `AGNOSTICS_TEST_HISTORY_TAG` into it; else into a
/// fresh file of its own.
pub(crate) fn history_writer_child() {
    match std::env::var_os("AGNOSTICS_TEST_HISTORY_CHILD") {
        Some(path) => {
            let tag = std::env::var("AGNOSTICS_TEST_HISTORY_TAG")
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(9);
            writer(Path::new(&path), tag, 25);
        }
        None => {
            let dir = scratch_dir();
            writer(&db(dir.path()), 9, 25);
            assert_eq!(stored(&History::open(&db(dir.path())).unwrap()), 25);
        }
    }
}

pub(crate) fn two_processes_record_at_once() {
    let dir = scratch_dir();
    // Both start on a file that does not exist yet: both create, set WAL and migrate it.
    let path = db(dir.path());
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (3..=4)
        .map(|tag| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "history::history_writer_child",
                    "--test-threads",
                    "1",
                ])
                .env("AGNOSTICS_TEST_HISTORY_CHILD", &path)
                .env("AGNOSTICS_TEST_HISTORY_TAG", tag.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let h = History::open(&path).unwrap();
    assert_eq!(stored(&h), 50, "every run of both processes");
}

/// A run another test spoiled (it measured, but the drive was shared) is stored as shared:
/// not failed, shown as not graded, and left out of the drive's trend.
pub(crate) fn a_run_another_test_spoiled_is_stored_as_shared_not_failed() {
    let dir = scratch_dir();
    let mut h = History::open(&db(dir.path())).unwrap();
    for (n, mib) in [(1, 12.6), (2, 12.4)] {
        h.record(&report(n, "kitchen", n, mib)).unwrap();
    }
    let mut spoiled = report(3, "kitchen", 3, 1.0);
    spoiled.error = Some(sample::error(
        ErrorKind::SharedDrive,
        "another test used the drive",
    ));
    spoiled
        .advice
        .push(agnostics_core::advice::Advice::SharedDrive);
    spoiled.verdict = agnostics_core::verdict::Verdict::Error;
    assert_eq!(Outcome::of(&spoiled), Ok(Outcome::Shared));
    h.record(&spoiled).unwrap();
    let runs = h.runs(&RunFilter::default()).unwrap();
    let stored = runs.iter().find(|r| r.run.0 == run_id(3)).unwrap();
    assert_eq!(stored.outcome, Outcome::Shared);
    assert_eq!(stored.outcome.as_str(), "shared");
    assert_eq!(
        stored.shown_verdict(),
        agnostics_core::verdict::Verdict::NotGraded
    );
    // The next run compares with the two the drive had to itself, not the spoiled one.
    let t = h
        .record(&report(4, "kitchen", 4, 12.5))
        .unwrap()
        .trend
        .expect("two earlier runs");
    assert_eq!(t.earlier_runs, 2);
    let seq = t.figures.iter().find(|f| f.phase == "seq-write").unwrap();
    assert_eq!(seq.change, Change::Same);
}
