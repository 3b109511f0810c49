//! The `history` subcommands: import, export, forget, naming a drive, and unknown ids.

use super::*;

pub(crate) fn import_adds_skips_duplicates_and_refuses_bad_files() -> Ran {
    let source = Env::new()?;
    let a = source.run_json(&["--no-history"]);
    let mut b = source.run_json(&["--no-history"]);
    // A run's document as it prints after earlier runs: with a trend (which is not stored).
    b["trend"] = serde_json::json!({"figures": [], "earlier_runs": 1, "decline": false});
    let dir = source.dir.path();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let file_a = write("pi-a.json", &a.to_string());
    let file_b = write("pi-b.json", &b.to_string());
    let malformed = write("truncated.json", &a.to_string()[..200]);
    let foreign = write("other.json", r#"{"name": "not a report", "size": 3}"#);

    let env = Env::new()?;
    let out = env.cmd(&["history", "import", &file_a]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("pi-a.json: 1 run added, 0 already there"),
        "{}",
        stdout(&out)
    );
    assert_eq!(env.run_ids(), [run_id(&a)]);

    // A duplicate, a malformed and a foreign file among good ones: the good one is added, the
    // duplicate is said to be there, each bad file is named, exit 2, nothing else changes.
    let out = env.cmd(&["history", "import", &file_a, &malformed, &file_b, &foreign]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("pi-a.json: 0 runs added, 1 already there"),
        "{text}"
    );
    assert!(
        text.contains("pi-b.json: 1 run added, 0 already there"),
        "{text}"
    );
    let err = stderr(&out);
    assert!(err.contains("truncated.json"), "{err}");
    assert!(err.contains("other.json"), "{err}");
    println!("{err}");
    let mut ids = env.run_ids();
    ids.sort();
    let mut expected = vec![run_id(&a), run_id(&b)];
    expected.sort();
    assert_eq!(ids, expected);

    // A file that does not exist is an error naming it.
    let out = env.cmd(&["history", "import", "/nonexistent/agnostics.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/agnostics.json"),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.run_ids().len(), 2);
    Ok(())
}

pub(crate) fn export_then_import_round_trips() -> Ran {
    let env = Env::new()?;
    env.run_json(&[]);
    env.run_json(&[]);
    let exported = env.ok(&["history", "export"]);
    let docs: Vec<Value> = serde_json::from_str(&exported).unwrap();
    assert_eq!(docs.len(), 2);
    let file = env.dir.path().join("export.json");
    std::fs::write(&file, &exported).unwrap();

    let fresh = Env::new()?;
    let text = fresh.ok(&["history", "import", file.to_str().unwrap()]);
    assert!(text.contains("2 runs added, 0 already there"), "{text}");
    assert_eq!(fresh.run_ids(), env.run_ids());
    assert_eq!(fresh.listed(), env.listed());
    let again: Vec<Value> = serde_json::from_str(&fresh.ok(&["history", "export"])).unwrap();
    assert_eq!(again, docs);
    assert_eq!(
        fresh.ok(&["history", "export", "--csv"]),
        env.ok(&["history", "export", "--csv"])
    );
    Ok(())
}

pub(crate) fn forget_removes_runs_and_says_how_many() -> Ran {
    let env = Env::new()?;
    for _ in 0..3 {
        env.run_json(&[]);
    }
    let ids = env.run_ids();
    assert_eq!(ids.len(), 3);
    let text = env.ok(&["history", "forget", &ids[0][..8]]);
    assert!(text.contains("Removed 1 run."), "{text}");
    assert_eq!(env.run_ids(), ids[1..]);
    let drive = env.listed()[0]["drive"]
        .as_str()
        .expect("a drive id")
        .to_owned();
    let text = env.ok(&["history", "forget", "--drive", &drive[..8]]);
    assert!(text.contains("Removed 2 runs."), "{text}");
    assert!(env.run_ids().is_empty());
    env.run_json(&[]);
    let text = env.ok(&["history", "forget", "--all"]);
    assert!(text.contains("Removed 1 run."), "{text}");
    // Nothing given: clap refuses.
    assert_eq!(env.cmd(&["history", "forget"]).status.code(), Some(2));
    Ok(())
}

pub(crate) fn a_named_drive_is_listed_by_its_name() -> Ran {
    let env = Env::new()?;
    env.run_json(&[]);
    let drive = env.listed()[0]["drive"]
        .as_str()
        .expect("a drive id")
        .to_owned();
    let text = env.ok(&["history", "name", &drive[..6], "Kitchen Pi card"]);
    assert!(
        text.contains("Kitchen Pi card") && text.contains(&drive[..8]),
        "{text}"
    );
    let listed = env.listed();
    assert_eq!(listed[0]["drive_name"], "Kitchen Pi card");
    // The Markdown of its run names it so, with the run's date.
    let run = listed[0]["run"].as_str().expect("a run id");
    let md = env.ok(&["history", "show", run, "--markdown"]);
    assert!(md.contains("\n\nDrive: Kitchen Pi card; tested "), "{md}");
    let table = env.ok(&["history"]);
    assert!(
        table.contains(&format!("Kitchen Pi card ({})", &drive[..8])),
        "{table}"
    );
    assert_eq!(env.ok(&["history", "--drive", &drive]), table);
    let csv_text = env.ok(&["history", "--csv"]);
    assert!(csv_text.contains(",Kitchen Pi card,"), "{csv_text}");
    let drives = env.ok(&["history", "drives"]);
    let row = drives
        .lines()
        .find(|l| l.starts_with(&drive[..8]))
        .unwrap_or_else(|| panic!("{drives}"));
    assert!(
        row.contains("Kitchen Pi card") && row.contains("SD"),
        "{drives}"
    );
    let json: Value = serde_json::from_str(&env.ok(&["history", "drives", "--json"])).unwrap();
    assert_eq!(json[0]["id"], drive.as_str());
    assert_eq!(json[0]["runs"], 1);
    // The name selects the drive too.
    assert_eq!(env.ok(&["history", "--drive", "Kitchen Pi card"]), table);
    // A name with a comma and quotes is one CSV field.
    env.ok(&["history", "name", &drive, "Lab, \"B\" card"]);
    let csv_text = env.ok(&["history", "--csv"]);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let col = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "drive_name")
        .unwrap();
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[col], "Lab, \"B\" card", "{csv_text}");
    // Unnamed again.
    env.ok(&["history", "name", &drive, ""]);
    assert!(env.listed()[0]["drive_name"].is_null());
    Ok(())
}

pub(crate) fn unknown_ids_are_errors() -> Ran {
    let env = Env::new()?;
    // Before anything is recorded, and after.
    for recorded in [false, true] {
        if recorded {
            env.run_json(&[]);
        }
        for args in [
            &["history", "show", "0123456789abcdef"][..],
            &["history", "forget", "0123456789abcdef"],
            &["history", "forget", "--drive", "0123456789abcdef"],
            &["history", "name", "0123456789abcdef", "Kitchen"],
            &["compare", "0123456789abcdef", "fedcba9876543210"],
            &["history", "--drive", "0123456789abcdef"],
            &["history", "export", "--drive", "0123456789abcdef"],
            &["history", "export", "--csv", "--drive", "0123456789abcdef"],
        ] {
            let out = env.cmd(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(stdout(&out).is_empty(), "{args:?}: {}", stdout(&out));
            let err = stderr(&out);
            assert!(
                err.starts_with("agnostics-cli: ") && err.len() > 30,
                "{args:?}: {err}"
            );
        }
    }
    assert_eq!(env.run_ids().len(), 1);
    Ok(())
}
