//! UI tests of the window used from the keyboard alone, on a real display (run under
//! `xvfb-run -a cargo test -p agnostics --test ui_keyboard`): Tab moves through the History
//! pages one stop a run, ticking a run keeps the focused row in view, the focus ring stays
//! after a choice in a dropdown and after the shortcuts window closes, and shortcuts switch
//! the pages. Tab is GTK's own focus move (`move-focus`, what the Tab key does).

#[path = "ui_support/mod.rs"]
mod support;

use adw::prelude::*;
use agnostics::pages::HistoryPage;
use agnostics::testing::WindowProbe;
use agnostics::window::Tab;
use agnostics::{Application, Window};
use agnostics_core::history::History;

use support::history_fixture::*;
use support::*;

fn main() {
    crate::support::run_with_scratch_log_and_history(
        crate::ui_tests![
            a_run_of_a_drive_s_list_is_one_tab_stop,
            ticking_a_run_keeps_its_row_in_view,
            shortcuts_switch_the_pages_with_the_focus_ring_shown,
            the_focus_ring_stays_after_a_choice_in_the_chart_menu,
            the_focus_ring_comes_back_when_the_shortcuts_window_closes,
            show_log_works_from_every_page,
        ],
        Vec::new(),
    )
}

/// The widget with the focus.
fn focus(window: &Window) -> Option<gtk::Widget> {
    gtk::prelude::GtkWindowExt::focus(window)
}

/// What Tab does: the focus moves on, and the window draws the focus ring.
fn tab(window: &Window) {
    window.emit_move_focus(gtk::DirectionType::TabForward);
    iterate_briefly();
}

/// The focus stops of Tab from the focus now, until it comes back round (at most 60).
fn tab_stops(window: &Window) -> Vec<gtk::Widget> {
    let mut stops = Vec::new();
    for _ in 0..60 {
        tab(window);
        let Some(f) = focus(window) else { break };
        if stops.first() == Some(&f) {
            break;
        }
        stops.push(f);
    }
    stops
}

/// Each run of a drive's list took two Tab stops: its row and its Compare tick. One is enough:
/// the row (Enter opens the run, Space ticks it).
fn a_run_of_a_drive_s_list_is_one_tab_stop(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    assert_eq!(view.visible_page(), HistoryPage::Drive);
    let rows = view.run_list_rows();
    assert_eq!(rows.len(), 3);
    let stops = tab_stops(&window);
    for (i, row) in rows.iter().enumerate() {
        let inside: Vec<String> = stops
            .iter()
            .filter(|s| *s == row.upcast_ref::<gtk::Widget>() || s.is_ancestor(row))
            .map(describe)
            .collect();
        assert_eq!(inside.len(), 1, "run {i}: {inside:?}");
    }
}

/// The shortcut of `row` for `key` (e.g. "space"), done as the key would.
fn press_on(row: &adw::ActionRow, key: &str) {
    let trigger = gtk::ShortcutTrigger::parse_string(key).expect("a trigger");
    let controllers = row.observe_controllers();
    let shortcut = (0..controllers.n_items())
        .filter_map(|i| {
            controllers
                .item(i)
                .and_downcast::<gtk::ShortcutController>()
        })
        .flat_map(|c| {
            (0..c.n_items())
                .filter_map(|i| c.item(i).and_downcast::<gtk::Shortcut>())
                .collect::<Vec<_>>()
        })
        .find(|s| {
            s.trigger()
                .is_some_and(|t| t.to_str().split('|').any(|k| k == trigger.to_str()))
        })
        .unwrap_or_else(|| panic!("the row has a shortcut for {key}"));
    let action = shortcut.action().expect("its action");
    action.activate(gtk::ShortcutActionFlags::empty(), row, None);
    iterate_briefly();
}

