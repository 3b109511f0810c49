//! Upstream's script protocol with real scripts run by the real /bin/sh, in folders on the
//! build's own (ext4) disk: verdicts, the log's exact text, and that no process of a test's
//! group outlives it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use agnostics_core::scripts::log::header;
use agnostics_core::scripts::{
    discover, live_group_members, run_all, run_test, Discovery, LogWriter, RunOptions, ScriptEvent,
    ScriptResult, ScriptTest, ScriptVerdict, SkipReason,
};

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temporary folder")
}

fn write(dir: &Path, file: &str, body: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(file);
    std::fs::write(&path, body).expect("write script");
    path
}

/// Short limits so that the slow paths (timeout, grace) take a second or two.
fn fast() -> RunOptions {
    RunOptions {
        timeout: Duration::from_secs(1),
        kill_grace: Duration::from_millis(500),
        drain_limit: Duration::from_secs(1),
        ..RunOptions::default()
    }
}

fn test_of(file: &Path) -> ScriptTest {
    ScriptTest {
        name: file.file_name().unwrap().to_string_lossy().into_owned(),
        description: "d".into(),
        file: file.to_path_buf(),
    }
}

fn run(file: &Path, opts: &RunOptions) -> ScriptResult {
    let result =
        run_test(0, &test_of(file), opts, &AtomicBool::new(false), &|_| {}).expect("script runs");
    assert_nothing_left(&result);
    result
}

fn assert_nothing_left(result: &ScriptResult) {
    assert_eq!(
        live_group_members(result.pid),
        Vec::<u32>::new(),
        "processes of {}'s group survived",
        result.name
    );
}

fn is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

fn passing_script_passes() {
    let dir = tempdir();
    let file = write(dir.path(), "ok.sh", "echo hello\nexit 0\n");
    let r = run(&file, &fast());
    assert_eq!(r.verdict, ScriptVerdict::Pass);
    assert_eq!((r.exit_code, r.signal.as_deref()), (Some(0), None));
    assert_eq!(r.output, "hello\n");
    assert_eq!(r.output_bytes, 6);
}

fn exit_status_3_fails_with_that_status() {
    let dir = tempdir();
    let file = write(dir.path(), "three.sh", "echo failing\nexit 3\n");
    let r = run(&file, &fast());
    assert_eq!(r.verdict, ScriptVerdict::Fail);
    assert_eq!((r.exit_code, r.signal.as_deref()), (Some(3), None));
    assert_eq!(r.reason(), "exit status 3");
}

fn death_by_signal_fails_with_the_signal_name() {
    let dir = tempdir();
    let file = write(
        dir.path(),
        "segv.sh",
        "ulimit -c 0\nkill -SEGV $$\necho not reached\n",
    );
    let r = run(&file, &fast());
    assert_eq!(r.verdict, ScriptVerdict::Fail);
    assert_eq!((r.exit_code, r.signal.as_deref()), (None, Some("SIGSEGV")));
    assert_eq!(r.reason(), "killed by SIGSEGV");
    assert_eq!(r.output, "");
}

fn stdout_and_stderr_arrive_in_the_order_written() {
    let dir = tempdir();
    let file = write(
        dir.path(),
        "both.sh",
        "echo one\necho two >&2\necho three\n",
    );
    assert_eq!(run(&file, &fast()).output, "one\ntwo\nthree\n");
}

fn script_past_its_timeout_is_stopped_with_sigterm() {
    let dir = tempdir();
    let file = write(
        dir.path(),
        "slow.sh",
        "echo started\nsleep 1000\necho not reached\n",
    );
    let stopping = Mutex::new(Vec::new());
    let r = run_test(0, &test_of(&file), &fast(), &AtomicBool::new(false), &|e| {
        if let ScriptEvent::Stopping { verdict, .. } = e {
            stopping.lock().unwrap().push(verdict);
        }
    })
    .unwrap();
    assert_nothing_left(&r);
    assert_eq!(r.verdict, ScriptVerdict::Timeout);
    assert_eq!(r.signal.as_deref(), Some("SIGTERM"));
    assert_eq!(r.output, "started\n");
    assert_eq!(*stopping.lock().unwrap(), [ScriptVerdict::Timeout]);
}

fn script_ignoring_sigterm_gets_sigkill_after_the_grace() {
    let dir = tempdir();
    let file = write(
        dir.path(),
        "stubborn.sh",
        "trap '' TERM\necho ignoring\nwhile :; do sleep 1; done\n",
    );
    let r = run(&file, &fast());
    assert_eq!(r.verdict, ScriptVerdict::Timeout);
    assert_eq!(r.signal.as_deref(), Some("SIGKILL"));
    assert_eq!(r.reason(), "timed out");
}

