//! The results page: the verdict in words, one row per A1 check (sequential write, random
//! write, random read) with its value in clear units, its target and a PASS/FAIL badge, the
//! advice under a failing row, the ungraded figures, the A2 result, each run when there were
//! several, which drive was tested, the card or drive with its claims against the
//! measurements, and **Run Again** / **Copy Results**.

use std::cell::{Cell, RefCell};

use adw::prelude::*;
use agnostics_core::advice::Advice;
use agnostics_core::headline::CapacityKnown;
use agnostics_core::i18n::{fill, gettext, ngettext, number};
use agnostics_core::report::{Report, RunReport};
use agnostics_core::sdtest::UPSTREAM_RUNS;
use agnostics_core::units;
use agnostics_core::verdict::{class_iops, target, Metric, Standard, Verdict};
use gtk::glib;
use gtk::subclass::prelude::*;

use crate::format::target_report_label;
use crate::widgets::card_group::{card_group, CardGroup};
use crate::widgets::results_rows::{
    add_check, advice_row, check_row, expander, fact_row, group, phase_row,
};
use crate::widgets::Badge;

mod references;
mod summary;
mod sustained;
mod trend;

pub use sustained::ShownSustained;

/// What one graded row shows, read back from the widgets (for tests and for people who
/// want to check what the screen says).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownCheck {
    /// The row's title, e.g. "Random 4K write".
    pub title: String,
    /// The row's subtitle: value and target.
    pub value: String,
    /// The badge's text: PASS, FAIL or ERROR.
    pub verdict: String,
    /// The advice rows right under it.
    pub advice: Vec<String>,
}

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(resource = "/io/github/agnostics_rs/Agnostics/ui/results_view.ui")]
    pub struct ResultsView {
        #[template_child]
        pub scroller: TemplateChild<gtk::ScrolledWindow>,
        #[template_child]
        pub verdict_icon: TemplateChild<gtk::Image>,
        #[template_child]
        pub title_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub reference_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub subtitle_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub standard_button: TemplateChild<gtk::Button>,
        /// The run shown is a Quick check with a first look (its next step is offered).
        pub first_look: std::cell::Cell<bool>,
        #[template_child]
        pub groups: TemplateChild<gtk::Box>,
        #[template_child]
        pub results_card: TemplateChild<gtk::Box>,
        #[template_child]
        pub actions: TemplateChild<crate::widgets::WrapBox>,
        #[template_child]
        pub actions_separator: TemplateChild<gtk::Separator>,
        #[template_child]
        pub save_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub copy_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub run_again_button: TemplateChild<gtk::Button>,
        /// What was last announced to screen readers (the verdict).
        pub announced: RefCell<String>,
        /// The A1 rows of the deciding run, with their badges and advice.
        pub checks: RefCell<Vec<(adw::ActionRow, Badge, Vec<adw::ActionRow>)>>,
        /// The A2 row's badge.
        pub a2_badge: RefCell<Option<Badge>>,
        /// The ungraded figures' rows.
        pub info_rows: RefCell<Vec<adw::ActionRow>>,
        /// One expander per run when there were several.
        pub run_rows: RefCell<Vec<adw::ExpanderRow>>,
        /// The card or drive group, when there is one.
        pub card: RefCell<Option<CardGroup>>,
        /// The results table's cells as shown, the header line first.
        pub table_cells: RefCell<Vec<Vec<String>>>,
        /// The trend group (against the drive's earlier runs) and its lines, when shown.
        pub trend: RefCell<Option<(adw::PreferencesGroup, Vec<String>)>>,
        /// The group the trend goes after: the last of the verdict's (none: at the top).
        pub trend_after: RefCell<Option<gtk::Widget>>,
        /// The published figures shown: (line, source address) a row each.
        pub references: RefCell<Vec<(String, String)>>,
        /// The report shown (its headline is drawn again when the capacity facts come).
        pub shown: RefCell<Option<Report>>,
        /// What the sustained write test's groups show, when the run was one.
        pub sustained: RefCell<Option<ShownSustained>>,
        /// What the drive's capacity checks say, weighed with the verdict in the headline.
        pub capacity: Cell<CapacityKnown>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for ResultsView {
        const NAME: &'static str = "AgnosticsResultsView";
        type Type = super::ResultsView;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            crate::resources::register();
            crate::widgets::WrapBox::ensure_type();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for ResultsView {}
    impl WidgetImpl for ResultsView {}
    impl BoxImpl for ResultsView {}
}

glib::wrapper! {
    /// The results page.
    pub struct ResultsView(ObjectSubclass<imp::ResultsView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Default for ResultsView {
    fn default() -> Self {
        glib::Object::new()
    }
}

/// The advice that belongs under the row of `metric` when that check failed.
fn advice_for(metric: Metric, advice: &Advice) -> bool {
    matches!(
        (metric, advice),
        (
            Metric::SeqWrite,
            Advice::SeqWriteSlow | Advice::ReformatSafely { .. }
        ) | (
            Metric::RandWrite | Metric::RandRead,
            Advice::RandomIoSlow | Advice::RandomIoSlowDrive
        )
    )
}

impl ResultsView {
    /// Shows `report` (a test that produced verdicts), replacing what was shown.
    pub fn show_report(&self, report: &Report) {
        let imp = self.imp();
        while let Some(child) = imp.groups.first_child() {
            imp.groups.remove(&child);
        }
        imp.checks.borrow_mut().clear();
        imp.info_rows.borrow_mut().clear();
        imp.run_rows.borrow_mut().clear();
        imp.a2_badge.replace(None);
        imp.table_cells.borrow_mut().clear();
        imp.trend.replace(None);
        imp.references.borrow_mut().clear();
        imp.capacity.set(CapacityKnown::default());
        imp.shown.replace(Some(report.clone()));

        self.show_summary(report);
        let sustained = report
            .deciding_run()
            .and_then(|run| sustained::sustained_groups(run, report.sd_graded));
        if let Some((groups, shown)) = sustained {
            groups.iter().for_each(|g| imp.groups.append(g));
            imp.sustained.replace(Some(shown));
        } else {
            imp.sustained.replace(None);
        }
        let mut placed: Vec<&Advice> = Vec::new();
        if let Some(run) = report.deciding_run().filter(|_| !report.graded) {
            self.add_table_group(report);
            self.add_measured_group(run);
        } else if let Some(run) = report.deciding_run() {
            self.add_a1_group(report, run, &mut placed);
            self.add_a2_group(run);
        }
        // The published figures stand right after the figures they are set beside.
        if let Some((figures, shown)) = references::references_group(report) {
            imp.groups.append(&figures);
            imp.references.replace(shown);
        }
        // The trend against earlier runs goes here, after the verdict's rows and advice, so
        // that these stay on the first screen.
        imp.trend_after.replace(imp.groups.last_child());
        if let Some(run) = report.deciding_run().filter(|_| report.graded) {
            self.add_info_group(run);
        }
        if report.runs.len() > 1 {
            self.add_runs_group(report);
        }
        self.add_tested_group(report);
        self.add_card_group(report);
        self.add_notes_group(report, &placed);
        imp.scroller.vadjustment().set_value(0.0);
        crate::a11y::tidy(self);
    }

    fn add_a1_group<'a>(&self, report: &'a Report, run: &RunReport, placed: &mut Vec<&'a Advice>) {
        let mut description = if report.sd_graded {
            gettext("The minimum for running Raspberry Pi OS from a card.")
        } else {
            gettext("SD card targets, for reference only: this drive is not an SD card.")
        };
        if report.runs.len() > 1 {
            description.push(' ');
            description.push_str(&fill(
                &gettext("Figures of run {run} of {runs}."),
                &[("run", &run.run), ("runs", &report.runs.len())],
            ));
        }
        let a1 = group(
            &gettext("Application Performance Class A1"),
            Some(&description),
        );
        for metric in [Metric::SeqWrite, Metric::RandWrite, Metric::RandRead] {
            let Some(check) = run.check(metric, Standard::A1) else {
                continue;
            };
            let (row, badge) = check_row(check);
            a1.add(&row);
            let mut advice_rows = Vec::new();
            if check.verdict == Verdict::Fail {
                for advice in &report.advice {
                    if advice_for(metric, advice) && !placed.contains(&advice) {
                        let advice_row = advice_row(&advice.text(), "agnostics-info-symbolic");
                        a1.add(&advice_row);
                        advice_rows.push(advice_row);
                        placed.push(advice);
                    }
                }
            }
            self.imp()
                .checks
                .borrow_mut()
                .push((row, badge, advice_rows));
        }
        self.imp().groups.append(&a1);
    }

    fn add_a2_group(&self, run: &RunReport) {
        let a2 = group(&gettext("Faster cards"), None);
        let (seq_unit, seq) = target(Standard::A2, Metric::SeqWrite);
        let (read, write) = class_iops(Standard::A2);
        let a2_title = gettext("Application Performance Class A2");
        let (row, badge) = expander(
            &a2_title,
            &fill(
                // Translators: {seq} is a rate with its unit, e.g. "10 MB/s"; {write} and {read}
                // are IOPS figures.
                &gettext("{seq}, {write} write IOPS and {read} read IOPS. Only a Raspberry Pi 5 or later makes use of it."),
                &[
                    ("seq", &format!("{} {}", number(seq, 0), seq_unit.as_str())),
                    ("write", &number(write, 0)),
                    ("read", &number(read, 0)),
                ],
            ),
            run.a2_verdict,
        );
        for check in run.checks.iter().filter(|c| c.standard == Standard::A2) {
            let (child, _) = check_row(check);
            add_check(&row, &a2_title, &child);
        }
        a2.add(&row);
        self.imp().a2_badge.replace(Some(badge));
        self.imp().groups.append(&a2);
    }

    fn add_info_group(&self, run: &RunReport) {
        let graded: Vec<&str> = [Metric::SeqWrite, Metric::RandWrite, Metric::RandRead]
            .iter()
            .map(|m| m.phase())
            .collect();
        let phases: Vec<_> = run
            .phases
            .iter()
            .filter(|p| !graded.contains(&p.name.as_str()))
            .collect();
        if phases.is_empty() {
            return;
        }
        let info = group(
            &gettext("Other measurements"),
            Some(&gettext("Measured for information; not graded.")),
        );
        for phase in phases {
            let row = phase_row(phase);
            info.add(&row);
            self.imp().info_rows.borrow_mut().push(row);
        }
        self.imp().groups.append(&info);
    }

    /// The profile's results table ([`agnostics_core::report::table::grid`]: the cells the
    /// CLI and the Markdown show), in a grid of labels: the CrystalDiskMark table or the
    /// queue-depth-1 table.
    fn add_table_group(&self, report: &Report) {
        let Some(table) = &report.table else { return };
        let title = (report.profile.builtin)
            .map(|b| b.builtin().title())
            .unwrap_or_else(|| gettext("Results"));
        let results = group(
            &title,
            Some(&gettext(
                "Measured, not graded: only the standard test is graded against A1 and A2.",
            )),
        );
        let (head, body) = agnostics_core::report::table::grid(table);
        let grid = gtk::Grid::builder()
            .column_spacing(24)
            .row_spacing(6)
            .margin_top(12)
            .margin_bottom(12)
            .margin_start(12)
            .margin_end(12)
            .build();
        for (y, line) in std::iter::once(&head).chain(&body).enumerate() {
            for (x, text) in line.iter().enumerate() {
                let label = gtk::Label::new(Some(text));
                label.set_xalign(if x == 0 { 0.0 } else { 1.0 });
                label.set_hexpand(x == 0);
                label.set_selectable(true);
                if y == 0 {
                    label.add_css_class("heading");
                } else if x > 0 {
                    label.add_css_class("numeric");
                }
                grid.attach(&label, x as i32, y as i32, 1, 1);
            }
        }
        // The card is the frame, the grid's margins its padding: the figures keep clear of
        // its edges, and it is as wide as the other groups' lists.
        let card = gtk::Box::new(gtk::Orientation::Vertical, 0);
        card.add_css_class("card");
        card.append(&grid);
        results.add(&card);
        self.imp()
            .table_cells
            .borrow_mut()
            .extend(std::iter::once(head).chain(body));
        self.imp().groups.append(&results);
    }

    /// Every job of a run that was measured without grading, a row each.
    fn add_measured_group(&self, run: &RunReport) {
        let info = group(
            &gettext("Jobs"),
            Some(&gettext("Each part of the test, as measured.")),
        );
        for phase in &run.phases {
            let row = phase_row(phase);
            info.add(&row);
            self.imp().info_rows.borrow_mut().push(row);
        }
        self.imp().groups.append(&info);
    }

    fn add_runs_group(&self, report: &Report) {
        let runs = group(
            &gettext("Each run"),
            Some(&fill(
                &ngettext(
                    "The test runs up to {count} time and stops at the first run that passes.",
                    "The test runs up to {count} times and stops at the first run that passes.",
                    UPSTREAM_RUNS,
                ),
                &[("count", &UPSTREAM_RUNS)],
            )),
        );
        for run in &report.runs {
            let run_title = fill(&gettext("Run {run}"), &[("run", &run.run)]);
            let (row, _) = expander(&run_title, &gettext("A1 checks"), run.verdict);
            for check in run.checks.iter().filter(|c| c.standard == Standard::A1) {
                let (child, _) = check_row(check);
                add_check(&row, &run_title, &child);
            }
            runs.add(&row);
            self.imp().run_rows.borrow_mut().push(row);
        }
        self.imp().groups.append(&runs);
    }

    fn add_tested_group(&self, report: &Report) {
        let tested = group(&gettext("What was tested"), None);
        if let Some(t) = &report.target {
            tested.add(&fact_row(&gettext("Drive"), &target_report_label(t)));
            if let Some(partition) = t
                .partition
                .as_ref()
                .filter(|p| Some(*p) != t.device.as_ref())
            {
                tested.add(&fact_row(&gettext("Partition"), partition));
            }
            tested.add(&fact_row(&gettext("Folder"), &t.path));
        }
        let engine = match &report.io_path {
            None => report.engine.as_str().to_owned(),
            Some(io_path) => format!("{} ({io_path})", report.engine.as_str()),
        };
        tested.add(&fact_row(&gettext("Measured with"), &engine));
        tested.add(&fact_row(
            &gettext("Test"),
            &fill(
                &gettext("{profile}, {size} test file"),
                &[
                    ("profile", &report.profile.name),
                    ("size", &units::si_bytes(report.profile.size_bytes)),
                ],
            ),
        ));
        self.imp().groups.append(&tested);
    }

    /// The card or drive: what it says about itself, and its claims against the measurements.
    fn add_card_group(&self, report: &Report) {
        let imp = self.imp();
        imp.card.replace(None);
        if let Some(card) = card_group(report.card.as_ref(), &report.findings) {
            imp.groups.append(&card.group);
            imp.card.replace(Some(card));
        }
    }

    fn add_notes_group(&self, report: &Report, placed: &[&Advice]) {
        let advice: Vec<&Advice> = report
            .advice
            .iter()
            .filter(|a| !placed.contains(a))
            .collect();
        if advice.is_empty() && report.warnings.is_empty() {
            return;
        }
        let notes = group(&gettext("Notes"), None);
        for a in advice {
            notes.add(&advice_row(&a.text(), "agnostics-info-symbolic"));
        }
        for w in &report.warnings {
            // The engine's warnings are made to follow "warning: ": here each is a note.
            let note = crate::format::capitalized(w);
            notes.add(&advice_row(&note, "agnostics-warning-symbolic"));
        }
        self.imp().groups.append(&notes);
    }

    /// The page's groups top to bottom, as shown: each one's title and description (for
    /// tests: what comes after what).
    pub fn shown_groups(&self) -> Vec<(String, String)> {
        let mut shown = Vec::new();
        let mut child = self.imp().groups.first_child();
        while let Some(widget) = child {
            if let Some(g) = widget.downcast_ref::<adw::PreferencesGroup>() {
                let description = g.description().map(|d| d.to_string()).unwrap_or_default();
                shown.push((g.title().to_string(), description));
            }
            child = widget.next_sibling();
        }
        shown
    }

    /// The A1 rows as shown: title, value, badge text and the advice under each.
    pub fn shown_checks(&self) -> Vec<ShownCheck> {
        self.imp()
            .checks
            .borrow()
            .iter()
            .map(|(row, badge, advice)| ShownCheck {
                title: row.title().to_string(),
                value: row.subtitle().map(|s| s.to_string()).unwrap_or_default(),
                verdict: badge.text(),
                advice: advice.iter().map(|r| r.title().to_string()).collect(),
            })
            .collect()
    }

    /// The results table's cells as shown (header line first); empty without a table.
    pub fn shown_table(&self) -> Vec<Vec<String>> {
        self.imp().table_cells.borrow().clone()
    }

    /// The A2 badge's text, when a run was graded.
    pub fn a2_text(&self) -> Option<String> {
        self.imp().a2_badge.borrow().as_ref().map(Badge::text)
    }

    /// The titles and figures of the ungraded rows.
    pub fn shown_info(&self) -> Vec<(String, String)> {
        self.imp()
            .info_rows
            .borrow()
            .iter()
            .map(|r| {
                (
                    r.title().to_string(),
                    r.subtitle().map(|s| s.to_string()).unwrap_or_default(),
                )
            })
            .collect()
    }

    /// The card group as shown: its title (`Card` or `Drive`) and its fact rows (title,
    /// value); `None` when there is none.
    pub fn shown_card(&self) -> Option<(String, Vec<(String, String)>)> {
        let card = self.imp().card.borrow();
        let card = card.as_ref()?;
        let facts = card
            .facts
            .iter()
            .map(|r| {
                (
                    r.title().to_string(),
                    r.subtitle().map(|s| s.to_string()).unwrap_or_default(),
                )
            })
            .collect();
        Some((card.group.title().to_string(), facts))
    }

    /// The card group's warnings and findings, as shown.
    pub fn shown_card_notes(&self) -> Vec<String> {
        self.imp()
            .card
            .borrow()
            .as_ref()
            .map(|c| c.notes.iter().map(|r| r.title().to_string()).collect())
            .unwrap_or_default()
    }

    /// The "Published figures" rows shown: (line, source address); empty when the group is
    /// not shown.
    pub fn shown_references(&self) -> Vec<(String, String)> {
        self.imp().references.borrow().clone()
    }

    /// What the sustained write test's groups show; `None` when the run was not one.
    pub fn shown_sustained(&self) -> Option<ShownSustained> {
        self.imp().sustained.borrow().clone()
    }

    /// The number of per-run rows (0 when there was one run).
    pub fn run_count(&self) -> usize {
        self.imp().run_rows.borrow().len()
    }

    /// The verdict line, e.g. "Your SD card is fast enough".
    pub fn title_text(&self) -> String {
        self.imp().title_label.label().to_string()
    }

    /// The note under the verdict that the SD card targets are a reference only (a drive that
    /// is not an SD card), `None` when not shown.
    pub fn reference_note_text(&self) -> Option<String> {
        let label = &self.imp().reference_label;
        label.is_visible().then(|| label.label().to_string())
    }

    /// The verdict icon's style classes, e.g. "error" for a failed SD card.
    pub fn verdict_style(&self) -> String {
        self.imp()
            .verdict_icon
            .css_classes()
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The line naming the drive tested.
    pub fn subtitle_text(&self) -> String {
        self.imp().subtitle_label.label().to_string()
    }

    /// The results card: the verdict and every group, what **Save report** draws as a PNG.
    pub fn card(&self) -> gtk::Widget {
        self.imp().results_card.get().upcast()
    }

    /// Shows or hides the buttons at the bottom (**Copy Results**, **Save report**, **Run
    /// again**): a stored run's results have their own.
    pub fn set_actions_visible(&self, visible: bool) {
        WidgetExt::set_visible(&self.imp().actions.get(), visible);
        self.imp().actions_separator.set_visible(visible);
        self.sync_standard_button();
    }

    /// **Run the Standard Test**: shown after a Quick check of this session (a stored run's
    /// drive may not be the one chosen).
    pub fn standard_button(&self) -> gtk::Button {
        self.imp().standard_button.get()
    }

    pub(super) fn sync_standard_button(&self) {
        let imp = self.imp();
        imp.standard_button
            .set_visible(imp.first_look.get() && WidgetExt::is_visible(&imp.actions.get()));
    }

    /// **Save Report…** (an icon button beside **Copy Results**).
    pub fn save_button(&self) -> gtk::Button {
        self.imp().save_button.get()
    }

    /// **Run Again**.
    /// Clears the text selected in the page's labels: GTK selects a selectable label's text
    /// when focus passes through it on the way to **Run Again** as the page opens.
    pub fn clear_selection(&self) {
        let imp = self.imp();
        if imp.subtitle_label.selection_bounds().is_some() {
            imp.subtitle_label.select_region(0, 0);
        }
    }

    /// What the page last announced to screen readers (the verdict).
    pub fn announcement(&self) -> String {
        self.imp().announced.borrow().clone()
    }

    /// **Run Again**.
    pub fn run_again_button(&self) -> gtk::Button {
        self.imp().run_again_button.get()
    }

    /// **Copy Results**.
    pub fn copy_button(&self) -> gtk::Button {
        self.imp().copy_button.get()
    }
}
