//! The window following its state: the page shown, the header's back button, the focused
//! (default) button, which actions are enabled, the test run's state turned into pages,
//! toasts and dialogs, and suspend and logout inhibited while a test runs (the capacity
//! check's own states are followed in [`super::capacity`]).

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::gettext;

use super::{Action, Page, Tab, Window};
use crate::model::capacity_check::CheckState;
use crate::model::test_run::RunState;

impl Window {
    pub(crate) fn show_page(&self, page: Page) {
        self.imp().stack.set_visible_child_name(page.name());
        self.sync_header();
        // Actions first: the page's main button is insensitive (and refuses focus) until its
        // action is enabled.
        self.sync_actions();
        self.sync_focus();
    }

    /// The back button shows on the SD Card page's results.
    pub(super) fn sync_header(&self) {
        let results = self.page() == Page::Results
            || (self.page() == Page::Capacity && !self.is_checking_capacity());
        self.imp()
            .back_button
            .set_visible(results && self.tab() == Tab::SdCard);
    }

    /// The page shown gets the focus on a control that writes nothing (the drive chooser, the
    /// first test, **Copy Results**; **Cancel** or **Stop** while a test runs), and there is no
    /// default widget: a stray Return or Space never starts a test. A test starts only when
    /// **Run** is chosen: its button, its access key or Ctrl+R.
    pub(super) fn sync_focus(&self) {
        let imp = self.imp();
        self.set_default_widget(None::<&gtk::Widget>);
        match (self.tab(), self.page()) {
            (Tab::History, _) => {
                imp.history_view.focus_default();
            }
            (Tab::AllTests, _) if self.is_running_tests() => {
                imp.tests_view.stop_button().grab_focus();
            }
            (Tab::AllTests, _) => imp.tests_view.focus_default(),
            (Tab::SdCard, Page::Running) => {
                imp.progress_view.cancel_button().grab_focus();
            }
            // Copy Results writes nothing to the drive: Space or Return there does no harm.
            (Tab::SdCard, Page::Results) => {
                imp.results_view.copy_button().grab_focus();
            }
            // Cancel while the check runs, Done after: neither writes anything.
            (Tab::SdCard, Page::Capacity) if self.is_checking_capacity() => {
                imp.capacity_view.cancel_button().grab_focus();
            }
            (Tab::SdCard, Page::Capacity) => {
                imp.capacity_view.done_button().grab_focus();
            }
            (Tab::SdCard, Page::Ready) => imp.ready_view.focus_default(),
        }
    }

    pub(super) fn sync_actions(&self) {
        let imp = self.imp();
        let busy = self.is_busy();
        let page = self.page();
        let listed = imp.ready_view.drives_loaded();
        self.action_set_enabled(Action::Run.name(), !busy && imp.ready_view.can_run());
        self.action_set_enabled(
            Action::RunStandard.name(),
            !busy && imp.ready_view.can_run(),
        );
        // No room for the test's file does not stop a capacity check; a folder in memory or
        // read-only does (the page says why).
        self.action_set_enabled(
            Action::CheckCapacity.name(),
            !busy && imp.ready_view.can_check_capacity(),
        );
        self.action_set_enabled(
            Action::CancelCapacity.name(),
            matches!(
                imp.capacity_check.state(),
                CheckState::Preparing | CheckState::Asking | CheckState::Checking
            ),
        );
        self.action_set_enabled(Action::RunTests.name(), !busy && listed);
        self.action_set_enabled(Action::CancelTests.name(), self.is_running_tests());
        self.action_set_enabled(Action::ResetTests.name(), !busy);
        self.action_set_enabled(
            Action::Cancel.name(),
            imp.test_run.state() == RunState::Running,
        );
        let results = imp.test_run.report().is_some_and(|r| r.error.is_none());
        self.action_set_enabled(Action::CopyResults.name(), results);
        // On History, Save Report saves the stored run or capacity check shown there.
        let stored = self.tab() == Tab::History
            && (imp.history_view.shows_a_run() || imp.history_view.shows_a_check());
        self.action_set_enabled(
            Action::SaveReport.name(),
            if self.tab() == Tab::History {
                stored
            } else {
                results
            },
        );
        self.action_set_enabled(
            Action::Back.name(),
            !busy && matches!(page, Page::Results | Page::Capacity),
        );
        self.action_set_enabled(Action::ChooseFolder.name(), !busy && listed);
    }

    pub(super) fn sync_state(&self) {
        let imp = self.imp();
        let run = &imp.test_run;
        match run.state() {
            RunState::Ready => {
                self.uninhibit();
                if run.was_cancelled() {
                    self.toast(&gettext("Test cancelled; its test file was removed"));
                }
                self.show_page(Page::Ready);
            }
            RunState::Running => {
                self.inhibit(&gettext("An SD card test is running"));
                self.show_page(Page::Running);
            }
            RunState::Cancelling => {
                imp.progress_view.set_cancelling();
                self.sync_actions();
            }
            RunState::Finished => {
                self.uninhibit();
                if let Some(report) = run.report() {
                    imp.results_view.show_report(&report);
                }
                self.show_page(Page::Results);
                imp.results_view.clear_selection();
            }
            RunState::Failed => {
                self.uninhibit();
                self.show_page(Page::Ready);
                if let Some(report) = run.report() {
                    self.show_error(&report);
                }
            }
        }
        if !run.is_busy() && imp.sd_log_pending.take() {
            if let Some(report) = run.report() {
                self.sd_test_ended(report);
            }
        }
        if !self.is_busy() && imp.close_when_stopped.get() {
            self.close();
        }
    }

    /// True while the SD card test, a **Run Tests** session or a capacity check runs.
    pub fn is_busy(&self) -> bool {
        self.imp().test_run.is_busy() || self.is_running_tests() || self.is_checking_capacity()
    }

    /// Inhibits suspend and logout, saying `reason` (once; a second call keeps the first).
    pub(super) fn inhibit(&self, reason: &str) {
        let imp = self.imp();
        if imp.inhibit_cookie.get() != 0 {
            return;
        }
        if let Some(app) = self.application() {
            let cookie = app.inhibit(
                Some(self),
                gtk::ApplicationInhibitFlags::SUSPEND | gtk::ApplicationInhibitFlags::LOGOUT,
                Some(reason),
            );
            imp.inhibit_cookie.set(cookie);
        }
    }

    pub(super) fn uninhibit(&self) {
        let cookie = self.imp().inhibit_cookie.replace(0);
        if cookie != 0 {
            if let Some(app) = self.application() {
                app.uninhibit(cookie);
            }
        }
    }
}
