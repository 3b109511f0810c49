//! UI tests of the results page (run under `xvfb-run -a cargo test -p agnostics --test
//! ui_results`): real profiles on real folders on disk, the window's rows compared with the
//! engine's own report: the ungraded qd1 and matrix tables, the verdicts of a small graded
//! profile, the card's identity and claims, a Pi slot's queueing, partitions and wear.
//!
//! With `AGNOSTICS_SCREENSHOTS=DIR` the qd1 and matrix tests also render their results pages
//! to `DIR/results-{qd1,matrix}.png`.

#[path = "ui_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use adw::prelude::*;
use agnostics::pages::results::ShownCheck;
use agnostics::pages::ResultsView;
use agnostics::testing::WindowProbe;
use agnostics::widgets::Badge;
use agnostics::window::Page;
use agnostics::Application;
use agnostics::Window;
use agnostics_core::advice::Advice;
use agnostics_core::card;
use agnostics_core::profile::builtin;
use agnostics_core::report::{self, Report};
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_core::verdict::{Check, Metric, Standard, Verdict};
use gtk::glib;

use support::*;

fn main() {
    // Keep the tester's own ~/rpdiags.txt and history of runs out of it (set before any
    // thread starts).
    let log_dir = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", log_dir.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", log_dir.path().join("history.sqlite"));
    let tests = crate::ui_tests![
        runs_the_qd1_profile_and_shows_the_engines_table,
        runs_the_matrix_profile_and_shows_the_engines_table,
        runs_a_small_profile_and_shows_the_engines_verdicts,
        results_show_the_cards_identity_and_claims,
        results_show_the_pi_slots_queueing_partitions_and_wear,
        results_show_published_figures_on_a_pi_4_only,
        a_quick_check_ends_with_what_its_figures_suggest_and_the_next_step,
    ];
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(log_dir);
    conclusion.exit()
}

/// Where the qd1 and matrix tests write their results pages' PNG files.
const SCREENSHOTS_ENV: &str = "AGNOSTICS_SCREENSHOTS";

fn runs_the_qd1_profile_and_shows_the_engines_table(app: &Application) {
    runs_a_table_profile(app, "qd1");
}

fn runs_the_matrix_profile_and_shows_the_engines_table(app: &Application) {
    runs_a_table_profile(app, "matrix");
}

/// The table of `report` of the built-in profile `name`: the one `report::table::table`
/// rebuilds from its phases, of the profile's form, every cell measured.
fn assert_table_form(report: &Report, table: &report::table::ResultTable, name: &str) {
    assert_eq!(report::table::table(report).as_ref(), Some(table));
    match (table, name) {
        (report::table::ResultTable::Qd1 { rows }, "qd1") => {
            assert!(rows.iter().all(|r| r.result.is_some()), "{rows:?}");
        }
        (report::table::ResultTable::Matrix { rows }, "matrix") => {
            assert!(
                rows.iter().all(|r| r.read.is_some() && r.write.is_some()),
                "{rows:?}"
            );
        }
        _ => panic!("{name} gave the wrong form of table: {table:?}"),
    }
}

/// The results of a profile that only measures, whose labels on screen are `texts`: the
/// summary says it is not graded, and there is no A1 row, A2 badge or PASS/FAIL anywhere.
fn assert_not_graded_shown(results: &ResultsView, texts: &[String]) {
    assert_eq!(results.title_text(), "Measured, not graded");
    assert!(
        texts
            .iter()
            .any(|t| t
                == "Measured, not graded: only the standard test is graded against A1 and A2."),
        "{texts:?}"
    );
    assert!(results.shown_checks().is_empty(), "no A1 rows");
    assert_eq!(results.a2_text(), None, "no A2 badge");
    let badges: Vec<String> = descendants(results.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<Badge>().ok())
        .map(|b| b.text())
        .collect();
    assert!(
        !badges.iter().any(|t| t == "PASS" || t == "FAIL"),
        "{badges:?}"
    );
    assert!(
        !texts.iter().any(|t| t == "PASS" || t == "FAIL"),
        "{texts:?}"
    );
}

