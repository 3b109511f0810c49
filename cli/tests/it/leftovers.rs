//! What a killed run leaves is swept by the next one: `agnostics-cli --engine fio` killed with
//! SIGKILL mid-run leaves its private folder (test file and fio's job file in it); the next run
//! removes all of it and says so once.

use crate::support;

use std::path::Path;
use std::time::{Duration, Instant};

use agnostics_testkit::{require_program, test_files, Ran};
use support::{json, scratch, small_profile, Run};

/// Waits up to `limit` for `done`, polling.
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

/// True once nobody holds the run's lock (fio, which inherits it, exits on its own after its
/// parent died).
fn lock_is_free(run_dir: &Path) -> bool {
    use nix::fcntl::{Flock, FlockArg};
    std::fs::File::open(run_dir.join("lock"))
        .is_ok_and(|f| Flock::lock(f, FlockArg::LockExclusiveNonblock).is_ok())
}

fn a_fio_run_killed_with_sigkill_is_swept_by_the_next_run() -> Ran {
    require_program("fio")?;
    let dir = scratch();
    let profile = small_profile(dir.path(), "4m");
    let long = dir.path().join("long.fio");
    std::fs::write(
        &long,
        "[global]\ndirect=1\niodepth=4\nsize=64m\n[prepare-file]\nrw=write\nbs=1m\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=60\nstonewall\n",
    )
    .unwrap();
    let mut child = Run::default_command()
        .engine("fio")
        .target(dir.path())
        .profile(&long)
        .command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let running = wait_for(Duration::from_secs(60), || {
        let files = test_files(dir.path());
        files.iter().any(|f| f.ends_with("/fio-job"))
            && files.iter().any(|f| f.ends_with("/test-file"))
    });
    assert!(running, "fio never started: {:?}", test_files(dir.path()));
    std::thread::sleep(Duration::from_millis(500));
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let stale = test_files(dir.path());
    let run_dir_name = stale[0].clone();
    assert!(run_dir_name.starts_with(".agnostics-run."), "{stale:?}");
    assert!(
        stale.contains(&format!("{run_dir_name}/fio-job")),
        "{stale:?}"
    );
    let run_dir = dir.path().join(&run_dir_name);
    assert!(
        wait_for(Duration::from_secs(30), || lock_is_free(&run_dir)),
        "fio kept the run's lock"
    );

    let out = Run::default_command()
        .args(["--json", "--runs", "1", "--engine", "fio"])
        .target(dir.path())
        .profile(&profile)
        .output();
    let v = json(&out);
    assert!(v["error"].is_null(), "{v}");
    // Said once, naming the folder the user chose, not the program's hidden one.
    let removed = format!(
        "removed the test folder left by an earlier run in {}",
        dir.path().display()
    );
    let mentions: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .filter(|w| w.contains(&removed))
        .collect();
    assert_eq!(mentions.len(), 1, "{v}");
    assert!(!v["warnings"].to_string().contains(&run_dir_name), "{v}");
    assert!(
        test_files(dir.path()).is_empty(),
        "{:?}",
        test_files(dir.path())
    );
    Ok(())
}

agnostics_testkit::test_list!(a_fio_run_killed_with_sigkill_is_swept_by_the_next_run);
