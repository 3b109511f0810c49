//! The history on a disk that cannot take it: nearly full (ext4 with 1 KiB and with 4 KiB
//! blocks, a few KiB free), owned by another user, or on a read-only mount. A full disk is
//! said as such ("is full"), never as a bare "disk I/O error" or a SIGBUS; a run still prints
//! its result; a history the user may only read is listed, shown and exported without a
//! write, and leaves no journal files behind. Needs root (loop devices, mounts, another user);
//! elsewhere each test is reported as ignored with the reason.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agnostics_testkit::{require_program, require_root, LoopFs, Mounted, Ran};

/// A scratch folder on `/var/tmp` (ext4, for O_DIRECT) with a test target, a small profile and
/// one run's JSON document, made with a history of its own.
struct Env {
    dir: tempfile::TempDir,
    target: PathBuf,
    profile: PathBuf,
    document: PathBuf,
}

impl Env {
    fn new() -> Result<Env, agnostics_testkit::Skip> {
        let (dir, target, profile) = support::disk_scratch()?;
        let out = support::Run::default_command()
            .arg("--json")
            .target(&target)
            .profile(&profile)
            .expect_exit(0)
            .output();
        let document = dir.path().join("run.json");
        std::fs::write(&document, &out.stdout).unwrap();
        Ok(Env {
            dir,
            target,
            profile,
            document,
        })
    }

    /// `agnostics-cli ARGS` with the history at `history`.
    fn cli(&self, history: &Path, args: &[&str]) -> Command {
        let mut c = support::cli();
        c.env("AGNOSTICS_HISTORY", history)
            .env("AGNOSTICS_LOG", self.dir.path().join("rpdiags.txt"))
            .args(args);
        c
    }

    /// A one-run test in the scratch target with the history at `history`.
    fn run(&self, history: &Path) -> Output {
        let mut c = self.cli(history, &["run", "--runs", "1", "--target"]);
        c.arg(&self.target).arg("--profile").arg(&self.profile);
        c.output().expect("agnostics-cli runs")
    }

    fn import(&self, history: &Path) -> Output {
        self.cli(history, &["history", "import"])
            .arg(&self.document)
            .output()
            .expect("agnostics-cli runs")
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Leaves exactly `free` bytes available to everyone on the filesystem at `mount` (ext4
/// without reserved blocks), with one preallocated file `filler`.
fn leave_free(mount: &Path, free: u64) {
    let filler = mount.join("filler");
    let _ = std::fs::remove_file(&filler);
    nix::unistd::sync();
    let st = nix::sys::statvfs::statvfs(mount).unwrap();
    let available = st.blocks_available() as u64 * st.fragment_size() as u64;
    assert!(available > free, "{available} bytes available");
    agnostics_testkit::run(
        Command::new("fallocate")
            .args(["-l", &(available - free).to_string()])
            .arg(&filler),
    );
    let st = nix::sys::statvfs::statvfs(mount).unwrap();
    let left = st.blocks_available() as u64 * st.fragment_size() as u64;
    assert!(left <= free, "{left} bytes left, wanted {free}");
}

/// Panics unless `out` ended by exiting (not by a signal such as SIGBUS) with status `code`.
fn exited(out: &Output, code: i32, what: &str) {
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        None,
        "{what}: killed by a signal\n{}",
        text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(code), "{what}: {out:?}");
}

/// On ext4 with `block` bytes a block, for each amount of free space in `free_kib`: `history
/// import` exits 2 saying the disk is full, and `run` prints its result, exits 0 and warns
/// that the history's disk is full; no journal file is left behind.
fn full_disk(block: u32, free_kib: &[u64]) -> Ran {
    require_root("makes a small ext4 on a loop device")?;
    let env = Env::new()?;
    let fs = LoopFs::builder(8)
        .block_size(block)
        .no_reserved_blocks()
        .mount();
    let history = fs.mount.join("history.sqlite3");
    for &kib in free_kib {
        for name in support::entries(&fs.mount) {
            if name.starts_with("history") {
                std::fs::remove_file(fs.mount.join(name)).unwrap();
            }
        }
        leave_free(&fs.mount, kib * 1024);
        let what = format!("{block}-byte blocks, {kib} KiB free");
        let out = env.import(&history);
        exited(&out, 2, &format!("import, {what}"));
        assert!(
            text(&out.stderr).contains("is full; free some space"),
            "import, {what}: {}",
            text(&out.stderr)
        );
        let out = env.run(&history);
        exited(&out, 0, &format!("run, {what}"));
        assert!(
            text(&out.stdout).contains("Result:"),
            "run, {what}: no result\n{}",
            text(&out.stdout)
        );
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("is full; free some space")
                && stderr.contains("the result is still reported and logged"),
            "run, {what}: {stderr}"
        );
        let left: Vec<String> = support::entries(&fs.mount)
            .into_iter()
            .filter(|n| n.contains("-journal") || n.contains("-wal") || n.contains("-shm"))
            .collect();
        assert!(left.is_empty(), "{what}: left {left:?}");
    }
    Ok(())
}

fn a_nearly_full_disk_with_1k_blocks_says_it_is_full() -> Ran {
    // Earlier versions (WAL, a memory-mapped index) died of SIGBUS at 13, 14 and 64 KiB free
    // here and said "disk I/O error" at 6 to 12 KiB.
    full_disk(1024, &[2, 4, 6, 8, 10, 12, 13, 14, 16, 24, 32, 48, 64])
}

fn a_nearly_full_disk_with_4k_blocks_says_it_is_full() -> Ran {
    full_disk(4096, &[4, 8, 12, 16, 20, 24, 28, 32])
}

/// The commands that only read the history, each with the status it must exit with.
fn readers(run: &str) -> Vec<(Vec<String>, i32)> {
    [
        vec!["history"],
        vec!["history", "--json"],
        vec!["history", "drives"],
        vec!["history", "export"],
        vec!["history", "export", "--csv"],
        vec!["history", "show", run],
    ]
    .into_iter()
    .map(|a| (a.into_iter().map(str::to_owned).collect(), 0))
    .collect()
}

/// Runs each reader as `as_user` (None: this user) on `history`; each must succeed and name
/// `run`, and the folder must hold the same names afterwards.
fn read_everything(env: &Env, history: &Path, run: &str, as_user: Option<&str>) {
    let folder = history.parent().unwrap();
    let before = support::entries(folder);
    for (args, code) in readers(run) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut c = env.cli(history, &args);
        if let Some(user) = as_user {
            c = support::as_other_user(c, user);
        }
        let out = c.output().expect("agnostics-cli runs");
        exited(&out, code, &format!("{args:?} as {as_user:?}"));
        let shown = text(&out.stdout);
        // The list and the export name the run; `show` prints its phases; `drives` the drive.
        let expected = match args.get(1).copied() {
            Some("show") => "rand-4k-read",
            Some("drives") => "1",
            _ => &run[..8],
        };
        assert!(
            shown.contains(expected),
            "{args:?} as {as_user:?}: no {expected:?} in\n{shown}"
        );
    }
    assert_eq!(support::entries(folder), before, "files made by reading");
}

