//! The capacity check's flow as a novice meets it: the question names the drive and what it
//! is, states the plan's own bytes and how far the free space reaches, and shows nothing
//! behind it until it is answered; declining it says that nothing was checked and gives the
//! focus back to the button it came from; a check started from a drive's History page runs
//! and ends there, and two checks of one minute are told apart; a screen reader finds one
//! **Check** and one **Cancel** in the question.

use adw::prelude::*;
use agnostics::pages::{HistoryPage, HistoryView};
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{Application, Window};
use agnostics_core::history::History;
use agnostics_core::units::si_bytes;
use agnostics_testkit::Ran;

use super::fixture::*;
use super::support::*;

/// The question of a check on a disk image that is nearly full: named so, with the plan's
/// bytes and the share it can reach; nothing behind it; Escape (its close response) checks
/// nothing and says so.
pub fn the_question_names_the_drive_and_states_the_plan_with_nothing_behind_it(
    app: &Application,
) -> Ran {
    let fs = loop_fs(256)?;
    let history = scratch_dir();
    let window = window_on(app, &fs.mount, &history.path().join("h.sqlite3"));
    window.dismiss_toasts();
    let dialog = ask(&window);
    assert_eq!(dialog.heading().as_deref(), Some("Check This Disk Image?"));
    let drive = window.ready_view().chosen_drive().expect("a drive").label;
    assert!(drive.starts_with("Disk image"), "{drive}");
    let body = body_of(&dialog);
    assert!(body.starts_with(&format!("{drive}\n\n")), "{body}");
    let cost = window.capacity_check().cost().expect("the plan");
    assert!(
        body.contains(&format!(
            "It writes {} in free space",
            si_bytes(cost.bytes_written)
        )),
        "the plan's own figure, as the command-line tool states it: {body}"
    );
    let percent = (cost.coverage * 100.0).floor();
    assert!(percent < 80.0, "a nearly full drive: {percent}");
    assert!(
        body.contains(&format!(
            "There is only enough free space to reach {percent} % of the drive, so the check \
             cannot tell whether it is fake beyond that."
        )),
        "{body}"
    );
    assert_eq!(
        window.page(),
        Page::Ready,
        "no check page behind the question"
    );
    assert!(!window.capacity_view().is_mapped());
    assert_eq!(dialog.close_response(), "cancel");
    dialog.response("cancel");
    wait_until("the check to stop", || !window.capacity_check().is_busy());
    assert_eq!(window.page(), Page::Ready);
    let toasts = window.toast_titles();
    assert_eq!(toasts, ["Nothing was checked"], "{toasts:?}");
    assert_eq!(
        gtk::prelude::GtkWindowExt::focus(&window),
        Some(window.capacity_button().upcast()),
        "the focus is back on Check Capacity"
    );
    assert!(files_in(&fs.mount).is_empty(), "{:?}", files_in(&fs.mount));
    Ok(())
}

/// A first check of the window's drive from the SD Card page, then that drive's History page
/// open, the connected drives found: the history view.
pub fn open_checked_drive(window: &Window) -> HistoryView {
    // A first check from the SD Card page puts the drive in the history.
    ask(window).response("check");
    wait_until("the first verdict", || !window.capacity_check().is_busy());
    wait_until("the check in the history", || {
        window.capacity_check().recorded().is_some()
    });
    window.capacity_view().done_button().emit_clicked();

    window.set_tab(Tab::History);
    let view = window.history_view();
    wait_until("the history", || {
        !view.is_loading() && !view.drive_rows().is_empty()
    });
    let drive = view.drive_rows()[0].0.clone();
    view.open_drive(&drive);
    wait_until("the drive's page", || {
        !view.is_loading() && view.visible_page() == HistoryPage::Drive
    });
    wait_until("the connected drives found", || window.connected_known());
    view
}

