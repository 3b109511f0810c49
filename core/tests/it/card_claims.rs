//! The card's claims against a real run: `sdtest::run` on a directory of this machine's disk,
//! with a fixture sysfs tree that says what that disk is (an A2/U3/V30 SD card, or a drive
//! behind a USB 1.1 link), so the report's findings, verdict and text can be checked.

use crate::common;

use std::fs;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use agnostics_core::card::claims::Outcome;
use agnostics_core::card::Finding;
use agnostics_core::report;
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_core::target_dir::device::maj_min;
use agnostics_core::verdict::Verdict;
use common::*;

/// Links `<root>/dev/block/MAJ:MIN` of `dir`'s filesystem to `<root>/<disk_dir>`.
fn map_dir_to(root: &Path, dir: &Path, disk_dir: &str) {
    let (major, minor) = maj_min(fs::metadata(dir).unwrap().dev());
    fs::create_dir_all(root.join("dev/block")).unwrap();
    symlink(
        format!("../../{disk_dir}"),
        root.join("dev/block").join(format!("{major}:{minor}")),
    )
    .unwrap();
    fs::create_dir_all(root.join("block")).unwrap();
    let name = Path::new(disk_dir)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    symlink(format!("../{disk_dir}"), root.join("block").join(name)).unwrap();
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    fs::create_dir_all(dir).unwrap();
    for (k, v) in files {
        fs::write(dir.join(k), format!("{v}\n")).unwrap();
    }
}

fn options(target: &Path, sysfs: &Path) -> TestOptions {
    let mut o = TestOptions::standard(target.to_path_buf());
    o.profile = small_standard("8m", 1);
    o.runs = 1;
    o.sysfs_root = sysfs.to_path_buf();
    o.lock_dir =
        agnostics_testkit::private_lock_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    o
}

fn sd_card_claims_are_compared_with_the_run() {
    let target = scratch_dir();
    let sysfs = scratch_dir();
    let card = "devices/platform/soc/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa";
    write(
        &sysfs.path().join(card),
        &[
            ("type", "SD"),
            ("name", "SD64G"),
            ("cid", "9f544953443634476136980065013b00"),
            ("csd", "400e00325b590001cfff7f800a400000"),
            ("scr", "0205848701006432"),
            ("ssr", "000000000800000004009000011b391e000800000002ff0003000000000000000000000000000000000000000000000000000000000000000000000000000000"),
        ],
    );
    let disk = format!("{card}/block/mmcblk0");
    fs::create_dir_all(sysfs.path().join(&disk)).unwrap();
    symlink(
        "../../../mmc0:aaaa",
        sysfs.path().join(&disk).join("device"),
    )
    .unwrap();
    map_dir_to(sysfs.path(), target.path(), &disk);

    let cancel = AtomicBool::new(false);
    let r = sdtest::run(&options(target.path(), sysfs.path()), &cancel, &|_| {});
    assert_eq!(r.error, None, "{r:?}");
    assert!(r.sd_graded);
    assert_eq!(
        r.card
            .as_ref()
            .unwrap()
            .cid
            .as_ref()
            .unwrap()
            .pnm
            .as_deref(),
        Some("SD64G")
    );
    assert_eq!(r.findings.len(), 2, "{:?}", r.findings);
    let run = r.deciding_run().unwrap();
    let (read, write) = (
        run.phase("rand-4k-read").unwrap().iops,
        run.phase("rand-4k-write").unwrap().iops,
    );
    match &r.findings[0] {
        Finding::AppPerfClass {
            claimed,
            measured_read_iops,
            outcome,
            ..
        } => {
            assert_eq!(claimed, "A2");
            assert_eq!(*measured_read_iops, read);
            let want = if read >= 4000.0 && write >= 2000.0 {
                Outcome::Meets
            } else if read >= 1500.0 && write >= 500.0 {
                Outcome::BelowClaim
            } else {
                Outcome::BelowA1
            };
            assert_eq!(*outcome, want);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&r.findings[1], Finding::SpeedRating { claimed_bw_bytes, .. } if *claimed_bw_bytes == 30e6)
    );
    let text = report::to_text(&r);
    assert!(text.contains("Card: Kingston / Texas Instruments (ID 0x9F) SD64G, 62.3 GB, made 2019-11; claims Class 10, U3, V30, A2"), "{text}");
    assert!(
        text.contains("Finding: Card reports A2 (4000/2000 IOPS)"),
        "{text}"
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["card"]["kind"], "SD");
    assert_eq!(json["card"]["ssr"]["app_perf_class"], "A2");
    assert_eq!(json["findings"][0]["kind"], "app_perf_class");
}

fn a_result_faster_than_the_link_is_not_graded() {
    let target = scratch_dir();
    let sysfs = scratch_dir();
    // A drive behind a USB 1.1 full-speed link: at most 1.5 MB/s.
    let usb = "devices/pci0000:00/0000:00:14.0/usb1/1-1";
    write(
        &sysfs.path().join(usb),
        &[("speed", "12"), ("idVendor", "0781"), ("idProduct", "5581")],
    );
    let scsi = format!("{usb}/1-1:1.0/host0/target0:0:0/0:0:0:0");
    write(
        &sysfs.path().join(&scsi),
        &[("vendor", "SanDisk"), ("model", "Cruzer")],
    );
    let disk = format!("{scsi}/block/sdz");
    fs::create_dir_all(sysfs.path().join(&disk)).unwrap();
    symlink("../../../0:0:0:0", sysfs.path().join(&disk).join("device")).unwrap();
    map_dir_to(sysfs.path(), target.path(), &disk);

    let cancel = AtomicBool::new(false);
    let r = sdtest::run(&options(target.path(), sysfs.path()), &cancel, &|_| {});
    let card = r.card.as_ref().unwrap();
    assert_eq!(card.usb.as_ref().unwrap().speed_mbit, Some(12.0));
    let ceiling = card.link.as_ref().unwrap().max_bw_bytes;
    assert_eq!(ceiling, 1.5e6);
    let run = &r.runs[0];
    let fastest = run.phases.iter().map(|p| p.bw_bytes).fold(0.0, f64::max);
    println!(
        "fastest phase {:.1} MB/s over a {:.1} MB/s link",
        fastest / 1e6,
        ceiling / 1e6
    );
    let implausible = r.findings.iter().any(Finding::is_implausible);
    assert_eq!(implausible, fastest > ceiling * 1.02);
    if implausible {
        assert_eq!(r.verdict, Verdict::Error);
        assert_eq!(r.exit_code(), 2);
        let e = r.error.as_ref().unwrap();
        assert_eq!(e.kind.as_str(), "implausible");
        // The message is shortened to its first sentence; the whole text is in `details`.
        let whole = e.details.as_deref().unwrap_or(&e.message);
        assert!(whole.contains("cannot be real"), "{whole}");
        assert!(whole.starts_with(e.message.trim_end_matches('…')), "{e:?}");
        assert!(report::to_text(&r).contains("Result: ERROR"));
    } else {
        eprintln!("this disk was slower than USB 1.1 here: nothing to flag");
    }
}

agnostics_testkit::test_list!(
    sd_card_claims_are_compared_with_the_run,
    a_result_faster_than_the_link_is_not_graded,
);
