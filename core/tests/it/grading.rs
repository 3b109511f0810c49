//! Figures that cannot be the drive's are shown, never graded: real runs of `sdtest::run` in a
//! scratch folder on this machine's disk, with fixture sysfs trees that put a layer answering
//! from memory under it (device-mapper over a loop device without direct I/O, md RAID over a
//! disk and a zram RAM disk, a network block device, a loop device from before direct-I/O
//! loops), against the same trees with direct layers, which are graded. Also: ZFS versions,
//! and the text report's whole numbers.

use std::fs;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use agnostics_core::profile::Profile;
use agnostics_core::report::{self, Report, RunReport};
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_core::target_dir::cache;
use agnostics_core::target_dir::device::maj_min;
use agnostics_core::verdict::Verdict;
use agnostics_testkit::scratch_dir;

/// The standard test's five phases at 8 MiB (1 MiB blocks, random phases of a second).
fn small() -> String {
    agnostics_testkit::profiles::small_standard("8m", "1m", 1)
}

/// A virtual block device `name` in the fixture tree, with `attrs` (`loop/dio`, …) and
/// `slaves` (names of other devices of the tree, real or virtual), as sysfs lays them out.
fn device(root: &Path, dir: &str, attrs: &[(&str, &str)], slaves: &[&str]) {
    let d = root.join(dir);
    for (k, v) in attrs {
        let file = d.join(k);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, format!("{v}\n")).unwrap();
    }
    fs::create_dir_all(d.join("slaves")).unwrap();
    for s in slaves {
        symlink(root.join("block").join(s), d.join("slaves").join(s)).unwrap();
    }
    let name = Path::new(dir).file_name().unwrap();
    fs::create_dir_all(root.join("block")).unwrap();
    symlink(&d, root.join("block").join(name)).unwrap();
}

/// Makes `dir`'s filesystem (its `st_dev`) the device `top` of the tree.
fn map(root: &Path, dir: &Path, top: &str) {
    let (major, minor) = maj_min(fs::metadata(dir).unwrap().dev());
    fs::create_dir_all(root.join("dev/block")).unwrap();
    symlink(
        root.join("block").join(top),
        root.join("dev/block").join(format!("{major}:{minor}")),
    )
    .unwrap();
}

fn run_in(target: &Path, sysfs: &Path) -> Report {
    let mut o = TestOptions::standard(target.to_path_buf());
    o.profile = Profile::parse(&small(), "small.fio", None).unwrap();
    o.runs = 3;
    o.sysfs_root = sysfs.to_path_buf();
    o.lock_dir =
        agnostics_testkit::private_lock_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    sdtest::run(&o, &AtomicBool::new(false), &|_| {})
}

/// The report is shown (one run, its phases and values) and graded nowhere.
fn assert_cached(r: &Report, needle: &str) {
    let e = r
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("no error: {r:#?}"));
    assert_eq!(e.kind.as_str(), "cached", "{e:?}");
    assert!(e.message.contains(needle), "{}", e.message);
    assert_eq!(r.verdict, Verdict::Error);
    assert_eq!(r.runs.len(), 1, "a cached run is not repeated");
    let run = &r.runs[0];
    assert_eq!(run.phases.len(), 5);
    assert_eq!(
        (run.verdict, run.a2_verdict),
        (Verdict::Error, Verdict::Error)
    );
    for c in &run.checks {
        assert_eq!(c.verdict, Verdict::Error, "{c:?}");
        assert!(c.value.is_some_and(|v| v > 0.0), "{c:?}");
        assert_eq!(c.reason.as_deref(), Some(e.message.as_str()));
    }
    let text = report::to_text(r);
    assert!(!text.contains("PASS"), "{text}");
    assert!(text.contains(&e.message), "{text}");
    println!("{}", e.message);
}

