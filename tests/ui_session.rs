//! The **All Tests** session object and its list: the `state` property's transitions (idle →
//! running → finished; stopping when asked to stop, also during the SD card test), the
//! [`gio::ListStore`] of items with their `state` and `result`, real scripts run on the
//! generic worker, and the rows of the tests view bound to the items both ways. Needs a
//! display for the rows (run under `xvfb-run -a`).

#[path = "ui_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use adw::prelude::*;
use agnostics::model::scripts_worker;
use agnostics::model::tests_session::{
    Begun, Outcome, SessionState, TestItem, TestState, TestsSession,
};
use agnostics::pages::TestsView;
use agnostics::testing::WindowProbe;
use agnostics::window::Tab;
use agnostics::Application;
use agnostics_core::scripts::{RunOptions, ScriptTest};
use agnostics_core::verdict::Verdict;
use gtk::glib;

use support::*;

fn main() {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    std::env::set_var("GSETTINGS_BACKEND", "memory");
    let tests = crate::ui_tests![
        a_session_goes_idle_running_finished_and_reset_makes_it_idle,
        stop_during_the_sd_card_test_runs_no_script,
        stop_during_a_script_aborts_it_and_finishes,
        a_stale_listing_is_dropped_and_none_is_taken_while_running,
        rows_follow_the_items_and_the_switches_set_them,
        runs_the_selected_scripts_shows_their_results_and_logs_them,
        stop_aborts_the_running_script,
    ];
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(scratch);
    conclusion.exit()
}

fn script(dir: &Path, file: &str, name: &str, body: &str) -> ScriptTest {
    let path = dir.join(file);
    std::fs::write(&path, format!("#NAME={name}\n#DESC=d {name}\n{body}\n")).unwrap();
    ScriptTest {
        name: name.into(),
        description: format!("d {name}"),
        file: path,
    }
}

fn listed(session: &TestsSession, scripts: Vec<ScriptTest>) {
    let generation = session.begin_listing();
    assert!(!session.loaded());
    assert!(session.set_scripts(generation, scripts));
    assert!(session.loaded());
}

/// Every state the session's `state` property took, in order, from now on.
fn record_states(session: &TestsSession) -> std::rc::Rc<std::cell::RefCell<Vec<SessionState>>> {
    let states = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = states.clone();
    session.connect_state_notify(move |s| sink.borrow_mut().push(s.state()));
    states
}

fn results(session: &TestsSession) -> Vec<String> {
    session.item_list().iter().map(TestItem::result).collect()
}

fn run_scripts(session: &TestsSession, log: PathBuf) {
    let worker = scripts_worker::spawn(log, None, session.scripts(), RunOptions::default())
        .expect("the scripts' thread");
    session.run_scripts(worker);
}

fn a_session_goes_idle_running_finished_and_reset_makes_it_idle(_app: &Application) {
    let dir = scratch_dir();
    let session = TestsSession::new();
    assert_eq!(session.state(), SessionState::Idle);
    assert_eq!(session.items().n_items(), 1, "the SD card test alone");
    listed(
        &session,
        vec![
            script(dir.path(), "a.sh", "Pass", "true"),
            script(dir.path(), "b.sh", "Fail", "exit 3"),
        ],
    );
    let items = session.item_list();
    assert_eq!(items.len(), 3);
    assert!(items[0].script_test().is_none());
    assert_eq!(items[1].name(), "Pass");
    assert_eq!(items[2].description(), "d Fail");
    assert!(items
        .iter()
        .all(|i| i.selected() && i.state() == TestState::Idle));
    let states = record_states(&session);

    // Nothing chosen: nothing starts.
    for item in &items {
        item.set_selected(false);
    }
    assert_eq!(session.begin(), Begun::NothingChosen);
    assert_eq!(session.state(), SessionState::Idle);
    for item in &items {
        item.set_selected(true);
    }

    assert_eq!(session.begin(), Begun::Started { sd: true });
    assert_eq!(session.state(), SessionState::Running);
    assert!(session.is_busy());
    assert_eq!(session.begin(), Begun::Busy);
    assert!(session.sd_pending());
    assert_eq!(items[0].state(), TestState::Running);
    assert_eq!(session.scripts().len(), 2);

    assert!(session.sd_ended(Some(Verdict::Pass)));
    assert!(!session.sd_ended(Some(Verdict::Fail)), "only once");
    assert_eq!(items[0].state(), TestState::Ended);
    assert_eq!(items[0].outcome(), Some(Outcome::Sd(Some(Verdict::Pass))));
    assert_eq!(items[0].result(), "PASS");

    run_scripts(&session, dir.path().join("rpdiags.txt"));
    wait_until("the session to finish", || {
        session.state() == SessionState::Finished
    });
    assert_eq!(results(&session), ["PASS", "PASS", "FAIL"]);
    assert_eq!(items[2].script_result().and_then(|r| r.exit_code), Some(3));
    assert!(items.iter().all(|i| i.state() == TestState::Ended));
    assert_eq!(session.error(), None);
    assert!(std::fs::read_to_string(dir.path().join("rpdiags.txt"))
        .unwrap()
        .contains("Test : Fail"));

    // Reset: no results, every test chosen, idle.
    items[1].set_selected(false);
    session.reset();
    assert_eq!(results(&session), ["", "", ""]);
    assert!(items
        .iter()
        .all(|i| i.selected() && i.state() == TestState::Idle));
    assert_eq!(
        *states.borrow(),
        [
            SessionState::Running,
            SessionState::Finished,
            SessionState::Idle
        ]
    );
}

