//! `agnostics-cli run --profile sustained`: on the testkit's fake drive with a write cache of
//! 16 MiB (full speed until then, held to 5 MB/s after), the cliff is found where the cache
//! fills, within one allocation unit, and the speed after it is no faster than the drive's slow
//! part; on a drive that loses a few blocks, the blocks that read back wrong fail the run. The
//! fake drives are FUSE files behind a loop device, which the program rightly cannot show to be
//! free of a cache: their tests end with the error `cached` (exit status 2) and every figure
//! still reported, and the run with lost blocks stays FAIL. On
//! a folder of this machine's disk, the text says what the test will do before it starts and
//! what it found (this drive, not "this card": it is not an SD card), led by its headline;
//! a cap that is not a size is refused with the reason before anything is written. Stopped
//! with SIGSTOP while it writes, the run ends `paused`, with no result that counts the stop as
//! a write. With `--engine fio` the cliff is found in the same unit, and fio's verify counts
//! exactly the blocks the lossy drive did not store (read from its backing file after the
//! run). Every run writes
//! tens of MiB ([`MAX_ENV`] lowers the test's 4 GiB). The fake drives need root; run under
//! `flock /tmp/agnostics-drive.lock` (tests of others share drives).

use crate::support;

use agnostics_core::sustained::plan::MAX_ENV;
use agnostics_testkit::fake_drive::{Behaviour, FakeDrive, WriteCache};
use agnostics_testkit::Ran;
use support::Run;

const MIB: u64 = 1 << 20;

/// `run --profile sustained` on `drive`'s filesystem, writing at most `max`.
fn on_drive(drive: &FakeDrive, max: &str) -> Run {
    Run::new()
        .profile("sustained")
        .target(drive.mount_dir().expect("mounted"))
        .env(MAX_ENV, max)
}

fn the_cliff_is_where_the_cache_fills() -> Ran {
    let cache = 16 * MIB;
    let drive = FakeDrive::builder(256 * MIB, Behaviour::Genuine)
        .mounted()
        .write_cache(WriteCache {
            fast_bytes: cache,
            slow_bytes_per_second: 5_000_000,
        })
        .build()?;
    let doc = on_drive(&drive, "40m").expect_exit(2).json();
    let s = &doc["runs"][0]["sustained"];
    println!("{s:#}");
    assert_eq!(doc["error"]["kind"], "cached", "{doc:#}");
    assert_eq!(s["unit_bytes"], 4 * MIB);
    assert_eq!(s["written_bytes"], 40 * MIB);
    assert_eq!(s["verified_bytes"], 40 * MIB);
    assert_eq!(s["corrupt_blocks"], 0);
    // The filesystem's own few writes count towards the cache too: the unit in which it
    // fills is the 4th or the 5th.
    let cliff = s["cliff_bytes"].as_u64().expect("a cliff");
    assert!(
        cliff + 4 * MIB >= cache && cliff <= cache + 4 * MIB,
        "{cliff}"
    );
    // The drive holds every byte past the cache to 5 MB/s. Of the units after the cliff, the
    // first may be partly fast (the cache filled inside it); the others take at least their
    // bytes over 5 MB/s each: so the speed after is at most 5 MB/s × n / (n - 1).
    let after = s["after_bytes_per_second"].as_f64().unwrap();
    let n = (40 * MIB - cliff) / (4 * MIB);
    assert!(
        after <= 5_000_000.0 * n as f64 / (n - 1) as f64,
        "{after} over {n} units"
    );
    assert!(s["before_bytes_per_second"].as_f64().unwrap() > after / 0.6);
    // Samples: bytes written so far, rising. The slow part alone takes 24 MiB / 5 MB/s, over
    // 5 s, and a sample is taken at the first request done a second after the one before.
    let samples = s["samples"].as_array().unwrap();
    assert!(samples.len() >= 2, "{samples:?}");
    assert!(samples.last().unwrap()["bytes"].as_u64().unwrap() <= 40 * MIB);
    assert!(samples
        .windows(2)
        .all(|w| w[0]["bytes"].as_u64() < w[1]["bytes"].as_u64()));
    // Not an SD card: nothing claimed is known; 5 MB/s cannot meet C6.
    let markings = s["markings"].as_array().unwrap();
    assert_eq!(markings.len(), 11);
    assert!(markings.iter().all(|m| m["claimed"].is_null()));
    let c6 = markings.iter().find(|m| m["name"] == "C6").unwrap();
    assert_eq!(
        (c6["met"].clone(), c6["min_bytes_per_second"].clone()),
        (false.into(), 6_000_000.into())
    );
    let phases: Vec<&str> = doc["runs"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["sustained-write", "sustained-verify"]);
    assert!(agnostics_testkit::test_files(drive.mount_dir().unwrap()).is_empty());
    Ok(())
}

