//! The capacity screenshots in the language of `LANGUAGE`, each at 800×480 and 360×480
//! (`DIR/NAME{,-360}-LANG.png`, DIR from `AGNOSTICS_SCREENSHOTS`): a drive found fake, on the
//! SD Card page before a test and on the results of one (`ready-fake`, `fake-results`), and
//! a check started from a drive's History page: the question over the page, the progress and
//! the verdict (`capacity-history-{confirm,progress,verdict}`).

use adw::prelude::*;
use agnostics::pages::HistoryPage;
use agnostics::testing::WindowProbe;
use agnostics::window::{Action, Page, Tab};
use agnostics::Application;
use agnostics_core::capacity::Phase;
use agnostics_core::history::History;
use agnostics_testkit::Ran;

use super::fixture::*;
use super::flow::open_checked_drive;
use super::headline::run_to_results;
use super::support::*;

/// A loop-mounted ext4 tested once, then found fake by a capacity check kept in the history:
/// the SD Card page's warning, and the next test's results, headed alike.
pub fn renders_fake_results_screenshots(app: &Application) -> Ran {
    let (lang, _catalogue) = screenshot_language();
    let fs = loop_fs(64)?;
    let history = scratch_dir();
    let history_path = history.path().join("h.sqlite3");
    let window = window_on(app, &fs.mount, &history_path);
    let profile = profile_file(history.path(), "small.fio", SMALL_PROFILE);
    aim(&window, &fs.mount, Some(profile.clone()));
    wait_until("the connected drives", || window.connected_known());
    let first = run_to_results(&window);
    let mut check = fake_check("2026-07-02T10:00:00+00:00");
    check.identity = first.drive;
    History::open(&history_path)
        .unwrap()
        .record_capacity(&check)
        .expect("the check is kept");
    WidgetExt::activate_action(&window, Action::Back.name(), None).expect("win.back");
    wait_until("the ready page", || window.page() == Page::Ready);
    aim(&window, &fs.mount, Some(profile));
    let ready = window.ready_view();
    wait_until("the warning", || ready.drive_warning().is_some());
    shoot_both_widths(&window, "ready-fake", &lang, |png| save_png(&window, png));
    let warning = ready.drive_warning().unwrap();
    run_to_results(&window);
    let headline = window.results_view().title_text();
    assert!(
        warning.starts_with(&headline),
        "the results are headed as the warning: {headline:?}, {warning:?}"
    );
    shoot_both_widths(&window, "fake-results", &lang, |png| save_png(&window, png));
    window.close();
    Ok(())
}

/// A check from a drive's History page (on a 2 GiB throttled disk, so that its progress can
/// be seen and it reaches a verdict): the question over the drive's page, the progress, the
/// verdict, all on the History tab.
pub fn renders_capacity_history_screenshots(app: &Application) -> Ran {
    let (lang, _catalogue) = screenshot_language();
    let disk = match ThrottledDisk::new(2048, 32 << 20, 64 << 20, 600, 3000) {
        Ok(disk) => disk,
        Err(reason) => return agnostics_testkit::skip(reason),
    };
    let history = scratch_dir();
    let window = window_on(app, disk.path(), &history.path().join("h.sqlite3"));
    let view = open_checked_drive(&window);
    let button = view.check_capacity_button();
    wait_until("Check Capacity on the drive's page", || {
        button.is_sensitive()
    });
    window.dismiss_toasts();
    button.emit_clicked();
    wait_until("the question", || window.capacity_question().is_some());
    let dialog = window.capacity_question().unwrap();
    shoot_both_widths(&window, "capacity-history-confirm", &lang, |png| {
        save_with_dialog(&window, &dialog, png)
    });
    dialog.response("check");
    assert_eq!(window.tab(), Tab::History);
    let check = window.capacity_check();
    wait_until("a third of the spots written", || {
        let p = check.progress();
        p.phase == Phase::Writing && p.done * 3 > p.total
    });
    shoot_both_widths(&window, "capacity-history-progress", &lang, |png| {
        save_png(&window, png)
    });
    wait_until("the verdict", || !check.is_busy());
    iterate_briefly();
    assert_eq!(window.tab(), Tab::History);
    assert_eq!(view.visible_page(), HistoryPage::Check);
    shoot_both_widths(&window, "capacity-history-verdict", &lang, |png| {
        save_png(&window, png)
    });
    window.close();
    Ok(())
}
