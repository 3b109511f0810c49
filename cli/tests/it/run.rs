//! `agnostics-cli run`: the report's shape, exit statuses and every refused or failing case,
//! each asserting the message and that no file is left behind.

use crate::support;

use std::time::{Duration, Instant};

use agnostics_testkit::{test_files, LoopFs, Tmpfs};
use support::{cli, json, scratch, small_profile, Run};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json_report_has_the_documented_shape() {
    let dir = scratch();
    let profile = small_profile(dir.path(), "8m");
    let out = Run::new()
        .args(["--json", "--runs", "1"])
        .target(dir.path())
        .profile(&profile)
        .output();
    let v = json(&out);
    assert!(v["error"].is_null(), "{v}");
    let verdict = v["verdict"].as_str().unwrap();
    assert!(verdict == "PASS" || verdict == "FAIL", "{verdict}");
    assert_eq!(
        out.status.code(),
        Some(if verdict == "PASS" { 0 } else { 1 })
    );
    assert_eq!(v["engine"], "native");
    assert_eq!(v["target"]["fs_type"], "ext4");
    assert!(v["target"]["device"].is_string());
    assert!(v["target"]["transport"].is_string());
    let run = &v["runs"][0];
    let names: Vec<_> = run["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "prepare-file",
            "seq-write",
            "seq-read",
            "rand-4k-write",
            "rand-4k-read"
        ]
    );
    for p in run["phases"].as_array().unwrap() {
        assert!(p["bytes"].as_u64().unwrap() > 0, "{p}");
        assert!(p["ios"].as_u64().unwrap() > 0);
        assert!(p["seconds"].as_f64().unwrap() > 0.0);
        assert!(p["bw_bytes"].as_f64().unwrap() > 0.0);
        assert!(p["iops"].as_f64().unwrap() > 0.0);
        for k in ["p50", "p99", "max"] {
            assert!(p["lat_us"][k].as_f64().unwrap() > 0.0, "{k} in {p}");
        }
        assert!(p["samples"].is_array());
    }
    let checks = run["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 6);
    assert_eq!(checks[0]["name"], "seq-write");
    assert_eq!(checks[0]["standard"], "A1");
    assert_eq!(checks[0]["unit"], "KiB/s");
    assert_eq!(checks[0]["target"], 10000.0);
    assert_eq!(checks[1]["unit"], "IOPS");
    assert_eq!(checks[2]["target"], 1500.0);
    assert_eq!(checks[3]["standard"], "A2");
    assert!(v["warnings"].is_array());
    assert!(test_files(dir.path()).is_empty());
}