fn background_child_dies_with_its_test() {
    let dir = tempdir();
    // The child keeps the output pipe open: the runner must not wait for its EOF.
    let file = write(dir.path(), "child.sh", "sleep 1000 &\necho $!\nexit 0\n");
    let r = run(&file, &fast());
    assert_eq!(r.verdict, ScriptVerdict::Pass);
    assert_eq!(r.leftover_processes, 1);
    let child: u32 = r.output.trim().parse().expect("the child's pid");
    assert!(!is_alive(child), "sleep {child} survived its test");
}

fn cancel_aborts_the_script_and_its_children() {
    let dir = tempdir();
    let file = write(dir.path(), "long.sh", "sleep 1000 &\necho $!\nsleep 1000\n");
    let cancel = AtomicBool::new(false);
    let opts = RunOptions {
        timeout: Duration::from_secs(600),
        ..fast()
    };
    let r = run_test(0, &test_of(&file), &opts, &cancel, &|e| {
        if let ScriptEvent::Output { .. } = e {
            cancel.store(true, Ordering::SeqCst);
        }
    })
    .unwrap();
    assert_nothing_left(&r);
    assert_eq!(r.verdict, ScriptVerdict::Aborted);
    let child: u32 = r.output.trim().parse().expect("the child's pid");
    assert!(!is_alive(child), "sleep {child} survived the cancel");
}

fn huge_non_utf8_output_is_logged_whole_and_shown_capped() {
    let dir = tempdir();
    write(
        dir.path(),
        "big.sh",
        "#NAME=Big\n#DESC=Prints 2 MB\nprintf 'caf\\351\\n'\n\
         dd if=/dev/zero bs=1024 count=2048 2>/dev/null | tr '\\000' x\n\
         printf '\\377\\376end\\n'\n",
    );
    let found = discover(&[dir.path().to_path_buf()]);
    let log_path = dir.path().join("rpdiags.txt");
    let mut log = LogWriter::create_with_header(&log_path, "H\n").unwrap();
    // About the output, not the timeout: 2 MB through dd and tr may take seconds on a slow
    // or emulated machine (an ARM one under qemu-system took more than fast()'s 1 s).
    let unhurried = RunOptions {
        timeout: Duration::from_secs(300),
        drain_limit: Duration::from_secs(30),
        ..fast()
    };
    let results = run_all(
        &found.tests,
        &unhurried,
        &mut log,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    log.finish().unwrap();

    let mut expected = b"H\nTest : Big\ncaf\xe9\n".to_vec();
    expected.extend(std::iter::repeat_n(b'x', 2 * 1024 * 1024));
    expected.extend_from_slice(b"\xff\xfeend\nTest PASS\n\n");
    let logged = std::fs::read(&log_path).unwrap();
    assert!(logged == expected, "the log lost or changed bytes");

    let r = &results[0];
    assert_eq!(r.verdict, ScriptVerdict::Pass);
    assert_eq!(r.output_bytes, 5 + 2 * 1024 * 1024 + 6);
    assert!(r.output.starts_with("caf\u{FFFD}\nxxx"));
    let shown = 64 * 1024 - 5;
    let more = r.output_bytes - 64 * 1024;
    assert!(r.output.ends_with(&format!("x\n… ({more} bytes more)")));
    assert_eq!(r.output.matches('x').count(), shown);
}

/// The scripts of [`session_discovers_runs_and_logs_like_upstream`]: every kind upstream
/// meets in folder `a`, and in `b` one shadowed by `a`'s and a copy of the built-in SD card
/// test.
fn write_session_scripts(a: &Path, b: &Path) {
    write(a, "alpha.sh", "#NAME=Alpha\n#DESC=Passes\necho alpha ok\n");
    write(
        a,
        "beta.sh",
        "#NAME=Beta\n#DESC=Fails\necho beta failing >&2\nexit 3\n",
    );
    write(
        a,
        "markup.sh",
        "#NAME=<b>&</b>\n#DESC=Not <i>markup</i> & co\necho markup\n",
    );
    write(
        a,
        "crlf.sh",
        "#NAME=Windows line endings\r\n#DESC=Saved on\\nWindows\r\necho crlf ok #\r\nexit 0 #\r\n",
    );
    write(
        a,
        "crash.sh",
        "#NAME=Crash\n#DESC=Dies\nulimit -c 0\nkill -SEGV $$\n",
    );
    write(
        a,
        "partial.sh",
        "#NAME=No newline\n#DESC=Output ends mid-line\nprintf partial\n",
    );
    write(a, "nodesc.sh", "#NAME=No description\necho never run\n");
    write(
        a,
        "notes.txt",
        "#NAME=Not a script\n#DESC=wrong extension\n",
    );
    write(
        a,
        "sdtest.sh",
        "#NAME=SD Card Speed Test\n#DESC=Upstream's own\nexit 1\n",
    );
    std::fs::create_dir(a.join("sub")).unwrap();
    write(
        &a.join("sub"),
        "deep.sh",
        "#NAME=Deep\n#DESC=Not searched\n",
    );
    write(b, "alpha.sh", "#NAME=Alpha again\n#DESC=Shadowed\nexit 1\n");
    write(
        b,
        "old-sd.sh",
        "#NAME=SD Card Speed Test\n#DESC=Renamed copy\nexit 1\n",
    );
}

/// Discovery over the folders `a` and `b` of [`write_session_scripts`]: the tests in name order
/// with their descriptions as written, and each skipped script with its reason.
fn discover_session(a: &Path, b: &Path) -> Discovery {
    let found = discover(&[a.to_path_buf(), b.to_path_buf()]);
    let names: Vec<&str> = found.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "<b>&</b>",
            "Alpha",
            "Beta",
            "Crash",
            "No newline",
            "Windows line endings"
        ]
    );
    let windows = &found.tests[5];
    assert_eq!(windows.description, "Saved on\nWindows");
    assert_eq!(found.tests[0].description, "Not <i>markup</i> & co");
    let reasons: Vec<(String, SkipReason)> = found
        .skipped
        .iter()
        .map(|s| {
            let name = s.file.file_name().unwrap().to_string_lossy().into_owned();
            (name, s.reason.clone())
        })
        .collect();
    assert_eq!(
        reasons,
        [
            ("nodesc.sh".to_string(), SkipReason::NoDescription),
            ("sdtest.sh".to_string(), SkipReason::BuiltIn),
            (
                "alpha.sh".to_string(),
                SkipReason::Shadowed {
                    by: a.join("alpha.sh")
                }
            ),
            ("old-sd.sh".to_string(), SkipReason::BuiltIn),
        ]
    );
    assert_eq!(found.replaced_sdtest(), Some(a.join("sdtest.sh").as_path()));
    assert_eq!(found.skipped[0].message(), "it has no #DESC= line");
    found
}

