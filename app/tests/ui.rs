//! UI tests of the desktop app, on a real display (run under `xvfb-run -a cargo test -p
//! agnostics-gtk --test ui`). GTK wants one main thread, so this is a `harness = false` test:
//! `main` starts GTK and the application once and runs the tests in order, printing libtest's
//! lines. Tests run real profiles on real folders on disk and compare the window with the
//! engine's own report.
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders the three states (ready, running, results) to
//! `DIR/{ready,running,results}.png` at 800×480 (see `tools/screenshots`).

#[path = "ui_support/mod.rs"]
mod support;

use std::path::PathBuf;

use adw::prelude::*;
use agnostics_core::advice::Advice;
use agnostics_core::report;
use agnostics_core::verdict::{Metric, Standard};
use agnostics_gtk::test_run::RunState;
use agnostics_gtk::{config, Application, Window};
use gtk::{gio, glib};

use support::*;

fn main() {
    if let Err(e) = gtk::init() {
        eprintln!("the UI tests need a display (run them under xvfb-run -a): {e}");
        std::process::exit(101);
    }
    let app = Application::new();
    // No D-Bus name is needed (or may be available) for tests.
    app.set_flags(app.flags() | gio::ApplicationFlags::NON_UNIQUE);
    app.register(None::<&gio::Cancellable>)
        .expect("the application registers");
    let code = run_tests(
        &app,
        &[
            (
                "builds_the_window_ready_to_run",
                builds_the_window_ready_to_run,
            ),
            (
                "runs_a_small_profile_and_shows_the_engines_verdicts",
                runs_a_small_profile_and_shows_the_engines_verdicts,
            ),
            (
                "cancel_in_the_middle_removes_the_test_file_and_returns_to_ready",
                cancel_in_the_middle_removes_the_test_file_and_returns_to_ready,
            ),
            (
                "closing_while_running_asks_then_cleans_up_and_closes",
                closing_while_running_asks_then_cleans_up_and_closes,
            ),
            (
                "refused_tmpfs_target_shows_the_error_dialog",
                refused_tmpfs_target_shows_the_error_dialog,
            ),
            (
                "follows_raspberry_pi_os_dark_theme",
                follows_raspberry_pi_os_dark_theme,
            ),
            ("renders_screenshots", renders_screenshots),
        ],
    );
    std::process::exit(code);
}

/// The window's smallest size fits a Raspberry Pi touchscreen (800×480): nothing is clipped.
fn assert_fits_800x480(window: &Window, state: &str) {
    iterate_briefly();
    let content = window.content().expect("content");
    let (min_w, _, _, _) = content.measure(gtk::Orientation::Horizontal, -1);
    let (min_h, _, _, _) = content.measure(gtk::Orientation::Vertical, 800);
    assert!(
        min_w <= 800 && min_h <= 480,
        "{state}: needs at least {min_w}×{min_h}"
    );
    assert!(
        content.width() <= 800 && content.height() <= 480,
        "{state}: the window grew to {}×{}",
        content.width(),
        content.height()
    );
}

fn builds_the_window_ready_to_run(app: &Application) {
    let window = new_window(app);
    assert_eq!(window.visible_page(), "ready");
    assert_eq!(window.icon_name().as_deref(), Some(config::APP_ID));
    assert_eq!(
        window.run_button().label().as_deref(),
        Some("_Run SD card test")
    );
    assert!(
        window.run_button().uses_underline(),
        "Alt+R starts the test"
    );
    assert!(window.run_button().is_sensitive());
    assert_eq!(
        window.default_widget(),
        Some(window.run_button().upcast()),
        "Enter starts the test"
    );
    let choices = window.drive_row().choices();
    assert!(
        !choices.is_empty(),
        "at least the default folder is offered"
    );
    assert!(window.drive_row().selected_choice().is_some());
    assert_fits_800x480(&window, "ready");
}

