//! UI tests of the run history in the desktop app, on a real display (run under `xvfb-run -a
//! cargo test -p agnostics --test ui_history`): a real SQLite history file in a scratch folder
//! (`AGNOSTICS_HISTORY`) filled with sample reports through `History::record`, the History
//! page, a drive's trend charts, **Rename**, **Compare**, **Save report** (JSON, Markdown,
//! PNG) and **Forget run** with its **Undo**. A test run in the app going to the history, with
//! its trend on the results page, is `ui_trend`'s.
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders the History page, a drive's page, a stored run and a
//! comparison to `DIR/{history,history-drive,history-run,compare}.png` at 800×480 and to
//! `DIR/*-1280.png` at 1280×800 (run it on a screen larger than 1280×800, see
//! `tools/screenshots`), and a drive's page in the dark style to `DIR/history-drive-dark.png`.

#[path = "ui_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use adw::prelude::*;
use agnostics::pages::HistoryPage;
use agnostics::testing::WindowProbe;
use agnostics::widgets::save_report::{self, ReportFormat};
use agnostics::{Application, Window};
use agnostics_core::history::{History, IdentityBasis};
use agnostics_core::report::Report;
use agnostics_core::target_dir::Transport;
use agnostics_core::verdict::Verdict;

use support::history_fixture::*;
use support::*;

/// Where [`renders_history_screenshots`] writes its PNG files.
const SCREENSHOTS_ENV: &str = "AGNOSTICS_SCREENSHOTS";

fn main() {
    crate::support::run_with_scratch_log_and_history(
        crate::ui_tests![
            lists_the_drives_with_their_runs_and_last_verdict,
            a_quick_check_since_does_not_hide_the_last_grade,
            a_run_another_test_spoiled_is_not_graded_not_an_error,
            a_drive_page_says_the_drives_kind_once,
            ctrl_s_saves_the_stored_run_shown,
            another_drives_page_starts_at_its_top,
            ticking_a_run_keeps_the_page_where_it_is,
            a_quick_checks_chart_has_no_a1_line,
            a_drives_charts_have_its_points_and_say_what_they_show,
            a_drive_with_one_run_has_a_one_point_chart,
            rename_gives_the_drive_a_name,
            compare_of_two_runs_shows_each_figure_with_its_ratio,
            compare_reads_forward_in_time_with_each_run_s_verdict,
            save_report_writes_json_markdown_and_png_of_a_stored_run,
            forget_run_removes_it_from_the_drive,
        ],
        crate::ui_tests![renders_history_screenshots],
    )
}

fn lists_the_drives_with_their_runs_and_last_verdict(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let rows = window.history_view().drive_rows();
    assert_eq!(rows.len(), 2, "two drives: {rows:?}");
    let card = rows
        .iter()
        .find(|r| r.0 == key(CARD))
        .expect("the card is listed");
    // The last run's sequential write (6.3 MB/s) is below the A1 minimum.
    assert!(
        card.2
            .starts_with("SD card · 3 runs · last FAIL on 2026-07-01"),
        "{card:?}"
    );
    let stick = rows
        .iter()
        .find(|r| r.0 == key(STICK))
        .expect("the stick is listed");
    assert!(stick.2.contains("1 run · last"), "{stick:?}");
    assert!(!card.1.is_empty() && !stick.1.is_empty());
    assert_eq!(window.history_view().visible_page(), HistoryPage::Drives);
    assert_fits_360(&window);
}

/// Finding: one Quick check turned "Kitchen Pi card" from FAIL to a blue NOT GRADED in the
/// list of drives. The row shows the latest graded verdict, and the latest run's date beside.
fn a_quick_check_since_does_not_hide_the_last_grade(app: &Application) {
    use agnostics::widgets::Badge;
    let f = fixture();
    let quick = quick_check_of(&format!("{:032x}", 0x9c1c_u32), "2026-07-02T10:30:00+00:00");
    History::open(&f.path).unwrap().record(&quick).unwrap();
    let window = history_window(app, &f.path);
    let rows = window.history_view().drive_rows();
    let card = rows.iter().find(|r| r.0 == key(CARD)).expect("the card");
    assert!(
        card.2
            .starts_with("SD card · 4 runs · last FAIL on 2026-07-01")
            && card.2.contains("latest run 2026-07-02"),
        "{card:?}"
    );
    let badge = descendants(window.history_view().upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<adw::ActionRow>().ok())
        .find(|r| r.title() == card.1)
        .and_then(|row| {
            descendants(row.upcast_ref())
                .into_iter()
                .find_map(|w| w.downcast::<Badge>().ok())
        })
        .expect("the card's badge");
    assert_eq!(badge.text(), "FAIL");
}