/// Ticking a run opened the Compare bar over the focused row. The row stays in view above
/// it; Space on the row ticks it.
fn ticking_a_run_keeps_its_row_in_view(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let rows = view.run_list_rows();
    let last = rows.last().expect("a run").clone();
    last.grab_focus();
    for _ in 0..10 {
        iterate_briefly();
    }
    let scrolled = last
        .ancestor(gtk::ScrolledWindow::static_type())
        .expect("the page scrolls");
    let in_view = || {
        let b = last.compute_bounds(&scrolled).expect("the row's bounds");
        let (top, bottom) = (b.y(), b.y() + b.height());
        (top, bottom, scrolled.height() as f32)
    };
    let (_, bottom, height) = in_view();
    assert!(
        bottom <= height + 0.5,
        "the row in view first: {bottom} of {height}"
    );
    // A key was used: the ring is drawn, and stays while keys come (GTK drops it some
    // seconds after the last one).
    agnostics::focus_ring::set_keyboard(window.upcast_ref(), true);
    window.set_focus_visible(false);
    press_on(&last, "space");
    assert_eq!(view.chosen_count(), 1, "Space ticked the run");
    // The bar slides in: its revealer done (a bound for a stuck animation, not a timing).
    // Waited for, not slept: GTK drops the ring a few seconds after the last key.
    let bar_shown = || {
        descendants(window.upcast_ref())
            .into_iter()
            .filter(|w| w.is::<gtk::ActionBar>())
            .flat_map(|bar| descendants(&bar))
            .filter_map(|w| w.downcast::<gtk::Revealer>().ok())
            .any(|r| r.is_child_revealed())
    };
    let row_shown = || {
        let (top, bottom, height) = in_view();
        top >= -0.5 && bottom <= height + 0.5
    };
    let _ = try_wait_until(std::time::Duration::from_secs(2), || {
        bar_shown() && row_shown()
    });
    assert!(bar_shown(), "the Compare bar slid in");
    let (top, bottom, height) = in_view();
    assert!(
        top >= -0.5 && bottom <= height + 0.5,
        "the focused row is under the bar: {top}..{bottom} of {height}"
    );
    assert_eq!(focus(&window), Some(last.clone().upcast()));
    assert!(window.gets_focus_visible(), "the ring stays on the row");
    press_on(&last, "space");
    assert_eq!(view.chosen_count(), 0, "Space again unticked it");
}

/// A focus stop for messages: its type and its title or label.
fn describe(widget: &gtk::Widget) -> String {
    let text = widget
        .downcast_ref::<adw::PreferencesRow>()
        .map(|r| r.title().to_string())
        .or_else(|| {
            widget
                .downcast_ref::<gtk::Button>()
                .and_then(|b| b.label())
                .map(|l| l.to_string())
        })
        .or_else(|| agnostics::a11y::label_of(widget))
        .unwrap_or_default();
    format!("{} {text:?}", widget.type_().name())
}

/// No shortcut switched the pages. Alt+1, Alt+2 and Alt+3 show the SD Card, All Tests and
/// History pages, each with its first control focused and the ring drawn, and the shortcuts
/// window lists them.
fn shortcuts_switch_the_pages_with_the_focus_ring_shown(app: &Application) {
    let window = new_window(app);
    let overlay =
        gtk::Builder::from_resource("/io/github/agnostics_rs/Agnostics/gtk/help-overlay.ui");
    let listed: Vec<String> = overlay
        .objects()
        .into_iter()
        .filter_map(|o| o.downcast::<gtk::ShortcutsShortcut>().ok())
        .filter_map(|s| s.action_name().map(|a| a.to_string()))
        .collect();
    for (action, accel, tab) in [
        (
            agnostics::window::Action::ShowHistory.name(),
            "<Alt>3",
            Tab::History,
        ),
        (
            agnostics::window::Action::ShowAllTests.name(),
            "<Alt>2",
            Tab::AllTests,
        ),
        (
            agnostics::window::Action::ShowSdCard.name(),
            "<Alt>1",
            Tab::SdCard,
        ),
    ] {
        assert_eq!(app.accels_for_action(action), [accel]);
        assert!(listed.iter().any(|a| a == action), "{action} in {listed:?}");
        window.set_focus_visible(false);
        WidgetExt::activate_action(&window, action, None).expect("the action");
        iterate_briefly();
        assert_eq!(window.tab(), tab);
        let focused = focus(&window).expect("a focus");
        assert!(focused.is_mapped(), "{tab:?}: {}", describe(&focused));
        assert!(window.gets_focus_visible(), "{tab:?}: the ring is drawn");
    }
}

