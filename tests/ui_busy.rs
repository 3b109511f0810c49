//! UI tests of a drive another program is testing, on a real display (run under `xvfb-run -a
//! cargo test -p agnostics --test ui_busy`): with another process holding the drive's lock
//! (as `agnostics-cli run` or a capacity check does), **Run** and Ctrl+R ask first, naming the
//! program, and start nothing; **Don't Start** leaves the ready page as it was; **Wait, Then
//! Start** waits, with **Cancel**, and starts the test by itself once the drive is free. A
//! drive unmounted after it was listed is refused with why, before anything is written in the
//! folder it leaves behind.
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders the question and the wait over the ready page at
//! 800×480 and 360×480 to `DIR/busy{,-waiting}{,-360}-LANG.png`, LANG from `LANGUAGE`.

#[path = "ui_support/mod.rs"]
mod support;
// Its picture of a window with a dialog over it.
#[allow(dead_code)]
#[path = "ui_capacity/fixture.rs"]
mod fixture;

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::window::Page;
use agnostics::{Application, Window};
use agnostics_core::report::ErrorKind;
use agnostics_testkit::{LockHolder, LoopFs, Ran};

use support::*;

fn main() {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    // This process's own locks: other tests on this disk are not told of it, nor it of them.
    std::env::set_var(
        "AGNOSTICS_LOCK_DIR",
        agnostics_testkit::private_lock_dir(scratch.path()),
    );
    let mut tests = crate::ui_tests![
        a_busy_drive_is_told_before_the_test_and_nothing_starts,
        waiting_starts_the_test_once_the_drive_is_free,
        waiting_can_be_cancelled,
        a_drive_unmounted_after_it_was_listed_is_refused_before_anything_is_written,
    ];
    if std::env::var_os("AGNOSTICS_SCREENSHOTS").is_some() {
        tests.extend(crate::ui_tests![renders_busy_screenshots]);
    }
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(scratch);
    conclusion.exit()
}

/// A loop-mounted ext4, a window aimed at it with the small profile, and another process
/// holding the drive's lock.
struct Scene {
    window: Window,
    holder: Option<LockHolder>,
    fs: LoopFs,
    _profiles: tempfile::TempDir,
}

impl Scene {
    fn new(app: &Application) -> Scene {
        let fs = LoopFs::new(64);
        let lock = agnostics_core::drive_lock::default_dir()
            .join(format!("agnostics-{}.lock", fs.maj_min().replace(':', "_")));
        let holder = Some(LockHolder::spawn(&lock));
        let profiles = scratch_dir();
        let profile = profile_file(profiles.path(), "small.fio", SMALL_PROFILE);
        let window = new_window(app);
        aim(&window, &fs.mount, Some(profile));
        wait_until("the drive's checks", || {
            window.run_button().is_sensitive() && window.ready_problem().is_none()
        });
        Scene {
            window,
            holder,
            fs,
            _profiles: profiles,
        }
    }

    fn holder_pid(&self) -> u32 {
        self.holder.as_ref().expect("held").pid()
    }

    /// The question shown after Ctrl+R, once it is up.
    fn ask(&self) -> adw::MessageDialog {
        gtk::prelude::WidgetExt::activate_action(
            &self.window,
            agnostics::window::Action::Run.name(),
            None,
        )
        .expect("win.run");
        // The question comes at once or never (the test would have started instead): a
        // minute is ample, and the test fails instead of waiting out its patience.
        let asked = try_wait_until(std::time::Duration::from_secs(60), || {
            self.window.open_dialog().is_some()
        });
        assert!(
            asked,
            "no question before the test; a test runs: {}",
            self.window.test_run().is_busy()
        );
        self.window.open_dialog().unwrap()
    }

    /// Nothing was started: no test runs, the ready page stays, no test file on the drive.
    fn assert_nothing_started(&self, when: &str) {
        assert!(!self.window.test_run().is_busy(), "{when}: a test runs");
        assert_eq!(self.window.page(), Page::Ready, "{when}");
        assert!(self.window.last_report().is_none(), "{when}");
        let files: Vec<String> = std::fs::read_dir(&self.fs.mount)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "lost+found")
            .collect();
        assert!(files.is_empty(), "{when}: {files:?}");
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        if let Some(dialog) = self.window.open_dialog() {
            dialog.response("cancel");
        }
        let run = self.window.test_run();
        run.cancel();
        let _ = try_wait_until(PATIENCE, || !run.is_busy());
    }
}

