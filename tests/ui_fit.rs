//! Geometry of the window in English, German and Japanese (run under `xvfb-run -a cargo test -p
//! agnostics --test ui_fit`): the window narrows to 360 px, the HIG's narrowest adaptive width;
//! at 800×480 (a Raspberry Pi touchscreen) and at 360×480 every page (SD card test with its
//! problem message, results, All Tests, History, a drive, a stored run, a drive found fake and
//! its stored capacity check) needs no more width than that, no text shown is ellipsised or
//! clipped, and the primary action (Run SD Card Test, Run Tests) and the results' verdict lie
//! wholly inside the window.
//!
//! Its own test binary (`harness = false`). The language is chosen once per process, before
//! GTK starts, so without `AGNOSTICS_FIT_LANGUAGE` the binary runs itself once per language
//! (`en`, `de`, `ja`) and fails when any of them fails; with it, it runs its tests in that
//! language (the catalogue compiled with `msgfmt`, the glibc locale built with `localedef`).
//!
//! With `AGNOSTICS_SCREENSHOTS=DIR`, `renders_narrow_screenshots` saves the pages at 360×480 as
//! `DIR/{ready,ready-refused,results,tests,history,history-run}-360-LANG.png` (tools/screenshots).

#[path = "ui_support/mod.rs"]
mod support;
// Only the History fixture with a stored fake check is used here.
#[allow(dead_code)]
#[path = "ui_capacity/fixture.rs"]
mod capacity_fixture;

use std::process::Command;

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{Application, Window};
use agnostics_core::history::IdentityBasis;
use agnostics_core::target_dir::Transport;
use agnostics_testkit::locale;
use gtk::graphene;

use support::history_fixture::{self, fixture, settle};
use support::*;

/// The languages each geometry test runs in.
const LANGUAGES: [&str; 3] = ["en", "de", "ja"];

/// The widths each page is checked at, the height being 480.
const WIDTHS: [i32; 2] = [800, 360];

fn main() {
    let Ok(lang) = std::env::var("AGNOSTICS_FIT_LANGUAGE") else {
        std::process::exit(run_each_language());
    };
    let scratch = locale::scratch_dir("ui-fit-");
    let catalogues = locale::catalogue_dir(scratch.path());
    let locpath = scratch.path().join("locpath");
    std::fs::create_dir_all(&locpath).expect("create LOCPATH");
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite"));
    if lang != "en" {
        locale::compile_catalogues(&catalogues, &[lang.as_str()]);
        let glibc = match lang.as_str() {
            "de" => locale::german_locale(&locpath),
            _ => locale::japanese_locale(&locpath),
        };
        std::env::set_var("LOCPATH", &locpath);
        std::env::set_var("LC_ALL", *glibc.as_ref().unwrap_or(&"C.UTF-8"));
        std::env::set_var("LANGUAGE", &lang);
        agnostics_core::i18n::init(&catalogues);
    }
    let mut tests = crate::ui_tests![
        the_window_narrows_to_360,
        the_sd_card_page_fits_with_its_problem_and_run_on_screen,
        the_drive_run_writes_to_is_in_view_with_run,
        the_results_fit_with_the_verdict_on_screen,
        the_all_tests_page_fits_with_run_on_screen,
        the_history_pages_fit,
    ];
    // The screenshots are made on request only (tools/screenshots), so that a run of the suite
    // has no test that did not run.
    if std::env::var_os("AGNOSTICS_SCREENSHOTS").is_some() {
        tests.extend(crate::ui_tests![renders_narrow_screenshots]);
    }
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(scratch);
    conclusion.exit()
}

/// Runs this binary once per language of [`LANGUAGES`] with the same arguments; the exit
/// status is 0 when every run passed, else 101.
fn run_each_language() -> i32 {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut failed = Vec::new();
    for lang in LANGUAGES {
        println!("ui_fit in {lang}:");
        let status = Command::new(&exe)
            .args(std::env::args_os().skip(1))
            .env("AGNOSTICS_FIT_LANGUAGE", lang)
            .status()
            .expect("run the test binary");
        if !status.success() {
            failed.push(lang);
        }
    }
    if failed.is_empty() {
        0
    } else {
        eprintln!("ui_fit failed in {failed:?}");
        101
    }
}

/// Sets the window's content to `width`×480 (its frame, when it has one, outside that) and
/// waits until it is laid out at that size.
fn resize(window: &Window, width: i32) {
    let content = window.content().expect("the window has content");
    let (frame_w, frame_h) = (
        window.default_width() - content.width(),
        window.default_height() - content.height(),
    );
    window.set_default_size(width + frame_w.max(0), 480 + frame_h.max(0));
    let _ = try_wait_until(std::time::Duration::from_secs(5), || {
        content.width() == width && content.height() == 480
    });
    for _ in 0..3 {
        iterate_briefly();
    }
}