fn text_output_starts_with_upstreams_compat_lines() {
    let dir = scratch();
    let profile = small_profile(dir.path(), "8m");
    let text = Run::default_command()
        .runs(1)
        .target(dir.path())
        .profile(&profile)
        .text();
    let seq = text
        .lines()
        .find(|l| l.starts_with("Sequential write speed "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(seq.contains(" KB/sec (target 10000) - "), "{seq}");
    assert!(text
        .lines()
        .any(|l| l.starts_with("Random write speed ") && l.contains(" IOPS (target 500) - ")));
    assert!(text
        .lines()
        .any(|l| l.starts_with("Random read speed ") && l.contains(" IOPS (target 1500) - ")));
    assert!(test_files(dir.path()).is_empty());
}

fn refuses_a_bad_profile_naming_line_and_key() {
    let dir = scratch();
    let profile = dir.path().join("bad.fio");
    std::fs::write(&profile, "[a]\nsize=1m\nverify=md5\n").unwrap();
    let out = Run::default_command()
        .target(dir.path())
        .profile(&profile)
        .expect_exit(2)
        .output();
    let err = stderr(&out);
    assert!(err.contains("bad.fio:3: verify"), "{err}");
    assert!(test_files(dir.path()).is_empty());
}

/// A target `agnostics-cli` refuses before it writes anything, one test each.
struct Refusal {
    /// The test's name.
    name: &'static str,
    /// The target.
    target: Target,
    /// What the refusal must say; with any JSON expectation the run is `--json`.
    expect: &'static [Expect],
}

/// A refused target, made by [`Target::make`].
#[derive(Clone, Copy)]
enum Target {
    /// A path that does not exist, in a scratch folder.
    Missing,
    /// A regular file holding `x`.
    File,
    /// A 600 MiB tmpfs.
    Tmpfs,
    /// A 64 MiB ext4 loop filesystem mounted read-only.
    ReadOnlyMount,
    /// A 48 MiB ext4 loop filesystem: too small for the standard test file.
    NoRoom,
    /// `/proc`, when it is the kernel's proc filesystem here.
    Proc,
}

/// One thing the refusal must say (beyond exit status 2).
#[derive(Clone, Copy)]
enum Expect {
    /// stderr contains this text.
    Stderr(&'static str),
    /// JSON `error.kind` is this name.
    Kind(&'static str),
    /// JSON `error.message` contains this text.
    Message(&'static str),
    /// JSON `verdict` is ERROR.
    VerdictError,
    /// JSON `runs` is empty.
    NoRuns,
}

impl Expect {
    fn needs_json(self) -> bool {
        !matches!(self, Expect::Stderr(_))
    }
}

const REFUSALS: &[Refusal] = &[
    Refusal {
        name: "refuses_a_missing_target",
        target: Target::Missing,
        expect: &[Expect::Stderr("does not exist")],
    },
    Refusal {
        name: "refuses_a_file_as_target",
        target: Target::File,
        expect: &[Expect::Kind("not_a_directory")],
    },
    Refusal {
        name: "refuses_tmpfs_target",
        target: Target::Tmpfs,
        expect: &[
            Expect::Kind("memory"),
            Expect::Message("memory"),
            Expect::VerdictError,
        ],
    },
    Refusal {
        name: "refuses_a_read_only_mount",
        target: Target::ReadOnlyMount,
        expect: &[Expect::Stderr("read-only")],
    },
    Refusal {
        name: "refuses_a_filesystem_without_room",
        target: Target::NoRoom,
        expect: &[Expect::Kind("no_space"), Expect::NoRuns],
    },
    Refusal {
        name: "refuses_proc_as_not_storage",
        target: Target::Proc,
        expect: &[
            Expect::Kind("not_storage"),
            Expect::Message("proc"),
            Expect::VerdictError,
            Expect::NoRuns,
        ],
    },
];

/// A made target: its path, what keeps it alive, and the check that the refusal left it as
/// it was.
struct Made {
    path: std::path::PathBuf,
    _keep: Box<dyn std::any::Any>,
    untouched: fn(&std::path::Path),
}

impl Target {
    fn make(self) -> Result<Made, agnostics_testkit::Skip> {
        let nothing_left = |p: &std::path::Path| assert!(test_files(p).is_empty());
        Ok(match self {
            Target::Missing => {
                let dir = scratch();
                Made {
                    path: dir.path().join("nope"),
                    _keep: Box::new(dir),
                    untouched: |p| assert!(!p.exists()),
                }
            }
            Target::File => {
                let dir = scratch();
                let file = dir.path().join("file");
                std::fs::write(&file, b"x").unwrap();
                Made {
                    path: file,
                    _keep: Box::new(dir),
                    untouched: |p| assert_eq!(std::fs::read(p).unwrap(), b"x"),
                }
            }
            Target::Tmpfs => {
                agnostics_testkit::require_root("mounts a tmpfs")?;
                let fs = Tmpfs::new(600);
                Made {
                    path: fs.mount.clone(),
                    _keep: Box::new(fs),
                    untouched: nothing_left,
                }
            }
            Target::Proc => {
                let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
                agnostics_testkit::require(
                    mounts.lines().any(|l| l.starts_with("proc /proc proc ")),
                    "needs /proc on proc",
                )?;
                Made {
                    path: "/proc".into(),
                    _keep: Box::new(()),
                    untouched: nothing_left,
                }
            }
            Target::ReadOnlyMount | Target::NoRoom => {
                agnostics_testkit::require_root("a loop device")?;
                let (mib, options) = match self {
                    Target::ReadOnlyMount => (64, "ro"),
                    _ => (48, "rw"),
                };
                let fs = LoopFs::builder(mib)
                    .options(options)
                    .no_reserved_blocks()
                    .mount();
                Made {
                    path: fs.mount.clone(),
                    _keep: Box::new(fs),
                    untouched: nothing_left,
                }
            }
        })
    }
}

impl Refusal {
    /// Runs `agnostics-cli` on the target: exit status 2, every expectation met, the target
    /// left as it was.
    fn run(&self) -> agnostics_testkit::Ran {
        let made = self.target.make()?;
        let json_out = self.expect.iter().any(|e| e.needs_json());
        let mut cmd = cli();
        if json_out {
            cmd.arg("--json");
        }
        let out = cmd.arg("--target").arg(&made.path).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let v = if json_out {
            json(&out)
        } else {
            serde_json::Value::Null
        };
        for e in self.expect {
            match *e {
                Expect::Stderr(text) => {
                    assert!(stderr(&out).contains(text), "{}", stderr(&out))
                }
                Expect::Kind(kind) => assert_eq!(v["error"]["kind"], kind),
                Expect::Message(text) => {
                    assert!(v["error"]["message"].as_str().unwrap().contains(text))
                }
                Expect::VerdictError => assert_eq!(v["verdict"], "ERROR"),
                Expect::NoRuns => assert!(v["runs"].as_array().unwrap().is_empty()),
            }
        }
        (made.untouched)(&made.path);
        Ok(())
    }
}

fn fio_engine_without_fio_is_an_error_not_a_pass() {
    let dir = scratch();
    let profile = small_profile(dir.path(), "4m");
    let v = Run::default_command()
        .env("AGNOSTICS_FIO", dir.path().join("no-such-fio"))
        .engine("fio")
        .target(dir.path())
        .profile(&profile)
        .expect_exit(2)
        .json();
    assert_eq!(v["verdict"], "ERROR");
    assert_eq!(v["error"]["kind"], "fio_missing");
    assert!(v["error"]["hint"]
        .as_str()
        .unwrap()
        .contains("apt install fio"));
    assert!(test_files(dir.path()).is_empty());
}

/// Starts a long run, sends `signal` once its file exists, and checks that the run is
/// cancelled, says why it is waiting, exits `code` and leaves no file.
fn signal_cancels_and_removes_the_file(signal: nix::sys::signal::Signal, code: i32) {
    let dir = scratch();
    let profile = dir.path().join("long.fio");
    // A long random-write phase so that the signal lands mid-run.
    std::fs::write(
        &profile,
        "[global]\ndirect=1\niodepth=4\nsize=64m\n[prepare-file]\nrw=write\nbs=1m\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=60\nstonewall\n",
    )
    .unwrap();
    let child = Run::default_command()
        .arg("--json")
        .target(dir.path())
        .profile(&profile)
        .command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the test file exists, i.e. the run has started writing.
    let start = Instant::now();
    while test_files(dir.path()).is_empty() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !test_files(dir.path()).is_empty(),
        "the run never created its file"
    );
    std::thread::sleep(Duration::from_millis(300));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    assert!(stderr(&out).contains("Stopping: waiting for the drive"));
    let v = json(&out);
    assert_eq!(
        v["error"]["kind"],
        agnostics_core::report::ErrorKind::Cancelled.as_str()
    );
    assert_eq!(v["verdict"], "ERROR");
    assert!(
        test_files(dir.path()).is_empty(),
        "{:?}",
        test_files(dir.path())
    );
}

/// Each signal that cancels a run, and the exit status it gives (128 + its number), one test
/// each.
const SIGNALS: &[(&str, nix::sys::signal::Signal, i32)] = &[
    (
        "sigint_cancels_and_removes_the_file",
        nix::sys::signal::Signal::SIGINT,
        130,
    ),
    (
        "sigterm_cancels_and_removes_the_file",
        nix::sys::signal::Signal::SIGTERM,
        143,
    ),
    (
        "sighup_of_a_closed_ssh_session_cancels_and_removes_the_file",
        nix::sys::signal::Signal::SIGHUP,
        129,
    ),
];

fn a_closed_stdout_does_not_panic_and_still_writes_the_log() {
    let dir = scratch();
    let profile = small_profile(dir.path(), "4m");
    let log = dir.path().join("rpdiags.txt");
    // `agnostics-cli | head -1` that has already quit: stdout is a pipe with no reader.
    let mut child = Run::default_command()
        .env("AGNOSTICS_LOG", &log)
        .runs(1)
        .target(dir.path())
        .profile(&profile)
        .command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?} {}",
        out.status,
        stderr(&out)
    );
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .contains("Test : SD Card Speed Test"));
    assert!(test_files(dir.path()).is_empty());
}

fn a_full_stdout_is_an_error_not_a_panic() -> agnostics_testkit::Ran {
    let dir = scratch();
    let profile = small_profile(dir.path(), "4m");
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return agnostics_testkit::skip("needs /dev/full");
    };
    let out = Run::default_command()
        .args(["--json", "--runs", "1"])
        .target(dir.path())
        .profile(&profile)
        .command()
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(stderr(&out).contains("No space left"), "{}", stderr(&out));
    assert!(test_files(dir.path()).is_empty());
    Ok(())
}

