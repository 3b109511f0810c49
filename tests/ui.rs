//! UI tests of the desktop app, on a real display (run under `xvfb-run -a cargo test -p
//! agnostics --test ui`). GTK wants one main thread, so this is a `harness = false` test:
//! `main` starts GTK and the application once and runs the tests in order, printing libtest's
//! lines. Tests run real profiles on real folders on disk and compare the window with the
//! engine's own report.
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders the All Tests page and the SD card test's three
//! states (ready, running, results) to `DIR/{tests,ready,running,results}.png` at 800×480 (see
//! `tools/screenshots`), and the qd1 and matrix tests' results pages to
//! `DIR/results-{qd1,matrix}.png`.

#[path = "ui_support/mod.rs"]
mod support;

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use adw::prelude::*;
use agnostics::model::test_run::RunState;
use agnostics::testing::WindowProbe;
use agnostics::widgets::Badge;
use agnostics::window::{Page, Tab};
use agnostics::{config, Application, Window};
use agnostics_core::advice::Advice;
use agnostics_core::card;
use agnostics_core::profile::{builtin, Builtin, Profile};
use agnostics_core::report::{self, Report};
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_core::verdict::{Metric, Standard};
use gtk::glib;

use support::*;

fn main() {
    // Keep the tester's own ~/rpdiags.txt out of it: every test's log goes here (set before
    // any thread starts).
    let log_dir = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", log_dir.path().join("rpdiags.txt"));
    let mut tests = crate::ui_tests![
        builds_the_window_ready_to_run,
        offers_the_built_in_profiles_standard_first,
        runs_the_qd1_profile_and_shows_the_engines_table,
        runs_the_matrix_profile_and_shows_the_engines_table,
        runs_a_small_profile_and_shows_the_engines_verdicts,
        results_show_the_cards_identity_and_claims,
        results_show_the_pi_slots_queueing_partitions_and_wear,
        cancel_in_the_middle_removes_the_test_file_and_returns_to_ready,
        closing_while_running_asks_then_cleans_up_and_closes,
        refused_tmpfs_target_shows_the_error_dialog,
        runs_the_selected_scripts_shows_their_results_and_logs_them,
        stop_aborts_the_running_script,
        follows_raspberry_pi_os_dark_theme,
        invalid_profile_on_the_command_line_exits_with_status_2,
    ];
    // Rendering the screenshots is a tool (tools/screenshots), not a test: only with
    // AGNOSTICS_SCREENSHOTS=DIR is it in the list.
    if std::env::var_os(SCREENSHOTS_ENV).is_some() {
        bind_screenshot_language();
        tests.extend(crate::ui_tests![renders_screenshots]);
    }
    // Last: it runs the application's main loop to its end (shutdown).
    tests.extend(crate::ui_tests![
        command_line_runs_the_profile_in_the_folder_given
    ]);
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(log_dir);
    conclusion.exit()
}

/// Where [`renders_screenshots`] writes its PNG files.
const SCREENSHOTS_ENV: &str = "AGNOSTICS_SCREENSHOTS";

/// The window's smallest size fits a Raspberry Pi touchscreen (800×480): nothing is clipped.
fn assert_fits_800x480(window: &Window, state: &str) {
    iterate_briefly();
    let content = window.content().expect("content");
    let (min_w, _, _, _) = content.measure(gtk::Orientation::Horizontal, -1);
    let (min_h, _, _, _) = content.measure(gtk::Orientation::Vertical, 800);
    assert!(
        min_w <= 800 && min_h <= 480,
        "{state}: needs at least {min_w}×{min_h}"
    );
    assert!(
        content.width() <= 800 && content.height() <= 480,
        "{state}: the window grew to {}×{}",
        content.width(),
        content.height()
    );
}

