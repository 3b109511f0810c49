//! Device mode never loses a byte, and its recovery files and locks cannot be used against the
//! person checking: writes that fail in a band of a fake drive (every other block put back,
//! the failures kept and named, the verdict still given); a killed check's file tried on
//! another card in the same slot (nothing written to it) and put back on its own card under
//! another name, as is a killed check's drive that comes back under another name; a torn
//! recovery file stops only the check of its own drive; recovery files, FIFOs, links and
//! oversized files planted by another user (refused unread, nothing written, no hang); lock
//! files planted or held by another user, and a FIFO or folder at the lock path (root's check
//! still runs and says so); a running check's file left alone; `--forget-recovery`. Each
//! device is compared byte for byte before and after. Run under
//! `flock /tmp/agnostics-drive.lock` (tests of others share drives).

use crate::support;

use support::capacity::{recovery_dir, sha256, BareLoop};

use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agnostics_core::capacity::{pattern::Block, recovery};
use agnostics_testkit::fake_drive::{Behaviour, EioBand, FakeDrive};
use agnostics_testkit::{require_program, require_root, run, Ran};

const MIB: u64 = 1 << 20;
/// The user other users' files belong to.
const NOBODY: u32 = 65534;

/// `agnostics-cli capacity ARGS` with `rec` for recovery files, run to its end, waited for at
/// most two minutes (then killed: the test fails instead of hanging).
fn capacity(rec: &Path, lock_dir: Option<&Path>, args: &[&str]) -> Output {
    let mut c = support::cli();
    c.env("AGNOSTICS_RECOVERY_DIR", rec)
        .arg("capacity")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = lock_dir {
        c.env("AGNOSTICS_LOCK_DIR", d);
    }
    let mut child = c.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("the check did not end within two minutes");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn device_check(rec: &Path, device: &Path, lock_dir: Option<&Path>) -> Output {
    capacity(
        rec,
        lock_dir,
        &["--device", device.to_str().unwrap(), "--yes", "--json"],
    )
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// An image of `mib` MiB whose every 4 KiB block differs from every other (and from another
/// image's, by `seed`): content a restore to the wrong place would change.
fn image(dir: &Path, name: &str, mib: u64, seed: u64) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path).unwrap();
    fill(&path, mib, seed);
    path
}

/// Fills the first `mib` MiB of the file `path` as [`image`] does.
fn fill(path: &Path, mib: u64, seed: u64) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let mut chunk = vec![0u8; MIB as usize];
    for m in 0..mib {
        for (i, word) in chunk.chunks_mut(8).enumerate() {
            let x = (seed << 40) ^ (m << 20) ^ i as u64;
            word.copy_from_slice(&x.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
        }
        f.write_all_at(&chunk, m * MIB).unwrap();
    }
    f.sync_all().unwrap();
}

/// A loop device over `image` (at `at`, e.g. `/dev/loop7`, or the first free one).
fn attach(image: &Path, at: Option<&Path>) -> PathBuf {
    let mut c = Command::new("losetup");
    c.arg("--direct-io=on");
    match at {
        Some(d) => {
            c.arg(d).arg(image);
            run(&mut c);
            d.to_path_buf()
        }
        None => PathBuf::from(run(c.args(["-f", "--show"]).arg(image))),
    }
}

fn detach(device: &Path) {
    run(Command::new("losetup").arg("-d").arg(device));
}

/// What a check killed outright leaves on `device`: its recovery file in `rec` (the card's
/// identity, `key`) and its patterns at `addresses`.
fn killed_check(device: &Path, rec: &Path, addresses: &[u64], key: u64) -> PathBuf {
    let disk = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(device)
        .unwrap();
    let size = {
        let out = run(Command::new("blockdev").arg("--getsize64").arg(device));
        out.trim().parse::<u64>().unwrap()
    };
    let mut saved = Vec::new();
    for &a in addresses {
        let mut b = Block::zeroed();
        disk.read_exact_at(&mut b.0, a).unwrap();
        saved.push((a, b));
    }
    let probes = recovery::probes_for(addresses, size);
    let header = recovery::Header {
        disk: device.file_name().unwrap().to_string_lossy().into_owned(),
        dev: "7:4000".into(),
        size_bytes: size,
        cid: String::new(),
        content: recovery::content_of(&disk, &probes).unwrap(),
        probes,
        key,
        created: "2026-01-01T00:00:00+00:00".into(),
        blocks: 0,
    };
    let (path, _) = recovery::write(rec, &header, &saved).unwrap();
    for (i, &a) in addresses.iter().enumerate() {
        disk.write_all_at(&Block::pattern(key, a, i as u32).0, a)
            .unwrap();
    }
    disk.sync_all().unwrap();
    path
}