fn assert_graded(r: &Report) {
    assert_eq!(r.error, None, "{r:#?}");
    assert!(r.runs[0]
        .checks
        .iter()
        .all(|c| c.verdict != Verdict::Error && c.reason.is_none()));
}

fn device_mapper_over_a_loop_without_direct_io() {
    for (dio, cached) in [("0", true), ("1", false)] {
        let target = scratch_dir();
        let sysfs = scratch_dir();
        let root = sysfs.path();
        device(
            root,
            "devices/virtual/block/loop7",
            &[
                ("loop/dio", dio),
                ("loop/backing_file", "/srv/images/disk.img"),
            ],
            &[],
        );
        device(
            root,
            "devices/virtual/block/dm-0",
            &[("dm/name", "vg-root")],
            &["loop7"],
        );
        map(root, target.path(), "dm-0");
        let r = run_in(target.path(), root);
        assert_eq!(r.target.as_ref().unwrap().device.as_deref(), Some("loop7"));
        if cached {
            assert_cached(&r, "loop7 is a loop device without direct I/O");
            assert!(r.runs[0].checks[0]
                .reason
                .as_deref()
                .unwrap()
                .contains("/srv/images/disk.img"));
        } else {
            assert_graded(&r);
        }
    }
}

fn a_loop_device_from_before_direct_io_loops() {
    let target = scratch_dir();
    let sysfs = scratch_dir();
    device(
        sysfs.path(),
        "devices/virtual/block/loop3",
        &[("loop/backing_file", "/srv/disk.img")],
        &[],
    );
    map(sysfs.path(), target.path(), "loop3");
    assert_cached(&run_in(target.path(), sysfs.path()), "without direct I/O");
}

fn md_raid_over_a_disk_and_a_ram_disk() {
    let target = scratch_dir();
    let sysfs = scratch_dir();
    let root = sysfs.path();
    // The real disk comes first in the stack (so pre-flight sees a disk, not memory).
    device(
        root,
        "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sdb",
        &[],
        &[],
    );
    device(
        root,
        "devices/virtual/block/zram0",
        &[("disksize", "1073741824")],
        &[],
    );
    device(
        root,
        "devices/virtual/block/md0",
        &[("md/level", "raid1")],
        &["sdb", "zram0"],
    );
    map(root, target.path(), "md0");
    let r = run_in(target.path(), root);
    assert_eq!(r.target.as_ref().unwrap().device.as_deref(), Some("sdb"));
    assert_cached(&r, "zram0 is a RAM disk");
}

fn a_loop_over_a_ram_disk_node() -> agnostics_testkit::Ran {
    let node = Path::new("/dev/zram0");
    agnostics_testkit::require_path(node, "a RAM disk device node")?;
    let rdev = fs::metadata(node).unwrap().rdev();
    let target = scratch_dir();
    let sysfs = scratch_dir();
    let root = sysfs.path();
    device(root, "devices/virtual/block/zram0", &[], &[]);
    let (major, minor) = maj_min(rdev);
    fs::create_dir_all(root.join("dev/block")).unwrap();
    symlink(
        root.join("block/zram0"),
        root.join("dev/block").join(format!("{major}:{minor}")),
    )
    .unwrap();
    device(
        root,
        "devices/virtual/block/loop9",
        &[("loop/dio", "1"), ("loop/backing_file", "/dev/zram0")],
        &[],
    );
    map(root, target.path(), "loop9");
    assert_cached(&run_in(target.path(), root), "backing file /dev/zram0");
    Ok(())
}

fn a_network_block_device() {
    let target = scratch_dir();
    let sysfs = scratch_dir();
    device(sysfs.path(), "devices/virtual/block/nbd0", &[], &[]);
    map(sysfs.path(), target.path(), "nbd0");
    assert_cached(
        &run_in(target.path(), sysfs.path()),
        "nbd0 is a network block device",
    );
}

