//! `agnostics-cli capacity` against fakes whose real size is no power of two: the testkit's
//! FUSE-backed drives claiming 1 GiB that wrap at 700 MiB, 1000 MiB and 100 MiB (found with
//! their exact real size, never a larger one), one that loses 1 % of its blocks (`loses_data`),
//! in device and mounted mode; a genuine device of 16 MiB + 512 B (genuine up to its last whole
//! 4 KiB block); mounted mode with about 70 MiB free, on a genuine drive (never "genuine") and
//! on a fake wrapping at 700 MiB; a fake wrapping at 700 MiB + 12 KiB (no whole number of
//! MiB); a genuine drive at 10 MB/s. Device mode leaves the whole device's SHA-256 as it was;
//! mounted mode leaves the user's files as they were and removes its own. Run under
//! `flock /tmp/agnostics-drive.lock` (tests of others share drives).

use crate::support;

use support::capacity::{recovery_dir, sha256, users_files, users_files_on};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agnostics_testkit::fake_drive::{Behaviour, FakeDrive};
use agnostics_testkit::{require_root, run, Ran, Throttle};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// `agnostics-cli capacity ARGS` run by `program`, with the tests' environment and a fresh
/// folder for recovery files.
fn capacity(program: Command, args: &[&str]) -> Output {
    let mut c = program;
    support::test_environment(&mut c);
    c.env("AGNOSTICS_RECOVERY_DIR", recovery_dir())
        .arg("capacity")
        .args(args);
    c.output().unwrap()
}

fn cli_path() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agnostics-cli"))
}

/// Checks `drive` in device mode (`--device … --yes`) or mounted mode (`--target` its mount)
/// and returns the JSON report and the exit code.
fn check(drive: &FakeDrive, mounted: bool) -> (serde_json::Value, Option<i32>) {
    let mount = drive.mount_dir().map(|d| d.display().to_string());
    let device = drive.device().display().to_string();
    let args: Vec<&str> = match (&mount, mounted) {
        (Some(m), true) => vec!["--target", m, "--json"],
        _ => vec!["--device", &device, "--yes", "--json"],
    };
    let out = capacity(drive.command(cli_path()), &args);
    (support::json(&out), out.status.code())
}

/// Files and their checksums.
type Sums = Vec<(PathBuf, String)>;

/// A fake claiming 1 GiB that wraps at `real`, in `mounted` mode holding the user's files
/// (their folder and checksums returned with it).
fn wrapping(
    real: u64,
    mounted: bool,
) -> Result<(FakeDrive, tempfile::TempDir, Sums), agnostics_testkit::Skip> {
    let (users, sums) = users_files();
    let mut b = FakeDrive::builder(GIB, Behaviour::Wrap { real_bytes: real });
    if mounted {
        b = b.mounted().files(users.path());
    }
    Ok((b.build()?, users, sums))
}

/// After a check: device mode left every byte of the device as it was (`before`), mounted
/// mode left no file of its own and the user's files as they were.
fn nothing_lost(
    drive: &mut FakeDrive,
    mounted: bool,
    before: &str,
    users: &Path,
    sums: &[(PathBuf, String)],
) {
    if mounted {
        assert_eq!(
            agnostics_testkit::test_files(drive.mount_dir().unwrap()),
            Vec::<String>::new()
        );
        assert_eq!(
            users_files_on(drive, users),
            sums,
            "the user's files changed"
        );
    } else {
        assert_eq!(sha256(drive.device()), before, "the device changed");
    }
}

/// A wrap at `real` of a claimed 1 GiB is called fake with the real size `real` exactly
/// (device mode) or a proven size no larger (mounted mode).
fn wrap(real: u64, mounted: bool) -> Ran {
    let (mut drive, users, sums) = wrapping(real, mounted)?;
    let before = sha256(drive.device());
    let (doc, code) = check(&drive, mounted);
    assert_eq!(doc["verdict"], "fake", "{doc:#}");
    assert_eq!(code, Some(1));
    let found = doc["real_bytes"].as_u64().unwrap();
    if mounted {
        assert!(found <= real && found > 0, "{doc:#}");
    } else {
        assert_eq!(found, real, "{doc:#}");
    }
    let first = doc["first_bad_address"].as_u64().unwrap();
    assert!(first >= real, "{doc:#}");
    assert!(doc["verified_bytes"].as_u64().unwrap() <= real, "{doc:#}");
    nothing_lost(&mut drive, mounted, &before, users.path(), &sums);
    Ok(())
}