fn removes_a_stale_file_of_a_killed_run_but_nothing_else() {
    let dir = scratch();
    let profile = small_profile(dir.path(), "4m");
    let long = dir.path().join("long.fio");
    std::fs::write(
        &long,
        "[prepare-file]\ndirect=1\nsize=64m\nrw=randwrite\nbs=4k\nruntime=60\n",
    )
    .unwrap();
    let mut child = Run::default_command()
        .target(dir.path())
        .profile(&long)
        .command()
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !test_files(dir.path())
        .iter()
        .any(|f| f.ends_with("/test-file"))
        && start.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    // The run's private folder, listed first, then what is in it.
    let stale = test_files(dir.path());
    assert!(stale[0].starts_with(".agnostics-run."), "{stale:?}");
    assert!(stale.iter().any(|f| f.ends_with("/test-file")), "{stale:?}");
    // Look-alikes the program did not create stay.
    std::fs::write(dir.path().join("sd.test.file"), b"mine").unwrap();
    std::fs::write(dir.path().join(".agnostics-test-notours"), b"mine").unwrap();

    let v = Run::default_command()
        .runs(1)
        .target(dir.path())
        .profile(&profile)
        .json();
    assert!(v["error"].is_null(), "{v}");
    // Said naming the folder the user chose, not the program's hidden one.
    let removed = format!(
        "removed the test folder left by an earlier run in {}",
        dir.path().display()
    );
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap() == removed),
        "{v}"
    );
    assert!(!v["warnings"].to_string().contains(&stale[0]), "{v}");
    assert_eq!(test_files(dir.path()), [".agnostics-test-notours"]);
    assert_eq!(
        std::fs::read(dir.path().join("sd.test.file")).unwrap(),
        b"mine"
    );
}