/// Finding: a run another test spoiled (the drive was shared) was stored as failed and shown
/// as ERROR. It is stored as shared and shown as NOT GRADED, in the list of drives and on
/// the drive's page.
fn a_run_another_test_spoiled_is_not_graded_not_an_error(app: &Application) {
    use agnostics::widgets::Badge;
    let f = fixture();
    let id = format!("{:032x}", 0x5a4e_u32);
    let mut spoiled = report_of(
        &drive(IdentityBasis::Cid, CARD),
        &id,
        "2026-07-02T10:30:00+00:00",
        (1e6, 2e6, 90.0, 200.0),
        Transport::Sd,
    );
    spoiled.error = Some(agnostics_core::report::ErrorReport::new(
        agnostics_core::report::ErrorKind::SharedDrive,
        "another test used the drive".to_owned(),
        agnostics_core::advice::Advice::SharedDrive.text(),
    ));
    spoiled
        .advice
        .push(agnostics_core::advice::Advice::SharedDrive);
    spoiled.verdict = Verdict::Error;
    History::open(&f.path).unwrap().record(&spoiled).unwrap();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let badges: Vec<String> = descendants(view.upcast_ref())
        .into_iter()
        .filter(|w| w.is_mapped())
        .filter_map(|w| w.downcast::<Badge>().ok())
        .map(|b| b.text())
        .collect();
    assert!(badges.iter().any(|b| b == "NOT GRADED"), "{badges:?}");
    assert!(!badges.iter().any(|b| b == "ERROR"), "{badges:?}");
}

/// Finding: a drive page's title said the kind twice, "loop1 (loop) (Disk image)". Once now,
/// in words.
fn a_drive_page_says_the_drives_kind_once(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(STICK));
    settle(&window);
    assert_eq!(view.drive_title(), "Flash Drive (USB drive)");
}

/// Finding: Ctrl+S on a stored run's page opened nothing (and the first time focused the red
/// Forget Run). It asks where to save that run, as its Save Report… does.
fn ctrl_s_saves_the_stored_run_shown(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let newest = view.run_rows()[0].0.clone();
    view.open_run(&newest);
    settle(&window);
    assert!(view.open_chooser().is_none());
    let fired = gtk::prelude::WidgetExt::activate_action(
        &window,
        agnostics::window::Action::SaveReport.name(),
        None,
    );
    assert!(fired.is_ok(), "win.save-report is there");
    wait_until("the save dialog", || view.open_chooser().is_some());
    let chooser = view.open_chooser().expect("asked where to save");
    let name = chooser
        .current_name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    assert!(name.ends_with(".json"), "{name:?}");
    chooser.destroy();
}

/// Finding: a drive page kept the previous drive's scroll offset. Another drive's starts at
/// its top.
fn another_drives_page_starts_at_its_top(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    view.scroll_drive_by(200.0);
    iterate_briefly();
    assert!(view.drive_scrolled() > 0.0, "the card's page scrolls");
    view.open_drive(&key(STICK));
    settle(&window);
    assert_eq!(
        view.drive_scrolled(),
        0.0,
        "the stick's page starts at its top"
    );
}

/// Finding: ticking a run scrolled the list under the pointer (the Compare bar moved the
/// clicked row at the bottom edge into view). With the pointer, the page stays.
fn ticking_a_run_keeps_the_page_where_it_is(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let row = view.run_list_rows().last().expect("a run").clone();
    let scroller = row.ancestor(gtk::ScrolledWindow::static_type()).unwrap();
    let b = row.compute_bounds(&scroller).expect("the row's bounds");
    view.scroll_drive_by(f64::from(b.y() + b.height()) - f64::from(scroller.height()));
    iterate_briefly();
    row.grab_focus();
    agnostics::focus_ring::set_keyboard(window.upcast_ref(), false);
    let before = view.drive_scrolled();
    let ticks = descendants(row.upcast_ref()).into_iter();
    let mut ticks = ticks.filter_map(|w| w.downcast::<gtk::CheckButton>().ok());
    ticks.next().expect("the run's tick").set_active(true);
    let bar = view.compare_bar();
    wait_until("the Compare bar shown", || {
        bar.height() > 0 && bar.height() == bar.measure(gtk::Orientation::Vertical, -1).1
    });
    iterate_briefly();
    assert_eq!(view.drive_scrolled(), before, "the page did not move");
}

