//! UI tests of a test run going to the history, on a real display (run under `xvfb-run -a
//! cargo test -p agnostics --test ui_trend`): a run in the app recorded in a real SQLite
//! history, the next run's trend against it on the results page, the decline advice, the
//! verdict kept on the first screen above the trend, and a history that cannot be written.

#[path = "ui_support/mod.rs"]
mod support;

use std::path::Path;

use adw::prelude::*;
use agnostics::model::history_store::RecordOutcome;
use agnostics::model::test_run::RunState;
use agnostics::testing::WindowProbe;
use agnostics::widgets::save_report::{self, ReportFormat};
use agnostics::window::Page;
use agnostics::{Application, Window};
use agnostics_core::history::{History, IdentityBasis};
use agnostics_core::report::Report;
use agnostics_core::target_dir::Transport;

use support::history_fixture::*;
use support::*;

fn main() {
    crate::support::run_with_scratch_log_and_history(
        crate::ui_tests![
            a_run_in_the_app_is_recorded_and_the_next_shows_its_trend,
            a_history_that_cannot_be_written_still_shows_the_results,
            results_show_the_trend_and_the_decline_advice,
            the_verdict_and_its_advice_stay_on_the_first_screen_above_the_trend,
        ],
        Vec::new(),
    )
}

/// Runs the small profile in `dir` in `window` and waits for its end and its recording.
fn run_small(window: &Window, dir: &Path) -> Report {
    let profile = profile_file(dir, "small.fio", SMALL_PROFILE);
    aim(window, dir, Some(profile));
    let run = window.test_run();
    window.start_test();
    wait_until("the test to start", || run.is_busy());
    wait_until("the test to end", || !run.is_busy());
    assert_eq!(
        run.state(),
        RunState::Finished,
        "{:?}",
        run.report().and_then(|r| r.error)
    );
    wait_until("the recording", || run.recorded().is_some());
    settle(window);
    run.report().unwrap()
}

/// The results page of `first` offers **Save report** (the save dialog, JSON, Markdown and PNG)
/// and still fits the window's narrowest width; its card saved as PNG at `png`.
fn assert_results_save(window: &Window, first: &Report, png: &Path) {
    // The results page offers Save report, and still fits the window's narrowest width.
    let results = window.results_view();
    assert!(
        results.save_button().is_sensitive(),
        "win.save-report is enabled"
    );
    let (min_w, _, _, _) = results.measure(gtk::Orientation::Horizontal, -1);
    assert!(min_w <= 360, "the results page needs {min_w} px");
    // Save report asks where (the save dialog; answered here by the test's own call below).
    WidgetExt::activate_action(window, agnostics::window::Action::SaveReport.name(), None)
        .expect("win.save-report");
    iterate_briefly();
    let chooser = window.open_chooser().expect("the save dialog");
    assert_eq!(chooser.action(), gtk::FileChooserAction::Save);
    assert_eq!(chooser.filters().n_items(), 3, "JSON, Markdown and PNG");
    chooser.hide();
    drop(chooser);
    // The results page saves as PNG too.
    save_report::write_report(
        first,
        None,
        ReportFormat::Png,
        png,
        &window.results_view().card(),
    )
    .expect("the results card as PNG");
    assert_png(png);
}

fn a_run_in_the_app_is_recorded_and_the_next_shows_its_trend(app: &Application) {
    let history = scratch_dir();
    let path = history.path().join("history.sqlite3");
    let disk = scratch_dir();
    let window = new_window(app);
    window.set_history_path(&path);
    let _stop = StopOnDrop(window.clone());
    let first = run_small(&window, disk.path());
    assert!(
        matches!(
            window.test_run().recorded(),
            Some(RecordOutcome::Recorded(..))
        ),
        "{:?}",
        window.test_run().recorded()
    );
    assert!(
        window.results_view().shown_trend().is_empty(),
        "no earlier run yet"
    );
    let h = History::open_read_only(&path).unwrap();
    let stored = h.report(&first.run_id).expect("the run is in the history");
    assert_eq!(stored.run_id, first.run_id);
    drop(h);
    // The History page shows it without being asked: under its drive, or (where the
    // filesystem has no UUID link, as in a container) among the drives not identified.
    let rows = window.history_view().drive_rows();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].2.contains("1 run"), "{rows:?}");
    window.history_view().open_drive(&rows[0].0);
    settle(&window);
    assert_eq!(window.history_view().run_rows()[0].0, first.run_id);

    assert_results_save(&window, &first, &history.path().join("results.png"));

    let second = run_small(&window, disk.path());
    assert_ne!(second.run_id, first.run_id);
    let Some(RecordOutcome::Recorded(recorded, _, _)) = window.test_run().recorded() else {
        panic!("the second run is recorded");
    };
    let trend = window.results_view().shown_trend();
    match (&second.drive, &recorded.trend) {
        (Some(_), Some(t)) => {
            assert_eq!(trend.len(), t.figures.len());
            assert!(
                trend.iter().any(|l| l.contains("1 earlier run")),
                "{trend:?}"
            );
        }
        // Without an identity there is no drive to compare with.
        (None, None) => assert!(trend.is_empty(), "{trend:?}"),
        other => panic!("a trend exactly when the drive is known: {other:?}"),
    }
    let rows = window.history_view().drive_rows();
    assert!(rows[0].2.contains("2 runs"), "{rows:?}");
}

