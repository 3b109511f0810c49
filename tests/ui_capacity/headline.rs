//! One headline for a drive: what its capacity checks found outranks any speed verdict, in
//! the list of drives (one word), on a stored run's results, on the SD Card page before a
//! test, and on the results of a new test (and for screen readers).

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::window::Page;
use agnostics::Application;
use agnostics_core::history::History;
use agnostics_testkit::Ran;

use super::fixture::*;
use super::support::history_fixture::*;
use super::support::*;

/// The headline of a drive found fake.
const FAKE: &str = "This drive is fake: do not trust it with your files";

/// The fixture's card, found fake by a stored check: its row says one word, **Found fake**
/// (no PASS beside it, in a badge or the line under its name), and its stored run is headed as fake with what to do, for screen
/// readers too; the stick, never checked, keeps its speed verdict.
pub fn a_drive_found_fake_has_one_word_and_its_runs_are_headed_fake(app: &Application) {
    let fixture = fake_fixture();
    let window = history_window(app, &fixture.path);
    let view = window.history_view();
    assert_eq!(view.drive_badges(&key(CARD)), ["Found fake"]);
    let stick = view.drive_badges(&key(STICK));
    assert_eq!(stick.len(), 1, "{stick:?}");
    assert_ne!(stick[0], "Found fake");
    // Nor does the line under its name give a verdict beside the mark; the stick's does.
    let subtitle = |k| {
        view.drive_rows()
            .into_iter()
            .find(|(key, _, _)| *key == k)
            .map(|(_, _, sub)| sub)
            .unwrap()
    };
    let card = subtitle(key(CARD));
    assert!(card.starts_with("SD card · 3 runs · last on "), "{card}");
    let verdicts = ["PASS", "FAIL", "NOT GRADED", "ERROR"];
    assert!(!verdicts.iter().any(|v| card.contains(v)), "{card}");
    let stick_line = subtitle(key(STICK));
    assert!(
        verdicts.iter().any(|v| stick_line.contains(v)),
        "{stick_line}"
    );

    view.open_run(&format!("{:032x}", 0xc0de_0002_usize));
    settle(&window);
    let results = view.run_results();
    assert_eq!(results.title_text(), FAKE);
    assert!(
        results.verdict_style().split(' ').any(|c| c == "error"),
        "{}",
        results.verdict_style()
    );
    let note = results.reference_note_text().expect("what to do");
    assert!(note.contains("Copy your files off it"), "{note}");
    let said = results.announcement();
    assert!(said.starts_with(FAKE), "{said}");
    assert!(
        !said.contains("PASS") && !said.contains("fast enough"),
        "{said}"
    );

    view.open_run(&format!("{:032x}", 0x5717_0000_u32));
    settle(&window);
    assert_ne!(results.title_text(), FAKE);
    assert!(!results.announcement().contains("fake"));
}

/// A loop-mounted ext4 tested once (no warning, its speed verdict heads the results), then
/// found fake by a capacity check kept in the history: the SD Card page warns of it above
/// **Run** with what to do, and the next speed test of it is headed as fake, whatever its
/// speed, for screen readers too.
pub fn a_drive_found_fake_is_warned_of_before_a_test_and_headed_fake_after(
    app: &Application,
) -> Ran {
    let fs = loop_fs(64)?;
    let history = scratch_dir();
    let history_path = history.path().join("h.sqlite3");
    let window = window_on(app, &fs.mount, &history_path);
    let _stop = StopOnDrop(window.clone());
    let ready = window.ready_view();
    let profile = profile_file(history.path(), "small.fio", SMALL_PROFILE);
    aim(&window, &fs.mount, Some(profile.clone()));
    wait_until("the connected drives", || window.connected_known());
    assert_eq!(ready.drive_warning(), None);

    let first = run_to_results(&window);
    assert_ne!(window.results_view().title_text(), FAKE);
    let identity = first.drive.expect("an ext4 filesystem is identified");
    let mut check = fake_check("2026-07-02T10:00:00+00:00");
    check.identity = Some(identity);
    History::open(&history_path)
        .unwrap()
        .record_capacity(&check)
        .expect("the check is kept");

    // The drives listed again (as after a check): the chosen one is warned of.
    aim(&window, &fs.mount, Some(profile));
    wait_until("the warning", || ready.drive_warning().is_some());
    let warning = ready.drive_warning().unwrap();
    assert!(
        warning.starts_with(&format!("{FAKE}\n")),
        "the headline, then on its own line what to do: {warning:?}"
    );
    assert!(warning.contains("Copy your files off it"), "{warning}");

    run_to_results(&window);
    let results = window.results_view();
    assert_eq!(results.title_text(), FAKE);
    assert!(results.announcement().starts_with(FAKE));
    assert!(
        results
            .reference_note_text()
            .is_some_and(|n| n.contains("Copy your files off it")
                && n.contains("\nThe speeds below were measured, but a drive that loses data")),
        "{:?}",
        results.reference_note_text()
    );
    Ok(())
}

/// Runs the SD card test from **Run** to its results, recorded in the history; its report.
pub fn run_to_results(window: &agnostics::Window) -> agnostics_core::report::Report {
    WidgetExt::activate_action(window, agnostics::window::Action::Run.name(), None)
        .expect("win.run");
    wait_until("the test to start", || {
        window.test_run().recorded().is_none()
    });
    wait_until("the run in the history", || {
        window.test_run().recorded().is_some() || window.open_dialog().is_some()
    });
    if let Some(dialog) = window.open_dialog() {
        panic!(
            "an error dialog: {} {}",
            dialog.heading().unwrap_or_default(),
            dialog.body()
        );
    }
    iterate_briefly();
    assert_eq!(window.page(), Page::Results);
    window.last_report().expect("the report")
}
