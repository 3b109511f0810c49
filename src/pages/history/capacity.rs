//! The capacity checks on the History pages: the **Found fake** mark of a drive a check once
//! found fake (on its row in the list of drives, and on its page), the drives known only from
//! checks, a drive's **Capacity Checks** with **Check Capacity…** (for a drive that is
//! connected now; insensitive with the reason otherwise), and the page of one stored check.
//! A check is started by the window (the `check-capacity` signal, with the folder to check
//! through): the History view knows which drives are connected from
//! [`HistoryView::set_connected`].

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use adw::prelude::*;
use agnostics_core::capacity::{text, CapacityReport};
use agnostics_core::history::{CapacitySummary, CheckedDrive};
use agnostics_core::i18n::{fill, gettext, ngettext};
use gtk::glib;
use gtk::subclass::prelude::*;

use super::labels::{date_seconds_text, date_text};
use super::stored_page::StoredPage;
use super::{HistoryPage, HistoryView};
use crate::model::capacity_history;
use crate::model::connected::Connected;
use crate::model::history_store::{DriveKey, DrivePage};
use crate::pages::capacity::verdict::{shown, summary_line};
use crate::pages::CapacityView;
use crate::widgets::save_report::{self, ReportFormat};
use crate::widgets::Badge;

/// The capacity parts of a drive's page, and the page of one stored check.
#[derive(Debug, Default)]
pub struct CapacityParts {
    /// **Check Capacity…** on a drive's page.
    pub(super) button: gtk::Button,
    /// The **Found fake** line on a drive's page.
    pub(super) fake_banner: gtk::Box,
    pub(super) heading: gtk::Label,
    pub(super) list: gtk::ListBox,
    /// The drives connected now, by id, with the folder to check each through.
    pub(super) connected: RefCell<Vec<Connected>>,
    /// The stored check's page.
    pub(super) check_title: gtk::Label,
    pub(super) check_view: CapacityView,
    /// The stored check shown on its page (none while a check runs).
    pub(super) check: RefCell<Option<CapacityReport>>,
    /// The stored check's **Save Report…** and **Forget Check**.
    pub(super) check_buttons: RefCell<Vec<gtk::Button>>,
}

impl HistoryView {
    /// The drive page's **Found fake** line, at the top of its `content`.
    pub(super) fn build_fake_banner(&self, content: &gtk::Box) {
        let banner = &self.imp().capacity.fake_banner;
        banner.set_spacing(12);
        banner.add_css_class("card");
        let icon = gtk::Image::builder()
            .icon_name("agnostics-error-symbolic")
            .pixel_size(32)
            .accessible_role(gtk::AccessibleRole::Presentation)
            .margin_start(12)
            .build();
        icon.add_css_class("error");
        banner.append(&icon);
        let text = gtk::Label::new(Some(&gettext(
            "Found fake: a capacity check found that this drive does not keep all the space it claims. Copy your files off it and do not trust it with new ones.",
        )));
        text.set_wrap(true);
        text.set_xalign(0.0);
        text.set_hexpand(true);
        text.set_margin_top(12);
        text.set_margin_bottom(12);
        text.set_margin_end(12);
        banner.append(&text);
        banner.set_visible(false);
        content.append(banner);
    }

