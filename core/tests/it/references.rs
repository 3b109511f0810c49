//! Published figures beside a finished test: a standard run on a Raspberry Pi 4 (its board
//! model read from a fixture device tree, as `/proc/device-tree/model` gives it) shows
//! Raspberry Pi's own A2 card figures for a Pi 4, in the text after the verdict and in the
//! JSON; on a Pi 5 those for a Pi 5; on a machine without a board model (a PC), with the
//! quick profile or with a profile of one's own, none. The `qd1` profile on a Pi 4 shows Jeff
//! Geerling's queue-depth-1 table. And the card the kernel's quirk table names says so under
//! its command-queueing line.

use std::path::Path;

use agnostics_core::drive::provenance::{collect, Roots};
use agnostics_core::engine::{EngineKind, PhaseResult};
use agnostics_core::profile::{Builtin, Profile};
use agnostics_core::report::{to_text, ProfileInfo, Report, RunReport};
use agnostics_core::sample;
use agnostics_testkit::pi_model_tree;

/// How the test was measured on the machine whose sysfs is `root`.
fn provenance(root: &Path, profile: &Profile) -> agnostics_core::drive::Provenance {
    let roots = Roots {
        proc_root: &root.join("proc"),
        sysfs_root: root,
    };
    collect(&roots, EngineKind::Native, profile, None)
}

/// A standard run: 20 MB/s writes, 900 IOPS random write, 2400 IOPS random read.
fn standard_run() -> RunReport {
    sample::run(
        1,
        [
            sample::phase("prepare-file").bw_bytes(20e6),
            sample::phase("seq-write").bw_bytes(20e6),
            sample::phase("seq-read").bw_bytes(40e6),
            sample::phase("rand-4k-write").iops(900.4),
            sample::phase("rand-4k-read").iops(2400.9),
        ],
    )
}

/// A standard test's report on the board `model` (a `fixtures/pi-models` name, or none).
fn standard_on(model: Option<&str>) -> Report {
    let dir = tempfile::tempdir().unwrap();
    if let Some(m) = model {
        pi_model_tree(dir.path(), m);
    }
    sample::report()
        .run(standard_run())
        .measured_with(provenance(dir.path(), &Profile::sd_bench()))
        .build()
}

fn a_standard_run_on_a_pi_4_shows_raspberry_pis_own_figures() {
    let report = standard_on(Some("raspberry-pi-4-model-b-rev-1.4"));
    let model = report.measured_with.as_ref().unwrap().pi_model.clone();
    assert_eq!(model.as_deref(), Some("Raspberry Pi 4 Model B Rev 1.4"));
    let text = to_text(&report);
    println!("{text}");
    let after = text.split("Result: PASS").nth(1).expect("the verdict");
    let lines: Vec<&str> = after
        .lines()
        .filter(|l| l.starts_with("• ") && l.contains(" on a Raspberry Pi"))
        .collect();
    assert_eq!(
        lines,
        [
            "• 2400 IOPS random 4K read: slower than Raspberry Pi SD Card (A2) 32GB, 64GB, \
             128GB on a Raspberry Pi 4 (about 3200; raspberrypi.com, 2024)",
            "• 900 IOPS random 4K write: slower than Raspberry Pi SD Card (A2) 32GB, 64GB, \
             128GB on a Raspberry Pi 4 (about 1200; raspberrypi.com, 2024)",
        ]
    );
    assert!(after.contains("https://www.raspberrypi.com/documentation/accessories/sd-cards.html"));
    assert!(
        after.contains(
            "Published figures (for comparison, not a grade):\n\
             Your drive is slower than the published figures.\n"
        ),
        "{text}"
    );
    assert!(!text.contains("5000"), "{text}");
    let json = serde_json::to_value(&report).unwrap();
    let refs = json["references"].as_array().expect("references");
    assert_eq!(refs.len(), 2);
    assert_eq!(refs[0]["phase"], "rand-4k-read");
    assert_eq!(refs[0]["unit"], "IOPS");
    assert_eq!(refs[0]["published"], 3200.0);
    assert_eq!(refs[0]["measured"], 2400.9);
    assert_eq!(refs[0]["method"], "standard");
    assert_eq!(refs[0]["pi_model"], "Raspberry Pi 4");
    // A stored report reads back with its references.
    let back: Report = serde_json::from_value(json).unwrap();
    assert_eq!(back.references, report.references);
}

fn a_standard_run_on_a_pi_5_shows_the_pi_5_figures() {
    let report = standard_on(Some("raspberry-pi-5-model-b-rev-1.0"));
    let published: Vec<f64> = report.references.iter().map(|r| r.published).collect();
    assert_eq!(published, [5000.0, 2000.0]);
    assert!(report
        .references
        .iter()
        .all(|r| r.pi_model == "Raspberry Pi 5"));
}

fn a_machine_without_a_board_model_shows_none() {
    let report = standard_on(None);
    assert_eq!(report.measured_with.as_ref().unwrap().pi_model, None);
    assert!(report.references.is_empty());
    let text = to_text(&report);
    assert!(!text.contains("Published figures"), "{text}");
    assert!(!text.contains(" on a Raspberry Pi 4 (about"), "{text}");
    let json = serde_json::to_value(&report).unwrap();
    assert!(json.get("references").is_none(), "{json:#}");
}

