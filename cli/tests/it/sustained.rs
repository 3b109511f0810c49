//! `agnostics-cli run --profile sustained`: on the testkit's fake drive with a write cache of
//! 16 MiB (full speed until then, held to 5 MB/s after), the cliff is found where the cache
//! fills, within one allocation unit, and the speed after it is no faster than the drive's slow
//! part; on a drive that loses a few blocks, the blocks that read back wrong fail the run. The
//! fake drives are FUSE files behind a loop device, which the program rightly cannot show to be
//! free of a cache: their tests end with the error `cached` (exit status 2) and every figure
//! still reported, and the run with lost blocks stays FAIL. On
//! a folder of this machine's disk, the text says what the test will do before it starts and
//! what it found; with `--engine fio` the test is refused with the reason. Every run writes
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
    assert!(
        out.contains("Speed markings this card kept up with: "),
        "{out}"
    );
    Ok(())
}

fn fio_is_refused_with_the_reason() -> Ran {
    let dir = support::scratch();
    let doc = Run::new()
        .profile("sustained")
        .target(dir.path())
        .engine("fio")
        .expect_exit(2)
        .json();
    assert_eq!(doc["error"]["kind"], "profile");
    assert!(doc["error"]["message"]
        .as_str()
        .unwrap()
        .contains("needs the built-in engine"));
    assert_eq!(doc["runs"].as_array().unwrap().len(), 0);
    assert!(support::entries(dir.path()).is_empty());
    Ok(())
}

agnostics_testkit::test_list!(
    the_cliff_is_where_the_cache_fills,
    blocks_a_drive_lost_fail_the_run,
    the_text_says_what_it_will_do_and_what_it_found,
    fio_is_refused_with_the_reason,
);
