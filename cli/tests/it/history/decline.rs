//! A throttled card whose write speed falls is a decline with advice; a small dip is not.

use super::*;

/// A profile that only writes: 24 MiB in 1 MiB blocks, so the throttle sets the figure.
pub(crate) const SEQ_WRITE_ONLY: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=4
size=24m
end_fsync=1

[seq-write]
rw=write
bs=1m
stonewall
";

/// Writes at `bps`, nothing else limited.
pub(crate) fn writes_at(bps: u64) -> Throttle {
    Throttle {
        write_bps: bps,
        ..Throttle::default()
    }
}

/// `run --runs 1` of [`SEQ_WRITE_ONLY`] on `disk` rethrottled to write at `bps`; the output.
pub(crate) fn throttled_run(
    env: &Env,
    disk: &mut ThrottledDisk,
    sysfs: &Path,
    bps: u64,
    json: bool,
) -> Output {
    disk.rethrottle(writes_at(bps));
    let run = Run::inside(disk)
        .env("AGNOSTICS_HISTORY", &env.history)
        .env("AGNOSTICS_LOG", env.dir.path().join("rpdiags.txt"))
        .runs(1)
        .target(disk.path())
        .profile(&env.profile)
        .arg("--sysfs-root")
        .arg(sysfs);
    if json {
        run.arg("--json").output()
    } else {
        run.output()
    }
}

/// The figure of `phase` in the first run of a run's JSON document: bytes per second, f64.
pub(crate) fn bw_of(doc: &Value, phase: &str) -> f64 {
    doc["runs"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == phase)
        .unwrap_or_else(|| panic!("no {phase} in {doc:#}"))["bw_bytes"]
        .as_f64()
        .unwrap()
}

/// A copy of the run `first` (its seq-write figure `f1`) as a run of the same drive and profile
/// started now, its seq-write figure and check 1.5 % down (less, where that would cross a
/// target the first run met), and the factor.
fn dip_of(first: &Value, f1: f64) -> (Value, f64) {
    let mut second = first.clone();
    second.as_object_mut().unwrap().remove("trend");
    second["run_id"] = Value::from("5ec0d000000000000000000000000001");
    let now = std::process::Command::new("date")
        .arg("--iso-8601=seconds")
        .output()
        .unwrap();
    second["started"] = Value::from(stdout(&now).trim());
    // At most 1.5 % down, but never across a target the first run met (a busy machine can
    // measure just above it): then the dip's verdicts stay the first run's, and an import
    // whose checks disagree with their figures would be refused.
    let dip_factor = second["runs"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "seq-write")
        .filter_map(|c| Some((c["value"].as_f64()?, c["target"].as_f64()?)))
        .filter(|(value, target)| value >= target)
        .map(|(value, target)| target / value * (1.0 + 1e-9))
        .fold(0.985_f64, f64::max)
        .min(1.0);
    for p in second["runs"][0]["phases"].as_array_mut().unwrap() {
        if p["name"] == "seq-write" {
            p["bw_bytes"] = Value::from(f1 * dip_factor);
        }
    }
    // Its checks say the same figure.
    for c in second["runs"][0]["checks"].as_array_mut().unwrap() {
        if c["name"] == "seq-write" {
            if let Some(v) = c["value"].as_f64() {
                c["value"] = Value::from(v * dip_factor);
            }
        }
    }
    (second, dip_factor)
}