fn blocks_a_drive_lost_fail_the_run() -> Ran {
    let drive = FakeDrive::builder(
        256 * MIB,
        Behaviour::Lossy {
            seed: 38,
            lost_per_million: 2000,
        },
    )
    .mounted()
    .build()?;
    let doc = on_drive(&drive, "16m").expect_exit(2).json();
    let s = &doc["runs"][0]["sustained"];
    let corrupt = s["corrupt_blocks"].as_u64().unwrap();
    assert!(corrupt > 0, "{s:#}");
    assert_eq!(
        s["verified_bytes"].as_u64().unwrap() + corrupt * 4096,
        16 * MIB
    );
    assert_eq!(doc["error"]["kind"], "cached", "{doc:#}");
    assert_eq!(doc["runs"][0]["verdict"], "FAIL");
    Ok(())
}

fn the_text_says_what_it_will_do_and_what_it_found() -> Ran {
    let dir = support::scratch();
    let out = Run::new()
        .profile("sustained")
        .target(dir.path())
        .env(MAX_ENV, "16m")
        .expect_exit(0)
        .text();
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("Sustained write: writes at most 16 MiB in units of 4 MiB"),
        "{out}"
    );
    for line in [
        "Read back and checked: 16 MiB, every block as written.",
        "Measured through the file system on this computer, not under the SD Association's \
         test conditions.",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    assert!(out.contains("Slowest write: "), "{out}");
    // A folder of this machine's disk is not an SD card: "this drive", never "this card".
    assert!(
        out.contains("Speed markings this drive kept up with: ")
            || out.contains("This drive kept up with none of the speed markings."),
        "{out}"
    );
    assert!(
        !out.contains("this card") && !out.contains("This card"),
        "{out}"
    );
    // The one-sentence headline leads the report, right after what the test said it would do,
    // as the app leads its result with it.
    let headline = out.lines().nth(1).unwrap();
    assert!(
        headline.starts_with("This drive kept ")
            && headline.contains(" MB/s for all 16 MiB written")
            || headline.starts_with("This drive slowed to ")
                && headline.contains(" MB/s after its first "),
        "{out}"
    );
    assert!(headline.ends_with('.'), "{out}");
    assert_eq!(out.lines().nth(2), Some(""), "{out}");
    Ok(())
}

