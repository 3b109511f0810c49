//! UI tests of the capacity check ("Is my card genuine?"), on a real display (run under
//! `xvfb-run -a cargo test -p agnostics --test ui_capacity`): **Check Capacity…** on the SD
//! Card page without the focus at launch; the question with the time and size; the core's
//! real check on a loop-mounted ext4 (root) to a verdict of genuine with its progress shown;
//! **Cancel** removing the check file; a stored fake verdict and the **Found fake** mark from a
//! history fixture; what a screen reader is told (over AT-SPI, with `python3-pyatspi`); a
//! drive found fake headed so everywhere, whatever its speed ([`headline`]).
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders the SD Card page with the button, the question,
//! a check in progress (on a throttled disk), a genuine verdict and a stored fake one at
//! 800×480, and the same at 360×480, to `DIR/capacity-*.png`; and, in the language of
//! `LANGUAGE`, a drive found fake and a check from History ([`shots`]).

#[path = "ui_support/mod.rs"]
mod support;
// Not every part of the tree reader is used here.
#[path = "ui_capacity/fixture.rs"]
mod fixture;
#[path = "ui_capacity/flow.rs"]
mod flow;
#[path = "ui_capacity/headline.rs"]
mod headline;
#[path = "ui_capacity/shots.rs"]
mod shots;
#[path = "ui_capacity/stored.rs"]
mod stored;
#[allow(dead_code)]
#[path = "ui_a11y/tree.rs"]
mod tree;

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use adw::prelude::*;
use agnostics::model::capacity_check::CheckState;
use agnostics::pages::HistoryPage;
use agnostics::testing::WindowProbe;
use agnostics::window::{Page, Tab};
use agnostics::{Application, Window};
use agnostics_core::capacity::{CapacityVerdict, Phase};
use agnostics_core::history::History;
use agnostics_testkit::{Behaviour, FakeDrive, LoopFs, Ran};

use fixture::*;
use flow::*;
use headline::*;
use shots::*;
use stored::*;
use support::history_fixture::*;
use support::*;

/// Where the screenshots go, when set.
const SCREENSHOTS_ENV: &str = "AGNOSTICS_SCREENSHOTS";

fn main() {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    let bus = tree::SessionBus::ensure();
    let mut tests = crate::ui_tests![
        the_button_is_there_and_does_not_take_the_focus,
        the_question_says_the_time_and_cancel_removes_the_file,
        a_check_runs_to_a_genuine_verdict_with_its_progress_shown,
        a_small_filesystem_is_checked_as_far_as_its_free_space_reaches,
        cancel_while_writing_removes_the_file,
        a_read_only_drive_is_refused_with_what_to_do,
        closing_during_a_check_asks_then_removes_the_file_and_closes,
        a_fake_that_wraps_is_called_fake_and_marked_in_the_history,
        a_drive_that_drops_writes_loses_data,
        a_stored_fake_verdict_and_the_found_fake_mark_show,
        a_stored_check_is_saved_and_forgotten_with_undo,
        the_check_button_of_a_drive_not_connected_is_off_with_the_reason,
        a_screen_reader_hears_the_names_and_the_verdict,
        a_drive_found_fake_has_one_word_and_its_runs_are_headed_fake,
        a_drive_found_fake_is_warned_of_before_a_test_and_headed_fake_after,
        the_question_names_the_drive_and_states_the_plan_with_nothing_behind_it,
        a_check_from_a_drive_s_history_page_runs_and_ends_there,
        the_question_has_one_check_and_one_cancel_for_a_screen_reader,
    ];
    if std::env::var_os(SCREENSHOTS_ENV).is_some() {
        tests.extend(crate::ui_tests![
            renders_capacity_screenshots,
            renders_fake_results_screenshots,
            renders_capacity_history_screenshots,
        ]);
    }
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(bus);
    drop(scratch);
    conclusion.exit()
}

/// Finding: a control that writes to the card must never have the focus when the window
/// opens, or one Return would start it.
fn the_button_is_there_and_does_not_take_the_focus(app: &Application) {
    let window = new_window(app);
    let button = window.capacity_button();
    assert!(button.is_mapped(), "Check Capacity is on the SD Card page");
    assert_eq!(button.label().as_deref(), Some("Check Ca_pacity…"));
    assert_eq!(
        agnostics::a11y::label_of(&button).as_deref(),
        Some("Check Capacity…"),
        "named without its underscore"
    );
    let focus = gtk::prelude::GtkWindowExt::focus(&window);
    assert_eq!(
        focus,
        Some(window.drive_row().upcast()),
        "the chooser has the focus"
    );
    assert_ne!(window.default_widget(), Some(button.clone().upcast()));
    assert!(
        !button.has_css_class("suggested-action"),
        "it is secondary to Run SD Card Test"
    );
    // Return on the focused chooser starts nothing.
    window.emit_by_name::<()>("activate-default", &[]);
    iterate_briefly();
    assert!(!window.capacity_check().is_busy());
}

