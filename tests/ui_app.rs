//! UI tests of the application as a GNOME app, on a real display (run under `xvfb-run -a cargo
//! test -p agnostics --test ui_app`): no two controls shown together share an access key
//! (mnemonic) in English or in any catalogue of `po/LINGUAS`.
//!
//! The mnemonic labels of each page are read from the real window, in English, in each state a
//! user meets (ready, running, results, the capacity check; All Tests idle, running and ended;
//! History empty, with a run, a drive's page while it is connected and while it is not, with
//! two runs ticked for Compare, the comparison, a run's page, a stored capacity check's page;
//! the rename and forget dialogs), and from the primary menu; each is then translated with
//! every catalogue (`po/<lang>.po`; an untranslated message stays English, as gettext shows it)
//! and the access keys compared, case-insensitively as GTK compares them. Each state is
//! awaited through the window's probe (its page transitions ended, the connected drives
//! found), never raced: a page fading out is not counted with the page shown.
//!
//! The About window's icon comes from the app's own resources (nothing is installed here), and
//! the primary menu has **Keyboard Shortcuts** (Ctrl+?, GTK's shortcuts window of the app's
//! accelerators) and **About Raspberry Pi Diagnostics**, in header capitalisation.

use agnostics_testkit::po;
#[path = "ui_support/mod.rs"]
mod support;
// Not every part of the capacity fixture is used here.
#[allow(dead_code)]
#[path = "ui_capacity/fixture.rs"]
mod fixture;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use adw::prelude::*;
use agnostics::pages::HistoryPage;
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{Application, Window};
use gtk::gio;

use fixture::{fake_check, fake_fixture, FAKE_CHECK_ID};
use support::history_fixture::{key, CARD};
use support::*;

fn main() {
    // Keep the tester's own ~/rpdiags.txt and history out of it (set before any thread starts).
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    let tests = crate::ui_tests![
        no_page_has_two_controls_with_one_access_key_in_any_language,
        the_about_window_has_the_application_icon_from_the_build_tree,
        the_primary_menu_opens_keyboard_shortcuts_and_about,
        alt_c_is_compare_never_check_capacity_and_both_keys_are_listed_in_any_language,
    ];
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(scratch);
    conclusion.exit()
}

/// The access key of a label written with underscores (`"Run _Again"` → `a`,
/// `"もう一度実行(_R)"` → `r`): the letter after the first single underscore, lower-cased.
fn access_key(label: &str) -> Option<char> {
    let mut chars = label.chars();
    while let Some(c) = chars.next() {
        if c == '_' {
            match chars.next() {
                Some('_') => continue,
                Some(key) => return key.to_lowercase().next(),
                None => return None,
            }
        }
    }
    None
}

/// The raw text (underscores kept) of every label with an access key that `root` shows now.
fn shown_mnemonics(root: &gtk::Widget) -> Vec<String> {
    let mut found = Vec::new();
    let mut child = root.first_child();
    while let Some(c) = child {
        if c.is_mapped() {
            if let Ok(label) = c.clone().downcast::<gtk::Label>() {
                let text = label.label().to_string();
                if label.uses_underline() && access_key(&text).is_some() {
                    found.push(text);
                }
            }
            found.extend(shown_mnemonics(&c));
        }
        child = c.next_sibling();
    }
    found
}

/// The labels of a menu model's items, sections and submenus included.
fn menu_labels(model: &gio::MenuModel) -> Vec<String> {
    let mut found = Vec::new();
    for i in 0..model.n_items() {
        if let Some(label) = model.item_attribute_value(i, "label", None) {
            if let Some(text) = label.str() {
                found.push(text.to_owned());
            }
        }
        for link in ["section", "submenu"] {
            if let Some(inner) = model.item_link(i, link) {
                found.extend(menu_labels(&inner));
            }
        }
    }
    found
}

