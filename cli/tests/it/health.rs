//! `agnostics-cli health` on a real loop-mounted ext4 drive with a real SQLite history: no
//! history is unknown (exit 0); a newest run 40 % below the first is worn (exit 1) and one as
//! fast is healthy (exit 0); I/O and file-system errors logged about the drive are failing,
//! while messages from programs and about other drives do not count; a capacity check that
//! found the drive fake makes it failing whatever its speed; the real `/dev/kmsg` is read;
//! a bad device name is an error (exit 2). Needs root (loop devices); run under
//! `flock /tmp/agnostics-drive.lock` (the speed runs measure the drive).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use agnostics_core::capacity::CapacityReport;
use agnostics_core::history::History;
use agnostics_core::report::Report;
use agnostics_testkit::{require_root, LoopFs, Ran};
use serde_json::Value;

/// A test drive (loop-mounted ext4, 256 MiB, no reserved blocks: room for a capacity
/// check), a history file and a scratch folder.
struct Env {
    fs: LoopFs,
    history: PathBuf,
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Result<Env, agnostics_testkit::Skip> {
        require_root("a loop device")?;
        Ok(Env {
            fs: LoopFs::builder(256).no_reserved_blocks().mount(),
            history: support::fresh_history(),
            dir: support::scratch(),
        })
    }

    /// The loop device's name, `loopN`.
    fn disk(&self) -> String {
        self.fs.device.trim_start_matches("/dev/").to_owned()
    }

