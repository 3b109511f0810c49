//! The History view's first page: every drive tested (its name or label, kind, number of
//! runs, last verdict and date, and one word for it: **Found fake** when a capacity check
//! found it so, else its last verdict), the runs of
//! unidentified drives together, the drives only checked for capacity, or "No Runs Yet".

use std::cell::RefCell;

use adw::prelude::*;
use agnostics_core::headline::{headline, CapacityKnown, Headline};
use agnostics_core::history::{DriveSummary, RunSummary};
use agnostics_core::i18n::{fill, gettext, ngettext};
use agnostics_core::verdict::Verdict;
use gtk::glib;
use gtk::subclass::prelude::*;

use super::labels::date_text;
use super::layout::{clear, page_box, scrolled};
use super::{HistoryPage, HistoryView};
use crate::format::{transport_name, verdict_text};
use crate::model::history_store::{self, DriveKey, Listing};
use crate::widgets::Badge;

/// The one word a drive's row shows: its headline ([`headline`]), where a capacity check that
/// found it fake, or never reached all of it, outranks its last graded verdict.
fn one_badge(capacity: CapacityKnown, shown: &RunSummary) -> Badge {
    match headline(capacity, None) {
        Headline::FoundFake => Badge::found_fake(),
        Headline::CapacityUnproven => Badge::capacity(
            capacity
                .last
                .unwrap_or(agnostics_core::capacity::CapacityVerdict::NotCheckedBeyond),
        ),
        _ => Badge::new(shown.shown_verdict()),
    }
}

/// True when what the capacity checks say of a drive (`capacity`) outranks its speed.
fn outranks_speed(capacity: CapacityKnown) -> bool {
    matches!(
        headline(capacity, None),
        Headline::FoundFake | Headline::CapacityUnproven
    )
}

/// The line under a drive's name: its kind, number of runs and the date of the last one
/// `shown`, with its verdict unless what its capacity checks say (`known`) outranks it.
fn drive_subtitle(drive: &DriveSummary, shown: &RunSummary, known: CapacityKnown) -> String {
    if outranks_speed(known) {
        // What a capacity check found is the drive's one word: no verdict beside it.
        fill(
            // Translators: a drive in the history whose capacity check outranks its
            // speed (its badge says "Found fake"), e.g. "SD card · 4 runs · last on
            // 2026-06-01 12:00".
            &ngettext(
                "{kind} · {runs} run · last on {date}",
                "{kind} · {runs} runs · last on {date}",
                drive.runs,
            ),
            &[
                ("kind", &transport_name(drive.kind)),
                ("runs", &drive.runs),
                ("date", &date_text(&shown.started)),
            ],
        )
    } else {
        fill(
            // Translators: a drive in the history, e.g. "SD card · 4 runs · last FAIL
            // on 2026-06-01 12:00".
            &ngettext(
                "{kind} · {runs} run · last {verdict} on {date}",
                "{kind} · {runs} runs · last {verdict} on {date}",
                drive.runs,
            ),
            &[
                ("kind", &transport_name(drive.kind)),
                ("runs", &drive.runs),
                ("verdict", &verdict_text(shown.shown_verdict())),
                ("date", &date_text(&shown.started)),
            ],
        )
    }
}

/// The list of drives' widgets and rows.
#[derive(Debug, Default)]
pub struct DrivesPage {
    pub(super) list: gtk::ListBox,
    /// The rows shown, with their drive's id.
    pub(super) rows: RefCell<Vec<(DriveKey, adw::ActionRow)>>,
    pub(super) empty: adw::StatusPage,
    pub(super) error_label: gtk::Label,
}

impl HistoryView {
    pub(super) fn build_drives_page(&self) {
        let imp = self.imp();
        let content = page_box();
        content.set_margin_top(18);
        let title = gtk::Label::new(Some(&gettext("Drives Tested")));
        title.set_xalign(0.0);
        title.add_css_class("title-2");
        content.append(&title);
        let intro = gtk::Label::new(Some(&gettext(
            "Every SD card test is kept here, so that you can see whether a drive gets slower. Choose a drive for its chart and runs.",
        )));
        intro.set_xalign(0.0);
        intro.set_wrap(true);
        intro.add_css_class("dim-label");
        content.append(&intro);
        imp.drives.error_label.set_xalign(0.0);
        imp.drives.error_label.set_wrap(true);
        imp.drives.error_label.add_css_class("error");
        imp.drives.error_label.set_visible(false);
        content.append(&imp.drives.error_label);
        imp.drives.list.set_selection_mode(gtk::SelectionMode::None);
        imp.drives.list.add_css_class("boxed-list");
        imp.drives.list.set_visible(false);
        content.append(&imp.drives.list);
        imp.drives
            .empty
            .set_icon_name(Some("agnostics-history-symbolic"));
        imp.drives.empty.set_title(&gettext("No Runs Yet"));
        imp.drives
            .empty
            .set_description(Some(&glib::markup_escape_text(&gettext(
                "Run the SD card test; each finished run is recorded here.",
            ))));
        imp.drives.empty.add_css_class("compact");
        // The way out of an empty page: the SD Card page, where the test is chosen and run.
        let test = gtk::Button::with_mnemonic(&gettext("_Test a Drive"));
        test.set_action_name(Some("win.show-sd-card"));
        test.set_halign(gtk::Align::Center);
        test.add_css_class("pill");
        test.add_css_class("suggested-action");
        imp.drives.empty.set_child(Some(&test));
        content.append(&imp.drives.empty);
        imp.stack
            .add_named(&scrolled(&content), Some(HistoryPage::Drives.name()));
    }

