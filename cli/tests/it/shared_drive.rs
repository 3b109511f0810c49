//! Two tests on one drive at once: each says so and neither is graded, whichever started
//! first, in one folder or two, by one user or two. A test alone on its drive is graded, and
//! the lock files earlier tests left do not make a later one think it has company.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use agnostics_testkit::{require_root, Ran};

/// The standard test's graded jobs on a 16 MiB file, the random ones 3 s each whatever the
/// drive's speed: one test lasts long enough for a second one to start inside it.
const PROFILE: &str = "[global]\nioengine=libaio\ndirect=1\nsize=16m\n\n\
    [prepare-file]\nrw=write\nbs=1m\niodepth=4\nstonewall\n\n\
    [seq-write]\nrw=write\nbs=1m\niodepth=4\nstonewall\n\n\
    [seq-read]\nrw=read\nbs=1m\niodepth=4\nstonewall\n\n\
    [rand-4k-write]\nrw=randwrite\nbs=4k\niodepth=4\nruntime=3\ntime_based\nstonewall\n\n\
    [rand-4k-read]\nrw=randread\nbs=4k\niodepth=4\nruntime=3\ntime_based\nstonewall\n";

/// How many rounds each race runs.
const ROUNDS: usize = 4;

/// The folders of one test: a scratch folder on the disk with two targets (open to every
/// user), the profile, and the lock directory both tests share.
struct Scene {
    dir: tempfile::TempDir,
    profile: PathBuf,
    locks: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        use std::os::unix::fs::PermissionsExt;
        // On /var/tmp (a disk filesystem), where every user can reach it.
        let dir = agnostics_testkit::scratch_dir();
        let open = std::fs::Permissions::from_mode(0o1777);
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        for name in ["a", "b"] {
            std::fs::create_dir(dir.path().join(name)).unwrap();
            std::fs::set_permissions(dir.path().join(name), open.clone()).unwrap();
        }
        let profile = dir.path().join("shared.fio");
        std::fs::write(&profile, PROFILE).unwrap();
        std::fs::set_permissions(&profile, std::fs::Permissions::from_mode(0o644)).unwrap();
        let locks = agnostics_testkit::private_lock_dir(dir.path());
        Scene {
            dir,
            profile,
            locks,
        }
    }

    /// `agnostics-cli run --json --runs 1` in the folder `name`, with this scene's locks.
    fn command(&self, program: &Path, name: &str) -> Command {
        let mut c = Command::new(program);
        c.env("LANGUAGE", "en")
            .env("LC_ALL", "C.UTF-8")
            .env("AGNOSTICS_LOCK_DIR", &self.locks)
            .env(
                "AGNOSTICS_LOG",
                self.dir.path().join(format!("rpdiags-{name}.txt")),
            )
            .env("AGNOSTICS_HISTORY", support::fresh_history())
            .env("HOME", "/nonexistent")
            .args(["run", "--json", "--runs", "1", "--target"])
            .arg(self.dir.path().join(name))
            .arg("--profile")
            .arg(&self.profile);
        c
    }
}

