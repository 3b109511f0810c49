//! The run history from the command line: `run` records each finished run (not with
//! `--no-history`, not when refused) and says how it compares with the drive's earlier runs;
//! `history` lists, shows, names, imports, exports and forgets; `compare` sets two runs side by
//! side. A history that cannot be written (corrupt, read-only, locked) costs one warning, never
//! the result or the exit status. Every test has its own history file and log in a scratch
//! folder on `/var/tmp` (ext4), and runs a small profile there.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agnostics_testkit::{
    fixture_files, mmc_host_tree, require, require_program, require_root, MmcHost, Ran, Throttle,
    ThrottledDisk,
};
use serde_json::Value;

/// A scratch folder on `/var/tmp` with this test's history file, log, target and profile, and
/// a sysfs tree in which the target is on an SD card (so that its runs have a drive id: this
/// machine may have no `/dev/disk/by-uuid` for the filesystem's UUID).
struct Env {
    dir: tempfile::TempDir,
    history: PathBuf,
    target: PathBuf,
    profile: PathBuf,
    sysfs: PathBuf,
}

impl Env {
    fn new() -> Result<Env, agnostics_testkit::Skip> {
        let (dir, target, profile) = support::disk_scratch()?;
        let sysfs = card_behind(&dir.path().join("sysfs"), &target);
        Ok(Env {
            history: dir.path().join("state/history.sqlite3"),
            target,
            profile,
            sysfs,
            dir,
        })
    }

    /// `agnostics-cli` with this test's history file and log.
    fn cli(&self) -> Command {
        let mut c = support::cli();
        c.env("AGNOSTICS_HISTORY", &self.history)
            .env("AGNOSTICS_LOG", self.dir.path().join("rpdiags.txt"));
        c
    }

    /// `agnostics-cli run --runs 1 --target T --profile P --sysfs-root S ARGS…` to the end.
    fn run(&self, args: &[&str]) -> Output {
        self.cli()
            .args(["run", "--runs", "1", "--target"])
            .arg(&self.target)
            .arg("--profile")
            .arg(&self.profile)
            .arg("--sysfs-root")
            .arg(&self.sysfs)
            .args(args)
            .output()
            .unwrap()
    }

    /// A `run --json`, checked to have measured; its document.
    fn run_json(&self, args: &[&str]) -> Value {
        let out = self.run(&[&["--json"], args].concat());
        let doc = support::json(&out);
        assert!(doc["error"].is_null(), "{doc:#}\n{}", stderr(&out));
        assert_eq!(out.status.code(), Some(exit_code(&doc)), "{}", stderr(&out));
        doc
    }

    /// `agnostics-cli ARGS…` to the end.
    fn cmd(&self, args: &[&str]) -> Output {
        self.cli().args(args).output().unwrap()
    }

    /// `agnostics-cli ARGS…`, which must succeed; its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}\n{}",
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    /// `history --json`: the recorded runs, newest first.
    fn listed(&self) -> Vec<Value> {
        let text = self.ok(&["history", "--json"]);
        match serde_json::from_str(&text) {
            Ok(Value::Array(runs)) => runs,
            other => panic!("history --json is not an array: {other:?}\n{text}"),
        }
    }

