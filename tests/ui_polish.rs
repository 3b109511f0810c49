//! UI tests of the window's polish: the "reference only" note of a drive that is not an SD
//! card sits where the verdict is (and the verdict is not a plain red FAIL), the entries of
//! the drop-down lists are named for screen readers, and buttons use the GNOME HIG's header
//! capitalisation. Run under `xvfb-run -a cargo test -p agnostics --test ui_polish`.

#[path = "ui_support/mod.rs"]
mod support;

use adw::prelude::*;
use agnostics::pages::HistoryPage;
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{a11y, Application, Window};
use agnostics_core::sample;
use agnostics_core::target_dir::Transport;
use gtk::glib;

use support::*;

fn main() {
    let log_dir = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", log_dir.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", log_dir.path().join("history.sqlite"));
    let tests = crate::ui_tests![
        a_drive_that_is_not_an_sd_card_is_graded_for_reference_under_the_headline,
        drop_down_entries_are_named_for_screen_readers,
        buttons_use_header_capitalisation,
        dialog_buttons_are_named_without_their_underscore,
        the_history_page_takes_the_focus_from_the_keyboard,
        save_report_writes_the_form_chosen_in_the_dialog,
        the_empty_history_offers_a_test_and_titles_use_header_capitalisation,
        a_quick_check_is_not_graded_in_the_log_as_in_the_window,
        badges_and_notes_have_text_contrast_in_both_styles,
    ];
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(log_dir);
    conclusion.exit()
}

/// A standard-profile report on a USB drive whose random writes miss the A1 target.
fn usb_report_below_target() -> agnostics_core::report::Report {
    let run = sample::run(
        1,
        [
            sample::phase("prepare-file")
                .bw_bytes(30e6)
                .iops(30e6 / 1048576.0),
            sample::phase("seq-write")
                .bw_bytes(30e6)
                .iops(30e6 / 1048576.0),
            sample::phase("seq-read")
                .bw_bytes(40e6)
                .iops(40e6 / 1048576.0),
            sample::phase("rand-4k-write")
                .iops(120.0)
                .bw_bytes(120.0 * 4096.0),
            sample::phase("rand-4k-read")
                .iops(2500.0)
                .bw_bytes(2500.0 * 4096.0),
        ],
    );
    sample::report()
        .run(run)
        .target(Some(
            sample::target()
                .transport(Transport::Usb)
                .device(Some("sda"), Some("sda1"))
                .model(Some("Flash Drive"))
                .build(),
        ))
        .build()
}

/// Finding: the note that the SD card targets are a reference only for a USB drive was at the
/// very bottom of the results while the headline was a red FAIL. It belongs right under the
/// verdict, the verdict icon is a warning (not the error's red), and screen readers hear it
/// with the verdict.
fn a_drive_that_is_not_an_sd_card_is_graded_for_reference_under_the_headline(app: &Application) {
    let report = usb_report_below_target();
    assert!(!report.sd_graded);
    assert_eq!(report.verdict, agnostics_core::verdict::Verdict::Fail);
    let window = new_window(app);
    let results = window.results_view();
    results.show_report(&report);
    let note = results.reference_note_text();
    assert!(
        note.as_deref()
            .is_some_and(|n| n.contains("reference only") && n.contains("not an SD card")),
        "a reference-only note under the headline: {note:?}"
    );
    assert!(
        !results.verdict_style().contains("error"),
        "not styled as a plain FAIL: {}",
        results.verdict_style()
    );
    // With AGNOSTICS_SCREENSHOTS=DIR, the page as shown, to look at.
    if let Some(dir) = std::env::var_os("AGNOSTICS_SCREENSHOTS") {
        let shown = agnostics::pages::ResultsView::default();
        shown.show_report(&report);
        let top = gtk::Window::builder()
            .default_width(800)
            .default_height(480)
            .child(&shown)
            .build();
        top.present();
        iterate_briefly();
        let paintable = gtk::WidgetPaintable::new(Some(&shown));
        let snapshot = gtk::Snapshot::new();
        let (w, h) = (shown.width() as f64, shown.height() as f64);
        #[allow(deprecated)] // StyleContext::lookup_color: the GTK 4.8 way.
        let background = shown
            .style_context()
            .lookup_color("window_bg_color")
            .unwrap_or(gtk::gdk::RGBA::WHITE);
        let bounds = gtk::graphene::Rect::new(0.0, 0.0, w as f32, h as f32);
        snapshot.append_color(&background, &bounds);
        paintable.snapshot(&snapshot, w, h);
        let node = snapshot.to_node().expect("something was drawn");
        let texture = top
            .renderer()
            .expect("realized")
            .render_texture(&node, Some(&bounds));
        texture
            .save_to_png(std::path::Path::new(&dir).join("results-usb-reference.png"))
            .expect("saved");
        top.destroy();
    }
    let said = results.announcement();
    assert!(
        said.contains("reference only"),
        "the verdict is announced with its reference-only note: {said:?}"
    );

    // On an SD card the headline is the plain verdict, without the note.
    let mut sd = report.clone();
    sd.sd_graded = true;
    results.show_report(&sd);
    assert_eq!(results.reference_note_text(), None);
    assert!(results.verdict_style().contains("error"));
}

