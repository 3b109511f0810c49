//! UI test of the sustained write test's results (run under `xvfb-run -a cargo test -p
//! agnostics --test ui_sustained`): the built-in profile `sustained` run for real on a folder
//! on disk (capped at 24 MiB), and the results page's headline, chart and marking rows
//! compared with the engine's own report.
//!
//! With `AGNOSTICS_SCREENSHOTS=DIR`, `renders_sustained_screenshots` (alone, in the language of
//! `LANGUAGE`) renders the results page at 800×480 to `DIR/results-sustained{,-LANG}.png`, and
//! a result with a cliff and a missed claim, its chart and its markings, at 800×480 and
//! 360×480 to `DIR/results-sustained-{cliff,markings}{,-360}{,-LANG}.png`.

#[path = "ui_support/mod.rs"]
mod support;

use std::path::PathBuf;

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::window::Page;
use agnostics::Application;
use agnostics_core::profile::builtin;
use agnostics_core::report::Report;
use agnostics_core::sustained::{self, markings, text, SpeedSample};

use support::*;

fn main() {
    // The test short (set before any thread starts).
    std::env::set_var(sustained::plan::MAX_ENV, "24m");
    crate::support::run_with_scratch_log_and_history(
        crate::ui_tests![runs_the_sustained_profile_and_shows_its_result],
        crate::ui_tests![renders_sustained_screenshots],
    )
}

/// Runs the built-in sustained profile on `dir` in `window` until its results show; the
/// engine's report.
fn run_sustained(window: &agnostics::Window, dir: &std::path::Path) -> Report {
    aim(window, dir, None);
    let index = builtin::ALL
        .iter()
        .position(|b| b.which == builtin::BuiltinProfile::Sustained)
        .expect("the built-in sustained profile");
    window.profile_row().set_selected(index as u32);
    window.run_button().activate();
    wait_until("the results", || {
        window.page() == Page::Results || window.open_dialog().is_some()
    });
    assert!(window.open_dialog().is_none(), "no error dialog");
    let report = window.last_report().expect("the engine's report");
    assert!(report.error.is_none(), "{:?}", report.error);
    report
}

fn runs_the_sustained_profile_and_shows_its_result(app: &Application) {
    let dir = scratch_dir();
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    let report = run_sustained(&window, dir.path());
    let result = report
        .deciding_run()
        .and_then(|r| r.sustained.as_deref())
        .expect("the sustained result")
        .clone();
    assert_eq!(result.written_bytes, 24 << 20);
    assert_eq!(result.corrupt_blocks, 0);
    assert_eq!(result.verified_bytes, 24 << 20);

    let results = window.results_view();
    let shown = results.shown_sustained().expect("the sustained groups");
    // A folder on this machine's disk, not an SD card: "This drive …".
    assert!(!report.sd_graded);
    assert_eq!(shown.headline, text::headline(&result, false));
    assert!(
        shown.headline.starts_with("This drive "),
        "{}",
        shown.headline
    );
    marking_rows_say_what_was_found(&shown.markings, &result);
    // The headline and the rows are on screen, named for screen readers.
    let texts: Vec<String> = labels(results.upcast_ref())
        .iter()
        .filter(|l| l.is_drawable())
        .map(|l| l.label().to_string())
        .collect();
    assert!(texts.contains(&shown.headline), "{texts:?}");
    assert!(texts.contains(&shown.markings[0].1), "{texts:?}");
    says_the_drive_not_the_card(&texts);

    // The chart drew every sample, its axes named, the cliff's line when there is a cliff.
    let chart = shown.chart.clone();
    assert_eq!(chart.len(), result.samples.len());
    assert!(!chart.is_empty());
    assert_eq!(
        agnostics::a11y::label_of(&chart).as_deref(),
        Some(chart.description().as_str())
    );
    assert!(chart.description().starts_with("Chart of the write speed"));
    window.show_page_for_test(Page::Results);
    wait_until("the chart drawn", || !chart.drawn_text().is_empty());
    let drawn: Vec<String> = chart.drawn_text().into_iter().map(|d| d.text).collect();
    assert!(drawn.contains(&"MB written".to_owned()), "{drawn:?}");
    // The speed's unit is MB/s, or GB/s on a drive faster than 870 MB/s.
    assert!(
        drawn.iter().any(|t| t == "MB/s" || t == "GB/s"),
        "{drawn:?}"
    );
    assert_eq!(chart.drew_cliff(), result.cliff_bytes.is_some());
    assert!(
        chart.drawn_text().iter().all(|d| d.unknown_glyphs == 0),
        "{:?}",
        chart.drawn_text()
    );

    shows_a_cliff_and_a_missed_claim(&window, &report);
}

