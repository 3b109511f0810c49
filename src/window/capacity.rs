//! The window's side of the capacity check ("Is my card genuine?"): **Check Capacity…** on the
//! SD Card page (the chosen drive) or on a connected drive's History page; the question with
//! the plan's time and size (**Cancel** / **Check**); the check's page while it runs; its
//! verdict, or what stopped it and what to do; the History page read again. The app checks a
//! mounted filesystem through a file of its own only: checking a whole unmounted card (device
//! mode) needs root and stays with the command-line tool.

use std::path::PathBuf;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::capacity::Cost;
use agnostics_core::i18n::{fill, gettext, ngettext};
use agnostics_core::target_dir::TargetInfo;
use gtk::{gio, glib};

use super::{Page, Tab, Window};
use crate::format::about_size;
use crate::model::capacity_check::CheckState;
use crate::model::capacity_worker::{Failure, FailureKind};
use crate::model::connected;
use crate::pages::capacity::{phase_text, verdict};

impl Window {
    /// The check's state, progress and recording followed.
    pub(super) fn setup_capacity(&self) {
        let imp = self.imp();
        imp.capacity_check.connect_state_notify(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_| win.sync_capacity()
        ));
        imp.capacity_check.connect_progress(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |check| {
                let p = check.progress();
                win.imp()
                    .capacity_view
                    .update(&phase_text(p.phase), p.done, p.total, p.fraction);
            }
        ));
        imp.history_view.connect_check_capacity(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_, dir| win.check_capacity_at(dir)
        ));
        imp.ready_view.connect_listed(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_| win.find_connected()
        ));
        imp.capacity_check.connect_recorded(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |check| {
                if let Some(Some(why)) = check.recorded() {
                    win.toast(&why);
                }
                win.imp().history_view.reload();
                // What the check found now heads the SD Card page's chosen drive.
                win.find_connected();
            }
        ));
    }

    /// Finds which of the history's drives are connected (on a helper thread: it reads sysfs,
    /// superblocks and the history) and tells the History view, and the SD Card page what
    /// the capacity checks say of each listed drive.
    fn find_connected(&self) {
        let ready = &self.imp().ready_view;
        let mounted: Vec<(PathBuf, TargetInfo)> = ready
            .drive_row()
            .choices()
            .into_iter()
            .filter_map(|c| Some((c.dir, c.info?)))
            .collect();
        let sysfs = ready.sysfs_root();
        let history = self.imp().test_run.history_path();
        let finding = gio::spawn_blocking(move || {
            let list = connected::identify(&mounted, &sysfs);
            let known = connected::capacity_known(&mounted, &sysfs, &history);
            (list, known)
        });
        let pending = &self.imp().finding_connected;
        pending.set(pending.get() + 1);
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = win)]
            self,
            async move {
                let found = finding.await;
                let pending = &win.imp().finding_connected;
                pending.set(pending.get() - 1);
                if let Ok((list, known)) = found {
                    win.imp().ready_view.set_capacity_known(known);
                    win.imp().history_view.set_connected(list);
                }
            }
        ));
    }

    /// **Check Capacity…** on the SD Card page (the `win.check-capacity` action): the drive
    /// chosen there.
    pub(crate) fn check_capacity(&self) {
        if let Some(choice) = self.imp().ready_view.chosen_drive() {
            self.check_capacity_at(choice.dir);
        }
    }

    /// Starts the check of the drive behind the folder `dir`: its page shows at once, and
    /// the question follows as soon as the plan is known.
    pub(crate) fn check_capacity_at(&self, dir: PathBuf) {
        let imp = self.imp();
        if self.is_busy() {
            return;
        }
        let drive = imp.ready_view.drive_name_of(&dir);
        imp.capacity_view.reset(&drive);
        self.set_tab(Tab::SdCard);
        if let Err(e) = imp.capacity_check.start(dir) {
            self.show_message(
                &gettext("The check could not start"),
                &fill(
                    &gettext("{error}\n\nClose some programs and try again."),
                    &[("error", &e)],
                ),
            );
        }
    }

    /// Stops the running check (the `win.cancel-capacity` action, **Cancel**).
    pub(crate) fn cancel_capacity(&self) {
        self.imp().capacity_check.cancel();
    }

    /// True while a capacity check runs or removes its file.
    pub(crate) fn is_checking_capacity(&self) -> bool {
        self.imp().capacity_check.is_busy()
    }

    pub(super) fn sync_capacity(&self) {
        let imp = self.imp();
        let check = &imp.capacity_check;
        match check.state() {
            CheckState::Preparing => {
                self.inhibit(&gettext("A capacity check is running"));
                self.show_page(Page::Capacity);
            }
            CheckState::Asking => {
                if let Some(cost) = check.cost() {
                    self.ask_to_check(&cost);
                }
            }
            CheckState::Checking => self.sync_actions(),
            CheckState::Cancelling => {
                // Stopped another way (the window closed): the question goes.
                if let Some(dialog) = imp.capacity_question.take() {
                    dialog.close();
                }
                imp.capacity_view.set_cancelling();
                self.sync_actions();
            }
            CheckState::Idle => {
                self.capacity_ended();
                if check.was_cancelled() {
                    self.toast(&gettext("Check cancelled; its check file was removed"));
                }
                self.show_page(Page::Ready);
            }
            CheckState::Finished => {
                self.capacity_ended();
                if let Some(report) = check.report() {
                    imp.capacity_view.show_verdict(&verdict::shown(&report));
                }
                self.show_page(Page::Capacity);
            }
            CheckState::Failed => {
                self.capacity_ended();
                self.show_page(Page::Ready);
                if let Some(failure) = check.failure() {
                    self.show_check_failure(&failure);
                }
            }
        }
        if !self.is_busy() && imp.close_when_stopped.get() {
            self.close();
        }
    }

    /// The check has ended: suspend is allowed again (unless a test runs).
    fn capacity_ended(&self) {
        if !self.imp().test_run.is_busy() && !self.is_running_tests() {
            self.uninhibit();
        }
    }

    /// The question before anything is written: how long, how much, what it does.
    fn ask_to_check(&self, cost: &Cost) {
        let dialog = self.message_dialog(&gettext("Check This Card?"), &confirm_body(cost));
        dialog.add_responses(&[
            ("cancel", &gettext("_Cancel")),
            ("check", &gettext("C_heck")),
        ]);
        dialog.set_response_appearance("check", adw::ResponseAppearance::Suggested);
        // Return and Escape give the answer that writes nothing.
        dialog.set_default_response(Some("cancel"));
        dialog.set_close_response("cancel");
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_, response| {
                    win.imp().capacity_question.replace(None);
                    let check = &win.imp().capacity_check;
                    if response == "check" {
                        check.go();
                        win.sync_focus();
                    } else {
                        check.cancel();
                    }
                }
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
        self.imp().capacity_question.replace(Some(dialog));
    }

    /// What stopped the check and what to do, in a dialog.
    fn show_check_failure(&self, failure: &Failure) {
        let dialog = self.message_dialog(&failure_heading(failure.kind), &failure.message);
        dialog.add_response("close", &gettext("_Close"));
        dialog.set_default_response(Some("close"));
        dialog.set_close_response("close");
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
    }
}

