//! The History view's page of one drive: its name and kind, **Rename…**, the profile its
//! trend charts show (when it ran more than one), the charts (MB/s and IOPS over the dates of
//! its runs), and its runs, each with a tick for **Compare**.

use std::cell::RefCell;

use adw::prelude::*;
use agnostics_core::figure::Unit;
use agnostics_core::history::RunSummary;
use agnostics_core::i18n::{fill, gettext};
use gtk::glib;
use gtk::subclass::prelude::*;

use super::labels::{
    chart_series, date_seconds_text, date_text, profile_graded, profile_title, run_figures,
};
use super::layout::{clear, heading, page_box, scrolled, wrapping_top_bar};
use super::{HistoryPage, HistoryView};
use crate::format::{transport_name, verdict_text};
use crate::model::history_store::{self, DriveKey};
use crate::widgets::trend_chart::TrendChart;
use crate::widgets::Badge;

/// A drive's page: its widgets and the drive shown.
#[derive(Debug, Default)]
pub struct DrivePage {
    pub(super) title: gtk::Label,
    pub(super) rename_button: gtk::Button,
    pub(super) unidentified_note: gtk::Label,
    pub(super) trend_heading: RefCell<Option<gtk::Label>>,
    pub(super) profile_drop: RefCell<Option<gtk::DropDown>>,
    /// "Test shown in the chart" and its menu, the menu under it when both do not fit.
    pub(super) profile_box: crate::widgets::WrapBox,
    pub(super) rate_chart: TrendChart,
    pub(super) iops_chart: TrendChart,
    pub(super) runs_list: gtk::ListBox,
    /// The runs' rows: run id, row, **Compare** tick.
    pub(super) run_rows: RefCell<Vec<(String, adw::ActionRow, gtk::CheckButton)>>,
    /// The drive shown, as the history gave it.
    pub(super) shown: RefCell<Option<history_store::DrivePage>>,
    /// The runs' heading, hint and list: hidden for a drive only checked for capacity.
    pub(super) runs_parts: RefCell<Vec<gtk::Widget>>,
    /// The page's scrolled part: another drive's page starts at its top.
    pub(super) scroller: RefCell<Option<gtk::ScrolledWindow>>,
    /// How worn the drive is.
    pub(super) health: crate::widgets::health_group::HealthGroup,
}