/// Chooses the built-in profile `name` (`qd1` or `matrix`, ungraded) in the profile row, runs
/// it as it ships in a scratch folder, and compares the results page with the engine's report:
/// the table's cells are `report::table::grid` of the report's own table (which
/// `report::table::table` rebuilds from its phases), the summary says it is not graded, and
/// there is no A1 row or PASS/FAIL badge.
fn runs_a_table_profile(app: &Application, name: &str) {
    let dir = scratch_dir();
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, dir.path(), None);
    let index = builtin::ALL
        .iter()
        .position(|b| b.name == name)
        .expect("a built-in profile");
    let chosen = &builtin::ALL[index];
    let row = window.profile_row();
    row.set_selected(index as u32);
    assert_eq!(window.profile(), chosen.profile());
    assert!(!window.profile().graded());
    assert_eq!(
        row.subtitle().as_deref(),
        Some(chosen.description().as_str())
    );

    window.run_button().activate();
    wait_until("the results", || {
        window.page() == Page::Results || window.open_dialog().is_some()
    });
    assert!(window.open_dialog().is_none(), "no error dialog");
    let report = window.last_report().expect("the engine's report");
    assert!(report.error.is_none(), "{:?}", report.error);
    assert_eq!(report.profile.name, name);
    assert!(!report.graded);
    assert_eq!(report.verdict, agnostics_core::verdict::Verdict::NotGraded);
    assert!(
        test_files(dir.path()).is_empty(),
        "the test file is removed"
    );

    let table = report.table.clone().expect("the profile's table");
    assert_table_form(&report, &table, name);
    let (head, body) = report::table::grid(&table);
    let expected: Vec<Vec<String>> = std::iter::once(head).chain(body).collect();
    let results = window.results_view();
    assert_eq!(results.shown_table(), expected);
    // The cells are on screen, not only recorded.
    let texts: Vec<String> = labels(results.upcast_ref())
        .iter()
        .filter(|l| l.is_drawable())
        .map(|l| l.label().to_string())
        .collect();
    for cell in expected.iter().flatten().filter(|c| !c.is_empty()) {
        assert!(texts.contains(cell), "{cell:?} is not shown: {texts:?}");
    }

    assert_not_graded_shown(&results, &texts);
    let jobs: Vec<String> = results.shown_info().into_iter().map(|(t, _)| t).collect();
    assert_eq!(jobs.len(), report.runs.last().expect("a run").phases.len());
    assert_fits_800x480(&window, "results with a table");

    if let Some(out) = std::env::var_os(SCREENSHOTS_ENV).map(PathBuf::from) {
        save_png(&window, &out.join(format!("results-{name}.png")));
    }
}

/// A results row as the screen shows it against the engine's A1 `check` of `metric`: the
/// verdict, the figure (KiB/s and MB/s rounded down, or IOPS) and target, and the advice of a
/// slow sequential write.
fn assert_check_row(row: &ShownCheck, metric: Metric, check: &Check) {
    assert_eq!(row.verdict, check.verdict.as_str(), "{}", row.title);
    let value = check.value.expect("a measured value");
    match metric {
        Metric::SeqWrite => {
            // KiB/s as upstream counts it, and MB/s beside it.
            assert!(
                row.value
                    .contains(&format!("({} KiB/s)", value.floor() as u64)),
                "{}",
                row.value
            );
            let mb = value * 1024.0 / 1e6;
            let shown: f64 = row
                .value
                .split(" MB/s")
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a figure in MB/s");
            // Rounded down, never up to a target it missed: below the figure by less
            // than one unit of its last place (1 MB/s from 1000 MB/s on).
            assert!(
                shown <= mb + 1e-9 && mb - shown < 1.0,
                "{} vs {mb} MB/s",
                row.value
            );
            assert!(
                row.value.ends_with("target 10.24 MB/s (10000 KiB/s)"),
                "{}",
                row.value
            );
        }
        _ => {
            assert!(
                row.value.starts_with(&format!("{:.0} IOPS", value.floor())),
                "{}",
                row.value
            );
            assert!(
                row.value
                    .ends_with(&format!("target {:.0} IOPS", check.target)),
                "{}",
                row.value
            );
        }
    }
    let expected_advice = matches!(
        (metric, check.verdict),
        (Metric::SeqWrite, agnostics_core::verdict::Verdict::Fail)
    );
    if expected_advice {
        assert_eq!(row.advice.first(), Some(&Advice::SeqWriteSlow.text()));
        assert_eq!(row.advice.len(), 2, "and how to reformat safely");
    }
}