fn builds_the_window_ready_to_run(app: &Application) {
    let window = new_window(app);
    assert_eq!(window.page(), Page::Ready);
    assert_eq!(window.icon_name().as_deref(), Some(config::APP_ID));
    assert_eq!(
        window.run_button().label().as_deref(),
        Some("_Run SD Card Test")
    );
    assert!(
        window.run_button().uses_underline(),
        "Alt+R starts the test"
    );
    assert!(window.run_button().is_sensitive());
    assert_eq!(
        gtk::prelude::GtkWindowExt::focus(&window),
        Some(window.run_button().upcast()),
        "Enter on the focused Run starts the test"
    );
    assert_eq!(window.default_widget(), None, "Enter elsewhere does not");
    assert_eq!(app.accels_for_action("app.quit"), ["<Control>q"]);
    assert_eq!(app.accels_for_action("window.close"), ["<Control>w"]);
    let choices = window.drive_row().choices();
    assert!(
        !choices.is_empty(),
        "at least the default folder is offered"
    );
    assert!(window.drive_row().selected_choice().is_some());
    assert_fits_800x480(&window, "ready");

    app.activate_action("about", None);
    iterate_briefly();
    let about = app
        .windows()
        .into_iter()
        .find_map(|w| w.downcast::<adw::AboutWindow>().ok())
        .expect("the About window");
    assert_eq!(about.application_name(), "Raspberry Pi Diagnostics");
    assert_eq!(about.application_icon(), config::APP_ID);
    about.close();
}

/// The profile row lists the built-in profiles by their titles, the standard test first and
/// chosen: the next test is upstream's `sd_bench`, graded.
fn offers_the_built_in_profiles_standard_first(app: &Application) {
    let window = new_window(app);
    let row = window.profile_row();
    assert_eq!(row.title().as_str(), "Test");
    let list = row
        .model()
        .and_downcast::<gtk::StringList>()
        .expect("a list of titles");
    let shown: Vec<String> = (0..list.n_items())
        .filter_map(|i| list.string(i).map(|s| s.to_string()))
        .collect();
    let titles: Vec<String> = builtin::ALL.iter().map(Builtin::title).collect();
    assert_eq!(
        shown, titles,
        "the translated titles, in the built-in order"
    );
    assert_eq!(
        shown,
        [
            "Standard test",
            "Quick check",
            "Queue depth 1",
            "CrystalDiskMark set"
        ]
    );
    assert_eq!(row.selected(), 0);
    assert_eq!(
        row.selected_item()
            .and_downcast::<gtk::StringObject>()
            .map(|s| s.string().to_string())
            .as_deref(),
        Some("Standard test")
    );
    assert_eq!(
        row.subtitle().as_deref(),
        Some(builtin::ALL[0].description().as_str())
    );
    let profile = window.profile();
    assert_eq!(profile, Profile::sd_bench());
    assert!(profile.graded());
    assert_fits_800x480(&window, "ready, standard test");
}

fn runs_the_qd1_profile_and_shows_the_engines_table(app: &Application) {
    runs_a_table_profile(app, "qd1");
}

