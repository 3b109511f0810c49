//! UI tests of the SD Card page's ready state, on a real display (run under `xvfb-run -a
//! cargo test -p agnostics --test ui_ready`): what Enter does, where focus starts, how drives
//! are named, targets refused before **Run** is pressed, one unit for space, the log shown in
//! the app, and the last drive, profile and window size remembered (GSettings, with the
//! schema compiled into a scratch folder and the memory backend).
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders the ready page, a refused drive (tmpfs) and a
//! drive without enough space at 800×480 to `DIR/ready-{,refused-,nospace-}LANG.png`, LANG
//! from `LANGUAGE` (`en` when unset; `de` and `ja` from the catalogues in `po/`).

#[path = "ui_support/mod.rs"]
mod support;

use agnostics_testkit::locale;

use std::path::Path;
use std::process::Command;

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{Application, Window};
use agnostics_core::advice::Advice;
use agnostics_core::profile::{builtin, Builtin, Profile};

use support::*;

fn main() {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    // The schema as meson installs it, compiled here; settings live in memory only.
    let schemas = scratch.path().join("schemas");
    std::fs::create_dir_all(&schemas).expect("the schemas folder");
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(format!("{}.gschema.xml", agnostics::config::APP_ID));
    let compiled = std::fs::copy(&source, schemas.join(source.file_name().unwrap())).is_ok()
        && Command::new("glib-compile-schemas")
            .arg(&schemas)
            .status()
            .is_ok_and(|s| s.success());
    if compiled {
        std::env::set_var("GSETTINGS_SCHEMA_DIR", &schemas);
        std::env::set_var("GSETTINGS_BACKEND", "memory");
    }
    std::env::set_var(
        "AGNOSTICS_TEST_SCHEMA_COMPILED",
        if compiled { "1" } else { "0" },
    );
    let lang = std::env::var("LANGUAGE").unwrap_or_default();
    if !lang.is_empty() && lang != "en" && std::env::var_os(SCREENSHOTS_ENV).is_some() {
        let catalogues = locale::catalogue_dir(scratch.path());
        locale::compile_catalogues(&catalogues, &[lang.as_str()]);
        agnostics_core::i18n::init(&catalogues);
    }
    // Before any test changes the settings (in memory for the whole process).
    let mut tests = crate::ui_tests![
        offers_the_built_in_profiles_standard_first,
        the_introduction_says_how_long_the_chosen_test_takes,
        no_stray_key_starts_a_test,
        the_chosen_test_is_shown_whole_at_the_narrowest_width,
        enter_elsewhere_does_not_start_a_test,
        drive_entries_show_kind_name_mount_point_and_free_space,
        memory_target_is_refused_on_the_ready_page,
        too_little_space_is_refused_on_the_ready_page_in_one_unit,
        show_log_shows_the_log_inside_the_app,
        advice_on_a_slow_drive_that_is_not_an_sd_card,
        remembers_the_drive_profile_and_window_size,
    ];
    if std::env::var_os(SCREENSHOTS_ENV).is_some() {
        tests.extend(crate::ui_tests![renders_ready_screenshots]);
    }
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(scratch);
    conclusion.exit()
}

/// Where [`renders_ready_screenshots`] writes its PNG files.
const SCREENSHOTS_ENV: &str = "AGNOSTICS_SCREENSHOTS";

/// The ready page (default drive), a refused tmpfs folder and a folder without enough space,
/// at 800×480, in the language of `LANGUAGE`.
fn renders_ready_screenshots(app: &Application) {
    let out = std::path::PathBuf::from(std::env::var_os(SCREENSHOTS_ENV).unwrap());
    let lang = std::env::var("LANGUAGE")
        .ok()
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "en".into());
    let window = new_window(app);
    save_png(&window, &out.join(format!("ready-{lang}.png")));
    if let Some(tmpfs) = TmpfsDir::new() {
        aim(&window, tmpfs.path(), None);
        let _ = try_wait_until(std::time::Duration::from_secs(20), || {
            window.ready_problem().is_some()
        });
        save_png(&window, &out.join(format!("ready-refused-{lang}.png")));
    }
    let dir = scratch_dir();
    let text = SMALL_PROFILE.replace("size=8m", "size=100000g");
    let profile = profile_file(dir.path(), "huge.fio", &text);
    aim(&window, dir.path(), Some(profile));
    let _ = try_wait_until(std::time::Duration::from_secs(20), || {
        window.ready_problem().is_some()
    });
    save_png(&window, &out.join(format!("ready-nospace-{lang}.png")));
}

