//! The **All Tests** page's behaviour: finding the test scripts, a session of **Run Tests**
//! (the [`TestsSession`]: the built-in SD card test first, through the window's own SD card
//! flow, then the selected scripts on a [`Worker`](crate::model::worker::Worker)'s thread
//! ([`scripts_worker`](model::scripts_worker)), all into one `rpdiags.txt`), **Stop**, **Reset** and **Show Log**.

use std::path::PathBuf;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::Report;
use agnostics_core::scripts::{self, RunOptions};
use gtk::{gio, glib};

use super::Window;
use crate::model::rpdiags;
use crate::model::scripts_worker;
use crate::model::tests_session::{Begun, SessionState, TestsSession};

impl Window {
    /// Where test scripts are looked for besides `agnostics/` under `$XDG_DATA_DIRS`
    /// (`--dir`); lists the tests again. Ignored, with a toast, while tests run.
    pub fn set_script_dirs(&self, dirs: Vec<PathBuf>) {
        if self.is_busy() {
            self.toast(&gettext("A test is already running"));
            return;
        }
        self.imp().session.set_script_dirs(dirs);
        self.load_scripts();
    }

    /// Finds the test scripts (on a helper thread) and lists them after the SD card test.
    pub(super) fn load_scripts(&self) {
        let imp = self.imp();
        let generation = imp.session.begin_listing();
        let dirs = scripts::script_dirs(&imp.session.script_dirs());
        let finding = gio::spawn_blocking(move || scripts::discover(&dirs));
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = win)]
            self,
            async move {
                let found = finding.await.unwrap_or_default();
                if win.is_busy() {
                    return;
                }
                for skipped in &found.skipped {
                    glib::g_info!(
                        "agnostics",
                        "not listed: {}: {}",
                        skipped.file.display(),
                        skipped.message()
                    );
                }
                win.imp().session.set_scripts(generation, found.tests);
            }
        ));
    }

    /// The view follows the session's list and state; the window its end.
    pub(super) fn setup_tests(&self) {
        let imp = self.imp();
        imp.tests_view.set_session(&imp.session);
        imp.session.connect_state_notify(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |session| {
                if session.state() == SessionState::Finished {
                    win.session_ended(session);
                }
            }
        ));
    }

    /// True while a **Run Tests** session runs.
    pub fn is_running_tests(&self) -> bool {
        self.imp().session.is_busy()
    }

    /// **Run Tests** (the `win.run-tests` action): the selected tests, in list order.
    pub fn run_tests(&self) {
        let imp = self.imp();
        if self.is_busy() {
            return;
        }
        let sd = match imp.session.begin() {
            Begun::Started { sd } => sd,
            Begun::NothingChosen => {
                self.toast(&gettext("Choose at least one test"));
                return;
            }
            Begun::Busy => return,
        };
        self.inhibit(&gettext("Diagnostics tests are running"));
        self.sync_actions();
        if sd {
            self.start_test();
            if !imp.test_run.is_busy() {
                // It could not start (the reason is shown); the scripts still run.
                imp.session
                    .sd_ended(Some(agnostics_core::verdict::Verdict::Error));
                self.start_scripts(None);
            }
        } else {
            self.start_scripts(None);
        }
    }

    /// **Stop** (the `win.cancel-tests` action): the running test is aborted, the rest do not
    /// run.
    pub fn cancel_tests(&self) {
        if self.imp().session.cancel() {
            self.cancel_test();
        }
    }

    /// **Reset** (the `win.reset-tests` action): no results, every test selected.
    pub fn reset_tests(&self) {
        if !self.is_busy() {
            self.imp().session.reset();
        }
    }

    /// The SD card test that ran has ended with `report`: part of a session, its result
    /// goes to its row and the session goes on with the scripts (which write the log); alone
    /// (**Run SD Card Test**), its result is the whole log.
    pub(super) fn sd_test_ended(&self, report: Report) {
        let cancelled = report.error.as_ref().is_some_and(|e| e.is_cancelled());
        let verdict = (!cancelled).then_some(report.verdict);
        if self.imp().session.sd_ended(verdict) {
            self.start_scripts(Some(report));
        } else if let Err(e) = rpdiags::write_sd_test(&report) {
            self.toast(&log_error(&e));
        }
    }

    /// Starts the session's scripts (maybe none) after the SD card test's `sd` report.
    fn start_scripts(&self, sd: Option<Report>) {
        let imp = self.imp();
        let log = match rpdiags::path() {
            Ok(path) => path,
            Err(e) => {
                self.toast(&log_error(&e));
                imp.session.finish(None);
                return;
            }
        };
        let tests = imp.session.scripts();
        let worker = match scripts_worker::spawn(log, sd, tests, RunOptions::default()) {
            Ok(worker) => worker,
            Err(e) => {
                self.show_message(
                    &gettext("The tests could not start"),
                    &fill(
                        &gettext("{error}\n\nClose some programs and try again."),
                        &[("error", &e)],
                    ),
                );
                imp.session.finish(None);
                return;
            }
        };
        imp.session.run_scripts(worker);
        self.inhibit(&gettext("Diagnostics tests are running"));
    }

    /// The session is over: what stopped it, if anything, is said; suspend is allowed again
    /// and a close asked for while it ran happens now.
    fn session_ended(&self, session: &TestsSession) {
        let imp = self.imp();
        if let Some(message) = session.error() {
            self.toast(&fill(
                &gettext("The tests could not finish: {error}"),
                &[("error", &message)],
            ));
        }
        if !imp.test_run.is_busy() {
            self.uninhibit();
        }
        self.sync_actions();
        self.sync_focus();
        if imp.close_when_stopped.get() && !self.is_busy() {
            self.close();
        }
    }

    /// **Show Log** (the `win.show-log` action): opens `rpdiags.txt` with the desktop's
    /// default program for it.
    pub fn show_log(&self) {
        let path = match rpdiags::path() {
            Ok(path) => path,
            Err(e) => {
                self.toast(&log_error(&e));
                return;
            }
        };
        if !path.is_file() {
            self.toast(&gettext("There is no log yet: run a test first"));
            return;
        }
        match crate::widgets::log_view::read_log(&path) {
            Ok(text) => crate::widgets::log_view::log_window(self, &path, &text).present(),
            Err(e) => self.toast(&fill(
                &gettext("The log could not be opened: {error}"),
                &[("error", &e)],
            )),
        }
    }
}

/// "The log could not be written: …" for people.
fn log_error(error: &dyn std::fmt::Display) -> String {
    fill(
        &gettext("The log could not be written: {error}"),
        &[("error", &error)],
    )
}
