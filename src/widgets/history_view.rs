//! The History page: every drive tested (its name or label, kind, number of runs, last
//! verdict and date); a drive's page with its trend charts (MB/s and IOPS over the dates of
//! its runs), the list of its runs, **Rename**; a stored run's results with **Save report**
//! and **Forget Run**; and **Compare** of two chosen runs (from one drive or two). Everything
//! the history stores is read and written off the main loop ([`crate::model::history_store`] in
//! `gio::spawn_blocking`); [`HistoryView::reload`] shows a newly recorded run.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use adw::prelude::*;
use agnostics_core::history::{Comparison, FigureUnit, RunSummary, SeriesPoint};
use agnostics_core::i18n::{fill, gettext, ngettext};
use agnostics_core::profile::{builtin, Builtin};
use agnostics_core::report::Report;
use chrono::DateTime;
use gtk::subclass::prelude::*;
use gtk::{gio, glib};

use super::compare_view::CompareView;
use super::save_report::{self, ReportFormat};
use super::trend_chart::{ChartUnit, TrendChart, TrendPoint, TrendSeries};
use super::{Badge, ResultsView};
use crate::format::{iops, mb_per_s, transport_name, verdict_text};
use crate::model::history_store::{self, DrivePage, Listing, UNIDENTIFIED};

/// A run's start for people, in local time: "2026-06-01 12:00" (the text as given when it
/// is not RFC 3339).
pub fn date_text(rfc3339: &str) -> String {
    match DateTime::parse_from_rfc3339(rfc3339) {
        Ok(t) => t
            .with_timezone(&chrono::Local)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => rfc3339.to_owned(),
    }
}

/// A profile's name for people: a built-in profile's title (found by its own name or by
/// the name of the job file it runs, e.g. `sd_bench`), else the name.
pub fn profile_title(name: &str) -> String {
    Builtin::find(name)
        .or_else(|| builtin::ALL.iter().find(|b| b.profile().name == name))
        .map(|b| b.title())
        .unwrap_or_else(|| name.to_owned())
}

/// A run's figures on one line: "write 12.34 MB/s · read 45.00 MB/s · 4K write 612 IOPS · 4K
/// read 1600 IOPS" (those it has).
pub fn run_figures(run: &RunSummary) -> String {
    let mut parts = Vec::new();
    if let Some(v) = run.seq_write_bw {
        parts.push(fill(&gettext("write {value}"), &[("value", &mb_per_s(v))]));
    }
    if let Some(v) = run.seq_read_bw {
        parts.push(fill(&gettext("read {value}"), &[("value", &mb_per_s(v))]));
    }
    if let Some(v) = run.rand_write_iops {
        parts.push(fill(&gettext("4K write {value}"), &[("value", &iops(v))]));
    }
    if let Some(v) = run.rand_read_iops {
        parts.push(fill(&gettext("4K read {value}"), &[("value", &iops(v))]));
    }
    if parts.is_empty() {
        return gettext("no figures");
    }
    parts.join(" · ")
}

/// The trend charts' lines from a drive's series: per unit, one line per phase (the file's
/// preparation left out), in the order the phases first appear.
pub fn chart_series(points: &[SeriesPoint], unit: FigureUnit) -> Vec<TrendSeries> {
    let mut series: Vec<(String, TrendSeries)> = Vec::new();
    for p in points
        .iter()
        .filter(|p| p.unit == unit && p.phase != "prepare-file")
    {
        let Ok(when) = DateTime::parse_from_rfc3339(&p.started) else {
            continue;
        };
        let at = match series.iter().position(|(phase, _)| *phase == p.phase) {
            Some(at) => at,
            None => {
                series.push((
                    p.phase.clone(),
                    TrendSeries {
                        name: agnostics_core::history::phase_label(&p.phase),
                        points: Vec::new(),
                    },
                ));
                series.len() - 1
            }
        };
        series[at].1.points.push(TrendPoint {
            when,
            value: p.value,
        });
    }
    series.into_iter().map(|(_, s)| s).collect()
}

fn clear(list: &gtk::ListBox) {
    while let Some(child) = list.first_child() {
        list.remove(&child);
    }
}

fn scrolled(child: &impl IsA<gtk::Widget>) -> gtk::ScrolledWindow {
    let clamp = adw::Clamp::builder()
        .maximum_size(720)
        .tightening_threshold(520)
        .child(child)
        .build();
    gtk::ScrolledWindow::builder()
        .hscrollbar_policy(gtk::PolicyType::Never)
        .vexpand(true)
        .child(&clamp)
        .build()
}