fn runs_the_matrix_profile_and_shows_the_engines_table(app: &Application) {
    runs_a_table_profile(app, "matrix");
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
    assert_eq!(report::table::table(&report).as_ref(), Some(&table));
    match (&table, name) {
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
    let jobs: Vec<String> = results.shown_info().into_iter().map(|(t, _)| t).collect();
    assert_eq!(jobs.len(), report.runs.last().expect("a run").phases.len());
    assert_fits_800x480(&window, "results with a table");

    if let Some(out) = std::env::var_os(SCREENSHOTS_ENV).map(PathBuf::from) {
        save_png(&window, &out.join(format!("results-{name}.png")));
    }
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
    assert_eq!(copied.as_str(), report::to_text(&report));
    assert!(copied.contains("Random write speed "), "{copied}");

    // Like upstream, the result is in the log too.
    let log = read_log();
    assert!(log.contains("\nTest : SD Card Speed Test\n"), "{log}");

    // Back and run again: the same folder, a new report.
    WidgetExt::activate_action(&window, "win.back", None).expect("win.back");
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

/// The card group for what only the Pi's slot tells (fixture sysfs trees): command queueing
/// off (A2 not graded), a misaligned partition with its finding, the link from debugfs `ios`,
/// and a worn eMMC.
fn results_show_the_pi_slots_queueing_partitions_and_wear(app: &Application) {
    use agnostics_testkit::{fixture_files, ios_fixture, mmc_host_tree, MmcHost};
    let dir = scratch_dir();
    let mut report = Report::new(
        agnostics_core::engine::EngineKind::Native,
        report::ProfileInfo {
            name: "standard".into(),
            source: None,
            size_bytes: 0,
        },
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
    let fact = |facts: &[(String, String)], title: &str| {
        facts
            .iter()
            .find(|(t, _)| t == title)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {title} row in {facts:?}"))
    };
    let queueing = fact(&facts, "Command queueing");
    assert!(
        queueing.starts_with("off (block/mmcblk0/mq/0/nr_tags = 64"),
        "{queueing}"
    );
    assert!(
        queueing.ends_with("\nA2 is not graded: this host runs the card like an A1 card"),
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

    let mut files = fixture_files("samsung-emmc-m8g1gc.json");
    files.push(("life_time".into(), "0x0a 0x0b".into()));
    files.push(("pre_eol_info".into(), "0x03".into()));
    files.push(("cmdq_en".into(), "1".into()));
    let root = mmc_host_tree(&dir.path().join("emmc"), &files, &MmcHost::default());
    report.card = card::identify(&root, "mmcblk0");
    report.findings = card::findings(report.card.as_ref(), &[]);
    results.show_report(&report);
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

fn cancel_in_the_middle_removes_the_test_file_and_returns_to_ready(app: &Application) {
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "long.fio", LONG_PROFILE);
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, dir.path(), Some(profile));

    window.run_button().activate();
    let progress = window.progress_view();
    wait_until("a live figure", || progress.figure_text().ends_with("IOPS"));
    assert_eq!(window.page(), Page::Running);
    assert_eq!(progress.phase_text(), "Random 4K write, 1 of 1");
    assert!(
        !window.run_button().is_sensitive(),
        "no second test meanwhile"
    );
    assert_eq!(
        window.default_widget(),
        None,
        "Enter anywhere does not cancel"
    );
    assert!(
        !test_files(dir.path()).is_empty(),
        "the test file is there while running"
    );
    wait_until("a chart bar", || !progress.chart().is_empty());
    assert!(
        progress.chart().description().contains("Random 4K write"),
        "{}",
        progress.chart().description()
    );
    assert_fits_800x480(&window, "running");

    progress.cancel_button().activate();
    wait_until("the ready state", || {
        window.test_run().state() == RunState::Ready
    });
    assert_eq!(window.page(), Page::Ready);
    assert!(window.test_run().was_cancelled());
    assert!(window.open_dialog().is_none(), "a cancel is not an error");
    assert!(
        test_files(dir.path()).is_empty(),
        "left behind: {:?}",
        test_files(dir.path())
    );
    assert!(window.run_button().is_sensitive());
    assert!(!window.is_inhibiting());
}

fn closing_while_running_asks_then_cleans_up_and_closes(app: &Application) {
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "long.fio", LONG_PROFILE);
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, dir.path(), Some(profile));
    window.run_button().activate();
    wait_until("the running state", || {
        window.progress_view().figure_text().ends_with("IOPS")
    });

    window.close();
    iterate_briefly();
    assert!(
        window.is_visible(),
        "the window stays until the user says so"
    );
    let dialog = window.open_dialog().expect("a question");
    assert_eq!(dialog.heading().as_deref(), Some("Stop the test?"));
    dialog.response("keep");
    iterate_briefly();
    assert!(window.is_visible());
    assert_eq!(window.test_run().state(), RunState::Running);

    window.close();
    iterate_briefly();
    window
        .open_dialog()
        .expect("the question again")
        .response("stop");
    wait_until("the window to close", || !window.is_visible());
    assert!(!window.test_run().is_busy());
    assert!(
        test_files(dir.path()).is_empty(),
        "left behind: {:?}",
        test_files(dir.path())
    );
}

fn refused_tmpfs_target_shows_the_error_dialog(app: &Application) -> agnostics_testkit::Ran {
    let Some(tmpfs) = TmpfsDir::new() else {
        return agnostics_testkit::skip("needs /dev/shm on tmpfs, or root to mount one");
    };
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, tmpfs.path(), None);
    // Run is off for a refused drive (tests/ui_ready.rs); `--run` still starts the test.
    window.start_test();
    wait_until("the error dialog", || window.open_dialog().is_some());
    let dialog = window.open_dialog().expect("dialog");
    assert_eq!(
        dialog.heading().as_deref(),
        Some("This folder is in memory, not on a drive")
    );
    let body = dialog.body();
    assert!(body.contains("tmpfs"), "what happened: {body}");
    assert!(
        body.contains(&Advice::MemoryTarget.text()),
        "what to do: {body}"
    );
    assert_eq!(dialog.close_response(), "close", "Escape closes it");
    assert_eq!(window.page(), Page::Ready);
    assert_eq!(
        window
            .last_report()
            .and_then(|r| r.error)
            .map(|e| e.kind.as_str()),
        Some("memory")
    );
    assert!(test_files(tmpfs.path()).is_empty());
    dialog.response("close");
    iterate_briefly();
    assert!(window.open_dialog().is_none());
    assert!(
        !window.run_button().is_sensitive(),
        "Run stays off until another drive is chosen"
    );
    Ok(())
}