fn a_plain_disk_is_graded() {
    let target = scratch_dir();
    let sysfs = scratch_dir();
    device(
        sysfs.path(),
        "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sdb",
        &[],
        &[],
    );
    map(sysfs.path(), target.path(), "sdb");
    assert_graded(&run_in(target.path(), sysfs.path()));
}

fn zfs_before_2_3_ignores_direct_io() {
    let sysfs = scratch_dir();
    let version = sysfs.path().join("module/zfs/version");
    assert!(
        cache::fs_reason("zfs", sysfs.path()).is_some(),
        "unknown version"
    );
    fs::create_dir_all(version.parent().unwrap()).unwrap();
    fs::write(&version, "2.2.2-0ubuntu9.1\n").unwrap();
    let why = cache::fs_reason("zfs", sysfs.path()).unwrap();
    assert!(why.contains("2.2.2-0ubuntu9.1"), "{why}");
    fs::write(&version, "2.3.1-1\n").unwrap();
    assert_eq!(cache::fs_reason("zfs", sysfs.path()), None);
    for fuse_or_network in ["fuseblk", "fuse.sshfs", "nfs4", "cifs", "9p", "virtiofs"] {
        assert!(cache::fs_reason(fuse_or_network, sysfs.path()).is_some());
    }
    assert_eq!(cache::fs_reason("ext4", sysfs.path()), None);
}

fn compat_lines_and_table_round_the_same_way() {
    use agnostics_core::profile::Rw;
    let phase = |name: &str, rw: Rw, bs: u64, bw: f64, iops: f64| {
        agnostics_core::sample::phase(name)
            .rw(rw)
            .bs(bs)
            .ios(100)
            .bytes(100)
            .bw_bytes(bw)
            .iops(iops)
            .build()
    };
    let run = RunReport::grade(
        1,
        vec![
            phase("seq-write", Rw::Write, 1 << 20, 9_999.6 * 1024.0, 9.8),
            phase("rand-4k-write", Rw::RandWrite, 4096, 412.7 * 4096.0, 412.7),
            phase("rand-4k-read", Rw::RandRead, 4096, 1499.9 * 4096.0, 1499.9),
        ],
    );
    let lines = report::compat_lines(&run);
    assert_eq!(
        lines[0],
        "Sequential write speed 9999 KB/sec (target 10000) - FAIL"
    );
    assert_eq!(lines[1], "Random write speed 412 IOPS (target 500) - FAIL");
    assert_eq!(lines[2], "Random read speed 1499 IOPS (target 1500) - FAIL");
    assert_eq!(agnostics_core::figure::whole(412.7), 412.0);
    // The text report's table shows the same whole numbers as the compat lines.
    let doc = serde_json::json!({
        "program": "agnostics test", "started": "2026-12-01T12:00:00+00:00",
        "verdict": "FAIL", "a2_verdict": "FAIL", "sd_graded": true, "engine": "native",
        "io_path": "io_uring",
        "profile": { "name": "sd_bench", "source": null, "size_bytes": 1 },
        "target": null, "card": null, "runs": [run], "error": null,
        "warnings": [], "advice": [],
    });
    let r: Report = serde_json::from_value(doc).unwrap();
    let text = report::to_text(&r);
    let row = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{text}"))
            .split_whitespace()
            .nth(3)
            .unwrap()
            .to_owned()
    };
    assert_eq!(row("rand-4k-write"), "412", "{text}");
    assert_eq!(row("rand-4k-read"), "1499", "{text}");
    assert_eq!(report::visible("a\nb\u{7}c é"), "a\\nb\\u{7}c é");
}

agnostics_testkit::test_list!(
    device_mapper_over_a_loop_without_direct_io,
    a_loop_device_from_before_direct_io_loops,
    md_raid_over_a_disk_and_a_ram_disk,
    a_network_block_device,
    a_loop_over_a_ram_disk_node,
    a_plain_disk_is_graded,
    zfs_before_2_3_ignores_direct_io,
    compat_lines_and_table_round_the_same_way,
);
