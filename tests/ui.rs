//! UI tests of the whole desktop app, on a real display (run under `xvfb-run -a cargo test -p
//! agnostics --test ui`): the window as it starts, the dark theme, and the command line. The
//! pages have their own targets: `ui_ready`, `ui_run` (the running test), `ui_results`,
//! `ui_session` (All Tests), `ui_history`. GTK wants one main thread, so this is a
//! `harness = false` test: `main` starts GTK and the application once and runs the tests in
//! order, printing libtest's lines.
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders the All Tests page and the SD card test's three
//! states (ready, running, results) to `DIR/{tests,ready,running,results}.png` at 800×480 (see
//! `tools/screenshots`).

#[path = "ui_support/mod.rs"]
mod support;

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{config, Application, Window};
use agnostics_core::report::Report;
use gtk::glib;

use support::*;

fn main() {
    // Keep the tester's own ~/rpdiags.txt out of it: every test's log goes here (set before
    // any thread starts).
    let log_dir = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", log_dir.path().join("rpdiags.txt"));
    let mut tests = crate::ui_tests![
        builds_the_window_ready_to_run,
        follows_raspberry_pi_os_dark_theme,
        invalid_profile_on_the_command_line_exits_with_status_2,
    ];
    // Rendering the screenshots is a tool (tools/screenshots), not a test: only with
    // AGNOSTICS_SCREENSHOTS=DIR is it in the list.
    if std::env::var_os(SCREENSHOTS_ENV).is_some() {
        bind_screenshot_language();
        tests.extend(crate::ui_tests![renders_screenshots]);
    }
    // Last: it runs the application's main loop to its end (shutdown).
    tests.extend(crate::ui_tests![
        command_line_runs_the_profile_in_the_folder_given
    ]);
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(log_dir);
    conclusion.exit()
}

/// Where [`renders_screenshots`] writes its PNG files.
const SCREENSHOTS_ENV: &str = "AGNOSTICS_SCREENSHOTS";

fn builds_the_window_ready_to_run(app: &Application) {
    let window = new_window(app);
    assert_eq!(window.page(), Page::Ready);
    assert_eq!(window.icon_name().as_deref(), Some(config::APP_ID));
    assert_eq!(
        window.run_button().label().as_deref(),
        Some("_Run SD Card Test")
    );
    assert!(
        window.run_button().uses_underline(),
        "Alt+R starts the test"
    );
    assert!(window.run_button().is_sensitive());
    assert_eq!(
        gtk::prelude::GtkWindowExt::focus(&window),
        Some(window.drive_row().upcast()),
        "at launch the focus is on the drive chooser, which writes nothing"
    );
    assert_eq!(window.default_widget(), None, "Enter does not start a test");
    assert_eq!(
        app.accels_for_action(agnostics::window::Action::Run.name()),
        ["<Control>r"]
    );
    assert_eq!(app.accels_for_action("app.quit"), ["<Control>q"]);
    assert_eq!(app.accels_for_action("window.close"), ["<Control>w"]);
    let choices = window.drive_row().choices();
    assert!(
        !choices.is_empty(),
        "at least the default folder is offered"
    );
    assert!(window.drive_row().selected_choice().is_some());
    assert_fits_800x480(&window, "ready");

    app.activate_action("about", None);
    iterate_briefly();
    let about = app
        .windows()
        .into_iter()
        .find_map(|w| w.downcast::<adw::AboutWindow>().ok())
        .expect("the About window");
    assert_eq!(about.application_name(), "Raspberry Pi Diagnostics");
    assert_eq!(about.application_icon(), config::APP_ID);
    about.close();
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

/// With `AGNOSTICS_SCREENSHOTS=DIR`: the All Tests page after two real scripts ran (no root
/// needed); then the standard test on a loop-mounted ext4 throttled like a slow card (12 MiB/s
/// writes, 700 write IOPS, 1200 read IOPS), rendered at 800×480 when ready, in the middle of
/// its random-write phase, and with its results.
fn renders_screenshots(app: &Application) -> agnostics_testkit::Ran {
    let Some(out) = std::env::var_os(SCREENSHOTS_ENV).map(PathBuf::from) else {
        return agnostics_testkit::skip(format!(
            "set {SCREENSHOTS_ENV}=DIR to render the screenshots"
        ));
    };
    let lang = screenshot_suffix();
    render_tests_page(app, &out.join(format!("tests{lang}.png")));
    if !lang.is_empty() {
        // The SD card test's pages in other languages: tests/ui_ready.rs and tests/ui_run.rs.
        return Ok(());
    }
    let disk = match ThrottledDisk::new(512, 12 << 20, 40 << 20, 700, 1200) {
        Ok(disk) => disk,
        Err(reason) => {
            return agnostics_testkit::skip(format!(
                "tests.png made; the SD card test's screenshots need a throttled disk: {reason}"
            ))
        }
    };
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
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
        window.page(),
        Page::Results,
        "{:?}",
        window.last_report().and_then(|r| r.error)
    );
    save_png(&window, &out.join("results.png"));
    Ok(())
}

