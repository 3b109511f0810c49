//! What the drive itself did: every phase of both engines carries the block layer's counters
//! of the filesystem's device (`device_io`), they account for the bytes the engine moved on a
//! real loop device, `--verbose` shows them, and a filesystem that answers reads from memory
//! through a layer no pre-flight check names (ext4 journalling data, which turns O_DIRECT
//! into buffered I/O) is caught by those counters alone: ERROR `cached`, not graded.

use crate::support;

use std::path::Path;
use std::process::Output;

use agnostics_testkit::{require_program, require_root, LoopFs, Ran};
use support::{json, small_profile, Run};

/// `agnostics-cli run` with `args`, then `--target TARGET --profile PROFILE`, run to the end.
fn run(args: &[&str], target: &Path, profile: &Path) -> Output {
    Run::new()
        .args(args)
        .target(target)
        .profile(profile)
        .output()
}

/// The kernel's name of a loop device given as `/dev/loopN`.
fn kernel_name(device: &str) -> &str {
    device.rsplit('/').next().unwrap()
}

fn counted_on_a_loop_device(engine: &str) -> Ran {
    require_root("a loop device")?;
    if engine == "fio" {
        require_program("fio")?;
    }
    let fs = LoopFs::new(96);
    let dir = support::scratch();
    let profile = small_profile(dir.path(), "8m");
    let doc = json(&run(
        &["--json", "--runs", "1", "--engine", engine],
        &fs.mount,
        &profile,
    ));
    assert!(doc["error"].is_null(), "{doc:#}");
    let phases = doc["runs"][0]["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 5);
    for p in phases {
        let io = &p["device_io"];
        assert_eq!(io["device"], kernel_name(&fs.device), "{p:#}");
        let bytes = p["bytes"].as_u64().unwrap();
        assert!(bytes > 0, "{p:#}");
        // Nothing else uses this device and O_DIRECT requests reach it: it moved at least
        // what the engine did, in one request or more.
        let write = p["rw"].as_str().unwrap().contains("write");
        let (moved, requests) = if write {
            (io["written_bytes"].as_u64(), io["writes"].as_u64())
        } else {
            (io["read_bytes"].as_u64(), io["reads"].as_u64())
        };
        let (moved, requests) = (moved.unwrap(), requests.unwrap());
        assert!(moved >= bytes, "{p:#}");
        assert!(requests >= 1, "{p:#}");
        if !write {
            assert_eq!(
                io["written_bytes"].as_u64().map(|w| w < bytes),
                Some(true),
                "{p:#}"
            );
        }
        match engine {
            "fio" => assert!(io.get("in_flight_max").is_none(), "{p:#}"),
            _ => assert!(io["in_flight_max"].is_u64(), "{p:#}"),
        }
    }
    // The hooks' files fio wrote beside the test file went with it.
    assert!(agnostics_testkit::test_files(&fs.mount).is_empty());
    assert_eq!(support::entries(&fs.mount), ["lost+found"]);
    Ok(())
}

fn native_phases_carry_the_drives_own_counters() -> Ran {
    counted_on_a_loop_device("native")
}

fn fio_phases_carry_the_drives_own_counters() -> Ran {
    counted_on_a_loop_device("fio")
}

/// `--verbose` shows each phase's counters under its row.
fn verbose_text_shows_what_the_drive_did() -> Ran {
    require_root("a loop device")?;
    let fs = LoopFs::new(96);
    let dir = support::scratch();
    let profile = small_profile(dir.path(), "4m");
    let out = run(&["--runs", "1", "--verbose"], &fs.mount, &profile);
    let text = String::from_utf8_lossy(&out.stdout);
    let name = kernel_name(&fs.device);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(&format!("{name}: read ")))
        .collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(
        lines[2].contains("read 4.0 MiB in") && lines[2].contains("in flight"),
        "{text}"
    );
    // And without it, none.
    let out = run(&["--runs", "1"], &fs.mount, &profile);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains(&format!("{name}: read ")), "{text}");
    Ok(())
}

/// ext4 with `data=journal` takes O_DIRECT but does buffered I/O, so the reads after the
/// writes come from the page cache. No pre-flight check names it (the loop device has direct
/// I/O on); the counters show the drive read almost nothing, and the test is ERROR `cached`.
fn reads_a_journalling_ext4_answers_from_memory_are_cached_by_the_counters() -> Ran {
    require_root("a loop device")?;
    let fs = LoopFs::builder(96).options("data=journal").mount();
    let dir = support::scratch();
    let profile = small_profile(dir.path(), "8m");
    let out = run(&["--json", "--runs", "3"], &fs.mount, &profile);
    assert_eq!(out.status.code(), Some(2));
    let doc = json(&out);
    assert_eq!(doc["error"]["kind"], "cached", "{doc:#}");
    let message = doc["error"]["message"].as_str().unwrap();
    let name = kernel_name(&fs.device);
    assert!(
        message.starts_with(&format!("seq-read: {name} read "))
            && message.contains("of the 8.0 MiB"),
        "{message}"
    );
    // One run only (no run could pass), shown and not graded.
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let checks = runs[0]["checks"].as_array().unwrap();
    assert!(!checks.is_empty());
    assert!(
        checks
            .iter()
            .all(|c| c["verdict"] == "ERROR" && c["reason"].as_str() == Some(message)),
        "{doc:#}"
    );
    assert_eq!(doc["verdict"], "ERROR");
    let read = &runs[0]["phases"][2];
    assert!(
        read["device_io"]["read_bytes"].as_u64().unwrap() * 10
            < read["bytes"].as_u64().unwrap() * 9,
        "{read:#}"
    );
    Ok(())
}

agnostics_testkit::test_list!(
    native_phases_carry_the_drives_own_counters,
    fio_phases_carry_the_drives_own_counters,
    verbose_text_shows_what_the_drive_did,
    reads_a_journalling_ext4_answers_from_memory_are_cached_by_the_counters,
);