/// Every clash of `pages` (state → English labels shown together) in English and in each
/// catalogue: "lang, state: key in label, label".
fn clashes(pages: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut languages: Vec<(String, Vec<po::Entry>)> = vec![("en".into(), Vec::new())];
    for lang in po::linguas() {
        let entries = po::read(&po::po_dir().join(format!("{lang}.po")));
        languages.push((lang, entries));
    }
    let mut found = Vec::new();
    for (lang, entries) in &languages {
        for (state, labels) in pages {
            let mut by_key: BTreeMap<char, Vec<String>> = BTreeMap::new();
            for msgid in labels {
                let shown = po::lookup(entries, msgid).unwrap_or(msgid);
                match access_key(shown) {
                    Some(key) => by_key.entry(key).or_default().push(shown.to_owned()),
                    None => found.push(format!("{lang}, {state}: {shown:?} has no access key")),
                }
            }
            for (key, shown) in by_key {
                if shown.len() > 1 {
                    found.push(format!("{lang}, {state}: '{key}' in {shown:?}"));
                }
            }
        }
    }
    found
}

/// The access keys shown, by page.
type Pages = BTreeMap<String, Vec<String>>;

fn record(pages: &mut Pages, window: &Window, state: &str) {
    // A page fading out is still mapped during the transition: wait until it has gone.
    wait_until("the page transition to end", || window.page_settled());
    iterate_briefly();
    iterate_briefly();
    let labels = shown_mnemonics(window.upcast_ref());
    println!("  {state}: {labels:?}");
    assert!(!labels.is_empty(), "{state}: no access keys at all");
    pages.insert(state.to_owned(), labels);
}

/// A folder with one quick script and one that sleeps, so that All Tests can be seen running.
fn scripts(dir: &std::path::Path) -> PathBuf {
    let folder = dir.join("scripts");
    std::fs::create_dir_all(&folder).expect("the scripts folder");
    std::fs::write(
        folder.join("pass.sh"),
        "#NAME=Passes\n#DESC=Exits with status 0\necho fine\n",
    )
    .expect("a script");
    std::fs::write(
        folder.join("slow.sh"),
        "#NAME=Slow\n#DESC=Sleeps a minute\nsleep 60\n",
    )
    .expect("a script");
    folder
}

/// The access keys of the SD Card page `window` shows, into `pages`: ready, running (a long
/// phase, cancelled), results (a small run), tested in `dir`.
fn record_sd_card_pages(pages: &mut Pages, window: &Window, dir: &Path) {
    let long = profile_file(dir, "long.fio", LONG_PROFILE);
    aim(window, dir, Some(long));
    record(pages, window, "ready");
    window.run_button().activate();
    let progress = window.progress_view();
    wait_until("a live figure", || progress.figure_text().ends_with("IOPS"));
    record(pages, window, "running");
    progress.cancel_button().activate();
    wait_until("the ready page", || !window.test_run().is_busy());

    let small = profile_file(dir, "small.fio", SMALL_PROFILE);
    aim(window, dir, Some(small));
    window.run_button().activate();
    wait_until("the results", || {
        window.page() == Page::Results || window.open_dialog().is_some()
    });
    if let Some(dialog) = window.open_dialog() {
        panic!(
            "no error dialog, but: {:?} {:?}",
            dialog.heading(),
            dialog.body()
        );
    }
    record(pages, window, "results");
}

/// The access keys of All Tests, into `pages`: idle, then running the slow script of
/// [`scripts`] in `dir`, then ended.
fn record_all_tests_pages(pages: &mut Pages, window: &Window, dir: &Path) {
    let empty = dir.join("empty");
    std::fs::create_dir(&empty).expect("an empty folder");
    let before = std::env::var_os("XDG_DATA_DIRS");
    std::env::set_var("XDG_DATA_DIRS", &empty);
    window.set_script_dirs(vec![scripts(dir)]);
    match before {
        Some(value) => std::env::set_var("XDG_DATA_DIRS", value),
        None => std::env::remove_var("XDG_DATA_DIRS"),
    }
    wait_until("the list of tests", || window.scripts_loaded());
    window.set_tab(Tab::AllTests);
    record(pages, window, "All Tests");
    let view = window.tests_view();
    for row in 0..2 {
        view.set_selected(row, false);
    }
    view.run_button().emit_clicked();
    wait_until("the script to start", || window.is_running_tests());
    record(pages, window, "All Tests, running");
    view.stop_button().emit_clicked();
    wait_until("the tests to end", || !window.is_running_tests());
    record(pages, window, "All Tests, ended");
}