impl HistoryView {
    pub(super) fn build_drive_page(&self) {
        let imp = self.imp();
        let page = gtk::Box::new(gtk::Orientation::Vertical, 0);
        imp.drive.title.set_label("");
        let rename = imp.drive.rename_button.clone();
        let content = page_box();
        self.build_fake_banner(&content);
        let check = self.build_check_list_button();
        let (bar, back) =
            wrapping_top_bar(&gettext("All drives"), &imp.drive.title, &[&rename, &check]);
        back.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                view.go_back();
            }
        ));
        rename.set_label(&gettext("Re_name…"));
        rename.set_use_underline(true);
        rename.set_tooltip_text(Some(&gettext("Give this drive a name of your own")));
        rename.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.ask_rename()
        ));
        page.append(&bar);
        page.append(&gtk::Separator::new(gtk::Orientation::Horizontal));

        imp.drive.profile_box.set_visible(false);
        content.append(&imp.drive.profile_box);
        imp.drive.unidentified_note.set_label(&gettext(
            "These runs were made on drives that could not be identified (no card register, serial number or filesystem UUID), so they may be of different drives and are not charted together.",
        ));
        imp.drive.unidentified_note.set_xalign(0.0);
        imp.drive.unidentified_note.set_wrap(true);
        imp.drive.unidentified_note.add_css_class("dim-label");
        content.append(&imp.drive.unidentified_note);
        content.append(&imp.drive.health.group);
        let trend = heading(&gettext("Trend"));
        content.append(&trend);
        imp.drive.trend_heading.replace(Some(trend));
        content.append(&imp.drive.rate_chart);
        content.append(&imp.drive.iops_chart);
        let runs_heading = heading(&gettext("Runs"));
        content.append(&runs_heading);
        let hint = gtk::Label::new(Some(&gettext(
            "Choose a run for its results; tick two runs (of this drive or another, Space on a run ticks it) to compare them.",
        )));
        hint.set_xalign(0.0);
        hint.set_wrap(true);
        hint.add_css_class("dim-label");
        hint.add_css_class("caption");
        content.append(&hint);
        imp.drive
            .runs_list
            .set_selection_mode(gtk::SelectionMode::None);
        imp.drive.runs_list.add_css_class("boxed-list");
        content.append(&imp.drive.runs_list);
        for widget in [
            runs_heading.upcast_ref::<gtk::Widget>(),
            hint.upcast_ref(),
            imp.drive.runs_list.upcast_ref(),
        ] {
            imp.drive.runs_parts.borrow_mut().push(widget.clone());
        }
        self.append_check_list(&content);
        let scroller = scrolled(&content);
        page.append(&scroller);
        imp.drive.scroller.replace(Some(scroller));
        imp.stack.add_named(&page, Some(HistoryPage::Drive.name()));
    }

    /// Shows the page of drive `key`: its charts and runs.
    pub fn open_drive(&self, key: &DriveKey) {
        self.load_drive(key, None);
        self.show(HistoryPage::Drive);
    }

    pub(super) fn load_drive(&self, key: &DriveKey, profile: Option<String>) {
        let key = key.clone();
        self.background(
            move |path| history_store::drive_page(path, &key, profile.as_deref()),
            |view, page| match page {
                Ok(page) => view.show_drive(page),
                Err(e) => {
                    view.toast(&e);
                    view.imp().drive.shown.replace(None);
                    view.show(HistoryPage::Drives);
                }
            },
        );
    }

    pub(super) fn show_drive(&self, page: history_store::DrivePage) {
        let imp = self.imp();
        imp.drive.title.set_label(&drive_title_text(&page));
        imp.drive.rename_button.set_visible(page.id.is_some());
        imp.drive.unidentified_note.set_visible(page.id.is_none());
        if let Some(heading) = imp.drive.trend_heading.borrow().as_ref() {
            heading.set_visible(!page.series.is_empty());
        }
        self.show_profiles(&page);
        let profile = profile_title(&page.profile);
        // A1's targets only on the charts of the test A1 grades.
        let graded = profile_graded(&page.profile);
        imp.drive.rate_chart.set_series(
            &fill(
                &gettext("Transfer rate, {profile}"),
                &[("profile", &profile)],
            ),
            Unit::BytesPerSecond,
            chart_series(&page.series, Unit::BytesPerSecond, graded),
        );
        imp.drive.iops_chart.set_series(
            &fill(
                &gettext("I/O operations per second, {profile}"),
                &[("profile", &profile)],
            ),
            Unit::Iops,
            chart_series(&page.series, Unit::Iops, graded),
        );
        imp.drive
            .rate_chart
            .set_visible(!imp.drive.rate_chart.series().is_empty());
        imp.drive
            .iops_chart
            .set_visible(!imp.drive.iops_chart.series().is_empty());

        clear(&imp.drive.runs_list);
        imp.drive.run_rows.borrow_mut().clear();
        for run in &page.runs {
            // Two runs of one minute would read alike: their seconds tell them apart.
            let minute = date_text(&run.started);
            let alike = page
                .runs
                .iter()
                .filter(|r| date_text(&r.started) == minute)
                .count();
            let date = if alike > 1 {
                date_seconds_text(&run.started)
            } else {
                minute
            };
            let (id, row, check) = self.run_row(run, &date);
            imp.drive.runs_list.append(&row);
            imp.drive.run_rows.borrow_mut().push((id, row, check));
        }
        for part in imp.drive.runs_parts.borrow().iter() {
            part.set_visible(!page.runs.is_empty());
        }
        // Another drive's page starts at its top (the same drive shown again, after a run
        // was added or forgotten, keeps its place).
        let same = imp.drive.shown.borrow().as_ref().map(|p| p.key()) == Some(page.key());
        if !same {
            if let Some(scroller) = imp.drive.scroller.borrow().as_ref() {
                scroller.vadjustment().set_value(0.0);
            }
        }
        imp.drive.shown.replace(Some(page));
        if let Some(page) = imp.drive.shown.borrow().as_ref() {
            self.show_drive_capacity(page);
        }
        self.show_drive_health();
        crate::a11y::tidy(self);
    }

    /// A row of the drive page's runs, dated `date`: its id, the row (activating it opens the
    /// run) and its **Compare** tick.
    pub(super) fn run_row(
        &self,
        run: &RunSummary,
        date: &str,
    ) -> (String, adw::ActionRow, gtk::CheckButton) {
        let imp = self.imp();
        let row = adw::ActionRow::new();
        row.set_use_markup(false);
        let title = format!("{date} · {}", profile_title(&run.profile));
        row.set_title(&title);
        row.set_subtitle(&run_figures(run));
        row.set_subtitle_lines(0);
        row.set_activatable(true);
        let check = gtk::CheckButton::new();
        check.set_valign(gtk::Align::Center);
        check.set_tooltip_text(Some(&gettext("Choose for comparison (Space)")));
        // One Tab stop a run: the row. Space on it ticks the run, as a click on the box does.
        check.set_can_focus(false);
        check.set_focus_on_click(false);
        row.add_controller(space_ticks(&check));
        crate::a11y::set_label(
            &check,
            &fill(
                &gettext("Compare the run of {date}"),
                &[("date", &date_seconds_text(&run.started))],
            ),
        );
        let id = run.run.to_string();
        check.set_active(imp.chosen.borrow().iter().any(|(c, _)| *c == id));
        let label = format!("{}, {date}", run.drive_label);
        check.connect_toggled(glib::clone!(
            #[weak(rename_to = view)]
            self,
            #[strong]
            id,
            move |check| view.choose(&id, &label, check.is_active())
        ));
        check.connect_active_notify(glib::clone!(
            #[weak]
            row,
            move |check| {
                crate::a11y::set_checked(&row, check.is_active());
            }
        ));
        crate::a11y::set_checked(&row, check.is_active());
        row.add_prefix(&check);
        row.add_suffix(&Badge::new(run.shown_verdict()));
        crate::a11y::set_description(
            &row,
            &format!(
                "{} — {}",
                verdict_text(run.shown_verdict()),
                run_figures(run)
            ),
        );
        row.connect_activated(glib::clone!(
            #[weak(rename_to = view)]
            self,
            #[strong]
            id,
            move |_| view.open_run(&id)
        ));
        (id, row, check)
    }

    pub(super) fn show_profiles(&self, page: &history_store::DrivePage) {
        let imp = self.imp();
        // A choice in the menu reloads the page and makes the menu anew: the focus (and its
        // ring) goes to the new one, not nowhere.
        let focused = self
            .root()
            .and_then(|r| r.focus())
            .zip(imp.drive.profile_drop.borrow().clone())
            .is_some_and(|(f, old)| {
                f == old.clone().upcast::<gtk::Widget>() || f.is_ancestor(&old)
            });
        if let Some(old) = imp.drive.profile_drop.take() {
            imp.drive.profile_box.remove(&old);
        }
        while let Some(child) = imp.drive.profile_box.first_child() {
            imp.drive.profile_box.remove(&child);
        }
        imp.drive.profile_box.set_visible(page.profiles.len() > 1);
        if page.profiles.len() < 2 {
            return;
        }
        let label = gtk::Label::new(Some(&gettext("Test shown in the chart")));
        label.set_hexpand(true);
        label.set_xalign(0.0);
        imp.drive.profile_box.append(&label);
        let titles: Vec<String> = page.profiles.iter().map(|p| profile_title(p)).collect();
        let refs: Vec<&str> = titles.iter().map(String::as_str).collect();
        let drop = gtk::DropDown::from_strings(&refs);
        crate::a11y::name_drop_down(&drop, &gettext("Test shown in the chart"));
        let index = page
            .profiles
            .iter()
            .position(|p| *p == page.profile)
            .unwrap_or(0);
        drop.set_selected(index as u32);
        let profiles = page.profiles.clone();
        let key = page.key();
        drop.connect_selected_notify(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |drop| {
                if let Some(p) = profiles.get(drop.selected() as usize) {
                    view.load_drive(&key, Some(p.clone()));
                }
            }
        ));
        imp.drive.profile_box.append(&drop);
        if focused {
            drop.grab_focus();
            crate::focus_ring::restore(&drop);
        }
        imp.drive.profile_drop.replace(Some(drop));
    }

    /// The drive page's transfer-rate chart (MB/s).
    pub fn rate_chart(&self) -> TrendChart {
        self.imp().drive.rate_chart.clone()
    }

    /// The drive page's IOPS chart.
    pub fn iops_chart(&self) -> TrendChart {
        self.imp().drive.iops_chart.clone()
    }

    /// The drive page's menu of the test its charts show (when its runs are of two or more).
    pub fn profile_drop_down(&self) -> Option<gtk::DropDown> {
        self.imp().drive.profile_drop.borrow().clone()
    }

    /// The drive page's rows of runs, newest first.
    pub fn run_list_rows(&self) -> Vec<adw::ActionRow> {
        self.imp()
            .drive
            .run_rows
            .borrow()
            .iter()
            .map(|(_, row, _)| row.clone())
            .collect()
    }

    /// The drive page's runs: (run id, title, subtitle) per row, newest first.
    pub fn run_rows(&self) -> Vec<(String, String, String)> {
        self.imp()
            .drive
            .run_rows
            .borrow()
            .iter()
            .map(|(id, row, _)| {
                (
                    id.clone(),
                    row.title().to_string(),
                    row.subtitle().map(|s| s.to_string()).unwrap_or_default(),
                )
            })
            .collect()
    }

    /// How far the drive page is scrolled down, in pixels.
    pub fn drive_scrolled(&self) -> f64 {
        self.imp()
            .drive
            .scroller
            .borrow()
            .as_ref()
            .map_or(0.0, |s| s.vadjustment().value())
    }

    /// Scrolls the drive page down by `pixels` (as far as it goes).
    pub fn scroll_drive_by(&self, pixels: f64) {
        if let Some(s) = self.imp().drive.scroller.borrow().as_ref() {
            let adjustment = s.vadjustment();
            adjustment.set_value(adjustment.value() + pixels);
        }
    }

    /// The drive page's title: "{label} ({kind})".
    pub fn drive_title(&self) -> String {
        self.imp().drive.title.label().to_string()
    }

    pub(super) fn ask_rename(&self) {
        let Some((id, name)) = self.imp().drive.shown.borrow().as_ref().and_then(|p| {
            Some((
                p.id.as_ref()?.to_string(),
                p.name.clone().unwrap_or_default(),
            ))
        }) else {
            return;
        };
        let dialog = adw::MessageDialog::new(
            self.root().and_downcast_ref::<gtk::Window>(),
            Some(&gettext("Rename Drive")),
            Some(&gettext(
                "A name of your own for this drive, e.g. “Kitchen Pi card”. Leave it empty for the drive's own name.",
            )),
        );
        crate::widgets::message_dialog::steady_heading(&dialog, &gettext("Rename Drive"));
        let entry = gtk::Entry::new();
        entry.set_text(&name);
        entry.set_activates_default(true);
        crate::a11y::set_label(&entry, &gettext("Drive name"));
        dialog.set_extra_child(Some(&entry));
        dialog.add_responses(&[
            ("cancel", &gettext("_Cancel")),
            ("rename", &gettext("_Rename")),
        ]);
        dialog.set_response_appearance("rename", adw::ResponseAppearance::Suggested);
        dialog.set_default_response(Some("rename"));
        dialog.set_close_response("cancel");
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = view)]
                self,
                #[weak]
                entry,
                move |_, response| {
                    view.imp().dialog.replace(None);
                    if response == "rename" {
                        view.rename_drive(&id, &entry.text());
                    }
                }
            ),
        );
        crate::a11y::name_mnemonic_buttons(&dialog);
        dialog.present();
        self.imp().dialog.replace(Some(dialog));
    }

    /// Names drive `id` `name` (empty: its own label again) and shows the lists again.
    pub fn rename_drive(&self, id: &str, name: &str) {
        let (id, name) = (id.to_owned(), name.to_owned());
        self.background(
            move |path| history_store::rename(path, &id, &name),
            |view, result| {
                if let Err(e) = result {
                    view.toast(&e);
                }
                view.reload();
            },
        );
    }

    /// Asks to rename the drive shown (the **Rename…** button), for tests.
    pub fn start_rename(&self) {
        self.ask_rename();
    }
}

