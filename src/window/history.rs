//! The window's side of the run history: a finished test's recording (done on the test's
//! worker thread) turned into the results page's headline (weighed with the drive's capacity
//! checks), trend lines and decline advice, a toast when the history could not keep it (the
//! results are shown all the same), the History page read again; and **Save report** for the
//! results shown.

use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use gtk::glib;

use super::Window;
use crate::model::history_store::RecordOutcome;
use crate::widgets::save_report;

impl Window {
    pub(super) fn setup_history(&self) {
        self.imp().test_run.connect_recorded(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_| win.test_recorded()
        ));
        // Ctrl+S saves the stored run shown on History's run page.
        self.imp().history_view.connect_page_shown(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_| win.sync_actions()
        ));
    }

    /// The test that ended went to the history (or not): trend on the results page, the
    /// History page updated, or a toast saying why it was not kept.
    fn test_recorded(&self) {
        let imp = self.imp();
        match imp.test_run.recorded() {
            Some(RecordOutcome::Recorded(recorded, warning, capacity)) => {
                if let Some(warning) = warning {
                    self.toast(&warning);
                }
                if imp.test_run.report().is_some_and(|r| r.error.is_none()) {
                    imp.results_view.show_capacity(capacity);
                    imp.results_view.show_trend(recorded.trend.as_ref());
                }
                imp.history_view.reload();
            }
            Some(RecordOutcome::Failed(warning)) => self.toast(&warning),
            Some(RecordOutcome::NotHistory) | None => {}
        }
    }

    /// Saves the results shown (the `win.save-report` action, **Save Report…**): asks where,
    /// as JSON, Markdown or a PNG picture of the results.
    pub(super) fn save_report(&self) {
        let imp = self.imp();
        if self.tab() == super::Tab::History {
            // History's stored run, when its page is shown (it has its own Save Report…).
            imp.history_view.save_shown();
            return;
        }
        let Some(report) = imp.test_run.report().filter(|r| r.error.is_none()) else {
            return;
        };
        let name = crate::model::history_store::drive_name(&imp.test_run.history_path(), &report);
        let chooser = save_report::ask_and_save(
            self,
            report,
            name,
            imp.results_view.card(),
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |result| {
                    win.imp().chooser.replace(None);
                    match result {
                        Ok(path) => win.toast(&fill(
                            &gettext("Saved {file}"),
                            &[("file", &path.display())],
                        )),
                        Err(e) => win.toast(&e),
                    }
                }
            ),
        );
        imp.chooser.replace(Some(chooser));
    }
}
