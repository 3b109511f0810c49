//! Shared helpers of the CLI's integration tests: running the binary (the [`Run`] builder),
//! small profiles, JSON output, scratch folders. The real-system fixtures (loop-mounted ext4, tmpfs) are
//! `agnostics-testkit`'s.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod capacity;
mod run;

#[allow(unused_imports)] // Not every test binary runs the program this way.
pub use run::Run;

/// The built `agnostics-cli`, with the tests' environment ([`test_environment`]).
pub fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agnostics-cli"));
    test_environment(&mut c);
    c
}

/// Sets the environment every test runs the program in: English under `C.UTF-8`, a log of
/// the tests' own, a fresh history and a private folder for the drives' locks.
pub fn test_environment(c: &mut Command) {
    c.env("LANGUAGE", "en").env("LC_ALL", "C.UTF-8");
    // Keep the tester's own ~/rpdiags.txt out of it.
    c.env(
        "AGNOSTICS_LOG",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("rpdiags-cli-tests.txt"),
    );
    // And the tester's own run history: a fresh one each time, so that no run is compared
    // with another test's (which would add a `trend` to its output).
    c.env("AGNOSTICS_HISTORY", fresh_history());
    // And its own drive locks: tests run at once on one disk are not each other's load.
    c.env(
        "AGNOSTICS_LOCK_DIR",
        agnostics_testkit::private_lock_dir(Path::new(env!("CARGO_TARGET_TMPDIR"))),
    );
}

/// A history file that does not exist yet, under `target/`: unique in this test binary.
pub fn fresh_history() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static MADE: AtomicUsize = AtomicUsize::new(0);
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "histories/{}-{}.sqlite3",
        std::process::id(),
        MADE.fetch_add(1, Ordering::SeqCst)
    ))
}

/// A scratch directory on a real disk filesystem (ext4 here), not tmpfs: under `target/`.
pub fn scratch() -> tempfile::TempDir {
    agnostics_testkit::scratch_dir_in(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// Writes a small profile (the standard test's five phases at `size`, 1 MiB blocks, random
/// phases of a second: `agnostics_testkit::profiles::small_standard`) and returns its path.
pub fn small_profile(dir: &Path, size: &str) -> PathBuf {
    let path = dir.join("small.fio");
    std::fs::write(
        &path,
        agnostics_testkit::profiles::small_standard(size, "1m", 1),
    )
    .unwrap();
    path
}

/// The JSON document on stdout.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A scratch folder on `/var/tmp` (ext4 here, for O_DIRECT) holding an empty folder `target`
/// to test and a small profile (4 MiB, [`small_profile`]): (folder, target, profile). Reported
/// as a skip where there is no `/var/tmp`.
pub fn disk_scratch() -> Result<(tempfile::TempDir, PathBuf, PathBuf), agnostics_testkit::Skip> {
    let base = Path::new("/var/tmp");
    agnostics_testkit::require(base.is_dir(), "needs /var/tmp (ext4 for O_DIRECT)")?;
    let dir = agnostics_testkit::scratch_dir_in(base);
    let target = dir.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let profile = small_profile(dir.path(), "4m");
    Ok((dir, target, profile))
}

/// The names of the entries of `dir`, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `c` run as the user and group `user` (a number), without supplementary groups.
pub fn as_other_user(c: Command, user: &str) -> Command {
    let mut other = Command::new("setpriv");
    other
        .args(["--reuid", user, "--regid", user, "--clear-groups", "--"])
        .arg(c.get_program())
        .args(c.get_args());
    for (k, v) in c.get_envs() {
        if let Some(v) = v {
            other.env(k, v);
        }
    }
    other.env("HOME", "/nonexistent");
    other
}