    /// **Check Capacity…** for the drive page's top bar.
    pub(super) fn build_check_list_button(&self) -> gtk::Button {
        let parts = &self.imp().capacity;
        parts.button.set_label(&gettext("Check Ca_pacity…"));
        parts.button.set_use_underline(true);
        parts.button.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.request_check()
        ));
        parts.button.clone()
    }

    /// The drive page's **Capacity Checks** at the end of its `content`.
    pub(super) fn append_check_list(&self, content: &gtk::Box) {
        let parts = &self.imp().capacity;
        parts.heading.set_label(&gettext("Capacity Checks"));
        parts.heading.set_xalign(0.0);
        parts.heading.add_css_class("heading");
        content.append(&parts.heading);
        parts.list.set_selection_mode(gtk::SelectionMode::None);
        parts.list.add_css_class("boxed-list");
        content.append(&parts.list);
    }

    /// The page of one stored check: its verdict as the check's own page showed it.
    pub(super) fn build_check_page(&self) {
        let imp = self.imp();
        imp.capacity.check_view.set_stored(true);
        imp.capacity.check_view.set_vexpand(true);
        let buttons = self.build_stored_page(
            HistoryPage::Check,
            &StoredPage {
                back_tooltip: &gettext("Back to the drive"),
                title: &imp.capacity.check_title,
                save_tooltip: &gettext("Save this check as JSON, text or a picture of its page"),
                forget_label: &gettext("_Forget Check"),
                forget_tooltip: &gettext("Remove this check from the history"),
                on_save: HistoryView::ask_save_check,
                on_forget: HistoryView::ask_forget_check,
            },
            &imp.capacity.check_view,
        );
        imp.capacity.check_buttons.replace(buttons.into());
    }

    /// The drive page's capacity parts for `page`: the mark, the checks, the button.
    pub(super) fn show_drive_capacity(&self, page: &DrivePage) {
        let parts = &self.imp().capacity;
        parts.fake_banner.set_visible(page.checks.found_fake);
        super::layout::clear(&parts.list);
        let identified = page.id.is_some();
        parts.heading.set_visible(identified);
        parts.list.set_visible(identified);
        parts.button.set_visible(identified);
        if !identified {
            return;
        }
        let checks = &page.checks.checks;
        for check in checks {
            // Two checks of one minute are told apart by their seconds.
            let minute = date_text(&check.started);
            let shared = checks
                .iter()
                .filter(|c| date_text(&c.started) == minute)
                .count()
                > 1;
            let when = if shared {
                date_seconds_text(&check.started)
            } else {
                minute
            };
            parts.list.append(&self.check_row(check, &when));
        }
        if page.checks.checks.is_empty() {
            let row = adw::ActionRow::new();
            row.set_title(&gettext(
                "Not checked yet. Check Capacity tells whether the drive keeps all the space it claims.",
            ));
            row.set_title_lines(0);
            parts.list.append(&row);
        }
        self.sync_check_button();
    }

    fn check_row(&self, check: &CapacitySummary, when: &str) -> adw::ActionRow {
        let row = adw::ActionRow::new();
        row.set_use_markup(false);
        row.set_title(when);
        row.set_subtitle(&summary_line(check));
        row.set_subtitle_lines(0);
        row.set_activatable(true);
        row.add_suffix(&Badge::capacity(check.verdict));
        let arrow = gtk::Image::builder()
            .icon_name("agnostics-next-symbolic")
            .accessible_role(gtk::AccessibleRole::Presentation)
            .build();
        row.add_suffix(&arrow);
        crate::a11y::set_description(&row, &summary_line(check));
        let id = check.check.clone();
        row.connect_activated(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.open_check(&id)
        ));
        row
    }

    /// Shows the stored check `id` on its own page.
    pub fn open_check(&self, id: &str) {
        let id = id.to_owned();
        self.background(
            move |path| capacity_history::stored_report(path, &id),
            |view, report| match report {
                Ok(report) => {
                    let parts = &view.imp().capacity;
                    parts.check_title.set_label(&fill(
                        &gettext("Capacity check of {date}"),
                        &[("date", &date_text(&report.started))],
                    ));
                    parts.check_view.reset(&view.drive_title());
                    parts.check_view.show_verdict(&shown(&report));
                    parts.check.replace(Some(report));
                    view.show_check_buttons(true);
                    view.show(HistoryPage::Check);
                }
                Err(e) => view.toast(&e),
            },
        );
    }

    fn show_check_buttons(&self, shown: bool) {
        for button in self.imp().capacity.check_buttons.borrow().iter() {
            button.set_visible(shown);
        }
    }

    /// The stored check shown on its page, if any.
    pub fn shown_check(&self) -> Option<CapacityReport> {
        self.imp().capacity.check.borrow().clone()
    }

    /// Saves the stored check shown to `path` in `format` (what **Save Report…** does once a
    /// file is chosen).
    pub fn save_shown_check(&self, format: ReportFormat, path: &Path) -> Result<(), String> {
        let check = self
            .shown_check()
            .ok_or_else(|| gettext("No check is shown"))?;
        save_report::write_check(&check, format, path, &self.check_picture())
    }

    /// What a picture of the stored check shows: its page's content, all of it.
    fn check_picture(&self) -> gtk::Widget {
        let pane = self.imp().capacity.check_view.pane();
        let viewport = pane.child();
        viewport
            .as_ref()
            .and_then(|v| v.first_child())
            .or(viewport)
            .unwrap_or_else(|| pane.upcast())
    }

    pub(super) fn ask_save_check(&self) {
        let Some(check) = self.shown_check() else {
            return;
        };
        let Some(window) = self.root().and_downcast::<gtk::Window>() else {
            return;
        };
        let chooser = save_report::ask_and_save_check(
            &window,
            check,
            self.check_picture(),
            glib::clone!(
                #[weak(rename_to = view)]
                self,
                move |result| view.after_save(result)
            ),
        );
        self.imp().chooser.replace(Some(chooser));
    }

    fn ask_forget_check(&self) {
        let Some(check) = self.shown_check() else {
            return;
        };
        let heading = gettext("Forget This Check?");
        let dialog = adw::MessageDialog::new(
            self.root().and_downcast_ref::<gtk::Window>(),
            Some(&heading),
            Some(&gettext(
                "The check is removed from the history, and with it the Found fake mark it gave the drive, unless another check found it fake too.",
            )),
        );
        crate::widgets::message_dialog::steady_heading(&dialog, &heading);
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
                        view.forget_check(&check.check_id);
                    }
                }
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
        self.imp().dialog.replace(Some(dialog));
    }

    /// Removes the check `id` from the history, then shows its drive's page again (or the
    /// drives); the toast saying so offers **Undo**, which puts the check back (with the Found
    /// fake mark it gave).
    pub fn forget_check(&self, id: &str) {
        let id = id.to_owned();
        self.background(
            move |path| capacity_history::forget(path, &id),
            |view, result| {
                view.imp().capacity.check.replace(None);
                view.after_forget(result, &gettext("Check forgotten"), |view, check| {
                    view.put_back(move |path| capacity_history::record(path, &check));
                });
            },
        );
    }

    /// The page of a check started from a drive's page, while it runs on `drive`: its
    /// progress and **Cancel**, then its verdict.
    pub fn show_live_check(&self, drive: &str) {
        let parts = &self.imp().capacity;
        parts.check_title.set_label(&gettext("Capacity Check"));
        parts.check_view.set_stored(false);
        parts.check_view.reset(drive);
        parts.check.replace(None);
        self.show_check_buttons(false);
        self.show(HistoryPage::Check);
    }

    /// The check `report` finished and was kept in the history: when its page here shows it
    /// running (a check started from a drive's page), it is a stored check now, with **Save
    /// Report…** and **Forget Check**.
    pub fn live_check_kept(&self, report: CapacityReport) {
        let parts = &self.imp().capacity;
        if self.visible_page() == HistoryPage::Check && parts.check.borrow().is_none() {
            parts.check.replace(Some(report));
            self.show_check_buttons(true);
        }
    }

    /// Which drives are connected now (by their history id, with the folder to check each
    /// through): **Check Capacity…** works for those.
    pub fn set_connected(&self, connected: Vec<Connected>) {
        self.imp().capacity.connected.replace(connected);
        self.sync_check_button();
        self.show_drive_health();
    }

    /// The folder to check the drive shown through, when it is connected.
    pub(super) fn shown_drive_folder(&self) -> Option<PathBuf> {
        let imp = self.imp();
        let shown = imp.drive.shown.borrow();
        let id = shown.as_ref()?.id.as_ref()?;
        let connected = imp.capacity.connected.borrow();
        connected
            .iter()
            .find(|c| c.id == *id)
            .map(|c| c.dir.clone())
    }

    fn sync_check_button(&self) {
        let button = &self.imp().capacity.button;
        let connected = self.shown_drive_folder().is_some();
        button.set_sensitive(connected);
        let tip = if connected {
            gettext("Check whether this drive keeps all the space it claims")
        } else {
            gettext("Connect this drive to check its capacity: it is not mounted now")
        };
        button.set_tooltip_text(Some(&tip));
        crate::a11y::set_description(button, &tip);
    }

    /// **Check Capacity…** on a drive's page: the window is asked to check it.
    fn request_check(&self) {
        if let Some(dir) = self.shown_drive_folder() {
            self.emit_by_name::<()>("check-capacity", &[&dir.display().to_string()]);
        }
    }

    /// Calls `f` with the folder to check through when **Check Capacity…** is pressed on a
    /// drive's page.
    pub fn connect_check_capacity<F: Fn(&HistoryView, PathBuf) + 'static>(
        &self,
        f: F,
    ) -> glib::SignalHandlerId {
        self.connect_local("check-capacity", false, move |values| {
            let view = values.first().and_then(|v| v.get::<HistoryView>().ok());
            let dir = values.get(1).and_then(|v| v.get::<String>().ok());
            if let (Some(view), Some(dir)) = (view, dir) {
                f(&view, PathBuf::from(dir));
            }
            None
        })
    }

    /// The rows of the drives known only from capacity checks.
    pub(super) fn add_checked_only_rows(&self, drives: &[CheckedDrive]) {
        for drive in drives {
            let subtitle = fill(
                // Translators: a drive in the history that only capacity checks ran on, e.g.
                // "2 capacity checks · last Fake on 2026-06-01 12:00".
                &ngettext(
                    "{checks} capacity check · last {verdict} on {date}",
                    "{checks} capacity checks · last {verdict} on {date}",
                    drive.checks,
                ),
                &[
                    ("checks", &drive.checks),
                    ("verdict", &text::verdict_word(drive.last.verdict)),
                    ("date", &date_text(&drive.last.started)),
                ],
            );
            let badge = if drive.found_fake {
                Badge::found_fake()
            } else {
                Badge::capacity(drive.last.verdict)
            };
            self.add_drive_row_with(
                DriveKey::Identified(drive.id.clone()),
                &drive.label,
                &subtitle,
                &[badge],
            );
        }
    }

    /// The stored check's page (for tests).
    pub fn check_view(&self) -> CapacityView {
        self.imp().capacity.check_view.clone()
    }

    /// **Check Capacity…** on a drive's page.
    pub fn check_capacity_button(&self) -> gtk::Button {
        self.imp().capacity.button.clone()
    }

    /// True when the row of drive `key` in the list of drives has the **Found fake** mark.
    pub fn drive_has_found_fake(&self, key: &DriveKey) -> bool {
        let fake = gettext("Found fake");
        self.drive_badges(key).contains(&fake)
    }

    /// The words of the badges on the row of drive `key` in the list of drives (one: the
    /// drive's headline), empty when there is no such row.
    pub fn drive_badges(&self, key: &DriveKey) -> Vec<String> {
        let rows = self.imp().drives.rows.borrow();
        let Some((_, row)) = rows.iter().find(|(k, _)| k == key) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        let mut stack: Vec<gtk::Widget> = vec![row.clone().upcast()];
        while let Some(widget) = stack.pop() {
            if let Some(badge) = widget.downcast_ref::<Badge>() {
                found.push(badge.text());
            }
            let mut child = widget.last_child();
            while let Some(c) = child {
                child = c.prev_sibling();
                stack.push(c);
            }
        }
        found
    }

    /// True when the drive page shown has the **Found fake** mark.
    pub fn shows_found_fake(&self) -> bool {
        self.imp().capacity.fake_banner.is_visible()
    }

    /// The drive page's capacity checks, one line each (date, then verdict).
    pub fn check_rows(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut child = self.imp().capacity.list.first_child();
        while let Some(row) = child {
            if let Some(row) = row.downcast_ref::<adw::ActionRow>() {
                out.push((
                    row.title().to_string(),
                    row.subtitle().map(|s| s.to_string()).unwrap_or_default(),
                ));
            }
            child = row.next_sibling();
        }
        out
    }
}