/// A scratch folder on disk (ext4 under the build tree), aimed at with the small profile.
fn small_window(app: &Application, dir: &Path) -> Window {
    let window = new_window(app);
    let profile = profile_file(dir, "small.fio", SMALL_PROFILE);
    aim(&window, dir, Some(profile));
    iterate_briefly();
    window
}

/// Finding: at launch the focus was on **Run SD Card Test**, with no focus ring drawn, so one
/// Return wrote to the drive; Return on the SD Card tab and again did the same, and so did
/// Cancel's return to the page. The focus is on the drive chooser each time; what Return or
/// Space does there (open the chooser) starts nothing; **Run** (or Ctrl+R, said in the
/// shortcuts window) does.
fn no_stray_key_starts_a_test(app: &Application) {
    let dir = scratch_dir();
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    let focus = || gtk::prelude::GtkWindowExt::focus(&window);
    let chooser: gtk::Widget = window.drive_row().upcast();
    assert_eq!(window.page(), Page::Ready);
    assert_eq!(focus(), Some(chooser.clone()), "at launch");
    // A profile long enough to be cancelled in the middle.
    let profile = profile_file(dir.path(), "long.fio", LONG_PROFILE);
    aim(&window, dir.path(), Some(profile));
    iterate_briefly();
    // Return or Space on the focused control: its own activation, then GTK's default.
    focus().expect("a focus").activate();
    window.emit_by_name::<()>("activate-default", &[]);
    iterate_briefly();
    assert!(
        !window.test_run().is_busy(),
        "a key on the chooser started a test"
    );
    if let Some(popover) = descendants(window.drive_row().upcast_ref())
        .into_iter()
        .find_map(|w| w.downcast::<gtk::Popover>().ok())
    {
        popover.popdown();
    }
    // The SD Card tab chosen from the keyboard: the focus comes back to the chooser.
    window.set_tab(Tab::History);
    iterate_briefly();
    window.set_tab(Tab::SdCard);
    iterate_briefly();
    assert_eq!(focus(), Some(chooser.clone()), "back on the SD Card tab");
    // Ctrl+R runs the test, and the shortcuts window says so.
    assert_eq!(
        app.accels_for_action(agnostics::window::Action::Run.name()),
        ["<Control>r"]
    );
    let overlay =
        gtk::Builder::from_resource("/io/github/agnostics_rs/Agnostics/gtk/help-overlay.ui");
    let listed = overlay.objects().into_iter().any(|o| {
        o.downcast_ref::<gtk::ShortcutsShortcut>().is_some_and(|s| {
            s.action_name().as_deref() == Some(agnostics::window::Action::Run.name())
        })
    });
    assert!(listed, "the shortcuts window lists Ctrl+R");
    WidgetExt::activate_action(&window, agnostics::window::Action::Run.name(), None)
        .expect("win.run");
    wait_until("the test to start", || window.test_run().is_busy());
    let progress = window.progress_view();
    wait_until("a live figure", || progress.figure_text().ends_with("IOPS"));
    progress.cancel_button().activate();
    wait_until("the ready page", || !window.test_run().is_busy());
    wait_until("the page transition to end", || window.page_settled());
    iterate_briefly();
    assert_eq!(
        focus(),
        Some(chooser),
        "after Cancel: {:?}",
        focus()
            .and_downcast::<gtk::Button>()
            .map(|b| (b.label(), b.icon_name(), b.is_mapped()))
    );
}

/// Enter on anything but **Run** (here the drive chooser) does not start a test: the window
/// has no default widget that Enter would press.
fn enter_elsewhere_does_not_start_a_test(app: &Application) {
    let dir = scratch_dir();
    let window = small_window(app, dir.path());
    let _stop = StopOnDrop(window.clone());
    window.drive_row().grab_focus();
    iterate_briefly();
    // What GTK does with an Enter that the focused widget does not handle.
    window.emit_by_name::<()>("activate-default", &[]);
    iterate_briefly();
    assert!(
        !window.test_run().is_busy(),
        "Enter on the drive chooser started a test"
    );
    assert_eq!(window.page(), Page::Ready);
    assert_ne!(
        window.default_widget(),
        Some(window.run_button().upcast()),
        "Run is not the default widget"
    );
}

fn labels_under(widget: &gtk::Widget) -> Vec<gtk::Label> {
    let mut out = Vec::new();
    let mut child = widget.first_child();
    while let Some(c) = child {
        if let Ok(label) = c.clone().downcast::<gtk::Label>() {
            out.push(label);
        }
        out.extend(labels_under(&c));
        child = c.next_sibling();
    }
    out
}