/// The log of the session at `log_path`: upstream's header, then each test's name, output,
/// exit status or signal and verdict, byte for byte.
fn assert_session_log(log_path: &Path) {
    let logged = std::fs::read_to_string(log_path).unwrap();
    assert_eq!(
        logged,
        "Raspberry Pi Diagnostics - version 0.1.0 (agnostics-rs)\n\
         Thu Jun  5 14:03:09 2025\n\
         \n\
         Test : <b>&</b>\n\
         markup\n\
         Test PASS\n\
         \n\
         Test : Alpha\n\
         alpha ok\n\
         Test PASS\n\
         \n\
         Test : Beta\n\
         beta failing\n\
         Exit status 3\n\
         Test FAIL\n\
         \n\
         Test : Crash\n\
         Killed by SIGSEGV\n\
         Test FAIL\n\
         \n\
         Test : No newline\n\
         partial\n\
         Test PASS\n\
         \n\
         Test : Windows line endings\n\
         crlf ok\n\
         Test PASS\n\
         \n"
    );
}

/// A session like upstream's Run Tests: discovery over two folders, every kind of script,
/// and the log checked line by line.
fn session_discovers_runs_and_logs_like_upstream() {
    let first = tempdir();
    let second = tempdir();
    let (a, b) = (first.path(), second.path());
    write_session_scripts(a, b);
    let found = discover_session(a, b);

    let log_path = a.join("rpdiags.txt");
    let when = chrono::NaiveDate::from_ymd_opt(2025, 6, 5)
        .unwrap()
        .and_hms_opt(14, 3, 9)
        .unwrap();
    let mut log = LogWriter::create_with_header(&log_path, &header("0.1.0", when)).unwrap();
    let events = Mutex::new(Vec::new());
    let results = run_all(
        &found.tests,
        &fast(),
        &mut log,
        &AtomicBool::new(false),
        &|e| {
            let tag = match e {
                ScriptEvent::Started { index, .. } => format!("start {index}"),
                ScriptEvent::Finished { index, .. } => format!("end {index}"),
                _ => return,
            };
            events.lock().unwrap().push(tag);
        },
    )
    .unwrap();
    assert_eq!(log.finish().unwrap(), log_path);
    for r in &results {
        assert_nothing_left(r);
    }
    let verdicts: Vec<ScriptVerdict> = results.iter().map(|r| r.verdict).collect();
    use ScriptVerdict::{Fail, Pass};
    assert_eq!(verdicts, [Pass, Pass, Fail, Fail, Pass, Pass]);
    assert_eq!(events.lock().unwrap().len(), 12);
    assert_eq!(events.lock().unwrap()[..2], ["start 0", "end 0"]);

    assert_session_log(&log_path);
}