/// The entries of a list shown inside `row`'s popup (after popping it up): each entry's
/// accessible label, and the text it shows.
fn popup_entries(row: &adw::ComboRow) -> Vec<(Option<String>, String)> {
    adw::prelude::ActionRowExt::activate(row);
    iterate_briefly();
    let entries = descendants(row.upcast_ref())
        .into_iter()
        // The list's own item widgets (role list item) in the popup, not the row itself nor
        // the hidden, empty list libadwaita 1.4 and later keep in the row for its own use.
        .filter(|w| w.type_().name() == "GtkListItemWidget")
        .filter(|w| w.ancestor(gtk::Popover::static_type()).is_some())
        .map(|w| {
            let shown: Vec<String> = descendants(&w)
                .into_iter()
                .filter_map(|d| d.downcast::<gtk::Label>().ok())
                .map(|l| l.label().to_string())
                .filter(|t| !t.is_empty())
                .collect();
            (a11y::list_entry_name(&w), shown.join(" "))
        })
        .collect();
    for popover in descendants(row.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Popover>().ok())
    {
        popover.popdown();
    }
    iterate_briefly();
    entries
}

/// Finding: the drive chooser's entries and the profile list's entries had empty accessible
/// names (`[list item] name=''`): each is named by the text it shows.
fn drop_down_entries_are_named_for_screen_readers(app: &Application) {
    let dir = scratch_dir();
    let window = new_window(app);
    aim(&window, dir.path(), None);
    let drives = popup_entries(window.drive_row().upcast_ref());
    assert!(!drives.is_empty(), "the drive list has entries");
    for (name, shown) in &drives {
        assert_eq!(name.as_deref(), Some(shown.as_str()), "{drives:?}");
    }
    let profiles = popup_entries(&window.profile_row());
    assert!(!profiles.is_empty(), "the profile list has entries");
    for (name, shown) in &profiles {
        assert_eq!(name.as_deref(), Some(shown.as_str()), "{profiles:?}");
    }
}

/// Words the GNOME HIG's header capitalisation leaves in lower case (articles, conjunctions,
/// prepositions of three letters or fewer) unless first or last.
const SMALL_WORDS: &[&str] = &[
    "a", "an", "the", "and", "but", "or", "nor", "for", "so", "yet", "as", "at", "by", "in", "of",
    "off", "on", "per", "to", "up", "via",
];

/// The words of `label` (mnemonic underscores out) that break header capitalisation.
fn not_header_case(label: &str) -> Vec<String> {
    let text = a11y::without_mnemonic(label);
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            let first = w.chars().next().unwrap_or(' ');
            let bare: String = w.chars().filter(|c| c.is_alphanumeric()).collect();
            first.is_lowercase()
                && !(*i != 0 && *i != words.len() - 1 && SMALL_WORDS.contains(&bare.as_str()))
        })
        .map(|(_, w)| w.to_string())
        .collect()
}

/// Every labelled button of `window`, on every page.
fn button_labels(window: &Window) -> Vec<String> {
    descendants(window.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Button>().ok())
        .filter_map(|b| b.label().map(|l| l.to_string()))
        .filter(|l| !l.is_empty())
        .collect()
}