/// **Copy Results** of the results shown for `report`: the plain text report, upstream's
/// compat lines included, on the clipboard; and the result in the log too, like upstream.
fn assert_copies_and_logs(window: &Window, report: &Report) {
    let results = window.results_view();
    // Copy results: the plain text report, upstream's compat lines included.
    assert!(results.copy_button().is_sensitive());
    results.copy_button().activate();
    // A button's activation is a short visible press before `clicked`.
    wait_until("the results on the clipboard", || {
        window.clipboard().is_local()
    });
    let copied = glib::MainContext::default()
        .block_on(window.clipboard().read_text_future())
        .expect("clipboard text")
        .expect("some text");
    assert_eq!(copied.as_str(), report::to_text(report));
    assert!(copied.contains("Random write speed "), "{copied}");

    // Like upstream, the result is in the log too.
    let log = read_log();
    assert!(log.contains("\nTest : SD Card Speed Test\n"), "{log}");
}

fn runs_a_small_profile_and_shows_the_engines_verdicts(app: &Application) {
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "small.fio", SMALL_PROFILE);
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, dir.path(), Some(profile));

    window.run_button().activate();
    wait_until("the results", || {
        window.page() == Page::Results || window.open_dialog().is_some()
    });
    assert!(window.open_dialog().is_none(), "no error dialog");
    let report = window.last_report().expect("the engine's report");
    assert!(report.error.is_none(), "{:?}", report.error);
    assert!(!window.is_inhibiting(), "suspend is allowed again");
    assert!(
        test_files(dir.path()).is_empty(),
        "the test file is removed"
    );

    let results = window.results_view();
    let run = report.deciding_run().expect("a graded run");
    let shown = results.shown_checks();
    let titles: Vec<&str> = shown.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles,
        ["Sequential write", "Random 4K write", "Random 4K read"]
    );
    for (row, metric) in shown
        .iter()
        .zip([Metric::SeqWrite, Metric::RandWrite, Metric::RandRead])
    {
        let check = run.check(metric, Standard::A1).expect("an A1 check");
        assert_check_row(row, metric, check);
    }
    assert_eq!(results.a2_text().as_deref(), Some(run.a2_verdict.as_str()));
    let info: Vec<String> = results.shown_info().into_iter().map(|(t, _)| t).collect();
    assert_eq!(info, ["Preparing the test file", "Sequential read"]);
    let target = report.target.as_ref().expect("the tested drive");
    assert!(
        results.subtitle_text().contains(&target.path),
        "{}",
        results.subtitle_text()
    );
    assert_eq!(
        results.run_count(),
        if report.runs.len() > 1 {
            report.runs.len()
        } else {
            0
        }
    );
    // No default widget: Enter on a result row does not start a new test.
    assert_eq!(window.default_widget(), None);
    assert_fits_800x480(&window, "results");

    assert_copies_and_logs(&window, &report);

    // Back and run again: the same folder, a new report.
    WidgetExt::activate_action(&window, agnostics::window::Action::Back.name(), None)
        .expect("win.back");
    assert_eq!(window.page(), Page::Ready);
    window.run_button().activate();
    wait_until("the second results", || {
        window.page() == Page::Results
            && window
                .last_report()
                .is_some_and(|r| r.started >= report.started)
    });
}