fn runs_a_small_profile_and_shows_the_engines_verdicts(app: &Application) {
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "small.fio", SMALL_PROFILE);
    let window = new_window(app);
    aim(&window, dir.path(), Some(profile));

    window.run_button().activate();
    wait_until("the results", || {
        window.visible_page() == "results" || window.open_dialog().is_some()
    });
    assert!(window.open_dialog().is_none(), "no error dialog");
    let report = window.last_report().expect("the engine's report");
    assert!(report.error.is_none(), "{:?}", report.error);
    assert!(!window.is_inhibiting(), "suspend is allowed again");
    assert!(
        test_files(dir.path()).is_empty(),
        "the test file is removed"
    );

    let results = window.results_view();
    let run = report.deciding_run().expect("a graded run");
    let shown = results.shown_checks();
    let titles: Vec<&str> = shown.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles,
        ["Sequential write", "Random 4K write", "Random 4K read"]
    );
    for (row, metric) in shown
        .iter()
        .zip([Metric::SeqWrite, Metric::RandWrite, Metric::RandRead])
    {
        let check = run.check(metric, Standard::A1).expect("an A1 check");
        assert_eq!(row.verdict, check.verdict.as_str(), "{}", row.title);
        let value = check.value.expect("a measured value");
        match metric {
            Metric::SeqWrite => {
                // KiB/s as upstream counts it, and MB/s beside it.
                assert!(
                    row.value
                        .contains(&format!("({} KiB/s)", value.floor() as u64)),
                    "{}",
                    row.value
                );
                let mb = value * 1024.0 / 1e6;
                let shown: f64 = row
                    .value
                    .split(" MB/s")
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("a figure in MB/s");
                assert!((shown - mb).abs() <= 0.5, "{} vs {mb} MB/s", row.value);
                assert!(
                    row.value.ends_with("target 10.24 MB/s (10000 KiB/s)"),
                    "{}",
                    row.value
                );
            }
            _ => {
                assert!(
                    row.value.starts_with(&format!("{:.0} IOPS", value)),
                    "{}",
                    row.value
                );
                assert!(
                    row.value
                        .ends_with(&format!("target {:.0} IOPS", check.target)),
                    "{}",
                    row.value
                );
            }
        }
        let expected_advice = matches!(
            (metric, check.verdict),
            (Metric::SeqWrite, agnostics_core::verdict::Verdict::Fail)
        );
        if expected_advice {
            assert_eq!(row.advice, [Advice::SeqWriteSlow.text()]);
        }
    }
    assert_eq!(results.a2_text().as_deref(), Some(run.a2_verdict.as_str()));
    let info: Vec<String> = results.shown_info().into_iter().map(|(t, _)| t).collect();
    assert_eq!(info, ["Preparing the test file", "Sequential read"]);
    let target = report.target.as_ref().expect("the tested drive");
    assert!(
        results.subtitle_text().contains(&target.path),
        "{}",
        results.subtitle_text()
    );
    assert_eq!(
        results.run_count(),
        if report.runs.len() > 1 {
            report.runs.len()
        } else {
            0
        }
    );
    assert_eq!(
        window.default_widget(),
        Some(results.run_again_button().upcast())
    );
    assert_fits_800x480(&window, "results");

    // Copy results: the plain text report, upstream's compat lines included.
    assert!(results.copy_button().is_sensitive());
    results.copy_button().activate();
    // A button's activation is a short visible press before `clicked`.
    wait_until("the results on the clipboard", || {
        window.clipboard().is_local()
    });
    let copied = glib::MainContext::default()
        .block_on(window.clipboard().read_text_future())
        .expect("clipboard text")
        .expect("some text");
    assert_eq!(copied.as_str(), report::to_text(&report));
    assert!(copied.contains("Random write speed "), "{copied}");

    // Back and run again: the same folder, a new report.
    WidgetExt::activate_action(&window, "win.back", None).expect("win.back");
    assert_eq!(window.visible_page(), "ready");
    window.run_button().activate();
    wait_until("the second results", || {
        window.visible_page() == "results"
            && window
                .last_report()
                .is_some_and(|r| r.started >= report.started)
    });
}

fn cancel_in_the_middle_removes_the_test_file_and_returns_to_ready(app: &Application) {
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "long.fio", LONG_PROFILE);
    let window = new_window(app);
    aim(&window, dir.path(), Some(profile));

    window.run_button().activate();
    let progress = window.progress_view();
    wait_until("a live figure", || progress.figure_text().ends_with("IOPS"));
    assert_eq!(window.visible_page(), "running");
    assert_eq!(progress.phase_text(), "Random 4K write, 1 of 1");
    assert!(
        !window.run_button().is_sensitive(),
        "no second test meanwhile"
    );
    assert_eq!(
        window.default_widget(),
        Some(progress.cancel_button().upcast())
    );
    assert!(
        !test_files(dir.path()).is_empty(),
        "the test file is there while running"
    );
    wait_until("a chart bar", || !progress.chart().is_empty());
    assert!(
        progress.chart().description().contains("Random 4K write"),
        "{}",
        progress.chart().description()
    );
    assert_fits_800x480(&window, "running");

    progress.cancel_button().activate();
    wait_until("the ready state", || {
        window.test_run().state() == RunState::Ready
    });
    assert_eq!(window.visible_page(), "ready");
    assert!(window.test_run().was_cancelled());
    assert!(window.open_dialog().is_none(), "a cancel is not an error");
    assert!(
        test_files(dir.path()).is_empty(),
        "left behind: {:?}",
        test_files(dir.path())
    );
    assert!(window.run_button().is_sensitive());
    assert!(!window.is_inhibiting());
}