/// The access keys of History, into `pages`: the list, the tested drive's page while it is
/// connected (**Check Capacity…** on) and while it is not, and its newest run's page. Each
/// state is awaited (the drives found connected, History's own page transitions ended), not
/// raced.
fn record_history_pages(pages: &mut Pages, window: &Window) {
    window.set_tab(Tab::History);
    let history = window.history_view();
    wait_until("the history", || {
        !history.is_loading() && !history.drive_rows().is_empty()
    });
    record(pages, window, "History");
    let drive = history.drive_rows()[0].0.clone();
    history.open_drive(&drive);
    wait_until("the drive's page", || {
        !history.is_loading() && !history.run_rows().is_empty()
    });
    wait_until("the connected drives found", || window.connected_known());
    assert!(
        history.check_capacity_button().is_sensitive(),
        "the drive just tested is connected"
    );
    record(pages, window, "History, drive, connected");
    history.set_connected(Vec::new());
    assert!(!history.check_capacity_button().is_sensitive());
    record(pages, window, "History, drive, not connected");
    history.start_rename();
    record_dialog(pages, history.open_dialog(), "History, rename dialog");
    let run = history.run_rows()[0].0.clone();
    history.open_run(&run);
    wait_until("the run's page", || {
        !history.is_loading() && history.visible_page() == HistoryPage::Run
    });
    record(pages, window, "History, run");
    let forget = button_labelled(window.upcast_ref(), "_Forget Run").expect("Forget Run");
    forget.emit_clicked();
    record_dialog(pages, history.open_dialog(), "History, forget dialog");
}

/// The access keys of the History states a tested drive alone does not reach, into `pages`:
/// an empty history; a card's page with a **Found fake** mark, two runs ticked (the Compare
/// bar shown) and the comparison; a stored capacity check's page; the capacity check's page
/// while it runs and with its verdict.
fn record_history_fixture_pages(pages: &mut Pages, app: &Application) {
    let empty = scratch_dir();
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    window.set_history_path(&empty.path().join("history.sqlite3"));
    window.set_tab(Tab::History);
    let history = window.history_view();
    wait_until("the history", || !history.is_loading());
    record(pages, &window, "History, empty");

    let fixture = fake_fixture();
    window.set_history_path(&fixture.path);
    wait_until("the history", || !history.is_loading());
    history.open_drive(&key(CARD));
    wait_until("the card's page", || !history.is_loading());
    assert!(history.shows_found_fake());
    let runs = history.run_rows();
    history.choose(&runs[0].0, "ticked first", true);
    history.choose(&runs[1].0, "ticked second", true);
    record(pages, &window, "History, drive, two runs ticked");
    history.compare_chosen();
    wait_until("the comparison", || {
        !history.is_loading() && history.visible_page() == HistoryPage::Compare
    });
    record(pages, &window, "History, Compare");
    history.open_check(FAKE_CHECK_ID);
    wait_until("the stored check", || {
        !history.is_loading() && history.visible_page() == HistoryPage::Check
    });
    record(pages, &window, "History, capacity check");
    window.set_tab(Tab::SdCard);
    window.show_page_for_test(Page::Capacity);
    let capacity = window.capacity_view();
    capacity.reset("SC32G");
    record(pages, &window, "capacity check");
    let verdict =
        agnostics::pages::capacity::verdict::shown(&fake_check("2026-07-02T10:00:00+00:00"));
    capacity.show_verdict(&verdict);
    assert!(capacity.done_button().is_visible());
    record(pages, &window, "capacity check, verdict");
}

