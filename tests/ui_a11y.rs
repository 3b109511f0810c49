//! UI tests of what a screen reader is told (run under `xvfb-run -a cargo test -p agnostics
//! --test ui_a11y`; needs `python3-pyatspi`): the window's accessibility tree is read over
//! AT-SPI, as Orca reads it, on every page a user meets (ready, running, results, All Tests,
//! History's drives, a drive, a run, a comparison), and on each page:
//!
//! - every focusable control shown has a real name (never empty, never a type name such as
//!   "GtkToggleButton", never "(None)"), and no two of them share one;
//! - no control's name says the same words twice (a switch named with its row's title and its own);
//! - no image shown is unnamed (a decorative icon has the role `presentation` and is left
//!   out of the tree);
//! - a page not on screen is not in the tree (GTK 4.8 gives no accessible inside a window the
//!   state SHOWING: a screen reader lists whatever the tree holds).
//!
//! Without a session bus the test starts its own `dbus-daemon` (the accessibility bus is
//! started on it by D-Bus activation) and stops it at the end.

#[path = "ui_support/mod.rs"]
mod support;
#[path = "ui_a11y/tree.rs"]
mod tree;

use std::path::Path;

use adw::prelude::*;
use agnostics::pages::HistoryPage;
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{Application, Window};
use agnostics_core::history::History;

use support::history_fixture::*;
use support::*;

fn main() {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    let bus = tree::SessionBus::ensure();
    let tests = crate::ui_tests![
        every_focusable_control_of_history_and_all_tests_has_its_own_real_name,
        every_focusable_control_of_the_sd_card_pages_has_its_own_real_name,
        the_comparison_is_a_table_read_with_its_rows_and_columns,
        a_run_s_row_says_whether_it_is_ticked,
    ];
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(bus);
    drop(scratch);
    conclusion.exit()
}

/// The problems of the page `window` shows now, labelled `state`, into `found`; the focusable
/// accessibles ("role: name").
fn look(window: &Window, state: &str, found: &mut Vec<String>) -> Vec<String> {
    wait_until("the page transition to end", || window.page_settled());
    iterate_briefly();
    iterate_briefly();
    let nodes = tree::read();
    let problems = tree::problems(&nodes);
    let focusable = tree::focusable_names(&nodes);
    println!("  {state}: {} nodes, focusable: {focusable:?}", nodes.len());
    found.extend(problems.into_iter().map(|p| format!("{state}: {p}")));
    focusable
}

/// None of `focusable` (as [`look`] gives them) is named with one of `gone` (the controls of
/// pages not on screen), labelled `state`.
fn assert_absent(focusable: &[String], gone: &[&str], state: &str) {
    for name in gone {
        assert!(
            !focusable.iter().any(|n| n.ends_with(&format!(": {name}"))),
            "{state}: {name:?} of a page not on screen is in the tree: {focusable:?}"
        );
    }
}

fn assert_none(found: &[String]) {
    assert!(
        found.is_empty(),
        "what a screen reader is told:\n{}",
        found.join("\n")
    );
}

/// Two Quick checks of the SD card in one minute (seconds apart) into the history at `path`:
/// the drive's page then has a chart menu (two tests) and two runs of one minute.
fn record_quick_checks(path: &Path) {
    let mut history = History::open(path).expect("the history");
    for (i, started) in ["2026-07-02T10:30:05+00:00", "2026-07-02T10:30:41+00:00"]
        .into_iter()
        .enumerate()
    {
        let quick = quick_check_of(&format!("{:032x}", 0x9c1c_u32 + i as u32), started);
        history.record(&quick).expect("recorded");
    }
}

/// History: the list of drives, a drive's page with its runs (two of one minute; two ticked
/// for Compare) and its chart menu, a run's page, a comparison; and All Tests with scripts
/// listed.
fn every_focusable_control_of_history_and_all_tests_has_its_own_real_name(app: &Application) {
    let f = fixture();
    record_quick_checks(&f.path);
    let window = history_window(app, &f.path);
    let view = window.history_view();
    let mut found = Vec::new();
    look(&window, "History", &mut found);
    view.open_drive(&key(CARD));
    settle(&window);
    let runs = view.run_rows();
    let drive = look(&window, "History, drive", &mut found);
    // The chart menu says what it chooses, then the choice: not the choice alone (GTK 4.12
    // and later name its button after the choice shown).
    let menu = "Test shown in the chart";
    assert!(
        drive.iter().any(|n| n.contains(&format!(": {menu}: "))),
        "the chart menu is named {menu:?} and its choice: {drive:?}"
    );
    assert!(
        runs.len() == 5,
        "three standard runs and two Quick checks: {runs:?}"
    );
    view.choose(&runs[4].0, "2026-05-01 09:00", true);
    view.choose(&runs[2].0, "2026-07-01 09:00", true);
    settle(&window);
    look(&window, "History, drive, two runs ticked", &mut found);
    view.open_run(&runs[2].0);
    settle(&window);
    assert_eq!(view.visible_page(), HistoryPage::Run);
    look(&window, "History, run", &mut found);
    view.compare_chosen();
    settle(&window);
    assert_eq!(view.visible_page(), HistoryPage::Compare);
    let compare = look(&window, "History, compare", &mut found);
    assert_absent(
        &compare,
        &["All drives", "Rename…", "Forget Run", "Clear"],
        "compare",
    );

    let dir = scratch_dir();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).expect("an empty folder");
    list_scripts(&window, script_folder(dir.path(), true), &empty);
    window.set_tab(Tab::AllTests);
    let all_tests = look(&window, "All Tests", &mut found);
    assert_absent(
        &all_tests,
        &["Run SD Card Test", "Back", "All drives"],
        "All Tests",
    );
    assert_none(&found);
}