/// The cache drive's run with `--engine fio`: fio writes the same plan through the same
/// file, and the cliff is found in the same unit as the built-in engine finds it.
fn fio_finds_the_cliff_where_the_cache_fills() -> Ran {
    let cache = 16 * MIB;
    let drive = FakeDrive::builder(256 * MIB, Behaviour::Genuine)
        .mounted()
        .write_cache(WriteCache {
            fast_bytes: cache,
            slow_bytes_per_second: 5_000_000,
        })
        .build()?;
    let out = on_drive(&drive, "40m")
        .engine("fio")
        .arg("--json")
        .expect_exit(2)
        .output();
    let doc = support::json(&out);
    let s = &doc["runs"][0]["sustained"];
    println!("{s:#}");
    assert_eq!(doc["error"]["kind"], "cached", "{doc:#}");
    // Announced as fio runs it: the whole plan, no early stop.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Sustained write with fio: writes all of 40 MiB in units of 4 MiB"),
        "{stderr}"
    );
    assert_eq!(doc["io_path"], "fio psync");
    assert_eq!(
        (s["unit_bytes"].as_u64(), s["written_bytes"].as_u64()),
        (Some(4 * MIB), Some(40 * MIB))
    );
    assert_eq!(s["verified_bytes"], 40 * MIB);
    assert_eq!(s["corrupt_blocks"], 0);
    assert_eq!(s["settled_early"], false);
    let cliff = s["cliff_bytes"].as_u64().expect("a cliff");
    assert!(
        cliff + 4 * MIB >= cache && cliff <= cache + 4 * MIB,
        "{cliff}"
    );
    let after = s["after_bytes_per_second"].as_f64().unwrap();
    let n = (40 * MIB - cliff) / (4 * MIB);
    assert!(
        after <= 5_000_000.0 * n as f64 / (n - 1) as f64,
        "{after} over {n} units"
    );
    assert!(s["before_bytes_per_second"].as_f64().unwrap() > after / 0.6);
    let phases = doc["runs"][0]["phases"].as_array().unwrap();
    let names: Vec<&str> = phases.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["sustained-write", "sustained-verify"]);
    // The write phase: ten requests of 4 MiB; the read-back: 10240 blocks of 4 KiB.
    assert_eq!(
        (phases[0]["ios"].as_u64(), phases[0]["bs"].as_u64()),
        (Some(10), Some(4 * MIB))
    );
    assert_eq!(
        (phases[1]["ios"].as_u64(), phases[1]["bs"].as_u64()),
        (Some(10240), Some(4096))
    );
    // The worst latency from fio's per-request log is fio's own maximum (ns in both).
    let max = s["max_latency_us"].as_f64().unwrap();
    let fio_max = phases[0]["lat_us"]["max"].as_f64().unwrap();
    assert!((max - fio_max).abs() < 0.001, "{max} against {fio_max}");
    assert!(s["p99_latency_us"].as_f64().unwrap() <= max);
    let samples = s["samples"].as_array().unwrap();
    assert!(samples.len() >= 2, "{samples:?}");
    assert_eq!(samples.last().unwrap()["bytes"], 40 * MIB);
    assert!(samples
        .windows(2)
        .all(|w| w[0]["bytes"].as_u64() < w[1]["bytes"].as_u64()));
    let c6 = s["markings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "C6");
    assert_eq!(c6.unwrap()["met"], false);
    assert!(agnostics_testkit::test_files(drive.mount_dir().unwrap()).is_empty());
    Ok(())
}

/// The file offsets named by fio's verify headers (fio 3.33 `verify.h`: magic 0xacca at byte
/// 0, the length at 4, the block's offset at 16, little-endian here) in the 4 KiB blocks of
/// `drive`'s backing file: the blocks of the test file the drive really stored.
fn stored_fio_blocks(drive: &FakeDrive) -> std::collections::BTreeSet<u64> {
    let mut found = std::collections::BTreeSet::new();
    let chunk = 4 * MIB;
    for at in (0..drive.real_bytes()).step_by(chunk as usize) {
        let data = drive.read_backing(at, chunk as usize);
        for block in data.chunks_exact(4096) {
            let word = |at: usize, n: usize| {
                block[at..at + n]
                    .iter()
                    .rev()
                    .fold(0u64, |v, &b| v << 8 | u64::from(b))
            };
            if word(0, 2) == 0xacca && word(4, 4) == 4096 {
                found.insert(word(16, 8));
            }
        }
    }
    found
}

/// On a drive that silently drops writes to some blocks, fio's verify finds exactly the test
/// file's blocks the drive did not store: each 4 KiB block of the file whose fio header is
/// nowhere on the drive's backing file afterwards (the deleted file's blocks keep their
/// data) is one corrupt block, and the first of them is the first corrupt offset.
fn fio_counts_exactly_the_blocks_a_drive_lost() -> Ran {
    let drive = FakeDrive::builder(
        256 * MIB,
        Behaviour::Lossy {
            seed: 38,
            lost_per_million: 2000,
        },
    )
    .mounted()
    .build()?;
    let doc = on_drive(&drive, "16m").engine("fio").expect_exit(2).json();
    let s = &doc["runs"][0]["sustained"];
    assert_eq!(doc["error"]["kind"], "cached", "{doc:#}");
    let stored = stored_fio_blocks(&drive);
    assert!(stored.iter().all(|&o| o < 16 * MIB && o % 4096 == 0));
    let lost: Vec<u64> = (0..16 * MIB)
        .step_by(4096)
        .filter(|o| !stored.contains(o))
        .collect();
    println!("lost blocks of the file: {lost:?}");
    assert!(!lost.is_empty(), "seed 38 loses some of 4096 blocks");
    assert_eq!(s["corrupt_blocks"], lost.len() as u64, "{s:#}");
    assert_eq!(s["verified_bytes"], 16 * MIB - 4096 * lost.len() as u64);
    assert_eq!(s["first_corrupt_bytes"], lost[0]);
    assert_eq!(doc["runs"][0]["verdict"], "FAIL");
    Ok(())
}