/// The first button under `root` whose label is `label` (underscores kept).
fn button_labelled(root: &gtk::Widget, label: &str) -> Option<gtk::Button> {
    let mut child = root.first_child();
    while let Some(c) = child {
        if let Some(button) = c.downcast_ref::<gtk::Button>() {
            if button.label().as_deref() == Some(label) {
                return Some(button.clone());
            }
        }
        if let Some(found) = button_labelled(&c, label) {
            return Some(found);
        }
        child = c.next_sibling();
    }
    None
}

/// The access keys of `dialog` (which must be open), into `pages`; then closes it.
fn record_dialog(pages: &mut Pages, dialog: Option<adw::MessageDialog>, state: &str) {
    let dialog = dialog.unwrap_or_else(|| panic!("{state}: no dialog"));
    wait_until("the dialog shown", || dialog.is_mapped());
    iterate_briefly();
    let labels = shown_mnemonics(dialog.upcast_ref());
    println!("  {state}: {labels:?}");
    assert!(!labels.is_empty(), "{state}: no access keys at all");
    pages.insert(state.to_owned(), labels);
    dialog.response(&dialog.close_response());
}

fn no_page_has_two_controls_with_one_access_key_in_any_language(app: &Application) {
    let dir = scratch_dir();
    let mut pages = BTreeMap::new();
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());

    // The SD Card page: ready, running (a long phase, cancelled), results (a small run).
    record_sd_card_pages(&mut pages, &window, dir.path());
    // All Tests: idle, then running the slow script.
    record_all_tests_pages(&mut pages, &window, dir.path());
    // History: the run above, its drive's page (connected, then not) and the run's page.
    record_history_pages(&mut pages, &window);
    // History of a fixture: empty, a fake card's runs compared, its stored check.
    record_history_fixture_pages(&mut pages, app);

    let menu = app
        .menubar()
        .or_else(|| window_menu(&window))
        .expect("the primary menu");
    let items = menu_labels(&menu);
    println!("  primary menu: {items:?}");
    pages.insert("primary menu".into(), items);

    let found = clashes(&pages);
    assert!(
        found.is_empty(),
        "access keys shared on one page:\n{}",
        found.join("\n")
    );
}

/// The model of the header bar's menu button.
fn window_menu(window: &Window) -> Option<gio::MenuModel> {
    fn find(widget: &gtk::Widget) -> Option<gtk::MenuButton> {
        let mut child = widget.first_child();
        while let Some(c) = child {
            if let Ok(button) = c.clone().downcast::<gtk::MenuButton>() {
                return Some(button);
            }
            if let Some(button) = find(&c) {
                return Some(button);
            }
            child = c.next_sibling();
        }
        None
    }
    find(window.upcast_ref())?.menu_model()
}

/// The open windows of `app` of type `T`.
fn windows_of<T: IsA<gtk::Window>>(app: &Application) -> Vec<T> {
    app.windows()
        .into_iter()
        .filter_map(|w| w.downcast::<T>().ok())
        .collect()
}

fn the_about_window_has_the_application_icon_from_the_build_tree(app: &Application) {
    let window = new_window(app);
    WidgetExt::activate_action(&window, "app.about", None).expect("app.about");
    wait_until("the About window", || {
        !windows_of::<adw::AboutWindow>(app).is_empty()
    });
    let about = windows_of::<adw::AboutWindow>(app).remove(0);
    iterate_briefly();
    let icon = about.application_icon();
    assert_eq!(icon, agnostics::config::APP_ID);
    let theme = gtk::IconTheme::for_display(&WidgetExt::display(&about));
    assert!(
        theme.has_icon(&icon),
        "no icon {icon:?} in the icon theme (search path {:?}, resources {:?})",
        theme.search_path(),
        theme.resource_path()
    );
    let found = theme.lookup_icon(
        &icon,
        &[],
        128,
        1,
        gtk::TextDirection::Ltr,
        gtk::IconLookupFlags::empty(),
    );
    let uri = found
        .file()
        .map(|f| f.uri().to_string())
        .unwrap_or_default();
    assert!(
        uri.starts_with("resource:///io/github/agnostics_rs/Agnostics/icons/"),
        "the icon is the app's own, not {uri:?}"
    );
    about.close();
}

