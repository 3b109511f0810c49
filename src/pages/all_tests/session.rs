//! The **All Tests** page's behaviour: finding the test scripts, a session of **Run Tests**
//! (the [`TestsSession`]: the built-in SD card test first, through the window's own SD card
//! flow (the `start-sd-test` signal), then the selected scripts on a
//! [`Worker`](crate::model::worker::Worker)'s thread ([`scripts_worker`]), all into one
//! `rpdiags.txt`), **Stop**, **Reset** and **Show Log**.

use std::path::PathBuf;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::Report;
use agnostics_core::scripts::{self, RunOptions};
use agnostics_core::verdict::Verdict;
use gtk::{gio, glib};

use super::TestsView;
use crate::model::rpdiags;
use crate::model::scripts_worker;
use crate::model::tests_session::{Begun, TestsSession};

impl TestsView {
    /// Where test scripts are looked for besides `agnostics/` under `$XDG_DATA_DIRS`
    /// (`--dir`); lists the tests again.
    pub fn set_script_dirs(&self, dirs: Vec<PathBuf>) {
        self.imp().session.set_script_dirs(dirs);
        self.load_scripts();
    }

    /// Finds the test scripts (on a helper thread) and lists them after the SD card test
    /// (unless a session runs by then).
    pub fn load_scripts(&self) {
        let session = self.session();
        let generation = session.begin_listing();
        let dirs = scripts::script_dirs(&session.script_dirs());
        let finding = gio::spawn_blocking(move || scripts::discover(&dirs));
        glib::spawn_future_local(async move {
            let found = finding.await.unwrap_or_default();
            if session.is_busy() {
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
            session.set_scripts(generation, found.tests);
        });
    }

    /// **Run Tests**: the selected tests, in list order; the SD card test (if selected) by
    /// the `start-sd-test` signal, the scripts after it.
    pub fn run_tests(&self) {
        let session = self.session();
        let sd = match session.begin() {
            Begun::Started { sd } => sd,
            Begun::NothingChosen => {
                self.emit_toast(&gettext("Choose at least one test"));
                return;
            }
            Begun::Busy => return,
        };
        if sd && self.emit_by_name::<bool>("start-sd-test", &[]) {
            return;
        }
        if sd {
            // It could not start (the reason is shown); the scripts still run.
            session.sd_ended(Some(Verdict::Error));
        }
        self.start_scripts(None);
    }

    /// **Stop**: the running test is to be aborted, the rest do not run; returns whether a
    /// session was running (the window then stops the SD card test).
    pub fn cancel_tests(&self) -> bool {
        self.imp().session.cancel()
    }

    /// **Reset**: no results, every test selected.
    pub fn reset_tests(&self) {
        self.imp().session.reset();
    }

    /// The SD card test that ran has ended with `report`: part of a session, its result goes
    /// to its row and the session goes on with the scripts (which write the log), and this
    /// returns true; alone (**Run SD Card Test**), false.
    pub fn sd_test_ended(&self, report: Report) -> bool {
        let cancelled = report.error.as_ref().is_some_and(|e| e.is_cancelled());
        let verdict = (!cancelled).then_some(report.verdict);
        if self.imp().session.sd_ended(verdict) {
            self.start_scripts(Some(report));
            true
        } else {
            false
        }
    }

    /// Starts the session's scripts (maybe none) after the SD card test's `sd` report.
    fn start_scripts(&self, sd: Option<Report>) {
        let session = self.session();
        let log = match rpdiags::path() {
            Ok(path) => path,
            Err(e) => {
                self.emit_toast(&log_error(&e));
                session.finish(None);
                return;
            }
        };
        let tests = session.scripts();
        let worker = match scripts_worker::spawn(log, sd, tests, RunOptions::default()) {
            Ok(worker) => worker,
            Err(e) => {
                self.emit_by_name::<()>(
                    "message",
                    &[
                        &gettext("The tests could not start"),
                        &fill(
                            &gettext("{error}\n\nClose some programs and try again."),
                            &[("error", &e)],
                        ),
                    ],
                );
                session.finish(None);
                return;
            }
        };
        session.run_scripts(worker);
    }

    /// What stopped the session that ended, if anything, as a toast.
    pub fn tell_session_ended(&self, session: &TestsSession) {
        if let Some(message) = session.error() {
            self.emit_toast(&fill(
                &gettext("The tests could not finish: {error}"),
                &[("error", &message)],
            ));
        }
    }

    /// **Show Log**: opens `rpdiags.txt` in a window of its own.
    pub fn show_log(&self) {
        let path = match rpdiags::path() {
            Ok(path) => path,
            Err(e) => {
                self.emit_toast(&log_error(&e));
                return;
            }
        };
        if !path.is_file() {
            self.emit_toast(&gettext("There is no log yet: run a test first"));
            return;
        }
        let Some(window) = self.root().and_downcast::<gtk::Window>() else {
            return;
        };
        match crate::widgets::log_view::read_log(&path) {
            Ok(text) => crate::widgets::log_view::log_window(&window, &path, &text).present(),
            Err(e) => self.emit_toast(&fill(
                &gettext("The log could not be opened: {error}"),
                &[("error", &e)],
            )),
        }
    }

    /// Calls `f` when the session's SD card test is to start; `f` returns whether it started.
    pub fn connect_start_sd_test<F: Fn(&TestsView) -> bool + 'static>(
        &self,
        f: F,
    ) -> glib::SignalHandlerId {
        self.connect_local("start-sd-test", false, move |values| {
            let view = values.first().and_then(|v| v.get::<TestsView>().ok())?;
            Some(f(&view).to_value())
        })
    }

    /// Calls `f` with each short message the page has for the bottom of the window.
    pub fn connect_toast<F: Fn(&TestsView, &str) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("toast", false, move |values| {
            let view = values.first().and_then(|v| v.get::<TestsView>().ok());
            let text = values.get(1).and_then(|v| v.get::<String>().ok());
            if let (Some(view), Some(text)) = (view, text) {
                f(&view, &text);
            }
            None
        })
    }

    /// Calls `f` with the heading and body of each dialog the page has to show.
    pub fn connect_message<F: Fn(&TestsView, &str, &str) + 'static>(
        &self,
        f: F,
    ) -> glib::SignalHandlerId {
        self.connect_local("message", false, move |values| {
            let view = values.first().and_then(|v| v.get::<TestsView>().ok());
            let heading = values.get(1).and_then(|v| v.get::<String>().ok());
            let body = values.get(2).and_then(|v| v.get::<String>().ok());
            if let (Some(view), Some(heading), Some(body)) = (view, heading, body) {
                f(&view, &heading, &body);
            }
            None
        })
    }

    fn emit_toast(&self, text: &str) {
        self.emit_by_name::<()>("toast", &[&text.to_string()]);
    }
}

/// "The log could not be written: …" for people.
pub fn log_error(error: &dyn std::fmt::Display) -> String {
    fill(
        &gettext("The log could not be written: {error}"),
        &[("error", &error)],
    )
}