fn writes_the_results_to_the_rpdiags_log_like_upstream() {
    let dir = scratch();
    let profile = small_profile(dir.path(), "4m");
    let log = dir.path().join("rpdiags.txt");
    let out = Run::default_command()
        .env("AGNOSTICS_LOG", &log)
        .runs(1)
        .target(dir.path())
        .profile(&profile)
        .output();
    assert!(
        stderr(&out).contains(&format!("Log: {}", log.display())),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.starts_with("Raspberry Pi Diagnostics - version "),
        "{text}"
    );
    assert!(text.contains("Test : SD Card Speed Test\n"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("Sequential write speed ")),
        "{text}"
    );
    let last = text.lines().rev().find(|l| !l.is_empty()).unwrap();
    assert!(last == "Test PASS" || last == "Test FAIL", "{text}");
}

fn a_bad_profile_with_json_still_prints_one_json_document() {
    let dir = scratch();
    let profile = dir.path().join("bad.fio");
    std::fs::write(&profile, "[a]\nsize=1m\nverify=md5\n").unwrap();
    let v = Run::default_command()
        .target(dir.path())
        .profile(&profile)
        .expect_exit(2)
        .json();
    assert_eq!(v["verdict"], "ERROR");
    assert_eq!(v["error"]["kind"], "profile");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("bad.fio:3: verify"));
}

fn a_profile_without_graded_jobs_runs_once_and_says_why() {
    let dir = scratch();
    let profile = dir.path().join("ungraded.fio");
    std::fs::write(&profile, "[warm-up]\ndirect=1\nsize=2m\nrw=write\nbs=1m\n").unwrap();
    let v = Run::default_command()
        .target(dir.path())
        .profile(&profile)
        .expect_exit(2)
        .json();
    assert_eq!(v["verdict"], "ERROR");
    assert_eq!(v["runs"].as_array().unwrap().len(), 1);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("seq-write, rand-4k-write, rand-4k-read"),
        "{warnings}"
    );
    assert!(test_files(dir.path()).is_empty());
}

pub(crate) fn tests() -> Vec<agnostics_testkit::harness::Test> {
    use agnostics_testkit::harness::Test;
    let mut tests = agnostics_testkit::tests![
        json_report_has_the_documented_shape,
        text_output_starts_with_upstreams_compat_lines,
        refuses_a_bad_profile_naming_line_and_key,
        fio_engine_without_fio_is_an_error_not_a_pass,
        a_closed_stdout_does_not_panic_and_still_writes_the_log,
        a_full_stdout_is_an_error_not_a_panic,
        removes_a_stale_file_of_a_killed_run_but_nothing_else,
        writes_the_results_to_the_rpdiags_log_like_upstream,
        a_bad_profile_with_json_still_prints_one_json_document,
        a_profile_without_graded_jobs_runs_once_and_says_why,
    ];
    tests.extend(REFUSALS.iter().map(|r| Test::new(r.name, || r.run())));
    tests.extend(SIGNALS.iter().map(|&(name, signal, code)| {
        Test::new(name, move || {
            signal_cancels_and_removes_the_file(signal, code)
        })
    }));
    tests
}
