//! The run history on real SQLite files in scratch folders on disk (`/var/tmp`): storing and
//! reading runs, two writers at once, a damaged file moved aside, read-only, locked and full
//! databases, migration from the first schema, import, drive identity from the card fixtures,
//! and the trend and compare rules.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agnostics_core::card::CardInfo;
use agnostics_core::history::{
    self, compare, comparison_markdown, comparison_text, describe, schema, trend, Change, DriveId,
    DriveIdentity, FigureUnit, History, HistoryError, IdentityBasis, Outcome, Provenance,
    RunFilter,
};
use agnostics_core::report::{ErrorKind, Report, TargetReport};
use agnostics_core::sample;
use agnostics_core::target_dir::Transport;
use agnostics_testkit::{require_root, scratch_dir, Ran, Tmpfs};

const MIB: f64 = 1024.0 * 1024.0;

fn drive(name: &str) -> DriveIdentity {
    DriveIdentity {
        id: DriveId::hash(IdentityBasis::Cid, &[name]),
        basis: IdentityBasis::Cid,
        name: None,
    }
}

fn provenance(profile_hash: &str) -> Provenance {
    Provenance {
        program_version: "0.1.0".into(),
        engine: agnostics_core::engine::EngineKind::Native,
        fio_version: None,
        profile_name: "sd_bench".into(),
        profile_hash: profile_hash.into(),
        kernel: Some("6.6.51+rpt-rpi-2712".into()),
        pi_model: Some("Raspberry Pi 5 Model B Rev 1.0".into()),
        cpu_governor: Some("ondemand".into()),
        soc_temp_millicelsius: Some(48_500),
        throttled: Some(0),
        sd_bus_mode: None,
    }
}

fn run_id(n: u32) -> String {
    format!("{n:08x}{:024x}", 0xabcdefu64)
}

/// A finished standard run on `drive_name` with sequential write `seq_mib` MiB/s.
fn report(n: u32, drive_name: &str, day: u32, seq_mib: f64) -> Report {
    sample::report()
        .run_id(&run_id(n))
        .started(&format!("2026-06-{day:02}T12:00:00+02:00"))
        .drive(drive(drive_name))
        .measured_with(provenance("00112233aabbccdd"))
        .run(sample::run(
            1,
            [
                sample::phase("seq-write").bw_bytes(seq_mib * MIB),
                sample::phase("seq-read").bw_bytes(40.0 * MIB),
                sample::phase("rand-4k-write").iops(900.0),
                sample::phase("rand-4k-read").iops(2000.0),
            ],
        ))
        .build()
}

fn db(dir: &Path) -> PathBuf {
    dir.join("state/agnostics/history.sqlite3")
}

fn stored(h: &History) -> usize {
    h.runs(&RunFilter::default()).unwrap().len()
}