/// The results page of a run with earlier runs of its drive: a line per figure, and the
/// advice for a marked decline (the sequential write far below all three earlier runs).
fn results_show_the_trend_and_the_decline_advice(app: &Application) {
    let f = fixture();
    let mut h = History::open(&f.path).unwrap();
    let card = drive(IdentityBasis::Cid, CARD);
    let now = report_of(
        &card,
        &format!("{:032x}", 0xc0de_1000_u32),
        "2026-08-01T09:00:00+00:00",
        (2.0e6, 40e6, 900.0, 2000.0),
        Transport::Sd,
    );
    let recorded = h.record(&now).unwrap();
    drop(h);
    let trend = recorded.trend.expect("a trend against three earlier runs");
    assert!(trend.decline);
    let window = new_window(app);
    window.results_view().show_report(&now);
    window.show_trend(Some(&trend));
    let lines = window.results_view().shown_trend();
    assert_eq!(lines.len(), trend.figures.len());
    let write = lines
        .iter()
        .find(|l| l.starts_with("Sequential write"))
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert!(write.contains("down"), "{write}");
    assert!(write.contains("3 earlier runs"), "{write}");
    assert!(!agnostics_core::history::decline_advice(&trend).is_empty());
    // Showing another report drops the trend.
    window.results_view().show_report(&now);
    assert!(window.results_view().shown_trend().is_empty());
}

/// Finding: after a second standard run the first screen at 800×480 showed only "Compared
/// with earlier runs" lines, FAIL and its advice needing a scroll, and "down 42 %" had the
/// clock icon of "about the same". The verdict's rows and the first advice come first, and a
/// decline has its own icon.
fn the_verdict_and_its_advice_stay_on_the_first_screen_above_the_trend(app: &Application) {
    let f = fixture();
    let mut h = History::open(&f.path).unwrap();
    let card = drive(IdentityBasis::Cid, CARD);
    let mut now = report_of(
        &card,
        &format!("{:032x}", 0xc0de_2000_u32),
        "2026-08-01T09:00:00+00:00",
        (2.0e6, 40e6, 900.0, 2000.0),
        Transport::Sd,
    );
    // The advice the test gives a slow sequential write.
    now.advice = vec![
        agnostics_core::advice::Advice::SeqWriteSlow,
        agnostics_core::advice::Advice::ReformatSafely { system: false },
    ];
    let trend = h.record(&now).unwrap().trend.expect("a trend");
    drop(h);
    let window = new_window(app);
    let results = window.results_view();
    results.show_report(&now);
    window.show_trend(Some(&trend));
    window.show_page_for_test(Page::Results);
    wait_until("the page transition to end", || window.page_settled());
    iterate_briefly();
    let rows: Vec<adw::ActionRow> = descendants(results.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<adw::ActionRow>().ok())
        .filter(|r| r.is_mapped())
        .collect();
    let titled = |t: &str| {
        rows.iter()
            .find(|r| r.title() == t)
            .unwrap_or_else(|| panic!("a row {t:?}"))
            .clone()
    };
    let failing = results
        .shown_checks()
        .into_iter()
        .find(|c| c.verdict == "FAIL")
        .expect("a FAIL row");
    let advice = failing.advice.first().expect("advice under it").clone();
    assert_on_the_first_screen(&results, "the FAIL row", &titled(&failing.title));
    assert_on_the_first_screen(&results, "its first advice", &titled(&advice));
    // A decline's line has its own icon, not the clock of "about the same".
    let icon_of = |line: &str| {
        descendants(titled(line).upcast_ref())
            .into_iter()
            .filter_map(|w| w.downcast::<gtk::Image>().ok())
            .find_map(|i| i.icon_name().map(|n| n.to_string()))
    };
    let lines = results.shown_trend();
    let down = lines
        .iter()
        .find(|l| l.contains("down"))
        .expect("a decline");
    let same = lines
        .iter()
        .find(|l| l.contains("about the same"))
        .expect("a figure about the same");
    assert_ne!(icon_of(down), icon_of(same), "{down} / {same}");
}

/// `row` of the results page is wholly inside the page's scrolled view, scrolled to the top.
fn assert_on_the_first_screen(
    results: &agnostics::pages::ResultsView,
    what: &str,
    row: &adw::ActionRow,
) {
    let scroller = descendants(results.upcast_ref())
        .into_iter()
        .find(|w| w.is::<gtk::ScrolledWindow>())
        .expect("the page scrolls");
    let screen = scroller.height() as f32;
    let b = row.compute_bounds(&scroller).expect("in the page");
    assert!(
        b.y() >= 0.0 && b.y() + b.height() <= screen,
        "{what} is below the fold: {}..{} of {screen}",
        b.y(),
        b.y() + b.height()
    );
}

fn a_history_that_cannot_be_written_still_shows_the_results(app: &Application) {
    let scratch = scratch_dir();
    // A regular file where the history's folder should be.
    let blocker = scratch.path().join("not-a-folder");
    std::fs::write(&blocker, "x").unwrap();
    let path = blocker.join("history.sqlite3");
    let disk = scratch_dir();
    let window = new_window(app);
    window.set_history_path(&path);
    let _stop = StopOnDrop(window.clone());
    let report = run_small(&window, disk.path());
    assert!(report.error.is_none());
    assert_eq!(window.page(), Page::Results, "the results are shown");
    match window.test_run().recorded() {
        Some(RecordOutcome::Failed(text)) => assert!(!text.is_empty()),
        other => panic!("the store error is reported: {other:?}"),
    }
}