    /// The run ids `history --json` lists, newest first.
    fn run_ids(&self) -> Vec<String> {
        self.listed()
            .iter()
            .map(|r| r["run"].as_str().unwrap().to_owned())
            .collect()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The exit status a report's verdict gives.
fn exit_code(doc: &Value) -> i32 {
    match doc["verdict"].as_str() {
        Some("PASS") | Some("NOT_GRADED") => 0,
        Some("FAIL") => 1,
        _ => 2,
    }
}

fn run_id(doc: &Value) -> String {
    doc["run_id"].as_str().expect("run_id").to_owned()
}

fn a_run_is_recorded_and_listed() -> Ran {
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

    // CSV: a header row and a row per run, read back by a CSV reader.
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
    assert_eq!(&rows[0][0], id.as_str());
    let col = header.iter().position(|h| h == "seq_write_mb_s").unwrap();
    let mb: f64 = rows[0][col].parse().unwrap();
    assert!((mb - seq_write / 1e6).abs() < 0.01, "{mb} vs {seq_write}");

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

fn a_fio_run_is_recorded_too() -> Ran {
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

fn no_history_records_nothing() -> Ran {
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

fn a_refused_run_is_not_recorded() -> Ran {
    let env = Env::new()?;
    let bad = env.dir.path().join("bad.fio");
    std::fs::write(&bad, "[a]\nsize=1m\nverify=md5\n").unwrap();
    let out = env
        .cli()
        .args(["run", "--json", "--target"])
        .arg(&env.target)
        .arg("--profile")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(support::json(&out)["trend"].is_null());
    assert!(env.listed().is_empty());
    Ok(())
}

fn two_runs_at_once_are_both_recorded() -> Ran {
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

/// The one line of `out`'s stderr that warns, which must exist and be the only one.
fn one_warning(out: &Output) -> String {
    let err = stderr(out);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.to_lowercase().contains("warning"))
        .collect();
    assert_eq!(warnings.len(), 1, "stderr:\n{err}");
    warnings[0].to_owned()
}

/// A run whose history cannot be written: the JSON document, the exit status of its verdict,
/// the log written, and one warning naming the history; with `again`, a text run that warns
/// the same way.
fn still_reported(env: &Env, again: bool) -> String {
    let log = env.dir.path().join("rpdiags.txt");
    let _ = std::fs::remove_file(&log);
    let out = env.run(&["--json"]);
    let doc = support::json(&out);
    assert!(doc["error"].is_null(), "{doc:#}");
    assert_eq!(out.status.code(), Some(exit_code(&doc)), "{}", stderr(&out));
    assert!(log.is_file(), "the log was not written");
    let warning = one_warning(&out);
    assert!(warning.to_lowercase().contains("history"), "{warning}");
    if again {
        let out = env.run(&[]);
        assert!(stdout(&out).contains("Run 1"), "{}", stdout(&out));
        assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
        one_warning(&out);
    }
    warning
}

fn a_corrupt_history_costs_one_warning_not_the_result() -> Ran {
    let env = Env::new()?;
    std::fs::create_dir_all(env.history.parent().unwrap()).unwrap();
    std::fs::write(&env.history, vec![b'x'; 8192]).unwrap();
    let warning = still_reported(&env, false);
    println!("corrupt: {warning}");
    // The damaged file was moved aside, never overwritten, and the run went into a new one.
    let aside: Vec<PathBuf> = std::fs::read_dir(env.history.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), vec![b'x'; 8192]);
    assert!(
        warning.contains(&aside[0].display().to_string()),
        "{warning}"
    );
    assert_eq!(env.run_ids().len(), 1);
    // The next run has no warning.
    let out = env.run(&["--json"]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    Ok(())
}

/// Clears the immutable attribute of a file on drop.
struct Immutable(PathBuf);

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

fn a_read_only_history_costs_one_warning_not_the_result() -> Ran {
    // Root can write any file whatever its mode; an immutable file (chattr +i) it cannot.
    require_root("a history file that root cannot write (chattr +i)")?;
    require_program("chattr")?;
    let env = Env::new()?;
    env.run_json(&[]);
    let before = env.run_ids();
    let status = Command::new("chattr")
        .arg("+i")
        .arg(&env.history)
        .status()
        .unwrap();
    require(
        status.success(),
        "chattr +i is not supported on /var/tmp's filesystem",
    )?;
    let _guard = Immutable(env.history.clone());
    let warning = still_reported(&env, true);
    println!("read-only: {warning}");
    assert_eq!(env.run_ids(), before);
    Ok(())
}

fn a_history_on_a_full_disk_costs_one_warning_not_the_result() -> Ran {
    require_root("a small tmpfs to fill")?;
    let env = Env::new()?;
    let full = agnostics_testkit::Tmpfs::new(1);
    // Fill it: the history's folder cannot even be made.
    {
        use std::io::Write;
        let mut f = std::fs::File::create(full.mount.join("filler")).unwrap();
        let block = vec![0u8; 64 << 10];
        while f.write_all(&block).is_ok() {}
        let _ = f.flush();
    }
    let history = full.mount.join("state/history.sqlite3");
    let out = env
        .cli()
        .env("AGNOSTICS_HISTORY", &history)
        .args(["run", "--json", "--runs", "1", "--target"])
        .arg(&env.target)
        .arg("--profile")
        .arg(&env.profile)
        .output()
        .unwrap();
    let doc = support::json(&out);
    assert!(doc["error"].is_null(), "{doc:#}");
    assert_eq!(out.status.code(), Some(exit_code(&doc)));
    let warning = one_warning(&out);
    println!("full: {warning}");
    assert!(
        warning.contains(&full.mount.display().to_string()),
        "{warning}"
    );
    drop(full);
    Ok(())
}

fn a_locked_history_costs_one_warning_not_the_result() -> Ran {
    require_program("sqlite3")?;
    let env = Env::new()?;
    env.run_json(&[]);
    // Another program holds the write lock for the whole run (longer than the wait for it).
    let mut holder = Command::new("sqlite3")
        .arg(&env.history)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::{BufRead, Write};
        let stdin = holder.stdin.as_mut().unwrap();
        stdin
            .write_all(b"BEGIN EXCLUSIVE;\nSELECT 'locked';\n")
            .unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(holder.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "locked");
    }
    let out = env.run(&["--json"]);
    drop(holder.stdin.take());
    let _ = holder.wait();
    let doc = support::json(&out);
    assert!(doc["error"].is_null(), "{doc:#}");
    assert_eq!(out.status.code(), Some(exit_code(&doc)));
    let warning = one_warning(&out);
    println!("locked: {warning}");
    assert!(warning.to_lowercase().contains("history"), "{warning}");
    assert_eq!(
        env.run_ids().len(),
        1,
        "the locked run was recorded after all"
    );
    Ok(())
}

fn import_adds_skips_duplicates_and_refuses_bad_files() -> Ran {
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

fn export_then_import_round_trips() -> Ran {
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

fn forget_removes_runs_and_says_how_many() -> Ran {
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

fn a_named_drive_is_listed_by_its_name() -> Ran {
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

fn unknown_ids_are_errors() -> Ran {
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

/// The Kingston card's serial number (CID PSN) in hex and decimal, and the CID itself.
const SERIALS: [&str; 3] = ["36980065", "915931237", "9f544953443634476136980065013b00"];

/// A sysfs tree in which the filesystem of `dir` is on the fixture SD card `mmcblk0`.
fn card_behind(root: &Path, dir: &Path) -> PathBuf {
    card_behind_host(root, dir, None)
}

/// [`card_behind`], with the host's debugfs `ios` (its bus mode: the link's ceiling).
fn card_behind_host(root: &Path, dir: &Path, ios: Option<&str>) -> PathBuf {
    use std::os::unix::fs::MetadataExt;
    let root = mmc_host_tree(
        root,
        &fixture_files("kingston-sd64g-2019-imx.json"),
        &MmcHost {
            nr_tags: Some("64"),
            ios,
            ..MmcHost::default()
        },
    );
    let dev = std::fs::metadata(dir).unwrap().dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    std::fs::create_dir_all(root.join("dev/block")).unwrap();
    std::os::unix::fs::symlink(
        format!("../../{}/block/mmcblk0", agnostics_testkit::MMC_CARD_DIR),
        root.join("dev/block").join(format!("{major}:{minor}")),
    )
    .unwrap();
    root
}

/// Asserts that `text` has none of the card's serials and not `home`.
fn assert_private(what: &str, text: &str, home: &Path) {
    for s in SERIALS {
        assert!(
            !text.to_lowercase().contains(s),
            "{what} has the serial {s}:\n{text}"
        );
    }
    let home = home.display().to_string();
    assert!(
        !text.contains(&home),
        "{what} has the home folder {home}:\n{text}"
    );
}

fn compare_shows_both_runs_and_the_ratio_without_serials_or_home() -> Ran {
    let env = Env::new()?;
    // The target inside a home folder, on an SD card with a serial number.
    let home = env.dir.path().join("home/pi");
    let target = home.join("cardtest");
    std::fs::create_dir_all(&target).unwrap();
    let sysfs = card_behind(&env.dir.path().join("sysfs-home"), &target);
    let run = |target: &Path, sysfs: Option<&Path>| {
        let mut c = env.cli();
        c.env("HOME", &home)
            .args(["run", "--json", "--runs", "1", "--target"])
            .arg(target)
            .arg("--profile")
            .arg(&env.profile);
        if let Some(s) = sysfs {
            c.arg("--sysfs-root").arg(s);
        }
        let out = c.output().unwrap();
        let doc = support::json(&out);
        assert!(doc["error"].is_null(), "{doc:#}");
        doc
    };
    let left = run(&target, Some(&sysfs));
    assert_eq!(left["card"]["kind"], "SD", "{:#}", left["card"]);
    let right = run(&env.target, None);
    let (l, r) = (run_id(&left), run_id(&right));

    let text = env.ok(&["compare", &l[..8], &r[..8]]);
    println!("{text}");
    let ratio = |line: &str| line.contains("Sequential write") && line.contains('×');
    assert!(text.lines().any(ratio), "{text}");
    assert!(text.contains("Left:") && text.contains("Right:"), "{text}");
    assert_private("compare", &text, &home);

    let md = env.ok(&["compare", &l, &r, "--markdown"]);
    println!("{md}");
    assert!(md.contains("| ") && md.contains("---"), "{md}");
    assert!(md.lines().any(|l| l.starts_with('|') && ratio(l)), "{md}");
    assert_private("compare --markdown", &md, &home);

    // The stored documents, shown or exported: the folder under the home is `~/…`.
    let shown = env.ok(&["history", "show", &l, "--json"]);
    assert_private("history show --json", &shown, &home);
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        shown["target"]["path"], "~/cardtest",
        "{:#}",
        shown["target"]
    );
    let exported = env.ok(&["history", "export"]);
    assert_private("history export", &exported, &home);

    let json: Value = serde_json::from_str(&env.ok(&["compare", &l, &r, "--json"])).unwrap();
    assert_eq!(json["left"]["run"], l.as_str());
    assert_eq!(json["right"]["run"], r.as_str());
    let seq_write = json["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["phase"] == "seq-write")
        .unwrap_or_else(|| panic!("{json:#}"));
    let (a, b) = (
        seq_write["left"].as_f64().unwrap(),
        seq_write["right"].as_f64().unwrap(),
    );
    assert!(
        (seq_write["ratio"].as_f64().unwrap() - b / a).abs() < 1e-6,
        "{seq_write}"
    );
    assert_private("compare --json", &json.to_string(), &home);

    // The store and its exports keep no serial either.
    let exported = env.ok(&["history", "export"]);
    for s in SERIALS {
        assert!(!exported.to_lowercase().contains(s), "export has {s}");
    }
    let shown = env.ok(&["history", "show", &l, "--json"]);
    for s in SERIALS {
        assert!(!shown.to_lowercase().contains(s), "show has {s}");
    }
    Ok(())
}

fn run_markdown_has_no_serials_or_home_path() -> Ran {
    let env = Env::new()?;
    let home = env.dir.path().join("home/pi");
    let target = home.join("cardtest");
    std::fs::create_dir_all(&target).unwrap();
    let sysfs = card_behind(&env.dir.path().join("sysfs-home"), &target);
    let out = env
        .cli()
        .env("HOME", &home)
        .args(["run", "--markdown", "--runs", "1", "--target"])
        .arg(&target)
        .arg("--profile")
        .arg(&env.profile)
        .arg("--sysfs-root")
        .arg(&sysfs)
        .output()
        .unwrap();
    let md = stdout(&out);
    println!("{md}");
    assert!(
        md.contains("| seq-write") || md.contains("| Job"),
        "{md}\n{}",
        stderr(&out)
    );
    assert_private("run --markdown", &md, &home);
    // A run that fails (no room for the file) does not put the path in the table either.
    let full = home.join("no-such-folder");
    let out = env
        .cli()
        .env("HOME", &home)
        .args(["run", "--markdown", "--runs", "1", "--target"])
        .arg(&full)
        .arg("--profile")
        .arg(&env.profile)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_private("run --markdown of an error", &stdout(&out), &home);
    Ok(())
}

/// A profile that only writes: 24 MiB in 1 MiB blocks, so the throttle sets the figure.
const SEQ_WRITE_ONLY: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=4
size=24m
end_fsync=1

[seq-write]
rw=write
bs=1m
stonewall
";

/// Writes at `bps`, nothing else limited.
fn writes_at(bps: u64) -> Throttle {
    Throttle {
        write_bps: bps,
        ..Throttle::default()
    }
}

/// `run --runs 1` of [`SEQ_WRITE_ONLY`] on `disk` rethrottled to write at `bps`; the output.
fn throttled_run(
    env: &Env,
    disk: &mut ThrottledDisk,
    sysfs: &Path,
    bps: u64,
    json: bool,
) -> Output {
    disk.rethrottle(writes_at(bps));
    let mut c = disk.command(Path::new(env!("CARGO_BIN_EXE_agnostics-cli")));
    c.env("LANGUAGE", "en")
        .env("LC_ALL", "C.UTF-8")
        .env("AGNOSTICS_HISTORY", &env.history)
        .env("AGNOSTICS_LOG", env.dir.path().join("rpdiags.txt"))
        .args(["run", "--runs", "1", "--target"])
        .arg(disk.path())
        .arg("--profile")
        .arg(&env.profile)
        .arg("--sysfs-root")
        .arg(sysfs);
    if json {
        c.arg("--json");
    }
    c.output().unwrap()
}

/// The figure of `phase` in the first run of a run's JSON document: bytes per second, f64.
fn bw_of(doc: &Value, phase: &str) -> f64 {
    doc["runs"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == phase)
        .unwrap_or_else(|| panic!("no {phase} in {doc:#}"))["bw_bytes"]
        .as_f64()
        .unwrap()
}

/// A throttled card's write speed falling to a sixth (12 MiB/s, then a sixth of what that
/// measured) is a decline with advice, and a 1.5 % dip between the two is the same. The
/// throttle only bounds a measurement from above (a busy machine measures less), so the
/// figures the assertions weigh are the ones measured, read back from the documents: the dip
/// is an imported copy of the first run with its figure times 0.985 (less, where that would
/// cross a target the first run met), and the last run's
/// throttle is a sixth of the first run's figure, so it measures at most 0.18 of it.
fn a_write_speed_fallen_to_a_sixth_is_a_decline_and_a_small_dip_is_not() -> Ran {
    ThrottledDisk::require()?;
    require_root("a loop device")?;
    let env = Env::new()?;
    std::fs::write(&env.profile, SEQ_WRITE_ONLY).unwrap();
    const MIB: u64 = 1 << 20;
    let mut disk = ThrottledDisk::new(96, writes_at(12 * MIB));
    // An SD card in high-speed mode (at most 25 MB/s: above both throttles).
    let ios = agnostics_testkit::ios_fixture("ios-sd-high-speed");
    let sysfs = card_behind_host(&env.dir.path().join("sysfs-loop"), disk.path(), Some(&ios));

    let first = support::json(&throttled_run(&env, &mut disk, &sysfs, 12 * MIB, true));
    assert!(first["error"].is_null(), "{first:#}");
    assert!(first["trend"].is_null());
    let f1 = bw_of(&first, "seq-write");
    agnostics_testkit::profiles::assert_paced_by_throttle("seq-write B/s", f1, (12 * MIB) as f64);

    // A 1.5 % dip, stored as a run of the same drive and profile started since.
    let mut second = first.clone();
    second.as_object_mut().unwrap().remove("trend");
    second["run_id"] = Value::from("5ec0d000000000000000000000000001");
    let now = std::process::Command::new("date")
        .arg("--iso-8601=seconds")
        .output()
        .unwrap();
    second["started"] = Value::from(stdout(&now).trim());
    // At most 1.5 % down, but never across a target the first run met (a busy machine can
    // measure just above it): then the dip's verdicts stay the first run's, and an import
    // whose checks disagree with their figures would be refused.
    let dip_factor = second["runs"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "seq-write")
        .filter_map(|c| Some((c["value"].as_f64()?, c["target"].as_f64()?)))
        .filter(|(value, target)| value >= target)
        .map(|(value, target)| target / value * (1.0 + 1e-9))
        .fold(0.985_f64, f64::max)
        .min(1.0);
    for p in second["runs"][0]["phases"].as_array_mut().unwrap() {
        if p["name"] == "seq-write" {
            p["bw_bytes"] = Value::from(f1 * dip_factor);
        }
    }
    // Its checks say the same figure.
    for c in second["runs"][0]["checks"].as_array_mut().unwrap() {
        if c["name"] == "seq-write" {
            if let Some(v) = c["value"].as_f64() {
                c["value"] = Value::from(v * dip_factor);
            }
        }
    }
    let file = env.dir.path().join("dip.json");
    std::fs::write(&file, serde_json::to_vec(&second).unwrap()).unwrap();
    env.ok(&["history", "import", file.to_str().unwrap()]);

    // Then a sixth of that: down by far more than the noise floor, with the advice.
    let low = (f1 / 6.0) as u64;
    let out = throttled_run(&env, &mut disk, &sysfs, low, false);
    let text = stdout(&out);
    println!("{text}");
    let line = text
        .lines()
        .find(|l| l.contains("Sequential write") && l.contains("down"))
        .unwrap_or_else(|| panic!("no decline line:\n{text}\n{}", stderr(&out)));
    assert!(line.contains("(2 earlier runs)"), "{line}");
    assert!(
        text.to_lowercase().contains("back up"),
        "no advice:\n{text}"
    );
    let ids = env.run_ids();
    assert_eq!(ids.len(), 3);

    // The first and the dip compared: exactly the dip; the first and the last: the fall,
    // under the same link's ceiling.
    let figure = |left: &str, right: &str| {
        let cmp: Value =
            serde_json::from_str(&env.ok(&["compare", left, right, "--json"])).unwrap();
        let seq = cmp["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["phase"] == "seq-write")
            .unwrap()
            .clone();
        (cmp, seq)
    };
    let (_, dip) = figure(&ids[2], &ids[1]);
    assert_eq!(dip["left"].as_f64(), Some(f1), "{dip}");
    assert!(
        (dip["ratio"].as_f64().unwrap() - dip_factor).abs() < 1e-9,
        "{dip}"
    );
    let (before, after) = (&ids[2], &ids[0]);
    let (cmp, seq) = figure(before, after);
    let (left, right) = (
        seq["left"].as_f64().unwrap(),
        seq["right"].as_f64().unwrap(),
    );
    assert!(right <= low as f64 * 1.1, "{seq}");
    let ratio = seq["ratio"].as_f64().unwrap();
    assert!((ratio - right / left).abs() < 1e-9 && ratio < 0.8, "{seq}");
    for side in ["left", "right"] {
        let link = &cmp[side]["link"];
        assert!(
            (link["bytes_per_second"].as_f64().unwrap() - 25e6).abs() < 1e6,
            "{side}: {link}"
        );
    }
    let text = env.ok(&["compare", before, after]);
    println!("{text}");
    assert!(text.contains("×0."), "{text}");
    assert!(text.contains("Left link:") && text.contains("25"), "{text}");
    let md = env.ok(&["compare", before, after, "--markdown"]);
    assert!(md.contains("25"), "{md}");
    drop(disk);
    Ok(())
}

agnostics_testkit::main!(
    a_run_is_recorded_and_listed,
    a_fio_run_is_recorded_too,
    no_history_records_nothing,
    a_refused_run_is_not_recorded,
    two_runs_at_once_are_both_recorded,
    a_corrupt_history_costs_one_warning_not_the_result,
    a_read_only_history_costs_one_warning_not_the_result,
    a_history_on_a_full_disk_costs_one_warning_not_the_result,
    a_locked_history_costs_one_warning_not_the_result,
    import_adds_skips_duplicates_and_refuses_bad_files,
    export_then_import_round_trips,
    forget_removes_runs_and_says_how_many,
    a_named_drive_is_listed_by_its_name,
    unknown_ids_are_errors,
    compare_shows_both_runs_and_the_ratio_without_serials_or_home,
    run_markdown_has_no_serials_or_home_path,
    a_write_speed_fallen_to_a_sixth_is_a_decline_and_a_small_dip_is_not,
);