fn closing_while_running_asks_then_cleans_up_and_closes(app: &Application) {
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "long.fio", LONG_PROFILE);
    let window = new_window(app);
    aim(&window, dir.path(), Some(profile));
    window.run_button().activate();
    wait_until("the running state", || {
        window.progress_view().figure_text().ends_with("IOPS")
    });

    window.close();
    iterate_briefly();
    assert!(
        window.is_visible(),
        "the window stays until the user says so"
    );
    let dialog = window.open_dialog().expect("a question");
    assert_eq!(dialog.heading().as_deref(), Some("Stop the test?"));
    dialog.response("keep");
    iterate_briefly();
    assert!(window.is_visible());
    assert_eq!(window.test_run().state(), RunState::Running);

    window.close();
    iterate_briefly();
    window
        .open_dialog()
        .expect("the question again")
        .response("stop");
    wait_until("the window to close", || !window.is_visible());
    assert!(!window.test_run().is_busy());
    assert!(
        test_files(dir.path()).is_empty(),
        "left behind: {:?}",
        test_files(dir.path())
    );
}

fn refused_tmpfs_target_shows_the_error_dialog(app: &Application) {
    let Some(tmpfs) = TmpfsDir::new() else {
        println!("  skipping: needs /dev/shm on tmpfs, or root to mount one");
        return;
    };
    let window = new_window(app);
    aim(&window, tmpfs.path(), None);
    window.run_button().activate();
    wait_until("the error dialog", || window.open_dialog().is_some());
    let dialog = window.open_dialog().expect("dialog");
    assert_eq!(
        dialog.heading().as_deref(),
        Some("This folder is in memory, not on a drive")
    );
    let body = dialog.body();
    assert!(body.contains("tmpfs"), "what happened: {body}");
    assert!(
        body.contains(&Advice::MemoryTarget.text()),
        "what to do: {body}"
    );
    assert_eq!(dialog.close_response(), "close", "Escape closes it");
    assert_eq!(window.visible_page(), "ready");
    assert_eq!(
        window
            .last_report()
            .and_then(|r| r.error)
            .map(|e| e.kind)
            .as_deref(),
        Some("memory")
    );
    assert!(test_files(tmpfs.path()).is_empty());
    dialog.response("close");
    iterate_briefly();
    assert!(window.open_dialog().is_none());
    assert!(window.run_button().is_sensitive(), "ready for another try");
}

fn follows_raspberry_pi_os_dark_theme(app: &Application) {
    let _window = new_window(app);
    let settings = gtk::Settings::default().expect("settings");
    let style = adw::StyleManager::default();
    let before = settings.gtk_theme_name();
    settings.set_gtk_theme_name(Some("PiXonyx"));
    iterate_briefly();
    assert_eq!(style.color_scheme(), adw::ColorScheme::ForceDark);
    assert!(style.is_dark());
    settings.set_gtk_theme_name(Some("PiXtrix"));
    iterate_briefly();
    assert_eq!(style.color_scheme(), adw::ColorScheme::Default);
    assert!(!style.is_dark());
    // libadwaita's own base theme again, for the tests after this one.
    settings.set_gtk_theme_name(before.as_deref());
    iterate_briefly();
    assert!(!style.is_dark());
}

/// With `AGNOSTICS_SCREENSHOTS=DIR`: the standard test on a loop-mounted ext4 throttled like a
/// slow card (12 MiB/s writes, 700 write IOPS, 1200 read IOPS), rendered at 800×480 when ready,
/// in the middle of its random-write phase, and with its results.
fn renders_screenshots(app: &Application) {
    let Some(out) = std::env::var_os("AGNOSTICS_SCREENSHOTS").map(PathBuf::from) else {
        println!("  skipping: set AGNOSTICS_SCREENSHOTS=DIR to render the screenshots");
        return;
    };
    let disk = match ThrottledDisk::new(512, 12 << 20, 40 << 20, 700, 1200) {
        Ok(disk) => disk,
        Err(reason) => {
            println!("  skipping: a throttled disk {reason}");
            return;
        }
    };
    let window = new_window(app);
    aim(&window, disk.path(), None);
    save_png(&window, &out.join("ready.png"));

    window.run_button().activate();
    let progress = window.progress_view();
    wait_until("the random-write phase", || {
        progress.phase_text().starts_with("Random 4K write") && progress.chart().len() >= 5
    });
    save_png(&window, &out.join("running.png"));

    wait_until("the results", || !window.test_run().is_busy());
    assert_eq!(
        window.visible_page(),
        "results",
        "{:?}",
        window.last_report().and_then(|r| r.error)
    );
    save_png(&window, &out.join("results.png"));
    drop(window);
    drop(disk);
}