/// GNOME HIG: buttons use header capitalisation ("_Run SD Card Test", not "_Run SD card test").
fn buttons_use_header_capitalisation(app: &Application) {
    assert_eq!(not_header_case("_Run SD card test"), ["card", "test"]);
    assert!(not_header_case("_Stop and Close").is_empty());
    let window = new_window(app);
    let labels = button_labels(&window);
    assert!(labels.len() > 5, "buttons found: {labels:?}");
    let bad: Vec<String> = labels
        .iter()
        .filter(|l| !not_header_case(l).is_empty())
        .cloned()
        .collect();
    assert!(bad.is_empty(), "sentence-case button labels: {bad:?}");
}

/// Finding: buttons were named with their underscore doubled ("_Close Close"); the window's
/// own buttons were fixed, but not those of dialogs made later (an error dialog's responses).
fn dialog_buttons_are_named_without_their_underscore(app: &Application) -> agnostics_testkit::Ran {
    let Some(tmpfs) = TmpfsDir::new() else {
        return agnostics_testkit::skip("needs /dev/shm on tmpfs, or root to mount one");
    };
    let window = new_window(app);
    aim(&window, tmpfs.path(), None);
    window.start_test();
    wait_until("the error dialog", || window.open_dialog().is_some());
    let dialog = window.open_dialog().expect("dialog");
    let mut named = Vec::new();
    for button in descendants(dialog.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Button>().ok())
    {
        let Some(label) = button.label().filter(|l| l.contains('_')) else {
            continue;
        };
        named.push((a11y::without_mnemonic(&label), a11y::label_of(&button)));
    }
    assert!(!named.is_empty(), "the dialog's buttons have access keys");
    for (want, got) in &named {
        assert_eq!(got.as_deref(), Some(want.as_str()), "{named:?}");
    }
    dialog.response("close");
    iterate_briefly();
    Ok(())
}

/// Keyboard pass: Alt+H (or the History tab) left the focus on the hidden SD Card page's
/// Run button, so the next key went nowhere; the first drive takes it, and opening a drive
/// (Enter) moves it to that drive's page.
fn the_history_page_takes_the_focus_from_the_keyboard(app: &Application) {
    use agnostics_core::history::{DriveId, DriveIdentity, History, IdentityBasis};
    let dir = scratch_dir();
    let path = dir.path().join("history.sqlite3");
    let mut report = usb_report_below_target();
    report.run_id = format!("{:032x}", 0xf0c5_u32);
    report.drive = Some(DriveIdentity {
        id: "fedcba9876543210"
            .parse::<DriveId>()
            .expect("16 hex digits"),
        basis: IdentityBasis::Usb,
        name: None,
    });
    History::open(&path)
        .expect("a new history")
        .record(&report)
        .expect("recorded");
    let window = new_window(app);
    window.set_history_path(&path);
    wait_until("the history", || !window.history_view().is_loading());
    window.set_tab(Tab::History);
    iterate_briefly();
    let focus = gtk::prelude::GtkWindowExt::focus(&window).expect("something has the focus");
    assert!(
        focus.is_ancestor(&window.history_view()) && focus.is_mapped(),
        "focus on the History page, not {focus:?}"
    );
    assert!(
        focus.is::<gtk::ListBoxRow>(),
        "on the first drive: {focus:?}"
    );
    focus.activate();
    wait_until("the drive's page", || {
        window.history_view().visible_page() == HistoryPage::Drive
    });
    iterate_briefly();
    let focus = gtk::prelude::GtkWindowExt::focus(&window).expect("something has the focus");
    assert!(
        focus.is_mapped() && focus.is_ancestor(&window.history_view()),
        "focus on the drive's page, not {focus:?}"
    );
    // Alt+Left or Escape goes back, as the page's back button does.
    let trigger = gtk::ShortcutTrigger::parse_string("<Alt>Left").expect("a trigger");
    let controllers = window.history_view().observe_controllers();
    let has_back = (0..controllers.n_items())
        .filter_map(|i| {
            controllers
                .item(i)
                .and_downcast::<gtk::ShortcutController>()
        })
        .any(|c| {
            (0..c.n_items())
                .filter_map(|i| c.item(i).and_downcast::<gtk::Shortcut>())
                .any(|s| {
                    let t = s
                        .trigger()
                        .map(|t| t.to_str().to_string())
                        .unwrap_or_default();
                    t.contains(trigger.to_str().as_str())
                })
        });
    assert!(has_back, "an Alt+Left shortcut on the History page");
    assert!(window.history_view().go_back());
    wait_until("the list of drives", || {
        window.history_view().visible_page() == HistoryPage::Drives
    });
    assert!(
        !window.history_view().go_back(),
        "no back from the list of drives"
    );
}