/// A check started from a drive's History page stays on the History tab: its progress, its
/// verdict, and a declined question all happen there.
pub fn a_check_from_a_drive_s_history_page_runs_and_ends_there(app: &Application) -> Ran {
    let fs = loop_fs(256)?;
    let history = scratch_dir();
    let window = window_on(app, &fs.mount, &history.path().join("h.sqlite3"));
    let view = open_checked_drive(&window);
    let button = view.check_capacity_button();
    wait_until("Check Capacity on the drive's page", || {
        button.is_sensitive()
    });

    button.emit_clicked();
    wait_until("the question", || window.capacity_question().is_some());
    assert_eq!(window.tab(), Tab::History);
    assert_eq!(view.visible_page(), HistoryPage::Drive, "nothing behind it");
    window.capacity_question().unwrap().response("check");
    assert_eq!(
        window.tab(),
        Tab::History,
        "the check runs where it was started"
    );
    assert_eq!(view.visible_page(), HistoryPage::Check);
    let check_view = view.check_view();
    assert!(
        check_view.cancel_button().is_mapped(),
        "Cancel while it runs"
    );
    wait_until("the verdict", || !window.capacity_check().is_busy());
    iterate_briefly();
    assert_eq!(window.tab(), Tab::History, "and ends there");
    assert_eq!(view.visible_page(), HistoryPage::Check);
    assert!(
        check_view.heading_text().starts_with("Checked only up to "),
        "{}",
        check_view.heading_text()
    );
    assert!(
        !check_view.done_button().is_mapped(),
        "the page's Back leads on"
    );
    // Kept in the history, it is a stored check there: it can be saved or forgotten.
    wait_until("the check kept", || view.shown_check().is_some());
    assert_eq!(view.shown_check(), window.capacity_check().report());

    // Declined from there: nothing checked, the focus back on the drive page's button.
    view.go_back();
    wait_until("the drive's page", || {
        !view.is_loading() && view.visible_page() == HistoryPage::Drive
    });
    // Two checks of one minute are told apart (by their seconds).
    wait_until("both checks listed", || view.check_rows().len() == 2);
    let rows = view.check_rows();
    let stored = History::open_read_only(&history.path().join("h.sqlite3"))
        .unwrap()
        .capacity_checks(None)
        .unwrap();
    assert_eq!(stored.len(), 2);
    if stored[0].started != stored[1].started {
        assert_ne!(rows[0].0, rows[1].0, "{rows:?}");
    }
    wait_until("the check button", || button.is_sensitive());
    window.dismiss_toasts();
    button.emit_clicked();
    wait_until("the question", || window.capacity_question().is_some());
    window.capacity_question().unwrap().response("cancel");
    wait_until("the check to stop", || !window.capacity_check().is_busy());
    assert_eq!(window.tab(), Tab::History);
    assert_eq!(view.visible_page(), HistoryPage::Drive);
    assert_eq!(window.toast_titles(), ["Nothing was checked"]);
    assert_eq!(
        gtk::prelude::GtkWindowExt::focus(&window),
        Some(button.upcast())
    );
    Ok(())
}

/// A screen reader finds one **Check** and one **Cancel** in the question, not the pair of
/// each of the dialog's two layouts (side by side and stacked).
pub fn the_question_has_one_check_and_one_cancel_for_a_screen_reader(app: &Application) -> Ran {
    let fs = loop_fs(256)?;
    let history = scratch_dir();
    let window = window_on(app, &fs.mount, &history.path().join("h.sqlite3"));
    let dialog = ask(&window);
    iterate_briefly();
    let nodes = super::tree::read();
    let count = |name: &str| {
        nodes
            .iter()
            .filter(|n| n.name == name && n.role.contains("button"))
            .count()
    };
    let (check, cancel) = (count("Check"), count("Cancel"));
    dialog.response("cancel");
    wait_until("the check to stop", || !window.capacity_check().is_busy());
    assert_eq!(
        (check, cancel),
        (1, 1),
        "{:?}",
        nodes
            .iter()
            .filter(|n| n.role.contains("button"))
            .map(|n| (&n.role, &n.name))
            .collect::<Vec<_>>()
    );
    Ok(())
}