/// Every entry names the drive's kind, its mount point and its free space, and the chosen
/// one is shown whole at 800×480 (wrapped, not cut).
fn drive_entries_show_kind_name_mount_point_and_free_space(app: &Application) {
    let window = new_window(app);
    let row = window.drive_row();
    for choice in row.choices() {
        let Some(info) = &choice.info else { continue };
        let mount = info.mount_point.display().to_string();
        assert!(
            choice.label.contains(&mount),
            "{:?} does not say where it is mounted ({mount})",
            choice.label
        );
        assert!(
            choice.label.contains(" free"),
            "{:?} does not give the free space",
            choice.label
        );
    }
    let selected = row.selected_choice().expect("a drive is chosen");
    let shown: Vec<gtk::Label> = labels_under(row.upcast_ref())
        .into_iter()
        .filter(|l| {
            l.is_mapped() && !l.label().is_empty() && selected.label.contains(l.label().as_str())
        })
        .collect();
    assert!(!shown.is_empty(), "the chosen drive is shown");
    for label in shown {
        assert!(
            !label.layout().is_ellipsized(),
            "{:?} is cut at 800×480",
            label.label()
        );
    }
}

/// tmpfs is refused on the ready page, before **Run**: the reason and what to do are shown and
/// **Run** is off; a test started anyway (as `--run` does) ends in a dialog that offers
/// **Choose Another Drive**.
fn memory_target_is_refused_on_the_ready_page(app: &Application) -> agnostics_testkit::Ran {
    let Some(tmpfs) = TmpfsDir::new() else {
        return agnostics_testkit::skip("needs /dev/shm on tmpfs, or root to mount one");
    };
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, tmpfs.path(), None);
    // The checks take a moment on a helper thread; a bound for a stuck check, not a timing.
    let _ = try_wait_until(std::time::Duration::from_secs(20), || {
        window.ready_problem().is_some()
    });
    let problem = window.ready_problem().expect("a problem");
    assert!(problem.contains("tmpfs"), "{problem}");
    assert!(problem.contains(&Advice::MemoryTarget.text()), "{problem}");
    assert!(!window.run_button().is_sensitive(), "Run is off");
    assert!(!window.is_action_enabled(agnostics::window::Action::Run.name()));

    window.start_test();
    wait_until("the error dialog", || window.open_dialog().is_some());
    let dialog = window.open_dialog().expect("dialog");
    assert!(
        dialog.has_response("choose"),
        "Choose another drive is offered"
    );
    dialog.response("choose");
    iterate_briefly();
    assert!(window.open_dialog().is_none());
    assert_eq!(
        gtk::prelude::GtkWindowExt::focus(&window),
        Some(window.drive_row().upcast()),
        "Choose another drive goes to the chooser"
    );
    Ok(())
}

/// A profile bigger than the free space is refused on the ready page, and every text on the
/// page about space (the introduction, the chooser, the problem) is in MB or GB, as on disk
/// labels, none in MiB (block sizes, fio's terms, stay binary).
fn too_little_space_is_refused_on_the_ready_page_in_one_unit(app: &Application) {
    let dir = scratch_dir();
    let free = agnostics_core::target_dir::fs::space(dir.path())
        .expect("statvfs")
        .free_bytes;
    let size = free.saturating_mul(2).max(1 << 30);
    let text = SMALL_PROFILE.replace("size=8m", &format!("size={size}"));
    let profile = profile_file(dir.path(), "huge.fio", &text);
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, dir.path(), Some(profile));
    // The checks take a moment on a helper thread; a bound for a stuck check, not a timing.
    let _ = try_wait_until(std::time::Duration::from_secs(20), || {
        window.ready_problem().is_some()
    });
    let problem = window.ready_problem().expect("a problem");
    assert!(problem.starts_with("Not enough free space"), "{problem}");
    assert!(!window.run_button().is_sensitive(), "Run is off");
    let page: Vec<String> = labels_under(window.ready_view().upcast_ref())
        .into_iter()
        .filter(|l| l.is_visible())
        .map(|l| l.label().to_string())
        .filter(|t| t.contains("space") || t.contains(" free"))
        .collect();
    assert!(
        page.len() >= 2,
        "the introduction and the problem: {page:?}"
    );
    for text in &page {
        assert!(
            !text.contains("MiB") && !text.contains("GiB"),
            "binary units beside decimal ones: {text:?}"
        );
    }
    assert!(
        page.iter().any(|t| t.contains(" GB") || t.contains(" MB")),
        "{page:?}"
    );
}