/// `widget`'s bounds in the window's content.
fn bounds_in_content(window: &Window, widget: &impl IsA<gtk::Widget>) -> graphene::Rect {
    let content = window.content().expect("the window has content");
    widget
        .compute_bounds(&content)
        .expect("the widget is inside the content")
}

/// Asserts that `widget` lies wholly inside the window's content.
fn assert_on_screen(window: &Window, widget: &impl IsA<gtk::Widget>, what: &str, state: &str) {
    let content = window.content().expect("the window has content");
    assert!(widget.is_mapped(), "{state}: {what} is not shown");
    let b = bounds_in_content(window, widget);
    let (w, h) = (content.width() as f32, content.height() as f32);
    assert!(
        b.x() >= 0.0 && b.y() >= 0.0 && b.x() + b.width() <= w && b.y() + b.height() <= h,
        "{state}: {what} at {:?} is not inside the {w}×{h} window",
        (b.x(), b.y(), b.width(), b.height())
    );
}

/// The labels shown in the window whose text does not fit: ellipsised, wider than their
/// allocation without wrapping, or reaching past the window's left or right edge. The header
/// bar's window title is not counted: libadwaita shortens it to the room the header bar's
/// buttons leave, and the desktop shows the whole name.
fn cut_labels(window: &Window) -> Vec<String> {
    let content = window.content().expect("the window has content");
    let width = content.width() as f32;
    labels(content.upcast_ref())
        .into_iter()
        .filter(|l| l.ancestor(adw::WindowTitle::static_type()).is_none())
        .filter(|l| l.is_mapped() && l.is_child_visible() && !l.label().is_empty())
        .filter_map(|l| {
            // The text's own width against the label's content box: a label's measured size
            // also counts its CSS padding and margins (libadwaita 1.7's view switcher gives
            // its labels some), which are not text.
            let text = l.layout().pixel_size().0;
            let b = bounds_in_content(window, &l);
            let why = if l.layout().is_ellipsized() {
                "ellipsised".to_owned()
            } else if !l.wraps() && l.width() < text {
                format!("{} of {text} px", l.width())
            } else if b.x() < 0.0 || b.x() + b.width() > width + 0.5 {
                format!("from x {} to {}", b.x(), b.x() + b.width())
            } else {
                return None;
            };
            let mut inside = Vec::new();
            let mut parent = l.parent();
            while let Some(p) = parent {
                inside.push(p.type_().name().to_owned());
                parent = p.parent();
            }
            Some(format!("{:?} ({why}) in {}", l.label(), inside.join(" < ")))
        })
        .collect()
}

/// At each of [`WIDTHS`]: the content needs no more than that width and no shown label is
/// cut; `check` then looks at the page in that state.
fn assert_fits(window: &Window, page: &str, mut check: impl FnMut(&str)) {
    for width in WIDTHS {
        resize(window, width);
        let state = format!("{page} at {width}×480");
        let content = window.content().expect("the window has content");
        let (min_w, _, _, _) = content.measure(gtk::Orientation::Horizontal, -1);
        assert!(min_w <= width, "{state}: needs {min_w} px");
        let (min_h, _, _, _) = content.measure(gtk::Orientation::Vertical, width);
        assert!(min_h <= 480, "{state}: needs {min_h} px of height");
        let cut = cut_labels(window);
        assert!(cut.is_empty(), "{state}: text cut: {cut:#?}");
        check(&state);
    }
    resize(window, 800);
}

/// The window's own minimum is 360 px wide (the HIG's narrowest): narrowed to it, its content
/// is 360 px on every page.
fn the_window_narrows_to_360(app: &Application) {
    let window = new_window(app);
    assert_eq!(window.width_request(), 360);
    for tab in [Tab::SdCard, Tab::AllTests, Tab::History] {
        window.set_tab(tab);
        resize(&window, 360);
        let content = window.content().expect("the window has content");
        assert_eq!(content.width(), 360, "{tab:?}: the content is not 360 px");
        resize(&window, 800);
    }
}

