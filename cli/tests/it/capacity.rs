//! `agnostics-cli capacity` on real loop devices, loop-mounted ext4 and the testkit's FUSE-backed
//! fake drives: genuine drives in both modes, fakes that wrap at an eighth and a half of what
//! they claim (found with their exact real size), a drive that loses blocks, a throttled fake at
//! 10 MB/s; device mode puts every saved sector back (the whole device's SHA-256 is unchanged),
//! also after SIGINT, and after SIGKILL once the next check has restored the recovery file;
//! mounted mode leaves every other file as it was and removes its own; a nearly full
//! filesystem is not checked far enough; btrfs and tmpfs are refused; two checks of one drive
//! at once are not. Run under `flock /tmp/agnostics-drive.lock` (tests of others share drives).

use crate::support;

use support::capacity::{
    files_and_sums, recovery_dir, sha256, users_files, users_files_on, BareLoop,
};

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agnostics_testkit::fake_drive::{Behaviour, FakeDrive};
use agnostics_testkit::{require_program, require_root, run, LoopFs, Ran, Throttle, Tmpfs};

const MIB: u64 = 1 << 20;

/// `agnostics-cli capacity ARGS` with the tests' environment and `recovery` for recovery files.
fn capacity(program: Command, recovery: &Path, args: &[&str]) -> Command {
    let mut c = program;
    support::test_environment(&mut c);
    c.env("AGNOSTICS_RECOVERY_DIR", recovery)
        .arg("capacity")
        .args(args);
    c
}

fn cli_path() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agnostics-cli"))
}

fn plain() -> Command {
    Command::new(cli_path())
}

fn json_of(out: &Output) -> serde_json::Value {
    support::json(out)
}

fn mounted_genuine_on_loop_ext4() -> Ran {
    require_root("a loop-mounted ext4")?;
    let fs = LoopFs::new(1024);
    for (name, size) in [("a.bin", 3 * MIB), ("b.txt", 1000)] {
        let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(fs.mount.join(name), data).unwrap();
    }
    run(&mut Command::new("sync"));
    let before = files_and_sums(&fs.mount);
    let out = capacity(
        plain(),
        &recovery_dir(),
        &["--target", fs.mount.to_str().unwrap(), "--json"],
    )
    .output()
    .unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(doc["mode"], "mounted");
    assert_eq!(doc["spots"]["intact"], doc["spots"]["total"]);
    assert!(doc["spots"]["base"].as_u64().unwrap() >= 64, "{doc:#}");
    // Each spot's pattern, then the raw disk's block saved there written back (root).
    assert_eq!(
        doc["bytes_written"].as_u64().unwrap(),
        2 * doc["spots"]["total"].as_u64().unwrap() * 4096
    );
    assert_eq!(files_and_sums(&fs.mount), before);
    assert_eq!(
        agnostics_testkit::test_files(&fs.mount),
        Vec::<String>::new()
    );
    Ok(())
}

fn device_genuine_puts_every_sector_back() -> Ran {
    require_root("a loop device")?;
    let lo = BareLoop::new(512);
    let before = sha256(&lo.device);
    let rec = recovery_dir();
    let out = capacity(
        plain(),
        &rec,
        &["--device", lo.device.to_str().unwrap(), "--yes", "--json"],
    )
    .output()
    .unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(doc["claimed_bytes"], 512 * MIB);
    assert_eq!(doc["restore"]["verified"], true);
    assert_eq!(doc["restore"]["blocks"], doc["spots"]["total"]);
    assert_eq!(sha256(&lo.device), before);
    assert_eq!(support::entries(&rec), Vec::<String>::new());
    Ok(())
}

fn device_mode_needs_yes_without_a_terminal() -> Ran {
    require_root("a loop device")?;
    let lo = BareLoop::new(64);
    let before = sha256(&lo.device);
    let out = capacity(
        plain(),
        &recovery_dir(),
        &["--device", lo.device.to_str().unwrap()],
    )
    .stdin(Stdio::null())
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert_eq!(sha256(&lo.device), before);
    Ok(())
}

/// Starts a device-mode check of a slow fake drive and waits until its recovery file exists
/// (the patterns are being written).
fn start_slow_device_check(drive: &FakeDrive, rec: &Path) -> std::process::Child {
    let mut c = capacity(
        drive.command(cli_path()),
        rec,
        &[
            "--device",
            drive.device().to_str().unwrap(),
            "--yes",
            "--spots",
            "512",
        ],
    );
    let child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while support::entries(rec).iter().all(|n| !n.ends_with(".bin")) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no recovery file"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child
}