/// With **Markdown report (.md)** chosen in the save dialog, the name offered stayed `.json`
/// and the file written was JSON. The name follows the filter, and the file is what the
/// filter said; a name the person typed keeps its own extension.
fn save_report_writes_the_form_chosen_in_the_dialog(app: &Application) {
    use agnostics::widgets::save_report;
    use glib::translate::IntoGlib;
    use std::cell::RefCell;
    use std::rc::Rc;
    let dir = scratch_dir();
    let window = new_window(app);
    let mut report = usb_report_below_target();
    report.started = "2026-12-02T05:15:00+00:00".to_owned();
    let written: Rc<RefCell<Vec<Result<std::path::PathBuf, String>>>> = Rc::default();
    let chooser = save_report::ask_and_save(
        &window,
        report,
        Some("Kitchen Pi card".to_owned()),
        window.results_view().card(),
        glib::clone!(
            #[strong]
            written,
            move |result| written.borrow_mut().push(result)
        ),
    );
    iterate_briefly();
    let name = || chooser.current_name().map(|n| n.to_string());
    assert_eq!(name().as_deref(), Some("agnostics-2026-12-02-0515.json"));
    let filters = chooser.filters();
    let filter = |i: u32| {
        filters
            .item(i)
            .and_downcast::<gtk::FileFilter>()
            .expect("a filter")
    };
    chooser.set_filter(&filter(1));
    iterate_briefly();
    assert_eq!(
        name().as_deref(),
        Some("agnostics-2026-12-02-0515.md"),
        "the name follows the Markdown filter"
    );
    chooser
        .set_current_folder(Some(&gtk::gio::File::for_path(dir.path())))
        .expect("the scratch folder");
    iterate_briefly();
    chooser.set_current_name("agnostics-2026-12-02-0515.md");
    chooser.emit_by_name::<()>("response", &[&gtk::ResponseType::Accept.into_glib()]);
    iterate_briefly();
    let md = dir.path().join("agnostics-2026-12-02-0515.md");
    assert_eq!(written.borrow().len(), 1, "one file written");
    assert_eq!(written.borrow()[0].as_ref().ok(), Some(&md));
    let text = std::fs::read_to_string(&md).expect("the Markdown file");
    assert!(text.starts_with("**"), "Markdown, not JSON: {text}");
    assert!(
        text.contains("\n\nDrive: Kitchen Pi card; tested 2026-12-02 05:15:00\n"),
        "the drive's name and the run's date: {text}"
    );
    assert!(!dir.path().join("agnostics-2026-12-02-0515.json").exists());

    // A name the person typed: its extension decides, though the PNG filter is chosen.
    chooser.set_filter(&filter(2));
    iterate_briefly();
    chooser.set_current_name("kitchen-card.json");
    chooser.set_filter(&filter(2));
    iterate_briefly();
    assert_eq!(
        name().as_deref(),
        Some("kitchen-card.json"),
        "typed names stay"
    );
    chooser.emit_by_name::<()>("response", &[&gtk::ResponseType::Accept.into_glib()]);
    iterate_briefly();
    let json = std::fs::read_to_string(dir.path().join("kitchen-card.json")).expect("JSON");
    assert!(json.trim_start().starts_with('{'), "{json}");
    chooser.hide();
}

/// GNOME HIG: the page's titles use header capitalisation ("Drives tested" sat beside
/// "Rename Drive"), and the empty History page offered no way on: its button opens the SD
/// Card page, where the test is chosen (it starts nothing itself).
fn the_empty_history_offers_a_test_and_titles_use_header_capitalisation(app: &Application) {
    let dir = scratch_dir();
    let window = new_window(app);
    window.set_history_path(&dir.path().join("history.sqlite3"));
    wait_until("the history", || !window.history_view().is_loading());
    window.set_tab(Tab::History);
    iterate_briefly();
    let view = window.history_view();
    let titles: Vec<String> = descendants(view.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Label>().ok())
        .filter(|l| {
            ["title-1", "title-2", "title-3", "title-4"]
                .iter()
                .any(|c| l.has_css_class(c))
        })
        .map(|l| l.label().to_string())
        .chain(
            descendants(view.upcast_ref())
                .into_iter()
                .filter_map(|w| w.downcast::<adw::StatusPage>().ok())
                .map(|p| p.title().to_string()),
        )
        .collect();
    assert!(titles.iter().any(|t| t == "Drives Tested"), "{titles:?}");
    let bad: Vec<&String> = titles
        .iter()
        .filter(|t| !not_header_case(t).is_empty())
        .collect();
    assert!(bad.is_empty(), "sentence-case titles: {bad:?}");

    let empty = descendants(view.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<adw::StatusPage>().ok())
        .find(|p| p.is_mapped())
        .expect("the empty History page is shown");
    let test = descendants(empty.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Button>().ok())
        .find(|b| b.is_mapped())
        .expect("the empty page offers a button");
    assert_eq!(
        test.label().map(|l| a11y::without_mnemonic(&l)).as_deref(),
        Some("Test a Drive")
    );
    test.emit_clicked();
    iterate_briefly();
    assert_eq!(window.tab(), Tab::SdCard, "the SD Card page is shown");
    assert!(!window.test_run().is_busy(), "nothing was started");
}

