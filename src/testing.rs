//! What the UI tests reach into: the window's pages and state objects, its dialogs, and
//! switches the app itself never needs (the sysfs and history it reads, a page shown whatever
//! the test's state). Not the window's API: the app uses none of it.

use std::path::{Path, PathBuf};

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::history::trend::Trend;
use agnostics_core::profile::Profile;
use agnostics_core::report::Report;

use crate::model::capacity_check::CapacityCheck;
use crate::model::test_run::TestRun;
use crate::model::tests_session::TestsSession;
use crate::pages::{CapacityView, HistoryView, ProgressView, ReadyView, ResultsView, TestsView};
use crate::widgets::DriveRow;
use crate::window::{Page, Tab, Window};

/// The window as the UI tests see it (`use agnostics::testing::WindowProbe;`).
pub trait WindowProbe {
    /// Hides every toast shown.
    fn dismiss_toasts(&self);

    /// The titles of the toasts shown since the last [`WindowProbe::dismiss_toasts`].
    fn toast_titles(&self) -> Vec<String>;

    /// True once the drives are listed (the run button works from then on).
    fn drives_loaded(&self) -> bool;

    /// The History page.
    fn history_view(&self) -> HistoryView;

    /// True while suspend and logout are inhibited for a running test.
    fn is_inhibiting(&self) -> bool;

    /// The report of the last test, when one ended.
    fn last_report(&self) -> Option<Report>;

    /// The save dialog shown and not yet answered (folder or report), if any.
    fn open_chooser(&self) -> Option<gtk::FileChooserNative>;

    /// The dialog shown and not yet answered, if any (error, or "stop the test?").
    fn open_dialog(&self) -> Option<adw::MessageDialog>;

    /// Shows the dialog a test that ended with `report`'s error shows (on the ready page).
    fn show_error_of(&self, report: &Report);

    /// True when no page transition is running anywhere in the window (the SD Card view's
    /// pages, History's pages, any other stack): the page shown is fully drawn and the page
    /// left is no longer mapped.
    fn page_settled(&self) -> bool;

    /// True once the History view knows which of its drives are connected, for the drives
    /// listed now (no search for them is still running).
    fn connected_known(&self) -> bool;

    /// The running page.
    fn progress_view(&self) -> ProgressView;

    /// The results page.
    fn results_view(&self) -> ResultsView;

    /// True once the test scripts are listed.
    fn scripts_loaded(&self) -> bool;

    /// Where sysfs is (`/sys`; a fixture tree in tests); lists the drives again.
    fn set_sysfs_root(&self, root: PathBuf);

    /// Shows the SD Card view's `page` whatever the test's state: for tests and screenshots
    /// of a page's layout.
    fn show_page_for_test(&self, page: Page);

    /// The test run the window observes.
    fn test_run(&self) -> TestRun;

    /// The **All Tests** list and its session.
    fn tests_session(&self) -> TestsSession;

    /// The list of all tests.
    fn tests_view(&self) -> TestsView;

    /// **Run SD Card Test**.
    fn run_button(&self) -> gtk::Button;

    /// The drive chooser.
    fn drive_row(&self) -> DriveRow;

    /// The profile row, for tests.
    fn profile_row(&self) -> adw::ComboRow;

    /// Records tests in, and shows, the history at `path` instead of the default one.
    fn set_history_path(&self, path: &Path);

    /// The ready page.
    fn ready_view(&self) -> ReadyView;

    /// The SD Card view's page shown.
    fn page(&self) -> Page;

    /// The view shown.
    fn tab(&self) -> Tab;

    /// Shows the view `tab`.
    fn set_tab(&self, tab: Tab);

    /// True while a **Run Tests** session runs.
    fn is_running_tests(&self) -> bool;

    /// Why the test would refuse the chosen drive, as the ready page says it (`None` when it
    /// would not, or while the checks run).
    fn ready_problem(&self) -> Option<String>;

    /// The profile the next test runs.
    fn profile(&self) -> Profile;

    /// Starts the SD card test on the chosen drive, as **Run** does.
    fn start_test(&self);

    /// True while a test waits for its drive to be free of another test.
    fn waiting_for_drive(&self) -> bool;

    /// Stops the running SD card test, as **Cancel** does.
    fn cancel_test(&self);

    /// Back to the choice of drive, as the back button does.
    fn show_ready(&self);

    /// Shows a short message at the bottom of the window.
    fn toast(&self, text: &str);

    /// Shows `trend` on the results page, as a recorded test does.
    fn show_trend(&self, trend: Option<&Trend>);

    /// The capacity check the window observes.
    fn capacity_check(&self) -> CapacityCheck;

    /// The capacity check's page.
    fn capacity_view(&self) -> CapacityView;

    /// **Check Capacity…** on the SD Card page.
    fn capacity_button(&self) -> gtk::Button;

    /// The capacity check's question (time, size; **Cancel** / **Check**) while it is open.
    fn capacity_question(&self) -> Option<adw::MessageDialog>;