    /// A kernel log file holding `messages` as kernel records (priority 3), and `extra`
    /// records as they are (`PRIORITY,SEQ,TIME,-;MESSAGE`).
    fn kernel_log(&self, messages: &[String], extra: &[String]) -> PathBuf {
        let mut text = String::from("6,0,0,-;Linux version 6.12.25+rpt-rpi-2712\n");
        for (i, m) in messages.iter().enumerate() {
            text.push_str(&format!(
                "3,{},{},-;{m}\n SUBSYSTEM=block\n",
                i + 1,
                1000 * i
            ));
        }
        for e in extra {
            text.push_str(e);
            text.push('\n');
        }
        let path = self
            .dir
            .path()
            .join(format!("kmsg-{}", messages.len() + extra.len()));
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `health --target MOUNT ARGS` with the history and the kernel log `log`.
    fn health(&self, log: Option<&Path>, args: &[&str]) -> Output {
        let mut c = support::cli();
        c.env("AGNOSTICS_HISTORY", &self.history)
            .arg("health")
            .arg("--target")
            .arg(&self.fs.mount)
            .args(args);
        if let Some(l) = log {
            c.arg("--kernel-log").arg(l);
        }
        c.output().expect("agnostics-cli runs")
    }

    /// A real one-run test of the drive (small profile, not recorded): its JSON document.
    fn measured(&self) -> Value {
        let profile = support::small_profile(self.dir.path(), "4m");
        let target = self.fs.mount.join("t");
        std::fs::create_dir_all(&target).unwrap();
        let out = support::cli()
            .args(["run", "--runs", "1", "--json", "--no-history", "--target"])
            .arg(&target)
            .arg("--profile")
            .arg(&profile)
            .output()
            .unwrap();
        let doc = support::json(&out);
        assert!(doc["drive"]["id"].is_string(), "{doc:#}");
        doc
    }

    /// Records `doc` as a run with id `id`, started `started`, its seq-write bandwidth and
    /// rand-4k-write IOPS multiplied by `factor`.
    fn record(&self, doc: &Value, id: &str, started: &str, factor: f64) {
        let mut d = doc.clone();
        d.as_object_mut().unwrap().remove("trend");
        d["run_id"] = Value::from(id);
        d["started"] = Value::from(started);
        for p in d["runs"][0]["phases"].as_array_mut().unwrap() {
            if p["name"] == "seq-write" {
                p["bw_bytes"] = Value::from(p["bw_bytes"].as_f64().unwrap() * factor);
            }
            if p["name"] == "rand-4k-write" {
                p["iops"] = Value::from(p["iops"].as_f64().unwrap() * factor);
            }
        }
        let report: Report = serde_json::from_value(d).unwrap();
        History::open(&self.history)
            .unwrap()
            .record(&report)
            .unwrap();
    }
}

/// A clean kernel log: one message about another drive.
fn clean(env: &Env) -> PathBuf {
    env.kernel_log(
        &[
            "I/O error, dev loop999, sector 0 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2"
                .into(),
        ],
        &[],
    )
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const FIRST: &str = "2026-03-02T10:00:00+00:00";
const LATEST: &str = "2026-12-01T10:00:00+00:00";

fn no_history_is_unknown() -> Ran {
    let env = Env::new()?;
    let log = clean(&env);
    let out = env.health(Some(&log), &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let j = support::json(&out);
    assert_eq!(j["verdict"], "unknown");
    assert_eq!(j["device"], env.disk().as_str());
    assert_eq!(j["sd_health"]["status"], "no_report");
    assert_eq!(j["history_runs"], 0);
    assert_eq!(j["trend"], Value::Null);
    assert_eq!(j["found_fake"], Value::Null);
    assert_eq!(j["kernel_log"]["readable"], true);
    assert_eq!(j["kernel_log"]["messages"], 2);
    assert_eq!(j["kernel_log"]["from_boot"], true);
    assert_eq!(j["kernel_log"]["counts"]["io_errors"], 0);
    assert_eq!(j["findings"], serde_json::json!([]));
    assert!(j["drive"]["id"].is_string());
    let text = stdout(&env.health(Some(&log), &[]));
    assert!(text.contains("this drive reports no health"), "{text}");
    assert!(
        text.contains("nothing about this drive since boot"),
        "{text}"
    );
    assert!(
        text.contains("no earlier test of this drive to compare with (0 in the history)"),
        "{text}"
    );
    assert!(text.contains("Health: unknown"), "{text}");
    Ok(())
}

fn forty_percent_below_the_first_run_is_worn() -> Ran {
    let env = Env::new()?;
    let doc = env.measured();
    env.record(&doc, "00000000000000000000000000000a01", FIRST, 1.0);
    env.record(&doc, "00000000000000000000000000000a02", LATEST, 0.6);
    let log = clean(&env);
    let out = env.health(Some(&log), &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let j = support::json(&out);
    assert_eq!(j["verdict"], "worn");
    assert_eq!(j["history_runs"], 2);
    assert_eq!(j["trend"]["latest_run"], "00000000000000000000000000000a02");
    assert_eq!(
        j["trend"]["first_runs"],
        serde_json::json!(["00000000000000000000000000000a01"])
    );
    let figures = j["trend"]["figures"].as_array().unwrap();
    assert_eq!(figures.len(), 2);
    assert_eq!(figures[0]["phase"], "rand-4k-write");
    assert_eq!(figures[0]["unit"], "iops");
    assert_eq!(figures[1]["phase"], "seq-write");
    for f in figures {
        assert!(
            (f["change_ratio"].as_f64().unwrap() + 0.4).abs() < 1e-9,
            "{f}"
        );
        assert_eq!(f["marked_decline"], true);
    }
    assert_eq!(j["findings"][0]["code"], "speed_decline");
    assert_eq!(j["findings"].as_array().unwrap().len(), 1);
    let text = stdout(&env.health(Some(&log), &[]));
    assert!(
        text.contains("Random 4K write: 40 % below this drive's first tests (2026-03-02)"),
        "{text}"
    );
    assert!(text.contains("Sequential write: 40 % below"), "{text}");
    assert!(text.contains("Health: worn"), "{text}");
    assert!(
        text.contains("Back up what is on it now and plan to replace it"),
        "{text}"
    );
    Ok(())
}

fn as_fast_as_the_first_run_is_healthy() -> Ran {
    let env = Env::new()?;
    let doc = env.measured();
    env.record(&doc, "00000000000000000000000000000b01", FIRST, 1.0);
    env.record(&doc, "00000000000000000000000000000b02", LATEST, 0.9);
    let out = env.health(Some(&clean(&env)), &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let j = support::json(&out);
    assert_eq!(j["verdict"], "healthy");
    assert_eq!(j["findings"], serde_json::json!([]));
    assert!((j["trend"]["figures"][0]["change_ratio"].as_f64().unwrap() + 0.1).abs() < 1e-9);
    Ok(())
}

fn data_errors_in_the_kernel_log_are_failing() -> Ran {
    let env = Env::new()?;
    let disk = env.disk();
    let log = env.kernel_log(
        &[
            format!("I/O error, dev {disk}, sector 2048 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 2"),
            format!("EXT4-fs error (device {disk}): ext4_find_entry:1463: inode #2: comm ls: reading directory lblock 0"),
            format!("EXT4-fs ({disk}): Remounting filesystem read-only"),
            format!("Buffer I/O error on dev {disk}p1, logical block 9, async page read"),
            format!("I/O error, dev {disk}0, sector 0 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2"),
        ],
        // A program's message (user facility) about the drive does not count.
        &[format!("11,90,9000,-;I/O error, dev {disk}, sector 1 op 0x1:(WRITE) flags 0x0 phys_seg 1 prio class 2")],
    );
    let out = env.health(Some(&log), &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let j = support::json(&out);
    assert_eq!(j["verdict"], "failing");
    let c = &j["kernel_log"]["counts"];
    assert_eq!(c["io_errors"], 2, "{c}");
    assert_eq!(c["fs_errors"], 1);
    assert_eq!(c["read_only_remounts"], 1);
    assert_eq!(c["timeouts"], 0);
    assert_eq!(j["kernel_log"]["messages"], 6);
    assert_eq!(j["kernel_log"]["lines"].as_array().unwrap().len(), 4);
    assert_eq!(j["findings"][0]["code"], "data_errors");
    let text = stdout(&env.health(Some(&log), &[]));
    assert!(
        text.contains("(I/O errors: 2, file-system errors: 1, read-only remounts: 1)"),
        "{text}"
    );
    assert!(text.contains("Health: failing"), "{text}");
    Ok(())
}

fn an_earlier_medium_under_the_drives_name_is_not_counted() -> Ran {
    let env = Env::new()?;
    let disk = env.disk();
    let attach = format!("{disk}: detected capacity change from 0 to 131072");
    let log = env.kernel_log(
        &[
            format!("I/O error, dev {disk}, sector 2048 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 2"),
            format!("EXT4-fs ({disk}): Remounting filesystem read-only"),
            format!("{disk}: detected capacity change from 131072 to 0"),
            attach.clone(),
        ],
        &[],
    );
    let out = env.health(Some(&log), &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let j = support::json(&out);
    assert_eq!(j["verdict"], "unknown");
    assert_eq!(j["kernel_log"]["counted_from"], attach.as_str());
    assert_eq!(j["kernel_log"]["messages"], 5);
    assert_eq!(j["kernel_log"]["counts"]["io_errors"], 0);
    assert_eq!(j["kernel_log"]["counts"]["read_only_remounts"], 0);
    assert_eq!(j["findings"], serde_json::json!([]));
    let text = stdout(&env.health(Some(&log), &[]));
    assert!(
        text.contains("nothing about this drive since it appeared"),
        "{text}"
    );
    Ok(())
}

fn a_drive_found_fake_is_never_healthy() -> Ran {
    let env = Env::new()?;
    let doc = env.measured();
    env.record(&doc, "00000000000000000000000000000c01", FIRST, 1.0);
    env.record(&doc, "00000000000000000000000000000c02", LATEST, 1.0);
    // A real check of the drive (its verdict on so small a drive does not matter), stored as
    // having found it fake.
    let out = support::cli()
        .env("AGNOSTICS_RECOVERY_DIR", env.dir.path())
        .args([
            "capacity",
            "--json",
            "--no-history",
            "--spots",
            "4",
            "--target",
        ])
        .arg(&env.fs.mount)
        .output()
        .unwrap();
    let mut check = support::json(&out);
    assert!(check["identity"]["id"].is_string(), "{check:#}");
    check["verdict"] = Value::from("fake");
    let check: CapacityReport = serde_json::from_value(check).unwrap();
    History::open(&env.history)
        .unwrap()
        .record_capacity(&check)
        .unwrap();
    let out = env.health(Some(&clean(&env)), &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let j = support::json(&out);
    assert_eq!(j["verdict"], "failing");
    assert_eq!(j["found_fake"], check.check_id.as_str());
    assert_eq!(j["drive"], serde_json::to_value(&check.identity).unwrap());
    assert_eq!(j["findings"][0]["code"], "found_fake");
    Ok(())
}

fn the_real_kernel_log_is_read() -> Ran {
    let env = Env::new()?;
    let out = env.health(None, &["--json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stdout(&out));
    let j = support::json(&out);
    assert_eq!(j["kernel_log"]["source"], "/dev/kmsg");
    assert_eq!(j["kernel_log"]["readable"], true, "{j:#}");
    assert!(j["kernel_log"]["messages"].as_u64().unwrap() > 0);
    Ok(())
}

fn bad_devices_are_errors() {
    for (device, says) in [
        ("../etc", "is not a device name"),
        ("nosuchdisk9", "unknown device nosuchdisk9"),
    ] {
        let out = support::cli()
            .args(["health", "--json", "--device", device])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let j = support::json(&out);
        assert!(
            j["error"]["message"].as_str().unwrap().contains(says),
            "{j}"
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains(says));
    }
}

agnostics_testkit::test_list!(
    no_history_is_unknown,
    forty_percent_below_the_first_run_is_worn,
    as_fast_as_the_first_run_is_healthy,
    data_errors_in_the_kernel_log_are_failing,
    an_earlier_medium_under_the_drives_name_is_not_counted,
    a_drive_found_fake_is_never_healthy,
    the_real_kernel_log_is_read,
    bad_devices_are_errors
);
