//! UI tests of the running and results pages at 800×480: where focus lands on the results, that
//! toasts leave the bottom buttons clear, that "Stopping…" stays until the test has stopped,
//! that the progress bar covers the whole run (not one phase) with a time estimate and says why
//! a second run starts, that no "0.00 MB/s" shows before the first I/O, and the accessible
//! names of buttons and the announcements of a new phase and the verdict. Run under
//! `xvfb-run -a cargo test -p agnostics --test ui_run`.

#[path = "ui_support/mod.rs"]
mod support;

use std::cell::RefCell;
use std::rc::Rc;

use adw::prelude::*;
use agnostics::model::test_run::{Progress, RunState};
use agnostics::testing::WindowProbe;
use agnostics::window::Page;
use agnostics::{a11y, Application, Window};
use agnostics_core::advice::Advice;
use agnostics_core::engine::Rerun;
use agnostics_core::profile::Rw;

use support::*;

fn main() {
    let log_dir = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", log_dir.path().join("rpdiags.txt"));
    // And the tester's own history of runs out of it.
    std::env::set_var("AGNOSTICS_HISTORY", log_dir.path().join("history.sqlite"));
    // Screenshots in another language (LANGUAGE=de or ja) need the catalogues bound, as the
    // app's own start does; the tests themselves expect English.
    if std::env::var_os("AGNOSTICS_SCREENSHOTS").is_some() {
        if let Some(dir) = std::env::var_os("AGNOSTICS_LOCALEDIR") {
            agnostics_core::i18n::init(std::path::Path::new(&dir));
        }
    }
    let mut tests = crate::ui_tests![
        results_focus_copy_results_and_select_no_text,
        toasts_leave_the_bottom_buttons_clear,
        stopping_message_stays_until_the_test_has_stopped,
        progress_bar_covers_the_whole_run_and_explains_a_repeat,
        no_zero_figure_before_the_first_io,
        buttons_are_named_without_their_underscore,
        phase_changes_and_the_verdict_are_announced,
        result_rows_say_their_value_and_verdict,
        chart_has_labelled_axes_from_half_a_megabyte_to_20_gigabytes,
        chart_shows_a_reference_and_a_short_phase,
        cancel_in_the_middle_removes_the_test_file_and_returns_to_ready,
        closing_while_running_asks_then_cleans_up_and_closes,
        refused_tmpfs_target_shows_the_error_dialog,
    ];
    // Rendering is a tool, not a test: only with AGNOSTICS_SCREENSHOTS=DIR.
    if std::env::var_os("AGNOSTICS_SCREENSHOTS").is_some() {
        tests.extend(crate::ui_tests![renders_run_screenshots]);
    }
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(log_dir);
    conclusion.exit()
}

/// Runs the small five-phase profile in a fresh folder on disk; returns the window on its
/// results page and every progress snapshot seen on the way.
fn run_small(app: &Application) -> (Window, tempfile::TempDir, Rc<RefCell<Vec<Progress>>>) {
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "small.fio", SMALL_PROFILE);
    let window = new_window(app);
    aim(&window, dir.path(), Some(profile));
    let seen = Rc::new(RefCell::new(Vec::new()));
    let seen2 = seen.clone();
    window.test_run().connect_progress(move |run| {
        seen2.borrow_mut().push(run.progress());
    });
    window.run_button().activate();
    wait_until("the results", || {
        window.test_run().state() == RunState::Finished || window.open_dialog().is_some()
    });
    if let Some(dialog) = window.open_dialog() {
        panic!(
            "an error instead of results: {:?} {:?}",
            dialog.heading(),
            dialog.body()
        );
    }
    wait_until("the page transition to end", || window.page_settled());
    iterate_briefly();
    (window, dir, seen)
}

/// Findings: on the results page focus landed on the "Tested: …" label and selected its
/// text; then on **Run Again**, where a stray Space wrote to the drive again. It belongs on
/// **Copy Results**, which writes nothing, with no text selected.
fn results_focus_copy_results_and_select_no_text(app: &Application) {
    let (window, _dir, _) = run_small(app);
    assert_eq!(window.page(), Page::Results);
    let focus = gtk::prelude::GtkWindowExt::focus(&window);
    let button: gtk::Widget = window.results_view().copy_button().upcast();
    assert_eq!(
        focus.as_ref(),
        Some(&button),
        "focus is on {:?}",
        focus.as_ref().map(|f| (f.type_().name(), f.css_name()))
    );
    let mut selected = Vec::new();
    walk(window.results_view().upcast_ref(), &mut |w| {
        if let Some(label) = w.downcast_ref::<gtk::Label>() {
            if label.selection_bounds().is_some() {
                selected.push(label.label().to_string());
            }
        }
    });
    assert!(selected.is_empty(), "text selected: {selected:?}");
}

