//! The desktop app in German, on a real display (run under `xvfb-run -a cargo test -p
//! agnostics --test ui_i18n`): the buttons, the row titles, the PASS/FAIL badges and the
//! advice of a real run are the German text of `po/de.po`, numbers take the German decimal
//! comma, the window still fits a Raspberry Pi touchscreen with the longer German strings, and
//! **Copy results** keeps upstream's compat lines in English.
//!
//! Its own test binary (`harness = false`, like `ui.rs`): the language is chosen once per
//! process, before GTK starts. The catalogue is compiled with `msgfmt` into a scratch
//! directory; the `de_DE.UTF-8` locale is built with `localedef` into a scratch `LOCPATH`
//! (messages alone work under `C.UTF-8` when `localedef` is missing; the test then reports
//! itself ignored with the reason, as its decimal-comma checks did not run).

use agnostics_testkit::locale;
use agnostics_testkit::po;
#[path = "ui_support/mod.rs"]
mod support;

use std::sync::OnceLock;

use adw::prelude::*;
use agnostics::pages::results::ShownCheck;
use agnostics::testing::WindowProbe;
use agnostics::window::Page;
use agnostics::Application;
use agnostics::Window;
use agnostics_core::verdict::{Check, Metric, Standard, Verdict};
use gtk::glib;

use support::*;

/// `None` when the German locale (decimal comma) could be built for this process, else why not.
static GERMAN_NUMBERS_MISSING: OnceLock<Option<String>> = OnceLock::new();

fn main() {
    // Before GTK and gettext start: German messages from a freshly compiled catalogue.
    let scratch = locale::scratch_dir("ui-i18n-");
    let catalogues = locale::catalogue_dir(scratch.path());
    locale::compile_catalogues(&catalogues, &["de"]);
    let locpath = scratch.path().join("locpath");
    std::fs::create_dir_all(&locpath).expect("create LOCPATH");
    // Keep the tester's own ~/rpdiags.txt out of it (set before any thread starts).
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    let german = locale::german_locale(&locpath);
    let _ = GERMAN_NUMBERS_MISSING.set(german.as_ref().err().map(|skip| skip.0.clone()));
    std::env::set_var("LOCPATH", &locpath);
    std::env::set_var("LC_ALL", *german.as_ref().unwrap_or(&"C.UTF-8"));
    std::env::set_var("LANGUAGE", "de");
    agnostics_core::i18n::init(&catalogues);

    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(crate::ui_tests![
        the_app_built_by_cargo_speaks_german_from_the_build_tree,
        a_run_in_german_shows_german_rows_badges_and_numbers,
    ]);
    drop(scratch);
    conclusion.exit()
}

