//! The history from the command line given awkward input: a signal that arrives after the
//! test has finished (while the result waits for a locked history), `compare` of a run with
//! itself and of named drives, and ids too short to name anything. Each test has its own
//! scratch folder on `/var/tmp` (ext4, for O_DIRECT) with its history file and a small profile.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agnostics_testkit::Ran;
use support::Run;

struct Env {
    dir: tempfile::TempDir,
    history: PathBuf,
    target: PathBuf,
    profile: PathBuf,
}

impl Env {
    fn new() -> Result<Env, agnostics_testkit::Skip> {
        let (dir, target, profile) = support::disk_scratch()?;
        Ok(Env {
            history: dir.path().join("history.sqlite3"),
            target,
            profile,
            dir,
        })
    }

    fn cli(&self) -> Command {
        let mut c = support::cli();
        c.env("AGNOSTICS_HISTORY", &self.history)
            .env("AGNOSTICS_LOG", self.dir.path().join("rpdiags.txt"));
        c
    }

    fn run_command(&self, args: &[&str]) -> Command {
        Run::new()
            .env("AGNOSTICS_HISTORY", &self.history)
            .env("AGNOSTICS_LOG", self.dir.path().join("rpdiags.txt"))
            .runs(1)
            .target(&self.target)
            .profile(&self.profile)
            .args(args)
            .command()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_command(args).output().expect("agnostics-cli runs")
    }

    fn history(&self, args: &[&str]) -> Output {
        self.cli()
            .arg("history")
            .args(args)
            .output()
            .expect("agnostics-cli runs")
    }

    fn compare(&self, left: &str, right: &str) -> Output {
        self.cli()
            .args(["compare", left, right])
            .output()
            .expect("agnostics-cli runs")
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// True when the process `pid` has `path` open.
fn has_open(pid: u32, path: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == path))
}

/// Ctrl-C after the test has ended (here while the result waits for a history another
/// program holds) stops nothing: the program says the test had already finished, stores and
/// prints the result and exits with the run's own status, not 130.
fn a_signal_after_the_test_finished_keeps_the_result() -> Ran {
    let env = Env::new()?;
    let first = env.run(&["--json"]);
    assert!(
        matches!(first.status.code(), Some(0 | 1)),
        "{}",
        text(&first.stderr)
    );
    // Another program's write transaction holds the history.
    let lock = rusqlite::Connection::open(&env.history).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let child = env
        .run_command(&["--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The history is opened only once the test is over and its file removed.
    let start = Instant::now();
    while !has_open(child.id(), &env.history) && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        has_open(child.id(), &env.history),
        "the run never opened its history"
    );
    nix_kill(child.id(), libc::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    lock.execute_batch("COMMIT").unwrap();
    drop(lock);
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?}: {err}",
        out.status
    );
    assert!(err.contains("The test had already finished"), "{err}");
    assert!(!err.contains("Stopping:"), "{err}");
    let v = support::json(&out);
    assert!(v["error"].is_null(), "{}", v["error"]);
    // Both runs are stored, as finished runs.
    let list = env.history(&["--json"]);
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().all(|r| r["outcome"] == "finished"), "{runs:?}");
    assert_eq!(std::fs::read_dir(&env.target).unwrap().count(), 0);
    Ok(())
}

fn nix_kill(pid: u32, signal: i32) {
    // SAFETY: kill(2) on the child this test spawned.
    let rc = unsafe { libc::kill(pid as i32, signal) };
    assert_eq!(rc, 0, "kill: {}", std::io::Error::last_os_error());
}

/// `compare` of a run with itself says so; each side's heading has the drive's name (when it
/// has one), the time to the minute and the run's short id. `history drives` shows the name
/// once, with the drive's model or kind as its label.
fn compare_names_the_runs_and_a_run_with_itself() -> Ran {
    let env = Env::new()?;
    let out = env.run(&["--json"]);
    let mut doc = support::json(&out);
    let run = doc["run_id"].as_str().unwrap().to_owned();
    // A second run of a known drive, as another Pi's `run --json` would give.
    doc["run_id"] = serde_json::json!("c0ffee00".repeat(4));
    doc["drive"] = serde_json::json!({"id": "3f9a2c1d00112233", "basis": "cid"});
    let file = env.dir.path().join("other.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let import = env.history(&["import", file.to_str().unwrap()]);
    assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    let name = env.history(&["name", "3f9a2c1d", "Lab 01 card"]);
    assert_eq!(name.status.code(), Some(0), "{}", text(&name.stderr));

    // `history drives`: the name in its column, what the drive is in the Label column.
    let drives = text(&env.history(&["drives"]).stdout);
    let row = drives.lines().find(|l| l.starts_with("3f9a2c1d")).unwrap();
    assert_eq!(row.matches("Lab 01 card").count(), 1, "{drives}");

    let same = env.compare(&run[..8], &run);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    let same = text(&same.stdout);
    assert!(same.contains("both sides are the same run"), "{same}");

    let two = env.compare(&run[..8], "c0ffee");
    assert_eq!(two.status.code(), Some(0), "{}", text(&two.stderr));
    let two = text(&two.stdout);
    assert!(!two.contains("same run"), "{two}");
    let right = two.lines().find(|l| l.starts_with("Right:")).unwrap();
    assert!(right.contains("Lab 01 card · "), "{two}");
    assert!(right.ends_with(" · run c0ffee00"), "{two}");
    let left = two.lines().find(|l| l.starts_with("Left:")).unwrap();
    assert!(left.ends_with(&format!(" · run {}", &run[..8])), "{two}");
    // The time to the minute: `YYYY-MM-DD HH:MM`.
    let when = left.split(" · ").nth(1).unwrap();
    assert_eq!(when.len(), 16, "{left}");
    assert_eq!(&when[10..11], " ", "{left}");
    Ok(())
}

/// A prefix shorter than 6 characters is an error that says it is too short (not that it
/// names several runs), with exit status 2, and removes nothing.
fn a_short_prefix_is_too_short() -> Ran {
    let env = Env::new()?;
    env.run(&[]);
    for args in [
        &["forget", "a"][..],
        &["show", "5"],
        &["forget", "--drive", "ab"],
    ] {
        let out = env.history(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains("is too short"), "{args:?}: {err}");
        assert!(err.contains("6 or more"), "{err}");
    }
    let list = env.history(&["--json"]);
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1);
    Ok(())
}

