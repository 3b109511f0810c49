//! `agnostics-cli scripts` end to end: real scripts, HOME and XDG_DATA_DIRS pointed at scratch
//! folders, exit statuses and the JSON document.

use crate::support;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{json, scratch};

/// A scratch HOME, an empty XDG data folder and a folder of scripts.
struct Setup {
    home: tempfile::TempDir,
    xdg: tempfile::TempDir,
    scripts: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            home: scratch(),
            xdg: scratch(),
            scripts: scratch(),
        }
    }

    fn script(&self, file: &str, body: &str) {
        std::fs::write(self.scripts.path().join(file), body).unwrap();
    }

    fn cli(&self, args: &[&str]) -> Command {
        let mut c = support::cli();
        // These tests check ~/rpdiags.txt itself.
        c.env_remove("AGNOSTICS_LOG")
            .env("HOME", self.home.path())
            .env("XDG_DATA_DIRS", self.xdg.path())
            .arg("scripts")
            .arg("--dir")
            .arg(self.scripts.path())
            .args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cli(args).output().expect("agnostics-cli runs")
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.home.path().join("rpdiags.txt")).expect("rpdiags.txt")
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json_reports_every_test_and_exits_1_when_one_fails() {
    let s = Setup::new();
    s.script("ok.sh", "#NAME=Passes\n#DESC=Fine\necho fine\n");
    s.script(
        "bad.sh",
        "#NAME=Fails\n#DESC=Status 3\necho broken >&2\nexit 3\n",
    );
    s.script(
        "crash.sh",
        "#NAME=Crashes\n#DESC=Signal\nulimit -c 0\nkill -SEGV $$\n",
    );
    s.script("half.sh", "#NAME=Half\necho no description\n");
    let out = s.run(&["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json(&out);

    let tests = doc["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Crashes", "Fails", "Passes"]);
    let crash = &tests[0];
    assert_eq!(crash["verdict"], "FAIL");
    assert_eq!(crash["exit_code"], serde_json::Value::Null);
    assert_eq!(crash["signal"], "SIGSEGV");
    let fails = &tests[1];
    assert_eq!(fails["verdict"], "FAIL");
    assert_eq!(fails["exit_code"], 3);
    assert_eq!(fails["signal"], serde_json::Value::Null);
    assert_eq!(fails["description"], "Status 3");
    assert_eq!(fails["output"], "broken\n");
    let passes = &tests[2];
    assert_eq!(passes["verdict"], "PASS");
    assert_eq!(passes["exit_code"], 0);
    assert_eq!(
        passes["file"].as_str().unwrap(),
        s.scripts.path().join("ok.sh").to_str().unwrap()
    );
    assert!(passes["seconds"].as_f64().unwrap() >= 0.0);

    let log_path = s.home.path().join("rpdiags.txt");
    assert_eq!(doc["log"].as_str().unwrap(), log_path.to_str().unwrap());
    assert_eq!(doc["error"], serde_json::Value::Null);
    assert_eq!(doc["skipped"][0]["kind"], "no_description");
    assert!(stderr(&out).contains("half.sh: it has no #DESC= line"));

    let log = s.log();
    let lines: Vec<&str> = log.lines().collect();
    assert!(lines[0].starts_with("Raspberry Pi Diagnostics - version "));
    assert_eq!(
        lines[3..],
        [
            "Test : Crashes",
            "Killed by SIGSEGV",
            "Test FAIL",
            "",
            "Test : Fails",
            "broken",
            "Exit status 3",
            "Test FAIL",
            "",
            "Test : Passes",
            "fine",
            "Test PASS",
            "",
        ]
    );
}

fn text_mode_echoes_output_and_exits_0_when_all_pass() {
    let s = Setup::new();
    s.script("a.sh", "#NAME=First\n#DESC=a\necho first output\n");
    s.script("b.sh", "#NAME=Second\n#DESC=b\nprintf 'no newline'\n");
    let out = s.run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("first output\nFirst: PASS\n"), "{text}");
    assert!(text.contains("no newline\nSecond: PASS\n"), "{text}");
    assert!(text.contains("2 of 2 tests passed."), "{text}");
    assert!(text.contains("rpdiags.txt"), "{text}");
}