fn cancel_stops_the_session_and_logs_aborted() {
    let dir = tempdir();
    write(
        dir.path(),
        "a.sh",
        "#NAME=A\n#DESC=Waits\necho waiting\nsleep 1000\n",
    );
    write(dir.path(), "b.sh", "#NAME=B\n#DESC=Never runs\necho b\n");
    write(dir.path(), "c.sh", "#NAME=C\n#DESC=Times out\nsleep 1000\n");
    let found = discover(&[dir.path().to_path_buf()]);
    let log_path = dir.path().join("rpdiags.txt");

    // First a timeout, logged as a FAIL with its reason.
    let mut log = LogWriter::create_with_header(&log_path, "H\n").unwrap();
    let results = run_all(
        &found.tests[2..],
        &fast(),
        &mut log,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    log.finish().unwrap();
    assert_eq!(results[0].verdict, ScriptVerdict::Timeout);
    assert_eq!(
        std::fs::read_to_string(&log_path).unwrap(),
        "H\nTest : C\nTimed out after 1 s\nTest FAIL\n\n"
    );

    // Then a cancel: the running test is aborted, the rest do not run; the log is rewritten.
    let cancel = AtomicBool::new(false);
    let opts = RunOptions {
        timeout: Duration::from_secs(600),
        ..fast()
    };
    let mut log = LogWriter::create_with_header(&log_path, "H\n").unwrap();
    let results = run_all(&found.tests, &opts, &mut log, &cancel, &|e| {
        if let ScriptEvent::Output { .. } = e {
            cancel.store(true, Ordering::SeqCst);
        }
    })
    .unwrap();
    log.finish().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].verdict, ScriptVerdict::Aborted);
    assert_nothing_left(&results[0]);
    assert_eq!(
        std::fs::read_to_string(&log_path).unwrap(),
        "H\nTest : A\nwaiting\nTest aborted\n\n"
    );
}

fn unwritable_log_is_an_error() {
    let dir = tempdir();
    let err = LogWriter::create(&dir.path().join("missing/rpdiags.txt")).unwrap_err();
    assert!(err.to_string().contains("cannot write the log"), "{err}");
}

/// Kills a process on drop (a test's escapee must not outlive the test).
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.0 as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

fn process_that_left_the_group_cannot_hold_the_runner() {
    let dir = tempdir();
    // setsid puts the sleep in a session of its own, out of reach of the group's signals, but
    // it still holds the output pipe open.
    let file = write(
        dir.path(),
        "escape.sh",
        "setsid sleep 1000 &\necho $!\nexit 0\n",
    );
    let opts = fast();
    let r = run_test(0, &test_of(&file), &opts, &AtomicBool::new(false), &|_| {}).unwrap();
    let escapee: u32 = r.output.trim().parse().expect("the escapee's pid");
    let _guard = KillOnDrop(escapee);
    assert_eq!(r.verdict, ScriptVerdict::Pass);
    assert_nothing_left(&r);
}

agnostics_testkit::test_list!(
    passing_script_passes,
    exit_status_3_fails_with_that_status,
    death_by_signal_fails_with_the_signal_name,
    stdout_and_stderr_arrive_in_the_order_written,
    script_past_its_timeout_is_stopped_with_sigterm,
    script_ignoring_sigterm_gets_sigkill_after_the_grace,
    background_child_dies_with_its_test,
    cancel_aborts_the_script_and_its_children,
    huge_non_utf8_output_is_logged_whole_and_shown_capped,
    session_discovers_runs_and_logs_like_upstream,
    cancel_stops_the_session_and_logs_aborted,
    unwritable_log_is_an_error,
    process_that_left_the_group_cannot_hold_the_runner,
);