/// `compare` of the runs `ids` (newest first: the last, the dip, the first): the first and the
/// dip differ by exactly `dip_factor` (the first's seq-write figure is `f1`); the first and the
/// last by the fall to at most `low` B/s, under the same link's ceiling, in JSON, text and
/// Markdown.
fn assert_compared(env: &Env, ids: &[String], f1: f64, dip_factor: f64, low: u64) {
    // The first and the dip compared: exactly the dip; the first and the last: the fall,
    // under the same link's ceiling.
    let figure = |left: &str, right: &str| {
        let cmp: Value =
            serde_json::from_str(&env.ok(&["compare", left, right, "--json"])).unwrap();
        let seq = cmp["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["phase"] == "seq-write")
            .unwrap()
            .clone();
        (cmp, seq)
    };
    let (_, dip) = figure(&ids[2], &ids[1]);
    assert_eq!(dip["left"].as_f64(), Some(f1), "{dip}");
    assert!(
        (dip["ratio"].as_f64().unwrap() - dip_factor).abs() < 1e-9,
        "{dip}"
    );
    let (before, after) = (&ids[2], &ids[0]);
    let (cmp, seq) = figure(before, after);
    let (left, right) = (
        seq["left"].as_f64().unwrap(),
        seq["right"].as_f64().unwrap(),
    );
    assert!(right <= low as f64 * 1.1, "{seq}");
    let ratio = seq["ratio"].as_f64().unwrap();
    assert!((ratio - right / left).abs() < 1e-9 && ratio < 0.8, "{seq}");
    for side in ["left", "right"] {
        let link = &cmp[side]["link"];
        assert!(
            (link["bytes_per_second"].as_f64().unwrap() - 25e6).abs() < 1e6,
            "{side}: {link}"
        );
    }
    let text = env.ok(&["compare", before, after]);
    println!("{text}");
    assert!(text.contains("×0."), "{text}");
    assert!(text.contains("Left link:") && text.contains("25"), "{text}");
    let md = env.ok(&["compare", before, after, "--markdown"]);
    assert!(md.contains("25"), "{md}");
}

/// A throttled card's write speed falling to a sixth (12 MiB/s, then a sixth of what that
/// measured) is a decline with advice, and a 1.5 % dip between the two is the same. The
/// throttle only bounds a measurement from above (a busy machine measures less), so the
/// figures the assertions weigh are the ones measured, read back from the documents: the dip
/// is an imported copy of the first run with its figure times 0.985 (less, where that would
/// cross a target the first run met), and the last run's
/// throttle is a sixth of the first run's figure, so it measures at most 0.18 of it.
pub(crate) fn a_write_speed_fallen_to_a_sixth_is_a_decline_and_a_small_dip_is_not() -> Ran {
    ThrottledDisk::require()?;
    require_root("a loop device")?;
    let env = Env::new()?;
    std::fs::write(&env.profile, SEQ_WRITE_ONLY).unwrap();
    const MIB: u64 = 1 << 20;
    let mut disk = ThrottledDisk::new(96, writes_at(12 * MIB));
    // An SD card in high-speed mode (at most 25 MB/s: above both throttles).
    let ios = agnostics_testkit::ios_fixture("ios-sd-high-speed");
    let sysfs = card_behind_host(&env.dir.path().join("sysfs-loop"), disk.path(), Some(&ios));

    let first = support::json(&throttled_run(&env, &mut disk, &sysfs, 12 * MIB, true));
    assert!(first["error"].is_null(), "{first:#}");
    assert!(first["trend"].is_null());
    let f1 = bw_of(&first, "seq-write");
    agnostics_testkit::profiles::assert_paced_by_throttle("seq-write B/s", f1, (12 * MIB) as f64);

    // A 1.5 % dip, stored as a run of the same drive and profile started since.
    let (second, dip_factor) = dip_of(&first, f1);
    let file = env.dir.path().join("dip.json");
    std::fs::write(&file, serde_json::to_vec(&second).unwrap()).unwrap();
    env.ok(&["history", "import", file.to_str().unwrap()]);

    // Then a sixth of that: down by far more than the noise floor, with the advice.
    let low = (f1 / 6.0) as u64;
    let out = throttled_run(&env, &mut disk, &sysfs, low, false);
    let text = stdout(&out);
    println!("{text}");
    let line = text
        .lines()
        .find(|l| l.contains("Sequential write") && l.contains("down"))
        .unwrap_or_else(|| panic!("no decline line:\n{text}\n{}", stderr(&out)));
    assert!(line.contains("(2 earlier runs)"), "{line}");
    assert!(
        text.to_lowercase().contains("back up"),
        "no advice:\n{text}"
    );
    let ids = env.run_ids();
    assert_eq!(ids.len(), 3);

    assert_compared(&env, &ids, f1, dip_factor, low);
    drop(disk);
    Ok(())
}