/// Each (label, action) of the menu `model` and its sections, into `out`, in order.
fn menu_actions(model: &gio::MenuModel, out: &mut Vec<(String, String)>) {
    for i in 0..model.n_items() {
        let label = model.item_attribute_value(i, "label", None);
        let action = model.item_attribute_value(i, "action", None);
        if let (Some(label), Some(action)) = (label, action) {
            out.push((
                label.str().unwrap_or_default().to_owned(),
                action.str().unwrap_or_default().to_owned(),
            ));
        }
        if let Some(inner) = model.item_link(i, "section") {
            menu_actions(&inner, out);
        }
    }
}

/// **Keyboard Shortcuts** (`win.show-help-overlay`) of `window`: shown, listing every
/// accelerator the application sets, with the window's own (Alt+Left).
fn assert_shortcuts_listed(window: &Window) {
    WidgetExt::activate_action(window, "win.show-help-overlay", None)
        .expect("win.show-help-overlay");
    let shortcuts = window
        .help_overlay()
        .expect("GtkApplication gave the window its Keyboard Shortcuts");
    assert!(
        try_wait_until(std::time::Duration::from_secs(30), || shortcuts
            .is_visible()),
        "the Keyboard Shortcuts window is shown"
    );
    iterate_briefly();
    // Every accelerator the application sets is listed, with the window's own (Alt+Left).
    let shown: Vec<String> = descendants(shortcuts.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::ShortcutsShortcut>().ok())
        .map(|s| {
            let name: Option<String> = s.property("action-name");
            let accel: Option<String> = s.property("accelerator");
            name.unwrap_or_default() + "|" + &accel.unwrap_or_default()
        })
        .collect();
    for action in [
        "app.quit",
        "window.close",
        agnostics::window::Action::SaveReport.name(),
        "win.show-help-overlay",
    ] {
        assert!(
            shown.iter().any(|s| s.starts_with(&format!("{action}|"))),
            "{action} is not in the Keyboard Shortcuts: {shown:?}"
        );
    }
    assert!(shown.iter().any(|s| s.ends_with("|<Alt>Left")), "{shown:?}");
    if let Some(dir) = std::env::var_os("AGNOSTICS_SCREENSHOTS") {
        save_widget_png(
            shortcuts.upcast_ref(),
            &std::path::Path::new(&dir).join("shortcuts.png"),
        );
    }
    shortcuts.close();
}

fn the_primary_menu_opens_keyboard_shortcuts_and_about(app: &Application) {
    let window = new_window(app);
    let menu = window_menu(&window).expect("the primary menu");
    let mut items = Vec::new();
    menu_actions(&menu, &mut items);
    let expected: Vec<(String, String)> = [
        ("_Keyboard Shortcuts", "win.show-help-overlay"),
        // The log from any page, not only from All Tests.
        ("Show _Log", agnostics::window::Action::ShowLog.name()),
        ("_About Raspberry Pi Diagnostics", "app.about"),
        ("_Quit", "app.quit"),
    ]
    .iter()
    .map(|(l, a)| (l.to_string(), a.to_string()))
    .collect();
    assert_eq!(items, expected);
    assert_eq!(
        app.accels_for_action("win.show-help-overlay")
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>(),
        ["<Control>question"],
        "Ctrl+? opens the Keyboard Shortcuts"
    );

    assert_shortcuts_listed(&window);

    WidgetExt::activate_action(&window, "app.about", None).expect("app.about");
    wait_until("the About window", || {
        !windows_of::<adw::AboutWindow>(app).is_empty()
    });
}