fn no_tests_is_not_an_error_and_leaves_the_log_alone() {
    let s = Setup::new();
    std::fs::write(s.home.path().join("rpdiags.txt"), "earlier log\n").unwrap();
    let out = s.run(&["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["tests"], serde_json::json!([]));
    assert_eq!(doc["log"], serde_json::Value::Null);
    assert_eq!(s.log(), "earlier log\n");
    let out = s.run(&[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("No test scripts found"));
}

fn list_runs_nothing() {
    let s = Setup::new();
    let marker = s.scripts.path().join("ran");
    s.script(
        "t.sh",
        &format!(
            "#NAME=Lister\n#DESC=Two\\nlines\ntouch '{}'\n",
            marker.display()
        ),
    );
    let out = s.run(&["--list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Lister\n    Two\n    lines\n"), "{text}");
    let doc = json(&s.run(&["--list", "--json"]));
    assert_eq!(doc["tests"][0]["name"], "Lister");
    assert_eq!(doc["tests"][0]["description"], "Two\nlines");
    assert!(!marker.exists(), "--list ran the script");
    assert!(!s.home.path().join("rpdiags.txt").exists());
}

fn tests_in_xdg_data_dirs_are_found_and_dir_comes_first() {
    let s = Setup::new();
    let system = s.xdg.path().join("agnostics");
    std::fs::create_dir(&system).unwrap();
    std::fs::write(system.join("sys.sh"), "#NAME=System test\n#DESC=x\n").unwrap();
    std::fs::write(
        system.join("same.sh"),
        "#NAME=System copy\n#DESC=x\nexit 1\n",
    )
    .unwrap();
    std::fs::write(
        system.join("sdtest.sh"),
        "#NAME=SD Card Speed Test\n#DESC=x\n",
    )
    .unwrap();
    s.script("same.sh", "#NAME=Local copy\n#DESC=x\n");
    let doc = json(&s.run(&["--list", "--json"]));
    let names: Vec<&str> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Local copy", "System test"]);
    let kinds: Vec<&str> = doc["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["shadowed", "built_in"]);
}

fn timeout_flag_stops_a_slow_test() {
    let s = Setup::new();
    s.script("slow.sh", "#NAME=Slow\n#DESC=Sleeps\nsleep 1000\n");
    let out = s.run(&["--json", "--timeout", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["tests"][0]["verdict"], "TIMEOUT");
    assert!(s
        .log()
        .contains("Test : Slow\nTimed out after 1 s\nTest FAIL\n"));
    let out = s.run(&["--timeout", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

fn missing_dir_and_unwritable_log_are_errors() {
    let s = Setup::new();
    let out = support::cli()
        .args(["scripts", "--dir", "/nonexistent/agnostics-tests", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(json(&out)["error"]
        .as_str()
        .unwrap()
        .contains("is not a folder"));

    s.script("t.sh", "#NAME=T\n#DESC=x\n");
    let out = s
        .cli(&["--json"])
        .env("HOME", s.home.path().join("missing"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let doc = json(&out);
    assert!(doc["error"]
        .as_str()
        .unwrap()
        .contains("cannot write the log"));
    assert_eq!(doc["tests"], serde_json::json!([]));
}

fn sigint_aborts_the_running_test_and_exits_130() {
    aborts_the_running_test_on(nix::sys::signal::Signal::SIGINT, 130);
}

/// A closed SSH session (SIGHUP) stops the tests like Ctrl+C: the running one aborted, its
/// processes gone, the log ending "Test aborted", exit 129.
fn sighup_aborts_the_running_test_and_exits_129() {
    aborts_the_running_test_on(nix::sys::signal::Signal::SIGHUP, 129);
}

/// Sends `signal` while the first of two tests runs and checks the exit status `code`, the
/// aborted test, its process group emptied and the log.
fn aborts_the_running_test_on(signal: nix::sys::signal::Signal, code: i32) {
    let s = Setup::new();
    let started = s.scripts.path().join("started");
    s.script(
        "a.sh",
        &format!(
            "#NAME=A waits\n#DESC=x\nsleep 1000 &\ntouch '{}'\nsleep 1000\n",
            started.display()
        ),
    );
    s.script("b.sh", "#NAME=B never runs\n#DESC=x\n");
    let child = s
        .cli(&["--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(30);
    while !started.exists() {
        assert!(Instant::now() < give_up, "the script never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{signal}: {}", stderr(&out));
    let doc = json(&out);
    let tests = doc["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 1);
    assert_eq!(tests[0]["verdict"], "ABORTED");
    let pgid = tests[0]["pid"].as_u64().unwrap() as u32;
    assert!(
        agnostics_core::scripts::live_group_members(pgid).is_empty(),
        "processes of the aborted test survived"
    );
    assert!(s.log().ends_with("Test : A waits\nTest aborted\n\n"));
}

fn a_full_stdout_does_not_panic_and_the_log_keeps_the_output() -> agnostics_testkit::Ran {
    let s = Setup::new();
    s.script("ok.sh", "#NAME=Passes\n#DESC=Fine\necho fine\n");
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return agnostics_testkit::skip("needs /dev/full");
    };
    for (args, code) in [
        (&[][..], 0),
        (&["--list"][..], 0),
        (&["--json"][..], 2),
        (&["--list", "--json"][..], 2),
    ] {
        let out = s
            .cli(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
    }
    assert!(s.log().contains("fine"), "{}", s.log());
    Ok(())
}

agnostics_testkit::test_list!(
    json_reports_every_test_and_exits_1_when_one_fails,
    text_mode_echoes_output_and_exits_0_when_all_pass,
    no_tests_is_not_an_error_and_leaves_the_log_alone,
    list_runs_nothing,
    tests_in_xdg_data_dirs_are_found_and_dir_comes_first,
    timeout_flag_stops_a_slow_test,
    missing_dir_and_unwritable_log_are_errors,
    sigint_aborts_the_running_test_and_exits_130,
    sighup_aborts_the_running_test_and_exits_129,
    a_full_stdout_does_not_panic_and_the_log_keeps_the_output,
);
