//! What forgetting a stored run and forgetting a stored capacity check share: once it is gone,
//! the drive's page again (or the list of drives), a toast whose **Undo** puts it back, and
//! putting it back off the main loop.

use std::path::Path;

use agnostics_core::i18n::gettext;
use gtk::glib;
use gtk::subclass::prelude::*;

use super::{HistoryPage, HistoryView};

impl HistoryView {
    /// After a forget: the toast saying `message` whose **Undo** calls `undo`, or the error of
    /// the forget (`result`); then the shown drive's page (the drives' list when none is
    /// shown), reloaded.
    pub(super) fn after_forget<T: Clone + 'static>(
        &self,
        result: Result<T, String>,
        message: &str,
        undo: impl Fn(&HistoryView, T) + 'static,
    ) {
        match result {
            Ok(forgotten) => {
                let toast = adw::Toast::new(&glib::markup_escape_text(message));
                toast.set_button_label(Some(&gettext("_Undo")));
                toast.connect_button_clicked(glib::clone!(
                    #[weak(rename_to = view)]
                    self,
                    move |_| undo(&view, forgotten.clone())
                ));
                self.imp().undo_toast.replace(Some(toast.clone()));
                self.add_toast(toast);
            }
            Err(e) => self.toast(&e),
        }
        let on_drive = self.imp().drive.shown.borrow().is_some();
        self.show(if on_drive {
            HistoryPage::Drive
        } else {
            HistoryPage::Drives
        });
        self.reload();
    }

    /// **Undo** of a forget: dismisses its toast, runs `put_back` on the history file off the
    /// main loop, toasts its error, and shows what the history holds then.
    pub(super) fn put_back(
        &self,
        put_back: impl FnOnce(&Path) -> Result<(), String> + Send + 'static,
    ) {
        if let Some(toast) = self.imp().undo_toast.take() {
            toast.dismiss();
        }
        self.background(put_back, |view, result| {
            if let Err(e) = result {
                view.toast(&e);
            }
            view.reload();
        });
    }
}
