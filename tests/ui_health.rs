//! UI tests of the **Health** group on a real display (run under `xvfb-run -a cargo test -p
//! agnostics --test ui_health`): the SD Card page's chosen drive looked at for real (a
//! scratch folder on the disk under /var/tmp: the real kernel log, the real sysfs), looked at
//! anew when another drive is chosen (a folder on tmpfs, on no drive); drives of a real SQLite
//! history (written through `History::record`) whose writes fell, with their trend and
//! verdict: one not connected (only its runs speak) and the disk under /var/tmp, connected,
//! looked at for real.
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders both groups at 800×480 to
//! `DIR/{ready-health,history-health}.png`, and the History one at 360×480 to
//! `DIR/history-health-360.png`.

#[path = "ui_support/mod.rs"]
mod support;

use std::path::PathBuf;

use adw::prelude::*;
use agnostics::model::health_worker::HealthState;
use agnostics::testing::WindowProbe;
use agnostics::widgets::health_group::HealthGroup;
use agnostics::{Application, Window};
use agnostics_core::health::verdict::HealthVerdict;
use agnostics_core::target_dir::Transport;

use support::history_fixture::*;
use support::*;

/// Where the screenshots go.
const SCREENSHOTS_ENV: &str = "AGNOSTICS_SCREENSHOTS";

fn main() {
    crate::support::run_with_scratch_log_and_history(
        crate::ui_tests![
            the_chosen_drive_shows_its_health_and_follows_the_choice,
            a_history_drive_whose_writes_fell_is_worn_with_its_trend,
            a_connected_history_drive_is_looked_at_with_its_runs,
        ],
        crate::ui_tests![renders_health_screenshots],
    )
}

/// Waits until the group has shown the end of a look (not the look under way).
fn settled_state(group: &HealthGroup) -> HealthState {
    wait_until("the health of the drive", || {
        group.state().is_some() && !group.is_checking()
    });
    group.state().unwrap()
}

/// Each row is read by a screen reader as its title with its value as the description.
fn assert_rows_readable(group: &HealthGroup) {
    for row in group.row_widgets() {
        let subtitle = row.subtitle().map(|s| s.to_string()).unwrap_or_default();
        if !subtitle.is_empty() {
            assert_eq!(
                agnostics::a11y::description_of(&row).as_deref(),
                Some(subtitle.as_str()),
                "the row {:?} describes its value",
                row.title()
            );
        }
    }
}