/// The comparison's figures were 20 focusable labels: a screen reader heard "12.60 MB/s" with
/// no row or column. They are a table: each figure named with its phase (a row header) and
/// its run with the run's date and verdict, the header line naming each run; and none of
/// them is a Tab stop.
fn the_comparison_is_a_table_read_with_its_rows_and_columns(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    // The newest run and the oldest: the oldest shows on the left.
    compare_card_runs(&window, 0, 2);
    wait_until("the page transition to end", || window.page_settled());
    iterate_briefly();
    let nodes = tree::read();
    let table = nodes
        .iter()
        .position(|n| n.role == "table" && n.name == "Figures")
        .unwrap_or_else(|| panic!("a table named Figures: {nodes:?}"));
    let cells: Vec<(&str, &str)> = nodes[table + 1..]
        .iter()
        .take_while(|n| n.role == "table cell" || n.role == "row header")
        .map(|n| (n.role.as_str(), n.name.as_str()))
        .collect();
    assert_eq!(cells.len(), 20, "a header line and four figures: {cells:?}");
    assert_eq!(
        &cells[..4],
        [
            ("table cell", "Figure"),
            ("table cell", "Left (2026-05-01 09:00, PASS)"),
            ("table cell", "Right (2026-07-01 09:00, FAIL)"),
            ("table cell", "Change"),
        ]
    );
    assert_eq!(
        &cells[4..8],
        [
            ("row header", "Sequential write"),
            (
                "table cell",
                "Sequential write, Left (2026-05-01 09:00, PASS): 12.60 MB/s"
            ),
            (
                "table cell",
                "Sequential write, Right (2026-07-01 09:00, FAIL): 6.30 MB/s"
            ),
            ("table cell", "Sequential write, Change: ×0.50 (−50 %)"),
        ]
    );
    let focusable = tree::focusable_names(&nodes);
    assert!(
        !focusable
            .iter()
            .any(|n| n.contains("MB/s") || n.contains("IOPS") || n.starts_with("label")),
        "a figure is a Tab stop: {focusable:?}"
    );
}

/// A drive's run is one Tab stop, its row: the row tells a screen reader whether the run is
/// ticked for Compare (the state CHECKED), as the check box it stands for would.
fn a_run_s_row_says_whether_it_is_ticked(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let runs = view.run_rows();
    view.choose(&runs[1].0, "ticked", true);
    settle(&window);
    wait_until("the page transition to end", || window.page_settled());
    iterate_briefly();
    let nodes = tree::read();
    let rows: Vec<(&str, bool)> = nodes
        .iter()
        .filter(|n| n.role == "list item" && n.name.contains("Standard test"))
        .map(|n| (n.name.as_str(), n.checked))
        .collect();
    assert_eq!(
        rows,
        [
            ("2026-07-01 09:00 · Standard test", false),
            ("2026-06-01 09:00 · Standard test", true),
            ("2026-05-01 09:00 · Standard test", false),
        ]
    );
    view.choose(&runs[1].0, "ticked", false);
    settle(&window);
}

/// The SD Card page: ready, running (a long phase, cancelled), results (a small run).
fn every_focusable_control_of_the_sd_card_pages_has_its_own_real_name(app: &Application) {
    let dir = scratch_dir();
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    let mut found = Vec::new();
    let long = profile_file(dir.path(), "long.fio", LONG_PROFILE);
    aim(&window, dir.path(), Some(long));
    look(&window, "ready", &mut found);
    window.run_button().activate();
    let progress = window.progress_view();
    wait_until("a live figure", || progress.figure_text().ends_with("IOPS"));
    let running = look(&window, "running", &mut found);
    assert_absent(&running, &["Run SD Card Test", "Run Again"], "running");
    progress.cancel_button().activate();
    wait_until("the ready page", || !window.test_run().is_busy());
    run_small(&window, dir.path());
    let results = look(&window, "results", &mut found);
    assert_absent(
        &results,
        &["Cancel", "Run SD Card Test", "Run Tests"],
        "results",
    );
    assert_none(&found);
}

fn run_small(window: &Window, dir: &Path) {
    let small = profile_file(dir, "small.fio", SMALL_PROFILE);
    aim(window, dir, Some(small));
    window.run_button().activate();
    wait_until("the results", || {
        window.page() == Page::Results || window.open_dialog().is_some()
    });
    if let Some(dialog) = window.open_dialog() {
        panic!("no dialog, but: {:?} {:?}", dialog.heading(), dialog.body());
    }
}