fn the_question_says_the_time_and_cancel_removes_the_file(app: &Application) -> Ran {
    let fs = loop_fs(256)?;
    let history = scratch_dir();
    let window = window_on(app, &fs.mount, &history.path().join("h.sqlite3"));
    let dialog = ask(&window);
    let body = body_of(&dialog);
    assert!(
        body.contains("\n\nThis takes less than a minute.")
            || body.contains("\n\nThis takes about"),
        "{body}"
    );
    assert!(body.contains(" MB in free space"), "{body}");
    assert!(body.contains("your files are not touched"), "{body}");
    assert_eq!(window.page(), Page::Ready, "nothing behind the question");
    assert_eq!(
        dialog.default_response().as_deref(),
        Some("cancel"),
        "Return writes nothing"
    );
    assert_eq!(dialog.close_response(), "cancel");
    assert!(
        !files_in(&fs.mount).is_empty(),
        "the check's file is made before it asks"
    );
    dialog.response("cancel");
    wait_until("the check to stop", || !window.capacity_check().is_busy());
    assert_eq!(window.capacity_check().state(), CheckState::Idle);
    assert!(
        files_in(&fs.mount).is_empty(),
        "left: {:?}",
        files_in(&fs.mount)
    );
    assert_eq!(window.page(), Page::Ready);
    assert!(window.open_dialog().is_none(), "a cancel is not an error");
    assert!(!window.is_inhibiting());
    Ok(())
}

fn a_check_runs_to_a_genuine_verdict_with_its_progress_shown(app: &Application) -> Ran {
    // Large enough that the check's file (all but 5 % of the free space, at least 64 MiB
    // left) reaches beyond 90 % of the drive.
    let fs = loop_fs(2048)?;
    let history = scratch_dir();
    let history_path = history.path().join("h.sqlite3");
    let window = window_on(app, &fs.mount, &history_path);
    let seen: Rc<RefCell<Vec<Seen>>> = Rc::default();
    let left: Rc<RefCell<Vec<String>>> = Rc::default();
    let view = window.capacity_view();
    window.capacity_check().connect_progress({
        let seen = seen.clone();
        let left = left.clone();
        let view = view.clone();
        move |check| {
            left.borrow_mut().push(view.time_left_text());
            let p = check.progress();
            seen.borrow_mut().push((
                p.phase,
                p.done,
                p.total,
                view.spots_text(),
                view.progress_bar().fraction(),
            ));
        }
    });
    let dialog = ask(&window);
    dialog.response("check");
    assert!(window.capacity_check().is_busy());
    assert_eq!(
        gtk::prelude::GtkWindowExt::focus(&window),
        Some(view.cancel_button().upcast()),
        "Cancel has the focus while the check runs"
    );
    wait_until("the verdict", || !window.capacity_check().is_busy());
    assert_eq!(window.capacity_check().state(), CheckState::Finished);
    assert_progress_shown(&seen.borrow(), &left.borrow());
    // A disk image is not called a card, and both sizes are in one unit.
    let heading = view.heading_text();
    assert!(
        heading.starts_with("This drive is genuine: ")
            && heading.contains(" MB verified of ")
            && heading.ends_with(" MB claimed"),
        "{heading}"
    );
    assert!(
        view.body_text().contains("The other ")
            && view
                .body_text()
                .contains("the check writes only in free space"),
        "the rest is explained: {}",
        view.body_text()
    );
    assert_eq!(
        agnostics::a11y::label_of(&view.pane()).as_deref(),
        Some(heading.as_str()),
        "the pane is named after the verdict, not the check"
    );
    assert_eq!(view.tone_class(), Some("success"));
    assert!(
        files_in(&fs.mount).is_empty(),
        "left: {:?}",
        files_in(&fs.mount)
    );
    wait_until("the page transition", || window.page_settled());
    assert_eq!(
        gtk::prelude::GtkWindowExt::focus(&window),
        Some(view.done_button().upcast()),
        "Done has the focus after the verdict"
    );
    assert!(!window.is_inhibiting());
    assert_fits_800x480(&window, "the verdict");
    assert_kept(&window, &history_path, CapacityVerdict::Genuine);
    // Done: back to the choice of drive.
    view.done_button().emit_clicked();
    assert_eq!(window.page(), Page::Ready);
    Ok(())
}

