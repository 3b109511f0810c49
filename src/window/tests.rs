//! The **All Tests** page's behaviour: finding the test scripts, a session of **Run Tests**
//! (the built-in SD card test first, through the window's own SD card flow, then the selected
//! scripts on a [`Worker`]'s thread ([`scripts_worker`]), all into one `rpdiags.txt`), **Stop**,
//! **Reset** and **Show Log**.

use std::path::PathBuf;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::Report;
use agnostics_core::scripts::{self, RunOptions, ScriptTest};
use gtk::{gio, glib};

use super::Window;
use crate::rpdiags;
use crate::scripts_worker::{self, ScriptMessage};
use crate::worker::Worker;

/// One press of **Run Tests**, until its last test has ended and its log is written.
#[derive(Debug, Default)]
pub struct Session {
    /// The selected scripts with their positions in the list.
    scripts: Vec<(usize, ScriptTest)>,
    /// True while the built-in SD card test of this session runs.
    sd_pending: bool,
    /// Set by **Stop**: nothing after the running test runs.
    cancelled: bool,
    /// The scripts' thread, once started.
    worker: Option<Worker<ScriptMessage>>,
}

impl Window {
    /// Where test scripts are looked for besides `agnostics/` under `$XDG_DATA_DIRS`
    /// (`--dir`); lists the tests again. Ignored, with a toast, while tests run.
    pub fn set_script_dirs(&self, dirs: Vec<PathBuf>) {
        if self.is_busy() {
            self.toast(&gettext("A test is already running"));
            return;
        }
        self.imp().script_dirs.replace(dirs);
        self.load_scripts();
    }

    /// Finds the test scripts (on a helper thread) and lists them after the SD card test.
    pub(super) fn load_scripts(&self) {
        let imp = self.imp();
        imp.scripts_loaded.set(false);
        let generation = imp.scripts_generation.get() + 1;
        imp.scripts_generation.set(generation);
        let dirs = scripts::script_dirs(&imp.script_dirs.borrow());
        let finding = gio::spawn_blocking(move || scripts::discover(&dirs));
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = win)]
            self,
            async move {
                let found = finding.await.unwrap_or_default();
                let imp = win.imp();
                if imp.scripts_generation.get() != generation || win.is_busy() {
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
                imp.tests_view.set_scripts(found.tests);
                imp.scripts_loaded.set(true);
            }
        ));
    }

    /// True once the test scripts are listed.
    pub fn scripts_loaded(&self) -> bool {
        self.imp().scripts_loaded.get()
    }

    /// True while a **Run Tests** session runs.
    pub fn is_running_tests(&self) -> bool {
        self.imp().session.borrow().is_some()
    }

    /// **Run Tests** (the `win.run-tests` action): the selected tests, in list order.
    pub fn run_tests(&self) {
        let imp = self.imp();
        if self.is_busy() {
            return;
        }
        let view = imp.tests_view.get();
        let sd = view.sd_selected();
        let scripts = view.selected_scripts();
        if !sd && scripts.is_empty() {
            self.toast(&gettext("Choose at least one test"));
            return;
        }
        view.clear_results();
        view.set_running(true);
        imp.session.replace(Some(Session {
            scripts,
            sd_pending: sd,
            ..Session::default()
        }));
        self.inhibit(&gettext("Diagnostics tests are running"));
        self.sync_actions();
        if sd {
            view.set_sd_state(None);
            self.start_test();
            if !imp.test_run.is_busy() {
                // It could not start (the reason is shown); the scripts still run.
                if let Some(s) = imp.session.borrow_mut().as_mut() {
                    s.sd_pending = false;
                }
                view.set_sd_state(Some(Some(agnostics_core::verdict::Verdict::Error)));
                self.start_scripts(None);
            }
        } else {
            self.start_scripts(None);
        }
    }

    /// **Stop** (the `win.cancel-tests` action): the running test is aborted, the rest do not
    /// run.
    pub fn cancel_tests(&self) {
        let imp = self.imp();
        let mut session = imp.session.borrow_mut();
        let Some(s) = session.as_mut() else {
            return;
        };
        s.cancelled = true;
        if s.sd_pending {
            drop(session);
            self.cancel_test();
        } else if let Some(worker) = &s.worker {
            worker.cancel();
        }
    }

    /// **Reset** (the `win.reset-tests` action): no results, every test selected.
    pub fn reset_tests(&self) {
        if !self.is_busy() {
            self.imp().tests_view.reset();
        }
    }

    /// The SD card test that ran has ended with `report`: part of a session, its result
    /// goes to its row and the session goes on with the scripts (which write the log); alone
    /// (**Run SD card test**), its result is the whole log.
    pub(super) fn sd_test_ended(&self, report: Report) {
        let imp = self.imp();
        let cancelled = report.error.as_ref().is_some_and(|e| e.is_cancelled());
        let in_session = {
            let mut session = imp.session.borrow_mut();
            match session.as_mut().filter(|s| s.sd_pending) {
                Some(s) => {
                    s.sd_pending = false;
                    if cancelled || s.cancelled {
                        s.scripts.clear();
                    }
                    true
                }
                None => false,
            }
        };
        if in_session {
            let verdict = (!cancelled).then_some(report.verdict);
            imp.tests_view.set_sd_state(Some(verdict));
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
                self.end_session();
                return;
            }
        };
        let tests: Vec<ScriptTest> = imp
            .session
            .borrow()
            .iter()
            .flat_map(|s| s.scripts.iter().map(|(_, t)| t.clone()))
            .collect();
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
                self.end_session();
                return;
            }
        };
        let win = self.downgrade();
        worker.attach(move |message| {
            let Some(win) = win.upgrade() else {
                return std::ops::ControlFlow::Break(());
            };
            win.handle_script_message(message);
            std::ops::ControlFlow::Continue(())
        });
        if let Some(s) = imp.session.borrow_mut().as_mut() {
            s.worker = Some(worker);
        }
        self.inhibit(&gettext("Diagnostics tests are running"));
    }

    fn handle_script_message(&self, message: ScriptMessage) {
        let imp = self.imp();
        let row_of = |index: usize| {
            imp.session
                .borrow()
                .as_ref()
                .and_then(|s| s.scripts.get(index).map(|(row, _)| *row))
        };
        let view = imp.tests_view.get();
        match message {
            ScriptMessage::Started { index } => {
                if let Some(row) = row_of(index) {
                    view.set_script_running(row, false);
                }
            }
            ScriptMessage::Stopping { index, .. } => {
                if let Some(row) = row_of(index) {
                    view.set_script_running(row, true);
                }
            }
            ScriptMessage::Finished { index, result } => {
                if let Some(row) = row_of(index) {
                    view.set_script_result(row, &result);
                }
            }
            ScriptMessage::Done(outcome) => {
                if let Err(message) = outcome {
                    self.toast(&fill(
                        &gettext("The tests could not finish: {error}"),
                        &[("error", &message)],
                    ));
                }
                self.end_session();
            }
        }
    }

    fn end_session(&self) {
        let imp = self.imp();
        // The worker's thread has sent its last message: joining it is immediate.
        let session = imp.session.take();
        drop(session);
        imp.tests_view.set_running(false);
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
