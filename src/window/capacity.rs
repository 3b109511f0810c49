//! The window's side of the capacity check ("Is my card genuine?"): **Check Capacity…** on the
//! SD Card page (the chosen drive) or on a connected drive's History page; the question with
//! the plan's time and size (**Cancel** / **Check**); the check's page while it runs; its
//! verdict, or what stopped it and what to do; the History page read again. The app checks a
//! mounted filesystem through a file of its own only: checking a whole unmounted card (device
//! mode) needs root and stays with the command-line tool.

use std::path::PathBuf;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::capacity::{text, Cost};
use agnostics_core::i18n::{fill, gettext, ngettext};
use agnostics_core::target_dir::{TargetInfo, Transport};
use agnostics_core::units::si_bytes;
use gtk::{gio, glib};

use super::{Page, Tab, Window};
use crate::model::capacity_check::CheckState;
use crate::model::capacity_worker::{Failure, FailureKind};
use crate::model::connected;
use crate::pages::capacity::{verdict, CapacityView};

/// The capacity check asked about or running: where it was started, on what drive, and
/// whether its page is shown yet (only once **Check** was chosen).
#[derive(Debug, Default, Clone)]
pub struct CapacityRun {
    /// Started from a drive's History page: it runs and ends there.
    pub from_history: bool,
    /// The drive as the chooser names it ("SD card · mmcblk0 · ext4 · 12 GB free").
    pub drive: String,
    /// What kind of drive it is, when known.
    pub transport: Option<Transport>,
    /// The check's page is shown (the question was answered **Check**).
    pub shown: bool,
    /// The question was answered **Cancel** (or Escape): nothing was checked.
    pub declined: bool,
    /// When **Check** was chosen, for the time left.
    pub started: Option<std::time::Instant>,
}

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
                let view = win.live_capacity_view();
                view.update(&text::phase_sentence(p.phase), p.done, p.total, p.fraction);
                view.set_time_left(&win.capacity_time_left(p.fraction));
            }
        ));
        imp.history_view.connect_check_capacity(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_, dir| win.check_capacity_from(dir, true)
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
                match (check.recorded(), check.report()) {
                    (Some(Some(why)), _) => win.toast(&why),
                    // A check run from a drive's History page is now a stored one there.
                    (Some(None), Some(report)) => win.imp().history_view.live_check_kept(report),
                    _ => {}
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

    /// Starts the check of the drive behind the folder `dir` (from the SD Card page): the
    /// question follows as soon as the plan is known, and the check's page only once it is
    /// answered **Check**.
    pub(crate) fn check_capacity_at(&self, dir: PathBuf) {
        self.check_capacity_from(dir, false);
    }

    /// Starts the check of the drive behind `dir`, from a drive's History page when
    /// `from_history` (the check then runs and ends there).
    pub(crate) fn check_capacity_from(&self, dir: PathBuf, from_history: bool) {
        let imp = self.imp();
        if self.is_busy() {
            return;
        }
        let choice = imp
            .ready_view
            .drive_row()
            .choices()
            .into_iter()
            .find(|c| c.dir == dir);
        imp.capacity_run.replace(CapacityRun {
            from_history,
            drive: imp.ready_view.drive_name_of(&dir),
            transport: choice.and_then(|c| c.info).map(|i| i.transport),
            ..CapacityRun::default()
        });
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

    /// The page that shows the check: the SD Card tab's, or the History tab's when it was
    /// started there.
    pub(crate) fn live_capacity_view(&self) -> CapacityView {
        let imp = self.imp();
        if imp.capacity_run.borrow().from_history {
            imp.history_view.check_view()
        } else {
            imp.capacity_view.get()
        }
    }

    /// The check's page, once **Check** was chosen: on the tab it was started from.
    fn show_capacity_progress(&self) {
        let imp = self.imp();
        let run = {
            let mut run = imp.capacity_run.borrow_mut();
            run.shown = true;
            run.started = Some(std::time::Instant::now());
            run.clone()
        };
        if run.from_history {
            imp.history_view.show_live_check(&run.drive);
            let view = imp.history_view.check_view();
            view.set_time_left(&self.capacity_time_left(0.0));
            view.cancel_button().grab_focus();
        } else {
            imp.capacity_view.reset(&run.drive);
            imp.capacity_view
                .set_time_left(&self.capacity_time_left(0.0));
            self.set_tab(Tab::SdCard);
            self.show_page(Page::Capacity);
        }
    }

    /// "About 2 minutes left", from the time taken so far and `fraction` done (the plan's
    /// estimate until a tenth is done).
    fn capacity_time_left(&self, fraction: f64) -> String {
        let imp = self.imp();
        let estimate = imp.capacity_check.cost().map(|c| c.estimated_seconds);
        let elapsed = imp
            .capacity_run
            .borrow()
            .started
            .map(|t| t.elapsed().as_secs_f64());
        let left = match (elapsed, estimate) {
            (Some(elapsed), _) if (0.1..1.0).contains(&fraction) => {
                elapsed * (1.0 - fraction) / fraction
            }
            (Some(elapsed), Some(estimate)) => (estimate - elapsed).max(0.0),
            (None, Some(estimate)) => estimate,
            _ => return String::new(),
        };
        time_left_text(left)
    }

    /// The button the check was started from, once the question was declined.
    fn focus_capacity_origin(&self) {
        let imp = self.imp();
        if imp.capacity_run.borrow().from_history {
            imp.history_view.check_capacity_button().grab_focus();
        } else {
            imp.ready_view.capacity_button().grab_focus();
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
        let run = imp.capacity_run.borrow().clone();
        match check.state() {
            // Nothing is shown before the question is answered: the page it was started from
            // stays, its controls off while the plan is made.
            CheckState::Preparing => {
                self.inhibit(&gettext("A capacity check is running"));
                self.sync_actions();
            }
            CheckState::Asking => {
                if let Some(cost) = check.cost() {
                    self.ask_to_check(&cost, &run);
                }
            }
            CheckState::Checking => self.sync_actions(),
            CheckState::Cancelling => {
                // Stopped another way (the window closed): the question goes.
                if let Some(dialog) = imp.capacity_question.take() {
                    dialog.close();
                }
                if run.shown {
                    self.live_capacity_view().set_cancelling();
                }
                self.sync_actions();
            }
            CheckState::Idle => {
                self.capacity_ended();
                if !run.shown {
                    self.sync_actions();
                    if run.declined {
                        self.toast(&gettext("Nothing was checked"));
                    }
                    self.focus_capacity_origin();
                } else {
                    if check.was_cancelled() {
                        self.toast(&gettext("Check cancelled; its check file was removed"));
                    }
                    self.leave_capacity_page(&run);
                }
            }
            CheckState::Finished => {
                self.capacity_ended();
                let view = self.live_capacity_view();
                if let Some(report) = check.report() {
                    view.show_verdict(&verdict::shown(&report));
                }
                if run.from_history {
                    // The History page has its own way back.
                    view.set_stored(true);
                    self.sync_actions();
                } else {
                    self.show_page(Page::Capacity);
                }
            }
            CheckState::Failed => {
                self.capacity_ended();
                if run.shown {
                    self.leave_capacity_page(&run);
                } else {
                    self.sync_actions();
                }
                if let Some(failure) = check.failure() {
                    self.show_check_failure(&failure);
                }
            }
        }
        if !self.is_busy() && imp.close_when_stopped.get() {
            self.close();
        }
    }

    /// Back from the check's page to the page it was started from.
    fn leave_capacity_page(&self, run: &CapacityRun) {
        if run.from_history {
            let history = &self.imp().history_view;
            history.check_view().set_stored(true);
            if history.visible_page() == crate::pages::HistoryPage::Check {
                history.go_back();
            }
            self.sync_actions();
            self.focus_capacity_origin();
        } else {
            self.show_page(Page::Ready);
        }
    }

    /// The check has ended: suspend is allowed again (unless a test runs).
    fn capacity_ended(&self) {
        if !self.imp().test_run.is_busy() && !self.is_running_tests() {
            self.uninhibit();
        }
    }

    /// The question before anything is written: which drive, how long, how much, what it
    /// does, and how far it can reach.
    fn ask_to_check(&self, cost: &Cost, run: &CapacityRun) {
        let dialog = self.message_dialog(
            &question_heading(run.transport),
            &confirm_body(cost, &run.drive),
        );
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
                        win.show_capacity_progress();
                        check.go();
                        win.sync_actions();
                        win.live_capacity_view().cancel_button().grab_focus();
                    } else {
                        win.imp().capacity_run.borrow_mut().declined = true;
                        check.cancel();
                    }
                }
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        crate::a11y::hide_unshown_buttons(&dialog);
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

/// The question's heading: what the drive is ("Check This Card?", "Check This Drive?").
pub fn question_heading(transport: Option<Transport>) -> String {
    match transport {
        Some(Transport::Sd | Transport::Emmc) => gettext("Check This Card?"),
        Some(Transport::Loop) => gettext("Check This Disk Image?"),
        _ => gettext("Check This Drive?"),
    }
}

/// The question's text: the drive, how long the check takes, what it writes (the plan's own
/// figure, as the command-line tool states it), and, when the free space does not reach the
/// drive's end, that the check cannot tell beyond it.
pub fn confirm_body(cost: &Cost, drive: &str) -> String {
    let time = if cost.estimated_seconds < 45.0 {
        gettext("less than a minute")
    } else {
        let minutes = (cost.estimated_seconds / 60.0).round().max(1.0) as u32;
        fill(
            &ngettext("about {n} minute", "about {n} minutes", minutes),
            &[("n", &minutes)],
        )
    };
    let mut body = fill(
        // Translators: {drive} names the drive ("SD card · mmcblk0 · ext4 · 12 GB free"),
        // {time} is e.g. "about 3 minutes", {size} e.g. "4.2 MB".
        &gettext("{drive}\n\nThis takes {time}. It writes {size} in free space spread over the drive, reads it back and deletes it; your files are not touched.\n\nA fake card, which claims more space than it has, loses some of what is written."),
        &[
            ("drive", &drive),
            ("time", &time),
            ("size", &si_bytes(cost.bytes_written)),
        ],
    );
    if let Some(percent) = short_reach(cost.coverage) {
        body.push_str("\n\n");
        body.push_str(&fill(
            // Translators: {percent} is a whole number; "%" follows it.
            // xgettext:no-c-format
            &gettext("There is only enough free space to reach {percent} % of the drive, so the check cannot tell whether it is fake beyond that. Free some space first to check all of it."),
            &[("percent", &agnostics_core::i18n::number(percent, 0))],
        ));
    }
    body
}

/// How far the check reaches as a whole percentage, when that is short of the drive's end
/// (short of the share the core needs to call a drive genuine).
fn short_reach(coverage: f64) -> Option<f64> {
    (coverage < agnostics_core::capacity::verdict::COVERED_SHARE)
        .then(|| (coverage * 100.0).floor().clamp(0.0, 100.0))
}

/// "About 3 minutes left", "Less than a minute left" for `seconds`.
pub fn time_left_text(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 45.0 {
        return gettext("Less than a minute left");
    }
    let minutes = (seconds / 60.0).round().max(1.0) as u32;
    fill(
        &ngettext("About {n} minute left", "About {n} minutes left", minutes),
        &[("n", &minutes)],
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
