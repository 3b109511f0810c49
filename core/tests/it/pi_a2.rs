//! A2 is graded only where the host queues commands: real runs of `sdtest::run` in a scratch
//! folder on this machine's disk, with a fixture sysfs tree that makes that disk a Raspberry
//! Pi's SD card (the Kingston A2/U3/V30) whose block queue says command queueing is on
//! (`nr_tags` 31) or off (64). Off: every A2 check ERROR with the plain reason, the A1 checks
//! and verdict graded as before; on: both graded.

use crate::common;

use std::fs;
use std::os::unix::fs::{symlink, MetadataExt};
use std::sync::atomic::AtomicBool;

use agnostics_core::report;
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_core::target_dir::device::maj_min;
use agnostics_core::verdict::{Standard, Verdict};
use agnostics_testkit::{fixture_files, mmc_host_tree, MmcHost, MMC_CARD_DIR};
use common::*;

fn run_with_queue_depth(tags: &str) -> report::Report {
    let target = scratch_dir();
    let sysfs = scratch_dir();
    let root = mmc_host_tree(
        sysfs.path(),
        &fixture_files("kingston-sd64g-2019-imx.json"),
        &MmcHost {
            nr_tags: Some(tags),
            ..MmcHost::default()
        },
    );
    let (major, minor) = maj_min(fs::metadata(target.path()).unwrap().dev());
    fs::create_dir_all(root.join("dev/block")).unwrap();
    symlink(
        format!("../../{MMC_CARD_DIR}/block/mmcblk0"),
        root.join("dev/block").join(format!("{major}:{minor}")),
    )
    .unwrap();
    let mut o = TestOptions::standard(target.path().to_path_buf());
    o.profile = small_standard("8m", 1);
    o.runs = 1;
    o.sysfs_root = root;
    o.lock_dir =
        agnostics_testkit::private_lock_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    sdtest::run(&o, &AtomicBool::new(false), &|_| {})
}

fn without_command_queueing_a2_is_not_graded() {
    let r = run_with_queue_depth("64");
    assert_eq!(r.error, None, "{r:#?}");
    assert!(r.sd_graded);
    let q = r.card.as_ref().unwrap().command_queueing.as_ref().unwrap();
    assert_eq!(q.state_text(), "off");
    assert_eq!(r.a2_verdict, Verdict::Error);
    let run = &r.runs[0];
    assert_eq!(run.a2_verdict, Verdict::Error);
    for c in &run.checks {
        match c.standard {
            Standard::A2 => {
                assert_eq!(c.verdict, Verdict::Error, "{c:?}");
                assert!(c.value.is_some_and(|v| v > 0.0), "{c:?}");
                let reason = c.reason.as_deref().unwrap();
                assert!(
                    reason.starts_with(
                        "this host runs the card like an A1 card: command queueing is off"
                    ),
                    "{reason}"
                );
            }
            Standard::A1 => {
                assert_ne!(c.verdict, Verdict::Error, "{c:?}");
                assert!(c.reason.is_none(), "{c:?}");
            }
        }
    }
    assert_ne!(r.verdict, Verdict::Error);
    assert!(!r
        .advice
        .iter()
        .any(|a| matches!(a, agnostics_core::advice::Advice::MeetsA2)));
    let text = report::to_text(&r);
    assert!(
        text.contains("Not graded: this host runs the card like an A1 card"),
        "{text}"
    );
    assert!(
        text.contains("Command queueing: off (block/mmcblk0/mq/0/nr_tags = 64"),
        "{text}"
    );
    assert!(text.contains("   A2: ERROR"), "{text}");
    println!("A1 {} / A2 {}", r.verdict, r.a2_verdict);
}

fn with_command_queueing_a2_is_graded() {
    let r = run_with_queue_depth("31");
    assert_eq!(r.error, None, "{r:#?}");
    let run = &r.runs[0];
    for c in &run.checks {
        assert_ne!(c.verdict, Verdict::Error, "{c:?}");
        assert!(c.reason.is_none(), "{c:?}");
    }
    assert_ne!(r.a2_verdict, Verdict::Error);
    let text = report::to_text(&r);
    assert!(
        text.contains("Command queueing: on (block/mmcblk0/mq/0/nr_tags = 31"),
        "{text}"
    );
    println!("A1 {} / A2 {}", r.verdict, r.a2_verdict);
}

agnostics_testkit::test_list!(
    without_command_queueing_a2_is_not_graded,
    with_command_queueing_a2_is_graded,
);