fn device_wrap_at_700_mib() -> Ran {
    wrap(700 * MIB, false)
}
fn device_wrap_at_1000_mib() -> Ran {
    wrap(1000 * MIB, false)
}
fn device_wrap_at_100_mib() -> Ran {
    wrap(100 * MIB, false)
}
fn mounted_wrap_at_700_mib() -> Ran {
    wrap(700 * MIB, true)
}
fn mounted_wrap_at_1000_mib() -> Ran {
    wrap(1000 * MIB, true)
}
fn mounted_wrap_at_100_mib() -> Ran {
    wrap(100 * MIB, true)
}

/// A drive that silently drops the writes to 1 % of its 4 KiB blocks loses data.
fn one_percent_dropped(mounted: bool) -> Ran {
    let behaviour = Behaviour::Lossy {
        seed: 35,
        lost_per_million: 10_000,
    };
    let mut b = FakeDrive::builder(GIB, behaviour);
    if mounted {
        b = b.mounted();
    }
    let drive = b.build()?;
    let before = sha256(drive.device());
    let (doc, code) = check(&drive, mounted);
    assert_eq!(doc["verdict"], "loses_data", "{doc:#}");
    assert_eq!(code, Some(1));
    assert_eq!(doc["real_bytes"], serde_json::Value::Null);
    let lost = doc["spots"]["zeros"].as_u64().unwrap() + doc["spots"]["garbage"].as_u64().unwrap();
    assert!(lost > 0, "{doc:#}");
    if !mounted {
        assert_eq!(sha256(drive.device()), before, "the device changed");
    }
    Ok(())
}

fn device_one_percent_dropped_loses_data() -> Ran {
    one_percent_dropped(false)
}
fn mounted_one_percent_dropped_loses_data() -> Ran {
    one_percent_dropped(true)
}

/// A genuine device of 16 MiB + 512 B (a loop device over such an image) is genuine: checked
/// up to its last whole 4 KiB block, which covers it, and every byte is as it was.
fn device_of_16_mib_and_512_bytes_is_genuine() -> Ran {
    require_root("a loop device")?;
    let dir = agnostics_testkit::scratch_dir();
    let image = dir.path().join("odd.img");
    let bytes: Vec<u8> = (0..16 * MIB + 512)
        .map(|n| (n.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&image, bytes).unwrap();
    let device = PathBuf::from(run(Command::new("losetup")
        .args(["--direct-io=on", "-f", "--show"])
        .arg(&image)));
    let detach = Detach(device.clone());
    let before = sha256(&device);
    let dev = device.display().to_string();
    let out = capacity(
        Command::new(cli_path()),
        &["--device", &dev, "--yes", "--json"],
    );
    let doc = support::json(&out);
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(doc["verified_bytes"], 16 * MIB, "{doc:#}");
    assert_eq!(doc["coverage"]["share"], 1.0, "{doc:#}");
    assert_eq!(sha256(&device), before);
    drop(detach);
    Ok(())
}

/// Detaches a loop device on drop.
struct Detach(PathBuf);

impl Drop for Detach {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.0).status();
    }
}

/// Fills the mounted drive's filesystem (fallocate, nothing written) until about 70 MiB are
/// free.
fn leave_70_mib_free(drive: &FakeDrive) {
    let mount = drive.mount_dir().unwrap();
    let free = nix::sys::statvfs::statvfs(mount).unwrap();
    let free = free.blocks_available() as u64 * free.fragment_size() as u64;
    run(Command::new("fallocate")
        .args(["-l", &(free - 70 * MIB).to_string()])
        .arg(mount.join("filler")));
}

/// A genuine 1 GiB drive with 70 MiB free: the spots reach too little of it to rule out every
/// wrap size, and the verdict says so instead of "genuine".
fn mounted_with_70_mib_free_is_not_genuine() -> Ran {
    let drive = FakeDrive::builder(GIB, Behaviour::Genuine)
        .mounted()
        .build()?;
    leave_70_mib_free(&drive);
    let (doc, code) = check(&drive, true);
    assert_eq!(doc["verdict"], "not_checked_beyond", "{doc:#}");
    assert_eq!(code, Some(2));
    assert!(doc["coverage"]["share"].as_f64().unwrap() < 0.8, "{doc:#}");
    assert_eq!(
        agnostics_testkit::test_files(drive.mount_dir().unwrap()),
        Vec::<String>::new()
    );
    Ok(())
}