/// Ctrl+C while fio writes the sustained test's data: the run is cancelled (exit status 130),
/// and the test file, its folder and fio's log folder (in the temporary directory the run was
/// given) are gone.
fn ctrl_c_during_fio_leaves_nothing() -> Ran {
    use std::os::unix::fs::MetadataExt;
    let drive = FakeDrive::builder(256 * MIB, Behaviour::Genuine)
        .mounted()
        .write_cache(WriteCache {
            fast_bytes: 16 * MIB,
            slow_bytes_per_second: 5_000_000,
        })
        .build()?;
    let tmp = support::scratch();
    let mount = drive.mount_dir().expect("mounted");
    let child = on_drive(&drive, "64m")
        .engine("fio")
        .env("TMPDIR", tmp.path())
        .arg("--json")
        .command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until fio has written past the cache (the file is sized before fio starts; its
    // blocks are allocated as fio writes): the slow part takes seconds more.
    let written = || {
        agnostics_testkit::test_files(mount)
            .iter()
            .find(|f| f.ends_with("/test-file"))
            .and_then(|f| std::fs::metadata(mount.join(f)).ok())
            .map_or(0, |m| m.blocks() * 512)
    };
    let start = std::time::Instant::now();
    while written() < 20 * MIB && start.elapsed() < std::time::Duration::from_secs(120) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(written() >= 20 * MIB, "fio never wrote past the cache");
    assert_eq!(support::entries(tmp.path()).len(), 1, "fio's log folder");
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "cancelled", "{doc:#}");
    assert!(agnostics_testkit::test_files(mount).is_empty());
    assert!(support::entries(tmp.path()).is_empty());
    Ok(())
}

/// The CLI stopped (SIGSTOP, as `kill -STOP` or a debugger does; Ctrl+Z and a suspended
/// machine do the same) for 8 s while it writes to a drive held to 4 MB/s, then continued:
/// the run ends with the error `paused` in the standard test's words, as soon as the write
/// after the stop is done, and no result, so the stop is never reported as the slowest write
/// (`max_latency_us`) or a cliff. The test file is removed. (A process waiting for its drive
/// stops only once that write returns, up to a second here: 8 s leaves over 5 s stopped.)
fn a_stopped_run_is_paused_not_a_stall() -> Ran {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let drive = FakeDrive::builder(256 * MIB, Behaviour::Genuine)
        .mounted()
        .write_cache(WriteCache {
            fast_bytes: 0,
            slow_bytes_per_second: 4_000_000,
        })
        .build()?;
    let target = drive.mount_dir().expect("mounted");
    // 32 MiB at 4 MB/s: over 8 s of writing.
    let child = on_drive(&drive, "32m")
        .arg("--json")
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    // Stopped once its first write (4 MiB) has landed in the test file: inside the write
    // phase. (The run's folder holds small files of its own too.)
    let written = || {
        agnostics_testkit::test_files(target)
            .iter()
            .any(|f| std::fs::metadata(target.join(f)).is_ok_and(|m| m.len() >= 4 * MIB))
    };
    let start = Instant::now();
    while !written() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(written(), "the test never wrote");
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
    std::thread::sleep(Duration::from_secs(8));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).unwrap();
    let out = child.wait_with_output().unwrap();
    let doc = support::json(&out);
    assert_eq!(out.status.code(), Some(2), "{doc:#}");
    assert_eq!(doc["error"]["kind"], "paused", "{doc:#}");
    assert_eq!(doc["verdict"], "ERROR");
    let message = doc["error"]["message"].as_str().unwrap();
    let seconds: u64 = message
        .strip_prefix("the test was paused for ")
        .and_then(|m| {
            m.strip_suffix(" s during sustained-write: a paused test has not measured the drive")
        })
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{message}"));
    assert!(seconds >= 5, "{message}");
    assert_eq!(doc["runs"].as_array().unwrap().len(), 0, "{doc:#}");
    assert!(!doc.to_string().contains("max_latency_us"), "{doc:#}");
    assert!(agnostics_testkit::test_files(target).is_empty());
    Ok(())
}

