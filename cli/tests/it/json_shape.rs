//! The `--json` document of a standard run keeps its shape: the set of its field paths (object
//! keys, recursively; `[]` for the elements of an array, the union over all of them) on a small
//! real run in `/var/tmp` (ext4 here, on a block device: every phase carries the drive's own
//! counters), with each engine, is the pinned set below. A field added, renamed or removed
//! changes the set and fails this test.

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;

use agnostics_testkit::{require, require_program, Ran};
use support::{json, small_profile, Run};

/// Every field path of the document of a run that measured (error `null`).
const SHAPE: &[&str] = &[
    "a2_verdict",
    "advice",
    "advice[].kind",
    "advice[].transport",
    "card",
    "card.capacity_bytes",
    "card.cid",
    "card.command_queueing",
    "card.csd",
    "card.device",
    "card.emmc_wear",
    "card.kind",
    "card.link",
    "card.model",
    "card.nvme",
    "card.partitions",
    "card.registers",
    "card.registers.cid",
    "card.registers.csd",
    "card.registers.scr",
    "card.registers.ssr",
    "card.scr",
    "card.size_bytes",
    "card.ssr",
    "card.sysfs",
    "card.usb",
    "card.warnings",
    "drive",
    "drive.basis",
    "drive.id",
    "engine",
    "error",
    "findings",
    "io_path",
    "measured_with",
    "measured_with.cpu_governor",
    "measured_with.engine",
    "measured_with.fio_version",
    "measured_with.kernel",
    "measured_with.pi_model",
    "measured_with.profile_hash",
    "measured_with.profile_name",
    "measured_with.program_version",
    "measured_with.sd_bus_mode",
    "measured_with.soc_temp_millicelsius",
    "measured_with.throttled",
    "profile",
    "profile.name",
    "profile.size_bytes",
    "profile.source",
    "program",
    "run_id",
    "runs",
    "runs[].a2_verdict",
    "runs[].checks",
    "runs[].checks[].metric",
    "runs[].checks[].name",
    "runs[].checks[].reason",
    "runs[].checks[].standard",
    "runs[].checks[].target",
    "runs[].checks[].unit",
    "runs[].checks[].value",
    "runs[].checks[].verdict",
    "runs[].phases",
    "runs[].phases[].bs",
    "runs[].phases[].bw_bytes",
    "runs[].phases[].bytes",
    "runs[].phases[].device_io",
    "runs[].phases[].device_io.device",
    "runs[].phases[].device_io.in_flight_max",
    "runs[].phases[].device_io.read_bytes",
    "runs[].phases[].device_io.reads",
    "runs[].phases[].device_io.writes",
    "runs[].phases[].device_io.written_bytes",
    "runs[].phases[].iodepth",
    "runs[].phases[].iops",
    "runs[].phases[].ios",
    "runs[].phases[].lat_us",
    "runs[].phases[].lat_us.max",
    "runs[].phases[].lat_us.p50",
    "runs[].phases[].lat_us.p99",
    "runs[].phases[].name",
    "runs[].phases[].rw",
    "runs[].phases[].samples",
    "runs[].phases[].samples[].bw_bytes",
    "runs[].phases[].samples[].iops",
    "runs[].phases[].samples[].t_s",
    "runs[].phases[].seconds",
    "runs[].phases[].stopped_by_runtime",
    "runs[].run",
    "runs[].verdict",
    "schema_version",
    "sd_graded",
    "started",
    "target",
    "target.device",
    "target.free_bytes",
    "target.fs_type",
    "target.model",
    "target.partition",
    "target.path",
    "target.transport",
    "trend",
    "verdict",
    "warnings",
];

/// The field paths of `v` under `prefix`, added to `out`.
fn paths(v: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                out.insert(path.clone());
                paths(value, &path, out);
            }
        }
        serde_json::Value::Array(items) => {
            let path = format!("{prefix}[]");
            for item in items {
                paths(item, &path, out);
            }
        }
        _ => {}
    }
}