/// The progress a check showed: each phase's spots and its spots line, a bar that moved, and
/// the time left in words.
fn assert_progress_shown(seen: &[Seen], left: &[String]) {
    for phase in [Phase::Writing, Phase::Reading] {
        let last = seen
            .iter()
            .rfind(|s| s.0 == phase)
            .unwrap_or_else(|| panic!("no progress of {phase:?}: {seen:?}"));
        assert!(last.2 > 0, "{phase:?} has spots: {last:?}");
        assert!(last.3.starts_with("Spot "), "{last:?}");
    }
    assert!(
        seen.iter().any(|s| s.4 > 0.0 && s.4 < 1.0),
        "the bar moved: {seen:?}"
    );
    let left: Vec<&String> = left.iter().filter(|t| !t.is_empty()).collect();
    assert!(
        !left.is_empty()
            && left.iter().all(|t| *t == "Less than a minute left"
                || t.ends_with(" minutes left")
                || t.ends_with(" minute left")),
        "the time left is shown: {left:?}"
    );
}

/// What the page showed at one progress event: the phase, spots done and in it, the spots
/// line and the bar's fraction.
type Seen = (Phase, u64, u64, String, f64);

/// The check that ended in `window` is kept in the history at `path`, with `verdict`.
fn assert_kept(window: &Window, path: &Path, verdict: CapacityVerdict) {
    wait_until("the check in the history", || {
        window.capacity_check().recorded().is_some()
    });
    assert_eq!(window.capacity_check().recorded(), Some(None));
    let stored = History::open_read_only(path)
        .unwrap()
        .capacity_checks(None)
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].verdict, verdict);
}

/// A 256 MiB filesystem keeps 64 MiB free: the check reaches about three quarters of the
/// drive, and says so rather than calling the drive genuine.
fn a_small_filesystem_is_checked_as_far_as_its_free_space_reaches(app: &Application) -> Ran {
    let fs = loop_fs(256)?;
    let history = scratch_dir();
    let window = window_on(app, &fs.mount, &history.path().join("h.sqlite3"));
    ask(&window).response("check");
    wait_until("the verdict", || !window.capacity_check().is_busy());
    let view = window.capacity_view();
    let heading = view.heading_text();
    let report = window.capacity_check().report().expect("a report");
    let percent = (report.coverage.share * 100.0).floor();
    assert_eq!(
        heading,
        format!(
            "Checked only up to {percent} % of the drive: it cannot tell whether the drive is \
             fake beyond that"
        )
    );
    assert_eq!(view.tone_class(), Some("warning"));
    assert!(
        view.body_text().contains("Free some space and check again"),
        "{}",
        view.body_text()
    );
    Ok(())
}

fn cancel_while_writing_removes_the_file(app: &Application) -> Ran {
    // Slow enough (100 writes a second) that the check is still writing when Cancel comes.
    let disk = match ThrottledDisk::new(256, 4 << 20, 64 << 20, 100, 5000) {
        Ok(disk) => disk,
        Err(reason) => return agnostics_testkit::skip(reason),
    };
    let history = scratch_dir();
    let window = window_on(app, disk.path(), &history.path().join("h.sqlite3"));
    let dialog = ask(&window);
    dialog.response("check");
    let check = window.capacity_check();
    wait_until("some spots written", || {
        check.progress().phase == Phase::Writing && check.progress().done > 0
    });
    assert!(window.capacity_view().spots_text().starts_with("Spot "));
    window.capacity_view().cancel_button().emit_clicked();
    assert_eq!(check.state(), CheckState::Cancelling);
    assert!(window.capacity_view().phase_text().starts_with("Stopping"));
    wait_until("the check to stop", || !check.is_busy());
    assert!(check.was_cancelled());
    assert_eq!(window.page(), Page::Ready);
    assert!(
        files_in(disk.path()).is_empty(),
        "left: {:?}",
        files_in(disk.path())
    );
    assert!(window.open_dialog().is_none(), "a cancel is not an error");
    Ok(())
}