/// Finding: the A1 target was drawn on the chart of ungraded Quick checks. Only the standard
/// test's charts have it.
fn a_quick_checks_chart_has_no_a1_line(app: &Application) {
    let dir = scratch_dir();
    let path = dir.path().join("history.sqlite3");
    let mut h = History::open(&path).expect("a new history");
    for (n, day) in [(1_u32, "2026-07-02"), (2, "2026-07-03")] {
        let quick = quick_check_of(
            &format!("{:032x}", 0x9c1c_0000_u32 + n),
            &format!("{day}T10:30:00+00:00"),
        );
        h.record(&quick).unwrap();
    }
    drop(h);
    let window = history_window(app, &path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    for chart in [view.rate_chart(), view.iops_chart()] {
        let series = chart.series();
        assert!(!series.is_empty(), "the Quick checks are charted");
        assert!(series.iter().all(|s| s.target.is_none()), "{series:?}");
    }
    // The standard test's charts keep it.
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    assert!(view
        .iops_chart()
        .series()
        .iter()
        .all(|s| s.target.is_some()));
}

fn a_drives_charts_have_its_points_and_say_what_they_show(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    assert_eq!(view.visible_page(), HistoryPage::Drive);
    let rate = view.rate_chart();
    let series = rate.series();
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Sequential write", "Sequential read"]);
    let write: Vec<f64> = series[0].points.iter().map(|p| p.value).collect();
    assert_eq!(write, [12.6e6, 12.4e6, 6.3e6], "oldest first");
    let text = rate.description();
    assert!(
        text.contains("Horizontal axis: the date of each run, from 2026-05-01 to 2026-07-01"),
        "{text}"
    );
    assert!(text.contains("Vertical axis: MB/s"), "{text}");
    assert!(
        text.contains("Sequential write: 3 runs, first 12.60 MB/s, latest 6.30 MB/s on 2026-07-01"),
        "{text}"
    );
    let iops = view.iops_chart();
    assert_eq!(iops.series().len(), 2);
    assert!(iops.description().contains("Vertical axis: IOPS"));
    let runs = view.run_rows();
    assert_eq!(runs.len(), 3);
    assert!(
        runs[0].1.starts_with("2026-07-01"),
        "newest first: {runs:?}"
    );
    assert!(runs[0].1.contains("Standard test"), "{runs:?}");
    assert!(runs[0].2.contains("write 6.30 MB/s"), "{runs:?}");
    assert!(runs[0].2.contains("4K read 2000 IOPS"), "{runs:?}");
    assert_fits_360(&window);
    // Drawn for real (plotters on cairo): the page renders.
    save_png(&window, &f.path.with_file_name("drive.png"));
}

fn a_drive_with_one_run_has_a_one_point_chart(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(STICK));
    settle(&window);
    let series = view.rate_chart().series();
    assert!(series.iter().all(|s| s.points.len() == 1), "{series:?}");
    assert!(view
        .rate_chart()
        .description()
        .contains("Sequential write: 1 run, 25.00 MB/s on 2026-06-15"));
    save_png(&window, &f.path.with_file_name("one.png"));
}

fn rename_gives_the_drive_a_name(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    view.start_rename();
    iterate_briefly();
    let dialog = view.open_dialog().expect("the rename dialog");
    let entry = dialog
        .extra_child()
        .and_downcast::<gtk::Entry>()
        .expect("an entry for the name");
    entry.set_text("Kitchen Pi card");
    dialog.response("rename");
    settle(&window);
    let rows = view.drive_rows();
    let card = rows.iter().find(|r| r.0 == key(CARD)).unwrap();
    assert_eq!(card.1, "Kitchen Pi card");
    assert!(
        view.drive_title().starts_with("Kitchen Pi card"),
        "{}",
        view.drive_title()
    );
    let h = History::open_read_only(&f.path).unwrap();
    let stored = h.drives().unwrap();
    assert_eq!(
        stored
            .iter()
            .find(|d| d.id.to_string() == CARD)
            .and_then(|d| d.name.clone())
            .as_deref(),
        Some("Kitchen Pi card")
    );
}

