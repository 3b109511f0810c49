//! `agnostics-cli card` and `agnostics-cli targets` as a user runs them: a card in a fixture
//! sysfs tree, JSON and text, an unknown device, and the list of targets on this machine.

use crate::support;

use std::path::Path;

use agnostics_testkit::write_card_tree;
use serde_json::Value;
use support::*;

/// A published Kingston Canvas Go! Plus dump (fixtures/cards/kingston-sd64g-2019-imx.json),
/// as `ROOT/block/mmcblk0/device/*`.
fn kingston_tree(root: &Path) {
    write_card_tree(
        root,
        &[
        ("type", "SD"),
        ("cid", "9f544953443634476136980065013b00"),
        ("csd", "400e00325b590001cfff7f800a400000"),
        ("scr", "0205848701006432"),
        ("ssr", "000000000800000004009000011b391e000800000002ff0003000000000000000000000000000000000000000000000000000000000000000000000000000000"),
        ("name", "SD64G"),
        ("manfid", "0x00009f"),
        ("oemid", "0x5449"),
        ("date", "11/2019"),
        ("serial", "0x36980065"),
        ("hwrev", "0x6"),
        ("fwrev", "0x1"),
        ],
    );
}

fn card_json_from_a_fixture_tree() {
    let root = scratch();
    kingston_tree(root.path());
    let out = cli()
        .args(["card", "--device", "mmcblk0", "--json", "--sysfs-root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["device"], "mmcblk0");
    assert_eq!(v["kind"], "SD");
    let cid = &v["cid"];
    assert_eq!(cid["mid"], 0x9f);
    assert_eq!(cid["manufacturer"], "Kingston / Texas Instruments");
    assert_eq!(cid["oid"], "TI");
    assert_eq!(cid["pnm"], "SD64G");
    assert_eq!(cid["prv"], "6.1");
    assert_eq!(cid["psn"], 915_931_237);
    assert_eq!(cid["mdt"], "2019-11");
    assert_eq!(v["capacity_bytes"], 62_277_025_792_u64);
    let ssr = &v["ssr"];
    assert_eq!(ssr["speed_class"], 10);
    assert_eq!(ssr["uhs_grade"], 3);
    assert_eq!(ssr["video_class"], 30);
    assert_eq!(ssr["app_perf_class"], "A2");
    assert_eq!(ssr["au_size_bytes"], 4_194_304);
    assert_eq!(v["scr"]["version"], "6.xx");
    assert_eq!(v["warnings"], Value::Array(vec![]));
}

fn card_text_names_maker_with_raw_id_and_ratings() {
    let root = scratch();
    kingston_tree(root.path());
    let out = cli()
        .args(["card", "--device", "/dev/mmcblk0", "--sysfs-root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "Manufacturer:",
        "Kingston / Texas Instruments (ID 0x9F)",
        "Capacity:",
        "62.3 GB (62277025792 bytes)",
        "Speed Class:",
        "Class 10",
        "U3",
        "V30",
        "A2",
        "AU size:",
        "4 MiB",
        "6.xx",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

fn unknown_device_exits_2_with_a_message() {
    let root = scratch();
    let out = cli()
        .args(["card", "--device", "mmcblk5", "--sysfs-root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown device mmcblk5"), "{err}");
}

fn card_without_device_describes_the_default_targets_disk() {
    let out = cli().args(["card", "--json"]).output().unwrap();
    match out.status.code() {
        Some(0) => {
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(v["device"].as_str().is_some_and(|d| !d.is_empty()));
        }
        // /var/tmp on tmpfs or NFS has no disk: a clear message and status 2.
        Some(2) => assert!(!out.stderr.is_empty()),
        other => panic!("exit {other:?}"),
    }
}

fn targets_lists_writable_filesystems() {
    let out = cli().args(["targets", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v.as_array().unwrap();
    for t in list {
        for k in ["path", "fs_type", "device", "transport", "free_bytes"] {
            assert!(t.get(k).is_some(), "{k} missing in {t}");
        }
        assert_ne!(t["fs_type"], "tmpfs");
        assert_eq!(t["read_only"], false);
    }
    let out = cli().arg("targets").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    if !list.is_empty() {
        assert!(text.starts_with("PATH"), "{text}");
        assert!(text.contains("FREE"));
    }
}

fn names_that_are_paths_are_refused() {
    let root = scratch();
    kingston_tree(root.path());
    // Control and bidirectional characters too; the message shows them escaped, never raw.
    for name in [
        "",
        ".",
        "..",
        "../../etc",
        "/dev/",
        "a/b",
        "mmc\u{1b}[2Jblk0",
        "sd\u{7}a",
        "mmc\u{202e}0",
    ] {
        let out = cli()
            .args(["card", "--device", name, "--sysfs-root"])
            .arg(root.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not a device name"), "{name:?}: {err}");
        assert!(
            !err.contains(['\u{1b}', '\u{7}', '\u{202e}']),
            "{name:?}: raw control characters in {err:?}"
        );
    }
}

fn a_hostile_sysfs_tree_neither_hangs_nor_fills_memory() {
    let root = scratch();
    kingston_tree(root.path());
    let dev = root.path().join("block/mmcblk0/device");
    // A FIFO nobody writes to, an endless device, a huge file of garbage.
    std::fs::remove_file(dev.join("csd")).unwrap();
    nix::unistd::mkfifo(
        &dev.join("csd"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    let _ = std::fs::remove_file(root.path().join("block/mmcblk0/size"));
    std::os::unix::fs::symlink("/dev/zero", root.path().join("block/mmcblk0/size")).unwrap();
    std::fs::write(dev.join("scr"), vec![0xffu8; 4 << 20]).unwrap();
    let out = cli()
        .args(["card", "--device", "mmcblk0", "--json", "--sysfs-root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["device"], "mmcblk0");
    assert!(v["cid"].is_object(), "{v}");
}

agnostics_testkit::test_list!(
    card_json_from_a_fixture_tree,
    card_text_names_maker_with_raw_id_and_ratings,
    unknown_device_exits_2_with_a_message,
    card_without_device_describes_the_default_targets_disk,
    targets_lists_writable_filesystems,
    names_that_are_paths_are_refused,
    a_hostile_sysfs_tree_neither_hangs_nor_fills_memory,
);