fn page_box() -> gtk::Box {
    gtk::Box::builder()
        .orientation(gtk::Orientation::Vertical)
        .spacing(18)
        .margin_top(12)
        .margin_bottom(18)
        .margin_start(12)
        .margin_end(12)
        .build()
}

fn heading(text: &str) -> gtk::Label {
    let label = gtk::Label::new(Some(text));
    label.set_xalign(0.0);
    label.set_wrap(true);
    label.add_css_class("heading");
    label
}

/// A page's top line: a back button, the title, and room for buttons at the end.
fn top_bar(back_tooltip: &str) -> (gtk::Box, gtk::Button, gtk::Label) {
    let bar = gtk::Box::builder()
        .spacing(6)
        .margin_top(6)
        .margin_bottom(6)
        .margin_start(6)
        .margin_end(6)
        .build();
    let back = gtk::Button::from_icon_name("go-previous-symbolic");
    back.set_tooltip_text(Some(back_tooltip));
    crate::a11y::set_label(&back, back_tooltip);
    back.add_css_class("flat");
    let title = gtk::Label::new(None);
    title.set_hexpand(true);
    title.set_xalign(0.0);
    title.set_ellipsize(gtk::pango::EllipsizeMode::End);
    title.add_css_class("title-4");
    bar.append(&back);
    bar.append(&title);
    (bar, back, title)
}

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct HistoryView {
        pub path: RefCell<PathBuf>,
        pub stack: gtk::Stack,
        pub drives_list: gtk::ListBox,
        pub drives_rows: RefCell<Vec<(String, adw::ActionRow)>>,
        pub empty: adw::StatusPage,
        pub error_label: gtk::Label,
        pub drive_title: gtk::Label,
        pub rename_button: gtk::Button,
        pub unidentified_note: gtk::Label,
        pub trend_heading: RefCell<Option<gtk::Label>>,
        pub profile_drop: RefCell<Option<gtk::DropDown>>,
        pub profile_box: gtk::Box,
        pub rate_chart: TrendChart,
        pub iops_chart: TrendChart,
        pub runs_list: gtk::ListBox,
        pub run_rows: RefCell<Vec<(String, adw::ActionRow, gtk::CheckButton)>>,
        pub page: RefCell<Option<DrivePage>>,
        pub run_title: gtk::Label,
        pub run_results: ResultsView,
        pub run_report: RefCell<Option<Report>>,
        pub run_id: RefCell<Option<String>>,
        pub compare_view: CompareView,
        pub compare_back: RefCell<String>,
        pub compare_bar: gtk::ActionBar,
        pub compare_label: gtk::Label,
        pub compare_button: gtk::Button,
        /// The runs chosen for **Compare** (id, label for people), oldest choice first.
        pub chosen: RefCell<Vec<(String, String)>>,
        pub pending: Cell<u32>,
        pub generation: Cell<u64>,
        pub dialog: RefCell<Option<adw::MessageDialog>>,
        pub chooser: RefCell<Option<gtk::FileChooserNative>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for HistoryView {
        const NAME: &'static str = "AgnosticsHistoryView";
        type Type = super::HistoryView;
        type ParentType = gtk::Box;
    }

    impl ObjectImpl for HistoryView {
        fn constructed(&self) {
            self.parent_constructed();
            self.path.replace(history_store::default_path());
            self.obj().build();
        }
    }
    impl WidgetImpl for HistoryView {}
    impl BoxImpl for HistoryView {}
}