/// **Show Log** opens the log in a window of the app (no editor needed) that says where the
/// file is.
fn show_log_shows_the_log_inside_the_app(app: &Application) {
    let path = std::path::PathBuf::from(std::env::var_os("AGNOSTICS_LOG").unwrap());
    std::fs::write(
        &path,
        "Raspberry Pi Diagnostics - version 0.1\nSD Card Speed Test : PASS\n",
    )
    .expect("a log");
    let window = new_window(app);
    WidgetExt::activate_action(&window, agnostics::window::Action::ShowLog.name(), None)
        .expect("the action");
    iterate_briefly();
    let log = app
        .windows()
        .into_iter()
        .filter(|w| w != window.upcast_ref::<gtk::Window>())
        .find(|w| w.is_visible())
        .expect("a log window");
    let mut texts: Vec<String> = labels_under(log.upcast_ref())
        .into_iter()
        .map(|l| l.label().to_string())
        .collect();
    texts.extend(log.title().map(|t| t.to_string()));
    let mut views = Vec::new();
    let mut stack = vec![log.clone().upcast::<gtk::Widget>()];
    while let Some(w) = stack.pop() {
        if let Ok(view) = w.clone().downcast::<gtk::TextView>() {
            views.push(view);
        }
        let mut child = w.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push(c);
        }
    }
    let view = views.first().expect("the log's text");
    let buffer = view.buffer();
    let shown = buffer.text(&buffer.start_iter(), &buffer.end_iter(), false);
    assert!(shown.contains("SD Card Speed Test : PASS"), "{shown}");
    assert!(!view.is_editable());
    let where_ = path.display().to_string();
    assert!(
        texts.iter().any(|t| t.contains(&where_)),
        "the window says where the log is ({where_}): {texts:?}"
    );
    log.close();
}

/// The drive, the profile and the window size chosen are there again in the next window.
fn remembers_the_drive_profile_and_window_size(app: &Application) -> agnostics_testkit::Ran {
    if std::env::var("AGNOSTICS_TEST_SCHEMA_COMPILED").as_deref() != Ok("1") {
        return agnostics_testkit::skip("needs glib-compile-schemas (libglib2.0-bin)");
    }
    let dir = scratch_dir();
    let window = new_window(app);
    aim(&window, dir.path(), None);
    window.profile_row().set_selected(1);
    iterate_briefly();
    window.set_default_size(820, 500);
    iterate_briefly();
    window.close();
    iterate_briefly();

    let window = Window::new(app);
    window.present();
    wait_until("the list of drives", || window.drives_loaded());
    assert_eq!(window.profile_row().selected(), 1, "the profile");
    assert_eq!(
        window.drive_row().selected_choice().map(|c| c.dir),
        Some(dir.path().to_path_buf()),
        "the drive"
    );
    assert_eq!(window.default_size(), (820, 500), "the window size");
    Ok(())
}

/// A slow drive that is not an SD card (a throttled loop device): the "reference only" note
/// comes first, beside the verdict; no "A1 or A2 card" advice; and the slow sequential write
/// says how to reformat without losing anything, not only that the card may need it.
fn advice_on_a_slow_drive_that_is_not_an_sd_card(app: &Application) -> agnostics_testkit::Ran {
    agnostics_testkit::require_root("a loop device and a blkio throttle")?;
    let disk = match ThrottledDisk::new(64, 2_000_000, 50_000_000, 100, 100) {
        Ok(disk) => disk,
        Err(reason) => return agnostics_testkit::skip(&reason),
    };
    let profile = profile_file(disk.path(), "small.fio", SMALL_PROFILE);
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, disk.path(), Some(profile));
    window.start_test();
    wait_until("the results", || {
        window.page() == Page::Results || window.open_dialog().is_some()
    });
    let report = window.last_report().expect("a report");
    assert!(report.error.is_none(), "{:?}", report.error);
    assert!(
        matches!(report.advice.first(), Some(Advice::NotAnSdCard { .. })),
        "{:?}",
        report.advice
    );
    assert!(
        report.advice.contains(&Advice::SeqWriteSlow),
        "{:?}",
        report.advice
    );
    assert!(
        report
            .advice
            .contains(&Advice::ReformatSafely { system: false }),
        "{:?}",
        report.advice
    );
    assert!(
        !report.advice.contains(&Advice::RandomIoSlow),
        "{:?}",
        report.advice
    );
    let shown: Vec<String> = window
        .results_view()
        .shown_checks()
        .into_iter()
        .flat_map(|c| c.advice)
        .collect();
    assert!(
        shown.iter().all(|a| !a.contains("A1 or A2")),
        "card advice for a loop device: {shown:?}"
    );
    assert!(
        shown
            .iter()
            .any(|a| a.contains("copy off what you want to keep")),
        "{shown:?}"
    );
    Ok(())
}

