//! `agnostics-cli run --json` against a device whose speed is known by construction: a loop device
//! with ext4, throttled by a cgroup (v2 `io.max`, or v1 blkio) to 400 write IOPS, 1200 read IOPS
//! and 12 MiB/s of writes. With either engine, the JSON's phases must show no figure above its
//! limit (10 % over it at most; a busy machine measures less) and its A1 checks must be what the
//! figures give: FAIL (rand-4k-write), FAIL (rand-4k-read), and PASS (seq-write) at full speed.
//! Needs root, such a cgroup and fio; elsewhere the test is reported as ignored with the reason.

use crate::support;

use std::path::Path;

use agnostics_testkit::profiles::{
    assert_paced_by_throttle, READ_IOPS, THROTTLE, THROTTLED_PROFILE, WRITE_BPS, WRITE_IOPS,
};
use agnostics_testkit::{scratch_dir, ThrottledDisk};
use support::{entries, Run};

fn run_cli_in_group(
    disk: &ThrottledDisk,
    target: &Path,
    profile: &Path,
    engine: &str,
    log: &Path,
) -> (i32, serde_json::Value) {
    let out = Run::inside(disk)
        .env("AGNOSTICS_LOG", log)
        .env(
            "AGNOSTICS_HISTORY",
            log.with_file_name(format!("history-{engine}.sqlite3")),
        )
        .args(["--json", "--runs", "1"])
        .engine(engine)
        .target(target)
        .profile(profile)
        .output();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{engine}: stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), doc)
}

fn cli_measures_the_throttle_with_both_engines_and_fails_a1() -> agnostics_testkit::Ran {
    ThrottledDisk::require()?;
    agnostics_testkit::require_program("fio")?;
    let disk = ThrottledDisk::new(192, THROTTLE);
    let profile_dir = scratch_dir();
    let profile = profile_dir.path().join("throttled.fio");
    std::fs::write(&profile, THROTTLED_PROFILE).unwrap();
    for engine in ["native", "fio"] {
        let (code, doc) = run_cli_in_group(
            &disk,
            disk.path(),
            &profile,
            engine,
            &profile_dir.path().join("rpdiags.txt"),
        );
        assert!(doc["error"].is_null(), "{engine}: {}", doc["error"]);
        assert_eq!(doc["engine"], engine);
        let run = &doc["runs"][0];
        let phase = |name: &str| {
            run["phases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("{engine}: no phase {name}"))
                .clone()
        };
        let value = |name: &str, key: &str| phase(name)[key].as_f64().unwrap();
        eprintln!(
            "{engine}: seq-write {:.0} B/s, rand-4k-write {:.1} IOPS, rand-4k-read {:.1} IOPS",
            value("seq-write", "bw_bytes"),
            value("rand-4k-write", "iops"),
            value("rand-4k-read", "iops")
        );
        assert_paced_by_throttle(
            &format!("{engine} seq-write B/s"),
            value("seq-write", "bw_bytes"),
            WRITE_BPS as f64,
        );
        assert_paced_by_throttle(
            &format!("{engine} rand-4k-write IOPS"),
            value("rand-4k-write", "iops"),
            WRITE_IOPS as f64,
        );
        assert_paced_by_throttle(
            &format!("{engine} rand-4k-read IOPS"),
            value("rand-4k-read", "iops"),
            READ_IOPS as f64,
        );
        let a1 = |name: &str| {
            run["checks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == name && c["standard"] == "A1")
                .unwrap_or_else(|| panic!("{engine}: no A1 check of {name}"))["verdict"]
                .clone()
        };
        // PASS at full speed (12 MiB/s ≥ 10000 KiB/s); a busy machine may measure less, and
        // the verdict is then what the figure gives.
        let seq = value("seq-write", "bw_bytes") / 1024.0;
        let expected = if seq >= 10_000.0 { "PASS" } else { "FAIL" };
        assert_eq!(a1("seq-write"), expected, "{engine}: {seq} KiB/s");
        assert_eq!(a1("rand-4k-write"), "FAIL", "{engine}");
        assert_eq!(a1("rand-4k-read"), "FAIL", "{engine}");
        assert_eq!(doc["verdict"], "FAIL", "{engine}");
        assert_eq!(code, 1, "{engine}: exit status of a FAIL");
        let left: Vec<String> = entries(disk.path())
            .into_iter()
            .filter(|n| n.starts_with(".agnostics-test"))
            .collect();
        assert!(left.is_empty(), "{engine} left {left:?}");
    }
    drop(disk);
    Ok(())
}

agnostics_testkit::test_list!(cli_measures_the_throttle_with_both_engines_and_fails_a1,);
