//! The real `agnostics` binary and SIGINT, SIGTERM, SIGHUP: a running test stops, its file is
//! removed and the app exits with 128 + the signal within seconds; an idle app quits at once;
//! a test file left by a killed app is removed when the app starts again. Needs a display
//! (run under `xvfb-run`).

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use agnostics_testkit::{require, scratch_dir, test_files, Ran};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// A profile that keeps the app busy for many seconds even on a fast disk: 4 KiB requests
/// one at a time over 128 MiB, written then read.
const SLOW_PROFILE: &str = "[global]\ndirect=1\niodepth=1\nsize=128m\nruntime=60\n\n\
                            [slow-write]\nrw=randwrite\nbs=4k\nstonewall\n\n\
                            [slow-read]\nrw=randread\nbs=4k\nstonewall\n";

/// How long the app may take to stop, clean up and exit after a signal.
const EXIT_WITHIN: Duration = Duration::from_secs(10);

fn needs_display() -> Ran {
    require(
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some(),
        "needs a display (run under xvfb-run)",
    )
}

/// Starts `agnostics --target dir [args]` as its own application instance (no session bus,
/// so it never hands its command line to another instance), logging into `dir`'s parent.
fn spawn_app(dir: &Path, log: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_agnostics"))
        .arg("--target")
        .arg(dir)
        .args(args)
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/agnostics-test-bus",
        )
        .env("GSETTINGS_BACKEND", "memory")
        .env("GTK_A11Y", "none")
        .env("NO_AT_BRIDGE", "1")
        .env("AGNOSTICS_LOG", log)
        // Its own drives' locks: the tests here run at once on one disk, and a window asks
        // before it tests a drive another program's test holds.
        .env(
            agnostics_core::drive_lock::DIR_VARIABLE,
            agnostics_testkit::private_lock_dir(dir.parent().unwrap_or(dir)),
        )
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start agnostics")
}

/// Waits up to `limit` for `done`, polling every 20 ms.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// The child's exit status once it has exited within `limit`; otherwise it is killed and the
/// test fails.
fn exit_within(child: &mut Child, limit: Duration) -> ExitStatus {
    let mut status = None;
    wait_for(limit, || {
        status = child.try_wait().expect("wait for agnostics");
        status.is_some()
    });
    match status {
        Some(s) => s,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("agnostics did not exit within {limit:?} of the signal");
        }
    }
}

fn stderr_of(child: &mut Child) -> String {
    use std::io::Read;
    let mut text = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut text);
    }
    text
}

/// Starts a slow test, waits for its file, sends `signal`, and checks that the app exits with
/// `code` (128 + `signal`) and leaves nothing behind.
fn stops_cleanly_on(signal: Signal, code: i32) -> Ran {
    needs_display()?;
    let scratch = scratch_dir();
    let target = scratch.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let profile = scratch.path().join("slow.fio");
    std::fs::write(&profile, SLOW_PROFILE).unwrap();
    let log = scratch.path().join("rpdiags.txt");

    let mut child = spawn_app(
        &target,
        &log,
        &["--profile", profile.to_str().unwrap(), "--run"],
    );
    let started = wait_for(Duration::from_secs(30), || !test_files(&target).is_empty());
    if !started {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "the test never created its file in {}; stderr: {}",
            target.display(),
            stderr_of(&mut child)
        );
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "agnostics ended before the signal"
    );
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let status = exit_within(&mut child, EXIT_WITHIN);
    let stderr = stderr_of(&mut child);
    assert_eq!(code, 128 + signal as i32, "the table's status for {signal}");
    assert_eq!(
        status.code(),
        Some(code),
        "exit status after {signal}: {status:?}; stderr: {stderr}"
    );
    assert_eq!(test_files(&target), Vec::<String>::new(), "left behind");
    assert!(
        stderr.contains("Stopping"),
        "says on stderr why it waits: {stderr}"
    );
    Ok(())
}

/// Each signal that stops a running test, and the exit status it gives, one test each.
const SIGNALS: &[(&str, Signal, i32)] = &[
    (
        "sigterm_stops_the_test_and_removes_its_file",
        Signal::SIGTERM,
        143,
    ),
    (
        "sighup_stops_the_test_and_removes_its_file",
        Signal::SIGHUP,
        129,
    ),
    (
        "sigint_stops_the_test_and_removes_its_file",
        Signal::SIGINT,
        130,
    ),
];

/// A killed app (SIGKILL cannot be handled) leaves its file; the next start removes it, and an
/// idle app quits at once on SIGTERM.
fn the_next_start_removes_a_killed_runs_file_and_an_idle_app_quits_at_once() -> Ran {
    needs_display()?;
    let scratch = scratch_dir();
    let target = scratch.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let profile = scratch.path().join("slow.fio");
    std::fs::write(&profile, SLOW_PROFILE).unwrap();
    let log = scratch.path().join("rpdiags.txt");

    let mut killed = spawn_app(
        &target,
        &log,
        &["--profile", profile.to_str().unwrap(), "--run"],
    );
    let started = wait_for(Duration::from_secs(30), || !test_files(&target).is_empty());
    killed.kill().unwrap();
    let _ = killed.wait();
    assert!(started, "the first app never created its test file");
    assert!(
        !test_files(&target).is_empty(),
        "SIGKILL leaves the test file"
    );

    let mut child = spawn_app(&target, &log, &[]);
    // The app's stderr, line by line as it comes.
    let (lines_tx, lines) = std::sync::mpsc::channel::<String>();
    let stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines_tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let told = wait_for(Duration::from_secs(30), || {
        seen.extend(lines.try_iter());
        seen.iter().any(|l| l.starts_with("agnostics: Removed"))
    });
    if !told {
        let _ = child.kill();
        let _ = child.wait();
        panic!("no notice of the removed file at start-up: {seen:?}");
    }
    assert_eq!(test_files(&target), Vec::<String>::new(), "the stale file");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let status = exit_within(&mut child, Duration::from_secs(5));
    reader.join().expect("stderr reader");
    seen.extend(lines.try_iter());
    let notices = seen
        .iter()
        .filter(|l| l.starts_with("agnostics: Removed"))
        .count();
    assert_eq!(notices, 1, "says so once: {seen:?}");
    assert_eq!(
        status.code(),
        Some(128 + Signal::SIGTERM as i32),
        "{status:?} (signal {:?})",
        status.signal()
    );
    Ok(())
}

fn main() {
    use agnostics_testkit::harness::{self, Test};
    let mut tests: Vec<Test> = SIGNALS
        .iter()
        .map(|&(name, signal, code)| Test::new(name, move || stops_cleanly_on(signal, code)))
        .collect();
    tests.extend(agnostics_testkit::tests![
        the_next_start_removes_a_killed_runs_file_and_an_idle_app_quits_at_once
    ]);
    harness::run(tests)
}