/// `profile` (a built-in name, or a job file of one's own with `source`) on a Pi 4.
fn on_pi_4(profile: &str, source: Option<&str>, run: RunReport) -> Report {
    let dir = tempfile::tempdir().unwrap();
    pi_model_tree(dir.path(), "raspberry-pi-4-model-b-rev-1.4");
    let p = Builtin::find(profile).map_or_else(Profile::sd_bench, Builtin::profile);
    sample::report()
        .profile(ProfileInfo::new(
            profile.into(),
            source.map(str::to_owned),
            p.file_size_bytes(),
        ))
        .run(run)
        .measured_with(provenance(dir.path(), &p))
        .build()
}

fn the_quick_profile_or_a_job_file_shows_none_on_a_pi_4() {
    let quick = on_pi_4("quick", None, RunReport::measured(1, standard_run().phases));
    assert!(quick.references.is_empty());
    assert!(!to_text(&quick).contains(" on a Raspberry Pi 4 (about"));
    let own = on_pi_4("sd_bench", Some("/home/pi/my.fio"), standard_run());
    assert!(own.references.is_empty());
}

/// Each published figure says its conclusion first: faster, slower or about the same (within
/// 10 %), and names no kind of drive (the test may have run on a USB drive).
fn each_published_figure_says_faster_slower_or_about_the_same() {
    let phases: Vec<PhaseResult> = [
        ("seq-write-1m-qd1", 20e6),
        ("seq-read-1m-qd1", 40e6),
        ("rand-4k-write-qd1", 3.9e6),
        ("rand-4k-read-qd1", 12.0e6),
    ]
    .into_iter()
    .map(|(name, bw)| sample::phase(name).bw_bytes(bw).build())
    .collect();
    let report = on_pi_4("qd1", None, RunReport::measured(1, phases));
    let text = to_text(&report);
    assert!(
        text.contains(
            "• 12.00 MB/s random 4K read at queue depth 1: faster than Samsung Evo+ 32GB on a \
             Raspberry Pi 4 (about 10.80; pidramble.com, 2019)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "• 3.90 MB/s random 4K write at queue depth 1: about the same as Samsung Evo+ 32GB \
             on a Raspberry Pi 4 (about 3.85; pidramble.com, 2019)"
        ),
        "{text}"
    );
    assert!(!text.contains("Your card"), "{text}");
}

fn the_qd1_profile_on_a_pi_4_shows_jeff_geerlings_table() {
    let phases: Vec<PhaseResult> = [
        ("seq-write-1m-qd1", 20e6),
        ("seq-read-1m-qd1", 40e6),
        ("rand-4k-write-qd1", 2.5e6),
        ("rand-4k-read-qd1", 9.126e6),
    ]
    .into_iter()
    .map(|(name, bw)| sample::phase(name).bw_bytes(bw).build())
    .collect();
    let report = on_pi_4("qd1", None, RunReport::measured(1, phases));
    // 15 cards, read and write each.
    assert_eq!(report.references.len(), 30);
    let text = to_text(&report);
    println!("{text}");
    assert!(
        text.contains(
            "• 9.12 MB/s random 4K read at queue depth 1: slower than Samsung Evo+ 32GB on a \
             Raspberry Pi 4 (about 10.80; pidramble.com, 2019)"
        ),
        "{text}"
    );
    assert!(text.contains(
        "• 2.50 MB/s random 4K write at queue depth 1: slower than Samsung Evo+ 32GB on a \
         Raspberry Pi 4 (about 3.85; pidramble.com, 2019)"
    ));
    assert!(!text.contains("raspberrypi.com"), "{text}");
}

/// The report's text names the kernel's known trouble right under the command-queueing line
/// for the real Kingston SD64G dump of 11/2019 (the card of the kernel's Canvas Go! Plus
/// entry), and not for the same product made 04/2023.
fn the_report_names_the_kernels_known_trouble_under_command_queueing() {
    use agnostics_testkit::{fixture_files, mmc_host_tree, MmcHost};
    let dir = tempfile::tempdir().unwrap();
    let text_for = |name: &str| {
        let root = mmc_host_tree(
            &dir.path().join(name),
            &fixture_files(name),
            &MmcHost {
                nr_tags: Some("64"),
                raspberry_pi_5: true,
                ..MmcHost::default()
            },
        );
        let card = agnostics_core::card::identify(&root, "mmcblk0").unwrap();
        to_text(&sample::report().card(card).run(standard_run()).build())
    };
    let text = text_for("kingston-sd64g-2019-imx.json");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("Command queueing: off"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        lines[at + 1],
        "Linux turns this card's cache off, and with it command queueing: its cache flush never \
         finishes (Kingston Canvas Go! Plus 2019-11; kernel commit c467c8f08185, \
         https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=c467c8f08185)"
    );
    let later = text_for("kingston-sd64g-2023-04.json");
    assert!(later.contains("Command queueing: off"), "{later}");
    assert!(!later.contains("Linux turns"), "{later}");
}

agnostics_testkit::test_list!(
    the_report_names_the_kernels_known_trouble_under_command_queueing,
    a_standard_run_on_a_pi_4_shows_raspberry_pis_own_figures,
    a_standard_run_on_a_pi_5_shows_the_pi_5_figures,
    a_machine_without_a_board_model_shows_none,
    the_quick_profile_or_a_job_file_shows_none_on_a_pi_4,
    the_qd1_profile_on_a_pi_4_shows_jeff_geerlings_table,
    each_published_figure_says_faster_slower_or_about_the_same,
);