    /// Starts the capacity check of the drive behind `dir`, as a connected drive's
    /// **Check Capacity…** on the History page does (whatever the SD Card page thinks of it).
    fn check_capacity_at(&self, dir: PathBuf);
}

impl WindowProbe for Window {
    fn toast_titles(&self) -> Vec<String> {
        self.imp()
            .toasts
            .borrow()
            .iter()
            .map(|t| t.title().map(|s| s.to_string()).unwrap_or_default())
            .collect()
    }

    fn dismiss_toasts(&self) {
        for toast in self.imp().toasts.take() {
            toast.dismiss();
        }
    }

    fn drives_loaded(&self) -> bool {
        self.imp().ready_view.drives_loaded()
    }

    fn history_view(&self) -> HistoryView {
        self.imp().history_view.get()
    }

    fn is_inhibiting(&self) -> bool {
        self.imp().inhibit_cookie.get() != 0
    }

    fn last_report(&self) -> Option<Report> {
        self.imp().test_run.report()
    }

    fn open_chooser(&self) -> Option<gtk::FileChooserNative> {
        self.imp().chooser.borrow().clone()
    }

    fn open_dialog(&self) -> Option<adw::MessageDialog> {
        self.imp().dialog.borrow().clone()
    }

    fn show_error_of(&self, report: &Report) {
        self.show_page(Page::Ready);
        self.show_error(report);
    }

    fn page_settled(&self) -> bool {
        let mut widgets: Vec<gtk::Widget> = vec![self.clone().upcast()];
        while let Some(widget) = widgets.pop() {
            if widget
                .downcast_ref::<gtk::Stack>()
                .is_some_and(|stack| stack.is_transition_running())
            {
                return false;
            }
            let mut child = widget.first_child();
            while let Some(c) = child {
                child = c.next_sibling();
                widgets.push(c);
            }
        }
        true
    }

    fn connected_known(&self) -> bool {
        self.drives_loaded() && self.imp().finding_connected.get() == 0
    }

    fn progress_view(&self) -> ProgressView {
        self.imp().progress_view.get()
    }

    fn results_view(&self) -> ResultsView {
        self.imp().results_view.get()
    }

    fn scripts_loaded(&self) -> bool {
        self.imp().tests_view.session().loaded()
    }

    fn set_sysfs_root(&self, root: PathBuf) {
        self.imp().ready_view.set_sysfs_root(root);
    }

    fn show_page_for_test(&self, page: Page) {
        self.show_page(page);
    }

    fn test_run(&self) -> TestRun {
        self.imp().test_run.clone()
    }

    fn tests_session(&self) -> TestsSession {
        self.imp().tests_view.session()
    }

    fn tests_view(&self) -> TestsView {
        self.imp().tests_view.get()
    }

    fn run_button(&self) -> gtk::Button {
        self.imp().ready_view.run_button()
    }

    fn drive_row(&self) -> DriveRow {
        self.imp().ready_view.drive_row()
    }

    fn profile_row(&self) -> adw::ComboRow {
        self.imp().ready_view.profile_row()
    }

    fn set_history_path(&self, path: &Path) {
        let imp = self.imp();
        imp.test_run.set_history_path(Some(path.to_path_buf()));
        imp.capacity_check
            .set_history_path(Some(path.to_path_buf()));
        imp.history_view.set_path(path);
    }

    fn ready_view(&self) -> ReadyView {
        self.imp().ready_view.get()
    }

    fn page(&self) -> Page {
        Window::page(self)
    }

    fn tab(&self) -> Tab {
        Window::tab(self)
    }

    fn set_tab(&self, tab: Tab) {
        Window::set_tab(self, tab);
    }

    fn is_running_tests(&self) -> bool {
        Window::is_running_tests(self)
    }

    fn ready_problem(&self) -> Option<String> {
        self.imp().ready_view.problem()
    }

    fn profile(&self) -> Profile {
        self.imp().ready_view.profile()
    }

    fn waiting_for_drive(&self) -> bool {
        Window::is_waiting_for_drive(self)
    }

    fn start_test(&self) {
        Window::start_test(self);
    }

    fn cancel_test(&self) {
        Window::cancel_test(self);
    }

    fn show_ready(&self) {
        Window::show_ready(self);
    }

    fn toast(&self, text: &str) {
        Window::toast(self, text);
    }

    fn show_trend(&self, trend: Option<&Trend>) {
        self.imp().results_view.show_trend(trend);
    }

    fn capacity_check(&self) -> CapacityCheck {
        self.imp().capacity_check.clone()
    }

    fn capacity_view(&self) -> CapacityView {
        self.imp().capacity_view.get()
    }

    fn capacity_button(&self) -> gtk::Button {
        self.imp().ready_view.capacity_button()
    }

    fn capacity_question(&self) -> Option<adw::MessageDialog> {
        self.imp().capacity_question.borrow().clone()
    }

    fn check_capacity_at(&self, dir: PathBuf) {
        Window::check_capacity_at(self, dir);
    }
}