fn the_chosen_drive_shows_its_health_and_follows_the_choice(app: &Application) {
    let dir = scratch_dir();
    let window = new_window(app);
    aim(&window, dir.path(), None);
    let group = window.ready_view().health_group();
    let HealthState::Checked(report) = settled_state(&group) else {
        panic!("the drive under /var/tmp is looked at: {:?}", group.state());
    };
    // The drive of the folder, as the engine knows it.
    let info = agnostics_core::target_dir::inspect(dir.path(), std::path::Path::new("/sys"))
        .expect("the scratch folder");
    assert_eq!(
        Some(report.device.as_str()),
        info.device.as_ref().map(|d| d.disk.as_str())
    );
    let rows = group.rows();
    assert_eq!(rows.len(), 4 + report.findings.len(), "{rows:?}");
    assert_eq!(rows[0].0, format!("Health: {}", report.verdict.word()));
    assert!(rows[0].1.ends_with(&report.verdict.advice()), "{rows:?}");
    // Counted since the drive appeared when the log holds the kernel's announcement of it.
    let appeared = report.kernel_log.counted_from.is_some();
    let since = if appeared {
        "since the drive appeared"
    } else {
        "since the system started"
    };
    assert_eq!(rows[1].0, format!("Errors {since}"));
    // As root the kernel log is readable: its counts or that there were none.
    assert!(report.kernel_log.readable, "{:?}", report.kernel_log);
    let c = &report.kernel_log.counts;
    let total = c.mmc_errors + c.timeouts + c.cqe_recoveries + c.io_errors + c.fs_errors;
    let total = total + c.read_only_remounts;
    if total == 0 {
        assert!(rows[1].1.starts_with(&format!("no errors seen {since}")));
    } else {
        assert!(rows[1].1.contains(&format!("MMC errors: {}", c.mmc_errors)));
    }
    assert_eq!(rows[2].0, "The card's own wear report");
    assert_eq!(rows[2].1, report.sd_health.describe());
    // No history yet: nothing to compare with.
    assert_eq!(
        rows[3].1,
        "no earlier test of this drive to compare with (0 in the history)"
    );
    if report.verdict == HealthVerdict::Unknown {
        assert!(
            rows[0]
                .1
                .starts_with(&format!("Unknown because {};", report.sd_health.describe())),
            "unknown says why: {rows:?}"
        );
    }
    assert_rows_readable(&group);
    assert_fits_800x480(&window, "health on the SD Card page");
    assert_fits_360(&window.ready_view(), "the SD Card page with its health");

    // Another drive chosen: a folder on tmpfs is on no drive, and the group says so.
    let Some(tmpfs) = TmpfsDir::new() else {
        return;
    };
    aim(&window, tmpfs.path(), None);
    let HealthState::Failed(why) = settled_state(&group) else {
        panic!("a folder on tmpfs has no drive: {:?}", group.state());
    };
    assert!(why.contains("(tmpfs)"), "{why}");
    assert_eq!(group.rows().len(), 1);
}

fn a_history_drive_whose_writes_fell_is_worn_with_its_trend(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let group = view.health_group();
    let HealthState::NotConnected(health) = settled_state(&group) else {
        panic!("the card is not connected: {:?}", group.state());
    };
    assert_eq!(health.verdict, HealthVerdict::Worn);
    assert_eq!(health.runs, 3);
    let rows = group.rows();
    assert_eq!(rows[0].0, "Health: worn");
    assert_eq!(rows[1].0, "Speed against its first tests");
    // 6.3 MB/s now against the first two runs' median, 12.5 MB/s: 50 % below.
    assert!(
        rows[1]
            .1
            .contains("Sequential write: 50 % below this drive's first tests (2026-05-01)"),
        "{rows:?}"
    );
    assert!(
        rows[2].0.starts_with("This drive is not connected"),
        "{rows:?}"
    );
    assert!(group.group.is_visible());
    assert_rows_readable(&group);
    assert_fits_800x480(&window, "a drive's health in History");
    assert_fits_360(&view, "a drive's page with its health");

    // The stick has one run: nothing to compare with, and too little known.
    view.open_drive(&key(STICK));
    settle(&window);
    let HealthState::NotConnected(health) = settled_state(&group) else {
        panic!("the stick is not connected: {:?}", group.state());
    };
    assert_eq!(health.verdict, HealthVerdict::Unknown);
    assert!(
        group.rows()[0]
            .1
            .starts_with("Unknown because the drive is not connected"),
        "{:?}",
        group.rows()
    );
}

