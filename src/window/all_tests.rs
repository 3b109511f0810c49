//! The window's side of the **All Tests** page: its actions (**Run Tests**, **Stop**,
//! **Reset**), the session's SD card test run by the window's own SD card flow, suspend and
//! logout inhibited while the session runs, and the session's end.

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::gettext;
use agnostics_core::report::Report;
use gtk::glib;

use super::Window;
use crate::model::rpdiags;
use crate::model::tests_session::SessionState;
use crate::pages::all_tests::log_error;

impl Window {
    /// The page's signals answered; the session's start and end followed.
    pub(super) fn setup_tests(&self) {
        let view = &self.imp().tests_view;
        view.connect_start_sd_test(glib::clone!(
            #[weak(rename_to = win)]
            self,
            #[upgrade_or]
            false,
            move |_| {
                win.start_test();
                win.imp().test_run.is_busy()
            }
        ));
        view.connect_toast(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_, text| win.toast(text)
        ));
        view.connect_message(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_, heading, body| win.show_message(heading, body)
        ));
        view.session().connect_state_notify(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |session| match session.state() {
                SessionState::Running => {
                    win.inhibit(&gettext("Diagnostics tests are running"));
                    win.sync_actions();
                }
                SessionState::Finished => win.session_ended(),
                SessionState::Idle | SessionState::Stopping => {}
            }
        ));
    }

    /// True while a **Run Tests** session runs.
    pub(crate) fn is_running_tests(&self) -> bool {
        self.imp().tests_view.session().is_busy()
    }

    /// **Run Tests** (the `win.run-tests` action): the selected tests, in list order.
    pub(super) fn run_tests(&self) {
        if !self.is_busy() {
            self.imp().tests_view.run_tests();
        }
    }

    /// **Stop** (the `win.cancel-tests` action): the running test is aborted, the rest do not
    /// run.
    pub(super) fn cancel_tests(&self) {
        if self.imp().tests_view.cancel_tests() {
            self.cancel_test();
        }
    }

    /// **Reset** (the `win.reset-tests` action): no results, every test selected.
    pub(super) fn reset_tests(&self) {
        if !self.is_busy() {
            self.imp().tests_view.reset_tests();
        }
    }

    /// The SD card test that ran has ended with `report`: part of a session, the session
    /// goes on with the scripts (which write the log); alone (**Run SD Card Test**), its
    /// result is the whole log.
    pub(super) fn sd_test_ended(&self, report: Report) {
        if self.imp().tests_view.sd_test_ended(report.clone()) {
            if self.is_running_tests() {
                self.inhibit(&gettext("Diagnostics tests are running"));
            }
        } else if let Err(e) = rpdiags::write_sd_test(&report) {
            self.toast(&log_error(&e));
        }
    }

    /// The session is over: what stopped it, if anything, is said; suspend is allowed again
    /// and a close asked for while it ran happens now.
    fn session_ended(&self) {
        let imp = self.imp();
        imp.tests_view.tell_session_ended(&imp.tests_view.session());
        if !imp.test_run.is_busy() {
            self.uninhibit();
        }
        self.sync_actions();
        self.sync_focus();
        if imp.close_when_stopped.get() && !self.is_busy() {
            self.close();
        }
    }
}