/// Space (or Ctrl+Space) on a run's row toggles its **Compare** tick `check`, before the list
/// takes Space as opening the run.
pub(super) fn space_ticks(check: &gtk::CheckButton) -> gtk::ShortcutController {
    let controller = gtk::ShortcutController::new();
    controller.set_propagation_phase(gtk::PropagationPhase::Capture);
    let check = check.downgrade();
    controller.add_shortcut(gtk::Shortcut::new(
        gtk::ShortcutTrigger::parse_string("space|<Control>space"),
        Some(gtk::CallbackAction::new(move |_, _| {
            if let Some(check) = check.upgrade() {
                check.set_active(!check.is_active());
                crate::focus_ring::restore(&check);
            }
            glib::Propagation::Stop
        })),
    ));
    controller
}

/// A drive page's title: "{drive} ({kind})", the kind said once, in words. The history's
/// label may end in the kind's short name ("loop1 (loop)"): that is left out
/// ("loop1 (Disk image)").
fn drive_title_text(page: &history_store::DrivePage) -> String {
    match page.kind {
        Some(kind) => {
            let short = format!(" ({})", kind.as_str());
            let drive = page.label.strip_suffix(&short).unwrap_or(&page.label);
            fill(
                &gettext("{drive} ({kind})"),
                &[("drive", &drive), ("kind", &transport_name(kind))],
            )
        }
        None => page.label.clone(),
    }
}