/// Not an SD card: the groups' descriptions among `texts` (the page's labels) say "the drive"
/// and "this drive", not "the card".
fn says_the_drive_not_the_card(texts: &[String]) {
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("How fast the drive kept writing")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.starts_with(
            "Each marking promises a minimum sustained write speed; this drive kept "
        )),
        "{texts:?}"
    );
    assert!(
        !texts
            .iter()
            .any(|t| t.starts_with("How fast the card") || t.contains("; this card kept ")),
        "{texts:?}"
    );
}

/// One row per marking, in the engine's order, with its minimum and what was found.
fn marking_rows_say_what_was_found(rows: &[(String, String)], result: &sustained::SustainedResult) {
    let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<&str> = result.markings.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, expected);
    assert_eq!(names.len(), 11);
    for ((_, value), m) in rows.iter().zip(&result.markings) {
        let min = format!("at least {} MB/s; ", m.min_bytes_per_second / 1_000_000);
        assert!(value.starts_with(&min), "{value}");
        let met = match m.met {
            Some(true) => "kept up here: yes;",
            Some(false) => "kept up here: no;",
            None => "kept up here: this computer's link to the card cannot show it;",
        };
        assert!(value.contains(met), "{value}");
    }
}

/// Scrolls the results page so that `chart` is at the top of its view.
fn scroll_to(chart: &agnostics::widgets::sustained_chart::SustainedChart) {
    scroll_to_widget(chart.upcast_ref());
}

/// The same report with a cliff after 8 MiB (45 MB/s, then 12 MB/s) and V30 claimed: the
/// headline says the claim missed, the chart marks the cliff, the V30 row says claimed: yes.
/// As on an SD card (whose SD Status gives the claims): "This card …".
fn shows_a_cliff_and_a_missed_claim(window: &agnostics::Window, report: &Report) {
    let report = with_a_cliff(report);
    let results = window.results_view();
    results.show_report(&report);
    let shown = results.shown_sustained().expect("the sustained groups");
    let texts: Vec<String> = labels(results.upcast_ref())
        .iter()
        .map(|l| l.label().to_string())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("How fast the card kept writing")),
        "{texts:?}"
    );
    assert_eq!(
        shown.headline,
        "This card slowed to 12.0 MB/s after its first 8 MiB: enough for Full HD video, not \
         for 4K; it claims V30 but does not keep up with it here."
    );
    let v30 = shown
        .markings
        .iter()
        .find(|(n, _)| n == "V30")
        .expect("V30");
    assert_eq!(
        v30.1,
        "at least 30 MB/s; kept up here: no; claimed by the card: yes"
    );
    let v90 = shown
        .markings
        .iter()
        .find(|(n, _)| n == "V90")
        .expect("V90");
    assert_eq!(
        v90.1,
        "at least 90 MB/s; kept up here: this computer's link to the card cannot show it; \
         claimed by the card: no"
    );
    let chart = shown.chart;
    assert_eq!(chart.len(), 6);
    assert!(chart
        .description()
        .ends_with("The dashed line marks where the speed fell, after 8 MiB."));
    wait_until("the chart drawn", || !chart.drawn_text().is_empty());
    assert!(chart.drew_cliff());
    let drawn: Vec<String> = chart.drawn_text().into_iter().map(|d| d.text).collect();
    assert!(drawn.contains(&"MB/s".to_owned()), "{drawn:?}");
    // The cliff's line is labelled with where the speed fell.
    assert!(drawn.contains(&"8 MiB".to_owned()), "{drawn:?}");
    // The page with the chart and the eleven marking rows fits the narrowest window.
    let (min_w, _, _, _) = results.measure(gtk::Orientation::Horizontal, -1);
    assert!(min_w <= 360, "the sustained results need {min_w} px");
}