/// The question's text: how long the check takes and what it writes.
pub fn confirm_body(cost: &Cost) -> String {
    let time = if cost.estimated_seconds < 45.0 {
        gettext("less than a minute")
    } else {
        let minutes = (cost.estimated_seconds / 60.0).round().max(1.0) as u32;
        fill(
            &ngettext("about {n} minute", "about {n} minutes", minutes),
            &[("n", &minutes)],
        )
    };
    fill(
        // Translators: {time} is e.g. "about 3 minutes", {size} e.g. "about 10 MB".
        &gettext("This takes {time}. It writes {size} in free space spread over the card, reads it back and deletes it; your files are not touched.\n\nA fake card, which claims more space than it has, loses some of what is written."),
        &[("time", &time), ("size", &about_size(cost.bytes_written))],
    )
}

/// The failure dialog's heading for each kind of failure.
pub fn failure_heading(kind: FailureKind) -> String {
    match kind {
        FailureKind::Target => gettext("This drive cannot be checked"),
        FailureKind::Unmappable => gettext("This filesystem cannot be checked"),
        FailureKind::NoDrive => gettext("This folder is not on a drive"),
        FailureKind::Busy => gettext("The drive is busy"),
        FailureKind::Recovery => gettext("An earlier check was interrupted"),
        FailureKind::Io => gettext("The drive stopped answering"),
        FailureKind::Cancelled => gettext("The check was cancelled"),
    }
}