/// Closing the window while the check writes asks first ("Stop the Check?"); **Keep
/// Checking** goes on, **Stop and Close** removes the check's file and then closes.
fn closing_during_a_check_asks_then_removes_the_file_and_closes(app: &Application) -> Ran {
    let disk = match ThrottledDisk::new(256, 4 << 20, 64 << 20, 100, 5000) {
        Ok(disk) => disk,
        Err(reason) => return agnostics_testkit::skip(reason),
    };
    let history = scratch_dir();
    let window = window_on(app, disk.path(), &history.path().join("h.sqlite3"));
    ask(&window).response("check");
    let check = window.capacity_check();
    wait_until("some spots written", || {
        check.progress().phase == Phase::Writing && check.progress().done > 0
    });
    window.close();
    iterate_briefly();
    assert!(
        window.is_visible(),
        "the window stays until the user says so"
    );
    let dialog = window.open_dialog().expect("a question");
    assert_eq!(dialog.heading().as_deref(), Some("Stop the Check?"));
    assert!(dialog.body().contains("its check file is removed"));
    dialog.response("keep");
    iterate_briefly();
    assert!(window.is_visible());
    assert_eq!(check.state(), CheckState::Checking);
    window.close();
    iterate_briefly();
    window
        .open_dialog()
        .expect("the question again")
        .response("stop");
    wait_until("the window to close", || !window.is_visible());
    assert!(!check.is_busy());
    assert!(
        files_in(disk.path()).is_empty(),
        "left: {:?}",
        files_in(disk.path())
    );
    Ok(())
}

/// A drive mounted read-only: **Check Capacity…** is off on the SD Card page (which says
/// why); started another way, the check is refused before anything is written, in a dialog
/// that says what happened and what to do, and the SD Card page is back.
fn a_read_only_drive_is_refused_with_what_to_do(app: &Application) -> Ran {
    agnostics_testkit::require_root("a read-only loop-mounted ext4")?;
    // Room for the SD card test's file: the page's refusal is that the drive is read-only.
    let fs = LoopFs::builder(1024).options("ro").mount();
    let history = scratch_dir();
    let window = new_window(app);
    window.set_history_path(&history.path().join("h.sqlite3"));
    aim(&window, &fs.mount, None);
    wait_until("the page's refusal", || window.ready_problem().is_some());
    let problem = window.ready_problem().unwrap();
    assert!(problem.contains("read-only"), "{problem}");
    assert!(
        !window.capacity_button().is_sensitive(),
        "the SD Card page already says why the drive cannot be written"
    );
    // As a connected drive's History page starts it.
    window.check_capacity_at(fs.mount.clone());
    wait_until("the refusal", || {
        window.capacity_check().state() == CheckState::Failed
    });
    let dialog = window.open_dialog().expect("a dialog says why");
    assert_eq!(
        dialog.heading().as_deref(),
        Some("This drive cannot be checked")
    );
    let body = dialog.body().to_string();
    println!("  the refusal reads: {body}");
    assert!(body.contains("read-only"), "{body}");
    assert!(body.ends_with('.'), "what to do closes it: {body}");
    assert!(!body.contains(".."), "{body}");
    assert!(
        window.capacity_question().is_none(),
        "nothing is asked: nothing can be written"
    );
    assert_eq!(window.page(), Page::Ready);
    dialog.response("close");
    Ok(())
}

