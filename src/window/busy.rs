//! A drive another test or capacity check uses, told before the SD card test starts: the
//! engine's drive lock is asked whether anyone holds the chosen drive now; if so the window
//! says who (where the system tells) and offers to wait, starting the test by itself once the
//! drive is free, or not to start. Two tests at once would only split the drive's speed and
//! leave both ungraded.

use std::path::PathBuf;
use std::time::Duration;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::drive_lock::{self, Busy, Drive};
use agnostics_core::i18n::gettext;
use agnostics_core::target_dir;
use gtk::glib;

use super::Window;

/// How often a waiting test looks whether its drive is free.
const LOOK_EVERY: Duration = Duration::from_millis(500);

impl Window {
    /// **Run** and Ctrl+R: the test on the chosen drive, unless its drive changed since it
    /// was listed (refused, with why, and the drives listed again), or another test or
    /// capacity check uses that drive now (the question first).
    pub(crate) fn request_test(&self) {
        let imp = self.imp();
        if imp.test_run.is_busy() || imp.waiting_for_drive.get() {
            return;
        }
        let Some(choice) = imp.ready_view.chosen_drive() else {
            return;
        };
        let opts = self.test_options(&choice.dir);
        // The drive under the folder may have gone since it was listed: the folder left
        // behind is on another disk, and the test would write there.
        let change = choice
            .info
            .as_ref()
            .and_then(|info| target_dir::drive_changed(info, &opts.sysfs_root));
        if let Some(change) = change {
            imp.ready_view.load_drives();
            self.show_message(&gettext("The Drive Changed"), &change.text());
            return;
        }
        let drives = agnostics_core::sdtest::drives(&opts);
        match drive_lock::busy(&opts.lock_dir, &drives) {
            Some(busy) => self.ask_about_busy_drive(&busy, drives, opts.lock_dir),
            None => self.start_test(),
        }
    }

    /// Says who uses the drive and asks whether to wait for it (the test then starts by
    /// itself) or not to start.
    fn ask_about_busy_drive(&self, busy: &Busy, drives: Vec<Drive>, lock_dir: PathBuf) {
        let dialog = self.message_dialog(&gettext("The Drive Is in Use"), &busy.text());
        dialog.add_responses(&[
            ("cancel", &gettext("_Don’t Start")),
            ("wait", &gettext("_Wait, Then Start")),
        ]);
        dialog.set_response_appearance("wait", adw::ResponseAppearance::Suggested);
        dialog.set_default_response(Some("wait"));
        dialog.set_close_response("cancel");
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_, response| {
                    if response == "wait" {
                        win.wait_for_drive(drives.clone(), lock_dir.clone());
                    }
                }
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
    }

    /// Waits, with **Cancel**, until none of `drives` is in use in `lock_dir` (the test's
    /// own), then starts the test.
    fn wait_for_drive(&self, drives: Vec<Drive>, lock_dir: PathBuf) {
        let imp = self.imp();
        imp.waiting_for_drive.set(true);
        let dialog = self.message_dialog(
            &gettext("Waiting for the Drive"),
            &gettext(
                "The test starts by itself when the other test or capacity check has finished \
                 with this drive.",
            ),
        );
        dialog.add_response("cancel", &gettext("_Cancel"));
        dialog.set_default_response(Some("cancel"));
        dialog.set_close_response("cancel");
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_, _| win.imp().waiting_for_drive.set(false)
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
        glib::timeout_add_local(
            LOOK_EVERY,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                #[weak]
                dialog,
                #[upgrade_or]
                glib::ControlFlow::Break,
                move || {
                    let imp = win.imp();
                    if !imp.waiting_for_drive.get() || !dialog.is_visible() {
                        imp.waiting_for_drive.set(false);
                        return glib::ControlFlow::Break;
                    }
                    if drive_lock::in_use(&lock_dir, &drives).is_some() {
                        return glib::ControlFlow::Continue;
                    }
                    imp.waiting_for_drive.set(false);
                    // The drive is free: the question goes, the test starts.
                    dialog.close();
                    let mut open = imp.dialog.borrow_mut();
                    if open.as_ref() == Some(&dialog) {
                        *open = None;
                    }
                    drop(open);
                    win.start_test();
                    glib::ControlFlow::Break
                }
            ),
        );
    }

    /// True while a test waits for its drive to be free.
    pub(crate) fn is_waiting_for_drive(&self) -> bool {
        self.imp().waiting_for_drive.get()
    }
}