fn walk(widget: &gtk::Widget, f: &mut dyn FnMut(&gtk::Widget)) {
    f(widget);
    let mut child = widget.first_child();
    while let Some(c) = child {
        walk(&c, f);
        child = c.next_sibling();
    }
}

fn bounds_in(widget: &impl IsA<gtk::Widget>, window: &Window) -> gtk::graphene::Rect {
    widget
        .compute_bounds(window)
        .expect("the widget is in the window")
}

fn toast_widgets(window: &Window) -> Vec<gtk::Widget> {
    let mut toasts = Vec::new();
    walk(window.upcast_ref(), &mut |w| {
        if w.css_name() == "toast" && w.is_mapped() {
            toasts.push(w.clone());
        }
    });
    toasts
}

/// Finding: at 800×480 toasts ("Results copied", "Test cancelled…") covered the buttons at the
/// bottom of the page. Each page's bottom buttons stay clear of a toast shown over it.
fn toasts_leave_the_bottom_buttons_clear(app: &Application) {
    let (window, _dir, _) = run_small(app);
    let results = window.results_view();
    let buttons: Vec<gtk::Widget> = vec![
        results.run_again_button().upcast(),
        window.progress_view().cancel_button().upcast(),
        window.run_button().upcast(),
        window.capacity_view().cancel_button().upcast(),
    ];
    for (page, button) in [Page::Results, Page::Running, Page::Ready, Page::Capacity]
        .into_iter()
        .zip(buttons)
    {
        match page {
            Page::Ready => window.show_ready(),
            // The running page's layout, without a test: its Cancel button's place.
            Page::Running => window.show_page_for_test(Page::Running),
            Page::Results => {}
            // The capacity check's page, without a check: its Cancel button's place.
            Page::Capacity => window.show_page_for_test(Page::Capacity),
        }
        wait_until("the page transition to end", || window.page_settled());
        window.toast("Results copied");
        wait_until("a toast", || !toast_widgets(&window).is_empty());
        iterate_briefly();
        iterate_briefly();
        let b = bounds_in(&button, &window);
        for toast in toast_widgets(&window) {
            let t = bounds_in(&toast, &window);
            assert!(
                t.intersection(&b).is_none(),
                "{page:?}: the toast {:?} covers the button {:?}",
                (t.x(), t.y(), t.width(), t.height()),
                (b.x(), b.y(), b.width(), b.height())
            );
        }
        window.dismiss_toasts();
        iterate_briefly();
    }
}

fn progress(name: &str, rw: Rw, index: usize, fraction: f64) -> Progress {
    Progress {
        run: 1,
        runs: 3,
        index,
        count: 5,
        name: name.into(),
        rw,
        bs: 1 << 20,
        iodepth: 4,
        fraction,
        ..Progress::default()
    }
}

/// Finding: "Stopping the test and removing its test file…" was overwritten by the next
/// progress event, so a cancel looked like nothing happened.
fn stopping_message_stays_until_the_test_has_stopped(app: &Application) {
    let window = new_window(app);
    let view = window.progress_view();
    view.reset("Disk image");
    view.update(&progress("seq-write", Rw::Write, 1, 0.3));
    view.set_cancelling();
    let stopping = view.phase_text();
    assert!(stopping.starts_with("Stopping"), "{stopping}");
    let mut later = progress("seq-write", Rw::Write, 1, 0.4);
    later.bytes_done(4 << 20, 1.0);
    view.update(&later);
    view.update(&progress("seq-read", Rw::Read, 2, 0.0));
    assert_eq!(view.phase_text(), stopping, "a progress event replaced it");
    assert_eq!(view.estimate_text(), "", "no time estimate while stopping");
    view.reset("Disk image");
    assert!(!view.phase_text().starts_with("Stopping"));
}