/// Finding: with `agnostics-cli` testing the card, Ctrl+R started a second test in silence
/// and both were spoiled. Now the window asks first, names the program that holds the drive,
/// and **Don't Start** (or Escape) starts nothing; the **Run** button asks the same.
fn a_busy_drive_is_told_before_the_test_and_nothing_starts(app: &Application) -> Ran {
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let scene = Scene::new(app);
    let dialog = scene.ask();
    assert_eq!(dialog.heading().as_deref(), Some("The Drive Is in Use"));
    let body = dialog.body().to_string();
    let named = format!(
        "Another test or capacity check is using this drive ({}) now: sleep, process {}.",
        scene.fs.loop_name(),
        scene.holder_pid()
    );
    assert!(body.starts_with(&named), "{body:?}");
    assert!(body.contains("neither would be graded"), "{body:?}");
    assert!(dialog.has_response("wait") && dialog.has_response("cancel"));
    assert_eq!(dialog.close_response(), "cancel");
    iterate_briefly();
    scene.assert_nothing_started("while asking");
    dialog.response("cancel");
    iterate_briefly();
    assert!(!scene.window.waiting_for_drive());
    scene.assert_nothing_started("after Don't Start");

    // The Run button asks too.
    scene.window.run_button().emit_clicked();
    wait_until("the question from Run", || {
        scene.window.open_dialog().is_some()
    });
    let dialog = scene.window.open_dialog().unwrap();
    assert_eq!(dialog.heading().as_deref(), Some("The Drive Is in Use"));
    dialog.response("cancel");
    iterate_briefly();
    scene.assert_nothing_started("after the second Don't Start");
    Ok(())
}

/// **Wait, Then Start**: nothing runs while the other program holds the drive; once it lets
/// go, the test starts by itself and runs to its results, graded and not shared.
fn waiting_starts_the_test_once_the_drive_is_free(app: &Application) -> Ran {
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let mut scene = Scene::new(app);
    scene.ask().response("wait");
    wait_until("the wait", || {
        scene
            .window
            .open_dialog()
            .is_some_and(|d| d.heading().as_deref() == Some("Waiting for the Drive"))
    });
    assert!(scene.window.waiting_for_drive());
    // Several looks at the drive, none of which starts anything.
    let _ = try_wait_until(std::time::Duration::from_millis(1500), || false);
    scene.assert_nothing_started("while waiting");
    drop(scene.holder.take());
    wait_until("the test", || scene.window.test_run().is_busy());
    assert!(!scene.window.waiting_for_drive());
    assert!(
        scene.window.open_dialog().is_none(),
        "the waiting question goes when the test starts"
    );
    wait_until("the results", || {
        scene.window.page() == Page::Results || scene.window.open_dialog().is_some()
    });
    let report = scene.window.last_report().expect("a report");
    assert!(
        report
            .error
            .as_ref()
            .is_none_or(|e| e.kind != ErrorKind::SharedDrive),
        "{:?}",
        report.error
    );
    Ok(())
}

/// **Cancel** while waiting: nothing starts, even when the drive is free afterwards.
fn waiting_can_be_cancelled(app: &Application) -> Ran {
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let mut scene = Scene::new(app);
    scene.ask().response("wait");
    wait_until("the wait", || scene.window.waiting_for_drive());
    let waiting = scene.window.open_dialog().expect("the waiting question");
    assert_eq!(waiting.heading().as_deref(), Some("Waiting for the Drive"));
    waiting.response("cancel");
    iterate_briefly();
    assert!(!scene.window.waiting_for_drive());
    drop(scene.holder.take());
    let _ = try_wait_until(std::time::Duration::from_millis(1500), || false);
    scene.assert_nothing_started("after Cancel");
    Ok(())
}

/// Finding: a drive removed while the app ran stayed offered with Run on, although its folder
/// was now an empty directory on the root disk: Run would have written there. Now Run
/// refuses, says what happened and that nothing was written, and lists the drives again.
fn a_drive_unmounted_after_it_was_listed_is_refused_before_anything_is_written(
    app: &Application,
) -> Ran {
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let mut scene = Scene::new(app);
    drop(scene.holder.take());
    let unmounted = std::process::Command::new("umount")
        .arg(&scene.fs.mount)
        .status()
        .is_ok_and(|s| s.success());
    assert!(unmounted, "umount {}", scene.fs.mount.display());
    assert!(scene.fs.mount.is_dir(), "the mount point stays as a folder");
    let dialog = scene.ask();
    assert_eq!(dialog.heading().as_deref(), Some("The Drive Changed"));
    let body = dialog.body().to_string();
    assert!(
        body.contains(&format!(
            "on the drive it was on ({})",
            scene.fs.loop_name()
        )),
        "{body:?}"
    );
    assert!(body.contains("Nothing was written."), "{body:?}");
    iterate_briefly();
    scene.assert_nothing_started("after the refusal");
    dialog.response("close");
    wait_until("the drives listed again", || scene.window.drives_loaded());
    Ok(())
}

/// With `AGNOSTICS_SCREENSHOTS`: the question on a busy drive, then the wait, over the ready
/// page, at both widths.
fn renders_busy_screenshots(app: &Application) -> Ran {
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let (lang, _catalogue) = screenshot_language();
    let scene = Scene::new(app);
    let dialog = scene.ask();
    shoot_both_widths(&scene.window, "busy", &lang, |png| {
        fixture::save_with_dialog(&scene.window, &dialog, png)
    });
    dialog.response("wait");
    wait_until("the wait", || scene.window.waiting_for_drive());
    wait_until("its dialog", || {
        scene.window.open_dialog().is_some_and(|d| d != dialog)
    });
    let waiting = scene.window.open_dialog().unwrap();
    shoot_both_widths(&scene.window, "busy-waiting", &lang, |png| {
        fixture::save_with_dialog(&scene.window, &waiting, png)
    });
    Ok(())
}