/// Alt+C is Compare's key in English; Check Capacity writes to the drive (behind a question),
/// so in no language does it take C or Compare's key. The Keyboard Shortcuts list both, each
/// with the key its label has in that language.
fn alt_c_is_compare_never_check_capacity_and_both_keys_are_listed_in_any_language(
    app: &Application,
) {
    const CAPACITY: &str = "Check Ca_pacity…";
    const COMPARE: &str = "_Compare";
    const CAPACITY_ACCEL: &str = "<Alt>p";
    const COMPARE_ACCEL: &str = "<Alt>c";
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    assert_eq!(window.capacity_button().label().as_deref(), Some(CAPACITY));
    assert_eq!(
        window
            .history_view()
            .check_capacity_button()
            .label()
            .as_deref(),
        Some(CAPACITY)
    );
    WidgetExt::activate_action(&window, "win.show-help-overlay", None)
        .expect("win.show-help-overlay");
    let shortcuts = window.help_overlay().expect("the Keyboard Shortcuts");
    wait_until("the Keyboard Shortcuts", || shortcuts.is_visible());
    let listed: Vec<(String, String)> = descendants(shortcuts.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::ShortcutsShortcut>().ok())
        .map(|s| {
            let title: Option<String> = s.property("title");
            let accel: Option<String> = s.property("accelerator");
            (title.unwrap_or_default(), accel.unwrap_or_default())
        })
        .collect();
    shortcuts.close();
    for (title, accel) in [
        ("Check the drive’s capacity (it asks first)", CAPACITY_ACCEL),
        ("Compare the ticked runs", COMPARE_ACCEL),
    ] {
        assert!(
            listed.iter().any(|(t, a)| t == title && a == accel),
            "{title} ({accel}) is not in the Keyboard Shortcuts: {listed:?}"
        );
    }
    let mut languages: Vec<(String, Vec<po::Entry>)> = vec![("en".into(), Vec::new())];
    for lang in po::linguas() {
        let entries = po::read(&po::po_dir().join(format!("{lang}.po")));
        languages.push((lang, entries));
    }
    let mut wrong = Vec::new();
    for (lang, entries) in &languages {
        let shown = |msgid: &'static str| po::lookup(entries, msgid).unwrap_or(msgid);
        let capacity = access_key(shown(CAPACITY));
        let compare = access_key(shown(COMPARE));
        if capacity == Some('c') || capacity == compare {
            wrong.push(format!(
                "{lang}: {:?} takes the key of Compare ({:?})",
                shown(CAPACITY),
                shown(COMPARE)
            ));
        }
        for (label, accel) in [(CAPACITY, CAPACITY_ACCEL), (COMPARE, COMPARE_ACCEL)] {
            let listed = shown(accel);
            let parsed = gtk::accelerator_parse(listed)
                .filter(|(_, mods)| *mods == gtk::gdk::ModifierType::ALT_MASK)
                .and_then(|(key, _)| key.to_lower().to_unicode());
            if parsed.is_none() || parsed != access_key(shown(label)) {
                wrong.push(format!(
                    "{lang}: the shortcuts list {listed:?} for {:?}",
                    shown(label)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Renders a top-level window other than the main one (its own renderer) to a PNG file.
fn save_widget_png(window: &gtk::Window, path: &std::path::Path) {
    iterate_briefly();
    let (w, h) = (window.width(), window.height());
    let paintable = gtk::WidgetPaintable::new(Some(window));
    let snapshot = gtk::Snapshot::new();
    paintable.snapshot(&snapshot, f64::from(w), f64::from(h));
    let node = snapshot.to_node().expect("something was drawn");
    let renderer = gtk::prelude::NativeExt::renderer(window).expect("the window is realized");
    let bounds = gtk::graphene::Rect::new(0.0, 0.0, w as f32, h as f32);
    let texture = renderer.render_texture(&node, Some(&bounds));
    texture.save_to_png(path).expect("the PNG is written");
    println!("  wrote {} ({w}×{h})", path.display());
}