glib::wrapper! {
    /// The History page.
    pub struct HistoryView(ObjectSubclass<imp::HistoryView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Default for HistoryView {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl HistoryView {
    /// Gives the focus to the first control of the page shown (the first drive, the back
    /// button of a drive's or a run's page); false when there is none (no runs yet).
    pub fn focus_default(&self) -> bool {
        let imp = self.imp();
        if imp.stack.visible_child_name().as_deref() == Some("drives") {
            if let Some(row) = imp.drives_list.row_at_index(0) {
                return imp.drives_list.is_visible() && row.grab_focus();
            }
            return false;
        }
        imp.stack
            .visible_child()
            .is_some_and(|page| page.child_focus(gtk::DirectionType::TabForward))
    }

    /// Presses the back button of the page shown (a drive's, a run's, the comparison's); false
    /// on the list of drives, which has none.
    pub fn go_back(&self) -> bool {
        let Some(page) = self.imp().stack.visible_child() else {
            return false;
        };
        let mut stack = vec![page];
        while let Some(widget) = stack.pop() {
            if let Some(button) = widget.downcast_ref::<gtk::Button>() {
                if button.icon_name().as_deref() == Some("go-previous-symbolic") {
                    button.emit_clicked();
                    return true;
                }
            }
            let mut child = widget.last_child();
            while let Some(c) = child {
                child = c.prev_sibling();
                stack.push(c);
            }
        }
        false
    }

    /// A History page of [`crate::model::history_store::default_path`], loading its drives.
    pub fn new() -> HistoryView {
        HistoryView::default()
    }

    fn build(&self) {
        let imp = self.imp();
        self.set_orientation(gtk::Orientation::Vertical);
        imp.stack
            .set_transition_type(gtk::StackTransitionType::Crossfade);
        imp.stack.set_vexpand(true);
        self.append(&imp.stack);
        self.build_drives_page();
        self.build_drive_page();
        self.build_run_page();
        self.build_compare_page();
        self.build_compare_bar();
        // Alt+Left (GNOME's "back") or Escape leaves a drive's, a run's or the comparison's
        // page, as its back button does, wherever the focus is on it.
        let back = gtk::ShortcutController::new();
        back.add_shortcut(gtk::Shortcut::new(
            gtk::ShortcutTrigger::parse_string("<Alt>Left|Escape"),
            Some(gtk::CallbackAction::new(|widget, _| {
                widget
                    .downcast_ref::<HistoryView>()
                    .is_some_and(HistoryView::go_back)
                    .into()
            })),
        ));
        self.add_controller(back);
        imp.stack.connect_visible_child_name_notify(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                view.sync_chosen();
                // The page that was left took the focus with it: the new one's first control
                // gets it (a keyboard user would otherwise be nowhere).
                if view.is_mapped() {
                    view.focus_default();
                }
            }
        ));
        self.reload();
    }

    fn build_drives_page(&self) {
        let imp = self.imp();
        let content = page_box();
        content.set_margin_top(18);
        let title = gtk::Label::new(Some(&gettext("Drives tested")));
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
        imp.error_label.set_xalign(0.0);
        imp.error_label.set_wrap(true);
        imp.error_label.add_css_class("error");
        imp.error_label.set_visible(false);
        content.append(&imp.error_label);
        imp.drives_list.set_selection_mode(gtk::SelectionMode::None);
        imp.drives_list.add_css_class("boxed-list");
        imp.drives_list.set_visible(false);
        content.append(&imp.drives_list);
        imp.empty
            .set_icon_name(Some("document-open-recent-symbolic"));
        imp.empty.set_title(&gettext("No runs yet"));
        imp.empty
            .set_description(Some(&glib::markup_escape_text(&gettext(
                "Run the SD card test; each finished run is recorded here.",
            ))));
        imp.empty.add_css_class("compact");
        content.append(&imp.empty);
        imp.stack.add_named(&scrolled(&content), Some("drives"));
    }

    fn build_drive_page(&self) {
        let imp = self.imp();
        let page = gtk::Box::new(gtk::Orientation::Vertical, 0);
        let (bar, back, title) = top_bar(&gettext("All drives"));
        imp.drive_title.set_label("");
        bar.remove(&title);
        imp.drive_title.set_hexpand(true);
        imp.drive_title.set_xalign(0.0);
        imp.drive_title
            .set_ellipsize(gtk::pango::EllipsizeMode::End);
        imp.drive_title.add_css_class("title-4");
        bar.append(&imp.drive_title);
        back.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.imp().stack.set_visible_child_name("drives")
        ));
        let rename = imp.rename_button.clone();
        rename.set_label(&gettext("Re_name…"));
        rename.set_use_underline(true);
        rename.set_tooltip_text(Some(&gettext("Give this drive a name of your own")));
        rename.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.ask_rename()
        ));
        bar.append(&rename);
        page.append(&bar);
        page.append(&gtk::Separator::new(gtk::Orientation::Horizontal));

        let content = page_box();
        imp.profile_box.set_spacing(12);
        imp.profile_box.set_visible(false);
        content.append(&imp.profile_box);
        imp.unidentified_note.set_label(&gettext(
            "These runs were made on drives that could not be identified (no card register, serial number or filesystem UUID), so they may be of different drives and are not charted together.",
        ));
        imp.unidentified_note.set_xalign(0.0);
        imp.unidentified_note.set_wrap(true);
        imp.unidentified_note.add_css_class("dim-label");
        content.append(&imp.unidentified_note);
        let trend = heading(&gettext("Trend"));
        content.append(&trend);
        imp.trend_heading.replace(Some(trend));
        content.append(&imp.rate_chart);
        content.append(&imp.iops_chart);
        content.append(&heading(&gettext("Runs")));
        let hint = gtk::Label::new(Some(&gettext(
            "Choose a run for its results; tick two runs (of this drive or another) to compare them.",
        )));
        hint.set_xalign(0.0);
        hint.set_wrap(true);
        hint.add_css_class("dim-label");
        hint.add_css_class("caption");
        content.append(&hint);
        imp.runs_list.set_selection_mode(gtk::SelectionMode::None);
        imp.runs_list.add_css_class("boxed-list");
        content.append(&imp.runs_list);
        page.append(&scrolled(&content));
        imp.stack.add_named(&page, Some("drive"));
    }

    fn build_run_page(&self) {
        let imp = self.imp();
        let page = gtk::Box::new(gtk::Orientation::Vertical, 0);
        let (bar, back, title) = top_bar(&gettext("Back to the drive's runs"));
        bar.remove(&title);
        imp.run_title.set_hexpand(true);
        imp.run_title.set_xalign(0.0);
        imp.run_title.set_ellipsize(gtk::pango::EllipsizeMode::End);
        imp.run_title.add_css_class("title-4");
        bar.append(&imp.run_title);
        back.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.imp().stack.set_visible_child_name("drive")
        ));
        let save = gtk::Button::with_mnemonic(&gettext("Save _Report…"));
        save.set_tooltip_text(Some(&gettext(
            "Save this run as JSON, Markdown or a picture of the results",
        )));
        save.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.ask_save_run()
        ));
        let forget = gtk::Button::with_mnemonic(&gettext("_Forget Run"));
        forget.add_css_class("destructive-action");
        forget.set_tooltip_text(Some(&gettext("Remove this run from the history")));
        forget.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.ask_forget_run()
        ));
        bar.append(&save);
        bar.append(&forget);
        page.append(&bar);
        page.append(&gtk::Separator::new(gtk::Orientation::Horizontal));
        imp.run_results.set_actions_visible(false);
        imp.run_results.set_vexpand(true);
        page.append(&imp.run_results);
        imp.stack.add_named(&page, Some("run"));
    }

    fn build_compare_page(&self) {
        let imp = self.imp();
        let page = gtk::Box::new(gtk::Orientation::Vertical, 0);
        let (bar, back, title) = top_bar(&gettext("Back"));
        title.set_label(&gettext("Comparison"));
        back.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                let to = view.imp().compare_back.borrow().clone();
                view.imp()
                    .stack
                    .set_visible_child_name(if to.is_empty() { "drives" } else { &to });
            }
        ));
        let copy = gtk::Button::with_mnemonic(&gettext("_Copy as Markdown"));
        copy.set_tooltip_text(Some(&gettext(
            "Copy the comparison as a Markdown table, to paste in a forum post",
        )));
        copy.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                if let Some(c) = view.imp().compare_view.comparison() {
                    view.clipboard()
                        .set_text(&agnostics_core::history::compare::comparison_markdown(&c));
                    view.toast(&gettext("Comparison copied"));
                }
            }
        ));
        bar.append(&copy);
        page.append(&bar);
        page.append(&gtk::Separator::new(gtk::Orientation::Horizontal));
        let content = page_box();
        content.append(&imp.compare_view);
        page.append(&scrolled(&content));
        imp.stack.add_named(&page, Some("compare"));
    }

    fn build_compare_bar(&self) {
        let imp = self.imp();
        imp.compare_label.set_wrap(true);
        imp.compare_label.set_hexpand(true);
        imp.compare_label.set_xalign(0.0);
        imp.compare_bar.pack_start(&imp.compare_label);
        let clear = gtk::Button::with_mnemonic(&gettext("C_lear"));
        clear.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                view.imp().chosen.borrow_mut().clear();
                view.sync_chosen();
            }
        ));
        imp.compare_button.set_label(&gettext("_Compare"));
        imp.compare_button.set_use_underline(true);
        imp.compare_button.add_css_class("suggested-action");
        imp.compare_button.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.compare_chosen()
        ));
        imp.compare_bar.pack_end(&imp.compare_button);
        imp.compare_bar.pack_end(&clear);
        imp.compare_bar.set_revealed(false);
        self.append(&imp.compare_bar);
    }

    /// Uses the history at `path` (tests; the app uses [`history_store::default_path`]) and
    /// loads it again.
    pub fn set_path(&self, path: &Path) {
        self.imp().path.replace(path.to_path_buf());
        self.imp().chosen.borrow_mut().clear();
        self.sync_chosen();
        self.imp().stack.set_visible_child_name("drives");
        self.reload();
    }

    /// Shows a short message in the window's toast overlay.
    fn toast(&self, text: &str) {
        if let Some(overlay) = self
            .ancestor(adw::ToastOverlay::static_type())
            .and_downcast::<adw::ToastOverlay>()
        {
            overlay.add_toast(adw::Toast::new(&glib::markup_escape_text(text)));
        }
    }

    /// Runs `work` on a helper thread, then `then` with its result on the main loop (unless
    /// a newer load of the same kind replaced it, when `generation` is given).
    fn background<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Path) -> T + Send + 'static,
        then: impl FnOnce(&HistoryView, T) + 'static,
    ) {
        let imp = self.imp();
        let path = imp.path.borrow().clone();
        imp.pending.set(imp.pending.get() + 1);
        let handle = gio::spawn_blocking(move || work(&path));
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = view)]
            self,
            async move {
                let result = handle.await;
                view.imp().pending.set(view.imp().pending.get() - 1);
                match result {
                    Ok(value) => then(&view, value),
                    Err(_) => view.toast(&gettext("Reading the history failed unexpectedly")),
                }
            }
        ));
    }

    /// True while the page waits for the history (for tests).
    pub fn is_loading(&self) -> bool {
        self.imp().pending.get() > 0
    }

    /// Reads the history again: the list of drives, and the drive shown (a new run appears).
    pub fn reload(&self) {
        let generation = self.imp().generation.get() + 1;
        self.imp().generation.set(generation);
        self.background(history_store::listing, move |view, listing| {
            if view.imp().generation.get() == generation {
                view.show_drives(listing);
            }
        });
        let shown = self.imp().page.borrow().as_ref().map(|p| {
            let id =
                p.id.as_ref()
                    .map_or(UNIDENTIFIED.to_owned(), |d| d.to_string());
            (id, p.profile.clone())
        });
        if let Some((id, profile)) = shown {
            self.load_drive(&id, Some(profile));
        }
    }

    fn show_drives(&self, listing: Result<Listing, String>) {
        let imp = self.imp();
        clear(&imp.drives_list);
        imp.drives_rows.borrow_mut().clear();
        let Listing {
            drives,
            unidentified,
        } = match listing {
            Ok(listing) => {
                imp.error_label.set_visible(false);
                listing
            }
            Err(e) => {
                imp.error_label.set_label(&fill(
                    &gettext("The history could not be read: {error}"),
                    &[("error", &e)],
                ));
                imp.error_label.set_visible(true);
                Listing::default()
            }
        };
        let none = drives.is_empty() && unidentified.is_empty();
        imp.empty.set_visible(none && !imp.error_label.is_visible());
        imp.drives_list.set_visible(!none);
        for drive in drives {
            let subtitle = fill(
                // Translators: a drive in the history, e.g. "SD card · 4 runs · last FAIL on
                // 2026-06-01 12:00".
                &ngettext(
                    "{kind} · {runs} run · last {verdict} on {date}",
                    "{kind} · {runs} runs · last {verdict} on {date}",
                    drive.runs,
                ),
                &[
                    ("kind", &transport_name(drive.kind)),
                    ("runs", &drive.runs),
                    ("verdict", &verdict_text(drive.last.verdict)),
                    ("date", &date_text(&drive.last.started)),
                ],
            );
            self.add_drive_row(&drive.id.to_string(), &drive.label, &subtitle, &drive.last);
        }
        if let Some(last) = unidentified.first() {
            let runs = u32::try_from(unidentified.len()).unwrap_or(u32::MAX);
            let subtitle = fill(
                &ngettext(
                    "{runs} run · last {verdict} on {date}",
                    "{runs} runs · last {verdict} on {date}",
                    runs,
                ),
                &[
                    ("runs", &runs),
                    ("verdict", &verdict_text(last.verdict)),
                    ("date", &date_text(&last.started)),
                ],
            );
            let label = history_store::unidentified_label();
            self.add_drive_row(UNIDENTIFIED, &label, &subtitle, last);
        }
    }

    fn add_drive_row(&self, id: &str, title: &str, subtitle: &str, last: &RunSummary) {
        let imp = self.imp();
        {
            let row = adw::ActionRow::new();
            row.set_use_markup(false);
            row.set_title(title);
            row.set_subtitle(subtitle);
            row.set_activatable(true);
            row.add_suffix(&Badge::new(last.verdict));
            let arrow = gtk::Image::builder()
                .icon_name("go-next-symbolic")
                .accessible_role(gtk::AccessibleRole::Presentation)
                .build();
            row.add_suffix(&arrow);
            crate::a11y::set_description(&row, subtitle);
            let id = id.to_owned();
            row.connect_activated(glib::clone!(
                #[weak(rename_to = view)]
                self,
                #[strong]
                id,
                move |_| view.open_drive(&id)
            ));
            imp.drives_list.append(&row);
            imp.drives_rows.borrow_mut().push((id, row));
        }
    }

    /// The drives listed: (drive id, title, subtitle) per row.
    pub fn drive_rows(&self) -> Vec<(String, String, String)> {
        self.imp()
            .drives_rows
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

    /// Shows the page of drive `id`: its charts and runs.
    pub fn open_drive(&self, id: &str) {
        self.load_drive(id, None);
        self.imp().stack.set_visible_child_name("drive");
    }

    fn load_drive(&self, id: &str, profile: Option<String>) {
        let id = id.to_owned();
        self.background(
            move |path| history_store::drive_page(path, &id, profile.as_deref()),
            |view, page| match page {
                Ok(page) => view.show_drive(page),
                Err(e) => {
                    view.toast(&e);
                    view.imp().page.replace(None);
                    view.imp().stack.set_visible_child_name("drives");
                }
            },
        );
    }

    fn show_drive(&self, page: DrivePage) {
        let imp = self.imp();
        imp.drive_title.set_label(&match page.kind {
            Some(kind) => fill(
                &gettext("{drive} ({kind})"),
                &[("drive", &page.label), ("kind", &transport_name(kind))],
            ),
            None => page.label.clone(),
        });
        imp.rename_button.set_visible(page.id.is_some());
        imp.unidentified_note.set_visible(page.id.is_none());
        if let Some(heading) = imp.trend_heading.borrow().as_ref() {
            heading.set_visible(!page.series.is_empty());
        }
        self.show_profiles(&page);
        let profile = profile_title(&page.profile);
        imp.rate_chart.set_series(
            &fill(
                &gettext("Transfer rate, {profile}"),
                &[("profile", &profile)],
            ),
            ChartUnit::BytesPerSecond,
            chart_series(&page.series, FigureUnit::BytesPerSecond),
        );
        imp.iops_chart.set_series(
            &fill(
                &gettext("I/O operations per second, {profile}"),
                &[("profile", &profile)],
            ),
            ChartUnit::Iops,
            chart_series(&page.series, FigureUnit::Iops),
        );
        imp.rate_chart
            .set_visible(!imp.rate_chart.series().is_empty());
        imp.iops_chart
            .set_visible(!imp.iops_chart.series().is_empty());

        clear(&imp.runs_list);
        imp.run_rows.borrow_mut().clear();
        for run in &page.runs {
            let row = adw::ActionRow::new();
            row.set_use_markup(false);
            let title = format!(
                "{} · {}",
                date_text(&run.started),
                profile_title(&run.profile)
            );
            row.set_title(&title);
            row.set_subtitle(&run_figures(run));
            row.set_subtitle_lines(0);
            row.set_activatable(true);
            let check = gtk::CheckButton::new();
            check.set_valign(gtk::Align::Center);
            check.set_tooltip_text(Some(&gettext("Choose for comparison")));
            crate::a11y::set_label(
                &check,
                &fill(
                    &gettext("Compare the run of {date}"),
                    &[("date", &date_text(&run.started))],
                ),
            );
            let id = run.run.to_string();
            check.set_active(imp.chosen.borrow().iter().any(|(c, _)| *c == id));
            let label = format!("{}, {}", run.drive_label, date_text(&run.started));
            check.connect_toggled(glib::clone!(
                #[weak(rename_to = view)]
                self,
                #[strong]
                id,
                move |check| view.choose(&id, &label, check.is_active())
            ));
            row.add_prefix(&check);
            row.add_suffix(&Badge::new(run.verdict));
            crate::a11y::set_description(
                &row,
                &format!("{} — {}", verdict_text(run.verdict), run_figures(run)),
            );
            row.connect_activated(glib::clone!(
                #[weak(rename_to = view)]
                self,
                #[strong]
                id,
                move |_| view.open_run(&id)
            ));
            imp.runs_list.append(&row);
            imp.run_rows.borrow_mut().push((id, row, check));
        }
        imp.page.replace(Some(page));
    }

    fn show_profiles(&self, page: &DrivePage) {
        let imp = self.imp();
        if let Some(old) = imp.profile_drop.take() {
            imp.profile_box.remove(&old);
        }
        while let Some(child) = imp.profile_box.first_child() {
            imp.profile_box.remove(&child);
        }
        imp.profile_box.set_visible(page.profiles.len() > 1);
        if page.profiles.len() < 2 {
            return;
        }
        let label = gtk::Label::new(Some(&gettext("Test shown in the chart")));
        imp.profile_box.append(&label);
        let titles: Vec<String> = page.profiles.iter().map(|p| profile_title(p)).collect();
        let refs: Vec<&str> = titles.iter().map(String::as_str).collect();
        let drop = gtk::DropDown::from_strings(&refs);
        crate::a11y::set_label(&drop, &gettext("Test shown in the chart"));
        let index = page
            .profiles
            .iter()
            .position(|p| *p == page.profile)
            .unwrap_or(0);
        drop.set_selected(index as u32);
        let profiles = page.profiles.clone();
        let id = page
            .id
            .as_ref()
            .map_or(UNIDENTIFIED.to_owned(), |d| d.to_string());
        drop.connect_selected_notify(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |drop| {
                if let Some(p) = profiles.get(drop.selected() as usize) {
                    view.load_drive(&id, Some(p.clone()));
                }
            }
        ));
        imp.profile_box.append(&drop);
        imp.profile_drop.replace(Some(drop));
    }

    /// The drive page's transfer-rate chart (MB/s).
    pub fn rate_chart(&self) -> TrendChart {
        self.imp().rate_chart.clone()
    }

    /// The drive page's IOPS chart.
    pub fn iops_chart(&self) -> TrendChart {
        self.imp().iops_chart.clone()
    }

    /// The drive page's runs: (run id, title, subtitle) per row, newest first.
    pub fn run_rows(&self) -> Vec<(String, String, String)> {
        self.imp()
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

    /// The drive page's title: "{label} ({kind})".
    pub fn drive_title(&self) -> String {
        self.imp().drive_title.label().to_string()
    }

    /// The page shown: `drives`, `drive`, `run` or `compare`.
    pub fn visible_page(&self) -> String {
        self.imp()
            .stack
            .visible_child_name()
            .map(|s| s.to_string())
            .unwrap_or_default()
    }

    /// Ticks or unticks `run` for **Compare**; a third tick drops the oldest choice.
    pub fn choose(&self, run: &str, label: &str, chosen: bool) {
        {
            let mut list = self.imp().chosen.borrow_mut();
            list.retain(|(id, _)| id != run);
            if chosen {
                list.push((run.to_owned(), label.to_owned()));
                while list.len() > 2 {
                    list.remove(0);
                }
            }
        }
        self.sync_chosen();
    }

    fn sync_chosen(&self) {
        let imp = self.imp();
        let chosen = imp.chosen.borrow().clone();
        for (id, _, check) in imp.run_rows.borrow().iter() {
            let on = chosen.iter().any(|(c, _)| c == id);
            if check.is_active() != on {
                check.set_active(on);
            }
        }
        let page = imp.stack.visible_child_name();
        let browsing = matches!(page.as_deref(), Some("drives" | "drive") | None);
        imp.compare_bar.set_revealed(!chosen.is_empty() && browsing);
        imp.compare_button.set_sensitive(chosen.len() == 2);
        let text = match chosen.as_slice() {
            [(_, a)] => fill(
                &gettext("Compare {left} with… (tick another run)"),
                &[("left", a)],
            ),
            [(_, a), (_, b)] => fill(
                &gettext("Compare {left} with {right}"),
                &[("left", a), ("right", b)],
            ),
            _ => String::new(),
        };
        imp.compare_label.set_label(&text);
        imp.compare_label.set_tooltip_text(Some(&text));
    }

    /// Compares the two runs ticked (the older choice on the left) and shows the comparison.
    pub fn compare_chosen(&self) {
        let chosen = self.imp().chosen.borrow().clone();
        let [(left, _), (right, _)] = chosen.as_slice() else {
            return;
        };
        self.compare(left, right);
    }

    /// Compares the stored runs `left` and `right` and shows the comparison.
    pub fn compare(&self, left: &str, right: &str) {
        let (left, right) = (left.to_owned(), right.to_owned());
        let back = self.visible_page();
        self.background(
            move |path| history_store::compare(path, &left, &right),
            move |view, comparison: Result<Comparison, String>| match comparison {
                Ok(c) => {
                    view.imp().compare_view.show(&c);
                    if back != "compare" {
                        view.imp().compare_back.replace(back);
                    }
                    view.imp().stack.set_visible_child_name("compare");
                }
                Err(e) => view.toast(&e),
            },
        );
    }

    /// The comparison page's view.
    pub fn compare_view(&self) -> CompareView {
        self.imp().compare_view.clone()
    }

    /// Shows the stored results of `run`.
    pub fn open_run(&self, run: &str) {
        let run = run.to_owned();
        self.background(
            {
                let run = run.clone();
                move |path| history_store::report(path, &run)
            },
            move |view, report| match report {
                Ok(report) => {
                    let imp = view.imp();
                    imp.run_title.set_label(&fill(
                        &gettext("Run of {date}"),
                        &[("date", &date_text(&report.started))],
                    ));
                    imp.run_results.show_report(&report);
                    imp.run_report.replace(Some(report));
                    imp.run_id.replace(Some(run));
                    imp.stack.set_visible_child_name("run");
                }
                Err(e) => view.toast(&e),
            },
        );
    }

    /// The stored run's results view.
    pub fn run_results(&self) -> ResultsView {
        self.imp().run_results.clone()
    }

    /// Saves the stored run shown to `path` in `format` (what **Save report** does once a
    /// file is chosen).
    pub fn save_shown_run(&self, format: ReportFormat, path: &Path) -> Result<(), String> {
        let report = self
            .imp()
            .run_report
            .borrow()
            .clone()
            .ok_or_else(|| gettext("No run is shown"))?;
        save_report::write_report(&report, format, path, &self.imp().run_results.card())
    }

    fn ask_save_run(&self) {
        let Some(report) = self.imp().run_report.borrow().clone() else {
            return;
        };
        let Some(window) = self.root().and_downcast::<gtk::Window>() else {
            return;
        };
        let chooser = save_report::ask_and_save(
            &window,
            report,
            self.imp().run_results.card(),
            glib::clone!(
                #[weak(rename_to = view)]
                self,
                move |result| {
                    view.imp().chooser.replace(None);
                    match result {
                        Ok(path) => view.toast(&fill(
                            &gettext("Saved {file}"),
                            &[("file", &path.display())],
                        )),
                        Err(e) => view.toast(&e),
                    }
                }
            ),
        );
        self.imp().chooser.replace(Some(chooser));
    }

    fn ask_forget_run(&self) {
        let Some(run) = self.imp().run_id.borrow().clone() else {
            return;
        };
        let dialog = adw::MessageDialog::new(
            self.root().and_downcast_ref::<gtk::Window>(),
            Some(&gettext("Forget this run?")),
            Some(&gettext(
                "The run is removed from the history and from the drive's chart. This cannot be undone.",
            )),
        );
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

    /// Removes `run` from the history, then shows its drive's page again (or the drives).
    pub fn forget_run(&self, run: &str) {
        let run = run.to_owned();
        self.background(
            move |path| history_store::forget_run(path, &run),
            |view, result| {
                match result {
                    Ok(_) => view.toast(&gettext("Run forgotten")),
                    Err(e) => view.toast(&e),
                }
                view.imp().chosen.borrow_mut().clear();
                view.sync_chosen();
                let on_drive = view.imp().page.borrow().is_some();
                view.imp()
                    .stack
                    .set_visible_child_name(if on_drive { "drive" } else { "drives" });
                view.reload();
            },
        );
    }

    fn ask_rename(&self) {
        let Some((id, name)) = self.imp().page.borrow().as_ref().and_then(|p| {
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

    /// The dialog shown and not yet answered (rename, forget), if any.
    pub fn open_dialog(&self) -> Option<adw::MessageDialog> {
        self.imp().dialog.borrow().clone()
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