/// Finding: in German and Japanese the problem message pushed **Run SD Card Test** mostly
/// below the window's edge with no scrollbar in sight. It stays on screen, with the message.
fn the_sd_card_page_fits_with_its_problem_and_run_on_screen(
    app: &Application,
) -> agnostics_testkit::Ran {
    let window = new_window(app);
    assert_fits(&window, "SD card test", |state| {
        assert_on_screen(&window, &window.run_button(), "Run SD Card Test", state);
    });
    // With a problem shown (a folder in memory is refused), as long as its text is.
    let Some(tmpfs) = TmpfsDir::new() else {
        return agnostics_testkit::skip("needs /dev/shm on tmpfs, or root to mount one");
    };
    aim(&window, tmpfs.path(), None);
    // The checks take a moment on a helper thread; a bound for a stuck check, not a timing.
    let _ = try_wait_until(std::time::Duration::from_secs(20), || {
        window.ready_problem().is_some()
    });
    assert!(window.ready_problem().is_some(), "a problem is shown");
    let problem = labels(window.ready_view().upcast_ref())
        .into_iter()
        .find(|l| l.has_css_class("error") && l.is_mapped())
        .expect("the problem is shown");
    assert_fits(&window, "SD card test with a problem", |state| {
        assert_on_screen(&window, &window.run_button(), "Run SD Card Test", state);
        assert_on_screen(&window, &problem, "the problem", state);
    });
    Ok(())
}

/// Finding: at 360×480 Run was on screen but the drive it writes to was not: the chooser and
/// "The test file goes in …" sat under the pinned buttons. Both are in view with Run now.
fn the_drive_run_writes_to_is_in_view_with_run(app: &Application) {
    let window = new_window(app);
    let ready = window.ready_view();
    let scroller = descendants(ready.upcast_ref())
        .into_iter()
        .find_map(|w| w.downcast::<gtk::ScrolledWindow>().ok())
        .expect("the page's scrolled part");
    let chosen = window
        .drive_row()
        .selected_choice()
        .expect("a drive chosen");
    let line = agnostics_core::i18n::fill(
        &agnostics_core::i18n::gettext("The test file goes in {folder}"),
        &[("folder", &chosen.dir.display())],
    );
    let folder = labels(ready.upcast_ref())
        .into_iter()
        .find(|l| l.label() == line)
        .expect("the line naming the folder");
    for width in WIDTHS {
        resize(&window, width);
        let state = format!("the SD card page at {width}×480");
        assert_on_screen(&window, &window.run_button(), "Run SD Card Test", &state);
        assert_on_screen(&window, &folder, "the folder the test file goes in", &state);
        let row = window.drive_row();
        let in_view = || {
            row.compute_bounds(&scroller)
                .is_some_and(|b| b.y() >= 0.0 && b.y() + b.height() <= scroller.height() as f32)
        };
        // The page scrolls the chooser into view once the new size is laid out.
        let _ = try_wait_until(std::time::Duration::from_secs(5), in_view);
        let b = row
            .compute_bounds(&scroller)
            .expect("the chooser is in the scrolled part");
        assert!(
            b.y() >= 0.0 && b.y() + b.height() <= scroller.height() as f32,
            "{state}: the chooser at y {} to {} is out of the {} px the scrolled part shows",
            b.y(),
            b.y() + b.height(),
            scroller.height()
        );
    }
}

/// A standard run on an SD card that passes: every row of the results page filled.
fn standard_report() -> agnostics_core::report::Report {
    history_fixture::report_of(
        &history_fixture::drive(IdentityBasis::Cid, history_fixture::CARD),
        &format!("{:032x}", 0xf17_0000_u32),
        "2026-12-02T05:15:00+00:00",
        (14.2e6, 42e6, 900.0, 2400.0),
        Transport::Sd,
    )
}

/// The results of a standard run: the verdict's headline is on screen at both widths.
fn the_results_fit_with_the_verdict_on_screen(app: &Application) {
    let window = new_window(app);
    let results = window.results_view();
    results.show_report(&standard_report());
    window.show_page_for_test(Page::Results);
    wait_until("the results page", || window.page_settled());
    assert_fits(&window, "results", |state| {
        let headline = labels(results.upcast_ref())
            .into_iter()
            .find(|l| l.has_css_class("title-2") && l.is_mapped())
            .expect("the verdict's headline");
        assert_on_screen(&window, &headline, "the verdict", state);
    });
}

/// The All Tests page: **Run Tests** on screen at both widths.
fn the_all_tests_page_fits_with_run_on_screen(app: &Application) {
    let window = new_window(app);
    window.set_tab(Tab::AllTests);
    iterate_briefly();
    let run = descendants(window.tests_view().upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Button>().ok())
        .find(|b| b.action_name().as_deref() == Some(agnostics::window::Action::RunTests.name()))
        .expect("Run Tests");
    assert_fits(&window, "All Tests", |state| {
        assert_on_screen(&window, &run, "Run Tests", state);
    });
}

