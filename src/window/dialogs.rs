//! The window's dialogs: an error (what happened, what to do), "stop the test?" when the
//! window is closed during a test, and the folder chooser. libadwaita's own dialogs
//! (`adw::MessageDialog`), modal to the window; Escape gives the safe answer.

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::{self, ErrorKind, Report};
use gtk::glib;

use super::Window;

/// The error dialog's heading for each kind of error.
pub fn error_heading(kind: ErrorKind) -> String {
    match kind {
        ErrorKind::Missing
        | ErrorKind::NotADirectory
        | ErrorKind::NotWritable
        | ErrorKind::NotStorage
        | ErrorKind::Inspect => gettext("This folder cannot be used"),
        ErrorKind::ReadOnly => gettext("The drive is read-only"),
        ErrorKind::Memory => gettext("This folder is in memory, not on a drive"),
        ErrorKind::NoSpace => gettext("Not enough free space"),
        ErrorKind::Io => gettext("The drive stopped answering"),
        ErrorKind::TestFileGone => gettext("The test file was removed"),
        ErrorKind::DirectIoRefused => gettext("This filesystem cannot be measured"),
        ErrorKind::FioMissing => gettext("fio is not installed"),
        ErrorKind::FioHung => gettext("fio stopped responding"),
        ErrorKind::FioFailed => gettext("fio failed"),
        ErrorKind::Cancelled => gettext("The test was cancelled"),
        ErrorKind::Cached => gettext("The Figures Came from Memory, Not the Drive"),
        ErrorKind::Implausible => gettext("The result cannot be the drive’s own"),
        ErrorKind::Profile => gettext("The profile cannot be used"),
        ErrorKind::Paused => gettext("The test was paused"),
        ErrorKind::SharedDrive => gettext("Another test used the drive"),
    }
}

/// True for the errors that another drive or folder avoids (the dialog then offers **Choose
/// Another Drive**).
pub fn offers_another_drive(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Missing
            | ErrorKind::NotADirectory
            | ErrorKind::NotWritable
            | ErrorKind::NotStorage
            | ErrorKind::Inspect
            | ErrorKind::ReadOnly
            | ErrorKind::Memory
            | ErrorKind::NoSpace
            | ErrorKind::DirectIoRefused
            | ErrorKind::Cached
            | ErrorKind::Implausible
    )
}

impl Window {
    /// The SD Card page's drive chooser, focused (what **Choose Another Drive** does).
    fn choose_another_drive(&self) {
        self.set_tab(super::Tab::SdCard);
        self.show_ready();
        self.imp().ready_view.drive_row().grab_focus();
    }

    pub(crate) fn show_error(&self, report: &Report) {
        let Some(error) = &report.error else {
            return;
        };
        let heading = error_heading(error.kind);
        let body = fill(
            // Translators: what happened (the engine's message), then what to do.
            &gettext("{what}\n\n{todo}"),
            &[
                ("what", &crate::format::capitalized(&error.message)),
                ("todo", &error.hint),
            ],
        );
        let dialog = self.message_dialog(&heading, &body);
        if offers_another_drive(error.kind) {
            dialog.add_response("choose", &gettext("Choose Another _Drive"));
        }
        // Figures measured but not graded (memory answered, they cannot be the drive's,
        // another test used it): they are there to see, as the advice says.
        let figures = !report.runs.is_empty()
            && matches!(
                error.kind,
                ErrorKind::Cached | ErrorKind::Implausible | ErrorKind::SharedDrive
            );
        if figures {
            dialog.add_response("figures", &gettext("_Show the Figures"));
        }
        dialog.add_responses(&[
            ("copy", &gettext("C_opy Details")),
            ("close", &gettext("_Close")),
        ]);
        dialog.set_default_response(Some("close"));
        dialog.set_close_response("close");
        let text = report::to_text(report);
        let shown = report.clone();
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_, response| {
                    match response {
                        "copy" => {
                            win.clipboard().set_text(&text);
                            win.toast(&gettext("Details copied"));
                        }
                        "choose" => win.choose_another_drive(),
                        "figures" => win.show_figures(&shown),
                        _ => {}
                    }
                }
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
    }

    /// The results page of `report`, a run whose figures were measured but not graded.
    fn show_figures(&self, report: &Report) {
        let imp = self.imp();
        imp.results_view.show_report(report);
        self.show_page(super::Page::Results);
    }

