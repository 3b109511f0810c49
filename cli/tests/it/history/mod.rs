//! The run history from the command line: `run` records each finished run (not with
//! `--no-history`, not when refused) and says how it compares with the drive's earlier runs;
//! `history` lists, shows, names, imports, exports and forgets; `compare` sets two runs side by
//! side. A history that cannot be written (corrupt, read-only, locked) costs one warning, never
//! the result or the exit status. Every test has its own history file and log in a scratch
//! folder on `/var/tmp` (ext4), and runs a small profile there.
//!
//! One module per concern (recording, faults, commands, compare, decline); this file holds the
//! fixture ([`Env`]) and the helpers they share.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agnostics_testkit::{
    fixture_files, mmc_host_tree, require, require_program, require_root, MmcHost, Ran, Throttle,
    ThrottledDisk,
};
use serde_json::Value;
use support::Run;

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

    /// `agnostics-cli run` with this test's history file and log.
    fn run_cmd(&self) -> Run {
        Run::new()
            .env("AGNOSTICS_HISTORY", &self.history)
            .env("AGNOSTICS_LOG", self.dir.path().join("rpdiags.txt"))
    }

    /// `agnostics-cli run --runs 1 --target T --profile P --sysfs-root S ARGS…` to the end.
    fn run(&self, args: &[&str]) -> Output {
        self.run_cmd()
            .runs(1)
            .target(&self.target)
            .profile(&self.profile)
            .arg("--sysfs-root")
            .arg(&self.sysfs)
            .args(args)
            .output()
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

mod commands;
mod compare;
mod decline;
mod faults;
mod recording;

use commands::*;
use compare::*;
use decline::*;
use faults::*;
use recording::*;

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

agnostics_testkit::test_list!(
    a_run_is_recorded_and_listed,
    a_fio_run_is_recorded_too,
    a_run_on_a_drive_found_fake_is_headed_fake,
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
