//! The run's private folder: any target path a user can create works on both engines with
//! nothing of it reaching fio's job file; another user swapping the folder for a symlink
//! mid-run redirects no I/O; the sweep removes a killed run's folder and nothing that is not
//! provably the program's, and never the folder of a live run.
//!
//! Child processes are this test binary run again with `AGNOSTICS_RUN_DIR_CHILD` set.

use crate::common;

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agnostics_core::engine::testfile::{sweep, LeftReason, TestFile};
use agnostics_core::engine::{EngineKind, Event};
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_testkit::harness::Test;
use agnostics_testkit::{require_program, require_root, test_files, Ran};
use common::*;

/// Set in a child process: the role it plays (`hold`), with the target in `…_DIR`.
const CHILD_ENV: &str = "AGNOSTICS_RUN_DIR_CHILD";
const CHILD_DIR_ENV: &str = "AGNOSTICS_RUN_DIR_CHILD_DIR";

/// A small standard-shaped profile (4 MiB, 1 s random phases).
fn small() -> agnostics_core::profile::Profile {
    small_standard("4m", 1)
}

/// Every ASCII punctuation character but `/` (which separates names), and names that look
/// like fio's own syntax, control characters and bytes that are not UTF-8.
fn hostile_names() -> Vec<OsString> {
    let punctuation: String = (0x21u8..0x7f)
        .map(char::from)
        .filter(|c| c.is_ascii_punctuation() && *c != '/')
        .collect();
    let mut names: Vec<OsString> = [
        punctuation.as_str(),
        "notes#2",
        "semi;colon",
        "line\nbreak\n[global]\nfilename=notes",
        "tab\there",
        "$jobname",
        "${HOME}",
        "filename=x",
        "[global]",
        "include x",
        ":",
        "a:b:c",
        " leading space",
        "--output=x",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    names.push(OsString::from_vec(b"not-utf8-\xff\xfe#".to_vec()));
    names
}

/// For every place in `name` where a non-alphanumeric byte starts, the file a parser that cut
/// the path there would write: its neighbours. Each gets distinct contents.
fn neighbours(parent: &Path, name: &OsString) -> Vec<(PathBuf, Vec<u8>)> {
    let bytes = name.clone().into_vec();
    let mut found = Vec::new();
    for cut in 1..bytes.len() {
        if bytes[cut].is_ascii_alphanumeric() {
            continue;
        }
        let prefix = OsString::from_vec(bytes[..cut].to_vec());
        if prefix == "." || prefix == ".." || prefix.as_encoded_bytes().contains(&b'/') {
            continue;
        }
        let path = parent.join(&prefix);
        let contents = format!("neighbour {cut} of {:?}\n", name).into_bytes();
        found.push((path, contents));
    }
    found
}

fn hostile_target_names_work_on_both_engines() -> Ran {
    require_program("fio")?;
    let holder = scratch_dir();
    let parent = holder.path();
    // The reported case: a text file beside a target named after it with `#2`.
    std::fs::write(parent.join("notes"), b"my notes\n").unwrap();
    let mut files: Vec<(PathBuf, Vec<u8>)> = vec![(parent.join("notes"), b"my notes\n".to_vec())];
    let names = hostile_names();
    for name in &names {
        std::fs::create_dir(parent.join(name)).unwrap();
    }
    for name in &names {
        for (path, contents) in neighbours(parent, name) {
            if std::fs::symlink_metadata(&path).is_err() {
                std::fs::write(&path, &contents).unwrap();
                files.push((path, contents));
            }
        }
        // Inside the target too, a file fio would hit with a relative cut.
        let inside = parent.join(name).join("notes");
        std::fs::write(&inside, b"inside\n").unwrap();
        files.push((inside, b"inside\n".to_vec()));
    }
    let before = entries(parent);
    for engine in [EngineKind::Native, EngineKind::Fio] {
        for name in &names {
            let target = parent.join(name);
            let mut opts = TestOptions::standard(target.clone());
            opts.profile = small();
            opts.engine = engine;
            opts.runs = 1;
            opts.lock_dir = agnostics_testkit::private_lock_dir(std::path::Path::new(env!(
                "CARGO_TARGET_TMPDIR"
            )));
            let cancel = AtomicBool::new(false);
            let report = sdtest::run(&opts, &cancel, &|_| {});
            let what = format!("{engine:?} in {target:?}");
            assert!(report.error.is_none(), "{what}: {:?}", report.error);
            let run = report
                .runs
                .first()
                .unwrap_or_else(|| panic!("{what}: no run"));
            assert_eq!(run.phases.len(), 5, "{what}");
            for (phase, job) in run.phases.iter().zip(&opts.profile.jobs) {
                assert_eq!(phase.name, job.name, "{what}");
                assert!(phase.ios > 0 && phase.bytes > 0, "{what}: {}", phase.name);
            }
            assert!(
                test_files(&target).is_empty(),
                "{what}: {:?}",
                test_files(&target)
            );
            assert_eq!(entries(&target), ["notes"], "{what}");
            assert!(
                report.warnings.iter().all(|w| !w.contains("removed")),
                "{what}: {:?}",
                report.warnings
            );
        }
        assert_eq!(
            entries(parent),
            before,
            "{engine:?}: nothing new beside the targets"
        );
        for (path, contents) in &files {
            assert_eq!(
                &std::fs::read(path).unwrap(),
                contents,
                "{engine:?}: {path:?} intact"
            );
        }
    }
    Ok(())
}

/// The attack of another user (`nobody`) in a world-writable folder without the sticky bit:
/// once the run is under way, the private folder is renamed and a symlink to a folder of
/// victims put in its place; replacing the test file inside is tried too.
fn attack(run_dir: &Path, victims: &Path) -> bool {
    let as_nobody = |program: &str, args: &[&std::ffi::OsStr]| {
        Command::new(program)
            .args(args)
            .uid(65534)
            .gid(65534)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut moved = run_dir.as_os_str().to_owned();
    moved.push(".moved");
    let renamed = as_nobody("mv", &[run_dir.as_os_str(), moved.as_os_str()]);
    let linked = as_nobody(
        "ln",
        &["-s".as_ref(), victims.as_os_str(), run_dir.as_os_str()],
    );
    // Not allowed in a folder of mode 0700 owned by root: must fail.
    let inside = Path::new(&moved).join("test-file");
    let file_swapped = as_nobody(
        "ln",
        &[
            "-sf".as_ref(),
            victims.join("test-file").as_os_str(),
            inside.as_os_str(),
        ],
    );
    assert!(!file_swapped, "another user replaced the test file itself");
    renamed && linked
}

fn another_user_cannot_redirect_either_engine() -> Ran {
    require_root("runs an attacker as user nobody")?;
    require_program("fio")?;
    let holder = scratch_dir();
    std::fs::set_permissions(holder.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for engine in [EngineKind::Native, EngineKind::Fio] {
        let shared = holder.path().join(format!("shared-{engine:?}"));
        std::fs::create_dir(&shared).unwrap();
        // World-writable, no sticky bit.
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let victims = holder.path().join(format!("victims-{engine:?}"));
        std::fs::create_dir(&victims).unwrap();
        let precious = b"root's precious data\n".repeat(1000);
        for name in ["test-file", "fio-job", "lock", "stamp"] {
            std::fs::write(victims.join(name), &precious).unwrap();
        }
        let profile = profile(
            "[global]\nioengine=libaio\ndirect=1\niodepth=8\nsize=16m\nend_fsync=1\n\n\
             [prepare-file]\nrw=write\nbs=512k\n\n\
             [seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
             [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=2\nstonewall\n\n\
             [seq-read]\nrw=read\nbs=1m\nstonewall\n\n\
             [rand-4k-read]\nrw=randread\nbs=4k\nruntime=2\nstonewall\n",
        );
        let file = TestFile::create(&shared, true, "ext4").unwrap();
        let run_dir = file.run_dir().to_path_buf();
        let attacked = AtomicBool::new(false);
        let succeeded = AtomicBool::new(false);
        let cancel = AtomicBool::new(false);
        let on_event = |e: &Event| {
            // Early, while later jobs still have to open the file.
            if let Event::PhaseStarted { index, .. } = e {
                if *index <= 2 && !attacked.swap(true, Ordering::SeqCst) {
                    succeeded.store(attack(&run_dir, &victims), Ordering::SeqCst);
                }
            }
        };
        let out = run_engine(engine, &profile, &file, &cancel, &on_event);
        assert!(
            attacked.load(Ordering::SeqCst),
            "{engine:?}: the attack ran"
        );
        assert!(
            succeeded.load(Ordering::SeqCst),
            "{engine:?}: nobody could rename the folder and plant a symlink"
        );
        for name in ["test-file", "fio-job", "lock", "stamp"] {
            assert_eq!(
                std::fs::read(victims.join(name)).unwrap(),
                precious,
                "{engine:?}: victim {name} untouched"
            );
        }
        // The run measured the program's own file (or stopped with an error): never the
        // victims.
        if let Ok(phases) = &out.result {
            assert_eq!(phases.len(), 5);
            assert!(phases.iter().all(|p| p.ios > 0));
        }
        let err = file.remove().expect_err("the moved folder is reported");
        assert!(
            err.to_string().contains(&run_dir.display().to_string()),
            "{err}"
        );
        // The link planted is someone else's: left alone.
        assert!(std::fs::symlink_metadata(&run_dir)
            .unwrap()
            .file_type()
            .is_symlink());
        let moved = PathBuf::from(format!("{}.moved", run_dir.display()));
        assert!(
            entries(&moved).is_empty(),
            "{engine:?}: {:?}",
            entries(&moved)
        );
    }
    Ok(())
}

/// Starts a child that creates a test file in `dir` and keeps it (and its lock) until it is
/// killed; returns it and its private folder.
fn holder_child(dir: &Path) -> (Child, PathBuf) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, "hold")
        .env(CHILD_DIR_ENV, dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let run_dir = PathBuf::from(line.trim_end());
    assert!(run_dir.is_dir(), "child made {run_dir:?}");
    (child, run_dir)
}

fn a_live_run_is_kept_and_a_killed_one_is_removed_and_reported() {
    let holder = scratch_dir();
    let dir = holder.path();
    let (mut child, run_dir) = holder_child(dir);
    std::fs::write(run_dir.join("test-file"), b"data of a live run").unwrap();
    let swept = sweep(dir);
    assert!(
        swept.removed.is_empty() && swept.left.is_empty(),
        "{swept:?}"
    );
    assert_eq!(
        std::fs::read(run_dir.join("test-file")).unwrap(),
        b"data of a live run"
    );
    // Another live run of this very process does not count as stale either.
    let own = TestFile::create(dir, false, "ext4").unwrap();
    assert!(sweep(dir).removed.is_empty());
    assert!(own.path().exists());

    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let swept = sweep(dir);
    assert_eq!(swept.removed, vec![run_dir.clone()], "{swept:?}");
    assert!(swept.left.is_empty(), "{swept:?}");
    assert!(!run_dir.exists());
    assert!(own.path().exists(), "the live one stays");
    own.remove().unwrap();
    assert!(test_files(dir).is_empty(), "{:?}", test_files(dir));
}

fn a_killed_run_with_foreign_files_keeps_them_and_says_so() {
    let holder = scratch_dir();
    let dir = holder.path();
    let (mut child, run_dir) = holder_child(dir);
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::write(run_dir.join("notes.txt"), b"not the program's").unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere"), run_dir.join("x")).unwrap();
    let swept = sweep(dir);
    assert!(swept.removed.is_empty(), "{swept:?}");
    assert_eq!(swept.left.len(), 1, "{swept:?}");
    assert_eq!(swept.left[0].path, run_dir);
    assert_eq!(
        swept.left[0].reason,
        LeftReason::Foreign(vec!["notes.txt".into(), "x".into()])
    );
    assert!(swept.left[0].message().contains("notes.txt"));
    assert_eq!(entries(&run_dir), ["notes.txt", "x"]);
    assert_eq!(
        std::fs::read(run_dir.join("notes.txt")).unwrap(),
        b"not the program's"
    );
}

fn what_cannot_be_proven_ours_is_kept() {
    let holder = scratch_dir();
    let dir = holder.path();
    let data = dir.join("data.bin");
    std::fs::write(&data, b"someone's data").unwrap();
    // 0.1's pattern, a dead pid, a hard link to someone's data: kept, only named.
    let dead = {
        let mut c = Command::new("true").spawn().unwrap();
        let pid = c.id();
        c.wait().unwrap();
        pid
    };
    let link = dir.join(format!(".agnostics-test.{dead}.0123456789abcdef.tmp"));
    std::fs::hard_link(&data, &link).unwrap();
    // A folder named like ours with a stamp that does not match and data in it.
    let fake = dir.join(".agnostics-run.00000000000000ab");
    std::fs::create_dir(&fake).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(fake.join("stamp"), b"agnostics run 00000000000000ac\n").unwrap();
    std::fs::write(fake.join("test-file"), b"data").unwrap();
    // One of mode 0755: not the program's at all.
    let open = dir.join(".agnostics-run.00000000000000cd");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A symlink with our name.
    let sym = dir.join(".agnostics-run.00000000000000ef");
    std::os::unix::fs::symlink(&fake, &sym).unwrap();

    let swept = sweep(dir);
    assert!(swept.removed.is_empty(), "{swept:?}");
    let reasons: Vec<(PathBuf, LeftReason)> = swept
        .left
        .iter()
        .map(|l| (l.path.clone(), l.reason.clone()))
        .collect();
    assert_eq!(
        reasons,
        [
            (fake.clone(), LeftReason::Unproven),
            (link.clone(), LeftReason::OldVersion)
        ]
    );
    assert_eq!(std::fs::read(&link).unwrap(), b"someone's data");
    assert_eq!(std::fs::read(&data).unwrap(), b"someone's data");
    assert_eq!(std::fs::read(fake.join("test-file")).unwrap(), b"data");
    assert!(open.is_dir() && std::fs::symlink_metadata(&sym).is_ok());

    // A run killed while setting up (only empty files, no stamp yet) is provably harmless.
    let early = dir.join(".agnostics-run.0000000000000012");
    std::fs::create_dir(&early).unwrap();
    std::fs::set_permissions(&early, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(early.join("lock"), b"").unwrap();
    assert_eq!(sweep(dir).removed, vec![early.clone()]);
    assert!(!early.exists());
}

fn child_main(role: &str) {
    match role {
        "hold" => {
            let dir = PathBuf::from(std::env::var_os(CHILD_DIR_ENV).expect("a folder"));
            let file = TestFile::create(&dir, false, "ext4").expect("a test file");
            println!("{}", file.run_dir().display());
            std::thread::sleep(Duration::from_secs(600));
            drop(file);
        }
        other => panic!("unknown child role {other}"),
    }
}

/// When this process is one of this module's children: plays its role and returns true.
pub(crate) fn serve_child() -> bool {
    let Ok(role) = std::env::var(CHILD_ENV) else {
        return false;
    };
    child_main(&role);
    true
}

pub(crate) fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "hostile_target_names_work_on_both_engines",
            hostile_target_names_work_on_both_engines,
        ),
        Test::new(
            "another_user_cannot_redirect_either_engine",
            another_user_cannot_redirect_either_engine,
        ),
        Test::new(
            "a_live_run_is_kept_and_a_killed_one_is_removed_and_reported",
            a_live_run_is_kept_and_a_killed_one_is_removed_and_reported,
        ),
        Test::new(
            "a_killed_run_with_foreign_files_keeps_them_and_says_so",
            a_killed_run_with_foreign_files_keeps_them_and_says_so,
        ),
        Test::new(
            "what_cannot_be_proven_ours_is_kept",
            what_cannot_be_proven_ours_is_kept,
        ),
    ]
}