    pub(super) fn show_message(&self, heading: &str, body: &str) {
        let dialog = self.message_dialog(heading, body);
        dialog.add_response("close", &gettext("_Close"));
        dialog.set_default_response(Some("close"));
        dialog.set_close_response("close");
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
    }

    /// A modal dialog of this window, remembered until it is answered (see
    /// [`Window::open_dialog`]).
    pub(super) fn message_dialog(&self, heading: &str, body: &str) -> adw::MessageDialog {
        let dialog = adw::MessageDialog::new(Some(self), Some(heading), Some(body));
        dialog.set_modal(true);
        crate::widgets::message_dialog::steady_heading(&dialog, heading);
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |dialog, _| {
                    let mut open = win.imp().dialog.borrow_mut();
                    if open.as_ref() == Some(dialog) {
                        *open = None;
                    }
                }
            ),
        );
        self.imp().dialog.replace(Some(dialog.clone()));
        dialog
    }

    pub(super) fn confirm_close(&self) {
        let body = if self.is_checking_capacity() {
            gettext("The capacity check is still running. If you close the window now, the check stops, its check file is removed and there is no verdict.")
        } else if self.is_running_tests() && !self.imp().test_run.is_busy() {
            gettext("Tests are still running. If you close the window now, the running test is stopped and the tests after it do not run.")
        } else {
            gettext("The SD card test is still running. If you close the window now, the test stops, its test file is removed and nothing is graded.")
        };
        let (heading, keep) = if self.is_checking_capacity() {
            (gettext("Stop the Check?"), gettext("_Keep Checking"))
        } else {
            (gettext("Stop the Test?"), gettext("_Keep Testing"))
        };
        let dialog = self.message_dialog(&heading, &body);
        dialog.add_responses(&[("keep", &keep), ("stop", &gettext("_Stop and Close"))]);
        dialog.set_response_appearance("stop", adw::ResponseAppearance::Destructive);
        dialog.set_default_response(Some("keep"));
        dialog.set_close_response("keep");
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_, response| {
                    if response == "stop" {
                        win.stop_and_close();
                    }
                }
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
    }

    /// Stops the SD card test and any **Run Tests** session, and closes the window once the
    /// engine has waited for the I/O in flight and removed its test file (see `sync_state`);
    /// an open question dialog goes away. Closes at once when nothing runs. Used by **Stop and
    /// Close** and by SIGINT, SIGTERM and SIGHUP.
    pub fn stop_and_close(&self) {
        if let Some(dialog) = self.imp().dialog.take() {
            dialog.close();
        }
        self.imp().close_when_stopped.set(true);
        self.cancel_tests();
        self.cancel_test();
        self.cancel_capacity();
        self.sync_state();
    }

    pub(super) fn choose_folder(&self) {
        let chooser = gtk::FileChooserNative::new(
            Some(&gettext("Choose a Folder to Test")),
            Some(self),
            gtk::FileChooserAction::SelectFolder,
            Some(&gettext("_Select")),
            Some(&gettext("_Cancel")),
        );
        chooser.set_modal(true);
        chooser.connect_response(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |chooser, response| {
                win.imp().chooser.replace(None);
                if response != gtk::ResponseType::Accept {
                    return;
                }
                if let Some(dir) = chooser.file().and_then(|f| f.path()) {
                    win.imp().ready_view.add_folder(dir);
                }
            }
        ));
        chooser.show();
        self.imp().chooser.replace(Some(chooser));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_kind_has_its_own_heading() {
        // Kinds that call for the same action may share a heading; the others are told apart.
        let same_folder = [
            ErrorKind::Missing,
            ErrorKind::NotADirectory,
            ErrorKind::NotWritable,
            ErrorKind::NotStorage,
            ErrorKind::Inspect,
        ];
        let mut seen = std::collections::HashMap::new();
        for kind in ErrorKind::ALL {
            let heading = error_heading(kind);
            assert!(!heading.is_empty(), "{kind}");
            let key = if same_folder.contains(&kind) {
                ErrorKind::Missing
            } else {
                kind
            };
            if let Some(other) = seen.insert(heading.clone(), key) {
                assert_eq!(other, key, "{kind} shares the heading {heading:?}");
            }
        }
        assert_eq!(
            error_heading(ErrorKind::TestFileGone),
            "The test file was removed"
        );
        assert_eq!(error_heading(ErrorKind::FioHung), "fio stopped responding");
    }
}