fn stop_during_the_sd_card_test_runs_no_script(_app: &Application) {
    let dir = scratch_dir();
    let session = TestsSession::new();
    listed(&session, vec![script(dir.path(), "a.sh", "Pass", "true")]);
    let states = record_states(&session);
    assert_eq!(session.begin(), Begun::Started { sd: true });
    assert!(session.cancel(), "the window stops its SD card test");
    assert_eq!(session.state(), SessionState::Stopping);
    assert!(!session.cancel(), "once");
    assert!(session.sd_ended(None));
    assert_eq!(session.item_list()[0].result(), "Aborted");
    assert!(
        session.scripts().is_empty(),
        "nothing after the stopped test"
    );
    run_scripts(&session, dir.path().join("rpdiags.txt"));
    wait_until("the session to finish", || {
        session.state() == SessionState::Finished
    });
    assert_eq!(results(&session), ["Aborted", ""]);
    assert_eq!(
        *states.borrow(),
        [
            SessionState::Running,
            SessionState::Stopping,
            SessionState::Finished
        ]
    );
}

fn stop_during_a_script_aborts_it_and_finishes(_app: &Application) {
    let dir = scratch_dir();
    let session = TestsSession::new();
    listed(
        &session,
        vec![
            script(dir.path(), "slow.sh", "Slow", "sleep 30"),
            script(dir.path(), "next.sh", "Next", "true"),
        ],
    );
    session.item_list()[0].set_selected(false);
    assert_eq!(session.begin(), Begun::Started { sd: false });
    assert_eq!(session.item_list()[0].state(), TestState::Idle);
    run_scripts(&session, dir.path().join("rpdiags.txt"));
    let slow = session.item_list()[1].clone();
    wait_until("the script to start", || slow.state() == TestState::Running);
    assert!(!session.cancel(), "no SD card test to stop");
    assert_eq!(session.state(), SessionState::Stopping);
    wait_until("the session to finish", || {
        session.state() == SessionState::Finished
    });
    assert_eq!(results(&session), ["", "Aborted", ""]);
    assert_eq!(session.item_list()[2].state(), TestState::Idle);
}

fn a_stale_listing_is_dropped_and_none_is_taken_while_running(_app: &Application) {
    let dir = scratch_dir();
    let session = TestsSession::new();
    let first = session.begin_listing();
    let second = session.begin_listing();
    assert!(!session.set_scripts(first, vec![script(dir.path(), "a.sh", "Old", "true")]));
    assert_eq!(session.items().n_items(), 1);
    assert!(session.set_scripts(second, vec![script(dir.path(), "b.sh", "New", "true")]));
    assert_eq!(session.item_list()[1].name(), "New");
    assert_eq!(session.begin(), Begun::Started { sd: true });
    let third = session.begin_listing();
    assert!(!session.set_scripts(third, Vec::new()), "not while running");
    assert_eq!(session.items().n_items(), 2);
    session.finish(Some("the log could not be written".into()));
    assert_eq!(session.state(), SessionState::Finished);
    assert_eq!(
        session.error().as_deref(),
        Some("the log could not be written")
    );
    assert_eq!(
        session.item_list()[0].state(),
        TestState::Idle,
        "an SD card test that never ended shows no result"
    );
}

