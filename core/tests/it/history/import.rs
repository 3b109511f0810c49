//! Documents stored or imported are judged again: verdicts graded from the figures, device
//! counters kept and judged, a newer schema left alone, import's validation and idempotence.

use super::*;

/// `report`'s JSON with every phase's figures set to 1 (KiB/s, IOPS) and its verdicts left
/// as they were: PASS.
pub(crate) fn edited_to_one(report: &Report) -> String {
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
pub(crate) fn verdicts_are_graded_again_from_the_figures() {
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
pub(crate) fn device_counters_are_kept_and_judged_again() {
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

pub(crate) fn newer_schema_is_left_alone() {
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

pub(crate) fn import_validates_and_is_idempotent() {
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
