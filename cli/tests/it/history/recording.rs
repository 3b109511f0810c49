//! What `run` records: a finished run (native or fio), nothing with `--no-history` or when
//! refused, and both of two runs at once.

use super::*;

pub(crate) fn a_run_is_recorded_and_listed() -> Ran {
    let env = Env::new()?;
    let doc = env.run_json(&[]);
    let id = run_id(&doc);
    assert_eq!(id.len(), 32, "{id}");
    assert!(
        doc["trend"].is_null(),
        "the first run has nothing to compare with: {doc:#}"
    );
    assert!(
        env.history.is_file(),
        "no history file at {}",
        env.history.display()
    );
    let runs = env.listed();
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0]["run"], id.as_str());
    assert_eq!(runs[0]["profile"], doc["profile"]["name"]);
    assert_eq!(runs[0]["verdict"], doc["verdict"]);
    let seq_write = doc["runs"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "seq-write")
        .unwrap()["bw_bytes"]
        .as_f64()
        .unwrap();
    assert!((runs[0]["seq_write_bw"].as_f64().unwrap() - seq_write).abs() < 1.0);

    // The table: a header and a row with the short id, the profile and the verdict.
    let out = env.cmd(&["history"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("Run") && lines[0].contains("MB/s") && lines[0].contains("IOPS"));
    assert!(lines[1].contains(&id[..8]), "{text}");
    assert!(lines[1].contains("small"), "{text}");
    assert!(
        lines[1].contains(doc["verdict"].as_str().unwrap()),
        "{text}"
    );
    assert!(stderr(&out).contains(&env.history.display().to_string()));

    assert_csv(&env, &id, seq_write);

    // show: the stored report as the run printed it.
    let shown: Value =
        serde_json::from_str(&env.ok(&["history", "show", &id[..8], "--json"])).unwrap();
    assert_eq!(shown["run_id"], id.as_str());
    assert_eq!(shown["runs"], doc["runs"]);
    let text = env.ok(&["history", "show", &id]);
    assert!(text.contains("Run 1"), "{text}");
    let md = env.ok(&["history", "show", &id, "--markdown"]);
    assert!(md.contains("| seq-write") || md.contains("| Job"), "{md}");

    // Filters.
    assert_eq!(
        env.ok(&["history", "--profile", "small", "--json"])
            .trim_start()
            .chars()
            .next(),
        Some('[')
    );
    let none: Vec<Value> =
        serde_json::from_str(&env.ok(&["history", "--profile", "no-such-profile", "--json"]))
            .unwrap();
    assert!(none.is_empty());
    Ok(())
}

/// `history --csv` of the history `env` holds, one run `id` whose seq-write figure is
/// `seq_write` B/s: a header row and a row per run, read back by a CSV reader.
fn assert_csv(env: &Env, id: &str, seq_write: f64) {
    let csv_text = env.ok(&["history", "--csv"]);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(header[0], "run_id");
    assert!(header.iter().any(|h| h == "seq_write_mb_s"), "{header:?}");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1, "{csv_text}");
    assert_eq!(&rows[0][0], id);
    let col = header.iter().position(|h| h == "seq_write_mb_s").unwrap();
    let mb: f64 = rows[0][col].parse().unwrap();
    assert!((mb - seq_write / 1e6).abs() < 0.01, "{mb} vs {seq_write}");
}

pub(crate) fn a_fio_run_is_recorded_too() -> Ran {
    require_program("fio")?;
    let env = Env::new()?;
    let native = env.run_json(&[]);
    let fio = env.run_json(&["--engine", "fio"]);
    let runs = env.listed();
    assert_eq!(runs.len(), 2);
    // Two runs in the same second are listed in a fixed order, not necessarily this one.
    let engine_of = |doc: &Value| {
        runs.iter()
            .find(|r| r["run"] == run_id(doc).as_str())
            .unwrap_or_else(|| panic!("{runs:#?}"))["engine"]
            .clone()
    };
    assert_eq!(engine_of(&fio), "fio");
    assert_eq!(engine_of(&native), "native");
    // The same drive and profile measured by the other engine: compared all the same.
    assert!(fio["trend"]["figures"].is_array(), "{:#}", fio["trend"]);
    Ok(())
}