fn slow_drive() -> Result<FakeDrive, agnostics_testkit::Skip> {
    FakeDrive::builder(256 * MIB, Behaviour::Genuine)
        .throttle(Throttle {
            write_bps: 1_000_000,
            read_bps: 20_000_000,
            ..Throttle::default()
        })
        .build()
}

fn sigint_mid_check_puts_everything_back() -> Ran {
    let drive = slow_drive()?;
    let before = sha256(drive.device());
    let rec = recovery_dir();
    let child = start_slow_device_check(&drive, &rec);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(sha256(drive.device()), before);
    assert_eq!(support::entries(&rec), Vec::<String>::new());
    Ok(())
}

/// A mounted fake as slow as a slow card, holding the user's files.
fn slow_mounted_drive(users: &Path) -> Result<FakeDrive, agnostics_testkit::Skip> {
    FakeDrive::builder(512 * MIB, Behaviour::Genuine)
        .throttle(Throttle {
            write_iops: 50,
            ..Throttle::default()
        })
        .mounted()
        .files(users)
        .build()
}

/// Starts a mounted check of `drive` and waits until its private folder is there and it has
/// been writing spots for a moment.
fn start_slow_mounted_check(drive: &FakeDrive) -> std::process::Child {
    let dir = drive.mount_dir().unwrap().to_owned();
    let mut c = capacity(
        drive.command(cli_path()),
        &recovery_dir(),
        &["--target", dir.to_str().unwrap()],
    );
    let child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while agnostics_testkit::test_files(&dir).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no check folder"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    child
}

fn sigint_mid_mounted_check_removes_its_file_and_nothing_else() -> Ran {
    let (users, sums) = users_files();
    let mut drive = slow_mounted_drive(users.path())?;
    let child = start_slow_mounted_check(&drive);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let dir = drive.mount_dir().unwrap().to_owned();
    assert_eq!(agnostics_testkit::test_files(&dir), Vec::<String>::new());
    assert_eq!(users_files_on(&mut drive, users.path()), sums);
    Ok(())
}

fn a_killed_mounted_check_leaves_a_file_the_next_check_removes() -> Ran {
    let (users, sums) = users_files();
    let mut drive = slow_mounted_drive(users.path())?;
    let mut child = start_slow_mounted_check(&drive);
    child.kill().unwrap();
    child.wait().unwrap();
    let dir = drive.mount_dir().unwrap().to_owned();
    assert!(
        !agnostics_testkit::test_files(&dir).is_empty(),
        "the killed check's folder stays"
    );
    let out = capacity(
        plain(),
        &recovery_dir(),
        &["--target", dir.to_str().unwrap(), "--json"],
    )
    .output()
    .unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(agnostics_testkit::test_files(&dir), Vec::<String>::new());
    assert_eq!(users_files_on(&mut drive, users.path()), sums);
    Ok(())
}

fn sigkill_mid_check_is_put_back_by_the_next_check() -> Ran {
    let drive = slow_drive()?;
    let before = sha256(drive.device());
    let rec = recovery_dir();
    let mut child = start_slow_device_check(&drive, &rec);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(support::entries(&rec).len(), 1, "the recovery file stays");
    let out = capacity(
        plain(),
        &rec,
        &[
            "--device",
            drive.device().to_str().unwrap(),
            "--yes",
            "--json",
        ],
    )
    .output()
    .unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(doc["recovered"][0]["verified"], true, "{doc:#}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("was interrupted"));
    assert_eq!(sha256(drive.device()), before);
    assert_eq!(support::entries(&rec), Vec::<String>::new());
    Ok(())
}

fn a_nearly_full_filesystem_is_not_checked_beyond() -> Ran {
    require_root("a loop-mounted ext4")?;
    let fs = LoopFs::builder(512).no_reserved_blocks().mount();
    let free = nix::sys::statvfs::statvfs(&fs.mount).unwrap();
    let free = free.blocks_available() as u64 * free.fragment_size() as u64;
    run(Command::new("fallocate")
        .args(["-l", &(free - 100 * MIB).to_string()])
        .arg(fs.mount.join("filler")));
    let out = capacity(
        plain(),
        &recovery_dir(),
        &["--target", fs.mount.to_str().unwrap(), "--json"],
    )
    .output()
    .unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["verdict"], "not_checked_beyond", "{doc:#}");
    assert_eq!(out.status.code(), Some(2));
    assert!(doc["coverage"]["share"].as_f64().unwrap() < 0.8);
    assert_eq!(
        agnostics_testkit::test_files(&fs.mount),
        Vec::<String>::new()
    );
    Ok(())
}