/// The All Tests page with two scripts that ask the system real questions: one passes, one
/// fails where `vcgencmd` (Raspberry Pi firmware) is missing.
fn render_tests_page(app: &Application, png: &std::path::Path) {
    let dir = scratch_dir();
    let folder = dir.path().join("scripts");
    let empty = dir.path().join("empty");
    for d in [&folder, &empty] {
        std::fs::create_dir(d).expect("a folder");
    }
    for (file, text) in [
        (
            "space.sh",
            "#NAME=Free space\n#DESC=Shows the free space on the root filesystem.\ndf -h /\n",
        ),
        (
            "throttle.sh",
            "#NAME=Power and temperature\n#DESC=Asks the firmware whether the Raspberry Pi was throttled\\n(under-voltage or overheating).\nvcgencmd get_throttled\n",
        ),
    ] {
        std::fs::write(folder.join(file), text).expect("a script");
    }
    let window = new_window(app);
    list_scripts(&window, folder, &empty);
    window.set_tab(Tab::AllTests);
    let view = window.tests_view();
    view.set_selected(0, false);
    view.run_button().emit_clicked();
    wait_until("the tests to end", || !window.is_running_tests());
    save_png(&window, png);
    window.destroy();
}

fn invalid_profile_on_the_command_line_exits_with_status_2(_app: &Application) {
    // GApplication parses a command line once per process: the program itself, then.
    let program = env!("CARGO_BIN_EXE_agnostics");
    let dir = scratch_dir();
    let bad = dir.path().join("bad.fio");
    std::fs::write(&bad, "[job]\nrw=write\nrate=1m\n").expect("writing the job file");
    let out = std::process::Command::new(program)
        .arg("--profile")
        .arg(&bad)
        .output()
        .expect("running agnostics");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.fio:3") && stderr.contains("rate"),
        "{stderr}"
    );

    let help = std::process::Command::new(program)
        .arg("--help")
        .output()
        .expect("running agnostics --help");
    let help = String::from_utf8_lossy(&help.stdout);
    for option in [
        "--target=DIR",
        "--profile=NAME|FILE",
        "--dir=DIR",
        "--run",
        "--version",
    ] {
        assert!(help.contains(option), "--help lacks {option}: {help}");
    }
}

fn command_line_runs_the_profile_in_the_folder_given(app: &Application) {
    let dir = scratch_dir();
    let profile = dir.path().join("small.fio");
    std::fs::write(&profile, SMALL_PROFILE).expect("writing the job file");
    // Watches the window from the main loop that `run_with_args` runs, and closes it once
    // the test is over (or gives up after PATIENCE), which ends the application.
    let seen: Rc<RefCell<Option<(Page, Report)>>> = Rc::default();
    let started = Instant::now();
    let _watcher = {
        let (app, seen) = (app.clone(), Rc::clone(&seen));
        glib::timeout_add_local(Duration::from_millis(50), move || {
            let window = app
                .windows()
                .into_iter()
                .find_map(|w| w.downcast::<Window>().ok());
            if let Some(window) = window {
                if let (false, Some(report)) = (window.test_run().is_busy(), window.last_report()) {
                    seen.replace(Some((window.page(), report)));
                    window.close();
                    return glib::ControlFlow::Break;
                }
                if started.elapsed() > PATIENCE {
                    window.test_run().cancel();
                }
            }
            glib::ControlFlow::Continue
        })
    };
    let code = app.run_with_args(&[
        "agnostics".into(),
        "--target".into(),
        dir.path().display().to_string(),
        "--profile".into(),
        profile.display().to_string(),
        "--run".into(),
    ]);
    assert_eq!(code, glib::ExitCode::SUCCESS);
    let (page, report) = seen.take().expect("the test ran");
    assert_eq!(page, Page::Results, "{:?}", report.error);
    assert_eq!(
        report.target.map(|t| t.path),
        Some(dir.path().display().to_string())
    );
    assert_eq!(report.profile.source, Some(profile.display().to_string()));
    assert!(test_files(dir.path()).is_empty());
}