/// A document whose program, profile name, warnings and phase names carry terminal escapes
/// (set the title, clear the screen) and a bidi override: `history show` (text, Markdown),
/// `compare` (text, Markdown) and `history export --csv` print them escaped, never raw.
fn terminal_escapes_in_a_document_are_printed_escaped() -> Ran {
    let env = Env::new()?;
    let out = env.run(&["--json"]);
    assert!(out.status.code().is_some_and(|c| c < 2), "{out:?}");
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}";
    doc["run_id"] = serde_json::json!("e".repeat(32));
    doc["program"] = serde_json::json!(format!("agnostics {evil}"));
    doc["profile"]["name"] = serde_json::json!(format!("p{evil}"));
    doc["warnings"] = serde_json::json!([format!("w{evil}")]);
    // Phase names, and the checks that name them (a check of a phase the document does not
    // have would contradict its figures, and the document be refused).
    for list in ["phases", "checks"] {
        if let Some(items) = doc["runs"][0][list].as_array_mut() {
            for p in items {
                p["name"] = serde_json::json!(format!("{}{evil}", p["name"].as_str().unwrap()));
            }
        }
    }
    let file = env.dir.path().join("evil.json");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = env.history(&["import", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let first = env.history(&["--json"]);
    let runs: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let other = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run"].as_str().unwrap().to_owned())
        .find(|r| !r.starts_with("eeee"))
        .unwrap();
    let outputs = [
        env.history(&["show", "eeeeeeee"]),
        env.history(&["show", "eeeeeeee", "--markdown"]),
        env.compare(&other, "eeeeeeee"),
        env.cli()
            .args(["compare", &other, "eeeeeeee", "--markdown"])
            .output()
            .unwrap(),
        env.history(&["export", "--csv"]),
    ];
    for out in outputs {
        let shown = text(&out.stdout);
        assert_eq!(out.status.code().map(|c| c < 2), Some(true), "{out:?}");
        assert!(
            !shown.contains(['\u{1b}', '\u{7}', '\u{202e}']),
            "raw escapes: {shown:?}"
        );
        assert!(shown.contains("\\u{1b}"), "escaped: {shown}");
    }
    Ok(())
}

/// `history drives` shows a drive's latest graded verdict: a later run that was not graded
/// (a buffered profile is never graded) does not turn the drive's PASS or FAIL into ERROR;
/// the graded run's date is shown beside it, and the Latest run column has the later run.
fn drives_show_the_latest_graded_verdict() -> Ran {
    let env = Env::new()?;
    let graded = support::json(&env.run(&["--json"]));
    let verdict = graded["verdict"].as_str().unwrap().to_owned();
    assert!(["PASS", "FAIL"].contains(&verdict.as_str()), "{graded:#}");
    let buffered = env.dir.path().join("buffered.fio");
    let text_of = std::fs::read_to_string(&env.profile).unwrap();
    std::fs::write(&buffered, text_of.replace("direct=1", "direct=0")).unwrap();
    let later = Run::new()
        .env("AGNOSTICS_HISTORY", &env.history)
        .env("AGNOSTICS_LOG", env.dir.path().join("rpdiags.txt"))
        .runs(1)
        .target(&env.target)
        .profile(&buffered)
        .args(["--json"])
        .command()
        .output()
        .unwrap();
    let later = support::json(&later);
    assert_eq!(later["verdict"], "ERROR", "{later:#}");

    let drives = text(&env.history(&["drives"]).stdout);
    let row = drives.lines().nth(1).unwrap_or_else(|| panic!("{drives}"));
    let graded_at = graded["started"].as_str().unwrap();
    let when = |t: &str| t.chars().take(16).collect::<String>().replacen('T', " ", 1);
    assert!(
        row.contains(&format!("{verdict} ({})", when(graded_at))),
        "{drives}"
    );
    assert!(!row.contains("ERROR"), "{drives}");
    assert!(
        row.contains(&when(later["started"].as_str().unwrap())),
        "{drives}"
    );
    Ok(())
}

agnostics_testkit::test_list!(
    terminal_escapes_in_a_document_are_printed_escaped,
    a_signal_after_the_test_finished_keeps_the_result,
    compare_names_the_runs_and_a_run_with_itself,
    a_short_prefix_is_too_short,
    drives_show_the_latest_graded_verdict,
);