/// Runs the small profile with `engine` in a fresh folder under `/var/tmp` and checks the
/// document's field paths against [`SHAPE`].
fn check_engine(engine: &str) -> Ran {
    let base = Path::new("/var/tmp");
    require(base.is_dir(), "needs /var/tmp")?;
    let dir = agnostics_testkit::scratch_dir_in(base);
    let profile = small_profile(dir.path(), "8m");
    let out = Run::new()
        .args(["--json", "--runs", "1", "--engine", engine])
        .target(dir.path())
        .profile(&profile)
        .output();
    let v = json(&out);
    assert!(v["error"].is_null(), "{v}");
    let mut found = BTreeSet::new();
    paths(&v, "", &mut found);
    // A drive nothing identifies (a disk even root may not open, in a container) is null.
    let pinned: BTreeSet<String> = SHAPE
        .iter()
        .filter(|p| !(v["drive"].is_null() && p.starts_with("drive.")))
        // fio cannot be watched while a job runs: its phases have no in-flight maximum.
        .filter(|p| !(engine == "fio" && p.ends_with("device_io.in_flight_max")))
        .map(|s| s.to_string())
        .collect();
    let added: Vec<_> = found.difference(&pinned).collect();
    let removed: Vec<_> = pinned.difference(&found).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "the {engine} document's shape changed:\n  new: {added:?}\n  gone: {removed:?}\nall:\n{}",
        found
            .iter()
            .map(|p| format!("    \"{p}\",\n"))
            .collect::<String>()
    );
    // The spellings of the typed fields, as scripts read them.
    let rw: Vec<_> = v["runs"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["rw"].as_str().unwrap())
        .collect();
    assert_eq!(rw, ["write", "write", "read", "randwrite", "randread"]);
    let io_path = v["io_path"].as_str().unwrap();
    match engine {
        "fio" => assert_eq!(io_path, "fio libaio"),
        _ => assert!(io_path == "io_uring" || io_path == "threads", "{io_path}"),
    }
    if !v["card"].is_null() {
        assert_eq!(v["card"]["kind"], v["target"]["transport"], "{v}");
    }
    assert!(agnostics_testkit::test_files(dir.path()).is_empty());
    Ok(())
}

fn native_run_document_keeps_its_shape() -> Ran {
    check_engine("native")
}

fn fio_run_document_keeps_its_shape() -> Ran {
    require_program("fio")?;
    check_engine("fio")
}

/// A profile that cannot be read is refused with a document that has every top-level field of
/// a measured one (no target, card or runs), error kind `profile`, and exit status 2.
fn a_refused_profile_gives_a_document_of_the_same_fields() {
    let dir = agnostics_testkit::scratch_dir_in(Path::new(env!("CARGO_TARGET_TMPDIR")));
    let profile = dir.path().join("bad.fio");
    std::fs::write(&profile, "[a]\nsize=1m\nverify=md5\n").unwrap();
    let out = Run::new()
        .args(["--json"])
        .target(dir.path())
        .profile(&profile)
        .output();
    assert_eq!(out.status.code(), Some(2));
    let v = json(&out);
    let keys: BTreeSet<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    let top: BTreeSet<&str> = SHAPE
        .iter()
        .copied()
        .filter(|p| !p.contains(['.', '[']))
        .collect();
    assert_eq!(keys, top);
    assert_eq!(v["verdict"], "ERROR");
    assert_eq!(v["a2_verdict"], "ERROR");
    assert_eq!(v["error"]["kind"], "profile");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("bad.fio:3: verify"));
    assert!(!v["error"]["hint"].as_str().unwrap().is_empty());
    assert_eq!(v["advice"][0]["kind"], "fix_the_profile");
    assert_eq!(v["profile"]["name"], "bad");
    assert_eq!(v["io_path"], "");
    assert!(v["runs"].as_array().unwrap().is_empty());
    assert!(v["target"].is_null() && v["card"].is_null());
}

agnostics_testkit::test_list!(
    native_run_document_keeps_its_shape,
    fio_run_document_keeps_its_shape,
    a_refused_profile_gives_a_document_of_the_same_fields,
);