/// A folder of test scripts: one that passes, one that fails with status 3, one whose name is
/// markup characters, then (with `slow`) one that sleeps, or (without) one that prints
/// non-UTF-8 bytes and 2 MB.
fn script_folder(dir: &std::path::Path, slow: bool) -> PathBuf {
    let folder = dir.join("scripts");
    std::fs::create_dir_all(&folder).expect("the scripts folder");
    let mut scripts = vec![
        (
            "pass.sh",
            "#NAME=Passes\n#DESC=Exits with status 0\necho all fine\n",
        ),
        (
            "fail.sh",
            "#NAME=Fails\n#DESC=Exits with status 3\necho broken >&2\nexit 3\n",
        ),
        (
            "markup.sh",
            "#NAME=<b>&</b>\n#DESC=Named <i>like markup</i> & more\necho ok\n",
        ),
    ];
    if !slow {
        scripts.push((
            "big.sh",
            "#NAME=Big output\n#DESC=Prints 2 MB\nprintf '\\377\\n'; head -c 2000000 /dev/zero | tr '\\0' x\n",
        ));
    }
    if slow {
        scripts.push(("slow.sh", "#NAME=Slow\n#DESC=Sleeps a minute\nsleep 60\n"));
    }
    for (file, text) in scripts {
        std::fs::write(folder.join(file), text).expect("a script");
    }
    folder
}

/// Lists the scripts in `folder` alone: `$XDG_DATA_DIRS` names an empty folder while the
/// window reads it.
fn list_scripts(window: &Window, folder: PathBuf, empty: &std::path::Path) {
    let before = std::env::var_os("XDG_DATA_DIRS");
    std::env::set_var("XDG_DATA_DIRS", empty);
    window.set_script_dirs(vec![folder]);
    match before {
        Some(value) => std::env::set_var("XDG_DATA_DIRS", value),
        None => std::env::remove_var("XDG_DATA_DIRS"),
    }
    wait_until("the list of tests", || window.scripts_loaded());
}

/// The log the tests write (`$AGNOSTICS_LOG`, set by `main`).
fn log_path() -> PathBuf {
    std::env::var_os("AGNOSTICS_LOG")
        .expect("AGNOSTICS_LOG")
        .into()
}

/// The log, bytes that are not UTF-8 replaced.
fn read_log() -> String {
    String::from_utf8_lossy(&std::fs::read(log_path()).expect("the log")).into_owned()
}

/// Every label inside `widget`.
fn labels(widget: &gtk::Widget) -> Vec<gtk::Label> {
    let mut found = Vec::new();
    let mut child = widget.first_child();
    while let Some(c) = child {
        if let Ok(label) = c.clone().downcast::<gtk::Label>() {
            found.push(label);
        }
        found.extend(labels(&c));
        child = c.next_sibling();
    }
    found
}