/// The results' card group for a real card's registers (a fixture sysfs tree: the test
/// folder is not on that card, so the engine's report gets the card as `card::identify` reads
/// it, and its findings against the measured run).
fn results_show_the_cards_identity_and_claims(app: &Application) {
    let dir = scratch_dir();
    let mut opts = TestOptions::standard(dir.path().to_path_buf());
    opts.profile = profile_file(dir.path(), "small.fio", SMALL_PROFILE);
    opts.runs = 1;
    opts.lock_dir =
        agnostics_testkit::private_lock_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    let mut report = sdtest::run(&opts, &AtomicBool::new(false), &|_| {});
    assert!(report.error.is_none(), "{:?}", report.error);
    let run = report.deciding_run().expect("a run").clone();
    let fixture = "kingston-sd64g-2019-imx.json";
    let card_info = |name: &str, without: &[&str], zeroed: &[&str]| {
        let root = dir.path().join(name);
        card::identify(&card_sysfs(&root, fixture, without, zeroed), "mmcblk0")
    };
    report.card = card_info("sysfs", &[], &[]);
    report.findings = card::findings(report.card.as_ref(), &run.phases);

    let window = new_window(app);
    let results = window.results_view();
    results.show_report(&report);
    let (title, facts) = results.shown_card().expect("a card group");
    assert_eq!(title, "Card");
    let fact = |title: &str| {
        facts
            .iter()
            .find(|(t, _)| t == title)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {title} row in {facts:?}"))
    };
    assert!(
        fact("Manufacturer").starts_with("Kingston / Texas Instruments (0x9F)\n"),
        "shared ID, raw ID and the table's note: {facts:?}"
    );
    assert_eq!(fact("Product name"), "SD64G, revision 6.1");
    assert_eq!(fact("Capacity"), "62.3 GB (62277025792 bytes)");
    assert_eq!(fact("Manufactured"), "November 2019");
    assert_eq!(
        fact("Ratings the card claims"),
        "Speed Class 10, UHS Speed Grade U3, Video Speed Class V30, Application Performance Class A2"
    );
    let notes = results.shown_card_notes();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("Card reports A2 (4000/2000 IOPS); measured ")),
        "{notes:?}"
    );
    assert!(
        !results
            .shown_info()
            .iter()
            .any(|(t, _)| t.starts_with("Card:")),
        "no second summary line of the card"
    );

    // A reader that does not expose the SD Status, and a card that reports all zeros.
    report.card = card_info("no-ssr", &["ssr"], &[]);
    report.findings = card::findings(report.card.as_ref(), &run.phases);
    results.show_report(&report);
    let (_, facts) = results.shown_card().expect("a card group");
    assert!(
        facts.contains(&(
            "Ratings the card claims".into(),
            "Not exposed by this reader".into()
        )),
        "{facts:?}"
    );
    report.card = card_info("zero-ssr", &[], &["ssr"]);
    results.show_report(&report);
    let (_, facts) = results.shown_card().expect("a card group");
    assert!(
        facts.contains(&(
            "Ratings the card claims".into(),
            "The card reports none (its register is all zeros)".into()
        )),
        "{facts:?}"
    );
    assert_fits_800x480(&window, "results with a card");
}

/// The value of the card group's row `title` in `facts`.
fn fact(facts: &[(String, String)], title: &str) -> String {
    facts
        .iter()
        .find(|(t, _)| t == title)
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no {title} row in {facts:?}"))
}

/// The card group of `report` with a worn eMMC with command queueing on (a fixture tree at
/// `root`): its wear and queueing rows and the note on its wear.
fn assert_emmc_wear_shown(results: &ResultsView, report: &mut Report, root: &Path) {
    use agnostics_testkit::{fixture_files, mmc_host_tree, MmcHost};
    let mut files = fixture_files("samsung-emmc-m8g1gc.json");
    files.push(("life_time".into(), "0x0a 0x0b".into()));
    files.push(("pre_eol_info".into(), "0x03".into()));
    files.push(("cmdq_en".into(), "1".into()));
    let root = mmc_host_tree(root, &files, &MmcHost::default());
    report.card = card::identify(&root, "mmcblk0");
    report.findings = card::findings(report.card.as_ref(), &[]);
    results.show_report(report);
    let (_, facts) = results.shown_card().expect("a card group");
    assert_eq!(
        fact(&facts, "eMMC wear"),
        "type A: 90–100 % of its life used; type B: past its estimated life; reserved blocks: urgent (90 % used)"
    );
    assert_eq!(
        fact(&facts, "Command queueing"),
        "on (block/mmcblk0/device/cmdq_en = 1)"
    );
    assert!(
        results
            .shown_card_notes()
            .iter()
            .any(|n| n.starts_with("The eMMC reports its wear as ")),
        "{:?}",
        results.shown_card_notes()
    );
}