fn compare_of_two_runs_shows_each_figure_with_its_ratio(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    // Oldest (12.6 MB/s) on the left, newest (6.3 MB/s) on the right.
    let runs = compare_card_runs(&window, 2, 0);
    let view = window.history_view();
    let cells = view.compare_view().shown_cells();
    assert_eq!(cells[0], ["Figure", "Left", "Right", "Change"]);
    let write = cells
        .iter()
        .find(|c| c[0] == "Sequential write")
        .unwrap_or_else(|| panic!("a sequential write line: {cells:?}"));
    assert_eq!(write[1], "12.60 MB/s");
    assert_eq!(write[2], "6.30 MB/s");
    assert_eq!(write[3], "×0.50 (−50 %)");
    let read = cells.iter().find(|c| c[0] == "Sequential read").unwrap();
    assert_eq!(read[3], "×1.00 (±0 %)");
    assert_fits_360(&window);
    // Two drives: the stick against the card.
    view.open_drive(&key(STICK));
    settle(&window);
    let stick_run = view.run_rows()[0].0.clone();
    view.compare(&runs[0].0, &stick_run);
    settle(&window);
    let cells = view.compare_view().shown_cells();
    let write = cells.iter().find(|c| c[0] == "Sequential write").unwrap();
    assert_eq!(write[3], "×3.97 (+297 %)");
}

/// Finding: Compare put the runs in the order ticked, so newer-first read "×1.94 (+94 %)"
/// backwards in time; two runs of one minute had the same label; no PASS/FAIL was shown. The
/// older run is on the left whatever the order of the ticks, the seconds tell one minute's
/// runs apart, and each side has its verdict.
fn compare_reads_forward_in_time_with_each_run_s_verdict(app: &Application) {
    use agnostics::widgets::Badge;
    let f = fixture();
    let card = drive(IdentityBasis::Cid, CARD);
    let mut h = History::open(&f.path).unwrap();
    for (i, started) in ["2026-07-05T09:00:05+00:00", "2026-07-05T09:00:40+00:00"]
        .into_iter()
        .enumerate()
    {
        let report = report_of(
            &card,
            &format!("{:032x}", 0x5a3e_0000_usize + i),
            started,
            (12.0e6, 40e6, 900.0, 2000.0),
            Transport::Sd,
        );
        h.record(&report).unwrap();
    }
    drop(h);
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let runs = view.run_rows();
    // The July run (6.3 MB/s, FAIL) ticked first, the May run (12.6 MB/s, PASS) second.
    let (july, may) = (&runs[2].0, &runs[4].0);
    view.choose(july, "first", true);
    view.choose(may, "second", true);
    view.compare_chosen();
    settle(&window);
    let cells = view.compare_view().shown_cells();
    let write = cells.iter().find(|c| c[0] == "Sequential write").unwrap();
    assert_eq!(
        (write[1].as_str(), write[2].as_str(), write[3].as_str()),
        ("12.60 MB/s", "6.30 MB/s", "×0.50 (−50 %)"),
        "the older run on the left: {cells:?}"
    );
    let sides: Vec<adw::ActionRow> = descendants(view.compare_view().upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<adw::ActionRow>().ok())
        .filter(|r| r.title().starts_with("Left") || r.title().starts_with("Right"))
        .collect();
    let verdicts: Vec<String> = sides
        .iter()
        .filter_map(|r| {
            descendants(r.upcast_ref())
                .into_iter()
                .find_map(|w| w.downcast::<Badge>().ok())
                .map(|b| b.text())
        })
        .collect();
    assert_eq!(verdicts, ["PASS", "FAIL"], "each side's verdict");

    // Two runs of one minute: their dates differ by their seconds.
    view.choose(&runs[0].0, "a", true);
    view.choose(&runs[1].0, "b", true);
    view.compare_chosen();
    settle(&window);
    let subtitles: Vec<String> = descendants(view.compare_view().upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<adw::ActionRow>().ok())
        .filter(|r| r.title().starts_with("Left") || r.title().starts_with("Right"))
        .filter_map(|r| r.subtitle().map(|s| s.to_string()))
        .collect();
    assert_eq!(subtitles.len(), 2, "{subtitles:?}");
    assert_ne!(subtitles[0], subtitles[1], "one minute's runs told apart");
}