fn runs_the_selected_scripts_shows_their_results_and_logs_them(app: &Application) {
    let dir = scratch_dir();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).expect("an empty folder");
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(
        &window,
        dir.path(),
        Some(profile_file(dir.path(), "small.fio", SMALL_PROFILE)),
    );
    list_scripts(&window, script_folder(dir.path(), false), &empty);
    window.set_tab(Tab::AllTests);
    iterate_briefly();
    let view = window.tests_view();
    let titles: Vec<String> = view.shown_tests().into_iter().map(|t| t.title).collect();
    assert_eq!(
        titles,
        [
            "SD card speed test",
            "<b>&</b>",
            "Big output",
            "Fails",
            "Passes"
        ]
    );
    assert!(view
        .shown_tests()
        .iter()
        .all(|t| t.selected && t.result.is_empty()));
    assert_eq!(
        gtk::prelude::GtkWindowExt::focus(&window),
        Some(view.run_button().upcast()),
        "Enter on the focused Run Tests runs them"
    );
    assert_eq!(window.default_widget(), None, "Enter elsewhere does not");
    assert_fits_800x480(&window, "tests");

    // The scripts only.
    view.set_selected(0, false);
    view.run_button().emit_clicked();
    assert!(window.is_running_tests());
    wait_until("the tests to end", || !window.is_running_tests());
    let results: Vec<String> = view.shown_tests().into_iter().map(|t| t.result).collect();
    assert_eq!(results, ["", "PASS", "PASS", "FAIL", "PASS"]);
    let rows = view.rows();
    let big = rows[2].script_result().expect("a result");
    assert_eq!(big.output_bytes, 2_000_002);
    assert!(
        big.output.starts_with('\u{FFFD}'),
        "invalid UTF-8 shown replaced"
    );
    assert!(big.output.len() < 100_000, "the window shows a capped copy");
    view.show_output(&big);
    iterate_briefly();
    let dialog = gtk::Window::list_toplevels()
        .into_iter()
        .find_map(|w| w.downcast::<adw::MessageDialog>().ok())
        .expect("the output dialog");
    assert_eq!(dialog.heading().as_deref(), Some("Big output"));
    dialog.response("close");
    iterate_briefly();
    let failed = rows[3].script_result().expect("a result");
    assert_eq!(failed.exit_code, Some(3));
    assert!(failed.output.contains("broken"), "{}", failed.output);
    // The name and description are text, not markup.
    let shown = labels(rows[1].row.upcast_ref());
    assert!(
        shown
            .iter()
            .any(|l| l.label() == "<b>&</b>" && !l.uses_markup() && l.text() == "<b>&</b>"),
        "{:?}",
        shown.iter().map(|l| l.label()).collect::<Vec<_>>()
    );
    assert!(shown
        .iter()
        .any(|l| l.text() == "Named <i>like markup</i> & more"));

    let log = read_log();
    assert!(log.starts_with("Raspberry Pi Diagnostics - version "));
    for expected in [
        "\nTest : <b>&</b>\nok\nTest PASS\n",
        "\nTest : Fails\nbroken\nExit status 3\nTest FAIL\n",
        "\nTest : Passes\nall fine\nTest PASS\n",
    ] {
        assert!(log.contains(expected), "{expected:?} is not in the log");
    }
    assert!(!log.contains("SD Card Speed Test"));
    assert!(log.len() > 2_000_000, "the log keeps every byte");
    assert_eq!(
        view.show_log_button().action_name().as_deref(),
        Some("win.show-log")
    );
    assert!(view.show_log_button().is_sensitive());

    // Reset: no results, every test chosen again.
    view.reset_button().emit_clicked();
    assert!(view
        .shown_tests()
        .iter()
        .all(|t| t.selected && t.result.is_empty()));

    // The SD card test first (the window's own flow), then a script, in one log.
    for row in [1, 2, 3] {
        view.set_selected(row, false);
    }
    view.run_button().emit_clicked();
    wait_until("the tests to end", || !window.is_running_tests());
    let report = window.last_report().expect("the SD card test's report");
    let results: Vec<String> = view.shown_tests().into_iter().map(|t| t.result).collect();
    assert_eq!(results, [report.verdict.as_str(), "", "", "", "PASS"]);
    let log = read_log();
    let sd = log
        .find("\nTest : SD Card Speed Test\n")
        .expect("the SD card test logged");
    let script = log.find("\nTest : Passes\n").expect("the script logged");
    assert!(sd < script, "{log}");
    assert!(!log.contains("Test : Fails"), "{log}");
    assert!(test_files(dir.path()).is_empty());
}