fn tmpfs_is_refused_clearly() -> Ran {
    require_root("a tmpfs")?;
    let t = Tmpfs::new(64);
    let out = capacity(
        plain(),
        &recovery_dir(),
        &["--target", t.mount.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("in memory"));
    Ok(())
}

/// A file system whose files the check cannot map to drive addresses (btrfs: copy-on-write,
/// and several devices): refused before anything is written, naming `--device` and ext4.
/// (vfat is refused the same way; this kernel has no vfat to mount.)
fn btrfs_is_refused_clearly() -> Ran {
    require_root("a loop-mounted btrfs")?;
    require_program("mkfs.btrfs")?;
    let lo = BareLoop::new(128);
    run(Command::new("mkfs.btrfs").arg("-q").arg(&lo.device));
    let dir = agnostics_testkit::scratch_dir();
    run(Command::new("mount").arg(&lo.device).arg(dir.path()));
    let _mounted = agnostics_testkit::Mounted(dir.path().to_path_buf());
    let out = capacity(
        plain(),
        &recovery_dir(),
        &["--target", dir.path().to_str().unwrap()],
    )
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("btrfs") && err.contains("--device"), "{err}");
    assert_eq!(support::entries(dir.path()), Vec::<String>::new());
    Ok(())
}

fn two_checks_of_one_drive_at_once() -> Ran {
    let drive = slow_drive()?;
    let rec = recovery_dir();
    let lock_dir = agnostics_testkit::private_lock_dir(Path::new(env!("CARGO_TARGET_TMPDIR")));
    let mut first = capacity(
        drive.command(cli_path()),
        &rec,
        &[
            "--device",
            drive.device().to_str().unwrap(),
            "--yes",
            "--spots",
            "512",
        ],
    );
    first.env("AGNOSTICS_LOCK_DIR", &lock_dir);
    let first = first
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while support::entries(&rec).iter().all(|n| !n.ends_with(".bin")) {
        assert!(start.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut second = capacity(
        plain(),
        &rec,
        &["--device", drive.device().to_str().unwrap(), "--yes"],
    );
    second.env("AGNOSTICS_LOCK_DIR", &lock_dir);
    let out = second.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("another capacity check or test"), "{err}");
    let done = first.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0));
    assert_eq!(support::entries(&rec), Vec::<String>::new());
    Ok(())
}