/// The History page fits the window's narrowest width (360 px) on the page shown.
fn assert_fits_360(window: &Window) {
    let view = window.history_view();
    let (min_w, _, _, _) = view.measure(gtk::Orientation::Horizontal, -1);
    assert!(
        min_w <= 360,
        "the {:?} page needs {min_w} px",
        view.visible_page()
    );
}

/// Records a run with a real card's registers in the history at `path` and saves it from the
/// run's page in every format: its serial number is in none of the files.
fn assert_saved_without_serials(window: &Window, path: &Path) {
    let view = window.history_view();
    let dir = path.parent().unwrap();
    let sysfs = card_sysfs(&dir.join("sysfs"), "kingston-sd64g-2019-imx.json", &[], &[]);
    let card_info = agnostics_core::card::identify(&sysfs, "mmcblk0").expect("the card");
    let psn = card_info
        .cid
        .as_ref()
        .and_then(|c| c.psn)
        .expect("a serial number");
    let sysfs_serial = card_info.sysfs.as_ref().and_then(|s| s.serial.clone());
    let mut with_card = report_of(
        &drive(IdentityBasis::Cid, CARD),
        &format!("{:032x}", 0xca2d_u32),
        "2026-07-02T09:00:00+00:00",
        (12e6, 40e6, 900.0, 2000.0),
        Transport::Sd,
    );
    with_card.card = Some(card_info);
    let raw = serde_json::to_string(&with_card).unwrap();
    assert!(
        raw.contains(&psn.to_string()),
        "the unredacted report has the serial"
    );
    History::open(path).unwrap().record(&with_card).unwrap();
    view.open_run(&with_card.run_id);
    settle(window);
    let serials = [
        format!("{psn:08x}"),
        format!("{psn:#010x}"),
        psn.to_string(),
        sysfs_serial.unwrap_or_else(|| format!("{psn:#010x}")),
    ];
    for format in ReportFormat::ALL {
        let file = dir.join(format!("card.{}", format.extension()));
        view.save_shown_run(format, &file).expect("saved");
        if format == ReportFormat::Png {
            assert_png(&file);
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for serial in &serials {
            assert!(
                !text.contains(serial.as_str()),
                "{serial} in {}",
                file.display()
            );
        }
    }
}

fn save_report_writes_json_markdown_and_png_of_a_stored_run(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let newest = view.run_rows()[0].0.clone();
    view.open_run(&newest);
    settle(&window);
    assert_eq!(view.visible_page(), HistoryPage::Run);
    assert_fits_360(&window);
    let dir = f.path.parent().unwrap();
    let json = dir.join("run.json");
    let md = dir.join("run.md");
    let png = dir.join("run.png");
    view.save_shown_run(ReportFormat::Json, &json)
        .expect("JSON saved");
    view.save_shown_run(ReportFormat::Markdown, &md)
        .expect("Markdown saved");
    view.save_shown_run(ReportFormat::Png, &png)
        .expect("PNG saved");
    let saved: Report =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).expect("a JSON report");
    assert_eq!(saved.run_id, newest);
    assert_eq!(saved, saved.redacted(), "nothing left to redact");
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("| seq-write") || text.contains("Sequential write"),
        "{text}"
    );
    assert!(
        text.contains("\n\nDrive: SC32G (SD); tested 2026-07-01 09:00:00\n"),
        "the drive and the run's date: {text}"
    );
    assert_png(&png);
    assert_eq!(
        ReportFormat::from_path(Path::new("a.MD")),
        Some(ReportFormat::Markdown)
    );
    assert_eq!(
        save_report::suggested_name(&saved, ReportFormat::Png),
        "agnostics-2026-07-01-0900.png"
    );

    // A run with a real card's registers: its serial number is in none of the files.
    assert_saved_without_serials(&window, &f.path);
}