/// Finding: the bar covered the running phase only and restarted at each of up to 15 phases.
/// It covers the whole run (never moves back within it), shows a time estimate once there is
/// one, and says why a second run starts.
fn progress_bar_covers_the_whole_run_and_explains_a_repeat(app: &Application) {
    let (window, _dir, seen) = run_small(app);
    let seen = seen.borrow();
    assert!(seen.len() > 5, "{} snapshots", seen.len());
    let mut last = 0.0;
    for p in seen.iter().filter(|p| p.run == 1) {
        let overall = p.overall_fraction();
        assert!(
            overall + 1e-9 >= last,
            "went back from {last} to {overall} at {} {}",
            p.name,
            p.fraction
        );
        last = overall;
    }
    assert!(last > 0.99, "the bar ends full: {last}");
    // The widget: the bar shows the run's fraction, not the phase's.
    let view = window.progress_view();
    view.reset("Disk image");
    let mut p = progress("seq-read", Rw::Read, 2, 0.5);
    p.run_elapsed_s = 50.0;
    view.update(&p);
    assert!((view.fraction() - 0.5).abs() < 1e-9, "{}", view.fraction());
    let estimate = view.estimate_text();
    assert!(
        estimate.contains("min") || estimate.contains('s'),
        "{estimate:?}"
    );
    let mut second = progress("prepare-file", Rw::Write, 0, 0.0);
    second.run = 2;
    second.again = Some(Rerun::Failed);
    view.update(&second);
    assert_eq!(
        view.run_text(),
        "Run 2 of up to 3: a test that fails is run again, as Raspberry Pi Diagnostics does"
    );
    // A run another test spoiled did not fail: the repeat says what happened.
    second.again = Some(Rerun::Shared);
    view.update(&second);
    assert_eq!(
        view.run_text(),
        "Run 2 of up to 3: another test used the drive during the run before, so that run was \
         not graded and is run again"
    );
}

/// Finding: "0.00 MB/s average so far" flashed at the start of each phase.
fn no_zero_figure_before_the_first_io(app: &Application) {
    let window = new_window(app);
    let view = window.progress_view();
    view.reset("Disk image");
    let mut p = progress("seq-write", Rw::Write, 1, 0.0);
    p.bytes_done(0, 0.2);
    view.update(&p);
    assert_eq!(view.figure_text(), "—");
    p.bytes_done(8 << 20, 0.5);
    view.update(&p);
    assert!(
        view.figure_text().ends_with("MB/s"),
        "{}",
        view.figure_text()
    );
}

/// Finding: buttons exposed their names doubled with the underscore ("_Run SD card test Run SD
/// card test"). Every button with a mnemonic has its accessible name without it, also after
/// its label changes.
fn buttons_are_named_without_their_underscore(app: &Application) {
    let window = new_window(app);
    let mut missing = Vec::new();
    walk(window.upcast_ref(), &mut |w| {
        if let Some(button) = w.downcast_ref::<gtk::Button>() {
            let label = button.label().unwrap_or_default().to_string();
            if button.uses_underline() && !label.is_empty() {
                let want = label.replace('_', "");
                if a11y::label_of(button).as_deref() != Some(want.as_str()) {
                    missing.push((label, a11y::label_of(button)));
                }
            }
        }
    });
    assert!(missing.is_empty(), "{missing:?}");
    let cancel = window.progress_view().cancel_button();
    window.progress_view().set_cancelling();
    assert_eq!(
        a11y::label_of(&cancel).as_deref(),
        cancel.label().map(|l| l.replace('_', "")).as_deref()
    );
}

/// Finding: nothing announced a new phase or the verdict. A status line (role `status`)
/// on the running page names each new phase; on the results page it gives the verdict.
fn phase_changes_and_the_verdict_are_announced(app: &Application) {
    let (window, _dir, _) = run_small(app);
    let said = window.results_view().announcement();
    assert!(
        said.contains("PASS") || said.contains("FAIL"),
        "announced {said:?}"
    );
    let view = window.progress_view();
    view.reset("Disk image");
    view.update(&progress("seq-read", Rw::Read, 2, 0.1));
    assert_eq!(view.announcement(), "Sequential read, 3 of 5");
}