/// Checks a fake drive in `mode` and returns the JSON report.
fn check_fake(drive: &FakeDrive, mounted: bool) -> (serde_json::Value, Option<i32>) {
    let rec = recovery_dir();
    let args: Vec<String> = if mounted {
        vec![
            "--target".into(),
            drive.mount_dir().unwrap().display().to_string(),
            "--json".into(),
        ]
    } else {
        vec![
            "--device".into(),
            drive.device().display().to_string(),
            "--yes".into(),
            "--json".into(),
        ]
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = capacity(drive.command(cli_path()), &rec, &args)
        .output()
        .unwrap();
    (json_of(&out), out.status.code())
}

fn wrap(claimed: u64, real: u64, mounted: bool) -> Ran {
    let (users, sums) = users_files();
    let mut b = FakeDrive::builder(claimed, Behaviour::Wrap { real_bytes: real });
    if mounted {
        b = b.mounted().files(users.path());
    }
    let mut drive = b.build()?;
    if mounted {
        assert_eq!(
            users_files_on(&mut drive, users.path()),
            sums,
            "the fake keeps them"
        );
    }
    let before = sha256(drive.device());
    let (doc, code) = check_fake(&drive, mounted);
    assert_eq!(doc["verdict"], "fake", "{doc:#}");
    assert_eq!(code, Some(1));
    assert_eq!(doc["real_bytes"], real, "{doc:#}");
    let first = doc["first_bad_address"].as_u64().unwrap();
    assert!(first >= real && first < 2 * real, "{doc:#}");
    assert!(doc["verified_bytes"].as_u64().unwrap() <= real);
    if !mounted {
        assert_eq!(sha256(drive.device()), before);
    } else {
        assert_eq!(
            agnostics_testkit::test_files(drive.mount_dir().unwrap()),
            Vec::<String>::new()
        );
        assert_eq!(
            users_files_on(&mut drive, users.path()),
            sums,
            "nothing of the user's changed"
        );
    }
    Ok(())
}

fn device_wrap_at_an_eighth() -> Ran {
    wrap(512 * MIB, 64 * MIB, false)
}
fn device_wrap_at_a_half() -> Ran {
    wrap(512 * MIB, 256 * MIB, false)
}
fn mounted_wrap_at_an_eighth() -> Ran {
    wrap(1024 * MIB, 128 * MIB, true)
}
fn mounted_wrap_at_a_half() -> Ran {
    wrap(1024 * MIB, 512 * MIB, true)
}

fn lossy(mounted: bool) -> Ran {
    let behaviour = Behaviour::Lossy {
        seed: 7,
        lost_per_million: 20_000,
    };
    let mut b = FakeDrive::builder(1024 * MIB, behaviour);
    if mounted {
        b = b.mounted();
    }
    let drive = b.build()?;
    let (doc, code) = check_fake(&drive, mounted);
    assert_eq!(doc["verdict"], "loses_data", "{doc:#}");
    assert_eq!(code, Some(1));
    assert_eq!(doc["real_bytes"], serde_json::Value::Null);
    assert!(
        doc["spots"]["zeros"].as_u64().unwrap() + doc["spots"]["garbage"].as_u64().unwrap() > 0
    );
    Ok(())
}

fn device_lossy_loses_data() -> Ran {
    lossy(false)
}
fn mounted_lossy_loses_data() -> Ran {
    lossy(true)
}

fn genuine_fake_drive(mounted: bool) -> Ran {
    let mut b = FakeDrive::builder(1024 * MIB, Behaviour::Genuine);
    if mounted {
        b = b.mounted();
    }
    let drive = b.build()?;
    let (doc, code) = check_fake(&drive, mounted);
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(code, Some(0));
    Ok(())
}

fn device_genuine_fake_drive() -> Ran {
    genuine_fake_drive(false)
}
fn mounted_genuine_fake_drive() -> Ran {
    genuine_fake_drive(true)
}

/// A wrapping fake as slow as a 10 MB/s card is found in both modes; what each check wrote is
/// counted (the time each took is printed, never asserted).
fn a_throttled_fake_at_10_mb_s_finishes() -> Ran {
    // Claims 1 GiB, keeps 128 MiB, moves 10 MB/s each way.
    let slow_fake = |mounted: bool| {
        let b = FakeDrive::builder(
            1024 * MIB,
            Behaviour::Wrap {
                real_bytes: 128 * MIB,
            },
        )
        .throttle(Throttle {
            write_bps: 10_000_000,
            read_bps: 10_000_000,
            ..Throttle::default()
        });
        if mounted { b.mounted() } else { b }.build()
    };
    for mounted in [true, false] {
        let drive = slow_fake(mounted)?;
        let before = drive.backing_sha256(0..128 * MIB);
        let (doc, code) = check_fake(&drive, mounted);
        assert_eq!(doc["verdict"], "fake", "{doc:#}");
        assert_eq!(code, Some(1));
        let spots = doc["spots"]["total"].as_u64().unwrap();
        if mounted {
            // Each spot's pattern, then the raw disk's block saved there written back.
            assert_eq!(doc["bytes_written"].as_u64().unwrap(), 2 * spots * 4096);
        } else {
            // Each spot's pattern, then what was there put back where the device holds that
            // spot's own pattern: on a wrapping drive only the spots that read back intact
            // (an alias that wrapped holds the last, lowest writer's block, and reads as
            // saved once that one is put back).
            let intact = doc["spots"]["intact"].as_u64().unwrap();
            assert_eq!(
                doc["bytes_written"].as_u64().unwrap(),
                (spots + intact) * 4096,
                "{doc:#}"
            );
            assert_eq!(drive.backing_sha256(0..128 * MIB), before);
        }
        println!("mounted {mounted}: {spots} spots, {} s", doc["seconds"]);
    }
    Ok(())
}

agnostics_testkit::test_list!(
    mounted_genuine_on_loop_ext4,
    device_genuine_puts_every_sector_back,
    device_mode_needs_yes_without_a_terminal,
    sigint_mid_check_puts_everything_back,
    sigkill_mid_check_is_put_back_by_the_next_check,
    sigint_mid_mounted_check_removes_its_file_and_nothing_else,
    a_killed_mounted_check_leaves_a_file_the_next_check_removes,
    a_nearly_full_filesystem_is_not_checked_beyond,
    tmpfs_is_refused_clearly,
    btrfs_is_refused_clearly,
    two_checks_of_one_drive_at_once,
    device_wrap_at_an_eighth,
    device_wrap_at_a_half,
    mounted_wrap_at_an_eighth,
    mounted_wrap_at_a_half,
    device_lossy_loses_data,
    mounted_lossy_loses_data,
    device_genuine_fake_drive,
    mounted_genuine_fake_drive,
    a_throttled_fake_at_10_mb_s_finishes,
);