fn round_trip() {
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

fn trend_through_the_store_and_forgetting() {
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

fn ambiguous_and_short_prefixes() {
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
fn writer(path: &Path, tag: u32, n: u32) {
    let mut h = History::open(path).unwrap();
    for i in 0..n {
        h.record(&report(tag * 1000 + i, "kitchen", 1 + i % 28, 12.0))
            .unwrap();
    }
}

fn two_threads_record_at_once() {
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
fn history_writer_child() {
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

fn two_processes_record_at_once() {
    let dir = scratch_dir();
    // Both start on a file that does not exist yet: both create, set WAL and migrate it.
    let path = db(dir.path());
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (3..=4)
        .map(|tag| {
            Command::new(&exe)
                .args(["--exact", "history_writer_child", "--test-threads", "1"])
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

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn corrupt_file_is_moved_aside_never_overwritten() {
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

fn read_only_filesystem() -> Ran {
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

fn locked_database() {
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

fn full_disk() -> Ran {
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

fn migrates_from_the_first_schema() {
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
fn a_wal_history_is_switched_to_a_rollback_journal() {
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

/// `report`'s JSON with every phase's figures set to 1 (KiB/s, IOPS) and its verdicts left
/// as they were: PASS.
fn edited_to_one(report: &Report) -> String {
    let mut doc = serde_json::to_value(report).unwrap();
    for run in doc["runs"].as_array_mut().unwrap() {
        for p in run["phases"].as_array_mut().unwrap() {
            p["bw_bytes"] = serde_json::json!(1024.0);
            p["iops"] = serde_json::json!(1.0);
        }
    }
    serde_json::to_string(&doc).unwrap()
}

/// A document whose verdicts its own figures do not give is refused on import, naming the
/// check; one already stored (an earlier version, a file edited in place) is shown, listed and
/// exported with the verdicts its figures give.
fn verdicts_are_graded_again_from_the_figures() {
    let dir = scratch_dir();
    let path = db(dir.path());
    let r = report(1, "kitchen", 1, 12.0);
    assert_eq!(r.verdict, agnostics_core::verdict::Verdict::Pass);
    let edited = edited_to_one(&r);
    let file = dir.path().join("edited.json");
    std::fs::write(&file, &edited).unwrap();
    let mut h = History::open(&path).unwrap();
    match h.import(&file) {
        Err(HistoryError::Malformed { reason, .. }) => assert!(
            reason.contains(
                "contradict its own figures (run 1: A1 seq-write: the document says PASS"
            ),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(stored(&h), 0, "nothing imported");
    h.record(&r).unwrap();
    drop(h);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE runs SET document = ?1", [&edited])
        .unwrap();
    let h = History::open_read_only(&path).unwrap();
    use agnostics_core::verdict::Verdict;
    let shown = h.report(&run_id(1)).unwrap();
    assert_eq!(
        (shown.verdict, shown.a2_verdict),
        (Verdict::Fail, Verdict::Fail)
    );
    assert!(shown.runs[0]
        .checks
        .iter()
        .all(|c| c.verdict == Verdict::Fail && c.value.is_some_and(|v| v <= 1.0)));
    assert_eq!(
        h.runs(&RunFilter::default()).unwrap()[0].verdict,
        Verdict::Fail
    );
    let exported = h.export(&RunFilter::default()).unwrap();
    assert_eq!(exported[0].verdict, Verdict::Fail);
    assert!(exported[0].contradictions().is_empty());
}

/// The drive's own counters of every phase are stored and come back as they were, and a
/// stored run whose counters account for under 90 % of a phase's bytes is shown ERROR, its
/// checks not graded, however the document graded it.
fn device_counters_are_kept_and_judged_again() {
    use agnostics_core::verdict::Verdict;
    let dir = scratch_dir();
    let path = db(dir.path());
    let phases = |read_bytes: u64| {
        [
            sample::phase("seq-write")
                .bw_bytes(12.0 * MIB)
                .device_io("mmcblk0p2", 12 << 20, 3),
            sample::phase("seq-read")
                .bw_bytes(40.0 * MIB)
                .device_io("mmcblk0p2", read_bytes, 10),
            sample::phase("rand-4k-write")
                .iops(900.0)
                .device_io("mmcblk0p2", 900 * 4096, 900),
            sample::phase("rand-4k-read")
                .iops(2000.0)
                .device_io("mmcblk0p2", 2000 * 4096, 2000),
        ]
    };
    let counted = |n: u32, read_bytes: u64| {
        sample::report()
            .run_id(&run_id(n))
            .started(&format!("2026-06-{n:02}T12:00:00+02:00"))
            .drive(drive("kitchen"))
            .measured_with(provenance("00112233aabbccdd"))
            .run(sample::run(1, phases(read_bytes)))
            .build()
    };
    let good = counted(1, 40 << 20);
    let short = counted(2, 4 << 20);
    assert_eq!(good.verdict, Verdict::Pass);
    assert_eq!(short.verdict, Verdict::Pass, "as a document may say");
    let mut h = History::open(&path).unwrap();
    h.record(&good).unwrap();
    h.record(&short).unwrap();
    drop(h);
    let h = History::open_read_only(&path).unwrap();
    let back = h.report(&run_id(1)).unwrap();
    assert_eq!(back, good.redacted().regraded());
    let io = back.runs[0].phases[1].device_io.as_deref().unwrap();
    assert_eq!(
        (
            io.device.as_str(),
            io.read_bytes,
            io.reads,
            io.written_bytes
        ),
        ("mmcblk0p2", 40 << 20, 10, 0)
    );
    assert_eq!(back.verdict, Verdict::Pass);
    let shown = h.report(&run_id(2)).unwrap();
    assert_eq!(
        (shown.verdict, shown.a2_verdict),
        (Verdict::Error, Verdict::Error)
    );
    let reason = "seq-read: mmcblk0p2 read 4.0 MiB of the 40.0 MiB the test read: the rest \
                  was answered from memory, not by the drive";
    assert!(
        shown.runs[0]
            .checks
            .iter()
            .all(|c| c.verdict == Verdict::Error && c.reason.as_deref() == Some(reason)),
        "{:#?}",
        shown.runs[0].checks
    );
    let listed = h.runs(&RunFilter::default()).unwrap();
    let verdict_of = |n: u32| {
        listed
            .iter()
            .find(|r| r.run.0 == run_id(n))
            .unwrap()
            .verdict
    };
    assert_eq!(
        (verdict_of(1), verdict_of(2)),
        (Verdict::Pass, Verdict::Error)
    );
}

fn newer_schema_is_left_alone() {
    let dir = scratch_dir();
    let path = dir.path().join("future.sqlite3");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99")
            .unwrap();
    }
    let e = History::open(&path).unwrap_err();
    assert!(
        matches!(e, HistoryError::NewerSchema { found: 99, .. }),
        "{e:?}"
    );
    let c = rusqlite::Connection::open(&path).unwrap();
    let v: u32 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 99);
}

fn import_validates_and_is_idempotent() {
    let dir = scratch_dir();
    let mut h = History::open(&db(dir.path())).unwrap();
    let good = dir.path().join("good.json");
    std::fs::write(
        &good,
        serde_json::to_string(&vec![
            report(1, "kitchen", 1, 12.0),
            report(2, "kitchen", 2, 12.1),
        ])
        .unwrap(),
    )
    .unwrap();
    let out = h.import(&good).unwrap();
    assert_eq!(out.added.len(), 2);
    assert!(out.already_there.is_empty());
    // Again: nothing new.
    let out = h.import(&good).unwrap();
    assert!(out.added.is_empty());
    assert_eq!(out.already_there.len(), 2);
    let before = h.export(&RunFilter::default()).unwrap();
    assert_eq!(before.len(), 2);
    // A malformed document in an array: a clear error naming the file, nothing stored.
    let bad = dir.path().join("bad.json");
    let mut broken = serde_json::to_value(report(3, "kitchen", 3, 12.0)).unwrap();
    broken["runs"] = serde_json::json!("lots");
    let doc = serde_json::json!([
        serde_json::to_value(report(4, "kitchen", 4, 12.0)).unwrap(),
        broken
    ]);
    std::fs::write(&bad, doc.to_string()).unwrap();
    let e = h.import(&bad).unwrap_err();
    assert!(matches!(e, HistoryError::Malformed { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("bad.json") && text.contains("document 2"),
        "{text}"
    );
    assert_eq!(h.export(&RunFilter::default()).unwrap(), before);
    // Not JSON; JSON of another program; a version 1 document (no run id) twice.
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, b"\x00\x01 not json").unwrap();
    assert!(matches!(
        h.import(&junk),
        Err(HistoryError::Malformed { .. })
    ));
    let foreign = dir.path().join("foreign.json");
    std::fs::write(&foreign, r#"{"program": "fio-3.33", "jobs": []}"#).unwrap();
    let e = h.import(&foreign).unwrap_err();
    assert!(matches!(e, HistoryError::Foreign { .. }), "{e:?}");
    assert!(e.to_string().contains("foreign.json"));
    let mut v1 = serde_json::to_value(report(5, "kitchen", 5, 12.0)).unwrap();
    for key in ["schema_version", "run_id", "drive", "measured_with"] {
        v1.as_object_mut().unwrap().remove(key);
    }
    let old = dir.path().join("old.json");
    std::fs::write(&old, v1.to_string()).unwrap();
    let first = h.import(&old).unwrap();
    assert_eq!(first.added.len(), 1);
    assert_eq!(first.added[0].0.len(), 32);
    let again = h.import(&old).unwrap();
    assert_eq!(again.already_there, first.added);
    assert_eq!(h.report(&first.added[0].0).unwrap().schema_version, 1);
    assert_eq!(stored(&h), 3);
}

/// The card of fixture `name` read from a sysfs tree laid out as `layout` does it.
fn card_from(root: &Path, name: &str, layout: u8, without: &[&str]) -> CardInfo {
    match layout {
        0 => {
            agnostics_testkit::card_sysfs(root, name, without, &[]);
        }
        _ => {
            let files: Vec<(String, String)> = agnostics_testkit::fixture_files(name)
                .into_iter()
                .filter(|(k, _)| !without.contains(&k.as_str()))
                .collect();
            agnostics_testkit::mmc_host_tree(
                root,
                &files,
                &agnostics_testkit::MmcHost {
                    ios: Some(&agnostics_testkit::ios_fixture("ios-sd-high-speed")),
                    raspberry_pi_5: true,
                    ..Default::default()
                },
            );
        }
    }
    agnostics_core::card::identify(root, "mmcblk0").expect("the fixture's card")
}

fn target(partition: &str) -> TargetReport {
    sample::target()
        .device(Some("mmcblk0"), Some(partition))
        .build()
}

fn identity_of(name: &str, layout: u8, without: &[&str]) -> DriveIdentity {
    let dir = scratch_dir();
    let card = card_from(dir.path(), name, layout, without);
    history::identify(Some(&card), &target("mmcblk0p2"), dir.path()).expect("an identity")
}

fn identity_from_card_fixtures() {
    // The same card in two readers (two sysfs layouts): one id.
    let a = identity_of("kingston-sd64g-2019-imx.json", 0, &[]);
    let b = identity_of("kingston-sd64g-2019-imx.json", 1, &[]);
    assert_eq!(a, b);
    assert_eq!(a.basis, IdentityBasis::Cid);
    // The same card, published from two machines.
    assert_eq!(
        a,
        identity_of("kingston-sd64g-2019-stm32mp135f.json", 0, &[])
    );
    // Without the register (the kernel's readings of it only): still the same card.
    assert_eq!(a, identity_of("kingston-sd64g-2019-imx.json", 0, &["cid"]));
    // Different cards: different ids, none containing the serial.
    let names = [
        "kingston-sd64g-2019-imx.json",
        "kingston-sd64g-2023-04.json",
        "p2-sandisk-sh32g-32gb.json",
        "p2-sandisk-su08g-8gb.json",
        "samsung-emmc-m8g1gc.json",
        "sandisk-sc16g-bbb.json",
        "rpi-sdinfo-kingston-sd128.json",
    ];
    let mut ids = Vec::new();
    for n in names {
        let dir = scratch_dir();
        let card = card_from(dir.path(), n, 0, &[]);
        let id = history::identify(Some(&card), &target("mmcblk0p2"), dir.path()).unwrap();
        let psn = card.cid.as_ref().and_then(|c| c.psn).unwrap();
        let text = serde_json::to_string(&id).unwrap();
        for serial in [format!("{psn:08x}"), format!("{psn:x}"), psn.to_string()] {
            assert!(!text.contains(&serial), "{n}: {text} holds {serial}");
        }
        assert_eq!(id.id.as_str().len(), 16);
        ids.push(id.id);
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
}

fn identity_of_usb_nvme_and_filesystems() {
    let dir = scratch_dir();
    let r = dir.path();
    let usb = "devices/pci0000:00/0000:00:14.0/usb1/1-2";
    let disk = format!("{usb}/1-2:1.0/host0/target0:0:0/0:0:0:0/block/sda");
    std::fs::create_dir_all(r.join(&disk)).unwrap();
    for (k, v) in [
        ("idVendor", "0781"),
        ("idProduct", "5581"),
        ("serial", "4C530001231122115125"),
        ("speed", "5000"),
    ] {
        std::fs::write(r.join(usb).join(k), format!("{v}\n")).unwrap();
    }
    std::os::unix::fs::symlink("../..", r.join(&disk).join("device")).unwrap();
    std::fs::create_dir_all(r.join("block")).unwrap();
    std::os::unix::fs::symlink(format!("../{disk}"), r.join("block/sda")).unwrap();
    let card = agnostics_core::card::identify(r, "sda").unwrap();
    assert_eq!(card.kind, Transport::Usb);
    let t = sample::target()
        .device(Some("sda"), Some("sda1"))
        .transport(Transport::Usb)
        .fs_type("vfat")
        .build();
    let id = history::identify(Some(&card), &t, r).unwrap();
    assert_eq!(id.basis, IdentityBasis::Usb);
    assert_eq!(
        id.id,
        DriveId::hash(
            IdentityBasis::Usb,
            &["0781", "5581", "4C530001231122115125"]
        )
    );
    assert!(!serde_json::to_string(&id).unwrap().contains("4C53"));
    // No serial: the filesystem's UUID.
    std::fs::remove_file(r.join(usb).join("serial")).unwrap();
    let by_uuid = r.join("dev/disk/by-uuid");
    std::fs::create_dir_all(&by_uuid).unwrap();
    std::os::unix::fs::symlink("../../sda1", by_uuid.join("5E1A-2F0B")).unwrap();
    std::os::unix::fs::symlink("../../sdb1", by_uuid.join("0000-1111")).unwrap();
    let id = history::identity::identify_with(Some(&card), &t, r, &r.join("dev")).unwrap();
    assert_eq!(id.basis, IdentityBasis::FilesystemUuid);
    assert_eq!(
        id.id,
        DriveId::hash(IdentityBasis::FilesystemUuid, &["5e1a-2f0b"])
    );
    // Nothing known at all.
    let t2 = sample::target()
        .device(Some("sdc"), Some("sdc1"))
        .fs_type("vfat")
        .build();
    assert!(history::identity::identify_with(None, &t2, r, &r.join("dev")).is_none());
    // NVMe: model and serial of the controller.
    let nv = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0";
    std::fs::create_dir_all(r.join(nv).join("nvme0n1")).unwrap();
    std::fs::write(r.join(nv).join("model"), "WD Blue SN580\n").unwrap();
    std::fs::write(r.join(nv).join("serial"), "23411Z800123\n").unwrap();
    std::os::unix::fs::symlink("..", r.join(nv).join("nvme0n1/device")).unwrap();
    std::os::unix::fs::symlink(format!("../{nv}/nvme0n1"), r.join("block/nvme0n1")).unwrap();
    let card = agnostics_core::card::identify(r, "nvme0n1").unwrap();
    assert_eq!(card.kind, Transport::Nvme);
    let id = history::identify(Some(&card), &t, r).unwrap();
    assert_eq!(id.basis, IdentityBasis::Nvme);
    assert_eq!(
        id.id,
        DriveId::hash(IdentityBasis::Nvme, &["WD Blue SN580", "23411Z800123"])
    );
}

fn filesystem_uuid_from_the_superblock() -> Ran {
    require_root("a loop device")?;
    agnostics_testkit::require_program("blkid")?;
    let fs = agnostics_testkit::LoopFs::new(16);
    let blkid = agnostics_testkit::run(
        Command::new("blkid").args(["-s", "UUID", "-o", "value", &fs.device]),
    );
    assert_eq!(
        history::identity::superblock_uuid(Path::new(&fs.device)).as_deref(),
        Some(blkid.as_str())
    );
    // Through identify, with a /dev that has no by-uuid links (no udev).
    let t = sample::target()
        .device(Some(&fs.loop_name()), Some(&fs.loop_name()))
        .transport(Transport::Loop)
        .build();
    let empty = scratch_dir();
    let id = history::identity::identify_with(None, &t, empty.path(), Path::new("/dev")).unwrap();
    assert_eq!(id.basis, IdentityBasis::FilesystemUuid);
    let fsid = history::identity::ext_fsid_of_uuid(&blkid).unwrap();
    assert_eq!(
        id.id,
        DriveId::hash(
            IdentityBasis::FilesystemUuid,
            &["ext", &format!("{fsid:016x}")]
        )
    );
    // The kernel's statfs f_fsid is that fold of the UUID, so a machine that can read neither
    // udev's links nor the disk still finds the same drive.
    assert_eq!(history::identity::statfs_fsid(&fs.mount), Some(fsid));
    let mut no_device = t.clone();
    no_device.path = fs.mount.display().to_string();
    no_device.partition = None;
    let same = history::identity::identify_with(None, &no_device, empty.path(), empty.path());
    assert_eq!(same.map(|i| i.id), Some(id.id));
    Ok(())
}

fn fat_volume_id() {
    let mut head = vec![0u8; 2048];
    head[510] = 0x55;
    head[511] = 0xaa;
    head[82..90].copy_from_slice(b"FAT32   ");
    head[67..71].copy_from_slice(&0x5e1a_2f0bu32.to_le_bytes());
    assert_eq!(
        history::identity::uuid_from_superblock(&head).as_deref(),
        Some("5E1A-2F0B")
    );
    assert_eq!(history::identity::uuid_from_superblock(&[0u8; 2048]), None);
    assert_eq!(history::identity::uuid_from_superblock(&[]), None);
}

fn provenance_from_a_fixture_tree() {
    let dir = scratch_dir();
    let r = dir.path();
    let write = |p: &str, v: &[u8]| {
        let p = r.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, v).unwrap();
    };
    write(
        "sys/firmware/devicetree/base/model",
        b"Raspberry Pi 5 Model B Rev 1.0\0",
    );
    write(
        "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
        b"ondemand\n",
    );
    write("sys/class/thermal/thermal_zone0/temp", b"51250\n");
    write(
        "sys/devices/platform/soc/soc:firmware/get_throttled",
        b"50005\n",
    );
    write("proc/sys/kernel/osrelease", b"6.6.51+rpt-rpi-2712\n");
    let profile = agnostics_core::profile::Profile::sd_bench();
    let roots = history::provenance::Roots {
        proc_root: &r.join("proc"),
        sysfs_root: &r.join("sys"),
    };
    let p = history::provenance::collect(
        &roots,
        agnostics_core::engine::EngineKind::Native,
        &profile,
        None,
    );
    assert_eq!(
        p.pi_model.as_deref(),
        Some("Raspberry Pi 5 Model B Rev 1.0")
    );
    assert_eq!(p.cpu_governor.as_deref(), Some("ondemand"));
    assert_eq!(p.soc_temp_millicelsius, Some(51_250));
    assert_eq!(p.throttled, Some(0x50005));
    assert_eq!(p.kernel.as_deref(), Some("6.6.51+rpt-rpi-2712"));
    assert_eq!(p.profile_name, "sd_bench");
    assert_eq!(p.profile_hash.len(), 16);
    assert_eq!(p.profile_hash, history::provenance::profile_hash(&profile));
    assert_eq!(p.program_version, agnostics_core::VERSION);
    assert!(p.fio_version.is_none());
    // An empty tree: nothing readable, nothing invented.
    let empty = scratch_dir();
    let roots = history::provenance::Roots {
        proc_root: empty.path(),
        sysfs_root: empty.path(),
    };
    let p = history::provenance::collect(
        &roots,
        agnostics_core::engine::EngineKind::Native,
        &profile,
        None,
    );
    assert_eq!(
        (
            p.pi_model,
            p.cpu_governor,
            p.soc_temp_millicelsius,
            p.throttled,
            p.kernel
        ),
        (None, None, None, None, None)
    );
    assert_eq!(
        history::provenance::parse_throttled("throttled=0x0"),
        Some(0)
    );
}

/// A real (small) standard run in a scratch folder on disk: the report carries its run id,
/// document version, how it was measured, and (with the device readable, as root) the
/// filesystem's identity; it is stored and a second run gets a trend.
fn a_real_run_fills_the_history_fields() -> Ran {
    require_root("reads the scratch disk's superblock for its identity")?;
    let dir = scratch_dir();
    let mut profile = agnostics_core::profile::Profile::parse(
        "[global]\nioengine=libaio\ndirect=1\niodepth=4\nsize=4m\n\n\
         [prepare-file]\nrw=write\nbs=512k\nstonewall\n\n\
         [seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=1\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=4k\nruntime=1\nstonewall\n",
        "small.fio",
        None,
    )
    .unwrap();
    profile.name = "small".into();
    let opts = agnostics_core::sdtest::TestOptions {
        runs: 1,
        profile: profile.clone(),
        lock_dir: agnostics_testkit::private_lock_dir(std::path::Path::new(env!(
            "CARGO_TARGET_TMPDIR"
        ))),
        ..agnostics_core::sdtest::TestOptions::standard(dir.path().to_path_buf())
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let first = agnostics_core::sdtest::run(&opts, &cancel, &|_| {});
    assert!(!first.runs.is_empty(), "{:?}", first.error);
    assert_eq!(first.schema_version, agnostics_core::report::SCHEMA_VERSION);
    assert_eq!(first.run_id.len(), 32);
    let p = first.measured_with.as_ref().unwrap();
    assert_eq!(p.profile_name, "small");
    assert_eq!(p.profile_hash, history::provenance::profile_hash(&profile));
    assert_eq!(p.program_version, agnostics_core::VERSION);
    assert!(p.kernel.is_some());
    let partition = first.target.as_ref().and_then(|t| t.partition.clone());
    // A container may forbid opening the disk even to root: then nothing identifies it.
    if partition.is_some_and(|p| std::fs::File::open(Path::new("/dev").join(p)).is_ok()) {
        let d = first
            .drive
            .as_ref()
            .expect("identified by its filesystem's UUID");
        assert_eq!(d.basis, IdentityBasis::FilesystemUuid);
    }
    let second = agnostics_core::sdtest::run(&opts, &cancel, &|_| {});
    assert_ne!(first.run_id, second.run_id);
    let db_dir = scratch_dir();
    let mut h = History::open(&db(db_dir.path())).unwrap();
    h.record(&first).unwrap();
    let rec = h.record(&second).unwrap();
    match &first.drive {
        Some(d) => {
            assert_eq!(second.drive.as_ref(), Some(d));
            let t = rec.trend.expect("the same drive and profile");
            assert_eq!(t.earlier_runs, 1);
            assert!(!t.figures.is_empty());
        }
        None => assert!(rec.trend.is_none()),
    }
    assert_eq!(stored(&h), 2);
    Ok(())
}

fn trend_rule() {
    let earlier = [report(1, "kitchen", 1, 12.0)];
    let t = trend(&report(2, "kitchen", 2, 6.0), &earlier).unwrap();
    let seq = &t.figures[0];
    assert_eq!(seq.phase, "seq-write");
    assert_eq!(seq.unit, FigureUnit::BytesPerSecond);
    assert_eq!(seq.change, Change::Down);
    assert!((seq.change_ratio + 0.5).abs() < 1e-9);
    assert!(t.decline);
    let t = trend(&report(2, "kitchen", 2, 11.8), &earlier).unwrap();
    assert_eq!(t.figures[0].change, Change::Same);
    assert!(!t.decline);
    assert!(history::decline_advice(&t).is_empty());
    assert!(
        describe(&t.figures[0]).contains("about the same"),
        "{}",
        describe(&t.figures[0])
    );
    // The drive's own spread: 10 and 14 earlier, 8.5 is within half the spread below.
    let spread = [report(1, "kitchen", 1, 10.0), report(3, "kitchen", 3, 14.0)];
    assert_eq!(
        trend(&report(4, "kitchen", 4, 8.5), &spread)
            .unwrap()
            .figures[0]
            .change,
        Change::Same
    );
    assert_eq!(
        trend(&report(4, "kitchen", 4, 7.9), &spread)
            .unwrap()
            .figures[0]
            .change,
        Change::Down
    );
    let up = trend(&report(4, "kitchen", 4, 16.5), &spread).unwrap();
    assert_eq!(up.figures[0].change, Change::Up);
    assert!(!up.decline);
    assert!(
        describe(&up.figures[0]).contains("up 18 % from 14.6 MB/s on 2026-06-03 (2 earlier runs)"),
        "{}",
        describe(&up.figures[0])
    );
    // Down by the rule but less than 20 %: a change, not a marked decline.
    let small = trend(&report(2, "kitchen", 2, 10.5), &earlier).unwrap();
    assert_eq!(small.figures[0].change, Change::Down);
    assert!(!small.decline);
    // Nothing earlier, another profile, a failed run: no trend.
    assert!(trend(&report(2, "kitchen", 2, 6.0), &[]).is_none());
    let mut other = report(1, "kitchen", 1, 12.0);
    other.measured_with = Some(provenance("ffffffffffffffff"));
    assert!(trend(&report(2, "kitchen", 2, 6.0), &[other]).is_none());
    let mut failed = report(1, "kitchen", 1, 12.0);
    failed.error = Some(sample::error(ErrorKind::Io, "x"));
    assert!(trend(&report(2, "kitchen", 2, 6.0), &[failed]).is_none());
    assert_eq!(history::trend::change(5.0, &[10.0]), Change::Down);
    assert_eq!(history::trend::change(9.6, &[10.0]), Change::Same);
}

fn compare_side_by_side() {
    let mut left = report(1, "kitchen", 1, 12.0);
    let mut right = report(2, "garage", 2, 36.0);
    left.card = Some(CardInfo {
        device: "mmcblk0".into(),
        kind: Transport::Sd,
        model: Some("SD64G".into()),
        link: Some(agnostics_core::card::LinkInfo {
            name: "SD high speed (4-bit, 50 MHz)".into(),
            max_bw_bytes: 25e6,
            basis: "x".into(),
        }),
        ..CardInfo::default()
    });
    right.card = Some(CardInfo {
        device: "sda".into(),
        kind: Transport::Usb,
        model: Some("SanDisk Extreme".into()),
        link: agnostics_core::card::link::usb(480.0),
        ..CardInfo::default()
    });
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    right.target.as_mut().unwrap().path = format!("{home}/mnt/usb");
    let c = compare(&left, &right);
    let seq = c.figures.iter().find(|f| f.phase == "seq-write").unwrap();
    assert_eq!(seq.left, Some(12.0 * MIB));
    assert!((seq.ratio.unwrap() - 3.0).abs() < 1e-9);
    assert_eq!(c.left.link.as_ref().unwrap().bytes_per_second, 25e6);
    assert_eq!(c.right.link.as_ref().unwrap().bytes_per_second, 60e6);
    assert!(!c.different_measurement);
    let md = comparison_markdown(&c);
    assert!(
        md.contains("| Sequential write | 12.5 MB/s | 37.7 MB/s | ×3.00 |"),
        "{md}"
    );
    assert!(md.contains("at most 25.0 MB/s"), "{md}");
    assert!(!md.contains(&home) || home == "/", "{md}");
    let text = comparison_text(&c);
    assert!(text.contains("×3.00") && text.contains("USB 2.0"), "{text}");
    assert!(text.contains("about 40.0 MB/s in practice"), "{text}");
    assert_eq!(
        c.left.link.as_ref().unwrap().practical_bytes_per_second,
        None
    );
    assert_eq!(
        agnostics_core::report::without_home(&format!("{home}/x")),
        "~/x".to_owned()
    );
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["figures"][0]["phase"], "seq-write");
}

agnostics_testkit::main!(
    round_trip,
    trend_through_the_store_and_forgetting,
    ambiguous_and_short_prefixes,
    two_threads_record_at_once,
    history_writer_child,
    two_processes_record_at_once,
    corrupt_file_is_moved_aside_never_overwritten,
    read_only_filesystem,
    locked_database,
    full_disk,
    migrates_from_the_first_schema,
    a_wal_history_is_switched_to_a_rollback_journal,
    verdicts_are_graded_again_from_the_figures,
    device_counters_are_kept_and_judged_again,
    newer_schema_is_left_alone,
    import_validates_and_is_idempotent,
    identity_from_card_fixtures,
    identity_of_usb_nvme_and_filesystems,
    filesystem_uuid_from_the_superblock,
    fat_volume_id,
    provenance_from_a_fixture_tree,
    a_real_run_fills_the_history_fields,
    trend_rule,
    compare_side_by_side,
);