    pub(super) fn show_drives(&self, listing: Result<Listing, String>) {
        let imp = self.imp();
        clear(&imp.drives.list);
        imp.drives.rows.borrow_mut().clear();
        let Listing {
            drives,
            unidentified,
            checked_only,
            capacity,
        } = match listing {
            Ok(listing) => {
                imp.drives.error_label.set_visible(false);
                listing
            }
            Err(e) => {
                imp.drives.error_label.set_label(&fill(
                    &gettext("The history could not be read: {error}"),
                    &[("error", &e)],
                ));
                imp.drives.error_label.set_visible(true);
                Listing::default()
            }
        };
        let none = drives.is_empty() && unidentified.is_empty() && checked_only.is_empty();
        imp.drives
            .empty
            .set_visible(none && !imp.drives.error_label.is_visible());
        imp.drives.list.set_visible(!none);
        for drive in drives {
            let known = capacity
                .iter()
                .find(|(id, _)| *id == drive.id)
                .map(|(_, c)| *c)
                .unwrap_or_default();
            // The verdict shown is the latest grade: a Quick check since does not hide a FAIL.
            let shown = drive.last_graded.as_ref().unwrap_or(&drive.last);
            let mut subtitle = drive_subtitle(&drive, shown, known);
            if shown.run != drive.last.run {
                subtitle.push_str(&latest_run_note(&drive.last));
            }
            let key = DriveKey::Identified(drive.id.clone());
            self.add_drive_row_with(key, &drive.label, &subtitle, &[one_badge(known, shown)]);
        }
        self.add_checked_only_rows(&checked_only);
        if let Some(latest) = unidentified.first() {
            let runs = u32::try_from(unidentified.len()).unwrap_or(u32::MAX);
            let last = unidentified
                .iter()
                .find(|r| matches!(r.verdict, Verdict::Pass | Verdict::Fail))
                .unwrap_or(latest);
            let mut subtitle = fill(
                &ngettext(
                    "{runs} run · last {verdict} on {date}",
                    "{runs} runs · last {verdict} on {date}",
                    runs,
                ),
                &[
                    ("runs", &runs),
                    ("verdict", &verdict_text(last.shown_verdict())),
                    ("date", &date_text(&last.started)),
                ],
            );
            if last.run != latest.run {
                subtitle.push_str(&latest_run_note(latest));
            }
            let label = history_store::unidentified_label();
            let badges = [Badge::new(last.shown_verdict())];
            self.add_drive_row_with(DriveKey::Unidentified, &label, &subtitle, &badges);
        }
        crate::a11y::tidy(self);
    }

    /// A row of the list of drives: `badges` (the last verdict, **Found fake**) before the
    /// arrow; activating it opens the drive's page.
    pub(super) fn add_drive_row_with(
        &self,
        key: DriveKey,
        title: &str,
        subtitle: &str,
        badges: &[Badge],
    ) {
        let imp = self.imp();
        {
            let row = adw::ActionRow::new();
            row.set_use_markup(false);
            row.set_title(title);
            row.set_subtitle(subtitle);
            row.set_activatable(true);
            for badge in badges {
                row.add_suffix(badge);
            }
            let arrow = gtk::Image::builder()
                .icon_name("agnostics-next-symbolic")
                .accessible_role(gtk::AccessibleRole::Presentation)
                .build();
            row.add_suffix(&arrow);
            crate::a11y::set_description(&row, subtitle);
            row.connect_activated(glib::clone!(
                #[weak(rename_to = view)]
                self,
                #[strong]
                key,
                move |_| view.open_drive(&key)
            ));
            imp.drives.list.append(&row);
            imp.drives.rows.borrow_mut().push((key, row));
        }
    }

    /// The drives listed: (drive, title, subtitle) per row.
    pub fn drive_rows(&self) -> Vec<(DriveKey, String, String)> {
        self.imp()
            .drives
            .rows
            .borrow()
            .iter()
            .map(|(id, row)| {
                (
                    id.clone(),
                    row.title().to_string(),
                    row.subtitle().map(|s| s.to_string()).unwrap_or_default(),
                )
            })
            .collect()
    }
}

/// " · latest run 2026-06-02 09:30": after the latest grade of a drive, when a run that was not
/// graded (a Quick check, an error) came since.
fn latest_run_note(latest: &RunSummary) -> String {
    let note = fill(
        // Translators: after "last FAIL on 2026-06-01 12:00" when a run that was not graded
        // (a Quick check) came since, e.g. "latest run 2026-06-02 09:30".
        &gettext("latest run {date}"),
        &[("date", &date_text(&latest.started))],
    );
    format!(" · {note}")
}