/// Two Quick checks of the card, so that its page has a menu of the test charted.
fn record_quick_checks(path: &std::path::Path) {
    let mut history = History::open(path).expect("the history");
    for (i, started) in ["2026-07-02T10:30:05+00:00", "2026-07-02T10:30:41+00:00"]
        .into_iter()
        .enumerate()
    {
        let quick = quick_check_of(&format!("{:032x}", 0x7e57_u32 + i as u32), started);
        history.record(&quick).expect("recorded");
    }
}

/// A choice in the menu of the test charted made the menu anew and the focus went nowhere:
/// the ring vanished. The new menu has the focus, with the ring.
fn the_focus_ring_stays_after_a_choice_in_the_chart_menu(app: &Application) {
    let f = fixture();
    record_quick_checks(&f.path);
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let drop = view.profile_drop_down().expect("the chart menu");
    drop.grab_focus();
    // Opened with a key; the choice made in its list, which the window never hears of, and
    // long enough for GTK to drop the ring.
    agnostics::focus_ring::set_keyboard(window.upcast_ref(), true);
    window.set_focus_visible(false);
    drop.set_selected(1 - drop.selected());
    settle(&window);
    let now = view.profile_drop_down().expect("the chart menu");
    let focused = focus(&window).expect("a focus");
    assert!(
        focused == now.clone().upcast::<gtk::Widget>() || focused.is_ancestor(&now),
        "the focus is on {}",
        describe(&focused)
    );
    assert!(window.gets_focus_visible());
}

/// After the Keyboard Shortcuts window closed, the main window's focus had no ring. It has
/// one, on a control shown.
fn the_focus_ring_comes_back_when_the_shortcuts_window_closes(app: &Application) {
    let window = new_window(app);
    let help = window.help_overlay().expect("the shortcuts window");
    // Opened from the keyboard (Ctrl+?).
    agnostics::focus_ring::set_keyboard(window.upcast_ref(), true);
    help.present();
    iterate_briefly();
    window.set_focus_visible(false);
    help.close();
    for _ in 0..3 {
        iterate_briefly();
    }
    assert!(!help.is_visible());
    let focused = focus(&window).expect("a focus");
    assert!(focused.is_mapped(), "{}", describe(&focused));
    assert!(window.gets_focus_visible(), "the ring is drawn");
}

/// **Show Log** is in the main menu: it opens the log from every page.
fn show_log_works_from_every_page(app: &Application) {
    let path = std::path::PathBuf::from(std::env::var_os("AGNOSTICS_LOG").unwrap());
    std::fs::write(&path, "Raspberry Pi Diagnostics - version 0.1\n").expect("a log");
    let window = new_window(app);
    for tab in Tab::ALL {
        window.set_tab(tab);
        iterate_briefly();
        WidgetExt::activate_action(&window, agnostics::window::Action::ShowLog.name(), None)
            .expect("the action");
        iterate_briefly();
        let log = app
            .windows()
            .into_iter()
            .filter(|w| w != window.upcast_ref::<gtk::Window>() && w.is_visible())
            .find(|w| w.transient_for().as_ref() == Some(window.upcast_ref()))
            .unwrap_or_else(|| panic!("{tab:?}: a log window"));
        log.close();
        iterate_briefly();
    }
}