fn a_history_of_another_user_is_read_without_writing() -> Ran {
    require_root("reads the history as another user (setpriv)")?;
    require_program("setpriv")?;
    let env = Env::new()?;
    let folder = env.dir.path().join("root-owned");
    std::fs::create_dir(&folder).unwrap();
    let history = folder.join("history.sqlite3");
    let out = env.import(&history);
    exited(&out, 0, "import");
    // Root's history, readable by all: the folders on the way, the folder and the file 0755
    // and 0644 (the scratch folder is made 0700). Nothing has read it since it was written,
    // so no reader has left an index file that another user could use.
    for dir in [env.dir.path(), folder.as_path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(&history, std::fs::Permissions::from_mode(0o644)).unwrap();
    let listed = support::as_other_user(env.cli(&history, &["history", "--json"]), "65534")
        .output()
        .expect("agnostics-cli runs");
    exited(&listed, 0, "history --json as 65534");
    let run = support::json(&listed)[0]["run"]
        .as_str()
        .unwrap()
        .to_owned();
    read_everything(&env, &history, &run, Some("65534"));
    Ok(())
}

fn a_history_on_a_read_only_mount_is_read_and_not_written() -> Ran {
    require_root("bind-mounts a folder read-only")?;
    let env = Env::new()?;
    let folder = env.dir.path().join("read-only");
    std::fs::create_dir(&folder).unwrap();
    let history = folder.join("history.sqlite3");
    exited(&env.import(&history), 0, "import");
    let listed = env
        .cli(&history, &["history", "--json"])
        .output()
        .expect("agnostics-cli runs");
    let run = support::json(&listed)[0]["run"]
        .as_str()
        .unwrap()
        .to_owned();
    agnostics_testkit::run(
        Command::new("mount")
            .arg("--bind")
            .arg(&folder)
            .arg(&folder),
    );
    let _mounted = Mounted(folder.clone());
    agnostics_testkit::run(
        Command::new("mount")
            .args(["-o", "remount,bind,ro"])
            .arg(&folder),
    );
    read_everything(&env, &history, &run, None);
    // Writing says what is wrong; a run still reports its result.
    let out = env.import(&history);
    exited(&out, 2, "import on a read-only mount");
    assert!(
        text(&out.stderr).contains("cannot be written"),
        "{}",
        text(&out.stderr)
    );
    let out = env.run(&history);
    exited(&out, 0, "run on a read-only mount");
    assert!(text(&out.stdout).contains("Result:"), "{out:?}");
    assert!(text(&out.stderr).contains("cannot be written"), "{out:?}");
    Ok(())
}

agnostics_testkit::test_list!(
    a_nearly_full_disk_with_1k_blocks_says_it_is_full,
    a_nearly_full_disk_with_4k_blocks_says_it_is_full,
    a_history_of_another_user_is_read_without_writing,
    a_history_on_a_read_only_mount_is_read_and_not_written,
);