/// A 1 GiB fake whose 400–500 MiB band fails writes: refusing every write there, the check
/// gives its verdict (spots there lost their data) and the device is unchanged; taking the
/// pattern but refusing the restore, every other block is put back, the failures are kept in
/// the recovery file and named, and the verdict is still given.
fn writes_failing_in_a_band() -> Ran {
    let band = 400 * MIB..500 * MIB;
    for writes_before in [0, 1] {
        let drive = FakeDrive::builder(1024 * MIB, Behaviour::Genuine)
            .eio_band(EioBand {
                range: band.clone(),
                writes_before,
            })
            .build()?;
        fill(drive.backing_path(), 1024, u64::from(writes_before) + 1);
        let below = drive.backing_sha256(0..band.start);
        let inside = drive.backing_sha256(band.clone());
        let above = drive.backing_sha256(band.end..1024 * MIB);
        let rec = recovery_dir();
        let out = device_check(&rec, drive.device(), None);
        let doc = support::json(&out);
        assert_eq!(drive.backing_sha256(0..band.start), below, "{doc:#}");
        assert_eq!(drive.backing_sha256(band.end..1024 * MIB), above);
        if writes_before == 0 {
            assert_eq!(doc["verdict"], "loses_data", "{doc:#}");
            assert_eq!(out.status.code(), Some(1));
            assert_eq!(drive.backing_sha256(band.clone()), inside);
            assert_eq!(doc["restore"]["failed"], 0);
            assert!(recovery::files(&rec).is_empty());
            continue;
        }
        assert_eq!(doc["verdict"], "genuine", "{doc:#}");
        assert_eq!(
            out.status.code(),
            Some(2),
            "unrestored sectors are no clean bill"
        );
        let failed = doc["restore"]["failed"].as_u64().unwrap();
        assert!(failed > 0, "{doc:#}");
        let files = recovery::files(&rec);
        assert_eq!(files.len(), 1);
        assert_eq!(doc["restore"]["kept_in"], files[0].to_str().unwrap());
        let (_, kept) = recovery::load(&files[0]).unwrap();
        assert_eq!(kept.len() as u64, failed);
        assert!(
            kept.iter().all(|(a, _)| band.contains(a)),
            "only the band's"
        );
        let named: Vec<u64> = doc["restore"]["failed_addresses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_u64().unwrap())
            .collect();
        // The report names the first 64 (ascending); the file keeps them all.
        let first: Vec<u64> = kept.iter().map(|(a, _)| *a).take(64).collect();
        assert_eq!(named, first, "{doc:#}");
        // The kept blocks hold the check's pattern still: nothing else there changed.
        for (a, b) in &kept {
            assert_ne!(drive.read_backing(*a, 4096), b.0.to_vec());
        }
    }
    Ok(())
}

/// A killed check's file is tried on another card of the same size in the same slot (same
/// loop device, same MAJ:MIN): nothing of the first card is written to it and it is checked
/// as itself, byte for byte unchanged; the first card, back under another name without a
/// serial, is recovered byte for byte.
fn another_card_in_the_slot_gets_nothing_and_the_first_is_recovered_under_another_name() -> Ran {
    require_root("loop devices")?;
    require_program("losetup")?;
    let holder = agnostics_testkit::scratch_dir();
    let one = image(holder.path(), "one.img", 256, 1);
    let two = image(holder.path(), "two.img", 256, 2);
    let (sum_one, sum_two) = (sha256(&one), sha256(&two));
    let slot = attach(&one, None);
    let rec = recovery_dir();
    let addresses = [0, 4096 * 5, 64 * MIB, 200 * MIB + 8192];
    let file = killed_check(&slot, &rec, &addresses, 0xc0ffee);
    detach(&slot);
    attach(&two, Some(&slot));
    let out = device_check(&rec, &slot, None);
    let doc = support::json(&out);
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(doc["recovered"], serde_json::json!([]));
    assert!(
        stderr(&out).contains("is not of this card"),
        "{}",
        stderr(&out)
    );
    assert_eq!(sha256(&two), sum_two, "card 2 is byte for byte as it was");
    assert!(file.exists(), "card 1's file is kept");
    // Card 1 comes back under another name (the slot still holds card 2).
    let elsewhere = attach(&one, None);
    assert_ne!(elsewhere, slot);
    let out = device_check(&rec, &elsewhere, None);
    detach(&elsewhere);
    detach(&slot);
    let doc = support::json(&out);
    assert_eq!(doc["recovered"][0]["blocks"], 4, "{doc:#}");
    assert_eq!(doc["verdict"], "genuine");
    assert_eq!(sha256(&one), sum_one, "card 1 is recovered byte for byte");
    assert!(recovery::files(&rec).is_empty());
    Ok(())
}

/// Files another user planted are refused unread, with a sentence; nothing is written; a
/// FIFO does not hang the check.
fn planted_recovery_files_are_refused() -> Ran {
    require_root("loop devices")?;
    let holder = agnostics_testkit::scratch_dir();
    let img = image(holder.path(), "card.img", 64, 3);
    let device = attach(&img, None);
    let before = sha256(&img);
    let name = "0123456789abcdef.bin";
    type Plant = fn(&Path);
    let plants: [(&str, Plant); 4] = [
        ("a file of nobody's", |p| {
            std::fs::write(p, b"AGNCAPRF").unwrap();
            std::os::unix::fs::chown(p, Some(NOBODY), Some(NOBODY)).unwrap();
        }),
        ("a FIFO", |p| {
            nix::unistd::mkfifo(p, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        }),
        ("a link to /dev/zero", |p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap();
        }),
        ("a 20 GB file", |p| {
            let f = std::fs::File::create(p).unwrap();
            f.set_len(20_000_000_000).unwrap();
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o600)).unwrap();
        }),
    ];
    for (what, plant) in plants {
        let rec = recovery_dir();
        plant(&rec.join(name));
        let out = device_check(&rec, &device, None);
        let doc = support::json(&out);
        let message = doc["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("refusing the recovery file"),
            "{what}: {doc:#}"
        );
        assert_eq!(out.status.code(), Some(2), "{what}");
        assert_eq!(sha256(&img), before, "{what}: nothing written");
    }
    // A folder others can write to, with nobody's file in it.
    let rec = recovery_dir();
    std::fs::set_permissions(&rec, std::fs::Permissions::from_mode(0o777)).unwrap();
    let planted = rec.join(name);
    std::fs::write(&planted, b"AGNCAPRF").unwrap();
    std::os::unix::fs::chown(&planted, Some(NOBODY), Some(NOBODY)).unwrap();
    let out = device_check(&rec, &device, None);
    let doc = support::json(&out);
    let message = doc["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("other users can write to the folder"),
        "{doc:#}"
    );
    assert_eq!(sha256(&img), before);
    detach(&device);
    Ok(())
}