/// After a Quick check the window said "Measured, not graded" while `rpdiags.txt` said `Test
/// PASS`. The log ends with the verdict the window and the CLI give it, NOT GRADED.
fn a_quick_check_is_not_graded_in_the_log_as_in_the_window(app: &Application) {
    use agnostics_core::profile::builtin;
    use agnostics_core::verdict::Verdict;
    let dir = scratch_dir();
    let window = new_window(app);
    aim(&window, dir.path(), None);
    let index = builtin::ALL
        .iter()
        .position(|b| b.name == "quick")
        .expect("the quick check");
    window.profile_row().set_selected(index as u32);
    assert!(!window.profile().graded());
    window.run_button().activate();
    wait_until("the results", || {
        window.page() == Page::Results || window.open_dialog().is_some()
    });
    if let Some(dialog) = window.open_dialog() {
        panic!(
            "an error dialog: {:?} {:?}",
            dialog.heading(),
            dialog.body()
        );
    }
    let report = window.last_report().expect("the report");
    assert_eq!(report.verdict, Verdict::NotGraded);
    let shown: Vec<String> = descendants(window.results_view().upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Label>().ok())
        .filter(|l| l.is_mapped())
        .map(|l| l.label().to_string())
        .collect();
    assert!(
        shown.iter().any(|l| l == "Measured, not graded"),
        "the window's verdict: {shown:?}"
    );
    let log_file = std::env::var_os("AGNOSTICS_LOG").expect("the log's place");
    wait_until("the log", || {
        std::fs::read_to_string(&log_file).is_ok_and(|t| t.ends_with("\n\n"))
    });
    let log = std::fs::read_to_string(&log_file).expect("rpdiags.txt");
    assert!(
        log.ends_with("measured, not graded against A1/A2\nTest NOT GRADED\n\n"),
        "{log}"
    );
    assert!(!log.contains("Test PASS"), "{log}");
}