/// The card group for what only the Pi's slot tells (fixture sysfs trees): command queueing
/// off (A2 not graded), a misaligned partition with its finding, the link from debugfs `ios`,
/// and a worn eMMC.
fn results_show_the_pi_slots_queueing_partitions_and_wear(app: &Application) {
    use agnostics_testkit::{fixture_files, ios_fixture, mmc_host_tree, MmcHost};
    let dir = scratch_dir();
    let mut report = Report::new(
        agnostics_core::engine::EngineKind::Native,
        report::ProfileInfo::new("standard".into(), None, 0),
        Vec::new(),
    );
    let ios = ios_fixture("ios-sd-high-speed");
    let root = mmc_host_tree(
        &dir.path().join("sd"),
        &fixture_files("kingston-sd64g-2019-imx.json"),
        &MmcHost {
            nr_tags: Some("64"),
            partitions: &[(1, 8192), (2, 559_104)],
            ios: Some(&ios),
            raspberry_pi_5: true,
        },
    );
    report.card = card::identify(&root, "mmcblk0");
    report.findings = card::findings(report.card.as_ref(), &[]);
    let window = new_window(app);
    let results = window.results_view();
    results.show_report(&report);
    let (title, facts) = results.shown_card().expect("a card group");
    assert_eq!(title, "Card");
    let queueing = fact(&facts, "Command queueing");
    assert!(
        queueing.starts_with("off (block/mmcblk0/mq/0/nr_tags = 64"),
        "{queueing}"
    );
    assert!(
        queueing.contains("\nA2 is not graded: this host runs the card like an A1 card\n"),
        "{queueing}"
    );
    // The card is the Kingston SD64G of 11/2019 the kernel's quirk table names.
    assert!(
        queueing.ends_with(
            "\nLinux turns this card's cache off, and with it command queueing: its cache \
             flush never finishes (Kingston Canvas Go! Plus 2019-11; kernel commit \
             c467c8f08185, https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=c467c8f08185)"
        ),
        "{queueing}"
    );
    assert_eq!(
        fact(&facts, "Partitions"),
        "mmcblk0p1 starts at 4.00 MiB: aligned to 4 MiB\n\
         mmcblk0p2 starts at 273.00 MiB (286261248 bytes): 1 MiB past a 4 MiB boundary, misaligned"
    );
    assert_eq!(
        fact(&facts, "Link"),
        "SD/MMC bus sd high-speed, 50 MHz, 4-bit: at most 25.0 MB/s"
    );
    let notes = results.shown_card_notes();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("Partition mmcblk0p2 starts at 286261248 bytes")),
        "{notes:?}"
    );
    assert_fits_800x480(&window, "results with a Pi card's slot");

    assert_emmc_wear_shown(&results, &mut report, &dir.path().join("emmc"));
}

/// A standard test's report built from samples on the board `model` (a testkit
/// `fixtures/pi-models` name; none: a PC), and with `profile`'s name.
fn sample_report_on(model: Option<&str>, profile: &str) -> Report {
    use agnostics_core::drive::provenance::{collect, Roots};
    use agnostics_core::sample;
    let dir = scratch_dir();
    if let Some(m) = model {
        agnostics_testkit::pi_model_tree(dir.path(), m);
    }
    let roots = Roots {
        proc_root: &dir.path().join("proc"),
        sysfs_root: dir.path(),
    };
    let sd_bench = agnostics_core::profile::Profile::sd_bench();
    let phases = [
        sample::phase("prepare-file").bw_bytes(20e6),
        sample::phase("seq-write").bw_bytes(20e6),
        sample::phase("seq-read").bw_bytes(40e6),
        sample::phase("rand-4k-write").iops(900.0),
        sample::phase("rand-4k-read").iops(2400.0),
    ];
    sample::report()
        .profile(report::ProfileInfo::new(
            profile.into(),
            None,
            sd_bench.file_size_bytes(),
        ))
        .run(sample::run(1, phases))
        .measured_with(collect(
            &roots,
            agnostics_core::engine::EngineKind::Native,
            &sd_bench,
            None,
        ))
        .build()
}