/// The app as cargo built it, run from `target/` with `LANGUAGE=de` and this process's locale
/// (no `AGNOSTICS_LOCALEDIR`): its `--help` (GApplication's own output, no window) gives the
/// options in German from the catalogues core's build script compiled into the build tree.
fn the_app_built_by_cargo_speaks_german_from_the_build_tree(_app: &Application) {
    let scratch = scratch_dir();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_agnostics"));
    command
        .arg("--help")
        .env_remove("AGNOSTICS_LOCALEDIR")
        .env("LANGUAGE", "de")
        .env("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    // Under the German locale this process built (LOCPATH, LC_ALL) where it could: trixie's
    // glibc left the messages English under C.UTF-8 with LANGUAGE=de (bookworm's did not).
    if GERMAN_NUMBERS_MISSING
        .get()
        .is_some_and(|missing| missing.is_some())
    {
        command
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("LOCPATH")
            .env("LANG", "C.UTF-8");
    }
    let out = command.output().expect("run agnostics --help");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    let option = de("Folder to test in (default: /var/tmp, or the SD card)");
    assert!(help.contains(&option), "no German option text:\n{help}");
}

/// `msgid` as `po/de.po` translates it.
fn de(msgid: &str) -> String {
    locale::translation("de", msgid)
}

fn verdict_de(verdict: Verdict) -> String {
    de(verdict.as_str())
}

/// A results row in German against the engine's A1 `check` of `metric`: the German verdict,
/// target and advice, and (with `german_numbers`, the German locale installed) a decimal
/// comma in the measured figure.
fn assert_german_row(row: &ShownCheck, metric: Metric, check: &Check, german_numbers: bool) {
    assert_eq!(row.verdict, verdict_de(check.verdict), "{}", row.title);
    let target = if metric == Metric::SeqWrite {
        if german_numbers {
            "10,24 MB/s (10000 KiB/s)"
        } else {
            "10.24 MB/s (10000 KiB/s)"
        }
        .to_owned()
    } else {
        format!("{:.0} IOPS", check.target)
    };
    let expected_end = de("target {target}").replace("{target}", &target);
    assert!(
        row.value.ends_with(&expected_end),
        "{:?} does not end with {expected_end:?}",
        row.value
    );
    if metric == Metric::SeqWrite && german_numbers {
        // The measured figure has decimals below 1000 MB/s; when it has any, a comma.
        let figure = row.value.split(" MB/s").next().unwrap_or_default();
        assert!(!figure.contains('.'), "decimal point in {:?}", row.value);
    }
    for advice in &row.advice {
        assert!(
            po::read(&po::po_dir().join("de.po"))
                .iter()
                .any(|e| e.msgstr.first() == Some(advice)),
            "advice {advice:?} is not a German text of the catalogue"
        );
    }
}

/// **Copy Results** in German: German labels and advice, upstream's compat lines in English.
fn assert_copied_in_german(window: &Window) {
    let results = window.results_view();
    results.copy_button().activate();
    wait_until("the results on the clipboard", || {
        window.clipboard().is_local()
    });
    let copied = glib::MainContext::default()
        .block_on(window.clipboard().read_text_future())
        .expect("clipboard text")
        .expect("some text");
    assert!(
        copied
            .lines()
            .any(|l| l.starts_with("Sequential write speed ")
                && l.contains(" KB/sec (target 10000) - ")),
        "{copied}"
    );
    let result_line = de("Result: {verdict}");
    let prefix = result_line.split("{verdict}").next().unwrap_or_default();
    assert!(
        copied.lines().any(|l| l.starts_with(prefix)),
        "no {prefix:?} line in {copied}"
    );
}

fn a_run_in_german_shows_german_rows_badges_and_numbers(
    app: &Application,
) -> agnostics_testkit::Ran {
    let numbers_missing = GERMAN_NUMBERS_MISSING.get().cloned().flatten();
    let german_numbers = numbers_missing.is_none();
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "small.fio", SMALL_PROFILE);
    let window = new_window(app);
    assert_eq!(
        window.run_button().label().as_deref(),
        Some(de("_Run SD Card Test").as_str())
    );
    assert_fits_800x480(&window, "ready (German)");
    aim(&window, dir.path(), Some(profile));

    window.run_button().activate();
    wait_until("the results", || {
        window.page() == Page::Results || window.open_dialog().is_some()
    });
    assert!(window.open_dialog().is_none(), "no error dialog");
    let report = window.last_report().expect("the engine's report");
    let run = report.deciding_run().expect("a graded run");

    let results = window.results_view();
    let shown = results.shown_checks();
    let titles: Vec<&str> = shown.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            de("Sequential write"),
            de("Random 4K write"),
            de("Random 4K read")
        ]
    );
    assert_eq!(
        titles[0], "Sequenzielles Schreiben",
        "the German the user reads"
    );
    for (row, metric) in shown
        .iter()
        .zip([Metric::SeqWrite, Metric::RandWrite, Metric::RandRead])
    {
        let check = run.check(metric, Standard::A1).expect("an A1 check");
        assert_german_row(row, metric, check, german_numbers);
    }
    let info: Vec<String> = results.shown_info().into_iter().map(|(t, _)| t).collect();
    assert_eq!(info, [de("Preparing the test file"), de("Sequential read")]);
    assert_fits_800x480(&window, "results (German)");

    assert_copied_in_german(&window);
    // Everything else ran; without the German locale the decimal-comma checks did not.
    match numbers_missing {
        None => Ok(()),
        Some(reason) => agnostics_testkit::skip(format!("decimal-comma checks: {reason}")),
    }
}

/// The window's smallest size fits a Raspberry Pi touchscreen (800×480), German included.
fn assert_fits_800x480(window: &agnostics::Window, state: &str) {
    iterate_briefly();
    let content = window.content().expect("content");
    let (min_w, _, _, _) = content.measure(gtk::Orientation::Horizontal, -1);
    let (min_h, _, _, _) = content.measure(gtk::Orientation::Vertical, 800);
    assert!(
        min_w <= 800 && min_h <= 480,
        "{state}: needs at least {min_w}×{min_h}"
    );
}