pub(crate) fn no_history_records_nothing() -> Ran {
    let env = Env::new()?;
    env.run_json(&["--no-history"]);
    assert!(
        !env.history.exists(),
        "--no-history created {}",
        env.history.display()
    );
    let out = env.cmd(&["history"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("No runs recorded yet"),
        "{}",
        stdout(&out)
    );
    assert!(
        !env.history.exists(),
        "listing created {}",
        env.history.display()
    );
    assert!(env.listed().is_empty());
    Ok(())
}

pub(crate) fn a_refused_run_is_not_recorded() -> Ran {
    let env = Env::new()?;
    let bad = env.dir.path().join("bad.fio");
    std::fs::write(&bad, "[a]\nsize=1m\nverify=md5\n").unwrap();
    let out = env
        .run_cmd()
        .args(["--json"])
        .target(&env.target)
        .profile(&bad)
        .output();
    assert_eq!(out.status.code(), Some(2));
    assert!(support::json(&out)["trend"].is_null());
    assert!(env.listed().is_empty());
    Ok(())
}

pub(crate) fn two_runs_at_once_are_both_recorded() -> Ran {
    let env = Env::new()?;
    let second = env.dir.path().join("target2");
    std::fs::create_dir(&second).unwrap();
    let spawn = |target: &Path| {
        env.cli()
            .args(["run", "--json", "--runs", "1", "--target"])
            .arg(target)
            .arg("--profile")
            .arg(&env.profile)
            .arg("--sysfs-root")
            .arg(&env.sysfs)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn(&env.target);
    let b = spawn(&second);
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let mut ids = Vec::new();
    for out in [&a, &b] {
        let doc = support::json(out);
        assert!(doc["error"].is_null(), "{doc:#}");
        assert!(!stderr(out).contains("warning"), "{}", stderr(out));
        ids.push(run_id(&doc));
    }
    let mut listed = env.run_ids();
    listed.sort();
    ids.sort();
    assert_eq!(listed, ids);
    Ok(())
}

/// A run on a drive the history's capacity check found fake is headed as fake, whatever its
/// speed; the same run on a drive without a check is not headed at all.
pub(crate) fn a_run_on_a_drive_found_fake_is_headed_fake() -> Ran {
    let env = Env::new()?;
    let first = env.run(&[]);
    let text = stdout(&first);
    assert!(!text.contains("fake"), "no check yet, no headline:\n{text}");
    let doc = env.run_json(&[]);
    let identity: agnostics_core::history::DriveIdentity =
        serde_json::from_value(doc["drive"].clone()).expect("the run's drive");
    let mut history = agnostics_core::history::History::open(&env.history).unwrap();
    history.record_capacity(&fake_check(identity)).unwrap();
    drop(history);

    let out = env.run(&[]);
    let text = stdout(&out);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("This drive is fake: do not trust it with your files"),
        "{text}"
    );
    assert!(
        lines
            .next()
            .unwrap_or("")
            .starts_with("Found fake: a capacity check found"),
        "{text}"
    );
    // The exit status is still the speed test's own.
    let doc = env.run_json(&[]);
    assert!(doc["error"].is_null(), "{doc:#}");
    Ok(())
}

/// A capacity check of the drive `identity` that found it fake (8 GiB of a claimed 32 GB).
fn fake_check(
    identity: agnostics_core::history::DriveIdentity,
) -> agnostics_core::capacity::CapacityReport {
    use agnostics_core::capacity::*;
    let claimed: u64 = 31_914_983_424;
    let real: u64 = 8 << 30;
    CapacityReport {
        check_id: "0000000000000000000000000000fa4e".to_owned(),
        started: "2026-01-02T03:04:05+00:00".to_owned(),
        seconds: 94.0,
        mode: Mode::Mounted,
        verdict: CapacityVerdict::Fake,
        drive: DriveFacts {
            disk: "mmcblk0".into(),
            dev: "179:0".into(),
            model: None,
            transport: agnostics_core::target_dir::Transport::Sd,
            partition: None,
            partition_start: None,
            target: None,
            fs_type: Some("ext4".into()),
        },
        identity: Some(identity),
        claims: Claims {
            device_bytes: claimed,
            csd_bytes: None,
            partitions_end_bytes: None,
        },
        claimed_bytes: claimed,
        verified_bytes: real,
        first_bad_address: Some(real),
        real_bytes: Some(real),
        coverage: Coverage {
            bytes: claimed,
            share: 1.0,
        },
        wraps_checked_bytes: claimed,
        powers: vec![1 << 30, 8 << 30],
        spots: SpotCounts {
            total: 4,
            base: 2,
            intact: 2,
            wrapped: 2,
            ..SpotCounts::default()
        },
        bad_spots: Vec::new(),
        unsure: Vec::new(),
        registers: Vec::new(),
        bytes_written: 4 * 4096,
        bytes_read: 4 * 4096,
        restore: None,
        recovered: Vec::new(),
    }
}