/// A fake wrapping at 700 MiB with 70 MiB free: never "genuine" (the raw reads of a check run
/// as root find the spots' blocks where the wrap put them: fake, 700 MiB or less).
fn mounted_fake_with_70_mib_free_is_not_genuine() -> Ran {
    let (mut drive, users, sums) = wrapping(700 * MIB, true)?;
    leave_70_mib_free(&drive);
    let (doc, code) = check(&drive, true);
    assert_ne!(doc["verdict"], "genuine", "{doc:#}");
    assert_ne!(code, Some(0));
    if doc["verdict"] == "fake" {
        assert!(doc["real_bytes"].as_u64().unwrap() <= 700 * MIB, "{doc:#}");
    }
    nothing_lost(&mut drive, true, "", users.path(), &sums);
    Ok(())
}

/// A genuine 1 GiB drive as slow as a 10 MB/s card, in both modes: genuine, and what each
/// check wrote and read is exactly its spots (and device mode's sweep of the lowest MiBs); the
/// time each took is printed, never asserted.
fn a_genuine_drive_at_10_mb_s_in_both_modes() -> Ran {
    let slow = |mounted: bool| {
        let b = FakeDrive::builder(GIB, Behaviour::Genuine).throttle(Throttle {
            write_bps: 10_000_000,
            read_bps: 10_000_000,
            ..Throttle::default()
        });
        if mounted { b.mounted() } else { b }.build()
    };
    for mounted in [false, true] {
        let drive = slow(mounted)?;
        let before = sha256(drive.device());
        let (doc, code) = check(&drive, mounted);
        assert_eq!(doc["verdict"], "genuine", "{doc:#}");
        assert_eq!(code, Some(0));
        let spots = doc["spots"]["total"].as_u64().unwrap();
        let written = doc["bytes_written"].as_u64().unwrap();
        // Each spot's pattern, then the block saved there.
        assert_eq!(written, 2 * spots * 4096, "{doc:#}");
        if !mounted {
            assert_eq!(sha256(drive.device()), before);
        }
        println!(
            "mounted {mounted}: {spots} spots, wrote {written} B, read {} B, {} s",
            doc["bytes_read"], doc["seconds"]
        );
    }
    Ok(())
}

/// A fake of a kind the others are not: it wraps at 700 MiB + 12 KiB, no whole number of MiB,
/// so no two spots are its real size apart; the sweep of the ruler's lowest MiBs finds a high
/// spot's block between two low ones. Fake, with the exact real size in device mode.
fn a_wrap_at_no_whole_mib(mounted: bool) -> Ran {
    let real = 700 * MIB + 12 * 1024;
    let (mut drive, users, sums) = wrapping(real, mounted)?;
    let before = sha256(drive.device());
    let (doc, code) = check(&drive, mounted);
    println!(
        "mounted {mounted}: {} real_bytes {} first_bad_address {}",
        doc["verdict"], doc["real_bytes"], doc["first_bad_address"]
    );
    assert_eq!(doc["verdict"], "fake", "{doc:#}");
    assert_eq!(code, Some(1));
    let found = doc["real_bytes"].as_u64().unwrap();
    if mounted {
        assert!(found <= real && found > 0, "{doc:#}");
    } else {
        assert_eq!(found, real, "{doc:#}");
    }
    nothing_lost(&mut drive, mounted, &before, users.path(), &sums);
    Ok(())
}

fn device_wrap_at_no_whole_mib() -> Ran {
    a_wrap_at_no_whole_mib(false)
}
fn mounted_wrap_at_no_whole_mib() -> Ran {
    a_wrap_at_no_whole_mib(true)
}

agnostics_testkit::test_list!(
    device_wrap_at_no_whole_mib,
    mounted_wrap_at_no_whole_mib,
    a_genuine_drive_at_10_mb_s_in_both_modes,
    device_wrap_at_700_mib,
    device_wrap_at_1000_mib,
    device_wrap_at_100_mib,
    mounted_wrap_at_700_mib,
    mounted_wrap_at_1000_mib,
    mounted_wrap_at_100_mib,
    device_one_percent_dropped_loses_data,
    mounted_one_percent_dropped_loses_data,
    device_of_16_mib_and_512_bytes_is_genuine,
    mounted_with_70_mib_free_is_not_genuine,
    mounted_fake_with_70_mib_free_is_not_genuine,
);