/// The testkit's fake drive (a loop device over a FUSE file that claims 1 GiB and wraps at
/// 128 MiB, with ext4 on it): the real check calls it fake with its real size, and the
/// History page marks it.
fn a_fake_that_wraps_is_called_fake_and_marked_in_the_history(app: &Application) -> Ran {
    const MIB: u64 = 1 << 20;
    let drive = FakeDrive::builder(
        1024 * MIB,
        Behaviour::Wrap {
            real_bytes: 128 * MIB,
        },
    )
    .mounted()
    .build()?;
    let dir = drive.mount_dir().expect("mounted").to_path_buf();
    let history = scratch_dir();
    let window = window_on(app, &dir, &history.path().join("h.sqlite3"));
    ask(&window).response("check");
    wait_until("the verdict", || !window.capacity_check().is_busy());
    let view = window.capacity_view();
    assert_eq!(
        view.heading_text(),
        "This drive is fake: it claims 1.1 GB but keeps only about 134 MB"
    );
    assert_eq!(view.tone_class(), Some("error"));
    assert!(
        view.body_text().contains("overwrites earlier data"),
        "{}",
        view.body_text()
    );
    assert!(files_in(&dir).is_empty(), "left: {:?}", files_in(&dir));
    wait_until("the check in the history", || {
        window.capacity_check().recorded().is_some()
    });
    let report = window.capacity_check().report().expect("a report");
    let id = report
        .identity
        .expect("an ext4 filesystem is identified")
        .id;
    let history_view = window.history_view();
    wait_until("the History page read again", || !history_view.is_loading());
    let key = agnostics::model::history_store::DriveKey::Identified(id);
    assert!(
        history_view.drive_has_found_fake(&key),
        "{:?}",
        history_view.drive_rows()
    );
    history_view.open_drive(&key);
    settle(&window);
    assert!(history_view.shows_found_fake());
    // The drive is connected: its page checks it again, on the SD Card view.
    assert!(history_view.check_capacity_button().is_sensitive());
    history_view.check_capacity_button().emit_clicked();
    wait_until("the question", || window.capacity_question().is_some());
    assert_eq!(window.tab(), Tab::SdCard);
    assert_eq!(window.page(), Page::Capacity);
    assert_eq!(
        window.capacity_check().target().as_deref(),
        Some(dir.as_path())
    );
    window.capacity_question().unwrap().response("cancel");
    wait_until("the check to stop", || !window.capacity_check().is_busy());
    assert!(files_in(&dir).is_empty(), "left: {:?}", files_in(&dir));
    Ok(())
}

/// The testkit's fake drive that silently drops 2 % of its 4 KiB blocks: the check says it
/// loses data, how many spots did, and what to do.
fn a_drive_that_drops_writes_loses_data(app: &Application) -> Ran {
    const MIB: u64 = 1 << 20;
    let behaviour = Behaviour::Lossy {
        seed: 7,
        lost_per_million: 20_000,
    };
    let drive = FakeDrive::builder(1024 * MIB, behaviour)
        .mounted()
        .build()?;
    let dir = drive.mount_dir().expect("mounted").to_path_buf();
    let history = scratch_dir();
    let window = window_on(app, &dir, &history.path().join("h.sqlite3"));
    ask(&window).response("check");
    wait_until("the verdict", || !window.capacity_check().is_busy());
    let view = window.capacity_view();
    assert_eq!(view.heading_text(), "This drive loses data");
    assert_eq!(view.tone_class(), Some("error"));
    let report = window.capacity_check().report().expect("a report");
    let s = report.spots;
    let bad = s.zeros + s.garbage + s.stale + s.wrapped;
    assert!(bad > 0);
    assert_eq!(
        view.body_text(),
        format!(
            "{bad} of {} spots checked did not keep what was written there. Copy your files off it and stop using it.",
            s.total
        )
    );
    Ok(())
}

fn a_stored_fake_verdict_and_the_found_fake_mark_show(app: &Application) {
    let fixture = fake_fixture();
    let window = history_window(app, &fixture.path);
    let view = window.history_view();
    // The list of drives: the card's row has the mark.
    let marked: Vec<String> = view
        .drive_rows()
        .into_iter()
        .filter(|(drive, _, _)| *drive == key(CARD))
        .map(|(_, title, _)| title)
        .collect();
    assert_eq!(marked.len(), 1);
    assert!(
        view.drive_has_found_fake(&key(CARD)),
        "the card's row is marked"
    );
    assert!(
        !view.drive_has_found_fake(&key(STICK)),
        "the stick's is not"
    );
    view.open_drive(&key(CARD));
    settle(&window);
    assert!(view.shows_found_fake(), "the card's page is marked");
    let checks = view.check_rows();
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert_eq!(checks[0].1, "Fake: claims 31.9 GB, keeps only about 8.6 GB");
    view.open_check(FAKE_CHECK_ID);
    settle(&window);
    assert_eq!(view.visible_page(), HistoryPage::Check);
    let shown = view.check_view();
    assert_eq!(
        shown.heading_text(),
        "This card is fake: it claims 31.9 GB but keeps only about 8.6 GB"
    );
    assert!(shown
        .body_text()
        .contains("Copy your files off it and return it."));
    assert_eq!(shown.tone_class(), Some("error"));
    assert_eq!(
        shown.reasons(),
        ["Its maker number (0x00) belongs to no known card maker"]
    );
    assert!(
        !shown.done_button().is_mapped(),
        "a stored check has the page's own way back"
    );
    assert!(view.go_back());
    assert_eq!(view.visible_page(), HistoryPage::Drive);
}