/// A drive of the history that is connected (the disk under /var/tmp, its identity as a run
/// records it) is looked at for real, its runs in the history giving the trend.
fn a_connected_history_drive_is_looked_at_with_its_runs(app: &Application) {
    let dir = scratch_dir();
    let sysfs = std::path::Path::new("/sys");
    let info = agnostics_core::target_dir::inspect(dir.path(), sysfs).expect("the scratch folder");
    let card = info
        .device
        .as_ref()
        .and_then(|d| agnostics_core::card::identify(sysfs, &d.disk));
    let identity = agnostics_core::drive::identify(card.as_ref(), &info, sysfs)
        .expect("the disk under /var/tmp has an identity");
    let path = dir.path().join("history.sqlite3");
    let mut h = agnostics_core::history::History::open(&path).expect("a new history");
    for (i, (started, sw)) in [
        ("2026-05-01T09:00:00+00:00", 12.6e6),
        ("2026-07-01T09:00:00+00:00", 6.3e6),
    ]
    .into_iter()
    .enumerate()
    {
        let run_id = format!("{:032x}", 0xd15c_0000_usize + i);
        let figures = (sw, 40e6, 900.0, 2000.0);
        let report = report_of(&identity, &run_id, started, figures, Transport::Sd);
        h.record(&report).expect("recorded");
    }
    drop(h);
    let window = history_window(app, &path);
    let view = window.history_view();
    let connected =
        agnostics::model::connected::identify(&[(dir.path().to_path_buf(), info)], sysfs);
    assert_eq!(connected.len(), 1, "{connected:?}");
    view.set_connected(connected);
    view.open_drive(&agnostics::model::history_store::DriveKey::Identified(
        identity.id.clone(),
    ));
    settle(&window);
    let group = view.health_group();
    let HealthState::Checked(report) = settled_state(&group) else {
        panic!("the connected drive is looked at: {:?}", group.state());
    };
    assert_eq!(report.history_runs, 2);
    assert!(report.trend.as_ref().is_some_and(|t| t.declined()));
    // A marked decline makes it worn at least (failing only with data errors since boot).
    assert!(
        report.verdict >= HealthVerdict::Worn,
        "{:?}",
        report.verdict
    );
    let rows = group.rows();
    assert_eq!(rows[3].0, "Speed against its first tests");
    assert!(
        rows[3]
            .1
            .contains("Sequential write: 50 % below this drive's first tests (2026-05-01)"),
        "{rows:?}"
    );
    assert_rows_readable(&group);
}

/// `widget` (a page) fits the window's narrowest width, 360 px, with the group shown.
fn assert_fits_360(widget: &impl IsA<gtk::Widget>, what: &str) {
    let (min_w, _, _, _) = widget.measure(gtk::Orientation::Horizontal, -1);
    assert!(min_w <= 360, "{what} needs {min_w} px");
}

/// Scrolls the page holding `group` so that the group is at its top.
fn scroll_to(window: &Window, group: &HealthGroup) {
    let widget = group.group.upcast_ref::<gtk::Widget>();
    let scrolled = widget
        .ancestor(gtk::ScrolledWindow::static_type())
        .and_downcast::<gtk::ScrolledWindow>()
        .expect("the page scrolls");
    let child = scrolled.child().expect("the page");
    // The rows just added laid out: the page's height counts them.
    iterate_briefly();
    let y = widget
        .compute_point(&child, &gtk::graphene::Point::new(0.0, 0.0))
        .expect("the group is on the page")
        .y();
    // GTK keeps the value within the page (a group near the end scrolls the page to its end).
    scrolled.vadjustment().set_value(f64::from(y) - 12.0);
    wait_until("the page transition to end", || window.page_settled());
}

fn renders_health_screenshots(app: &Application) {
    let out = PathBuf::from(std::env::var_os(SCREENSHOTS_ENV).unwrap());
    let lang = screenshot_suffix();
    let dir = scratch_dir();
    let window = new_window(app);
    aim(&window, dir.path(), None);
    let group = window.ready_view().health_group();
    settled_state(&group);
    scroll_to(&window, &group);
    save_png(&window, &out.join(format!("ready-health{lang}.png")));
    window.destroy();

    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let group = view.health_group();
    settled_state(&group);
    scroll_to(&window, &group);
    save_png(&window, &out.join(format!("history-health{lang}.png")));
    // The narrowest window, 360×480.
    let content = window.content().expect("the window has content");
    let frame_w = window.default_width() - content.width();
    let frame_h = window.default_height() - content.height();
    window.set_default_size(360 + frame_w.max(0), 480 + frame_h.max(0));
    wait_until("a 360 px window", || content.width() == 360);
    scroll_to(&window, &group);
    save_png(&window, &out.join(format!("history-health-360{lang}.png")));
}