/// The finished test's JSON document.
fn finish(child: Child, what: &str) -> serde_json::Value {
    let out = child.wait_with_output().expect("agnostics-cli ends");
    let doc = support::json(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: exit {:?}\n{doc:#}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    doc
}

/// `doc` is a test that shared its drive: error `shared_drive` naming the drive, no check
/// graded (each saying why), its run's verdicts ERROR.
fn assert_shared(doc: &serde_json::Value, what: &str) {
    assert_eq!(doc["error"]["kind"], "shared_drive", "{what}: {doc:#}");
    assert_eq!(doc["verdict"], "ERROR", "{what}");
    assert_eq!(doc["a2_verdict"], "ERROR", "{what}");
    let runs = doc["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "{what}");
    let checks = runs[0]["checks"].as_array().expect("checks");
    assert!(!checks.is_empty(), "{what}");
    let said = "another test used this drive (";
    for c in checks {
        assert_eq!(c["verdict"], "ERROR", "{what}: {c}");
        assert!(
            c["reason"].as_str().unwrap_or("").starts_with(said),
            "{what}: {c}"
        );
    }
    assert_eq!(runs[0]["verdict"], "ERROR", "{what}");
    let message = doc["error"]["message"].as_str().unwrap_or("");
    assert!(message.starts_with(said), "{what}: {message}");
    // The figures are still shown.
    let phases = runs[0]["phases"].as_array().expect("phases");
    assert_eq!(phases.len(), 5, "{what}");
}

/// Starts `first`, then `second` 0.7 s later; both documents.
fn race(mut first: Command, mut second: Command) -> (serde_json::Value, serde_json::Value) {
    let spawn = |c: &mut Command, what: &str| {
        c.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what} starts: {e}"))
    };
    let a = spawn(&mut first, "the first test");
    std::thread::sleep(Duration::from_millis(700));
    let b = spawn(&mut second, "the second test");
    (finish(a, "the first test"), finish(b, "the second test"))
}

/// [`ROUNDS`] races of a test in the folder `first` and one in `second`: both say so each time.
fn both_say_so(scene: &Scene, first: &str, second: &str) {
    let cli = Path::new(env!("CARGO_BIN_EXE_agnostics-cli"));
    for round in 0..ROUNDS {
        let (a, b) = race(scene.command(cli, first), scene.command(cli, second));
        assert_shared(&a, &format!("round {round}, the first test, in {first}"));
        assert_shared(&b, &format!("round {round}, the second test, in {second}"));
    }
}

fn two_tests_in_one_folder_both_say_so_and_neither_is_graded() -> Ran {
    let scene = Scene::new();
    both_say_so(&scene, "a", "a");
    assert_eq!(
        support::entries(&scene.dir.path().join("a")),
        Vec::<String>::new()
    );
    Ok(())
}

fn two_tests_in_two_folders_of_one_drive_both_say_so() -> Ran {
    both_say_so(&Scene::new(), "a", "b");
    Ok(())
}

fn tests_by_two_users_on_one_drive_both_say_so() -> Ran {
    require_root("runs a test as nobody beside one as root")?;
    agnostics_testkit::require_program("setpriv")?;
    let scene = Scene::new();
    // A copy nobody can run wherever the checkout is.
    let (_keep, cli) =
        agnostics_testkit::copy_for_others(Path::new(env!("CARGO_BIN_EXE_agnostics-cli")));
    for round in 0..ROUNDS {
        // Each user starts first in turn, so each one's lock file is met by the other user.
        let root = scene.command(&cli, "a");
        let nobody = support::as_other_user(scene.command(&cli, "b"), "65534");
        let ((first, who_first), (second, who_second)) = if round % 2 == 0 {
            ((root, "root"), (nobody, "nobody"))
        } else {
            ((nobody, "nobody"), (root, "root"))
        };
        let (a, b) = race(first, second);
        assert_shared(&a, &format!("round {round}, {who_first} first"));
        assert_shared(&b, &format!("round {round}, {who_second} second"));
        // Fresh lock files for the next round: whoever makes one, the other user takes it.
        for entry in std::fs::read_dir(&scene.locks).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
    }
    Ok(())
}

fn one_test_after_another_is_graded_despite_the_lock_files_left() -> Ran {
    let scene = Scene::new();
    let cli = Path::new(env!("CARGO_BIN_EXE_agnostics-cli"));
    for name in ["a", "b", "a"] {
        let out = scene
            .command(cli, name)
            .output()
            .expect("agnostics-cli runs");
        let doc = support::json(&out);
        assert_ne!(doc["error"]["kind"], "shared_drive", "{doc:#}");
        assert!(doc["error"].is_null(), "{doc:#}");
        assert!(
            !doc["warnings"].to_string().contains("another test"),
            "{doc:#}"
        );
        let checks = doc["runs"][0]["checks"].as_array().expect("checks");
        assert!(checks.iter().all(|c| c["verdict"] != "ERROR"), "{doc:#}");
    }
    // One lock file, for the one disk: kept for the next test, never another.
    let locks = support::entries(&scene.locks);
    assert_eq!(locks.len(), 1, "{locks:?}");
    assert!(
        locks[0].starts_with("agnostics-") && locks[0].ends_with(".lock"),
        "{locks:?}"
    );
    Ok(())
}

/// A drive another program holds is told before the test starts, naming the program, in
/// the words the app uses; the test then runs, and says it shared the drive.
fn a_busy_drive_is_told_before_the_test_starts() -> Ran {
    let scene = Scene::new();
    let opts = agnostics_core::sdtest::TestOptions::standard(scene.dir.path().join("a"));
    let Some(drive) = agnostics_core::sdtest::drives(&opts).into_iter().next() else {
        return agnostics_testkit::skip("the scratch folder is on no block device");
    };
    let holder = agnostics_testkit::LockHolder::spawn(&scene.locks.join(drive.file_name()));
    let cli = Path::new(env!("CARGO_BIN_EXE_agnostics-cli"));
    let out = scene
        .command(cli, "a")
        .output()
        .expect("agnostics-cli runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let told = format!(
        "agnostics-cli: warning: Another test or capacity check is using this drive ({}) now: \
         sleep, process {}. Two tests at once share the drive's speed, so neither would be \
         graded.",
        drive.name,
        holder.pid()
    );
    assert!(stderr.contains(&told), "{stderr}");
    assert_shared(&support::json(&out), "beside the holder");
    drop(holder);
    let out = scene
        .command(cli, "a")
        .output()
        .expect("agnostics-cli runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("Another test"), "{stderr}");
    Ok(())
}

agnostics_testkit::test_list!(
    a_busy_drive_is_told_before_the_test_starts,
    two_tests_in_one_folder_both_say_so_and_neither_is_graded,
    two_tests_in_two_folders_of_one_drive_both_say_so,
    tests_by_two_users_on_one_drive_both_say_so,
    one_test_after_another_is_graded_despite_the_lock_files_left,
);
