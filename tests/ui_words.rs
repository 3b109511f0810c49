//! UI tests of the words the window uses, on a real display (run under `xvfb-run -a cargo
//! test -p agnostics --test ui_words`): error dialogs begin their sentences with a capital and
//! name the test's steps as people know them, not fio's job names; the dialog of figures that
//! memory answered says so plainly and keeps its promise to show them; the results' notes
//! begin with a capital.

#[path = "ui_support/mod.rs"]
mod support;

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::window::Page;
use agnostics::Application;
use agnostics_core::advice::Advice;
use agnostics_core::engine::EngineError;
use agnostics_core::report::{ErrorKind, ErrorReport, Report};
use agnostics_core::sample;

use support::*;

fn main() {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    let tests = crate::ui_tests![
        the_full_drive_dialog_names_the_step_not_the_job,
        figures_memory_answered_are_told_plainly_and_can_be_seen,
        the_results_notes_begin_with_a_capital,
        a_large_fall_in_compare_is_a_fraction_not_a_rounded_ratio,
        all_tests_says_the_sd_card_pages_test_and_its_time,
    ];
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(scratch);
    conclusion.exit()
}

/// A report of a test that measured one run and ended with `kind`'s error saying `message`.
fn ended_with(kind: ErrorKind, message: String, advice: Advice) -> Report {
    let mut report = sample::report()
        .run(sample::run(
            1,
            [
                sample::phase("seq-write").bw_bytes(20e6),
                sample::phase("rand-4k-write").iops(900.0),
                sample::phase("rand-4k-read").iops(2400.0),
            ],
        ))
        .build();
    report.error = Some(ErrorReport::new(kind, message, advice.text()));
    report.advice.push(advice);
    report
}

/// Finding: the dialog of a drive that filled up named fio's job, "prepare-file", and began
/// in lower case. It names the step ("Preparing the test file") and begins with a capital.
fn the_full_drive_dialog_names_the_step_not_the_job(app: &Application) {
    let window = new_window(app);
    let error = EngineError::NoSpace {
        phase: "prepare-file".to_owned(),
    };
    let mut report = ended_with(ErrorKind::NoSpace, String::new(), Advice::FreeSomeSpace);
    report.error = Some(ErrorReport::from_engine(&error));
    window.show_error_of(&report);
    let dialog = window.open_dialog().expect("the error dialog");
    let body = dialog.body().to_string();
    assert!(
        body.starts_with(
            "The drive is full (no space left while running “Preparing the test file”)"
        ),
        "{body:?}"
    );
    assert!(!body.contains("prepare-file"), "{body:?}");
    dialog.response("close");
}

/// Finding: "Memory answered, not the drive" was a riddle, and its dialog said "the figures
/// are shown" while Close returned to the ready page with none. The heading says what
/// happened, and **Show the Figures** shows them.
fn figures_memory_answered_are_told_plainly_and_can_be_seen(app: &Application) {
    let window = new_window(app);
    let report = ended_with(
        ErrorKind::Cached,
        "the reads were answered faster than the drive can".to_owned(),
        Advice::CachedResult,
    );
    window.show_error_of(&report);
    let dialog = window.open_dialog().expect("the error dialog");
    assert_eq!(
        dialog.heading().as_deref(),
        Some("The Figures Came from Memory, Not the Drive")
    );
    assert!(
        dialog.has_response("figures"),
        "Show the Figures is offered"
    );
    assert_eq!(
        dialog.response_label("figures").as_str(),
        "_Show the Figures"
    );
    dialog.response("figures");
    wait_until("the results page", || {
        window.page() == Page::Results && window.page_settled()
    });
    let texts: Vec<String> = labels(window.results_view().upcast_ref())
        .iter()
        .filter(|l| l.is_mapped())
        .map(|l| l.label().to_string())
        .collect();
    assert!(
        texts.iter().any(|t| t == "Sequential write"),
        "the figures are shown: {texts:?}"
    );
}

/// Finding: notes began in lower case (the engine's warnings are made to follow "warning: ").
fn the_results_notes_begin_with_a_capital(app: &Application) {
    let window = new_window(app);
    let mut report = ended_with(ErrorKind::Io, String::new(), Advice::CachedResult);
    report.error = None;
    report.advice.clear();
    report
        .warnings
        .push("could not remove the test file: it is busy".to_owned());
    window.results_view().show_report(&report);
    let texts: Vec<String> = descendants(window.results_view().upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<adw::PreferencesRow>().ok())
        .map(|r| r.title().to_string())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t == "Could not remove the test file: it is busy"),
        "{texts:?}"
    );
    assert!(
        !texts.iter().any(|t| t.starts_with("could not")),
        "{texts:?}"
    );
}

/// Finding: Compare showed a fall to a hundredth as "×0.01 (−99 %)", two roundings that hide
/// the figure. A fall to under a tenth is a fraction, with the change to a tenth of a per cent.
fn a_large_fall_in_compare_is_a_fraction_not_a_rounded_ratio(_app: &Application) {
    use agnostics::pages::history::compare::ratio_text;
    assert_eq!(ratio_text(Some(1.0 / 84.0)), "1/84 (−98.8 %)");
    assert_eq!(ratio_text(Some(0.5)), "×0.50 (−50 %)");
    assert_eq!(ratio_text(Some(3.0)), "×3.00 (+200 %)");
    assert_eq!(ratio_text(None), "—");
}

/// Finding: All Tests said the SD card test takes "(a few minutes)" where the SD Card page
/// said "about 2 minutes" (and a Quick check takes less than one). All Tests names the test
/// chosen there and its time, in the page's words, and follows a new choice.
fn all_tests_says_the_sd_card_pages_test_and_its_time(app: &Application) {
    use agnostics_core::profile::builtin::Builtin;
    let window = new_window(app);
    let ready = window.ready_view();
    let row_subtitle = || {
        descendants(window.tests_view().upcast_ref())
            .into_iter()
            .filter_map(|w| w.downcast::<adw::ActionRow>().ok())
            .find(|r| r.title() == "SD card speed test")
            .and_then(|r| r.subtitle())
            .map(|s| s.to_string())
    };
    for (name, title) in [("quick", "Quick check"), ("standard", "Standard test")] {
        let profile = Builtin::find(name).expect("built in").profile();
        let time = agnostics::format::about_time(profile.slow_card_duration());
        ready.choose_profile(profile);
        let said = format!(
            "Runs the test chosen on the SD Card page ({title}, {time}) on the drive chosen there."
        );
        wait_until("All Tests to follow the choice", || {
            row_subtitle().as_deref() == Some(said.as_str())
        });
        let intro = labels(ready.upcast_ref())
            .into_iter()
            .map(|l| l.label().to_string())
            .find(|t| t.starts_with("The test writes"))
            .expect("the introduction");
        assert!(
            intro.contains(&format!("takes {time} on a slow card")),
            "{intro:?}"
        );
    }
}