fn forget_run_removes_it_from_the_drive(app: &Application) {
    let f = fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let newest = view.run_rows()[0].0.clone();
    let stored = stored_document(&f.path, &newest);
    view.forget_run(&newest);
    settle(&window);
    let runs = view.run_rows();
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|r| r.0 != newest));
    assert_eq!(view.rate_chart().series()[0].points.len(), 2);
    let rows = view.drive_rows();
    assert!(rows
        .iter()
        .find(|r| r.0 == key(CARD))
        .unwrap()
        .2
        .contains("2 runs"));
    assert!(History::open_read_only(&f.path)
        .unwrap()
        .report(&newest)
        .is_err());
    undo_puts_the_forgotten_run_back(&window, &f.path, &newest, &stored);
}

/// The "Run forgotten" toast's **Undo**: the run is back, the same document under the same
/// id, in the drive's list and chart.
fn undo_puts_the_forgotten_run_back(
    window: &Window,
    history: &Path,
    run: &str,
    stored: &serde_json::Value,
) {
    let undo = descendants(window.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Button>().ok())
        .find(|b| b.label().is_some_and(|l| l.replace('_', "") == "Undo"))
        .expect("the toast offers Undo");
    // Named "Undo" for a screen reader (it was "_Undo Undo").
    assert_eq!(agnostics::a11y::label_of(&undo).as_deref(), Some("Undo"));
    undo.emit_clicked();
    settle(window);
    let view = window.history_view();
    let runs = view.run_rows();
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert_eq!(runs[0].0, run, "the newest run is back on top");
    assert_eq!(view.rate_chart().series()[0].points.len(), 3);
    assert_eq!(&stored_document(history, run), stored, "the same document");
}

/// The document the history holds for `run`, as JSON.
fn stored_document(history: &Path, run: &str) -> serde_json::Value {
    let h = History::open_read_only(history).unwrap();
    serde_json::to_value(h.report(run).expect("the run is stored")).unwrap()
}

/// Renders the History page, a drive's page and a comparison at 800×480 and 1280×800.
fn renders_history_screenshots(app: &Application) {
    let dir = PathBuf::from(std::env::var_os(SCREENSHOTS_ENV).unwrap());
    let f = fixture();
    let lang = screenshot_suffix();
    let sizes = if lang.is_empty() {
        vec![
            (String::new(), None),
            ("-1280".to_owned(), Some((1280, 800))),
        ]
    } else {
        vec![(lang.clone(), None)]
    };
    for (suffix, size) in sizes {
        let window = history_window(app, &f.path);
        if let Some((w, h)) = size {
            let content = window.content().unwrap();
            let (dw, dh) = window.default_size();
            let (ew, eh) = (dw - content.width(), dh - content.height());
            window.set_default_size(w + ew, h + eh);
            wait_until("the bigger window", || {
                content.width() == w && content.height() == h
            });
            iterate_briefly();
        }
        let view = window.history_view();
        view.rename_drive(CARD, "Kitchen Pi card");
        settle(&window);
        save_png(&window, &dir.join(format!("history{suffix}.png")));
        view.open_drive(&key(CARD));
        settle(&window);
        save_png(&window, &dir.join(format!("history-drive{suffix}.png")));
        let runs = view.run_rows();
        view.open_run(&runs[0].0);
        settle(&window);
        save_png(&window, &dir.join(format!("history-run{suffix}.png")));
        view.choose(&runs[2].0, "Kitchen Pi card, 2026-05-01 09:00", true);
        view.choose(&runs[0].0, "Kitchen Pi card, 2026-07-01 09:00", true);
        view.compare_chosen();
        settle(&window);
        save_png(&window, &dir.join(format!("compare{suffix}.png")));
        window.destroy();
        iterate_briefly();
    }
    if !lang.is_empty() {
        return;
    }
    // The drive's charts in the dark style (Raspberry Pi OS's dark theme), for a look.
    let style = adw::StyleManager::default();
    style.set_color_scheme(adw::ColorScheme::ForceDark);
    let window = history_window(app, &f.path);
    window.history_view().open_drive(&key(CARD));
    settle(&window);
    save_png(&window, &dir.join("history-drive-dark.png"));
    style.set_color_scheme(adw::ColorScheme::Default);
}
