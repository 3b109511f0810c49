//! UI tests of the built-in tests in the **Test** drop-down, on a real display (run under
//! `xvfb-run -a cargo test -p agnostics --test ui_profiles`): the window starts with each
//! built-in test chosen, as `agnostics --profile NAME` starts it, and a user switches between
//! them in the drop-down, its popup shown, on every page and tab, at three window sizes, and
//! closes the window. It starts a session bus of its own when there is none (package `dbus`).
//! Nothing may crash, and GTK may not complain: every GLib message of level
//! warning or critical is caught by this program's log writer and fails the test that
//! caused it (run with `G_DEBUG=fatal-criticals` too, a critical aborts at once).

#[path = "ui_support/mod.rs"]
mod support;
#[allow(dead_code)]
#[path = "ui_a11y/tree.rs"]
mod tree;

use std::sync::Mutex;

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{Application, Window};
use agnostics_core::profile::builtin;
use gtk::glib;

use support::*;

/// The warnings and criticals logged since the last [`take_complaints`], as "domain: message".
static COMPLAINTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn main() {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    // A session bus of its own when there is none: GTK complains without one.
    let bus = tree::SessionBus::ensure();
    glib::log_set_writer_func(|level, fields| {
        if matches!(level, glib::LogLevel::Critical | glib::LogLevel::Warning) {
            let field = |key: &str| {
                fields
                    .iter()
                    .find(|f| f.key() == key)
                    .and_then(|f| f.value_str())
                    .unwrap_or("")
                    .to_owned()
            };
            let line = format!("{}: {}", field("GLIB_DOMAIN"), field("MESSAGE"));
            COMPLAINTS.lock().expect("the list").push(line);
        }
        glib::log_writer_default(level, fields)
    });
    let tests = crate::ui_tests![
        the_window_starts_with_each_built_in_test_chosen,
        the_tests_are_switched_on_every_page_and_size_in_the_popup,
    ];
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(bus);
    drop(scratch);
    conclusion.exit()
}

/// The complaints logged so far, emptied.
fn take_complaints() -> Vec<String> {
    std::mem::take(&mut *COMPLAINTS.lock().expect("the list"))
}

/// Fails when GTK (or anything else) logged a warning or a critical while `what` happened.
fn assert_quiet(what: &str) {
    let complaints = take_complaints();
    assert!(
        complaints.is_empty(),
        "{what}: {} warning(s) or critical(s): {complaints:#?}",
        complaints.len()
    );
}

/// As the application starts for `agnostics --target DIR --profile NAME`: the window made,
/// the command line applied, then shown, then closed.
fn the_window_starts_with_each_built_in_test_chosen(app: &Application) {
    let dir = scratch_dir();
    take_complaints();
    for (index, chosen) in builtin::ALL.iter().enumerate() {
        let window = Window::new(app);
        window.set_default_size(800, 480);
        window.set_launch(
            Some(dir.path().to_path_buf()),
            Some(chosen.profile()),
            false,
        );
        window.present();
        wait_until("the list of drives", || window.drives_loaded());
        for _ in 0..3 {
            iterate_briefly();
        }
        let name = chosen.profile().name;
        assert_eq!(
            window.profile(),
            chosen.profile(),
            "{name} is the test chosen"
        );
        assert_eq!(
            window.profile_row().selected(),
            index as u32,
            "{name}'s entry"
        );
        assert_eq!(
            window.drive_row().selected_choice().map(|c| c.dir),
            Some(dir.path().to_path_buf()),
            "{name}: the folder given is the one selected"
        );
        assert_quiet(&format!("starting with {name}"));
        window.close();
        iterate_briefly();
        assert_quiet(&format!("closing with {name}"));
    }
}

/// Every built-in test chosen in the drop-down's popup, as a user chooses it, and without it,
/// on each tab and each of the SD Card tab's pages, the window at 800×480 (a Raspberry Pi
/// touchscreen), 360×480 (as narrow as it goes) and 1280×900; then the window closed.
fn the_tests_are_switched_on_every_page_and_size_in_the_popup(app: &Application) {
    let dir = scratch_dir();
    let window = new_window(app);
    aim(&window, dir.path(), None);
    assert_quiet("starting");
    let row = window.profile_row();
    for (width, height) in [(800, 480), (360, 480), (1280, 900)] {
        window.set_default_size(width, height);
        iterate_briefly();
        for tab in Tab::ALL {
            window.set_tab(tab);
            let pages: &[Page] = if tab == Tab::SdCard {
                &[Page::Ready, Page::Running, Page::Results, Page::Capacity]
            } else {
                &[Page::Ready]
            };
            for &page in pages {
                if tab == Tab::SdCard {
                    window.show_page_for_test(page);
                }
                iterate_briefly();
                let place = format!("{tab:?} / {page:?} at {width}×{height}");
                for index in (0..builtin::ALL.len()).chain([0]) {
                    choose_in_popup(&row, index as u32);
                    assert_eq!(window.profile(), builtin::ALL[index].profile(), "{place}");
                    assert_quiet(&format!("{place}: entry {index} chosen in the popup"));
                }
                for index in (0..builtin::ALL.len()).rev() {
                    row.set_selected(index as u32);
                    iterate_briefly();
                    assert_quiet(&format!("{place}: entry {index} chosen"));
                }
            }
        }
    }
    window.show_page_for_test(Page::Ready);
    window.set_tab(Tab::SdCard);
    window.set_default_size(800, 480);
    iterate_briefly();
    assert_quiet("back on the ready page");
    window.close();
    iterate_briefly();
    assert_quiet("closing");
}

/// Pops up `row`'s list, chooses entry `index` while it is shown, and closes it.
fn choose_in_popup(row: &adw::ComboRow, index: u32) {
    adw::prelude::ActionRowExt::activate(row);
    iterate_briefly();
    row.set_selected(index);
    iterate_briefly();
    for popover in descendants(row.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Popover>().ok())
    {
        popover.popdown();
    }
    iterate_briefly();
}