/// The profile row lists the built-in profiles by their titles, the standard test first and
/// chosen: the next test is upstream's `sd_bench`, graded.
fn offers_the_built_in_profiles_standard_first(app: &Application) {
    let window = new_window(app);
    let row = window.profile_row();
    assert_eq!(row.title().as_str(), "Test");
    let list = row
        .model()
        .and_downcast::<gtk::StringList>()
        .expect("a list of titles");
    let shown: Vec<String> = (0..list.n_items())
        .filter_map(|i| list.string(i).map(|s| s.to_string()))
        .collect();
    let titles: Vec<String> = builtin::ALL.iter().map(Builtin::title).collect();
    assert_eq!(
        shown, titles,
        "the translated titles, in the built-in order"
    );
    assert_eq!(
        shown,
        [
            "Standard test",
            "Quick check",
            "One request at a time",
            "Like CrystalDiskMark",
            "Sustained write"
        ]
    );
    assert_eq!(row.selected(), 0);
    assert_eq!(
        row.selected_item()
            .and_downcast::<gtk::StringObject>()
            .map(|s| s.string().to_string())
            .as_deref(),
        Some("Standard test")
    );
    assert_eq!(
        row.subtitle().as_deref(),
        Some(builtin::ALL[0].description().as_str())
    );
    let profile = window.profile();
    assert_eq!(profile, Profile::sd_bench());
    assert!(profile.graded());
    assert_fits_800x480(&window, "ready, standard test");
}

/// The introduction said "takes a few minutes" for the half-minute Quick check, and the
/// Quick check's "32 MiB file" stood beside the introduction's "34 MB": the time comes from
/// the profile's phases, and no text of the choice is in binary units.
fn the_introduction_says_how_long_the_chosen_test_takes(app: &Application) {
    let window = new_window(app);
    let row = window.profile_row();
    let intro = || {
        labels_under(window.upcast_ref())
            .into_iter()
            .map(|l| l.label().to_string())
            .find(|t| t.starts_with("The test writes"))
            .expect("the introduction")
    };
    for (index, time) in [
        (0, "takes about 2 minutes on a slow card"),
        (1, "takes less than a minute on a slow card"),
        (2, "takes about 1 minute on a slow card"),
    ] {
        row.set_selected(index);
        iterate_briefly();
        let text = intro();
        assert!(text.contains(time), "{index}: {text}");
        if index == 1 {
            let subtitle = row.subtitle().unwrap_or_default();
            assert!(!subtitle.contains("MiB"), "{subtitle}");
        }
    }
    assert!(
        !intro().contains("a few minutes"),
        "the time is the profile's"
    );
    row.set_selected(0);
    iterate_briefly();
}

/// Finding: the profile row's choice was wrapped between any two characters: "Standa-" at the
/// narrowest width in English, "Sch-" in German, "標準テ" in Japanese. It is one whole line.
fn the_chosen_test_is_shown_whole_at_the_narrowest_width(app: &Application) {
    let window = new_window(app);
    // As narrow as the window goes (its content's own minimum decides how narrow).
    window.set_default_size(360, 480);
    for _ in 0..5 {
        iterate_briefly();
    }
    let row = window.profile_row();
    for (index, builtin) in builtin::ALL.iter().enumerate() {
        row.set_selected(index as u32);
        for _ in 0..3 {
            iterate_briefly();
        }
        let title = builtin.title();
        let shown = descendants(row.upcast_ref())
            .into_iter()
            .filter_map(|w| w.downcast::<gtk::Label>().ok())
            .find(|l| l.label() == title && l.is_mapped())
            .expect("the choice shown in the row");
        assert_eq!(
            shown.layout().line_count(),
            1,
            "{title:?} is wrapped at {} px",
            shown.width()
        );
        let (_, natural, _, _) = shown.measure(gtk::Orientation::Horizontal, -1);
        assert!(
            shown.width() >= natural,
            "{title:?} is cut: {} of {natural} px",
            shown.width()
        );
    }
    row.set_selected(0);
    window.set_default_size(800, 480);
}