fn results_show_published_figures_on_a_pi_4_only(app: &Application) {
    let window = new_window(app);
    let results = window.results_view();
    results.show_report(&sample_report_on(
        Some("raspberry-pi-4-model-b-rev-1.4"),
        "sd_bench",
    ));
    let url = "https://www.raspberrypi.com/documentation/accessories/sd-cards.html";
    assert_eq!(
        results.shown_references(),
        [
            (
                "2400 IOPS random 4K read: slower than Raspberry Pi SD Card (A2) 32GB, 64GB, \
                 128GB on a Raspberry Pi 4 (about 3200; raspberrypi.com, 2024)"
                    .to_owned(),
                url.to_owned()
            ),
            (
                "900 IOPS random 4K write: slower than Raspberry Pi SD Card (A2) 32GB, 64GB, \
                 128GB on a Raspberry Pi 4 (about 1200; raspberrypi.com, 2024)"
                    .to_owned(),
                url.to_owned()
            ),
        ]
    );
    let links: Vec<gtk::LinkButton> = descendants(results.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::LinkButton>().ok())
        .collect();
    assert_eq!(links.iter().filter(|l| l.uri() == url).count(), 2);
    // Finding: the published figures sat below everything else (the trend against earlier
    // runs included), as sentences with no conclusion. They follow the A1 and A2 rows they
    // are set beside, their conclusion first, and the trend comes after them.
    results.show_trend(Some(&support::history_fixture::one_earlier_run()));
    let groups = results.shown_groups();
    let titles: Vec<&str> = groups.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        titles[..3],
        [
            "Application Performance Class A1",
            "Faster cards",
            "Published figures"
        ],
        "{titles:?}"
    );
    assert_eq!(titles[3], "Compared with earlier runs", "{titles:?}");
    assert!(
        groups[2]
            .1
            .starts_with("Your drive is slower than the published figures. "),
        "{groups:?}"
    );
    results.show_trend(None);
    assert!(labels(results.upcast_ref())
        .iter()
        .any(|l| l.label() == "Published figures"));
    assert_fits_800x480(&window, "results with published figures");
    if let Some(dir) = std::env::var_os(SCREENSHOTS_ENV) {
        window.show_page_for_test(Page::Results);
        iterate_briefly();
        links[0].grab_focus();
        save_png(&window, &Path::new(&dir).join("results-references.png"));
    }
    for (model, profile) in [
        (None, "sd_bench"),
        (Some("raspberry-pi-5-model-b-rev-1.0"), "quick"),
        (Some("raspberry-pi-4-model-b-rev-1.4"), "quick"),
    ] {
        results.show_report(&sample_report_on(model, profile));
        assert_eq!(results.shown_references(), [], "{model:?} {profile}");
        assert!(!labels(results.upcast_ref())
            .iter()
            .any(|l| l.label() == "Published figures"));
    }
}

/// Finding: after a Quick check there was no next step: a blue tick, "measured, not graded",
/// and nothing above the fold saying whether 705 IOPS is good or to run the standard test.
/// Now the figure is set beside A1's target in words, with **Run the Standard Test** beside
/// the verdict (for this session's run only: a stored run's drive may not be the one chosen).
fn a_quick_check_ends_with_what_its_figures_suggest_and_the_next_step(app: &Application) {
    let window = new_window(app);
    let results = window.results_view();
    let mut quick = sample_report_on(None, "quick");
    quick.graded = false;
    quick.verdict = Verdict::NotGraded;
    quick.a2_verdict = Verdict::NotGraded;
    for run in &mut quick.runs {
        run.verdict = Verdict::NotGraded;
        run.a2_verdict = Verdict::NotGraded;
        run.checks.clear();
        for phase in &mut run.phases {
            if phase.name == "rand-4k-read" {
                phase.iops = 705.0;
            }
        }
    }
    window.show_page_for_test(Page::Results);
    results.set_actions_visible(true);
    results.show_report(&quick);
    iterate_briefly();
    let said = "A first look, not a grade: Random 4K read 705 IOPS is below the 1500 IOPS A1 \
                asks for. Run the standard test to grade this drive.";
    let note = labels(results.upcast_ref())
        .into_iter()
        .find(|l| l.label() == said)
        .unwrap_or_else(|| panic!("the first look is shown"));
    let button = results.standard_button();
    assert_eq!(button.label().as_deref(), Some("Run the Standard Test"));
    assert_eq!(
        button.action_name().as_deref(),
        Some(agnostics::window::Action::RunStandard.name())
    );
    let content = window.content().expect("the window has content");
    for (widget, what) in [
        (note.upcast_ref::<gtk::Widget>(), "the first look"),
        (button.upcast_ref(), "the button"),
    ] {
        assert!(widget.is_mapped(), "{what} is shown");
        let b = widget.compute_bounds(&content).expect("in the window");
        assert!(
            b.y() >= 0.0 && b.y() + b.height() <= 480.0,
            "{what} is above the fold: {b:?}"
        );
    }
    // A stored run's page has no such button.
    results.set_actions_visible(false);
    assert!(!button.is_visible());
}