/// A cap that is not a size of at least 8 MiB is refused before anything is written, in its
/// own words (what is wrong, which values are accepted), as bad input: exit status 2, error
/// kind `profile` as for the other refusals of this test, no run, nothing left in the folder.
fn a_bad_cap_is_refused_before_anything_is_written() -> Ran {
    for bad in ["banana", "0", "-5", "12q", "1k"] {
        let dir = support::scratch();
        let doc = Run::new()
            .profile("sustained")
            .target(dir.path())
            .env(MAX_ENV, bad)
            .expect_exit(2)
            .json();
        assert_eq!(doc["error"]["kind"], "profile", "{bad}: {doc:#}");
        assert_eq!(
            doc["error"]["message"],
            format!(
                "AGNOSTICS_SUSTAINED_MAX is set to “{bad}”, which is not a size the sustained \
                 write test can use"
            ),
            "{bad}"
        );
        assert_eq!(
            doc["error"]["hint"],
            "Set AGNOSTICS_SUSTAINED_MAX to a size of at least 8 MiB, such as 64m or 1g (more \
             than 4 GiB counts as 4 GiB), or unset it for the full test. Nothing was written.",
            "{bad}"
        );
        assert_eq!(doc["runs"].as_array().unwrap().len(), 0, "{bad}");
        assert_eq!(doc["verdict"], "ERROR", "{bad}");
        assert!(support::entries(dir.path()).is_empty(), "{bad}");
    }
    // In text: the same words on stderr, and no announcement of a test that does not run.
    let dir = support::scratch();
    let out = Run::new()
        .profile("sustained")
        .target(dir.path())
        .env(MAX_ENV, "banana")
        .expect_exit(2)
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("AGNOSTICS_SUSTAINED_MAX is set to “banana”, which is not a size"),
        "{stderr}"
    );
    assert!(!stderr.contains("stopped answering"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("Sustained write: writes at most"),
        "{stdout}"
    );
    assert!(support::entries(dir.path()).is_empty());
    // In the user's language (the catalogues the build compiled).
    for (language, message, hint) in [
        (
            "de",
            "AGNOSTICS_SUSTAINED_MAX ist auf „12q“ gesetzt; das ist keine Größe, die der \
             Dauerschreibtest verwenden kann",
            "Setzen Sie AGNOSTICS_SUSTAINED_MAX auf eine Größe von mindestens 8 MiB",
        ),
        (
            "ja",
            "AGNOSTICS_SUSTAINED_MAX は「12q」に設定されていますが、連続書き込みテストで使える\
             サイズではありません",
            "AGNOSTICS_SUSTAINED_MAX を 8 MiB 以上のサイズ",
        ),
    ] {
        let doc = Run::new()
            .profile("sustained")
            .target(dir.path())
            .env(MAX_ENV, "12q")
            .env("LANGUAGE", language)
            .expect_exit(2)
            .json();
        assert_eq!(doc["error"]["kind"], "profile", "{language}");
        assert_eq!(doc["error"]["message"], message, "{language}");
        let got = doc["error"]["hint"].as_str().unwrap();
        assert!(got.starts_with(hint), "{language}: {got}");
        assert!(support::entries(dir.path()).is_empty(), "{language}");
    }
    Ok(())
}

agnostics_testkit::test_list!(
    the_cliff_is_where_the_cache_fills,
    blocks_a_drive_lost_fail_the_run,
    the_text_says_what_it_will_do_and_what_it_found,
    a_bad_cap_is_refused_before_anything_is_written,
    a_stopped_run_is_paused_not_a_stall,
    fio_finds_the_cliff_where_the_cache_fills,
    fio_counts_exactly_the_blocks_a_drive_lost,
    ctrl_c_during_fio_leaves_nothing,
);
