//! `agnostics-cli card` on fixture sysfs trees of a Raspberry Pi's SD/eMMC slot: command
//! queueing on and off (A2 graded or not), an aligned and a misaligned partition, an eMMC's
//! wear at every step, and an SD host in high-speed mode with its debugfs `ios`.

use crate::support;

use std::path::Path;

use agnostics_testkit::{fixture_files, ios_fixture, mmc_host_tree, MmcHost};
use serde_json::Value;
use support::*;

/// The Kingston A2/U3/V30 card (its AU and preferred erase size 4 MiB), plus `extra` files.
fn kingston(extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut files = fixture_files("kingston-sd64g-2019-imx.json");
    files.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    files
}

/// `agnostics-cli card --device mmcblk0 --sysfs-root ROOT` as JSON and as text.
fn card(root: &Path) -> (Value, String) {
    let run = |json: bool| {
        let mut c = cli();
        c.args(["card", "--device", "mmcblk0", "--sysfs-root"])
            .arg(root);
        if json {
            c.arg("--json");
        }
        let out = c.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    (serde_json::from_str(&run(true)).unwrap(), run(false))
}

fn a_pi5_card_with_and_without_command_queueing() {
    let s = scratch();
    for (tags, state) in [("31", "on"), ("64", "off")] {
        let root = mmc_host_tree(
            &s.path().join(tags),
            &kingston(&[]),
            &MmcHost {
                nr_tags: Some(tags),
                raspberry_pi_5: true,
                ..MmcHost::default()
            },
        );
        let (v, text) = card(&root);
        let q = &v["command_queueing"];
        assert_eq!(q["state"], state, "{v:#}");
        assert_eq!(q["source"], "block/mmcblk0/mq/0/nr_tags");
        assert_eq!(q["value"], tags);
        let line = text
            .lines()
            .find(|l| l.starts_with("Command queueing:"))
            .unwrap_or_else(|| panic!("{text}"));
        println!("{line}");
        assert!(line.contains(&format!("{state} (block/mmcblk0/mq/0/nr_tags = {tags}")));
        let a2 = text.lines().find(|l| l.starts_with("A2 grading:"));
        if state == "on" {
            assert!(a2.is_none(), "{text}");
        } else {
            let a2 = a2.unwrap_or_else(|| panic!("{text}"));
            assert!(
                a2.contains("not graded: this host runs the card like an A1 card"),
                "{a2}"
            );
            assert!(a2.contains("dtparam=sd_cqe"), "{a2}");
        }
        // On a Pi without debugfs: the fastest bus a Pi has.
        assert_eq!(v["link"]["max_bw_bytes"], 104e6, "{v:#}");
    }
    // An eMMC's own attribute comes first.
    let root = mmc_host_tree(
        &s.path().join("cmdq"),
        &kingston(&[("cmdq_en", "1")]),
        &MmcHost {
            nr_tags: Some("64"),
            ..MmcHost::default()
        },
    );
    let (v, _) = card(&root);
    assert_eq!(v["command_queueing"]["state"], "on");
    assert_eq!(
        v["command_queueing"]["source"],
        "block/mmcblk0/device/cmdq_en"
    );
}

fn an_aligned_and_a_misaligned_partition() {
    let s = scratch();
    // p1 at 4 MiB (8192 sectors), p2 at 1 MiB + 272 MiB: 2048 + 557056 sectors.
    let root = mmc_host_tree(
        s.path(),
        &kingston(&[]),
        &MmcHost {
            partitions: &[(1, 8192), (2, 559_104)],
            ..MmcHost::default()
        },
    );
    let (v, text) = card(&root);
    let parts = v["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{v:#}");
    assert_eq!(parts[0]["name"], "mmcblk0p1");
    assert_eq!(parts[0]["start_bytes"], 4_194_304);
    assert_eq!(parts[0]["boundary_bytes"], 4_194_304);
    assert_eq!(parts[0]["aligned"], true);
    assert_eq!(parts[1]["start_bytes"], 559_104_u64 * 512);
    assert_eq!(parts[1]["offset_bytes"], 1_048_576);
    assert_eq!(parts[1]["aligned"], false);
    assert!(
        text.contains("mmcblk0p1 starts at 4.00 MiB: aligned to 4 MiB"),
        "{text}"
    );
    assert!(
        text.contains("mmcblk0p2 starts at 273.00 MiB (286261248 bytes): 1 MiB past a 4 MiB boundary, misaligned"),
        "{text}"
    );
    let finding = text
        .lines()
        .find(|l| l.starts_with("Finding: Partition mmcblk0p2"))
        .unwrap_or_else(|| panic!("{text}"));
    println!("{finding}");
    assert!(finding.contains("starts at 286261248 bytes (273.00 MiB), 1 MiB past a 4 MiB boundary (the card's erase size is 4 MiB, its allocation unit 4 MiB)"), "{finding}");
    assert!(finding.contains("several times slower"));
    assert!(finding.contains("Raspberry Pi Imager"));
    assert!(text.contains("Erase size:"), "{text}");
}

fn emmc_life_at_every_step() {
    let s = scratch();
    let words = [
        "0–10 %",
        "10–20 %",
        "20–30 %",
        "30–40 %",
        "40–50 %",
        "50–60 %",
        "60–70 %",
        "70–80 %",
        "80–90 %",
        "90–100 %",
    ];
    for step in 1u8..=11 {
        let pre_eol = match step {
            1..=8 => 1,
            9 | 10 => 2,
            _ => 3,
        };
        let life = format!("0x{:02x} 0x{step:02x}", step.saturating_sub(1).max(1));
        let pre = format!("0x{pre_eol:02x}");
        let mut files = fixture_files("samsung-emmc-m8g1gc.json");
        files.push(("life_time".into(), life.clone()));
        files.push(("pre_eol_info".into(), pre.clone()));
        let root = mmc_host_tree(
            &s.path().join(step.to_string()),
            &files,
            &MmcHost::default(),
        );
        let (v, text) = card(&root);
        assert_eq!(v["kind"], "MMC", "{v:#}");
        assert_eq!(v["emmc_wear"]["life_time_b"], step, "{v:#}");
        assert_eq!(v["emmc_wear"]["pre_eol_info"], pre_eol);
        let line = text
            .lines()
            .find(|l| l.starts_with("eMMC wear:"))
            .unwrap_or_else(|| panic!("{text}"));
        let want_b = if step == 11 {
            "type B: past its estimated life".to_owned()
        } else {
            format!("type B: {} of its life used", words[usize::from(step) - 1])
        };
        assert!(line.contains(&want_b), "{line}");
        let want_eol = match pre_eol {
            1 => "reserved blocks: normal",
            2 => "reserved blocks: warning (80 % used)",
            _ => "reserved blocks: urgent (90 % used)",
        };
        assert!(line.contains(want_eol), "{line}");
        let worn = text
            .lines()
            .any(|l| l.starts_with("Finding: The eMMC reports its wear"));
        assert_eq!(worn, step >= 9, "{text}");
        println!("{line}");
    }
}

fn an_sd_host_in_high_speed_mode() {
    let s = scratch();
    let root = mmc_host_tree(
        s.path(),
        &kingston(&[]),
        &MmcHost {
            ios: Some(&ios_fixture("ios-sd-high-speed")),
            raspberry_pi_5: true,
            nr_tags: Some("64"),
            ..MmcHost::default()
        },
    );
    let (v, text) = card(&root);
    assert_eq!(v["link"]["max_bw_bytes"], 25e6, "{v:#}");
    assert_eq!(v["link"]["name"], "SD/MMC bus sd high-speed, 50 MHz, 4-bit");
    let line = text
        .lines()
        .find(|l| l.starts_with("Link:"))
        .unwrap_or_else(|| panic!("{text}"));
    println!("{line}");
    assert!(
        line.ends_with("SD/MMC bus sd high-speed, 50 MHz, 4-bit: at most 25.0 MB/s"),
        "{line}"
    );
    let root = mmc_host_tree(
        &s.path().join("sdr104"),
        &kingston(&[]),
        &MmcHost {
            ios: Some(&ios_fixture("ios-sd-sdr104")),
            ..MmcHost::default()
        },
    );
    assert_eq!(card(&root).0["link"]["max_bw_bytes"], 100e6);
}

agnostics_testkit::test_list!(
    a_pi5_card_with_and_without_command_queueing,
    an_aligned_and_a_misaligned_partition,
    emmc_life_at_every_step,
    an_sd_host_in_high_speed_mode,
);