/// Finding: result rows were named by their title only; the value and the verdict were not in
/// their name or description. Each row's description says its value and, when graded, its
/// verdict (the badge's text).
fn result_rows_say_their_value_and_verdict(app: &Application) {
    let (window, _dir, _) = run_small(app);
    let mut checked = 0;
    let mut wrong = Vec::new();
    walk(window.results_view().upcast_ref(), &mut |w| {
        let Some(row) = w.downcast_ref::<adw::ActionRow>() else {
            return;
        };
        let subtitle = row.subtitle().map(|s| s.to_string()).unwrap_or_default();
        if subtitle.is_empty() {
            return;
        }
        let mut badge = None;
        walk(row.upcast_ref(), &mut |b| {
            if let Some(b) = b.downcast_ref::<agnostics::widgets::Badge>() {
                badge = Some(b.text());
            }
        });
        let description = a11y::description_of(row).unwrap_or_default();
        checked += 1;
        let ok = description.contains(&subtitle)
            && badge
                .as_ref()
                .is_none_or(|b| description.contains(b.as_str()));
        if !ok {
            wrong.push((row.title().to_string(), description, badge));
        }
    });
    assert!(checked >= 3, "{checked} rows with a value");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Finding: the chart had no axes, scale or units. The value axis has round, distinct, short
/// ticks in MB/s, GB/s or IOPS whatever the figure, from 0.5 MB/s to 20 GB/s.
fn chart_has_labelled_axes_from_half_a_megabyte_to_20_gigabytes(app: &Application) {
    use agnostics::widgets::chart::value_axis;
    let _window = new_window(app);
    let cases: &[(f64, bool, &str)] = &[
        (0.5e6, false, "MB/s"),
        (3.2e6, false, "MB/s"),
        (45e6, false, "MB/s"),
        (420e6, false, "MB/s"),
        (1.9e9, false, "GB/s"),
        (20e9, false, "GB/s"),
        (35.0, true, "IOPS"),
        (1500.0, true, "IOPS"),
        (62_000.0, true, "IOPS"),
    ];
    for &(highest, random, unit) in cases {
        let axis = value_axis(highest, random);
        assert_eq!(axis.unit, unit, "{highest}");
        let labels = axis.labels();
        assert!((3..=7).contains(&labels.len()), "{highest}: {labels:?}");
        let mut distinct = labels.clone();
        distinct.dedup();
        assert_eq!(distinct, labels, "{highest}: ticks repeat");
        assert!(
            labels.iter().all(|l| l.chars().count() <= 5),
            "{highest}: {labels:?}"
        );
        assert_eq!(labels[0], "0");
        assert!(
            axis.top * axis.divisor >= highest,
            "{highest}: top {}",
            axis.top
        );
        assert!(
            axis.top * axis.divisor <= highest * 3.0,
            "{highest}: top {}",
            axis.top
        );
    }
    let chart = agnostics::widgets::Chart::new();
    let samples: Vec<_> = (1..=4)
        .map(|i| agnostics_core::engine::Sample {
            t_s: f64::from(i),
            bw_bytes: 40e6,
            iops: 40.0,
        })
        .collect();
    chart.set_samples("Sequential write", false, &samples, Some(10e6), Some(40e6));
    assert_eq!(chart.y_axis_name(), "MB/s");
    assert_eq!(chart.x_axis_name(), "Seconds");
    assert!(
        chart.description().contains("MB/s"),
        "{}",
        chart.description()
    );
}

/// Finding: an ungraded phase had no reference line and a phase shorter than a second an
/// empty box. An ungraded phase shows its average as the line; a phase without per-second
/// figures shows its average as one bar.
fn chart_shows_a_reference_and_a_short_phase(app: &Application) {
    let _window = new_window(app);
    let chart = agnostics::widgets::Chart::new();
    let samples: Vec<_> = (1..=3)
        .map(|i| agnostics_core::engine::Sample {
            t_s: f64::from(i),
            bw_bytes: 30e6 * f64::from(i),
            iops: 30.0,
        })
        .collect();
    chart.set_samples("Sequential read", false, &samples, None, Some(60e6));
    assert_eq!(
        chart.reference(),
        Some((60e6, false)),
        "the average, not a target"
    );
    assert!(
        chart.description().contains("average"),
        "{}",
        chart.description()
    );
    chart.set_samples("Sequential write", false, &samples, Some(10e6), Some(60e6));
    assert_eq!(chart.reference(), Some((10e6, true)), "the A1 target");
    chart.set_samples("Preparing the test file", false, &[], None, Some(500e6));
    assert_eq!(chart.len(), 1, "the average as one bar");
    assert!(
        chart.description().contains("500"),
        "{}",
        chart.description()
    );
}

/// With `AGNOSTICS_SCREENSHOTS=DIR`: the running page (a sequential phase with its axes and
/// average line, and a random one with the A1 target), the "Stopping…" page, and the results
/// page with a toast, at 800×480, as `DIR/run-{seq,rand,stopping,results-toast}-LANG.png`
/// (`LANG` from `LANGUAGE`, `en` without it).
fn renders_run_screenshots(app: &Application) {
    let out = std::path::PathBuf::from(std::env::var_os("AGNOSTICS_SCREENSHOTS").unwrap());
    let lang = std::env::var("LANGUAGE")
        .ok()
        .and_then(|l| l.split([':', '_', '.']).next().map(str::to_owned))
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "en".to_owned());
    let png = |name: &str| out.join(format!("run-{name}-{lang}.png"));
    let dir = scratch_dir();
    let profile = profile_file(
        dir.path(),
        "shots.fio",
        "[global]\nioengine=libaio\ndirect=1\niodepth=1\nsize=1g\n\n\
         [seq-read]\nrw=read\nbs=4k\nruntime=20\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=20\nstonewall\n",
    );
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, dir.path(), Some(profile));
    window.run_button().activate();
    let view = window.progress_view();
    wait_until("five seconds of the first phase", || {
        view.chart().len() >= 5
    });
    save_png(&window, &png("seq"));
    wait_until("five seconds of the random phase", || {
        window.test_run().progress().index == 1 && view.chart().len() >= 5
    });
    save_png(&window, &png("rand"));
    // A cancel on a fast disk is over before a frame is drawn: the page as it is while the
    // engine drains, then the cancel itself.
    view.set_cancelling();
    save_png(&window, &png("stopping"));
    window.cancel_test();
    wait_until("the ready page", || {
        window.test_run().state() == RunState::Ready
    });
    drop(_stop);

    let (window, _dir2, _) = run_small(app);
    WidgetExt::activate_action(&window, agnostics::window::Action::CopyResults.name(), None).ok();
    wait_until("a toast", || !toast_widgets(&window).is_empty());
    iterate_briefly();
    iterate_briefly();
    save_png(&window, &png("results-toast"));
}