/// Spawns `sleep 60` holding a shared OFD lock on `path` (not closed on exec), as `uid`.
fn hold_lock(path: &Path, uid: u32) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let path = path.to_owned();
    let mut c = Command::new("sleep");
    c.arg("60");
    // SAFETY: only async-signal-safe calls (open, fcntl, setgid, setuid) between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let cpath = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
            let fd = libc::open(cpath.as_ptr(), libc::O_RDONLY);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let mut lock: libc::flock = std::mem::zeroed();
            lock.l_type = libc::F_RDLCK as libc::c_short;
            lock.l_whence = libc::SEEK_SET as libc::c_short;
            if libc::fcntl(fd, libc::F_OFD_SETLK, &lock) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::setgid(uid) != 0 || libc::setuid(uid) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.spawn().unwrap()
}

/// A lock file planted and held by another user does not stop root's device check (noted);
/// one held by a root process does, naming it; a FIFO or a folder at the lock path is said.
fn locks_cannot_be_used_against_root() -> Ran {
    require_root("loop devices")?;
    let holder = agnostics_testkit::scratch_dir();
    let img = image(holder.path(), "card.img", 64, 4);
    let device = attach(&img, None);
    let before = sha256(&img);
    let dev = run(Command::new("lsblk").args(["-dno", "MAJ:MIN"]).arg(&device))
        .trim()
        .replace(':', "_");
    let lock_name = format!("agnostics-{dev}.lock");
    // Another user's lock.
    let locks = support::scratch();
    std::fs::set_permissions(locks.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let lock = locks.path().join(&lock_name);
    std::fs::write(&lock, b"").unwrap();
    std::os::unix::fs::chown(&lock, Some(NOBODY), Some(NOBODY)).unwrap();
    let mut theirs = hold_lock(&lock, NOBODY);
    let rec = recovery_dir();
    let out = device_check(&rec, &device, Some(locks.path()));
    let _ = theirs.kill();
    let _ = theirs.wait();
    let doc = support::json(&out);
    assert_eq!(doc["verdict"], "genuine", "{doc:#} {}", stderr(&out));
    assert!(
        stderr(&out).contains("it is not obeyed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(sha256(&img), before);
    // Root's own: refused, naming the process.
    let mut ours = hold_lock(&lock, 0);
    let out = device_check(&rec, &device, Some(locks.path()));
    let pid = ours.id();
    let _ = ours.kill();
    let _ = ours.wait();
    let doc = support::json(&out);
    let message = doc["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("(process {pid}, sleep)")),
        "{doc:#}"
    );
    // A FIFO, then a folder, at the lock path: the check runs and says so.
    std::fs::remove_file(&lock).unwrap();
    nix::unistd::mkfifo(&lock, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
    let out = device_check(&rec, &device, Some(locks.path()));
    assert_eq!(support::json(&out)["verdict"], "genuine");
    assert!(stderr(&out).contains(&lock_name), "{}", stderr(&out));
    std::fs::remove_file(&lock).unwrap();
    std::fs::create_dir(&lock).unwrap();
    let out = device_check(&rec, &device, Some(locks.path()));
    assert_eq!(support::json(&out)["verdict"], "genuine");
    assert!(
        stderr(&out).contains("is not a regular file"),
        "{}",
        stderr(&out)
    );
    assert_eq!(sha256(&img), before);
    detach(&device);
    Ok(())
}

/// A running check's file is left alone and named as running (not "interrupted"); and
/// `--forget-recovery` lists, asks (refused without a terminal or --yes), and forgets.
fn a_running_checks_file_and_forget_recovery() -> Ran {
    require_root("loop devices")?;
    let holder = agnostics_testkit::scratch_dir();
    let img = image(holder.path(), "card.img", 64, 5);
    let other = image(holder.path(), "other.img", 32, 6);
    let device = attach(&img, None);
    let before = sha256(&img);
    let rec = recovery_dir();
    // A check of another card running now: its file is held locked.
    let running_on = attach(&other, None);
    let file = killed_check(&running_on, &rec, &[0, 8 * MIB], 9);
    detach(&running_on);
    let held = std::fs::File::open(&file).unwrap();
    // SAFETY: plain syscall on a descriptor we own.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&held), libc::LOCK_EX) },
        0
    );
    let out = device_check(&rec, &device, None);
    assert_eq!(support::json(&out)["verdict"], "genuine");
    let said = stderr(&out);
    assert!(said.contains("belongs to a check running now"), "{said}");
    assert!(!said.contains("interrupted"), "{said}");
    assert_eq!(sha256(&img), before);
    let out = capacity(&rec, None, &["--forget-recovery", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(file.exists(), "a running check's file is not forgotten");
    drop(held);
    let out = capacity(&rec, None, &["--forget-recovery"]);
    assert_eq!(out.status.code(), Some(2), "not without --yes");
    assert!(String::from_utf8_lossy(&out.stdout).contains(file.to_str().unwrap()));
    assert!(file.exists());
    let out = capacity(&rec, None, &["--forget-recovery", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!file.exists());
    detach(&device);
    Ok(())
}

/// A drive whose check was killed and that comes back under another name (a USB stick plugged
/// into another port: `sdc` instead of `sdb`, here a loop device other than the one the
/// recovery file names) is the same drive: the next check of it puts the sectors back first,
/// instead of checking it as it is and leaving the user's data overwritten.
fn a_killed_check_is_put_back_when_the_drive_comes_back_under_another_name() -> Ran {
    require_root("a loop device")?;
    let drive = BareLoop::new(64);
    let before = sha256(&drive.device);
    // What a killed check leaves: the original blocks saved under the drive's old name and
    // MAJ:MIN, with the card's own content as its identity …
    let disk = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&drive.device)
        .unwrap();
    let mut saved = Vec::new();
    let addresses = [0, 16 * MIB, 32 * MIB + 4096];
    for address in addresses {
        let mut b = Block::zeroed();
        disk.read_exact_at(&mut b.0, address).unwrap();
        saved.push((address, b));
    }
    let probes = recovery::probes_for(&addresses, 64 * MIB);
    let key = 0x5eed;
    let header = recovery::Header {
        disk: "loop250".into(),
        dev: "7:2000".into(),
        size_bytes: 64 * MIB,
        cid: String::new(),
        content: recovery::content_of(&disk, &probes).unwrap(),
        probes,
        key,
        created: "2026-01-01T00:00:00+00:00".into(),
        blocks: 0,
    };
    let rec = recovery_dir();
    drop(recovery::write(&rec, &header, &saved).unwrap());
    // … and its patterns on the drive.
    for (i, (address, _)) in saved.iter().enumerate() {
        disk.write_all_at(&Block::pattern(key, *address, i as u32).0, *address)
            .unwrap();
    }
    disk.sync_all().unwrap();
    drop(disk);
    let out = capacity(
        &rec,
        None,
        &[
            "--device",
            drive.device.to_str().unwrap(),
            "--yes",
            "--json",
        ],
    );
    let doc = support::json(&out);
    assert_eq!(doc["recovered"][0]["blocks"], 3, "{doc:#}");
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(sha256(&drive.device), before, "the user's data is back");
    assert_eq!(support::entries(&rec), Vec::<String>::new());
    Ok(())
}

/// A torn recovery file (truncated: a full disk, a hand that cut it) of another drive does not
/// stop the check of this one (it would, for ever, with "an earlier check of ?"); one of this
/// drive still does, names the drive, says its sectors cannot be put back and how to forget it.
fn a_torn_recovery_file_stops_only_the_check_of_its_own_drive() -> Ran {
    require_root("a loop device")?;
    let drive = BareLoop::new(64);
    let before = sha256(&drive.device);
    let probes = vec![4096, 8 * MIB];
    let content = {
        let disk = std::fs::File::open(&drive.device).unwrap();
        recovery::content_of(&disk, &probes).unwrap()
    };
    let torn = |rec: &Path, content: &str| {
        let header = recovery::Header {
            disk: "loop251".into(),
            dev: "7:2001".into(),
            size_bytes: 64 * MIB,
            cid: String::new(),
            probes: probes.clone(),
            content: content.into(),
            key: 1,
            created: "2026-01-01T00:00:00+00:00".into(),
            blocks: 0,
        };
        let saved = vec![(0, Block::zeroed()), (16 * MIB, Block::zeroed())];
        let (path, _) = recovery::write(rec, &header, &saved).unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len - 5000)
            .unwrap();
        path
    };
    let args = [
        "--device",
        drive.device.to_str().unwrap(),
        "--yes",
        "--json",
    ];
    let rec = recovery_dir();
    let other = torn(&rec, "the content of another card");
    let out = capacity(&rec, None, &args);
    let doc = support::json(&out);
    assert_eq!(doc["verdict"], "genuine", "{doc:#}");
    assert_eq!(out.status.code(), Some(0));
    assert!(other.exists(), "another drive's file is left alone");
    assert_eq!(sha256(&drive.device), before);

    let rec = recovery_dir();
    torn(&rec, &content);
    let out = capacity(&rec, None, &args);
    let doc = support::json(&out);
    let message = doc["error"]["message"].as_str().unwrap_or_default();
    let name = drive.device.file_name().unwrap().to_str().unwrap();
    assert!(
        message.contains(&format!("earlier check of {name}"))
            && message.contains("cannot be put back")
            && message.contains("--forget-recovery"),
        "{doc:#}"
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(sha256(&drive.device), before);
    Ok(())
}

agnostics_testkit::test_list!(
    writes_failing_in_a_band,
    another_card_in_the_slot_gets_nothing_and_the_first_is_recovered_under_another_name,
    planted_recovery_files_are_refused,
    locks_cannot_be_used_against_root,
    a_running_checks_file_and_forget_recovery,
    a_killed_check_is_put_back_when_the_drive_comes_back_under_another_name,
    a_torn_recovery_file_stops_only_the_check_of_its_own_drive,
);