fn stop_aborts_the_running_script(app: &Application) {
    let dir = scratch_dir();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).expect("an empty folder");
    let window = new_window(app);
    list_scripts(&window, script_folder(dir.path(), true), &empty);
    window.set_tab(Tab::AllTests);
    let view = window.tests_view();
    for row in 0..4 {
        view.set_selected(row, false);
    }
    assert_eq!(view.shown_tests()[4].title, "Slow");
    view.run_button().emit_clicked();
    wait_until("the script to start", || {
        view.shown_tests()[4].result == "…"
    });
    assert!(view.stop_button().is_visible());
    view.stop_button().emit_clicked();
    wait_until("the tests to end", || !window.is_running_tests());
    assert_eq!(view.shown_tests()[4].result, "Aborted");
    let result = view.rows()[4].script_result().expect("a result");
    assert!(
        agnostics_core::scripts::live_group_members(result.pid).is_empty(),
        "the script's group is gone"
    );
    let log = read_log();
    assert!(log.contains("\nTest : Slow\nTest aborted\n"), "{log}");
}

fn follows_raspberry_pi_os_dark_theme(app: &Application) {
    let _window = new_window(app);
    let settings = gtk::Settings::default().expect("settings");
    let style = adw::StyleManager::default();
    let before = settings.gtk_theme_name();
    settings.set_gtk_theme_name(Some("PiXonyx"));
    iterate_briefly();
    assert_eq!(style.color_scheme(), adw::ColorScheme::ForceDark);
    assert!(style.is_dark());
    settings.set_gtk_theme_name(Some("PiXtrix"));
    iterate_briefly();
    assert_eq!(style.color_scheme(), adw::ColorScheme::Default);
    assert!(!style.is_dark());
    // libadwaita's own base theme again, for the tests after this one.
    settings.set_gtk_theme_name(before.as_deref());
    iterate_briefly();
    assert!(!style.is_dark());
}

/// With `AGNOSTICS_SCREENSHOTS=DIR`: the All Tests page after two real scripts ran (no root
/// needed); then the standard test on a loop-mounted ext4 throttled like a slow card (12 MiB/s
/// writes, 700 write IOPS, 1200 read IOPS), rendered at 800×480 when ready, in the middle of
/// its random-write phase, and with its results.
fn renders_screenshots(app: &Application) -> agnostics_testkit::Ran {
    let Some(out) = std::env::var_os(SCREENSHOTS_ENV).map(PathBuf::from) else {
        return agnostics_testkit::skip(format!(
            "set {SCREENSHOTS_ENV}=DIR to render the screenshots"
        ));
    };
    let lang = screenshot_suffix();
    render_tests_page(app, &out.join(format!("tests{lang}.png")));
    if !lang.is_empty() {
        // The SD card test's pages in other languages: tests/ui_ready.rs and tests/ui_run.rs.
        return Ok(());
    }
    let disk = match ThrottledDisk::new(512, 12 << 20, 40 << 20, 700, 1200) {
        Ok(disk) => disk,
        Err(reason) => {
            return agnostics_testkit::skip(format!(
                "tests.png made; the SD card test's screenshots need a throttled disk: {reason}"
            ))
        }
    };
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, disk.path(), None);
    save_png(&window, &out.join("ready.png"));

    window.run_button().activate();
    let progress = window.progress_view();
    wait_until("the random-write phase", || {
        progress.phase_text().starts_with("Random 4K write") && progress.chart().len() >= 5
    });
    save_png(&window, &out.join("running.png"));

    wait_until("the results", || !window.test_run().is_busy());
    assert_eq!(
        window.page(),
        Page::Results,
        "{:?}",
        window.last_report().and_then(|r| r.error)
    );
    save_png(&window, &out.join("results.png"));
    Ok(())
}