/// The card of the fixture is not connected here: its **Check Capacity…** is off, and says
/// why (tooltip and description).
fn the_check_button_of_a_drive_not_connected_is_off_with_the_reason(app: &Application) {
    let fixture = fake_fixture();
    let window = history_window(app, &fixture.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let button = view.check_capacity_button();
    assert!(button.is_mapped());
    assert!(!button.is_sensitive());
    let tip = button.tooltip_text().unwrap_or_default();
    assert!(tip.contains("not mounted now"), "{tip}");
    assert_eq!(
        agnostics::a11y::description_of(&button).as_deref(),
        Some(tip.as_str())
    );
}

/// Whether `node` ("role: name", as the tree lists it) is the named **Check Capacity…** button:
/// AT-SPI's role is "push button" on GTK 4.8 and "button" on GTK 4.18.
fn is_check_button(node: &str) -> bool {
    ["push button: Check Capacity…", "button: Check Capacity…"].contains(&node)
}

/// Over AT-SPI: the SD Card page's new button has its name; the verdict page's controls have
/// real names and the verdict is in the tree as text.
fn a_screen_reader_hears_the_names_and_the_verdict(app: &Application) {
    let fixture = fake_fixture();
    let window = history_window(app, &fixture.path);
    window.set_tab(Tab::SdCard);
    iterate_briefly();
    let nodes = tree::read();
    let focusable = tree::focusable_names(&nodes);
    assert!(
        focusable.iter().any(|n| is_check_button(n)),
        "{focusable:?}"
    );
    let problems = tree::problems(&nodes);
    assert!(problems.is_empty(), "{problems:?}");
    // A stored fake verdict on the History page.
    window.set_tab(Tab::History);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    let nodes = tree::read();
    let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    assert!(
        names.iter().any(|n| n.starts_with("Found fake")),
        "the mark is read: {names:?}"
    );
    assert!(
        tree::focusable_names(&nodes)
            .iter()
            .any(|n| is_check_button(n)),
        "the drive page's button is named"
    );
    view.open_check(FAKE_CHECK_ID);
    settle(&window);
    let nodes = tree::read();
    let problems = tree::problems(&nodes);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(
        nodes
            .iter()
            .any(|n| n.name.starts_with("This card is fake: it claims 31.9 GB")),
        "the verdict is read"
    );
}

/// The SD Card page, the question, a check in progress, a genuine verdict and a stored fake
/// one, at 800×480 and 360×480.
fn renders_capacity_screenshots(app: &Application) -> Ran {
    let out = std::path::PathBuf::from(std::env::var_os(SCREENSHOTS_ENV).unwrap());
    // 2 GiB, so that the check reaches far enough for a verdict of genuine.
    let disk = match ThrottledDisk::new(2048, 8 << 20, 64 << 20, 150, 3000) {
        Ok(disk) => disk,
        Err(reason) => return agnostics_testkit::skip(reason),
    };
    let history = scratch_dir();
    for width in [800, 360] {
        let suffix = if width == 800 {
            String::new()
        } else {
            format!("-{width}")
        };
        let png = |name: &str| out.join(format!("capacity-{name}{suffix}.png"));
        let window = window_on(app, disk.path(), &history.path().join("h.sqlite3"));
        set_width(&window, width);
        save_png(&window, &png("ready"));
        let dialog = ask(&window);
        wait_until("the page transition to end", || window.page_settled());
        iterate_briefly();
        save_with_dialog(&window, &dialog, &png("confirm"));
        dialog.response("check");
        let check = window.capacity_check();
        wait_until("a third of the spots written", || {
            let p = check.progress();
            p.phase == Phase::Writing && p.done * 3 > p.total
        });
        save_png(&window, &png("progress"));
        wait_until("the verdict", || !check.is_busy());
        save_png(&window, &png("genuine"));
        window.close();
        iterate_briefly();
        let fixture = fake_fixture();
        let window = history_window(app, &fixture.path);
        set_width(&window, width);
        let view = window.history_view();
        save_png(&window, &png("drives"));
        view.open_drive(&key(CARD));
        settle(&window);
        save_png(&window, &png("drive"));
        view.open_check(FAKE_CHECK_ID);
        settle(&window);
        save_png(&window, &png("fake"));
        window.close();
        iterate_briefly();
    }
    Ok(())
}