/// Finding: the FAIL badge's text was 3.9:1 in the dark style, PASS's 3.9:1 in the light one,
/// and "For reference only" 4.3:1. Measured on the pixels drawn: every badge's text and the
/// note reach 4.5:1 against what is behind them, in both styles.
fn badges_and_notes_have_text_contrast_in_both_styles(app: &Application) {
    use agnostics::widgets::Badge;
    let style = adw::StyleManager::default();
    let window = new_window(app);
    // A USB drive below the A1 targets: PASS and FAIL rows, and the note that the targets are
    // for reference only.
    window
        .results_view()
        .show_report(&usb_report_below_target());
    window.show_page_for_test(Page::Results);
    wait_until("the page transition to end", || window.page_settled());
    for scheme in [adw::ColorScheme::ForceLight, adw::ColorScheme::ForceDark] {
        style.set_color_scheme(scheme);
        iterate_briefly();
        let shown = |w: &gtk::Widget| w.is_mapped() && w.width() > 0;
        let mut measured: Vec<(String, gtk::Widget)> =
            descendants(window.results_view().upcast_ref())
                .into_iter()
                .filter(shown)
                .filter_map(|w| w.downcast::<Badge>().ok())
                .map(|b| (b.text(), b.upcast()))
                .collect();
        let texts: Vec<&str> = measured.iter().map(|(t, _)| t.as_str()).collect();
        assert!(
            texts.contains(&"PASS") && texts.contains(&"FAIL"),
            "{texts:?}"
        );
        let note = descendants(window.results_view().upcast_ref())
            .into_iter()
            .filter(shown)
            .find(|w| w.has_css_class("reference-note"))
            .expect("the reference note");
        measured.push(("note".to_owned(), note));
        let shot = Pixels::of(window.upcast_ref());
        // What is on screen: inside the page's scrolled view (a badge scrolled under the
        // bottom buttons or out of view is not seen).
        let scroller = descendants(window.results_view().upcast_ref())
            .into_iter()
            .find(|w| w.is::<gtk::ScrolledWindow>())
            .expect("the page scrolls");
        let seen = |w: &gtk::Widget| {
            w.compute_bounds(&scroller)
                .is_some_and(|b| b.y() >= 0.0 && b.y() + b.height() <= scroller.height() as f32)
        };
        let contrasts: Vec<(String, f64)> = measured
            .iter()
            .filter(|(_, w)| seen(w))
            .map(|(what, w)| {
                let b = w.compute_bounds(&window).expect("in the window");
                (what.clone(), shot.text_contrast(&b))
            })
            .collect();
        for want in ["PASS", "FAIL", "note"] {
            assert!(
                contrasts.iter().any(|(what, _)| what == want),
                "{want} on the first screen: {contrasts:?}"
            );
        }
        assert!(
            contrasts.iter().all(|(_, c)| *c >= 4.5),
            "{scheme:?}: text contrast below 4.5:1: {contrasts:?}"
        );
    }
    style.set_color_scheme(adw::ColorScheme::Default);
}

/// A window's pixels as drawn (RGBA, 8 bits a channel).
struct Pixels {
    width: usize,
    height: usize,
    rgba: Vec<u8>,
}

impl Pixels {
    const SCALE: f32 = 3.0;

    /// Draws `window` with its own renderer, at [`Pixels::SCALE`] times its size (so that the
    /// strokes of the text have pixels of their full colour, as on a display of that scale).
    fn of(window: &gtk::Window) -> Pixels {
        let (w, h) = (window.width(), window.height());
        let snapshot = gtk::Snapshot::new();
        snapshot.scale(Self::SCALE, Self::SCALE);
        gtk::WidgetPaintable::new(Some(window)).snapshot(&snapshot, f64::from(w), f64::from(h));
        let node = snapshot.to_node().expect("something drawn");
        let renderer = window.renderer().expect("a renderer");
        let texture = renderer.render_texture(&node, None);
        let (width, height) = (texture.width() as usize, texture.height() as usize);
        let mut bgra = vec![0u8; width * height * 4];
        texture.download(&mut bgra, width * 4);
        let rgba = bgra
            .chunks_exact(4)
            .flat_map(|p| [p[2], p[1], p[0], p[3]])
            .collect();
        Pixels {
            width,
            height,
            rgba,
        }
    }

    /// The contrast ratio (WCAG 2) of the text inside `rect` (in the window's coordinates)
    /// against its background: the
    /// commonest colour there is the background, the pixel farthest from it in luminance the
    /// text.
    fn text_contrast(&self, rect: &gtk::graphene::Rect) -> f64 {
        let mut counts = std::collections::HashMap::new();
        let mut lums = Vec::new();
        let k = Self::SCALE;
        let (x0, y0) = (
            (rect.x() * k).max(0.0) as usize,
            (rect.y() * k).max(0.0) as usize,
        );
        let x1 = (((rect.x() + rect.width()) * k) as usize).min(self.width);
        let y1 = (((rect.y() + rect.height()) * k) as usize).min(self.height);
        for y in y0..y1 {
            for x in x0..x1 {
                let i = (y * self.width + x) * 4;
                let p = [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]];
                *counts.entry(p).or_insert(0u32) += 1;
                lums.push(luminance(p));
            }
        }
        let background = counts
            .into_iter()
            .max_by_key(|(_, n)| *n)
            .map(|(p, _)| luminance(p))
            .expect("pixels in the rectangle");
        lums.into_iter()
            .map(|l| (l.max(background) + 0.05) / (l.min(background) + 0.05))
            .fold(1.0, f64::max)
    }
}

/// WCAG 2 relative luminance of an sRGB colour.
fn luminance(p: [u8; 3]) -> f64 {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(p[0]) + 0.7152 * lin(p[1]) + 0.0722 * lin(p[2])
}
