//! The History view's page of one stored run: its results as the SD Card view shows them,
//! **Save Report…** and **Forget Run**.

use std::cell::RefCell;
use std::path::Path;

use adw::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::Report;
use gtk::glib;
use gtk::subclass::prelude::*;

use super::labels::date_text;
use super::stored_page::StoredPage;
use super::{HistoryPage, HistoryView};
use crate::model::history_store;
use crate::pages::results::ResultsView;
use crate::widgets::save_report::{self, ReportFormat};

/// A run's page: its widgets and the run shown.
#[derive(Debug, Default)]
pub struct RunPage {
    pub(super) title: gtk::Label,
    pub(super) results: ResultsView,
    pub(super) report: RefCell<Option<Report>>,
    pub(super) id: RefCell<Option<String>>,
}

impl HistoryView {
    pub(super) fn build_run_page(&self) {
        let imp = self.imp();
        imp.run.results.set_actions_visible(false);
        imp.run.results.set_vexpand(true);
        self.build_stored_page(
            HistoryPage::Run,
            &StoredPage {
                back_tooltip: &gettext("Back to the drive's runs"),
                title: &imp.run.title,
                save_tooltip: &gettext(
                    "Save this run as JSON, Markdown or a picture of the results",
                ),
                forget_label: &gettext("_Forget Run"),
                forget_tooltip: &gettext("Remove this run from the history"),
                on_save: HistoryView::ask_save_run,
                on_forget: HistoryView::ask_forget_run,
            },
            &imp.run.results,
        );
    }

    /// Shows the stored results of `run`.
    pub fn open_run(&self, run: &str) {
        let run = run.to_owned();
        self.background(
            {
                let run = run.clone();
                move |path| history_store::report_with_capacity(path, &run)
            },
            move |view, found| match found {
                Ok((report, capacity)) => {
                    let imp = view.imp();
                    imp.run.title.set_label(&fill(
                        &gettext("Run of {date}"),
                        &[("date", &date_text(&report.started))],
                    ));
                    imp.run.results.show_report(&report);
                    imp.run.results.show_capacity(capacity);
                    imp.run.report.replace(Some(report));
                    imp.run.id.replace(Some(run));
                    view.show(HistoryPage::Run);
                }
                Err(e) => view.toast(&e),
            },
        );
    }

    /// The stored run's results view.
    pub fn run_results(&self) -> ResultsView {
        self.imp().run.results.clone()
    }

    /// Saves the stored run shown to `path` in `format` (what **Save report** does once a
    /// file is chosen).
    pub fn save_shown_run(&self, format: ReportFormat, path: &Path) -> Result<(), String> {
        let report = self
            .imp()
            .run
            .report
            .borrow()
            .clone()
            .ok_or_else(|| gettext("No run is shown"))?;
        let name = history_store::drive_name(&self.imp().path.borrow(), &report);
        save_report::write_report(
            &report,
            name.as_deref(),
            format,
            path,
            &self.imp().run.results.card(),
        )
    }

    pub(super) fn ask_save_run(&self) {
        let Some(report) = self.imp().run.report.borrow().clone() else {
            return;
        };
        let Some(window) = self.root().and_downcast::<gtk::Window>() else {
            return;
        };
        let name = history_store::drive_name(&self.imp().path.borrow(), &report);
        let chooser = save_report::ask_and_save(
            &window,
            report,
            name,
            self.imp().run.results.card(),
            glib::clone!(
                #[weak(rename_to = view)]
                self,
                move |result| view.after_save(result)
            ),
        );
        self.imp().chooser.replace(Some(chooser));
    }

    pub(super) fn ask_forget_run(&self) {
        let Some(run) = self.imp().run.id.borrow().clone() else {
            return;
        };
        let dialog = adw::MessageDialog::new(
            self.root().and_downcast_ref::<gtk::Window>(),
            Some(&gettext("Forget This Run?")),
            Some(&gettext(
                "The run is removed from the history and from the drive's chart.",
            )),
        );
        crate::widgets::message_dialog::steady_heading(&dialog, &gettext("Forget This Run?"));
        dialog.add_responses(&[
            ("cancel", &gettext("_Cancel")),
            ("forget", &gettext("_Forget")),
        ]);
        dialog.set_response_appearance("forget", adw::ResponseAppearance::Destructive);
        dialog.set_default_response(Some("cancel"));
        dialog.set_close_response("cancel");
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = view)]
                self,
                move |_, response| {
                    view.imp().dialog.replace(None);
                    if response == "forget" {
                        view.forget_run(&run);
                    }
                }
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
        self.imp().dialog.replace(Some(dialog));
    }

    /// Removes `run` from the history, then shows its drive's page again (or the drives); the
    /// toast saying so offers **Undo**, which puts the run back.
    pub fn forget_run(&self, run: &str) {
        let run = run.to_owned();
        self.background(
            move |path| history_store::forget_run(path, &run),
            |view, result| {
                view.imp().chosen.borrow_mut().clear();
                view.sync_chosen();
                view.after_forget(result, &gettext("Run forgotten"), |view, report| {
                    view.put_back(move |path| history_store::restore_run(path, &report));
                });
            },
        );
    }
}