fn cancel_in_the_middle_removes_the_test_file_and_returns_to_ready(app: &Application) {
    let dir = scratch_dir();
    let profile = profile_file(dir.path(), "long.fio", LONG_PROFILE);
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, dir.path(), Some(profile));

    window.run_button().activate();
    let progress = window.progress_view();
    wait_until("a live figure", || progress.figure_text().ends_with("IOPS"));
    assert_eq!(window.page(), Page::Running);
    assert_eq!(progress.phase_text(), "Random 4K write, 1 of 1");
    assert!(
        !window.run_button().is_sensitive(),
        "no second test meanwhile"
    );
    assert_eq!(
        window.default_widget(),
        None,
        "Enter anywhere does not cancel"
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
    assert_eq!(window.page(), Page::Ready);
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
    let _stop = StopOnDrop(window.clone());
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
    assert_eq!(dialog.heading().as_deref(), Some("Stop the Test?"));
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

fn refused_tmpfs_target_shows_the_error_dialog(app: &Application) -> agnostics_testkit::Ran {
    let Some(tmpfs) = TmpfsDir::new() else {
        return agnostics_testkit::skip("needs /dev/shm on tmpfs, or root to mount one");
    };
    let window = new_window(app);
    let _stop = StopOnDrop(window.clone());
    aim(&window, tmpfs.path(), None);
    // Run is off for a refused drive (tests/ui_ready.rs); `--run` still starts the test.
    window.start_test();
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
    assert_eq!(window.page(), Page::Ready);
    assert_eq!(
        window
            .last_report()
            .and_then(|r| r.error)
            .map(|e| e.kind.as_str()),
        Some("memory")
    );
    assert!(test_files(tmpfs.path()).is_empty());
    dialog.response("close");
    iterate_briefly();
    assert!(window.open_dialog().is_none());
    assert!(
        !window.run_button().is_sensitive(),
        "Run stays off until another drive is chosen"
    );
    Ok(())
}