/// The All Tests page with two scripts that ask the system real questions: one passes, one
/// fails where `vcgencmd` (Raspberry Pi firmware) is missing.
fn render_tests_page(app: &Application, png: &std::path::Path) {
    let dir = scratch_dir();
    let folder = dir.path().join("scripts");
    let empty = dir.path().join("empty");
    for d in [&folder, &empty] {
        std::fs::create_dir(d).expect("a folder");
    }
    for (file, text) in [
        (
            "space.sh",
            "#NAME=Free space\n#DESC=Shows the free space on the root filesystem.\ndf -h /\n",
        ),
        (
            "throttle.sh",
            "#NAME=Power and temperature\n#DESC=Asks the firmware whether the Raspberry Pi was throttled\\n(under-voltage or overheating).\nvcgencmd get_throttled\n",
        ),
    ] {
        std::fs::write(folder.join(file), text).expect("a script");
    }
    let window = new_window(app);
    list_scripts(&window, folder, &empty);
    window.set_tab(Tab::AllTests);
    let view = window.tests_view();
    view.set_selected(0, false);
    view.run_button().emit_clicked();
    wait_until("the tests to end", || !window.is_running_tests());
    save_png(&window, png);
    window.destroy();
}

fn invalid_profile_on_the_command_line_exits_with_status_2(_app: &Application) {
    // GApplication parses a command line once per process: the program itself, then.
    let program = env!("CARGO_BIN_EXE_agnostics");
    let dir = scratch_dir();
    let bad = dir.path().join("bad.fio");
    std::fs::write(&bad, "[job]\nrw=write\nrate=1m\n").expect("writing the job file");
    let out = std::process::Command::new(program)
        .arg("--profile")
        .arg(&bad)
        .output()
        .expect("running agnostics");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.fio:3") && stderr.contains("rate"),
        "{stderr}"
    );

    let help = std::process::Command::new(program)
        .arg("--help")
        .output()
        .expect("running agnostics --help");
    let help = String::from_utf8_lossy(&help.stdout);
    for option in [
        "--target=DIR",
        "--profile=NAME|FILE",
        "--dir=DIR",
        "--run",
        "--version",
    ] {
        assert!(help.contains(option), "--help lacks {option}: {help}");
    }
}

fn command_line_runs_the_profile_in_the_folder_given(app: &Application) {
    let dir = scratch_dir();
    let profile = dir.path().join("small.fio");
    std::fs::write(&profile, SMALL_PROFILE).expect("writing the job file");
    // Watches the window from the main loop that `run_with_args` runs, and closes it once
    // the test is over (or gives up after PATIENCE), which ends the application.
    let seen: Rc<RefCell<Option<(Page, Report)>>> = Rc::default();
    let started = Instant::now();
    let _watcher = {
        let (app, seen) = (app.clone(), Rc::clone(&seen));
        glib::timeout_add_local(Duration::from_millis(50), move || {
            let window = app
                .windows()
                .into_iter()
                .find_map(|w| w.downcast::<Window>().ok());
            if let Some(window) = window {
                if let (false, Some(report)) = (window.test_run().is_busy(), window.last_report()) {
                    seen.replace(Some((window.page(), report)));
                    window.close();
                    return glib::ControlFlow::Break;
                }
                if started.elapsed() > PATIENCE {
                    window.test_run().cancel();
                }
            }
            glib::ControlFlow::Continue
        })
    };
    let code = app.run_with_args(&[
        "agnostics".into(),
        "--target".into(),
        dir.path().display().to_string(),
        "--profile".into(),
        profile.display().to_string(),
        "--run".into(),
    ]);
    assert_eq!(code, glib::ExitCode::SUCCESS);
    let (page, report) = seen.take().expect("the test ran");
    assert_eq!(page, Page::Results, "{:?}", report.error);
    assert_eq!(
        report.target.map(|t| t.path),
        Some(dir.path().display().to_string())
    );
    assert_eq!(report.profile.source, Some(profile.display().to_string()));
    assert!(test_files(dir.path()).is_empty());
}