/// Finding: the German stored run's title read "Testlauf vom 2026-12-02 05…". The list of
/// drives, a drive's page and a stored run's page fit, their titles whole.
fn the_history_pages_fit(app: &Application) {
    let f = fixture();
    let window = new_window(app);
    window.set_history_path(&f.path);
    window.set_tab(Tab::History);
    settle(&window);
    assert_fits(&window, "History", |_| {});
    let view = window.history_view();
    view.open_drive(&history_fixture::key(history_fixture::CARD));
    settle(&window);
    assert_fits(&window, "a drive's history", |_| {});
    view.open_run(&format!("{:032x}", 0xc0de_0002_usize));
    settle(&window);
    assert_fits(&window, "a stored run", |_| {});
    // Two of the card's runs side by side: the German title "Vergleich" was cut beside
    // "Als Markdown kopieren".
    history_fixture::compare_card_runs(&window, 1, 0);
    assert_fits(&window, "a comparison", |_| {});
    // A drive found fake, with its Found fake line, and its stored check's page with Save
    // Report… and Forget Check beside the title: the German header once needed 439 px.
    let f = capacity_fixture::fake_fixture();
    window.set_history_path(&f.path);
    view.open_drive(&history_fixture::key(history_fixture::CARD));
    settle(&window);
    assert_fits(&window, "a drive found fake", |_| {});
    view.open_check(capacity_fixture::FAKE_CHECK_ID);
    settle(&window);
    assert_fits(&window, "a stored capacity check", |_| {});
    // Finding: German could not narrow below 439 px on a drive's page with runs of several
    // tests: "Test shown in the chart" and its menu of tests stood side by side.
    record_other_tests(&f.path);
    view.open_drive(&history_fixture::key(history_fixture::CARD));
    settle(&window);
    assert!(view.profile_drop_down().is_some_and(|d| d.is_mapped()));
    assert_fits(&window, "a drive with runs of several tests", |_| {});
}

/// Records a run of each other built-in test of the fixture's SD card in `history`.
fn record_other_tests(history: &std::path::Path) {
    use agnostics_core::profile::builtin;
    let card = history_fixture::drive(IdentityBasis::Cid, history_fixture::CARD);
    let mut h = agnostics_core::history::History::open(history).unwrap();
    for (i, b) in builtin::ALL.iter().enumerate().skip(1) {
        let id = format!("{:032x}", 0xabc0 + i);
        let started = format!("2026-12-0{}T05:15:00+00:00", i + 3);
        let figures = (14.2e6, 42e6, 900.0, 2400.0);
        let mut run = history_fixture::report_of(&card, &id, &started, figures, Transport::Sd);
        run.profile = agnostics_core::report::ProfileInfo::of(&b.profile(), 1 << 20);
        h.record(&run).expect("the run is kept");
    }
}

/// With `AGNOSTICS_SCREENSHOTS=DIR`: the pages at 360×480, to look at (see the module's docs).
fn renders_narrow_screenshots(app: &Application) -> agnostics_testkit::Ran {
    let Some(out) = std::env::var_os("AGNOSTICS_SCREENSHOTS") else {
        return agnostics_testkit::skip("renders only with AGNOSTICS_SCREENSHOTS=DIR");
    };
    let out = std::path::PathBuf::from(out);
    let lang = std::env::var("AGNOSTICS_FIT_LANGUAGE").expect("the language");
    let png = |name: &str| out.join(format!("{name}-360-{lang}.png"));
    let window = new_window(app);
    resize(&window, 360);
    save_png(&window, &png("ready"));
    if let Some(tmpfs) = TmpfsDir::new() {
        aim(&window, tmpfs.path(), None);
        let _ = try_wait_until(std::time::Duration::from_secs(20), || {
            window.ready_problem().is_some()
        });
        save_png(&window, &png("ready-refused"));
    }
    window.results_view().show_report(&standard_report());
    window.show_page_for_test(Page::Results);
    // Shown without a run, the page's first focusable control is its selectable subtitle,
    // all of it selected; after a run the focus is on Copy Results.
    gtk::prelude::GtkWindowExt::set_focus(&window, None::<&gtk::Widget>);
    for label in labels(window.results_view().upcast_ref()) {
        if label.is_selectable() {
            label.select_region(0, 0);
        }
    }
    save_png(&window, &png("results"));
    window.set_tab(Tab::AllTests);
    save_png(&window, &png("tests"));
    let f = fixture();
    window.set_history_path(&f.path);
    window.set_tab(Tab::History);
    settle(&window);
    save_png(&window, &png("history"));
    let view = window.history_view();
    view.open_drive(&history_fixture::key(history_fixture::CARD));
    settle(&window);
    view.open_run(&format!("{:032x}", 0xc0de_0002_usize));
    settle(&window);
    save_png(&window, &png("history-run"));
    window.destroy();
    Ok(())
}