fn rows_follow_the_items_and_the_switches_set_them(app: &Application) {
    let dir = scratch_dir();
    let window = new_window(app);
    let session = window.tests_session();
    let view = window.tests_view();
    let generation = session.begin_listing();
    assert!(session.set_scripts(
        generation,
        vec![
            script(dir.path(), "a.sh", "<b>A</b>", "true"),
            script(dir.path(), "b.sh", "B", "true"),
        ],
    ));
    let titles: Vec<String> = view.shown_tests().into_iter().map(|t| t.title).collect();
    assert_eq!(titles[1..], ["<b>A</b>", "B"]);
    let rows = view.rows();
    assert_eq!(rows.len(), 3);
    let items = session.item_list();
    for (row, item) in rows.iter().zip(&items) {
        assert_eq!(row.item().as_ref(), Some(item));
        assert!(row.row.parent().and_downcast::<gtk::ListBox>().is_some());
    }

    // The switch and the item's `selected`, both ways.
    rows[1].switch.set_active(false);
    assert!(!items[1].selected());
    items[1].set_selected(true);
    assert!(rows[1].switch.is_active());
    view.set_selected(2, false);
    assert!(!items[2].selected());

    // The result column follows the item; the switches lock while the session runs.
    assert_eq!(session.begin(), Begun::Started { sd: true });
    assert_eq!(view.shown_tests()[0].result, "…");
    assert!(rows.iter().all(|r| !r.switch.is_sensitive()));
    assert!(view.stop_button().is_visible() && !view.run_button().is_visible());
    session.sd_ended(Some(Verdict::Fail));
    assert_eq!(view.shown_tests()[0].result, "FAIL");
    session.finish(None);
    assert!(rows.iter().all(|r| r.switch.is_sensitive()));
    assert!(view.run_button().is_visible() && !view.stop_button().is_visible());
    session.reset();
    assert!(view
        .shown_tests()
        .iter()
        .all(|t| t.selected && t.result.is_empty()));

    // A new list replaces the rows; the old items let go of theirs.
    let weak = glib::WeakRef::<TestItem>::new();
    weak.set(Some(&items[1]));
    drop(items);
    drop(rows);
    let generation = session.begin_listing();
    assert!(session.set_scripts(generation, Vec::new()));
    assert_eq!(view.rows().len(), 1);
    iterate_briefly();
    assert!(weak.upgrade().is_none(), "a replaced item is freed");
}

/// The scripts' results on the All Tests page `view` after a run of the scripts only: the big
/// output capped and shown in its dialog, the failure's exit status and output, names and
/// descriptions as text, not markup.
fn assert_script_results_shown(view: &TestsView) {
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
}

/// The log after a run of the scripts only: each script's lines as upstream writes them, every
/// byte of the big output, no SD card test; and the page's **Show Log** button.
fn assert_scripts_logged(view: &TestsView) {
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
        Some(agnostics::window::Action::ShowLog.name())
    );
    assert!(view.show_log_button().is_sensitive());
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
    let focus = gtk::prelude::GtkWindowExt::focus(&window).expect("a focus");
    assert!(
        focus.is::<gtk::ListBoxRow>() && focus.is_ancestor(&view),
        "the focus is on the first test, not on Run Tests: {focus:?}"
    );
    assert_eq!(
        window.default_widget(),
        None,
        "Enter does not run the tests"
    );
    assert_fits_800x480(&window, "tests");

    // The scripts only.
    view.set_selected(0, false);
    view.run_button().emit_clicked();
    assert!(window.is_running_tests());
    wait_until("the tests to end", || !window.is_running_tests());
    let results: Vec<String> = view.shown_tests().into_iter().map(|t| t.result).collect();
    assert_eq!(results, ["", "PASS", "PASS", "FAIL", "PASS"]);
    assert_script_results_shown(&view);
    assert_scripts_logged(&view);

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