/// `report` with a cliff after 8 MiB (45 MB/s, then 12 MB/s) and V30 claimed, as on an SD
/// card.
fn with_a_cliff(report: &Report) -> Report {
    let mut report = report.clone();
    report.sd_graded = true;
    let run = report.runs.last_mut().expect("a run");
    let r = run.sustained.as_deref_mut().expect("the sustained result");
    r.cliff_bytes = Some(8 << 20);
    r.before_bytes_per_second = 45e6;
    r.after_bytes_per_second = Some(12e6);
    r.sustained_bytes_per_second = 12e6;
    r.samples = (1..=6)
        .map(|i| SpeedSample {
            bytes: i * (4 << 20),
            bytes_per_second: if i <= 2 { 45e6 } else { 12e6 },
        })
        .collect();
    r.markings = markings::judge(12e6, Some(50e6), None);
    r.markings
        .iter_mut()
        .for_each(|m| m.claimed = Some(m.name == "V30"));
    report
}

/// Scrolls the results page so that `widget` is at the top of its view.
fn scroll_to_widget(widget: &gtk::Widget) {
    let scroller = widget
        .ancestor(gtk::ScrolledWindow::static_type())
        .and_downcast::<gtk::ScrolledWindow>()
        .expect("the page scrolls");
    #[allow(deprecated)] // compute_point is GTK 4.12; translate_coordinates is 4.0's.
    let (_, y) = widget
        .translate_coordinates(&scroller, 0.0, 0.0)
        .expect("the widget is in the page");
    let adjustment = scroller.vadjustment();
    adjustment.set_value(adjustment.value() + y - 8.0);
    iterate_briefly();
}

/// The results of a real run (the top of the page), then the same with a cliff and a missed
/// claim: its chart and its markings, at 800×480 and at 360×480, in the language of
/// `LANGUAGE` (the file names end in `-LANG` but for English).
fn renders_sustained_screenshots(app: &Application) {
    let out = PathBuf::from(std::env::var_os("AGNOSTICS_SCREENSHOTS").unwrap());
    let lang = screenshot_suffix();
    let dir = scratch_dir();
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    let report = run_sustained(&window, dir.path());
    window.show_page_for_test(Page::Results);
    save_png(&window, &out.join(format!("results-sustained{lang}.png")));
    let results = window.results_view();
    results.show_report(&with_a_cliff(&report));
    let shown = results.shown_sustained().expect("the sustained groups");
    let markings = markings_group_of(&results);
    for width in ["", "-360"] {
        if !width.is_empty() {
            let content = window.content().expect("the window has content");
            let frame_w = window.default_width() - content.width();
            let frame_h = window.default_height() - content.height();
            // Every page in the window's stack, the running page with this run's last
            // figure too, fits 360 px in this language.
            let (min_w, _, _, _) = content.measure(gtk::Orientation::Horizontal, -1);
            assert!(min_w <= 360, "the window needs {min_w} px");
            window.set_default_size(360 + frame_w.max(0), 480 + frame_h.max(0));
            wait_until("a 360 px window", || content.width() == 360);
        }
        iterate_briefly();
        scroll_to(&shown.chart);
        wait_until("the chart drawn", || !shown.chart.drawn_text().is_empty());
        save_png(
            &window,
            &out.join(format!("results-sustained-cliff{width}{lang}.png")),
        );
        scroll_to_widget(&markings);
        save_png(
            &window,
            &out.join(format!("results-sustained-markings{width}{lang}.png")),
        );
    }
}

/// The "Speed markings" group of the results page: the group with the V30 row.
fn markings_group_of(results: &impl IsA<gtk::Widget>) -> gtk::Widget {
    descendants(results.upcast_ref())
        .into_iter()
        .find(|w| w.is::<adw::PreferencesGroup>() && labels(w).iter().any(|l| l.label() == "V30"))
        .expect("the markings group (its V30 row)")
}
